/**
 * `npm run bench:retail-report [-- REPS DAYS PRODUCTS]` (`bun scripts/bench/retail-report.ts`) — the retail-execution report
 * (src/modules/reports/retail-execution.ts) over a month of shelf audits: REPS field users (default 50) in
 * two teams, each completing 20 audits a day for DAYS days (default 22) at 2,000 outlets, every audit a
 * product matrix of PRODUCTS rows (default 40 of a 200-product catalogue, 5 columns, every row answered).
 * Measures the report's first page (limit 100) for the whole period, one team, one day, and prints its time
 * next to a ceiling measured in the same run: the same SQL run on bun:sqlite directly, without the
 * service's parameter building, pagination and figure computation. Also the process's peak RSS.
 *
 * The fixture is built with SQL on a fresh migrated database. docs/PERFORMANCE.md "Retail-execution report"
 * records the figures.
 */
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/env'
import { openDatabase } from '../../src/db/client'
import type { AuthedContext } from '../../src/platform/context'
import { PAGE_SQL, retailExecutionReport } from '../../src/modules/reports/retail-execution'
import { tempDir } from './common'

const REPS = Number(process.argv[2] ?? 50)
const DAYS = Number(process.argv[3] ?? 22)
const PRODUCTS = Number(process.argv[4] ?? 40)
const PER_DAY = 20
const OUTLETS = 2_000
const CATALOGUE = 200
const { dir, remove } = tempDir('ffos-bench-retail-')
const file = join(dir, 'retail.db')
const NOW = '2026-11-01T00:00:00.000Z'
const dateOf = (day: number) => new Date(Date.UTC(2026, 10, 2 + day)).toISOString().slice(0, 10)

