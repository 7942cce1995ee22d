/**
 * `bun scripts/bench/jobs.ts DEMO_DB` — how long each scheduled job holds the event loop, on a copy of
 * a demo database (`npm run seed:demo FILE`, or the suite's cached data/bench/demo-….db). Every read
 * and write of the embedded database is synchronous, so while a job's transaction runs, no request is
 * served: the longest gap between two turns of the event loop (a 1 ms timer) is the stall a request
 * can meet when the job runs. Each job gets a backlog:
 *
 * - missed visits: the demo's scheduled visits of the last three local days (its first run);
 * - location retention: every ping expired (the clock 400 days ahead: 1M pings);
 * - change-log retention: a third of the log turned into tombstones 400 days old;
 * - idempotency cleanup: 100,000 expired records.
 *
 * Prints the rows each job removed or reported, its time, the longest gap and the share of the run
 * spent in gaps over 10 ms (docs/PERFORMANCE.md "Maintenance jobs and the event loop"). JOBS=missed
 * runs only the jobs whose names contain one of the comma-separated words.
 */
import { Database } from 'bun:sqlite'
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/env'
import { openDatabase } from '../../src/db/client'
import { cleanupIdempotencyKeys } from '../../src/jobs/idempotency-cleanup.job'
import { purgeExpiredLocations } from '../../src/jobs/location-retention.job'
import { notifyMissedVisits } from '../../src/jobs/missed-visits.job'
import { purgeOldTombstones } from '../../src/modules/sync'
import type { Deps } from '../../src/platform/context'
import { tempDir } from './common'

const demo = process.argv[2]
if (!demo) {
  console.error('usage: bun scripts/bench/jobs.ts DEMO_DB')
  process.exit(1)
}
const DAY_MS = 86_400_000
const OLD = '2000-01-01T00:00:00.000Z'
const { dir, remove } = tempDir('ffos-bench-jobs-')

interface Job {
  name: string
  /** Raw SQL run on the copy before the app opens it. */
  backlog?: string
  /** How far ahead of now the app's clock runs. */
  aheadDays?: number
  run(deps: Deps): Promise<unknown>
}

const JOBS: Job[] = [
  { name: 'missed visits', run: notifyMissedVisits },
  { name: 'location retention', aheadDays: 400, run: purgeExpiredLocations },
  {
    name: 'change-log retention',
    backlog: `UPDATE changes SET op = 'delete', created_at = '${OLD}' WHERE seq % 3 = 0`,
    run: purgeOldTombstones,
  },
  {
    name: 'idempotency cleanup',
    backlog: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
      INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, created_at)
      SELECT (SELECT min(id) FROM workspaces), 'bench-' || i, 'f', 201, '${OLD}' FROM n`,
    run: cleanupIdempotencyKeys,
  },
]

async function measure(job: Job, index: number) {
  const file = join(dir, `jobs-${index}.db`)
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
  copyFileSync(demo, file)
  if (job.backlog) {
    const raw = new Database(file)
    raw.run(job.backlog)
    raw.close()
  }
  const config = loadConfig({ DATABASE_URL: `file:${file}`, LOG_LEVEL: 'silent', UPLOAD_DIR: join(dir, 'uploads'), EXPORT_DIR: join(dir, 'exports') })
  const db = await openDatabase(config)
  await db.migrate()
  const ahead = (job.aheadDays ?? 0) * DAY_MS
  const { deps } = await createApp({ db, config, clock: { now: () => new Date(Date.now() + ahead) } })
  let last = performance.now()
  let longest = 0
  // Time the loop spent in gaps over 10 ms: how much of the run a request could not be served.
  let blocked = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    if (now - last > 10) blocked += now - last
    last = now
  }, 1)
  await Bun.sleep(100)
  longest = 0
  blocked = 0
  last = performance.now()
  const started = performance.now()
  const result = await job.run(deps)
  const ms = performance.now() - started
  clearInterval(timer)
  await db.close()
  console.log(`| ${job.name} | ${JSON.stringify(result)} | ${ms.toFixed(0)} | ${longest.toFixed(1)} | ${((100 * blocked) / ms).toFixed(0)}% |`)
}

try {
  console.log(`jobs on a copy of ${demo}, Bun ${Bun.version}\n`)
  console.log('| job | result | ms | longest event-loop gap ms | time in gaps > 10 ms |')
  console.log('| --- | --- | ---: | ---: | ---: |')
  // JOBS=missed,retention: only the jobs whose names contain one of these words.
  const only = process.env.JOBS?.split(',').filter(Boolean)
  for (const [index, job] of JOBS.entries()) if (!only || only.some((word) => job.name.includes(word))) await measure(job, index)
} finally {
  remove()
}
