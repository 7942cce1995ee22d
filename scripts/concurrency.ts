/**
 * `bun run test:concurrency` — many writers at once against the real server.
 *
 * Starts `bun src/server.ts` on a temporary SQLite file and runs WRITERS (16) concurrent clients for
 * SECONDS (30): half are field phones (location batches with an idempotency key, visit check-in and
 * check-out, topping their visit pool up through the office's bulk planning when it runs dry, and
 * reading their own visits), half are office users (channel groups, channels, sub-areas and outlets
 * created and updated, some with idempotency keys; replays of finished keys; logins; audit-log
 * reads). It prints the answers per request kind and status, then stops the server with SIGTERM and
 * checks the file: integrity_check ok, and every successful audited write has exactly one audit
 * entry (matched by X-Request-Id), every replay and location batch none.
 *
 * Fails (exit 1) on any 5xx, any answer or server log line mentioning SQLITE_BUSY or a locked
 * database, any connection error, any status the request kind does not expect (the load itself
 * would be broken), and any audit or integrity finding.
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import {
  call,
  LOCK_ERROR,
  ServerLog,
  setupFieldWorkspace,
  startServer,
  tempDir,
  type CallOptions,
  type FieldUser,
  type ServerHandle,
} from './lib/server-process'
import { pingBatch, PINGS_PER_BATCH } from './lib/pings'

export interface ConcurrencyOptions {
  writers: number
  seconds: number
  seed: number
  env?: Record<string, string>
  log?: (line: string) => void
}

export const CONCURRENCY_DEFAULTS: ConcurrencyOptions = { writers: 16, seconds: 30, seed: Date.now() % 1_000_000 }

/** How many audit entries a successful request of each kind writes. */
const AUDIT_EXPECTATION = {
  batch: 0,
  check_in: 1,
  check_out: 1,
  visit_bulk: 'some',
  my_visits: 0,
  channel_group_create: 1,
  channel_group_update: 1,
  channel_create: 1,
  sub_area_create: 1,
  outlet_create: 1,
  outlet_update: 1,
  replay: 0,
  login: 1,
  audit_read: 0,
} as const
export type RequestKind = keyof typeof AUDIT_EXPECTATION

const EXPECTED_STATUS: Record<RequestKind, number> = {
  batch: 201,
  check_in: 200,
  check_out: 200,
  visit_bulk: 201,
  my_visits: 200,
  channel_group_create: 201,
  channel_group_update: 200,
  channel_create: 201,
  sub_area_create: 201,
  outlet_create: 201,
  outlet_update: 200,
  replay: 204,
  login: 200,
  audit_read: 200,
}

export interface ConcurrencyReport {
  seed: number
  writers: number
  seconds: number
  /** kind → status ("error" for no answer) → count */
  counts: Record<string, Record<string, number>>
  latencyMs: Record<string, { p50: number; p99: number }>
  total: number
  failures: string[]
  fiveHundreds: number
  lockErrors: number
  connectionErrors: number
  unexpected: number
  auditEntries: number
  durationMs: number
}

/** What is wrong with one answer: a 5xx, a lock error anywhere in it, or a status the kind does not expect. */
export function judgeAnswer(kind: RequestKind, status: number, text: string) {
  const fiveHundred = status >= 500
  // The body (code, message, errors) is searched as text, so a code or a message naming SQLITE_BUSY counts.
  const lockError = LOCK_ERROR.test(text)
  const unexpected = !fiveHundred && status !== EXPECTED_STATUS[kind]
  const problems = [...(fiveHundred ? ['5xx'] : []), ...(lockError ? ['LOCK ERROR in answer'] : []), ...(unexpected ? ['unexpected status'] : [])]
  return { fiveHundred, lockError, unexpected, problems }
}

function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type VisitStep = { id: number; next: 'check_in' | 'check_out' }

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : 0)

