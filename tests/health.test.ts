/**
 * The health module (src/modules/health) and the platform's observability beneath it
 * (src/platform/observability.ts; README.md "Configuration"): structured request logs, GET
 * /api/metrics in the Prometheus text format and the METRICS_TOKEN that guards it. /api/health itself
 * is also checked by tests/server.test.ts (the real process) and tests/binary.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { loadConfig } from '../src/config/env'
import type { Logger } from '../src/platform/logger'
import { LATENCY_BUCKETS, Metrics } from '../src/platform/observability'
import { createTestApp, expectError, unique, type TestApp, type Workspace } from './harness'

/** A logger that keeps what it is told, so tests can read the request log. */
function capturingLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = []
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, message, fields })
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
  const requests = () => lines.filter((line) => line.message === 'request').map((line) => line.fields)
  /** The lines logged for one request id (written after the answer is handed over, so waited for). */
  const of = async (requestId: string) => {
    for (let i = 0; i < 100 && !requests().some((line) => line.request_id === requestId); i++) await Bun.sleep(2)
    await Bun.sleep(5)
    return requests().filter((line) => line.request_id === requestId)
  }
  return { logger, lines, requests, of }
}

/** Prometheus text → sample lines `name{labels} value` as a map from `name{labels}` to the value. */
function samples(text: string): Map<string, number> {
  const map = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const space = line.lastIndexOf(' ')
    map.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return map
}

const CHANNEL_GROUPS = '/api/office/v1/outlets/channel-groups'

