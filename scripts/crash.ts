/**
 * `bun run test:crash` — crash safety of the real server.
 *
 * Starts `bun src/server.ts` on a temporary SQLite file, sets up a workspace (field users, visits)
 * over HTTP, then repeats CYCLES times:
 *   1. a writer load of several concurrent clients: location batches (50 pings, a unique
 *      X-Idempotency-Key and a unique device `recorded_at` per ping) and visit check-in/check-out
 *      (each with its own key); every request and every answer goes into a ledger;
 *   2. `kill -9` of the server at a random moment of the load (counted from the cycle's first acknowledged
 *      batch and transition, so every cycle has acknowledged writes to check);
 *   3. with the server dead, the file is opened read-only (bun:sqlite) and checked
 *      (`checkDatabase`): integrity_check ok; every acknowledged (2xx) request is there — all 50
 *      pings of a batch, the visit's status, log row and exactly one audit entry of a transition —
 *      and every request at all is all or nothing: pings 0 or 50, key record ⇔ rows ⇔ audit entry;
 *   4. the server is restarted on the same file (it must come up), the requests that were in flight
 *      at the kill are retried with the same key and body (204 when step 3 found them committed, a
 *      fresh 2xx otherwise), and the acknowledged keys of the cycle (and a sample of older ones) are
 *      replayed: 204 with X-Idempotency-Code IDEMPOTENT_DUPLICATE, nothing written.
 * At the end the server is stopped with SIGTERM and the file is checked once more.
 *
 * Options (env): CYCLES (default 20), SEED (random), BATCH_WRITERS (4), VISIT_USERS (2),
 * KILL_MIN_MS / KILL_MAX_MS (150 / 1200: when in the load the kill lands).
 * Exit code 1 on any violation.
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
  type CallResult,
  type FieldUser,
  type ServerHandle,
} from './lib/server-process'
import { pingBatch, PINGS_PER_BATCH } from './lib/pings'

export { PINGS_PER_BATCH }

// ── The ledger: every request the load sent, and what came back ─────────────────────────────────

export type OpKind = 'batch' | 'check_in' | 'check_out'

export interface Attempt {
  requestId: string
  /** HTTP status, or null when no answer came (connection refused or reset by the kill). */
  status: number | null
  phase: 'load' | 'retry' | 'replay'
}

export interface LedgerOp {
  id: number
  kind: OpKind
  key: string
  path: string
  /** The exact bytes sent, so a retry is the same request. */
  body: string
  token: string
  userId: number
  /** Batches: the pings carry device times epoch + (seq·50 + i) ms, so each ping names its batch. */
  seq?: number
  visitId?: number
  cycle: number
  attempts: Attempt[]
  /** acked: a 2xx (or 204) came back; unknown: in flight at the kill; failed: a non-2xx came back. */
  state: 'pending' | 'acked' | 'unknown' | 'failed'
}

export interface LedgerScope {
  dbPath: string
  workspaceId: number
  /** Device time of ping 0 of batch 0 (ms since the Unix epoch). */
  pingEpochMs: number
  fieldUserIds: number[]
}

export interface CheckOutcome {
  violations: string[]
  /** Per op id: did its mutation commit (judged by its idempotency record)? */
  committed: Map<number, boolean>
  stats: { batchesCommitted: number; transitionsCommitted: number; pings: number; auditEntries: number }
}

const describeOp = (op: LedgerOp) =>
  `${op.kind} op#${op.id} key=${op.key}${op.visitId ? ` visit=${op.visitId}` : ''} (cycle ${op.cycle}, ${op.state}, attempts ${op.attempts.map((a) => a.status ?? 'no-answer').join('/')})`

/**
 * Checks the database file against the ledger. The server must not be running (the file is read as
 * the kill left it, WAL included). Pure reads: never changes the file.
 */
