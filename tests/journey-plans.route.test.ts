/**
 * The day route (src/modules/journey-plans/route-optimizer.ts): legs, and an order never longer than
 * the current one nor than plain nearest neighbour, deterministic, with locked stops in place.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { haversineMeters } from '../src/lib/geo'
import { legs, optimize, type RoutePoint, type RouteStop } from '../src/modules/journey-plans'

const stop = (visit_id: number, latitude: number | null, longitude: number | null): RouteStop => ({ visit_id, latitude, longitude })
const ids = (stops: readonly RouteStop[]) => stops.map((s) => s.visit_id)
const metres = (a: RouteStop | RoutePoint, b: RouteStop | RoutePoint) =>
  haversineMeters({ lat: a.latitude as number, lng: a.longitude as number }, { lat: b.latitude as number, lng: b.longitude as number })

/** Length of an open route through located stops, from `start` when given. */
function length(stops: readonly RouteStop[], start?: RoutePoint) {
  const path = stops.filter((s) => s.latitude !== null)
  let total = start && path.length ? metres(start, path[0] as RouteStop) : 0
  for (let i = 1; i < path.length; i += 1) total += metres(path[i - 1] as RouteStop, path[i] as RouteStop)
  return total
}

function* permutations<T>(items: T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield items
    return
  }
  for (let i = 0; i < items.length; i += 1) for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i] as T, ...rest]
}

/** The optimum by brute force over every order (without a start, any stop may come first). */
function bruteForce(stops: RouteStop[], start?: RoutePoint) {
  let best = Number.POSITIVE_INFINITY
  for (const order of permutations(stops)) best = Math.min(best, length(order, start))
  return best
}

// About 111 m per 0.001° of latitude near the equator.
const grid = (id: number, x: number, y: number) => stop(id, -6.2 + y * 0.001, 106.8 + x * 0.001)

describe('legs', () => {
  test('haversine legs in the given order; the first leg is 0 without a start, from the start with one', () => {
    const a = grid(1, 0, 0)
    const b = grid(2, 0, 1)
    const c = grid(3, 0, 3)
    const route = legs([a, b, c])
    expect(route.legs.map((l) => l.leg_distance_m)).toEqual([0, metres(a, b), metres(b, c)])
    expect(route.total_distance_m).toBeCloseTo(metres(a, c), 6)
    const start = { latitude: a.latitude as number, longitude: (a.longitude as number) + 0.001 }
    expect(legs([a], start).legs[0]?.leg_distance_m).toBe(metres(start, a))
  })

  test('stops without coordinates come last, in their order, with null legs that add nothing', () => {
    const route = legs([stop(5, null, null), grid(1, 0, 0), stop(4, -6.2, null), grid(2, 0, 1)])
    expect(route.legs.map((l) => [l.stop.visit_id, l.leg_distance_m === null])).toEqual([
      [1, false],
      [2, false],
      [5, true],
      [4, true],
    ])
    expect(route.total_distance_m).toBeCloseTo(metres(grid(1, 0, 0), grid(2, 0, 1)), 6)
  })
})