describe('request logs and metrics', () => {
  const capture = capturingLogger()
  let t: TestApp
  let a: Workspace
  let base: string

  beforeAll(async () => {
    t = await createTestApp({ logger: capture.logger, env: { LOG_LEVEL: 'info' } })
    a = await t.workspace()
    t.app.listen({ port: 0, hostname: '127.0.0.1' })
    base = `http://127.0.0.1:${t.app.server!.port}`
  })
  afterAll(async () => {
    await t.app.stop()
    await t.close()
  })

  const metrics = async (headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/api/metrics`, { headers })
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() }
  }

  test('every request is logged once as one JSON-able line with request id, route, user, workspace, status and duration', async () => {
    const created = await t.post(
      '/office/v1/outlets/channel-groups',
      { name: unique('Group') },
      { token: a.owner.token, headers: { 'x-request-id': 'req-log-1' } },
    )
    expect(created.status).toBe(201)
    const missing = await t.get('/office/v1/outlets/channel-groups/999999', { token: a.owner.token, headers: { 'x-request-id': 'req-log-2' } })
    expect(missing.status).toBe(404)
    const stranger = await t.get('/office/v1/outlets/channel-groups', { headers: { 'x-request-id': 'req-log-3' } })
    expect(stranger.status).toBe(401)
    const logged = [...(await capture.of('req-log-1')), ...(await capture.of('req-log-2')), ...(await capture.of('req-log-3'))]
    expect(logged).toHaveLength(3)
    expect(logged[0]).toMatchObject({
      request_id: 'req-log-1',
      method: 'POST',
      route: CHANNEL_GROUPS,
      path: CHANNEL_GROUPS,
      status: 201,
      user_id: a.owner.user.id,
      workspace_id: a.id,
    })
    expect(logged[1]).toMatchObject({ request_id: 'req-log-2', route: `${CHANNEL_GROUPS}/:id`, status: 404, workspace_id: a.id })
    expect(logged[2]).toMatchObject({ request_id: 'req-log-3', status: 401, user_id: null, workspace_id: null })
    for (const line of logged) {
      expect(typeof line.duration_ms).toBe('number')
      expect(line.duration_ms as number).toBeGreaterThanOrEqual(0)
      expect(JSON.parse(JSON.stringify(line))).toEqual(line)
    }
  })

  test('an unknown path is logged and counted under one "unmatched" route, never as itself', async () => {
    expect((await t.get(`/no/such/${unique('path')}`, { headers: { 'x-request-id': 'req-unmatched' } })).status).toBe(404)
    const lines = await capture.of('req-unmatched')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ route: null, status: 404, method: 'GET' })
    const page = await metrics()
    expect(page.text).toContain('route="unmatched",status="404"')
    expect(page.text).not.toContain('/no/such/')
  })

  test('GET /api/metrics over a socket: Prometheus text with counts per method, route template and status', async () => {
    const token = a.owner.token
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const before = samples((await metrics()).text)
    const key = `http_requests_total{method="GET",route="${CHANNEL_GROUPS}/:id",status="404"}`
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}${CHANNEL_GROUPS}/${900_000 + i}`, { headers })).status).toBe(404)
    const created = await fetch(`${base}${CHANNEL_GROUPS}`, { method: 'POST', headers, body: JSON.stringify({ name: unique('Group') }) })
    expect(created.status).toBe(201)

    const page = await metrics()
    expect(page.status).toBe(200)
    expect(page.type).toStartWith('text/plain; version=0.0.4')
    expect(page.text).toContain('# TYPE http_requests_total counter')
    expect(page.text).toContain('# TYPE http_request_duration_seconds histogram')
    const after = samples(page.text)
    expect(after.get(key)! - (before.get(key) ?? 0)).toBe(3)
    const createdKey = `http_requests_total{method="POST",route="${CHANNEL_GROUPS}",status="201"}`
    expect(after.get(createdKey)! - (before.get(createdKey) ?? 0)).toBe(1)
    // Concrete ids never become labels.
    expect(page.text).not.toContain(`${CHANNEL_GROUPS}/900000`)
  })

  test('latency histograms are cumulative, end in +Inf equal to the count, and the sum is positive', async () => {
    const parsed = samples((await metrics()).text)
    const labels = `method="GET",route="${CHANNEL_GROUPS}/:id"`
    const buckets = LATENCY_BUCKETS.map((bound) => parsed.get(`http_request_duration_seconds_bucket{${labels},le="${bound}"}`)!)
    const infinity = parsed.get(`http_request_duration_seconds_bucket{${labels},le="+Inf"}`)!
    const count = parsed.get(`http_request_duration_seconds_count{${labels}}`)!
    expect(buckets.every((value) => typeof value === 'number')).toBe(true)
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!).toBeGreaterThanOrEqual(buckets[i - 1]!)
    expect(infinity).toBe(count)
    expect(count).toBeGreaterThanOrEqual(3)
    expect(parsed.get(`http_request_duration_seconds_sum{${labels}}`)!).toBeGreaterThan(0)
  })

  test('pings ingested count only the pings stored (a resent backlog adds nothing), and the database size is the file plus WAL', async () => {
    const field = await t.member(a, 'user')
    const before = samples((await metrics()).text).get('ffos_location_pings_ingested_total')!
    const pings = [0, 1, 2].map((i) => ({ lat: -6.2, lng: 106.8, is_mock: false, recorded_at: new Date(Date.now() - 60_000 + i * 1000).toISOString() }))
    expect((await t.post('/app/v1/locations/batch', { pings }, { token: field.token, idempotencyKey: unique('k') })).status).toBe(201)
    expect((await t.post('/app/v1/locations/batch', { pings }, { token: field.token, idempotencyKey: unique('k') })).body.data.count).toBe(0)
    const after = samples((await metrics()).text)
    expect(after.get('ffos_location_pings_ingested_total')! - before).toBe(3)
    const file =
      Bun.file(t.deps.config.database.path!).size + (existsSync(`${t.deps.config.database.path}-wal`) ? Bun.file(`${t.deps.config.database.path}-wal`).size : 0)
    expect(after.get('ffos_database_size_bytes')!).toBeGreaterThan(0)
    expect(Math.abs(after.get('ffos_database_size_bytes')! - file)).toBeLessThan(1024 * 1024)
    expect(after.get('process_resident_memory_bytes')!).toBeGreaterThan(0)
  })

  test("the WAL's frames at the checkpoint worker's last pass are gauges: in the log, and not yet copied back", async () => {
    const field = await t.member(a, 'user')
    expect(
      (await t.post('/app/v1/locations/batch', { pings: [{ lat: -6.2, lng: 106.8, is_mock: false }] }, { token: field.token, idempotencyKey: unique('k') }))
        .status,
    ).toBe(201)
    const pass = await t.deps.db.checkpointer!.runNow()
    expect(pass!.log).toBeGreaterThan(0)
    const parsed = samples((await metrics()).text)
    const frames = parsed.get('ffos_database_wal_frames')!
    const uncopied = parsed.get('ffos_database_wal_frames_uncopied')!
    expect(Number.isInteger(frames) && frames >= 0).toBe(true)
    expect(uncopied).toBeGreaterThanOrEqual(0)
    expect(uncopied).toBeLessThanOrEqual(frames)
    // The figures of a pass: the one just asked for, or a later one of the timer.
    const last = t.deps.db.checkpointer!.last!
    expect([pass!.log, last.log]).toContain(frames)
  })

  test('open WebSocket connections are a gauge', async () => {
    const gauge = async () => samples((await metrics()).text).get('ffos_websocket_connections')!
    const idle = await gauge()
    const socket = new WebSocket(`ws://127.0.0.1:${t.app.server!.port}/ws?token=${encodeURIComponent(a.owner.token)}`)
    await new Promise((resolve, reject) => {
      socket.onopen = resolve
      socket.onerror = reject
    })
    expect(await gauge()).toBe(idle + 1)
    socket.close()
    for (let i = 0; i < 50 && (await gauge()) !== idle; i++) await Bun.sleep(10)
    expect(await gauge()).toBe(idle)
  })

  test('process figures beside the request metrics: CPU counters that grow with work, heap, event-loop lag that sees a blocked loop, garbage collections', async () => {
    const before = samples((await metrics()).text)
    // 150 ms of CPU work that blocks the event loop: CPU time grows and the lag monitor sees it.
    const until = performance.now() + 150
    let spin = 0
    while (performance.now() < until) spin++
    expect(spin).toBeGreaterThan(0)
    for (let i = 0; i < 3; i++) {
      Bun.gc(true)
      await Bun.sleep(1)
    }
    const page = await metrics()
    const after = samples(page.text)
    for (const name of ['process_cpu_user_seconds_total', 'process_cpu_system_seconds_total', 'process_cpu_seconds_total', 'ffos_gc_collections_total']) {
      expect(page.text).toContain(`# TYPE ${name} counter`)
      expect(after.get(name)!).toBeGreaterThanOrEqual(before.get(name)!)
    }
    expect(after.get('process_cpu_seconds_total')! - before.get('process_cpu_seconds_total')!).toBeGreaterThanOrEqual(0.1)
    expect(after.get('process_cpu_seconds_total')!).toBeCloseTo(
      after.get('process_cpu_user_seconds_total')! + after.get('process_cpu_system_seconds_total')!,
      5,
    )
    expect(after.get('ffos_gc_collections_total')!).toBeGreaterThan(before.get('ffos_gc_collections_total')!)

    const used = after.get('nodejs_heap_size_used_bytes')!
    expect(used).toBeGreaterThan(0)
    // (JavaScriptCore's heapUsed may exceed its heapTotal, unlike V8's: both only within the process.)
    expect(after.get('nodejs_heap_size_total_bytes')!).toBeGreaterThan(0)
    expect(used).toBeLessThan(after.get('process_resident_memory_bytes')!)
    expect(after.get('nodejs_external_memory_bytes')!).toBeGreaterThanOrEqual(0)

    // The loop was blocked for 150 ms since the previous scrape: the longest delay shows it.
    expect(after.get('nodejs_eventloop_lag_max_seconds')!).toBeGreaterThanOrEqual(0.1)
    expect(after.get('nodejs_eventloop_lag_max_seconds')!).toBeLessThan(60)
    const p50 = after.get('nodejs_eventloop_lag_p50_seconds')!
    expect(p50).toBeGreaterThanOrEqual(0)
    expect(p50).toBeLessThanOrEqual(after.get('nodejs_eventloop_lag_p99_seconds')!)
    // (Percentiles come from a bucketed histogram and can round a hair above the exact max.)
    expect(after.get('nodejs_eventloop_lag_p99_seconds')!).toBeLessThanOrEqual(after.get('nodejs_eventloop_lag_max_seconds')! * 1.01)
  })

  test('the metrics page carries no workspace, user or token', async () => {
    const { text } = await metrics()
    expect(text).not.toContain('workspace')
    expect(text).not.toContain(a.owner.token)
    expect(text).not.toContain(a.owner.user.email)
  })
})