export function checkDatabase(scope: LedgerScope, ops: LedgerOp[]): CheckOutcome {
  const violations: string[] = []
  const committed = new Map<number, boolean>()
  const db = new Database(scope.dbPath, { readonly: true })
  try {
    const integrity = db.query('pragma integrity_check').all() as { integrity_check: string }[]
    if (integrity.length !== 1 || integrity[0].integrity_check !== 'ok') {
      violations.push(`integrity_check: ${integrity.map((row) => row.integrity_check).join('; ')}`)
    }
    const foreignKeys = db.query('pragma foreign_key_check').all()
    if (foreignKeys.length) violations.push(`foreign_key_check: ${foreignKeys.length} rows, first ${JSON.stringify(foreignKeys[0])}`)

    const wid = scope.workspaceId
    // Pings with a device time, grouped by the batch their time names.
    const pingsByBatch = new Map<number, { count: number; users: Set<number> }>()
    let pings = 0
    for (const row of db.query('select user_id, recorded_at from location_pings where workspace_id = ? and device_time = 1').iterate(wid) as Iterable<{
      user_id: number
      recorded_at: string
    }>) {
      pings += 1
      const seq = Math.floor((Date.parse(row.recorded_at) - scope.pingEpochMs) / PINGS_PER_BATCH)
      const entry = pingsByBatch.get(seq) ?? { count: 0, users: new Set<number>() }
      entry.count += 1
      entry.users.add(row.user_id)
      pingsByBatch.set(seq, entry)
    }
    const keys = new Map<string, number>()
    for (const row of db.query('select key, response_status from idempotency_keys where workspace_id = ?').all(wid) as {
      key: string
      response_status: number
    }[]) {
      keys.set(row.key, row.response_status)
    }
    const auditByRequest = new Map<string, { entity_type: string; entity_id: string; action: string; status: string | null }[]>()
    let fieldTransitionAudits = 0
    const fieldUsers = new Set(scope.fieldUserIds)
    let auditEntries = 0
    for (const row of db
      .query(
        `select entity_type, entity_id, action, actor_id, json_extract(metadata, '$.request_id') as request_id, json_extract(new_values, '$.status') as status
           from audit_logs where workspace_id = ?`,
      )
      .iterate(wid) as Iterable<{
      entity_type: string
      entity_id: string
      action: string
      actor_id: number | null
      request_id: string
      status: string | null
    }>) {
      auditEntries += 1
      const list = auditByRequest.get(row.request_id) ?? []
      list.push(row)
      auditByRequest.set(row.request_id, list)
      if (row.entity_type === 'visit' && row.action === 'updated' && row.actor_id !== null && fieldUsers.has(row.actor_id)) fieldTransitionAudits += 1
    }
    const logs = new Map<string, number>()
    let transitionLogs = 0
    for (const row of db
      .query(`select visit_id, action, count(*) as n from visit_logs where workspace_id = ? and action in ('check_in', 'check_out') group by visit_id, action`)
      .all(wid) as { visit_id: number; action: string; n: number }[]) {
      logs.set(`${row.visit_id}:${row.action}`, row.n)
      transitionLogs += row.n
    }
    const visitStatus = new Map<number, string>()
    for (const row of db.query('select id, status from visits where workspace_id = ?').all(wid) as { id: number; status: string }[])
      visitStatus.set(row.id, row.status)

    let batchesCommitted = 0
    let transitionsCommitted = 0
    const byVisit = new Map<number, { check_in?: boolean; check_out?: boolean }>()
    for (const op of ops) {
      const status = keys.get(op.key)
      const isCommitted = status !== undefined && status >= 200 && status < 300
      committed.set(op.id, isCommitted)
      if (status !== undefined && !isCommitted) violations.push(`${describeOp(op)}: idempotency record holds status ${status}`)
      if (op.state === 'acked' && !isCommitted) violations.push(`LOST: ${describeOp(op)} was acknowledged but its idempotency record is missing`)
      const audits = op.attempts.flatMap((attempt) => auditByRequest.get(attempt.requestId) ?? [])

      if (op.kind === 'batch') {
        const found = pingsByBatch.get(op.seq!) ?? { count: 0, users: new Set<number>() }
        if (found.count !== 0 && found.count !== PINGS_PER_BATCH)
          violations.push(`PARTIAL batch: ${describeOp(op)} has ${found.count} of ${PINGS_PER_BATCH} pings`)
        if (op.state === 'acked' && found.count !== PINGS_PER_BATCH)
          violations.push(`LOST: ${describeOp(op)} acknowledged, ${found.count} of ${PINGS_PER_BATCH} pings present`)
        if (isCommitted !== (found.count === PINGS_PER_BATCH)) {
          violations.push(`NOT ATOMIC: ${describeOp(op)}: idempotency record ${isCommitted ? 'present' : 'absent'} but ${found.count} pings`)
        }
        if (found.count && (found.users.size !== 1 || !found.users.has(op.userId)))
          violations.push(`${describeOp(op)}: pings stored for users ${[...found.users]}, sent by ${op.userId}`)
        // docs/API.md §Audit log: location batches are not audited (the pings are the record).
        if (audits.length) violations.push(`${describeOp(op)}: ${audits.length} audit entries, docs/API.md §Audit log says none`)
        if (isCommitted) batchesCommitted += 1
      } else {
        const logCount = logs.get(`${op.visitId}:${op.kind}`) ?? 0
        const expected = op.kind === 'check_in' ? 'in_progress' : 'completed'
        const matching = audits.filter(
          (row) => row.entity_type === 'visit' && row.entity_id === String(op.visitId) && row.action === 'updated' && row.status === expected,
        )
        if (audits.length !== matching.length) violations.push(`${describeOp(op)}: unexpected audit entries ${JSON.stringify(audits)}`)
        if (op.state === 'acked' && (logCount !== 1 || matching.length !== 1)) {
          violations.push(`LOST: ${describeOp(op)} acknowledged: ${logCount} '${op.kind}' log rows, ${matching.length} audit entries (want 1 and 1)`)
        }
        if (logCount > 1 || matching.length > 1) violations.push(`DUPLICATE: ${describeOp(op)}: ${logCount} log rows, ${matching.length} audit entries`)
        if (isCommitted !== (logCount === 1) || isCommitted !== (matching.length === 1)) {
          violations.push(
            `NOT ATOMIC: ${describeOp(op)}: idempotency record ${isCommitted ? 'present' : 'absent'}, ${logCount} log rows, ${matching.length} audit entries`,
          )
        }
        const visit = byVisit.get(op.visitId!) ?? {}
        visit[op.kind] = isCommitted
        byVisit.set(op.visitId!, visit)
        if (isCommitted) transitionsCommitted += 1
      }
    }
    for (const [visitId, done] of byVisit) {
      const want = done.check_out ? 'completed' : done.check_in ? 'in_progress' : 'scheduled'
      const actual = visitStatus.get(visitId)
      if (actual !== want) violations.push(`visit ${visitId}: status ${actual}, the committed transitions say ${want}`)
      if (done.check_out && !done.check_in) violations.push(`visit ${visitId}: checked out without a committed check-in`)
    }
    // Nothing the ledger does not know about: no stray pings, transitions or audit entries.
    if (pings !== batchesCommitted * PINGS_PER_BATCH)
      violations.push(`STRAY pings: ${pings} device-time pings stored, ${batchesCommitted} committed batches account for ${batchesCommitted * PINGS_PER_BATCH}`)
    if (transitionLogs !== transitionsCommitted)
      violations.push(`STRAY transitions: ${transitionLogs} check-in/out log rows, ${transitionsCommitted} committed transitions`)
    if (fieldTransitionAudits !== transitionsCommitted)
      violations.push(`STRAY audit: ${fieldTransitionAudits} visit-update audit entries by field users, ${transitionsCommitted} committed transitions`)
    return { violations, committed, stats: { batchesCommitted, transitionsCommitted, pings, auditEntries } }
  } finally {
    db.close()
  }
}

