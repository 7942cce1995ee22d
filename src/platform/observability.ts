/**
 * What operators see of a running service: one structured log line per request and Prometheus
 * metrics (request counts and latency histograms per route, pings ingested, database size, and the
 * process: CPU, memory, heap, event-loop lag, garbage collections).
 *
 * Routes are labelled by their template (`/api/office/v1/visits/:id`), never by the concrete path,
 * so the number of series stays bounded whatever clients send; unmatched paths share one label.
 * Nothing here carries a workspace label: the metrics page is operator-level, not tenant data.
 */
import { statSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

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
  /** The socket replay log: bytes counted against its share of MEMORY_BUDGET_MB, and events held. */
  replayLog?(): { bytes: number; events: number }
  /** MEMORY_BUDGET_MB in bytes. */
  memoryBudgetBytes?: number
}

/**
 * The process figures, written by hand rather than with prom-client: the route series above are
 * hand-rendered already, and prom-client's GC histogram stays empty under Bun, which emits no `gc`
 * performance entries. The names are prom-client's default ones where the meaning is the same, so
 * dashboards made for Node services read them.
 *
 * - CPU: `process.cpuUsage()`; heap: `process.memoryUsage()` (JavaScriptCore's heap under Bun).
 * - Event-loop lag: `perf_hooks.monitorEventLoopDelay` (Bun implements it), one per process, read and
 *   reset at each scrape: the figures are of the interval since the previous scrape.
 * - Garbage collections: counted by a sentinel object whose finalizer replaces it, so each collection
 *   that reaches it counts once; a lower bound (a collection that leaves the sentinel alone, or
 *   finalizers run together, count once or not at all).
 */
class ProcessCollector {
  private static instance: ProcessCollector | null = null
  static get(): ProcessCollector {
    ProcessCollector.instance ??= new ProcessCollector()
    return ProcessCollector.instance
  }

  private readonly lag: ReturnType<typeof monitorEventLoopDelay>
  collections = 0
  private readonly registry = new FinalizationRegistry<void>(() => {
    this.collections++
    this.plant()
  })

  private constructor() {
    this.lag = monitorEventLoopDelay({ resolution: 10 })
    this.lag.enable()
    this.plant()
  }

  private plant() {
    this.registry.register({}, undefined)
  }

  render(help: (name: string, type: string, text: string) => void, lines: string[]) {
    const cpu = process.cpuUsage()
    const memory = process.memoryUsage()
    help('process_cpu_user_seconds_total', 'counter', 'User CPU time spent by the process in seconds.')
    lines.push(`process_cpu_user_seconds_total ${cpu.user / 1e6}`)
    help('process_cpu_system_seconds_total', 'counter', 'System CPU time spent by the process in seconds.')
    lines.push(`process_cpu_system_seconds_total ${cpu.system / 1e6}`)
    help('process_cpu_seconds_total', 'counter', 'User and system CPU time spent by the process in seconds.')
    lines.push(`process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`)
    help('nodejs_heap_size_total_bytes', 'gauge', 'Size of the JavaScript heap.')
    lines.push(`nodejs_heap_size_total_bytes ${memory.heapTotal}`)
    help('nodejs_heap_size_used_bytes', 'gauge', 'Bytes of the JavaScript heap in use.')
    lines.push(`nodejs_heap_size_used_bytes ${memory.heapUsed}`)
    help('nodejs_external_memory_bytes', 'gauge', 'Memory held outside the JavaScript heap by objects it owns (buffers).')
    lines.push(`nodejs_external_memory_bytes ${memory.external}`)

    // Nanoseconds → seconds. With no sample yet (just started) every figure is 0.
    const seconds = (nanoseconds: number) => (this.lag.count > 0 && Number.isFinite(nanoseconds) ? nanoseconds / 1e9 : 0)
    const lag: [string, string, number][] = [
      ['nodejs_eventloop_lag_mean_seconds', 'The mean of the event-loop delays since the previous scrape.', this.lag.mean],
      ['nodejs_eventloop_lag_p50_seconds', 'The median event-loop delay since the previous scrape.', this.lag.percentile(50)],
      ['nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the event-loop delays since the previous scrape.', this.lag.percentile(99)],
      ['nodejs_eventloop_lag_max_seconds', 'The longest event-loop delay since the previous scrape.', this.lag.max],
    ]
    for (const [name, text, value] of lag) {
      help(name, 'gauge', text)
      lines.push(`${name} ${seconds(value)}`)
    }
    this.lag.reset()
    help('ffos_gc_collections_total', 'counter', 'Garbage collections observed (a lower bound: counted by a finalizer, Bun reports no GC events).')
    lines.push(`ffos_gc_collections_total ${this.collections}`)
  }
}