export async function runConcurrencyTest(overrides: Partial<ConcurrencyOptions> = {}): Promise<ConcurrencyReport> {
  const options = { ...CONCURRENCY_DEFAULTS, ...overrides }
  const log = options.log ?? ((line: string) => console.log(line))
  const rand = random(options.seed)
  const started = performance.now()
  const { dir, remove } = tempDir('ffos-concurrency-')
  const dbPath = join(dir, 'app.db')
  const serverLog = new ServerLog()
  const runTag = `${options.seed.toString(36)}${Date.now().toString(36)}`
  const counts: Record<string, Record<string, number>> = {}
  const latencies: Record<string, number[]> = {}
  const failures: string[] = []
  let fiveHundreds = 0
  let lockErrors = 0
  let connectionErrors = 0
  let unexpected = 0
  let auditEntries = 0
  /** Successful requests whose audit entries are checked at the end: request id → kind. */
  const audited = new Map<string, RequestKind>()
  let server: ServerHandle | null = null
  const fail = (message: string) => {
    if (failures.length < 200) failures.push(message)
  }

  try {
    server = await startServer({ dbPath, env: options.env, log: serverLog })
    const base = server.base
    const fieldCount = Math.ceil(options.writers / 2)
    const workspace = await setupFieldWorkspace(base, { fieldUsers: fieldCount, visitsPerUser: 10, tag: runTag })
    const owner = workspace.ownerToken
    // Device times a day back, one millisecond apart across every ping of the run.
    const pingEpoch = Math.floor(Date.now() / 1000) * 1000 - 24 * 60 * 60 * 1000
    let nextPing = 0
    let nextRequest = 0
    const deadline = Date.now() + options.seconds * 1000

    /** One request: counted, timed and judged. Returns the answer, or null on a connection error. */
    const request = async (kind: RequestKind, method: string, path: string, callOptions: CallOptions = {}) => {
      const requestId = `conc-${runTag}-${nextRequest++}`
      const began = performance.now()
      counts[kind] ??= {}
      const byStatus = counts[kind]
      try {
        const result = await call(base, method, path, { ...callOptions, requestId })
        latencies[kind] ??= []
        latencies[kind].push(performance.now() - began)
        byStatus[result.status] = (byStatus[result.status] ?? 0) + 1
        const verdict = judgeAnswer(kind, result.status, result.text)
        if (verdict.fiveHundred) fiveHundreds += 1
        if (verdict.lockError) lockErrors += 1
        if (verdict.unexpected) unexpected += 1
        for (const problem of verdict.problems) fail(`${problem}: ${kind} ${method} ${path} → ${result.status} ${result.text.slice(0, 300)}`)
        if (result.status === EXPECTED_STATUS[kind]) audited.set(requestId, kind)
        return result
      } catch (error) {
        byStatus.error = (byStatus.error ?? 0) + 1
        connectionErrors += 1
        fail(`connection error: ${kind} ${method} ${path}: ${String(error)}`)
        return null
      }
    }

    const fieldWriter = async (user: FieldUser) => {
      const pool = [...user.visitIds]
      let current: VisitStep | null = null
      // The first request is always a batch (as an office writer's is a channel group): however slow
      // the machine, a run has at least one of each.
      let opening = true
      while (Date.now() < deadline || opening) {
        const roll = opening ? 0 : rand()
        opening = false
        if (roll < 0.55) {
          const first = nextPing
          nextPing += PINGS_PER_BATCH
          const pings = pingBatch(first / PINGS_PER_BATCH, { recordedFromMs: pingEpoch + first })
          await request('batch', 'POST', '/app/v1/locations/batch', { token: user.token, idempotencyKey: `conc-${runTag}-b${first}`, body: { pings } })
        } else if (roll < 0.9) {
          if (!current) {
            if (!pool.length) {
              const visits = Array.from({ length: 20 }, () => ({
                outlet_id: workspace.outletId,
                project_id: workspace.projectId,
                visit_date: '2026-11-23',
                user_ids: [user.id],
              }))
              const bulk = await request('visit_bulk', 'POST', '/office/v1/visits/bulk', { token: owner, body: { visits } })
              if (bulk?.status === 201) pool.push(...(bulk.body.data.ids as number[]))
              continue
            }
            current = { id: pool.shift()!, next: 'check_in' }
          }
          const { id, next }: VisitStep = current
          const answer = await request(next, 'POST', `/app/v1/visits/${id}/${next === 'check_in' ? 'check-in' : 'check-out'}`, {
            token: user.token,
            idempotencyKey: `conc-${runTag}-v${id}-${next}`,
            body: { latitude: -6.2, longitude: 106.8 },
          })
          // A failed transition has been reported; the writer moves on to a fresh visit.
          current = answer?.status === 200 && next === 'check_in' ? { id, next: 'check_out' } : null
        } else {
          await request('my_visits', 'GET', '/app/v1/visits/me?limit=20', { token: user.token })
        }
      }
    }

    const officeWriter = async (writer: number) => {
      const groups: number[] = []
      const outlets: number[] = []
      const doneKeys: { path: string; key: string; body: unknown; method: string }[] = []
      let n = 0
      while (Date.now() < deadline || n === 0) {
        n += 1
        const roll = rand()
        const name = `${runTag} w${writer} n${n}`
        if (roll < 0.2 || !groups.length) {
          const key = `conc-${runTag}-cg-${writer}-${n}`
          const body = { name: `CG ${name}`, description: 'made under load' }
          const answer = await request('channel_group_create', 'POST', '/office/v1/outlets/channel-groups', { token: owner, idempotencyKey: key, body })
          if (answer?.status === 201) {
            groups.push(answer.body.data.id)
            doneKeys.push({ method: 'POST', path: '/office/v1/outlets/channel-groups', key, body })
          }
        } else if (roll < 0.35) {
          const id = groups[Math.floor(rand() * groups.length)]
          await request('channel_group_update', 'PUT', `/office/v1/outlets/channel-groups/${id}`, { token: owner, body: { name: `CG ${name} renamed` } })
        } else if (roll < 0.45) {
          const id = groups[Math.floor(rand() * groups.length)]
          await request('channel_create', 'POST', '/office/v1/outlets/channels', { token: owner, body: { name: `CH ${name}`, channel_group_id: id } })
        } else if (roll < 0.52) {
          await request('sub_area_create', 'POST', '/office/v1/outlets/sub-areas', { token: owner, body: { name: `SA ${name}` } })
        } else if (roll < 0.67) {
          const key = `conc-${runTag}-o-${writer}-${n}`
          const body = { name: `Outlet ${name}`, code: `C-${runTag}-${writer}-${n}`, latitude: -6.2, longitude: 106.8 }
          const answer = await request('outlet_create', 'POST', '/office/v1/outlets', { token: owner, idempotencyKey: key, body })
          if (answer?.status === 201) {
            outlets.push(answer.body.data.id)
            doneKeys.push({ method: 'POST', path: '/office/v1/outlets', key, body })
          }
        } else if (roll < 0.77 && outlets.length) {
          const id = outlets[Math.floor(rand() * outlets.length)]
          await request('outlet_update', 'PUT', `/office/v1/outlets/${id}`, { token: owner, body: { contact_name: `Contact ${n}`, address: `Jl. Load ${n}` } })
        } else if (roll < 0.87 && doneKeys.length) {
          const done = doneKeys[Math.floor(rand() * doneKeys.length)]
          await request('replay', done.method, done.path, { token: owner, idempotencyKey: done.key, body: done.body })
        } else if (roll < 0.9) {
          const user = workspace.users[writer % workspace.users.length]
          await request('login', 'POST', '/auth/login', { body: { email: user.email, password: 'password123' } })
        } else {
          await request('audit_read', 'GET', '/office/v1/audit-logs?limit=20', { token: owner })
        }
      }
    }

    log(`concurrency: ${options.writers} writers for ${options.seconds} s (seed ${options.seed})…`)
    const writers: Promise<void>[] = []
    for (let index = 0; index < options.writers; index += 1) {
      writers.push(index % 2 === 0 ? fieldWriter(workspace.users[index / 2]) : officeWriter(index))
    }
    await Promise.all(writers)

    const code = await server.stop()
    server = null
    if (code !== 0) fail(`clean shutdown exited with code ${code}`)
    for (const line of serverLog.matching(LOCK_ERROR)) {
      lockErrors += 1
      fail(`LOCK ERROR in the server log: ${line.slice(0, 300)}`)
    }

    // The file: intact, and one audit entry per successful audited write.
    const db = new Database(dbPath, { readonly: true })
    try {
      const integrity = db.query('pragma integrity_check').all() as { integrity_check: string }[]
      if (integrity.length !== 1 || integrity[0].integrity_check !== 'ok') fail(`integrity_check: ${JSON.stringify(integrity)}`)
      const perRequest = new Map<string, number>()
      for (const row of db
        .query(`select json_extract(metadata, '$.request_id') as rid from audit_logs where workspace_id = ?`)
        .iterate(workspace.workspaceId) as Iterable<{ rid: string }>) {
        auditEntries += 1
        perRequest.set(row.rid, (perRequest.get(row.rid) ?? 0) + 1)
      }
      for (const [requestId, kind] of audited) {
        const found = perRequest.get(requestId) ?? 0
        const want = AUDIT_EXPECTATION[kind]
        if (want === 'some' ? found === 0 : found !== want)
          fail(`AUDIT: ${kind} request ${requestId} has ${found} audit entries, expected ${want === 'some' ? 'at least 1' : want}`)
      }
    } finally {
      db.close()
    }
  } catch (error) {
    fail(String((error as Error).message ?? error))
    fail(`server output (tail):\n${serverLog.tail()}`)
  } finally {
    if (server) await server.kill9()
    remove()
  }

  const latencyMs: ConcurrencyReport['latencyMs'] = {}
  for (const [kind, values] of Object.entries(latencies)) {
    const sorted = values.sort((a, b) => a - b)
    latencyMs[kind] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
  }
  const total = Object.values(counts).reduce((sum, byStatus) => sum + Object.values(byStatus).reduce((a, b) => a + b, 0), 0)
  return {
    seed: options.seed,
    writers: options.writers,
    seconds: options.seconds,
    counts,
    latencyMs,
    total,
    failures,
    fiveHundreds,
    lockErrors,
    connectionErrors,
    unexpected,
    auditEntries,
    durationMs: performance.now() - started,
  }
}