// ── The run ────────────────────────────────────────────────────────────────────────────────────

export interface CrashOptions {
  cycles: number
  seed: number
  /** Concurrent clients sending location batches (round-robin over the field users). */
  batchWriters: number
  /** Field users each driving their own visits (one client each: check-in, check-out, next). */
  visitUsers: number
  killMinMs: number
  killMaxMs: number
  /** Older acknowledged keys replayed per cycle, besides all of the cycle's own. */
  oldReplaysPerCycle: number
  /** Extra server environment (e.g. REGIONAL_SERVICE_URL to skip loading the embedded regional data). */
  env?: Record<string, string>
  /** Keep the temporary directory (and return its path) instead of removing it. */
  keepDir?: boolean
  log?: (line: string) => void
}

export interface CrashReport {
  seed: number
  cycles: number
  ops: LedgerOp[]
  scope: LedgerScope
  acked: { batches: number; transitions: number }
  inFlightAtKill: { committed: number; notCommitted: number }
  replays: number
  final: CheckOutcome['stats'] | null
  violations: string[]
  /** Connection errors while the server was up (none expected). */
  connectionErrorsWhileUp: number
  durationMs: number
  dir: string | null
}

export const CRASH_DEFAULTS: CrashOptions = {
  cycles: 20,
  seed: Date.now() % 1_000_000,
  batchWriters: 4,
  visitUsers: 2,
  killMinMs: 150,
  killMaxMs: 1200,
  oldReplaysPerCycle: 20,
}

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with SEED. */
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

