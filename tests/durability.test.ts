/**
 * Durability in CI: short runs of `bun run test:crash` (kill -9 of the real server under write load,
 * restart, check the file) and `bun run test:concurrency` (16 writers at once), through the same
 * code the scripts run. The servers skip loading the embedded regional data (REGIONAL_SERVICE_URL
 * points nowhere): that first-start step takes seconds and touches none of the rules checked here.
 */
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { describe, expect, test } from 'bun:test'
import { checkDatabase, PINGS_PER_BATCH, runCrashTest, summarizeCrash } from '../scripts/crash'
import { judgeAnswer, runConcurrencyTest, summarizeConcurrency } from '../scripts/concurrency'

const FAST_START = { REGIONAL_SERVICE_URL: 'http://127.0.0.1:9/' }
const quiet = () => undefined

describe('crash safety: kill -9 under write load', () => {
  test('acknowledged batches and transitions survive every kill, all or nothing, audited once, and replay as 204', async () => {
    const report = await runCrashTest({ cycles: 5, killMinMs: 100, killMaxMs: 600, env: FAST_START, keepDir: true, log: quiet })
    try {
      if (report.violations.length) console.log(summarizeCrash(report))
      expect(report.violations).toEqual([])
      expect(report.acked.batches).toBeGreaterThan(0)
      expect(report.acked.transitions).toBeGreaterThan(0)
      expect(report.inFlightAtKill.committed + report.inFlightAtKill.notCommitted).toBeGreaterThan(0)
      expect(report.final!.pings).toBe(report.final!.batchesCommitted * PINGS_PER_BATCH)

      // The checks are not vacuous: damage the file the way a torn write would, and they see it.
      const batch = report.ops.find((op) => op.kind === 'batch' && op.state === 'acked')!
      const checkOut = report.ops.find((op) => op.kind === 'check_out' && op.state === 'acked')!
      const db = new Database(report.scope.dbPath)
      db.query('delete from location_pings where workspace_id = ? and recorded_at = ?').run(
        report.scope.workspaceId,
        new Date(report.scope.pingEpochMs + batch.seq! * PINGS_PER_BATCH + 7).toISOString(),
      )
      db.query('delete from idempotency_keys where workspace_id = ? and key = ?').run(report.scope.workspaceId, checkOut.key)
      db.close()
      const damaged = checkDatabase(report.scope, report.ops)
      expect(damaged.violations.some((v) => v.startsWith('PARTIAL batch') && v.includes(batch.key))).toBe(true)
      expect(damaged.violations.some((v) => v.startsWith('LOST') && v.includes(batch.key))).toBe(true)
      expect(damaged.violations.some((v) => v.startsWith('LOST') && v.includes(checkOut.key))).toBe(true)
      expect(damaged.violations.some((v) => v.startsWith('NOT ATOMIC') && v.includes(checkOut.key))).toBe(true)
    } finally {
      if (report.dir) rmSync(report.dir, { recursive: true, force: true })
    }
  }, 45_000)
})

describe('concurrency: 16 writers at once', () => {
  test('no 5xx, no SQLITE_BUSY or locked database, no connection error; one audit entry per audited write', async () => {
    const report = await runConcurrencyTest({ writers: 16, seconds: 4, env: FAST_START, log: quiet })
    if (report.failures.length) console.log(summarizeConcurrency(report))
    expect(report.failures).toEqual([])
    expect(report.counts.batch?.['201']).toBeGreaterThan(0)
    expect((report.counts.check_in?.['200'] ?? 0) + (report.counts.channel_group_create?.['201'] ?? 0)).toBeGreaterThan(0)
    expect(report.auditEntries).toBeGreaterThan(0)
  }, 30_000)

  test('an answer that is a 5xx, names a lock error or has an unexpected status is a failure', () => {
    expect(judgeAnswer('batch', 201, '{"success":true,"code":"CREATED"}').problems).toEqual([])
    expect(judgeAnswer('replay', 204, '').problems).toEqual([])
    expect(judgeAnswer('batch', 500, '{"code":"INTERNAL_ERROR"}').problems).toEqual(['5xx'])
    expect(judgeAnswer('outlet_create', 503, '{"code":"SQLITE_BUSY"}').problems).toEqual(['5xx', 'LOCK ERROR in answer'])
    expect(judgeAnswer('check_in', 409, '{"message":"database is locked"}').problems).toEqual(['LOCK ERROR in answer', 'unexpected status'])
    expect(judgeAnswer('check_out', 409, '{"code":"VISIT_NOT_STARTED"}').problems).toEqual(['unexpected status'])
  })
})
