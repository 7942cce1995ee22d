/**
 * The day route: straight-line legs between a user's visits of a day, and a shorter order for them.
 * Pure: no database, no clock. Distances are haversine metres (src/modules/locations/geometry.ts).
 *
 *   legs       the route in a given order: each stop's leg from the stop before (or from `start`),
 *              stops without coordinates last with a null leg, and the total
 *   optimize   a shorter order: nearest neighbour from `start` (or the first stop), and the current
 *              order, each improved by 2-opt, Or-opt and exchange moves until none shortens the
 *              route; the result is the shortest of those, plain nearest neighbour and the current
 *              order, so it is never longer than either baseline. Locked visits keep their positions
 *              (indexes in the sequence). Without `start` the route may begin at any stop; the
 *              nearest-neighbour baseline begins at the current first stop.
 *
 * The route is open: it ends at the last stop (no way back is counted). Every choice is deterministic:
 * ties between equally near stops go to the smaller visit id, moves are tried in a fixed order, and a
 * move is taken only if it shortens the route by more than a millimetre (no cycling on rounding).
 */
import { haversineMeters } from '../../lib/geo'

export interface RouteStop {
  visit_id: number
  latitude: number | null
  longitude: number | null
}

export interface RoutePoint {
  latitude: number
  longitude: number
}

export interface Leg<S extends RouteStop> {
  stop: S
  /** Metres from the stop before (the first stop: from `start`, or 0 without one); null without coordinates. */
  leg_distance_m: number | null
}

const located = (stop: RouteStop) => stop.latitude !== null && stop.longitude !== null
const distance = (a: RoutePoint, b: RoutePoint) => haversineMeters({ lat: a.latitude, lng: a.longitude }, { lat: b.latitude, lng: b.longitude })

/**
 * The route in the given order (already sorted by route_sequence, then id). Stops without coordinates
 * move to the end in their given order with `leg_distance_m: null`; they add nothing to the total.
 */
export function legs<S extends RouteStop>(stops: readonly S[], start?: RoutePoint | null): { legs: Leg<S>[]; total_distance_m: number } {
  const result: Leg<S>[] = []
  let previous: RoutePoint | null = start ?? null
  let total = 0
  for (const stop of stops.filter(located)) {
    const here = stop as RoutePoint
    const leg = previous ? distance(previous, here) : 0
    total += leg
    result.push({ stop, leg_distance_m: leg })
    previous = here
  }
  for (const stop of stops) if (!located(stop)) result.push({ stop, leg_distance_m: null })
  return { legs: result, total_distance_m: total }
}

export type RouteStrategy = 'current' | 'nearest_neighbour' | 'improved'

export interface OptimizeResult<S extends RouteStop> {
  /** All stops in the new order; stops without coordinates last, in their given order. */
  stops: S[]
  total_distance_m: number
  /** Which order won: the current one is kept when nothing is shorter. */
  strategy: RouteStrategy
  current_distance_m: number
  nearest_neighbour_distance_m: number
}

/** Improvement below this many metres is not taken: rounding must not make moves cycle. */
const EPSILON_M = 1e-3
/** Safety bound on improvement rounds (each round is a full sweep; it ends far earlier in practice). */
const MAX_ROUNDS = 1000
/** Or-opt moves segments of 1 … 3 stops. */
const OR_OPT_MAX = 3

/**
 * A shorter order for `stops` (given in the current order). `locked` visit ids keep their index in the
 * sequence of the route (`legs` order: located stops first); unknown ids are ignored.
 */