async function fixture() {
  const config = loadConfig({ DATABASE_URL: `file:${file}`, LOG_LEVEL: 'silent', UPLOAD_DIR: join(dir, 'uploads'), EXPORT_DIR: join(dir, 'exports') })
  const db = await openDatabase(config)
  await db.migrate()
  await db.close()
  const raw = new Database(file)
  const run = (text: string, ...params: (string | number)[]) => raw.run(text, params)
  run(`INSERT INTO workspaces (name, timezone, created_at, updated_at) VALUES ('Bench', 'Asia/Jakarta', '${NOW}', '${NOW}')`)
  const series = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`
  run(
    `${series(REPS)} INSERT INTO users (email, name, password_hash, created_at, updated_at) SELECT 'rep' || i || '@example.com', 'Rep ' || i, 'x', '${NOW}', '${NOW}' FROM n`,
  )
  run(
    `INSERT INTO teams (workspace_id, name, name_key, created_at, updated_at) VALUES (1, 'North', 'north', '${NOW}', '${NOW}'), (1, 'South', 'south', '${NOW}', '${NOW}')`,
  )
  run(`INSERT INTO principals (workspace_id, name, name_key, created_at, updated_at) VALUES (1, 'Principal', 'principal', '${NOW}', '${NOW}')`)
  run(`${series(CATALOGUE)} INSERT INTO products (workspace_id, name, name_key, sku, sku_key, principal_id, price, created_at, updated_at)
    SELECT 1, 'Product ' || i, 'product ' || i, printf('SKU-%04d', i), printf('sku-%04d', i), 1, 1000 + i * 10, '${NOW}', '${NOW}' FROM n`)
  run(`${series(OUTLETS)} INSERT INTO outlets (workspace_id, name, name_key, code, code_key, is_active, created_at, updated_at)
    SELECT 1, 'Outlet ' || i, 'outlet ' || i, 'O-' || i, 'o-' || i, 1, '${NOW}', '${NOW}' FROM n`)
  run(`INSERT INTO forms (workspace_id, title, title_key, fields, created_at, updated_at) VALUES (1, 'Shelf audit', 'shelf audit', '[]', '${NOW}', '${NOW}')`)
  run(`INSERT INTO projects (workspace_id, name, name_key, status, created_at, updated_at) VALUES (1, 'Audit', 'audit', 'active', '${NOW}', '${NOW}')`)
  const rows = JSON.stringify({
    shelf: Array.from({ length: PRODUCTS }, (_, i) => ({ product_id: i + 1, sku: `SKU-${String(i + 1).padStart(4, '0')}`, name: `Product ${i + 1}` })),
  })
  const visit = raw.prepare(
    `INSERT INTO visits (workspace_id, outlet_id, project_id, team_id, visit_date, status, checked_in_at, checked_out_at, created_at, updated_at)
     VALUES (1, ?, 1, ?, ?, 'completed', ?, ?, ?, ?)`,
  )
  const submission = raw.prepare(
    `INSERT INTO submissions (workspace_id, visit_id, form_id, title, status, answers, rows, submitted_at, created_at, updated_at)
     VALUES (1, ?, 1, 'Shelf audit', 'completed', ?, ?, ?, ?, ?)`,
  )
  let n = 0
  raw.transaction(() => {
    for (let day = 0; day < DAYS; day++) {
      for (let rep = 0; rep < REPS; rep++) {
        for (let k = 0; k < PER_DAY; k++) {
          n++
          const at = `${dateOf(day)}T0${k % 10}:00:00.000Z`
          const answer: Record<string, Record<string, unknown>> = {}
          for (let p = 1; p <= PRODUCTS; p++) {
            answer[p] = { available: (n + p) % 9 !== 0, facings: (n + p) % 6, shelf_price: 1000 + p * 10 + ((n * p) % 50) - 25, stock_qty: (n * p) % 30 }
          }
          const id = visit.run((n % OUTLETS) + 1, (rep % 2) + 1, dateOf(day), at, at, at, at).lastInsertRowid
          submission.run(id, JSON.stringify({ shelf: answer }), rows, at, at, at)
        }
      }
    }
  })()
  raw.close()
  return n
}

try {
  const audits = await fixture()
  const config = loadConfig({ DATABASE_URL: `file:${file}`, LOG_LEVEL: 'silent', UPLOAD_DIR: join(dir, 'uploads'), EXPORT_DIR: join(dir, 'exports') })
  const db = await openDatabase(config)
  const ctx = { actor: { workspaceId: 1 }, deps: { db } } as unknown as AuthedContext
  const ceilingDb = new Database(file, { readonly: true })
  console.log(`retail-execution report: ${audits.toLocaleString('en')} audits × ${PRODUCTS} products (${REPS} reps, ${DAYS} days), Bun ${Bun.version}`)
  console.log(`load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')} on ${navigator.hardwareConcurrency} cores\n`)
  console.log('| query | rows | service ms (median of 5) | ceiling ms | ratio |')
  console.log('| --- | ---: | ---: | ---: | ---: |')
  const cases: [string, Record<string, unknown>][] = [
    ['whole period', { date_from: dateOf(0), date_to: dateOf(DAYS - 1), limit: 100 }],
    ['whole period, one team', { date_from: dateOf(0), date_to: dateOf(DAYS - 1), team_id: 2, limit: 100 }],
    ['one day', { date_from: dateOf(3), date_to: dateOf(3), limit: 100 }],
  ]
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
  for (const [label, query] of cases) {
    const service: number[] = []
    let count = 0
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      const page = await retailExecutionReport(ctx, query as never)
      service.push(performance.now() - started)
      count = page.rows.length
    }
    const params = [1, query.date_from, query.date_to, query.team_id ?? null, query.team_id ?? null, 1, null, null, 1, null, null, 100, 0]
    // The ceiling: the report's own statement, run as it is on bun:sqlite.
    const statement = ceilingDb.prepare(PAGE_SQL)
    const ceiling: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      statement.values(...(params as never[]))
      ceiling.push(performance.now() - started)
    }
    const s = median(service)
    const c = median(ceiling)
    console.log(`| ${label} | ${count} | ${s.toFixed(0)} | ${c.toFixed(0)} | ${Math.round((c / s) * 100)}% |`)
  }
  const status = readFileSync('/proc/self/status', 'utf8')
  console.log(`\npeak RSS ${Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024)} MiB`)
  ceilingDb.close()
  await db.close()
} finally {
  remove()
}
