/**
 * No request holds the single write lock for long (README "Writes and the write lock"): slow work —
 * an upstream HTTP call, a large import — never runs while another workspace's write waits.
 * Asserted by order of events and by structure, never by timing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Db } from '../src/db/client'
import { IMPORT_MAX_ROWS, WRITE_PART_ROWS } from '../src/modules/visits'
import { createTestApp, expectError, unique, type TestApp, type Workspace } from './harness'

/** A regional upstream on a real socket that holds each answer until the test lets it go. */
function heldUpstream() {
  let gate = Promise.withResolvers<void>()
  let arrival = Promise.withResolvers<void>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch() {
      arrival.resolve()
      await gate.promise
      return Response.json([
        { id: 11, code: '11', name: 'ACEH' },
        { id: 1101, code: '11.01', name: 'KABUPATEN SIMEULUE', type: 'kabupaten' },
      ])
    },
  })
  return {
    server,
    url: `http://127.0.0.1:${server.port}`,
    /** Resolves when a request has arrived (and is being held). */
    arrived: () => arrival.promise,
    release: () => gate.resolve(),
    /** Holds the next requests again. */
    rearm: () => {
      gate = Promise.withResolvers<void>()
      arrival = Promise.withResolvers<void>()
    },
  }
}

describe('an outlet whose regions are checked upstream does not hold the write lock while the upstream answers', () => {
  let upstream: ReturnType<typeof heldUpstream>
  let app: TestApp
  let ws: Workspace
  let other: Workspace

  beforeAll(async () => {
    upstream = heldUpstream()
    app = await createTestApp({ env: { REGIONAL_SERVICE_URL: upstream.url } })
    ws = await app.workspace()
    other = await app.workspace()
  }, 60_000)
  afterAll(async () => {
    upstream.release()
    await upstream.server.stop(true)
    await app.close()
  })

  for (const kind of ['create', 'update'] as const) {
    // Each case asks the upstream for a file it has not cached yet (provinces, then a province's cities).
    test(`${kind}: another workspace's write completes while the region lookup waits; the outlet is written after`, async () => {
      upstream.rearm()
      const events: string[] = []
      const existing = kind === 'update' ? (await app.post('/office/v1/outlets', { name: 'Shop', code: 'S-1' }, { token: ws.owner.token })).body.data : null
      const outlet =
        kind === 'create'
          ? app.post('/office/v1/outlets', { name: 'Toko Aceh', code: 'TA-1', province_id: 11 }, { token: ws.owner.token })
          : app.put(`/office/v1/outlets/${existing.id}`, { city_id: 1101 }, { token: ws.owner.token })
      const outletDone = outlet.then((reply) => events.push(`outlet ${reply.status}`))
      await upstream.arrived()
      events.push('upstream asked')
      // On a lookup inside the transaction this write would wait for the upstream, which answers
      // only after it: the outlet would end in the upstream timeout (503) before the write got through.
      const write = await app.post('/office/v1/outlets/channel-groups', { name: `Modern Trade ${kind}` }, { token: other.owner.token })
      events.push(`other write ${write.status}`)
      upstream.release()
      await outletDone
      expect(events).toEqual(['upstream asked', 'other write 201', `outlet ${kind === 'create' ? 201 : 200}`])
      expect((await outlet).body.data).toMatchObject(kind === 'create' ? { province_id: 11 } : { city_id: 1101 })
    })
  }
})