export function optimize<S extends RouteStop>(input: { start?: RoutePoint | null; stops: readonly S[]; locked?: Iterable<number> }): OptimizeResult<S> {
  const lockedIds = new Set(input.locked ?? [])
  const points = input.stops.filter(located)
  const tail = input.stops.filter((stop) => !located(stop))
  const n = points.length
  const start = input.start ?? null

  // Node k < n is points[k]; node n is the start (distance 0 to all when there is none); node n + 1 the
  // open end (distance 0 to all). A route is [n, …the stops…, n + 1]: both ends are fixed, so every move
  // below sees the same two-sided neighbourhood at the edges as in the middle.
  const size = n + 2
  const matrix = new Float64Array(size * size)
  for (let a = 0; a < n; a += 1) {
    for (let b = a + 1; b < n; b += 1) {
      const d = distance(points[a] as RoutePoint, points[b] as RoutePoint)
      matrix[a * size + b] = d
      matrix[b * size + a] = d
    }
    if (start) {
      const d = distance(start, points[a] as RoutePoint)
      matrix[a * size + n] = d
      matrix[n * size + a] = d
    }
  }
  const d = (a: number, b: number) => matrix[a * size + b] as number
  const cost = (route: readonly number[]) => {
    let total = 0
    for (let i = 1; i < route.length; i += 1) total += d(route[i - 1] as number, route[i] as number)
    return total
  }

  // Fixed positions of the extended route: both ends and every locked stop's current index (+1 for the start).
  const fixed = new Uint8Array(size)
  fixed[0] = 1
  fixed[n + 1] = 1
  points.forEach((stop, index) => {
    if (lockedIds.has(stop.visit_id)) fixed[index + 1] = 1
  })

  const current = [n, ...points.map((_, index) => index), n + 1]
  const nearest = nearestNeighbour(points, fixed, d, start !== null)
  // Local search from both baselines; the shorter result stands for "improved".
  const fromNearest = improve([...nearest], fixed, d)
  const fromCurrent = improve([...current], fixed, d)
  const improved = cost(fromCurrent) < cost(fromNearest) - EPSILON_M ? fromCurrent : fromNearest

  const candidates: [RouteStrategy, number[]][] = [
    ['current', current],
    ['nearest_neighbour', nearest],
    ['improved', improved],
  ]
  // Shortest wins; on a tie the earlier candidate (keep the current order rather than shuffle it).
  let best = candidates[0] as [RouteStrategy, number[]]
  let bestCost = cost(best[1])
  for (const candidate of candidates.slice(1)) {
    const candidateCost = cost(candidate[1])
    if (candidateCost < bestCost - EPSILON_M) {
      best = candidate
      bestCost = candidateCost
    }
  }
  return {
    stops: [...best[1].slice(1, -1).map((node) => points[node] as S), ...tail],
    total_distance_m: bestCost,
    strategy: best[0],
    current_distance_m: cost(current),
    nearest_neighbour_distance_m: cost(nearest),
  }
}

/**
 * Plain nearest neighbour over the free positions: from the start (or, without one, from the first
 * stop, which stays first), each free position takes the nearest stop not yet placed (ties: smaller
 * visit id); a locked position keeps its stop and the walk continues from it.
 */
function nearestNeighbour(points: readonly RouteStop[], fixed: Uint8Array, d: (a: number, b: number) => number, hasStart: boolean): number[] {
  const n = points.length
  const route = [n]
  const placed = new Uint8Array(n)
  for (let index = 0; index < n; index += 1) if (fixed[index + 1]) placed[index] = 1
  let from = n
  for (let position = 0; position < n; position += 1) {
    let next = -1
    if (fixed[position + 1]) next = position
    else if (position === 0 && !hasStart) next = 0
    else {
      let nearest = Number.POSITIVE_INFINITY
      for (let k = 0; k < n; k += 1) {
        if (placed[k]) continue
        const dk = d(from, k)
        if (dk < nearest || (dk === nearest && (points[k] as RouteStop).visit_id < (points[next] as RouteStop).visit_id)) {
          nearest = dk
          next = k
        }
      }
    }
    placed[next] = 1
    route.push(next)
    from = next
  }
  route.push(n + 1)
  return route
}

/**
 * Local search on the extended route until no move shortens it by more than EPSILON_M: 2-opt (reverse
 * route[i..j]) and Or-opt (move a segment of 1–3 stops elsewhere, either way round) inside stretches
 * without a fixed position, and exchange (swap two free stops, anywhere). Each round sweeps the route
 * in index order and takes every improving move as it meets it (Or-opt: the best place for the
 * segment), so the same input always takes the same moves; rounds repeat until one moves nothing.
 */
