/**
 * A closed-loop HTTP load generator: `concurrency` workers each send one request at a time for
 * `seconds`, over keep-alive connections. Run it in its own process (pinned to its own core) so it
 * does not share a CPU with the server it measures. Prints one JSON line of results.
 *
 *   echo '{"url":"http://127.0.0.1:3000/api/health","concurrency":32,"seconds":10}' | bun scripts/bench/load.ts
 */
import { pingBatch } from '../lib/pings'

export interface LoadSpec {
  url: string
  method?: string
  headers?: Record<string, string>
  /** A fixed body, or `bodies` to rotate through, or `pingBatches`. */
  body?: string
  bodies?: string[]
  /**
   * Each request a fresh batch of `count` pings with device times (`recorded_at`) no other request of
   * the run repeats, starting at `recordedFromMs`: what phones send, so the service's de-duplicating
   * index on device time is on the measured path and no ping is skipped as a duplicate.
   */
  pingBatches?: { count: number; recordedFromMs: number }
  /** Adds a fresh `x-idempotency-key` to every request. */
  uniqueIdempotencyKey?: boolean
  concurrency: number
  seconds: number
  warmupSeconds?: number
}

export interface LoadResult {
  requests: number
  errors: number
  statuses: Record<string, number>
  rps: number
  p50: number
  p99: number
  max: number
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let sequence = 0
  let recording = false
  let stop = false

  async function worker() {
    while (!stop) {
      const n = sequence++
      const headers: Record<string, string> = { ...spec.headers }
      if (spec.uniqueIdempotencyKey) headers['x-idempotency-key'] = `k-${process.pid}-${n}`
      const body = spec.pingBatches
        ? JSON.stringify({
            pings: pingBatch(n, { count: spec.pingBatches.count, recordedFromMs: spec.pingBatches.recordedFromMs + n * spec.pingBatches.count }),
          })
        : spec.bodies
          ? spec.bodies[n % spec.bodies.length]
          : spec.body
      const started = performance.now()
      try {
        const response = await fetch(spec.url, { method: spec.method ?? 'GET', headers, body })
        await response.arrayBuffer()
        if (recording) {
          latencies.push(performance.now() - started)
          statuses[response.status] = (statuses[response.status] ?? 0) + 1
          if (response.status >= 400) errors++
        }
      } catch {
        if (recording) errors++
      }
    }
  }

  const workers = Array.from({ length: spec.concurrency }, worker)
  await Bun.sleep((spec.warmupSeconds ?? 1) * 1000)
  recording = true
  const started = performance.now()
  await Bun.sleep(spec.seconds * 1000)
  recording = false
  const elapsed = (performance.now() - started) / 1000
  stop = true
  await Promise.all(workers)
  return summarize(latencies, statuses, errors, elapsed)
}

/** Throughput and latency percentiles of one measured window (`latencies` in ms, sorted here). */
export function summarize(latencies: number[], statuses: Record<string, number>, errors: number, elapsedSeconds: number): LoadResult {
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return {
    requests: latencies.length,
    errors,
    statuses,
    rps: latencies.length / elapsedSeconds,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies[latencies.length - 1] ?? 0,
  }
}

if (import.meta.main) {
  const spec = JSON.parse(await Bun.stdin.text()) as LoadSpec
  console.log(JSON.stringify(await run(spec)))
}