describe('optimize: known instances', () => {
  test('points on a line given out of order come back in line order', () => {
    const stops = [grid(1, 0, 0), grid(2, 4, 0), grid(3, 1, 0), grid(4, 3, 0), grid(5, 2, 0)]
    const result = optimize({ stops })
    expect(ids(result.stops)).toEqual([1, 3, 5, 4, 2])
    expect(result.total_distance_m).toBeCloseTo(bruteForce(stops), 6)
  })

  test('a route that nearest neighbour gets wrong is repaired to the optimum', () => {
    // From the start at x=0: nearest is x=1, then x=-1.5 (2.5 away) beats x=3.6 (2.6 away), so NN zigzags.
    const start = { latitude: -6.2, longitude: 106.8 }
    const stops = [grid(1, 1, 0), grid(2, -1.5, 0), grid(3, 3.6, 0), grid(4, 5, 0)]
    const result = optimize({ start, stops })
    expect(result.nearest_neighbour_distance_m).toBeGreaterThan(bruteForce(stops, start) + 1)
    expect(result.total_distance_m).toBeCloseTo(bruteForce(stops, start), 6)
    expect(ids(result.stops)).toEqual([2, 1, 3, 4])
  })

  test('random instances of up to 7 stops: at the brute-force optimum (57 of 60 at least), never over it by 10 %', () => {
    let exact = 0
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 })), { minLength: 2, maxLength: 7 }), (cells) => {
        const stops = cells.map(([x, y], i) => grid(i + 1, x, y))
        const result = optimize({ stops })
        const best = bruteForce(stops)
        if (Math.abs(result.total_distance_m - best) < 1e-3) exact += 1
        // 2-opt + Or-opt + exchange on ≤ 7 points: a local optimum close to the global one.
        expect(result.total_distance_m).toBeLessThanOrEqual(best * 1.1 + 1e-6)
      }),
      { seed: 20261125, numRuns: 60 },
    )
    // With this seed every one of the 60 reaches the optimum; allow a few local optima should the moves change.
    expect(exact).toBeGreaterThanOrEqual(57)
  })

  test('a locked stop keeps its index; the others are ordered around it', () => {
    const stops = [grid(1, 0, 0), grid(2, 3, 0), grid(3, 1, 0), grid(4, 2, 0)]
    const result = optimize({ stops, locked: [2] })
    expect(ids(result.stops)[1]).toBe(2)
    // Current 1,2,3,4 on x = 0,3,1,2: 3 + 2 + 1 = 6 units; with 2 kept second, 1,2,4,3 is 3 + 1 + 1 = 5
    // (the lock forbids the free optimum 1,3,4,2 of 3 units).
    expect(ids(result.stops)).toEqual([1, 2, 4, 3])
    expect(result.total_distance_m).toBeCloseTo(5 * metres(grid(0, 0, 0), grid(0, 1, 0)), 0)
  })

  test('stops without coordinates stay last in their order', () => {
    const stops = [stop(9, null, null), grid(1, 0, 0), grid(2, 2, 0), stop(7, null, 106), grid(3, 1, 0)]
    expect(ids(optimize({ stops }).stops)).toEqual([1, 3, 2, 9, 7])
  })

  test('ties go to the smaller visit id', () => {
    const start = { latitude: -6.2, longitude: 106.8 }
    // Two stops equally far from the start, on opposite sides.
    const stops = [grid(8, 1, 0), grid(3, -1, 0)]
    const result = optimize({ start, stops })
    expect(result.nearest_neighbour_distance_m).toBeCloseTo(3 * metres(grid(0, 0, 0), grid(0, 1, 0)), 3)
    expect(ids(result.stops)).toEqual([8, 3]) // the current order, as nothing is shorter
    expect(ids(optimize({ start, stops: [grid(3, -1, 0), grid(8, 1, 0)] }).stops)).toEqual([3, 8])
  })

  test('an empty day and a single stop', () => {
    expect(optimize({ stops: [] }).stops).toEqual([])
    expect(ids(optimize({ stops: [grid(1, 0, 0)], start: { latitude: 0, longitude: 0 } }).stops)).toEqual([1])
  })
})

const point = fc.record({ latitude: fc.double({ min: -6.4, max: -6.0, noNaN: true }), longitude: fc.double({ min: 106.6, max: 107.0, noNaN: true }) })
const instance = fc
  .record({
    points: fc.array(fc.option(point, { freq: 8 }), { minLength: 0, maxLength: 40 }),
    start: fc.option(point),
    lockEvery: fc.integer({ min: 0, max: 6 }),
    lockSeed: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ points, start, lockEvery, lockSeed }) => {
    // Visit ids shuffled so that the id order is not the input order.
    const stops = points.map((p, i) => stop(((i * 37 + 11) % 1000) + 1, p?.latitude ?? null, p?.longitude ?? null))
    const locked = lockEvery ? stops.filter((_, i) => (i + lockSeed) % lockEvery === 0).map((s) => s.visit_id) : []
    return { stops, start: start ?? undefined, locked }
  })

describe('optimize: properties', () => {
  test('never longer than the current order nor than nearest neighbour; locked indexes kept; the same answer twice', () => {
    fc.assert(
      fc.property(instance, ({ stops, start, locked }) => {
        const result = optimize({ stops, start, locked })
        const current = legs(stops)
        const currentOrder = current.legs.map((l) => l.stop.visit_id)
        expect(result.total_distance_m).toBeLessThanOrEqual(length(stops, start) + 1e-6)
        expect(result.total_distance_m).toBeLessThanOrEqual(result.nearest_neighbour_distance_m + 1e-6)
        expect(result.total_distance_m).toBeCloseTo(length(result.stops, start), 3)
        // Same stops, each once.
        expect([...ids(result.stops)].sort()).toEqual([...currentOrder].sort())
        // Locked stops at their index of the current route.
        for (const id of locked) expect(ids(result.stops).indexOf(id)).toBe(currentOrder.indexOf(id))
        // Located first, then the rest in their order.
        const firstMissing = result.stops.findIndex((s) => s.latitude === null || s.longitude === null)
        if (firstMissing >= 0) expect(ids(result.stops.slice(firstMissing))).toEqual(ids(stops.filter((s) => s.latitude === null || s.longitude === null)))
        expect(ids(optimize({ stops, start, locked }).stops)).toEqual(ids(result.stops))
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})
