/**
 * What operators see of a running service: one structured log line per request and Prometheus
 * metrics (request counts and latency histograms per route, pings ingested, database size).
 *
 * Routes are labelled by their template (`/api/office/v1/visits/:id`), never by the concrete path,
 * so the number of series stays bounded whatever clients send; unmatched paths share one label.
 * Nothing here carries a workspace label: the metrics page is operator-level, not tenant data.
 */
import { statSync } from 'node:fs'

/** Request latency buckets in seconds (Prometheus' conventional HTTP spread, finer at the low end). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

export const UNMATCHED_ROUTE = 'unmatched'

interface RouteSeries {
  method: string
  route: string
  /** Count per status code. */
  statuses: Map<number, number>
  /** Cumulative counts are derived at scrape time; these are per-bucket. */
  buckets: number[]
  sum: number
  count: number
}

export interface Gauges {
  /** Bytes of the database file plus its WAL (page_count × page_size for a remote server). */
  databaseBytes(): Promise<number>
  /** Open WebSocket connections. */
  websockets(): number
  /** The embedded database's WAL at the checkpoint worker's last pass; null without one. */
  wal(): { frames: number; uncopied: number } | null
}

export class Metrics {
  private readonly series = new Map<string, RouteSeries>()
  private pings = 0
  private readonly started = Date.now()

  /** Records one finished request. `seconds` is from arrival to the response being handed over. */
  observe(method: string, route: string | undefined, status: number, seconds: number) {
    const label = route ?? UNMATCHED_ROUTE
    const key = `${method} ${label}`
    let series = this.series.get(key)
    if (!series) {
      series = { method, route: label, statuses: new Map(), buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }
      this.series.set(key, series)
    }
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1)
    let bucket = 0
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++
    series.buckets[bucket]!++
    series.sum += seconds
    series.count++
  }

  pingsIngested(count: number) {
    this.pings += count
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  async render(gauges: Gauges): Promise<string> {
    const lines: string[] = []
    const help = (name: string, type: string, text: string) => lines.push(`# HELP ${name} ${text}`, `# TYPE ${name} ${type}`)
    const sorted = [...this.series.values()].sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method))

    help('http_requests_total', 'counter', 'HTTP requests answered, by method, route template and status code.')
    for (const s of sorted) {
      for (const [status, count] of [...s.statuses].sort(([a], [b]) => a - b)) {
        lines.push(`http_requests_total{method="${s.method}",route="${escape(s.route)}",status="${status}"} ${count}`)
      }
    }

    help('http_request_duration_seconds', 'histogram', 'Time from arrival to response, by method and route template.')
    for (const s of sorted) {
      const labels = `method="${s.method}",route="${escape(s.route)}"`
      let cumulative = 0
      LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += s.buckets[i]!
        lines.push(`http_request_duration_seconds_bucket{${labels},le="${bound}"} ${cumulative}`)
      })
      lines.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`)
      lines.push(`http_request_duration_seconds_sum{${labels}} ${s.sum}`)
      lines.push(`http_request_duration_seconds_count{${labels}} ${s.count}`)
    }

    help('ffos_location_pings_ingested_total', 'counter', 'GPS pings stored by POST /app/v1/locations/batch (backlog duplicates excluded).')
    lines.push(`ffos_location_pings_ingested_total ${this.pings}`)
    help('ffos_database_size_bytes', 'gauge', 'Size of the database: the file plus its write-ahead log.')
    lines.push(`ffos_database_size_bytes ${await gauges.databaseBytes()}`)
    const wal = gauges.wal()
    if (wal) {
      // A WAL that only grows means it never starts over (a reader or writer that never pauses).
      help('ffos_database_wal_frames', 'gauge', 'Frames in the write-ahead log at the last checkpoint pass.')
      lines.push(`ffos_database_wal_frames ${wal.frames}`)
      help('ffos_database_wal_frames_uncopied', 'gauge', 'Frames of the write-ahead log not yet copied into the database file at the last pass.')
      lines.push(`ffos_database_wal_frames_uncopied ${wal.uncopied}`)
    }
    help('ffos_websocket_connections', 'gauge', 'Open WebSocket connections.')
    lines.push(`ffos_websocket_connections ${gauges.websockets()}`)
    help('process_resident_memory_bytes', 'gauge', 'Resident memory of the server process.')
    lines.push(`process_resident_memory_bytes ${process.memoryUsage.rss()}`)
    help('process_start_time_seconds', 'gauge', 'Start time of the server process since the Unix epoch.')
    lines.push(`process_start_time_seconds ${Math.floor(this.started / 1000)}`)
    return `${lines.join('\n')}\n`
  }
}

/** Label values escape backslash, quote and newline (route templates have none, but stay safe). */
const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

/** The on-disk size of an embedded database: main file plus WAL (a missing WAL counts 0). */
export function fileBytes(path: string): number {
  let total = 0
  for (const file of [path, `${path}-wal`]) {
    try {
      total += statSync(file).size
    } catch {
      // no such file (yet)
    }
  }
  return total
}