test('with LOG_LEVEL=warn no request line is even built', async () => {
  const quiet = capturingLogger()
  const app = await createTestApp({ logger: quiet.logger, env: { LOG_LEVEL: 'warn' } })
  try {
    expect((await app.get('/health', { headers: { 'x-request-id': 'req-quiet' } })).status).toBe(200)
    await Bun.sleep(10)
    expect(quiet.requests()).toEqual([])
  } finally {
    await app.close()
  }
})

test('the request line is written after the answer: a logger that takes 1.5 s does not hold the answer back (over a socket)', async () => {
  // The line is written after the answer (Elysia's afterResponse hooks run in an immediate, after Bun has
  // written it). Work queued as a microtask instead would hold the answer back: a guard against moving it there.
  const slow = capturingLogger()
  const info = slow.logger.info
  slow.logger.info = (message, fields) => {
    if (message === 'request') Bun.sleepSync(1500)
    info(message, fields)
  }
  const app = await createTestApp({ logger: slow.logger, env: { LOG_LEVEL: 'info' } })
  try {
    app.app.listen({ port: 0, hostname: '127.0.0.1' })
    // The client is a process of its own: one in this process would read the answer only once this event
    // loop, blocked by the logger, comes round again.
    const client = Bun.spawn(
      [
        process.execPath,
        '-e',
        `const t = performance.now(); const r = await fetch('http://127.0.0.1:${app.app.server!.port}/api/health', { headers: { 'x-request-id': 'req-slow-log' } }); await r.text(); console.log(JSON.stringify({ status: r.status, ms: performance.now() - t }))`,
      ],
      { stdout: 'pipe', stderr: 'inherit' },
    )
    const answer = JSON.parse(await new Response(client.stdout).text()) as { status: number; ms: number }
    await client.exited
    expect(answer.status).toBe(200)
    expect(answer.ms).toBeLessThan(1000)
    // The line is still written, once.
    expect(await slow.of('req-slow-log')).toHaveLength(1)
  } finally {
    await app.app.stop()
    await app.close()
  }
})