/**
 * A counter a module keeps (declared in its manifest, ./manifest.ts): a Prometheus counter, without labels
 * or with one label whose values are all declared here (so every series is on the page from the start, at 0).
 */
export interface CounterDeclaration {
  name: string
  help: string
  label?: { name: string; values: readonly string[] }
}

export class Metrics {
  private readonly series = new Map<string, RouteSeries>()
  private readonly counters = new Map<string, CounterDeclaration & { values: Map<string, number> }>()
  private readonly started = Date.now()
  private readonly process = ProcessCollector.get()

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

  /** `counters`: every module's (src/app.ts gathers them from the manifests). */
  constructor(counters: readonly CounterDeclaration[] = []) {
    for (const counter of counters) {
      this.counters.set(counter.name, { ...counter, values: new Map((counter.label?.values ?? ['']).map((value) => [value, 0])) })
    }
  }

  /** Adds `count` to a declared counter (to its series `labelValue`); a name or value nobody declared is a programming error. */
  add(name: string, count: number, labelValue = '') {
    const counter = this.counters.get(name)
    const current = counter?.values.get(labelValue)
    if (!counter || current === undefined) throw new Error(`metric ${name}${labelValue ? `{${labelValue}}` : ''} was not declared in a module manifest`)
    counter.values.set(labelValue, current + count)
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  async render(gauges: Gauges): Promise<string> {
    const lines: string[] = []
    const help = (name: string, type: string, text: string) => lines.push(`# HELP ${name} ${text}`, `# TYPE ${name} ${type}`)
    const sorted = [...this.series.values()].sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method))

    help('http_requests_total', 'counter', 'HTTP requests answered, by method, route template and status code.')
    for (const s of sorted) {
      for (const [status, count] of [...s.statuses].sort(([a], [b]) => a - b)) {
        lines.push(`http_requests_total{method="${s.method}",route="${escapeLabel(s.route)}",status="${status}"} ${count}`)
      }
    }

    help('http_request_duration_seconds', 'histogram', 'Time from arrival to response, by method and route template.')
    for (const s of sorted) {
      const labels = `method="${s.method}",route="${escapeLabel(s.route)}"`
      let cumulative = 0
      LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += s.buckets[i]!
        lines.push(`http_request_duration_seconds_bucket{${labels},le="${bound}"} ${cumulative}`)
      })
      lines.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`)
      lines.push(`http_request_duration_seconds_sum{${labels}} ${s.sum}`)
      lines.push(`http_request_duration_seconds_count{${labels}} ${s.count}`)
    }

    for (const counter of this.counters.values()) {
      help(counter.name, 'counter', counter.help)
      for (const [value, count] of counter.values) {
        lines.push(counter.label ? `${counter.name}{${counter.label.name}="${escapeLabel(value)}"} ${count}` : `${counter.name} ${count}`)
      }
    }
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
    const replay = gauges.replayLog?.()
    if (replay) {
      help('ffos_replay_log_bytes', 'gauge', 'Bytes the socket replay log holds (counted against its share of MEMORY_BUDGET_MB).')
      lines.push(`ffos_replay_log_bytes ${replay.bytes}`)
      help('ffos_replay_log_events', 'gauge', 'Events the socket replay log holds.')
      lines.push(`ffos_replay_log_events ${replay.events}`)
    }
    if (gauges.memoryBudgetBytes !== undefined) {
      help('ffos_memory_budget_bytes', 'gauge', 'MEMORY_BUDGET_MB: the memory the in-process stores share (README.md "Memory").')
      lines.push(`ffos_memory_budget_bytes ${gauges.memoryBudgetBytes}`)
    }
    help('process_resident_memory_bytes', 'gauge', 'Resident memory of the server process.')
    lines.push(`process_resident_memory_bytes ${process.memoryUsage.rss()}`)
    help('process_start_time_seconds', 'gauge', 'Start time of the server process since the Unix epoch.')
    lines.push(`process_start_time_seconds ${Math.floor(this.started / 1000)}`)
    this.process.render(help, lines)
    return `${lines.join('\n')}\n`
  }
}

/** Label values escape backslash, quote and newline (route templates have none, but stay safe). */
const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

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
