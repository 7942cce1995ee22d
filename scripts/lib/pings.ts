/**
 * The GPS pings every load script sends (benchmarks, crash and concurrency runs): a batch of
 * `count` plausible pings around Jakarta, different per `seq`, optionally with device times
 * `recordedFromMs + i` (so each ping of a run is identifiable and no two collide).
 */
export const PINGS_PER_BATCH = 50

export function pingBatch(seq: number, options: { count?: number; recordedFromMs?: number } = {}) {
  const count = options.count ?? PINGS_PER_BATCH
  return Array.from({ length: count }, (_, i) => ({
    lat: -6.2 + ((seq * count + i) % 1000) / 100_000,
    lng: 106.8 + ((seq * 7 + i) % 1000) / 100_000,
    is_mock: false,
    accuracy_m: 5 + (i % 20),
    speed_mps: (i % 10) / 2,
    source: 'gps',
    battery_level: 0.8,
    signal_quality: 'good',
    ...(options.recordedFromMs === undefined ? {} : { recorded_at: new Date(options.recordedFromMs + i).toISOString() }),
  }))
}

/** `n` batch bodies to rotate through, as JSON text. */
export const pingBodies = (n: number, count = PINGS_PER_BATCH) => Array.from({ length: n }, (_, seq) => JSON.stringify({ pings: pingBatch(seq, { count }) }))