describe('module counters', () => {
  test('a counter declared in a manifest is rendered with its help and type; one nobody declared is refused', async () => {
    const metrics = new Metrics([{ name: 'ffos_widgets_total', help: 'Widgets made.' }])
    metrics.add('ffos_widgets_total', 2)
    metrics.add('ffos_widgets_total', 3)
    const text = await metrics.render({ databaseBytes: async () => 0, websockets: () => 0, wal: () => null })
    expect(text).toContain('# HELP ffos_widgets_total Widgets made.\n# TYPE ffos_widgets_total counter\nffos_widgets_total 5\n')
    expect(() => metrics.add('ffos_undeclared_total', 1)).toThrow('not declared')
  })
})

describe('METRICS_TOKEN', () => {
  let t: TestApp
  const token = 'metrics-secret-0123456789'
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: token } })
  })
  afterAll(() => t.close())

  test('when set, the metrics page needs exactly that bearer token (401 envelope otherwise)', async () => {
    expectError(await t.get('/metrics'), 401, 'UNAUTHORIZED')
    expectError(await t.get('/metrics', { headers: { authorization: `Bearer ${token}x` } }), 401, 'UNAUTHORIZED')
    expectError(await t.get('/metrics', { headers: { authorization: token } }), 401, 'UNAUTHORIZED')
    const workspace = await t.workspace()
    expectError(await t.get('/metrics', { token: workspace.owner.token }), 401, 'UNAUTHORIZED')
    const ok = await t.get('/metrics', { headers: { authorization: `Bearer ${token}` } })
    expect(ok.status).toBe(200)
    expect(ok.text).toContain('http_requests_total')
  })

  test('a token shorter than 16 characters is a configuration error', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/)
  })
})