export function summarizeConcurrency(report: ConcurrencyReport): string {
  const statuses = [...new Set(Object.values(report.counts).flatMap((byStatus) => Object.keys(byStatus)))].sort()
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`
  const lines = [
    '',
    `concurrency: ${report.writers} writers, ${report.seconds} s of load, ${report.total} requests (${(report.total / report.seconds).toFixed(0)}/s), ${(report.durationMs / 1000).toFixed(1)} s in all, seed ${report.seed}, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`,
    '',
    line(['request', ...statuses, 'p50 ms', 'p99 ms']),
    line(['---', ...statuses.map(() => '---:'), '---:', '---:']),
  ]
  for (const [kind, byStatus] of Object.entries(report.counts).sort()) {
    const latency = report.latencyMs[kind] ?? { p50: 0, p99: 0 }
    lines.push(line([kind, ...statuses.map((status) => byStatus[status] ?? 0), latency.p50.toFixed(1), latency.p99.toFixed(1)]))
  }
  lines.push(
    '',
    `5xx: ${report.fiveHundreds} · SQLITE_BUSY / locked: ${report.lockErrors} · connection errors: ${report.connectionErrors} · unexpected statuses: ${report.unexpected} · audit entries in the workspace: ${report.auditEntries}`,
    `failures: ${report.failures.length}`,
  )
  for (const failure of report.failures.slice(0, 50)) lines.push(`  ✗ ${failure}`)
  return lines.join('\n')
}

if (import.meta.main) {
  const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback)
  const report = await runConcurrencyTest({
    writers: env('WRITERS', CONCURRENCY_DEFAULTS.writers),
    seconds: env('SECONDS', CONCURRENCY_DEFAULTS.seconds),
    seed: env('SEED', CONCURRENCY_DEFAULTS.seed),
  })
  console.log(summarizeConcurrency(report))
  process.exit(report.failures.length ? 1 : 0)
}