const VISIT_POOL_LOW = 40
const VISIT_POOL_TOP_UP = 80

interface VisitFlow {
  user: FieldUser
  /** Planned visits not yet touched. */
  pool: number[]
  current: { visitId: number; next: 'check_in' | 'check_out' } | null
}

export async function runCrashTest(overrides: Partial<CrashOptions> = {}): Promise<CrashReport> {
  const options = { ...CRASH_DEFAULTS, ...overrides }
  const log = options.log ?? ((line: string) => console.log(line))
  const rand = random(options.seed)
  const started = performance.now()
  const { dir, remove } = tempDir('ffos-crash-')
  const dbPath = join(dir, 'app.db')
  const serverLog = new ServerLog()
  const violations: string[] = []
  const ops: LedgerOp[] = []
  const runTag = `${options.seed.toString(36)}${Date.now().toString(36)}`
  const fieldUserCount = Math.max(options.visitUsers, 1)
  let connectionErrorsWhileUp = 0
  let replays = 0
  const inFlightAtKill = { committed: 0, notCommitted: 0 }
  let server: ServerHandle | null = null
  let final: CheckOutcome['stats'] | null = null
  let scope: LedgerScope | null = null

  const start = async (label: string) => {
    try {
      return await startServer({ dbPath, env: options.env, log: serverLog })
    } catch (error) {
      throw new Error(`RESTART FAILED (${label}): ${(error as Error).message}`)
    }
  }

  try {
    server = await start('first start')
    const workspace = await setupFieldWorkspace(server.base, { fieldUsers: fieldUserCount, visitsPerUser: VISIT_POOL_TOP_UP, tag: runTag })
    scope = {
      dbPath,
      workspaceId: workspace.workspaceId,
      // A day back, so every device time is in the past however long the run takes.
      pingEpochMs: Math.floor(Date.now() / 1000) * 1000 - 24 * 60 * 60 * 1000,
      fieldUserIds: workspace.users.map((user) => user.id),
    }
    const flows: VisitFlow[] = workspace.users.slice(0, options.visitUsers).map((user) => ({ user, pool: [...user.visitIds], current: null }))
    let nextOpId = 1
    let nextSeq = 0

    const newOp = (fields: Omit<LedgerOp, 'id' | 'key' | 'attempts' | 'state'>): LedgerOp => {
      const id = nextOpId++
      const op: LedgerOp = { id, key: `crash-${runTag}-${id}`, attempts: [], state: 'pending', ...fields }
      ops.push(op)
      return op
    }
    const newBatch = (user: FieldUser, cycle: number) => {
      const seq = nextSeq++
      const epoch = scope!.pingEpochMs + seq * PINGS_PER_BATCH
      const pings = pingBatch(seq, { recordedFromMs: epoch })
      return newOp({ kind: 'batch', path: '/app/v1/locations/batch', body: JSON.stringify({ pings }), token: user.token, userId: user.id, seq, cycle })
    }
    const newTransition = (flow: VisitFlow, cycle: number): LedgerOp | null => {
      if (!flow.current) {
        const visitId = flow.pool.shift()
        if (visitId === undefined) return null
        flow.current = { visitId, next: 'check_in' }
      }
      const { visitId, next } = flow.current
      const segment = next === 'check_in' ? 'check-in' : 'check-out'
      const body = JSON.stringify({ latitude: -6.2, longitude: 106.8, notes: `op ${nextOpId}` })
      return newOp({ kind: next, path: `/app/v1/visits/${visitId}/${segment}`, body, token: flow.user.token, userId: flow.user.id, visitId, cycle })
    }
    const advance = (flow: VisitFlow, op: LedgerOp) => {
      if (!flow.current || flow.current.visitId !== op.visitId) return
      flow.current = op.kind === 'check_in' ? { visitId: op.visitId!, next: 'check_out' } : null
    }

    /** The answer a fresh, successful run of the op gives. */
    const freshSuccess = (op: LedgerOp, result: CallResult) => {
      if (op.kind === 'batch') return result.status === 201 && result.body?.code === 'CREATED' && result.body?.data?.count === PINGS_PER_BATCH
      const code = op.kind === 'check_in' ? 'VISIT_CHECKED_IN' : 'VISIT_CHECKED_OUT'
      const status = op.kind === 'check_in' ? 'in_progress' : 'completed'
      return result.status === 200 && result.body?.code === code && result.body?.data?.status === status
    }
    const isDuplicate = (result: CallResult) =>
      result.status === 204 && result.headers.get('x-idempotency-code') === 'IDEMPOTENT_DUPLICATE' && result.text === ''
    const answerText = (result: CallResult) => `${result.status} ${result.text.slice(0, 300)}`
    const send = (op: LedgerOp, attempt: Attempt) =>
      call(server!.base, 'POST', op.path, { body: op.body, token: op.token, idempotencyKey: op.key, requestId: attempt.requestId })
    const newAttempt = (op: LedgerOp, phase: Attempt['phase']): Attempt => {
      const attempt: Attempt = { requestId: `crash-${runTag}-${op.id}-${op.attempts.length}-${phase}`, status: null, phase }
      op.attempts.push(attempt)
      return attempt
    }

    for (let cycle = 1; cycle <= options.cycles; cycle += 1) {
      // Top the visit pools up (office planning, on the restarted server).
      for (const flow of flows) {
        if (flow.pool.length >= VISIT_POOL_LOW) continue
        const visits = Array.from({ length: VISIT_POOL_TOP_UP }, () => ({
          outlet_id: workspace.outletId,
          project_id: workspace.projectId,
          visit_date: '2026-11-22',
          user_ids: [flow.user.id],
        }))
        const bulk = await call(server.base, 'POST', '/office/v1/visits/bulk', { token: workspace.ownerToken, body: { visits } })
        if (bulk.status !== 201) throw new Error(`visit top-up failed: ${answerText(bulk)}`)
        flow.pool.push(...(bulk.body.data.ids as number[]))
      }

      // 1. The load, 2. the kill at a random moment of it.
      let killed = false
      // The kill's random moment is counted from when this cycle has acknowledged a batch and a
      // transition: on a slow machine a moment counted from the start could come before any answer,
      // and the cycle would check nothing acknowledged.
      const firstAcks = { batch: Promise.withResolvers<void>(), transition: Promise.withResolvers<void>() }
      const loadSend = async (op: LedgerOp) => {
        for (let tries = 0; ; tries += 1) {
          const attempt = newAttempt(op, 'load')
          try {
            const result = await send(op, attempt)
            attempt.status = result.status
            // Any 2xx is an acknowledgement: the client may forget the request, so the server must keep it.
            op.state = result.status >= 200 && result.status < 300 ? 'acked' : 'failed'
            if (op.state === 'acked') firstAcks[op.kind === 'batch' ? 'batch' : 'transition'].resolve()
            if (!freshSuccess(op, result) && !(tries > 0 && isDuplicate(result))) {
              violations.push(`UNEXPECTED ANSWER under load: ${describeOp(op)}: ${answerText(result)}`)
            }
            return
          } catch (error) {
            if (killed) {
              op.state = 'unknown'
              return
            }
            // The server is up: a client retries with the same key, as a phone would.
            connectionErrorsWhileUp += 1
            violations.push(`CONNECTION ERROR while the server was up: ${describeOp(op)}: ${String(error)}`)
            if (tries >= 3) {
              op.state = 'unknown'
              return
            }
            await Bun.sleep(50)
          }
        }
      }
      const batchWriter = async (index: number) => {
        const user = workspace.users[index % workspace.users.length]
        while (!killed) await loadSend(newBatch(user, cycle))
      }
      const visitWriter = async (flow: VisitFlow) => {
        while (!killed) {
          const op = newTransition(flow, cycle)
          if (!op) {
            // Pool used up: this client sends batches for the rest of the cycle.
            await loadSend(newBatch(flow.user, cycle))
            continue
          }
          await loadSend(op)
          if (op.state === 'acked') advance(flow, op)
          else if (op.state === 'failed') flow.current = null
        }
      }
      const firstOp = nextOpId
      const writers = [...Array.from({ length: options.batchWriters }, (_, index) => batchWriter(index)), ...flows.map((flow) => visitWriter(flow))]
      const killAfter = options.killMinMs + rand() * (options.killMaxMs - options.killMinMs)
      // Without visit writers (or once their pools run dry) no transition comes: then batches alone.
      await Promise.all([firstAcks.batch.promise, flows.length ? Promise.race([firstAcks.transition.promise, Bun.sleep(10_000)]) : undefined])
      await Bun.sleep(killAfter)
      killed = true
      await server.kill9()
      await Promise.all(writers)
      const cycleOps = ops.filter((op) => op.id >= firstOp)
      const unknown = cycleOps.filter((op) => op.state === 'unknown')

      // 3. The file as the kill left it.
      const check = checkDatabase(scope, ops)
      for (const violation of check.violations) violations.push(`cycle ${cycle} after kill: ${violation}`)

      // 4. Restart on the same file; resolve what was in flight; replay acknowledged keys.
      server = await start(`cycle ${cycle}`)
      const retry = async (op: LedgerOp, phase: 'retry' | 'replay', expectCommitted: boolean) => {
        for (let tries = 0; ; tries += 1) {
          const attempt = newAttempt(op, phase)
          try {
            const result = await send(op, attempt)
            attempt.status = result.status
            if (expectCommitted ? isDuplicate(result) : freshSuccess(op, result)) {
              op.state = 'acked'
              return
            }
            const want = expectCommitted ? '204 IDEMPOTENT_DUPLICATE (committed before the kill)' : 'a fresh success (not committed before the kill)'
            violations.push(`cycle ${cycle} ${phase}: ${describeOp(op)}: answered ${answerText(result)}, expected ${want}`)
            if (result.status >= 200 && result.status < 300) op.state = 'acked'
            return
          } catch (error) {
            connectionErrorsWhileUp += 1
            violations.push(`cycle ${cycle} ${phase}: CONNECTION ERROR while the server was up: ${describeOp(op)}: ${String(error)}`)
            if (tries >= 3) return
            await Bun.sleep(50)
          }
        }
      }
      for (const op of unknown) {
        const committed = check.committed.get(op.id) === true
        if (committed) inFlightAtKill.committed += 1
        else inFlightAtKill.notCommitted += 1
      }
      await Promise.all(
        unknown.map(async (op) => {
          await retry(op, 'retry', check.committed.get(op.id) === true)
          const flow = flows.find((candidate) => candidate.user.id === op.userId && candidate.current?.visitId === op.visitId)
          if (flow && op.kind !== 'batch') {
            if (op.state === 'acked') advance(flow, op)
            else flow.current = null
          }
        }),
      )
      const acked = ops.filter((op) => op.state === 'acked')
      const older = acked.filter((op) => op.cycle < cycle)
      const sample = Array.from({ length: Math.min(options.oldReplaysPerCycle, older.length) }, () => older[Math.floor(rand() * older.length)])
      const toReplay = [...new Set([...cycleOps.filter((op) => op.state === 'acked'), ...sample])]
      for (let at = 0; at < toReplay.length; at += 8) await Promise.all(toReplay.slice(at, at + 8).map((op) => retry(op, 'replay', true)))
      replays += toReplay.length

      const counts = (kind: 'batch' | 'transition') =>
        cycleOps.filter((op) => (kind === 'batch' ? op.kind === 'batch' : op.kind !== 'batch') && op.state === 'acked').length
      log(
        `cycle ${String(cycle).padStart(2)}: kill after ${killAfter.toFixed(0).padStart(4)} ms · acked ${counts('batch')} batches, ${counts('transition')} transitions · in flight ${unknown.length} (${unknown.filter((op) => check.committed.get(op.id)).length} had committed) · replayed ${toReplay.length} · violations so far ${violations.length}`,
      )
    }

    // The end: a clean stop, then the file once more (checkpointed by the shutdown).
    const code = await server.stop()
    server = null
    if (code !== 0) violations.push(`clean shutdown exited with code ${code}`)
    const last = checkDatabase(scope, ops)
    for (const violation of last.violations) violations.push(`final: ${violation}`)
    for (const op of ops) if (op.state !== 'acked') violations.push(`final: ${describeOp(op)} never succeeded`)
    final = last.stats
    for (const line of serverLog.matching(LOCK_ERROR)) violations.push(`server log: ${line.slice(0, 300)}`)
  } catch (error) {
    violations.push(String((error as Error).message ?? error))
    violations.push(`server output (tail):\n${serverLog.tail()}`)
  } finally {
    if (server) await server.kill9()
    if (!options.keepDir) remove()
  }

  const ackedOf = (batch: boolean) =>
    ops.filter(
      (op) => (op.kind === 'batch') === batch && op.state === 'acked' && op.attempts.some((a) => a.phase === 'load' && a.status !== null && a.status < 300),
    ).length
  return {
    seed: options.seed,
    cycles: options.cycles,
    ops,
    scope: scope ?? { dbPath, workspaceId: 0, pingEpochMs: 0, fieldUserIds: [] },
    acked: { batches: ackedOf(true), transitions: ackedOf(false) },
    inFlightAtKill,
    replays,
    final,
    violations,
    connectionErrorsWhileUp,
    durationMs: performance.now() - started,
    dir: options.keepDir ? dir : null,
  }
}