/** Every write transaction of the app, with the rows it wrote (SQLite's total_changes before and after), in commit order. */
function recordTransactions(app: TestApp) {
  const db = app.deps.db as { transaction: <T>(fn: (tx: Db) => Promise<T>) => Promise<T> }
  const original = db.transaction.bind(db)
  const log: { rows: number; failed: boolean; committed: number | null }[] = []
  let commits = 0
  let failAt: number | null = null
  const committedListeners: ((entry: (typeof log)[number]) => void)[] = []
  // Rows the service wrote: total_changes() also counts what triggers write, so the change log's own
  // rows (migration 0015: per row written, an older change row deleted and a new one inserted) are
  // taken out — inserted = how far its AUTOINCREMENT counter moved, deleted = inserted minus its growth.
  const changes = async (tx: Db) => {
    const [row] = (await tx.all(
      sql`select total_changes() as n, (select count(*) from changes) as log, coalesce((select seq from sqlite_sequence where name = 'changes'), 0) as seq`,
    )) as { n: number; log: number; seq: number }[]
    return { n: Number(row.n), log: Number(row.log), seq: Number(row.seq) }
  }
  const serviceRows = (before: Awaited<ReturnType<typeof changes>>, after: Awaited<ReturnType<typeof changes>>) => {
    const inserted = after.seq - before.seq
    const deleted = inserted - (after.log - before.log)
    return after.n - before.n - inserted - deleted
  }
  db.transaction = async (fn) => {
    let entry: (typeof log)[number] | null = null
    const value = await original(async (tx) => {
      const before = await changes(tx)
      entry = { rows: 0, failed: false, committed: null }
      log.push(entry)
      const result = await fn(tx)
      entry.rows = serviceRows(before, await changes(tx))
      if (failAt !== null && log.length === failAt) {
        entry.failed = true
        throw new Error('disk I/O error (injected by the test)')
      }
      return result
    })
    // Resolved once committed: the order of these is the order of the commits.
    entry!.committed = ++commits
    for (const listener of [...committedListeners]) listener(entry!)
    return value
  }
  return {
    log,
    /** The `n`-th transaction from now fails after its work, as a full disk would. */
    failNth: (n: number) => (failAt = log.length + n),
    /** Calls `listener` after each commit (its entry has the commit's number). */
    onCommit: (listener: (entry: (typeof log)[number]) => void) => {
      committedListeners.push(listener)
      return () => committedListeners.splice(committedListeners.indexOf(listener), 1)
    },
  }
}

/**
 * The no-stall rule on each driver. The import and the other workspace's write go over a real socket:
 * a request is read from it only when the server's event loop takes a turn, so a writer that chained
 * its parts without one (libSQL, before client.ts's `nextTurn`) held every other workspace's write for
 * the whole import. Asserted by the order of commits, never by time; the delay itself is measured by
 * scripts/write-lock.ts (docs/PERFORMANCE.md "The write lock").
 */
