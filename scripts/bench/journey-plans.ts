/**
 * `bun scripts/bench/journey-plans.ts [REPS] [STOPS]` — the nightly journey-plan generation
 * (src/jobs/journey-plans.job.ts) on a workspace of REPS field users (default 200), each with one
 * active plan of STOPS outlets (default 40: eight a day, Monday to Friday, every week), generating the
 * workspace's 7-day horizon from nothing. Measures, like scripts/bench/jobs.ts, the longest gap between
 * two turns of the event loop while the job runs (a 1 ms timer): the stall a request can meet then,
 * its 99th percentile and how many gaps exceeded 50 ms; and the job's total time. Then a second run on the next local day (what each night does after the
 * first: one new day per plan, the rest skipped) and a repeat of the same day (nothing to do).
 *
 * The fixture is built with SQL on a fresh migrated database (a project with one form; the users,
 * memberships, outlets, plans and stops in bulk), so the figures are the job's alone.
 * docs/PERFORMANCE.md "Journey-plan generation" records them.
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/env'
import { openDatabase } from '../../src/db/client'
import { generateJourneyPlanVisits } from '../../src/jobs/journey-plans.job'
import { ManualClock } from '../../src/lib/clock'
import { tempDir } from './common'

const REPS = Number(process.argv[2] ?? 200)
const STOPS = Number(process.argv[3] ?? 40)
const { dir, remove } = tempDir('ffos-bench-plans-')
const file = join(dir, 'plans.db')
// Monday 2026-11-23, 00:05 in Jakarta: just after local midnight, as the nightly run would find it.
const clock = new ManualClock('2026-11-22T17:05:00.000Z')
const NOW = clock.now().toISOString()

async function fixture() {
  const config = loadConfig({ DATABASE_URL: `file:${file}`, LOG_LEVEL: 'silent', UPLOAD_DIR: join(dir, 'uploads'), EXPORT_DIR: join(dir, 'exports') })
  const db = await openDatabase(config)
  await db.migrate()
  await db.close()
  const raw = new Database(file)
  const run = (text: string) => raw.run(text)
  run(`INSERT INTO workspaces (name, timezone, created_at, updated_at) VALUES ('Bench', 'Asia/Jakarta', '${NOW}', '${NOW}')`)
  run(
    `INSERT INTO roles (workspace_id, name, slug, is_builtin, permissions, created_at, updated_at) VALUES (1, 'Field User', 'user', 1, '[]', '${NOW}', '${NOW}')`,
  )
  const series = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`
  // User 1 is the manager who wrote the plans; users 2 … REPS + 1 the field users.
  run(`${series(REPS + 1)} INSERT INTO users (email, name, password_hash, created_at, updated_at)
    SELECT 'user' || i || '@example.com', 'User ' || i, 'x', '${NOW}', '${NOW}' FROM n`)
  run(`INSERT INTO memberships (workspace_id, user_id, role_id, is_active, created_at, updated_at)
    SELECT 1, id, 1, 1, '${NOW}', '${NOW}' FROM users`)
  run(`INSERT INTO forms (workspace_id, title, title_key, fields, created_at, updated_at) VALUES (1, 'Shelf check', 'shelf check', '[]', '${NOW}', '${NOW}')`)
  run(`INSERT INTO projects (workspace_id, name, name_key, status, created_at, updated_at) VALUES (1, 'Audit', 'audit', 'active', '${NOW}', '${NOW}')`)
  run(`INSERT INTO project_forms (project_id, form_id, is_required, "order") VALUES (1, 1, 1, 0)`)
  run(`${series(REPS * STOPS)} INSERT INTO outlets (workspace_id, name, name_key, code, code_key, is_active, created_at, updated_at)
    SELECT 1, 'Outlet ' || i, 'outlet ' || i, 'O-' || i, 'o-' || i, 1, '${NOW}', '${NOW}' FROM n`)
  run(`${series(REPS)} INSERT INTO journey_plans (workspace_id, user_id, project_id, name, start_date, cycle_weeks, active, created_by, created_at, updated_at)
    SELECT 1, i + 1, 1, 'Route ' || i, '2026-11-23', 1, 1, 1, '${NOW}', '${NOW}' FROM n`)
  // Stop s of plan p: outlet (p − 1) × STOPS + s, on weekday (s − 1) mod 5 + 1, sequence s.
  run(`${series(REPS * STOPS)} INSERT INTO journey_plan_stops (workspace_id, plan_id, outlet_id, weekday, weeks, sequence, created_at)
    SELECT 1, (i - 1) / ${STOPS} + 1, i, ((i - 1) % ${STOPS}) % 5 + 1, 0, (i - 1) % ${STOPS} + 1, '${NOW}' FROM n`)
  raw.close()
}

async function measure(label: string, deps: Parameters<typeof generateJourneyPlanVisits>[0]) {
  let last = performance.now()
  let longest = 0
  const gaps: number[] = []
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    gaps.push(now - last)
    last = now
  }, 1)
  await Bun.sleep(100)
  longest = 0
  gaps.length = 0
  last = performance.now()
  const started = performance.now()
  const result = await generateJourneyPlanVisits(deps)
  const ms = performance.now() - started
  clearInterval(timer)
  gaps.sort((a, b) => a - b)
  const p99 = gaps[Math.floor(gaps.length * 0.99)] ?? 0
  const over = gaps.filter((gap) => gap > 50).length
  console.log(`| ${label} | ${result.plans} | ${result.created} | ${(ms / 1000).toFixed(1)} | ${longest.toFixed(1)} | ${p99.toFixed(1)} | ${over} |`)
}

try {
  await fixture()
  const config = loadConfig({ DATABASE_URL: `file:${file}`, LOG_LEVEL: 'silent', UPLOAD_DIR: join(dir, 'uploads'), EXPORT_DIR: join(dir, 'exports') })
  const db = await openDatabase(config)
  await db.migrate()
  const { deps } = await createApp({ db, config, clock })
  console.log(`journey-plan generation: ${REPS} plans × ${STOPS} stops, 7-day horizon, Bun ${Bun.version}\n`)
  console.log(`load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')} on ${navigator.hardwareConcurrency} cores\n`)
  console.log('| run | plans | visits created | s | longest event-loop gap ms | p99 gap ms | gaps > 50 ms |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
  await measure('first night (empty horizon)', deps)
  clock.advance(86_400_000)
  await measure('next night (one new day)', deps)
  await measure('same day again (skipped)', deps)
  await db.close()
} finally {
  remove()
}