export function summarizeCrash(report: CrashReport): string {
  const lines = [
    '',
    `crash safety: ${report.cycles} kill -9 cycles, seed ${report.seed}, ${(report.durationMs / 1000).toFixed(1)} s, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`,
    `  acknowledged under load: ${report.acked.batches} location batches (${report.acked.batches * PINGS_PER_BATCH} pings), ${report.acked.transitions} visit transitions`,
    `  in flight at a kill: ${report.inFlightAtKill.committed + report.inFlightAtKill.notCommitted} (${report.inFlightAtKill.committed} had committed → 204 on retry, ${report.inFlightAtKill.notCommitted} had not → ran fresh)`,
    `  idempotent replays of acknowledged keys: ${report.replays}`,
    report.final
      ? `  final file: ${report.final.batchesCommitted} batches / ${report.final.pings} pings, ${report.final.transitionsCommitted} transitions, ${report.final.auditEntries} audit entries (location batches: none, docs/API.md §Audit log)`
      : '  final file: not checked (the run stopped early)',
    `  violations: ${report.violations.length}`,
  ]
  for (const violation of report.violations.slice(0, 50)) lines.push(`    ✗ ${violation}`)
  if (report.violations.length > 50) lines.push(`    … ${report.violations.length - 50} more`)
  return lines.join('\n')
}

if (import.meta.main) {
  const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback)
  const report = await runCrashTest({
    cycles: env('CYCLES', CRASH_DEFAULTS.cycles),
    seed: env('SEED', CRASH_DEFAULTS.seed),
    batchWriters: env('BATCH_WRITERS', CRASH_DEFAULTS.batchWriters),
    visitUsers: env('VISIT_USERS', CRASH_DEFAULTS.visitUsers),
    killMinMs: env('KILL_MIN_MS', CRASH_DEFAULTS.killMinMs),
    killMaxMs: env('KILL_MAX_MS', CRASH_DEFAULTS.killMaxMs),
  })
  console.log(summarizeCrash(report))
  process.exit(report.violations.length ? 1 : 0)
}