for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`${driver}: bulk create and CSV import are written in parts, each its own short transaction`, () => {
    let app: TestApp
    let base: string
    let ws: Workspace
    let other: Workspace
    let project: { id: number; code: string }
    let outlet: { id: number }
    let recorder: ReturnType<typeof recordTransactions>
    // The scenario of the rule: 2,000 rows into a project with 100 forms, the most a project may have
    // (about 220,000 rows written). WRITE_LOCK_ROWS / WRITE_LOCK_FORMS change it.
    const FORMS = Number(process.env.WRITE_LOCK_FORMS ?? 100)
    const ROWS = Number(process.env.WRITE_LOCK_ROWS ?? 2000)

    beforeAll(async () => {
      app = await createTestApp({ driver })
      app.app.listen({ port: 0, hostname: '127.0.0.1' })
      base = `http://127.0.0.1:${app.app.server!.port}/api`
      ws = await app.workspace()
      other = await app.workspace()
      const token = ws.owner.token
      const formIds: number[] = []
      for (let i = 0; i < FORMS; i++) {
        formIds.push(
          (await app.post('/office/v1/forms', { title: unique('Form'), fields: [{ key: 'note', label: 'Note', type: 'text' }] }, { token })).body.data.id,
        )
      }
      project = (
        await app.post('/office/v1/projects', { name: 'Big audit', code: 'BIG', forms: formIds.map((form_id) => ({ form_id, is_required: true })) }, { token })
      ).body.data
      outlet = (await app.post('/office/v1/outlets', { name: 'Toko', code: 'T-1' }, { token })).body.data
      recorder = recordTransactions(app)
    }, 120_000)
    afterAll(async () => {
      await app.app.stop(true)
      await app.close()
    })

    const csvOf = (rows: number, notes: string, assignee = '') =>
      [
        'outlet_id,project_id,visit_date,assignee_emails,notes',
        ...Array.from({ length: rows }, () => `${outlet.id},${project.id},2026-12-01,${assignee},${notes}`),
      ].join('\n')
    const importCsv = (csv: string, idempotencyKey?: string) =>
      app.request('POST', '/office/v1/visits/import', { raw: csv, headers: { 'content-type': 'text/csv' }, token: ws.owner.token, idempotencyKey })
    const visitsWith = (notes: string) => app.count('visits', `notes = '${notes}'`)
    const overSocket = (path: string, token: string, body: string, contentType: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body })

    test(`a ${ROWS.toLocaleString('en')}-row import into a ${FORMS}-form project: parts of at most WRITE_PART_ROWS rows; another workspace's write sent after the first part commits before the last`, async () => {
      const user = await app.member(ws, 'user')
      const first = recorder.log.length
      // When the import's first part has committed, another workspace writes (over the socket too).
      let otherWrite: Promise<Response> | null = null
      let otherEntry: (typeof recorder.log)[number] | null = null
      const stop = recorder.onCommit((entry) => {
        if (!otherWrite && entry.rows > 10) {
          const sent = recorder.log.length
          otherWrite = overSocket('/office/v1/outlets/channel-groups', other.owner.token, JSON.stringify({ name: unique('Channel group') }), 'application/json')
          // The other write is the first small transaction that starts after it was sent.
          const watch = recorder.onCommit((next) => {
            if (next.rows <= 10 && recorder.log.indexOf(next) >= sent && !otherEntry) {
              otherEntry = next
              watch()
            }
          })
        }
      })
      const reply = await overSocket('/office/v1/visits/import', ws.owner.token, csvOf(ROWS, 'big import', user.user.email), 'text/csv')
      stop()
      expect(reply.status).toBe(201)
      expect(((await reply.json()) as { data: { count: number } }).data.count).toBe(ROWS)
      expect(otherWrite).not.toBeNull()
      expect((await otherWrite!).status).toBe(201)
      expect(await visitsWith('big import')).toBe(ROWS)
      expect(await app.count('submissions', `visit_id IN (SELECT id FROM visits WHERE notes = 'big import')`)).toBe(ROWS * FORMS)

      const parts = recorder.log.slice(first).filter((entry) => entry.rows > 10)
      const rowsWritten = parts.reduce((sum, entry) => sum + entry.rows, 0)
      expect(rowsWritten).toBeGreaterThanOrEqual(ROWS * (FORMS + 6))
      expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(rowsWritten / WRITE_PART_ROWS))
      expect(Math.max(...parts.map((entry) => entry.rows))).toBeLessThanOrEqual(WRITE_PART_ROWS)
      // Nobody waits for the whole import: the other workspace's write committed between its parts.
      const lastPart = Math.max(...parts.map((entry) => entry.committed!))
      expect(otherEntry).not.toBeNull()
      expect(otherEntry!.committed!).toBeLessThan(lastPart)
      // The same seen in the audit trail: the other workspace's entry lies inside the import's span.
      const span = await app.db.pragma(`SELECT min(id) AS first, max(id) AS last FROM audit_logs WHERE workspace_id = ${ws.id} AND entity_type = 'visit'`)
      const between = await app.count('audit_logs', `workspace_id = ${other.id} AND id > ${span[0].first} AND id < ${span[0].last}`)
      expect(between).toBeGreaterThan(0)
    }, 600_000)

    test('a bulk create is written in parts the same way', async () => {
      const first = recorder.log.length
      const visits = Array.from({ length: 50 }, () => ({ outlet_id: outlet.id, project_id: project.id, visit_date: '2026-12-02', notes: 'bulk parts' }))
      const reply = await app.post('/office/v1/visits/bulk', { visits }, { token: ws.owner.token })
      expect(reply.status).toBe(201)
      expect(reply.body.data.count).toBe(50)
      const parts = recorder.log.slice(first)
      expect(parts.length).toBeGreaterThan(1)
      expect(parts.every((entry) => entry.rows <= WRITE_PART_ROWS)).toBe(true)
      expect(await visitsWith('bulk parts')).toBe(50)
    })

    test(`an import over ${IMPORT_MAX_ROWS} rows is refused with 400 VALIDATION_ERROR and writes nothing`, async () => {
      const first = recorder.log.length
      const errors = expectError(await importCsv(csvOf(IMPORT_MAX_ROWS + 1, 'too many')), 400, 'VALIDATION_ERROR')
      expect(errors.csv).toEqual([`has more than ${IMPORT_MAX_ROWS} rows`])
      expect(recorder.log.length).toBe(first)
      expect(await visitsWith('too many')).toBe(0)
    })

    test('a part that fails leaves the parts before it; a retry with the same X-Idempotency-Key writes only the rest, and a third answers 204', async () => {
      const csv = csvOf(30, 'resumed')
      const key = unique('import')
      recorder.failNth(3)
      const failed = await importCsv(csv, key)
      expect(failed.status).toBe(500)
      const written = await visitsWith('resumed')
      expect(written).toBeGreaterThan(0)
      expect(written).toBeLessThan(30)

      const retried = await importCsv(csv, key)
      expect(retried.status).toBe(201)
      expect(retried.body.data.count).toBe(30 - written)
      expect(await visitsWith('resumed')).toBe(30)
      expect(await app.count('submissions', `visit_id IN (SELECT id FROM visits WHERE notes = 'resumed')`)).toBe(30 * FORMS)

      const again = await importCsv(csv, key)
      expect(again.status).toBe(204)
      expect(await visitsWith('resumed')).toBe(30)
    })
  })
}
