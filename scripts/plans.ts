/**
 * `bun scripts/plans.ts [visits|audit-logs|field-day ...]` — the SQL and `EXPLAIN QUERY PLAN` of every
 * statement shape of the visit lists (office and "my visits"), the audit log and the field-day report.
 *
 * A fresh migrated database (bun:sqlite) gets one workspace with an owner (super_admin), an admin, a
 * manager and a field user; then every shape of each list is requested over the app (`app.handle`):
 * every combination of the filters that change a statement (present or not, and for `flagged` and the
 * audit log's `date_to` each value that changes it), each caller variant (office / mine; own / team /
 * one workspace / none), and every order with no filter. The statements the read connection runs during
 * each request are recorded and printed once each, sorted, with their plan.
 *
 * Used to check that a change of how a list is built leaves its plans alone: run it before and after,
 * then compare the plans (`grep -v '^    sql'` on both outputs, then `diff`); the SQL text may differ
 * in spelling (parentheses, order of ANDed terms) only.
 */
import type { Database as Sqlite, Statement } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/env'
import { openDatabase } from '../src/db/client'
import { ManualClock } from '../src/lib/clock'

const dir = mkdtempSync(join(tmpdir(), 'ffos-plans-'))
const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'app.db')}`, DATABASE_DRIVER: 'bun-sqlite', LOG_LEVEL: 'silent', REGISTER_LIMIT_PER_HOUR: '0' })
const db = await openDatabase(config)
await db.migrate()

// Every statement the read connection runs is recorded into `ran` (cleared per request).
const client = (db.read as unknown as { $client: Sqlite }).$client
const explain = client.prepare.bind(client)
let ran = new Set<string>()
const record = <S extends Statement>(statement: S, text: string): S => {
  for (const method of ['all', 'get', 'values', 'run'] as const) {
    const original = statement[method].bind(statement) as (...args: unknown[]) => unknown
    Object.defineProperty(statement, method, {
      value: (...args: unknown[]) => {
        ran.add(text)
        return original(...args)
      },
    })
  }
  return statement
}
const originalPrepare = client.prepare.bind(client)
const originalQuery = client.query.bind(client)
client.prepare = ((text: string, ...rest: unknown[]) => record(originalPrepare(text, ...(rest as [])), text)) as typeof client.prepare
client.query = ((text: string) => record(originalQuery(text), text)) as typeof client.query

const { app } = await createApp({ db, config, clock: new ManualClock(new Date('2026-11-20T03:00:00Z')) })
const call = async (path: string, token?: string, body?: unknown) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const response = await app.handle(
    new Request(`http://localhost/api${path}`, { method: body ? 'POST' : 'GET', headers, body: body ? JSON.stringify(body) : undefined }),
  )
  return { status: response.status, body: (await response.json()) as { data: any } }
}

// The workspace and its callers.
const registered = await call('/auth/register', undefined, {
  name: 'Owner',
  email: 'owner@example.com',
  password: 'password123',
  workspace_name: 'Plans',
  timezone: 'Asia/Jakarta',
})
const owner = registered.body.data.token as string
const roles = Object.fromEntries((await call('/office/v1/roles', owner)).body.data.map((role: { slug: string; id: number }) => [role.slug, role.id]))
async function member(role: string) {
  const email = `${role}@example.com`
  await call('/office/v1/users', owner, { name: role, email, password: 'password123', role_id: roles[role] })
  return (await call('/auth/login', undefined, { email, password: 'password123' })).body.data.token as string
}
const callers = { owner, admin: await member('admin'), manager: await member('manager'), field: await member('user') }

/** Every combination of the choices: each filter absent, or one of its values. */
function combinations(choices: [string, string[]][]): string[][] {
  let result: string[][] = [[]]
  for (const [name, values] of choices) result = result.flatMap((set) => [set, ...values.map((value) => [...set, `${name}=${encodeURIComponent(value)}`])])
  return result
}

/** The caller's session and actor, read by every request alike: left out. */
const AUTH = /refresh_tokens|auth_epoch|"workspaces"\."timezone"/
const out: string[] = []
async function shape(label: string, path: string, token: string) {
  ran = new Set()
  const reply = await call(path, token)
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`)
  out.push(`## ${label} ${path}`)
  for (const text of [...ran].sort()) {
    if (AUTH.test(text)) continue
    const plan = explain(`EXPLAIN QUERY PLAN ${text}`).all() as { id: number; parent: number; detail: string }[]
    out.push(`    sql ${text.replace(/\s+/g, ' ')}`, ...plan.map((row) => `  ${row.parent === 0 ? '' : '  '}${row.detail}`))
  }
}

const visitFilters = (office: boolean) =>
  combinations([
    ['status', ['scheduled']],
    ['outlet_id', ['1']],
    ['project_id', ['1']],
    ...(office
      ? ([
          ['team_id', ['1']],
          ['user_id', ['1']],
        ] as [string, string[]][])
      : []),
    ['date_from', ['2026-11-01']],
    ['date_to', ['2026-11-30']],
    ['flagged', ['true', 'false']],
    ['keyword', ['Toko']],
    ['updated_since', ['2026-11-01T00:00:00Z']],
  ])
const sorts = (columns: string[]) => columns.flatMap((column) => ['asc', 'desc'].map((order) => [`sort_by=${column}`, `sort_order=${order}`]))

const parts = new Set(process.argv.slice(2).length ? process.argv.slice(2) : ['visits', 'audit-logs', 'field-day'])
if (parts.has('visits')) {
  for (const set of [...visitFilters(true), ...sorts(['visit_date', 'created_at', 'updated_at', 'id'])])
    await shape('office', `/office/v1/visits?${set.join('&')}`, owner)
  for (const set of [...visitFilters(false), ...sorts(['visit_date', 'created_at', 'updated_at', 'id'])])
    await shape('mine', `/app/v1/visits/me?${set.join('&')}`, callers.field)
}
if (parts.has('audit-logs')) {
  const filters = combinations([
    ['entity_type', ['visit']],
    ['entity_id', ['12']],
    ['action', ['created']],
    ['actor_id', ['1']],
    ['date_from', ['2026-11-01']],
    ['date_to', ['2026-11-30', '2026-11-30T10:00:00Z']],
    ['keyword', ['Toko']],
    ['updated_since', ['2026-11-01T00:00:00Z']],
  ])
  const visibilities: [string, string, string[]][] = [
    ['workspaces:1', owner, []],
    ['workspaces:0', owner, ['workspace_id=999999']],
    ['own', callers.admin, []],
    ['team', callers.manager, []],
  ]
  for (const [label, token, extra] of visibilities) {
    for (const set of [...filters, ...sorts(['created_at', 'id'])]) await shape(label, `/office/v1/audit-logs?${[...set, ...extra].join('&')}`, token)
  }
}
if (parts.has('field-day')) {
  for (const set of combinations([
    ['team_id', ['1']],
    ['user_id', ['1']],
  ]))
    await shape('field-day', `/office/v1/reports/field-day?${['date=2026-11-19', ...set].join('&')}`, owner)
}

console.log(out.join('\n'))
await db.close()
rmSync(dir, { recursive: true, force: true })
