/**
 * `bun scripts/bench/route-optimizer.ts` — how long the day-route optimizer takes for 50, 150 and 300
 * random stops (a city of ~40 × 40 km, one stop in ten locked, a start point), ROUNDS rounds each
 * (default 5, a fresh seeded instance per round). Prints per size the median and worst time and how
 * much shorter the result is than plain nearest neighbour. Figures: docs/PERFORMANCE.md, "The day route".
 */
import { optimize, type RouteStop } from '../../src/modules/journey-plans'

const rounds = Number(process.env.ROUNDS ?? 5)

/** Mulberry32: the same instances on every run. */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function instance(size: number, seed: number) {
  const next = random(seed)
  const stops: RouteStop[] = Array.from({ length: size }, (_, i) => ({ visit_id: i + 1, latitude: -6.4 + next() * 0.36, longitude: 106.6 + next() * 0.36 }))
  const locked = stops.filter(() => next() < 0.1).map((stop) => stop.visit_id)
  return { stops, locked, start: { latitude: -6.22, longitude: 106.78 } }
}

optimize(instance(50, 1)) // warm-up
for (const size of [50, 150, 300]) {
  const times: number[] = []
  let gain = 0
  for (let round = 0; round < rounds; round += 1) {
    const input = instance(size, size * 1000 + round)
    const began = performance.now()
    const result = optimize(input)
    times.push(performance.now() - began)
    gain += 1 - result.total_distance_m / result.nearest_neighbour_distance_m
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)] as number
  const worst = times[times.length - 1] as number
  console.log(
    `${size} stops: median ${median.toFixed(1)} ms, max ${worst.toFixed(1)} ms, ${((gain / rounds) * 100).toFixed(1)}% shorter than nearest neighbour (${rounds} rounds)`,
  )
}