function improve(route: number[], fixed: Uint8Array, d: (a: number, b: number) => number): number[] {
  const last = route.length - 1
  // The first fixed position at or after each index: a stretch [i..j] is free when it is before j.
  const nextFixed = () => {
    const next = new Int32Array(route.length)
    let at = last
    for (let i = last; i >= 0; i -= 1) {
      if (fixed[i]) at = i
      next[i] = at
    }
    return next
  }
  const stretch = nextFixed() // positions, not stops: it never changes, as fixed positions never move
  const free = (i: number, j: number) => (stretch[i] as number) > j

  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    let moved = false
    // 2-opt: reverse route[i..j]; the sweep goes on over the changed route after each move.
    for (let i = 1; i < last; i += 1) {
      for (let j = i + 1; j < last && free(i, j); j += 1) {
        const a = route[i - 1] as number
        const b = route[i] as number
        const c = route[j] as number
        const e = route[j + 1] as number
        if (d(a, c) + d(b, e) < d(a, b) + d(c, e) - EPSILON_M) {
          reverse(route, i, j)
          moved = true
        }
      }
    }
    // Or-opt: take route[i..i+k-1] out and put it between route[p] and route[p+1], both in one free stretch.
    for (let i = 1; i < last; i += 1) {
      for (let k = 1; k <= OR_OPT_MAX; k += 1) {
        const end = i + k - 1
        if (end >= last || !free(i, end)) break
        if (orMove(route, i, k, free, d)) {
          moved = true
          break
        }
      }
    }
    // Exchange: swap two free stops (they may sit in different stretches between locked stops).
    for (let i = 1; i < last; i += 1) {
      if (fixed[i]) continue
      for (let j = i + 1; j < last; j += 1) {
        if (fixed[j]) continue
        if (swapGain(route, i, j, d) < -EPSILON_M) {
          const t = route[i] as number
          route[i] = route[j] as number
          route[j] = t
          moved = true
        }
      }
    }
    if (!moved) break
  }
  return route
}

/** The best place for route[i..i+k-1] (either way round), if moving it there shortens the route; whether it moved. */
function orMove(route: number[], i: number, k: number, free: (i: number, j: number) => boolean, d: (a: number, b: number) => number): boolean {
  const last = route.length - 1
  const end = i + k - 1
  const before = route[i - 1] as number
  const first = route[i] as number
  const lastOfSegment = route[end] as number
  const after = route[end + 1] as number
  const removed = d(before, first) + d(lastOfSegment, after) - d(before, after)
  let bestGain = -EPSILON_M
  let bestP = -1
  let bestReversed = false
  for (let p = 0; p < last; p += 1) {
    if (p >= i - 1 && p <= end) continue
    // Every position between the segment and the gap shifts: none may be fixed.
    if (p < i ? !free(p + 1, end) : !free(i, p)) continue
    const x = route[p] as number
    const y = route[p + 1] as number
    const forward = d(x, first) + d(lastOfSegment, y) - d(x, y) - removed
    const backward = d(x, lastOfSegment) + d(first, y) - d(x, y) - removed
    if (forward < bestGain) {
      bestGain = forward
      bestP = p
      bestReversed = false
    }
    if (backward < bestGain - EPSILON_M) {
      bestGain = backward
      bestP = p
      bestReversed = true
    }
  }
  if (bestP < 0) return false
  const segment = route.splice(i, k)
  if (bestReversed) segment.reverse()
  route.splice(bestP < i ? bestP + 1 : bestP + 1 - k, 0, ...segment)
  return true
}

function reverse(route: number[], i: number, j: number) {
  for (let a = i, b = j; a < b; a += 1, b -= 1) {
    const t = route[a] as number
    route[a] = route[b] as number
    route[b] = t
  }
}

/** Length change of swapping route[i] and route[j] (i < j). */
function swapGain(route: readonly number[], i: number, j: number, d: (a: number, b: number) => number): number {
  const a = route[i - 1] as number
  const b = route[i] as number
  const c = route[i + 1] as number
  const x = route[j - 1] as number
  const y = route[j] as number
  const z = route[j + 1] as number
  if (j === i + 1) return d(a, y) + d(b, z) - d(a, b) - d(y, z)
  return d(a, y) + d(y, c) + d(x, b) + d(b, z) - (d(a, b) + d(b, c) + d(x, y) + d(y, z))
}
