/**
 * Hostile input, table-driven (docs/API.md §Envelopes, §Errors): the machinery shared by the spec
 * files tests/bad-input/<module>.test.ts, one per module of src/modules. Each spec file gives the
 * valid baseline bodies of its module's POST and PUT routes (its `SPECS`) and calls
 * `badInputTests(module, { specs: SPECS })`, which registers, for the routes of that module:
 *
 * - Bodies: each field of the baseline body is mutated in turn: missing, wrong types, oversized,
 *   empty and blank strings, out-of-range numbers, SQL-ish and unusual Unicode text, ids that do not
 *   exist or belong to another workspace. Unknown fields (`workspace_id`, `id`, `created_at`, …) must
 *   change nothing. The CSV visit import (text/csv) has CSV cases instead (`csv`).
 * - Query strings of every GET list route (the few GET routes that are not lists are named in
 *   NOT_LISTS with what holds for them), and the `:id` of every route that has one, one path
 *   parameter at a time. A route that requires an X-Idempotency-Key (`keyRequired`: it would answer
 *   400 IDEMPOTENCY_KEY_REQUIRED first) is sent a new key with each bad id, so that the id is judged.
 * - State-changing routes (check-in, approve, cancel, …) get a target in the right state from
 *   `fresh`, made again only after an accepted request used it up.
 *
 * Every rejection must be the error envelope with a 4xx (400 VALIDATION_ERROR naming the field as a
 * dot path unless the contract names another answer), never a 5xx, and must leave every table as it
 * was. Every acceptance of a text value must store it as sent (after trimming) and read it back equal.
 *
 * Routes come from the app (ROUTES), never from a list here; a route belongs to the module its path
 * names (`moduleOf`), and every module with routes must have its spec file (checked in each file).
 *
 * What is sampled, and why it still catches what it is meant to catch. The cost of the matrix is in
 * the requests that are *accepted* (a write, a read-back, a fresh target, the next "nothing
 * changed" baseline, a password hash); a refused request costs about a millisecond. So:
 * - Every mutation that must be refused — `missing` of a required field, every wrong type, every
 *   value one past its limit or out of range, every malformed or unusable id (categories missing,
 *   invalid, notFound) — runs on every field of every route. A validation hole is per route and per
 *   field, and nothing else would find it.
 * - Except the megabyte values (`HEAVY`: the 1 MB string, the 5 MiB photo), whose cost is their size:
 *   each route sends each of them in one field, a different one on each route of the module where it
 *   can (`heavyFields`). A field's limit is proven by its "one past the limit" case; the megabyte case
 *   proves that the route refuses a huge body cleanly (no 5xx, nothing stored), which one field shows.
 * - Mutations that must or may be accepted (categories valid, maybe, safe, and `missing` of an
 *   optional field) are shared out between the routes of a module whose field of the same name takes
 *   that mutation with the same expected outcome (a create and its update, the two visit listings):
 *   the mutation at position i of the field's list runs on the (i mod n)-th of those n routes
 *   (`sampledOut`). So every kind of mutation still reaches every field of at least one route of the
 *   module, and a field or outcome no other route shares runs all of them. What is no longer run is
 *   the same well-formed value sent through a sibling route as well; the refused mutations, which
 *   find a field left without validation, still run on every route.
 * - Unknown fields: every route sends all of EXTRAS at once (each must be ignored, so together they
 *   must be too, and a taken one is named by the check); each key is also sent alone on one route of
 *   the module (key i on route i mod n), so that a key refused only in company is still seen.
 * - Query strings, path ids, path words and CSV cases run in full (nearly all refused, so cheap).
 *
 * The "nothing changed" check costs one query while nothing was written: temporary triggers count the
 * committed writes of every table (`installWriteCounters`); a table is dumped only when its count
 * moved since its last dump, and compared row for row only when a refused request moved it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { IDEMPOTENCY_REQUIRED } from '../../src/platform/data/idempotency'
import { createTestApp, expectError, SETUP_TIMEOUT_MS, unique, type Reply, type TestApp, type Workspace } from '../harness'

// ---------------------------------------------------------------------------------------------
// The route catalogue, read from a throwaway app while tests are collected, so that every route
// the app serves gets its tests without anyone listing it here.
// ---------------------------------------------------------------------------------------------

export interface QuerySchema {
  type?: string
  format?: string
  maxLength?: number
  const?: unknown
  anyOf?: QuerySchema[]
  properties?: Record<string, QuerySchema>
}

export interface CatalogueRoute {
  method: string
  path: string
  query?: QuerySchema
  success: number
  /** The route refuses a request without an X-Idempotency-Key (400 IDEMPOTENCY_KEY_REQUIRED): a sales order. */
  keyRequired: boolean
}

export const ROUTES: CatalogueRoute[] = await (async () => {
  const catalogue = await createTestApp()
  try {
    return catalogue.app.routes
      .filter((route) => !route.path.startsWith('/api/docs'))
      .map((route) => {
        const hooks = route.hooks as { query?: QuerySchema; response?: Record<string, unknown>; detail?: Record<string, unknown> }
        const success = Object.keys(hooks.response ?? {})
          .map(Number)
          .filter((status) => status >= 200 && status < 300)
        return {
          method: route.method,
          path: route.path,
          query: hooks.query,
          success: success.length ? Math.min(...success) : 200,
          keyRequired: hooks.detail?.[IDEMPOTENCY_REQUIRED] === true,
        }
      })
  } finally {
    await catalogue.close()
  }
})()

/** Path segments that are not their module's folder name in src/modules. */
const SEGMENT_MODULES: Record<string, string> = {
  'outlet-visits': 'visits',
  'day-routes': 'journey-plans',
  principals: 'catalogue',
  products: 'catalogue',
  holidays: 'journey-plans',
  attendances: 'attendance',
  export: 'exports',
  changes: 'sync',
  permissions: 'roles',
  metrics: 'health',
  ws: 'notifications',
}
const MASTER_DATA = /^\/api\/office\/v1\/outlets\/(channel-groups|channels|accounts|sub-areas)(\/|$)/
/** Sales orders, and the order taken at a visit (`/api/app/v1/visits/:id/sales-orders`), are the orders module's. */
const ORDERS = /^\/api\/(office|app)\/v1\/(sales-orders(\/|$)|visits\/:id\/sales-orders$)/

/** The module of src/modules a route belongs to, from its path (`/api/office/v1/users/:id` → users). */
export function moduleOf(path: string): string {
  if (MASTER_DATA.test(path)) return 'master-data'
  if (ORDERS.test(path)) return 'orders'
  const segment = /^\/(?:api\/)?(?:(?:office|app)\/v1\/)?([^/]+)/.exec(path)?.[1] ?? path
  return SEGMENT_MODULES[segment] ?? segment
}

/** The app of the spec file being run (each spec file has its own database). */
export const t = {} as { app: TestApp }
export const BODY_METHODS = new Set(['POST', 'PUT'])
/** `/api/office/v1/users/:id` → `/office/v1/users/:id` (harness paths are relative to /api). */
export const short = (path: string) => path.replace(/^\/api/, '')

// ---------------------------------------------------------------------------------------------
// Shared state: a foreign workspace whose ids must never be usable from another one.
// ---------------------------------------------------------------------------------------------

export let other: Workspace
/** The caller of the path-parameter tests: the file's first workspace after `other`. */
let pathCaller: Workspace
export const foreign = {
  channel_group_id: 0,
  channel_id: 0,
  account_id: 0,
  sub_area_id: 0,
  outlet_id: 0,
  outlet_code: '',
  project_id: 0,
  project_code: '',
  form_id: 0,
  team_id: 0,
  team_name: '',
  user_id: 0,
  user_email: '',
  visit_id: 0,
  submission_id: 0,
  principal_id: 0,
  principal_code: '',
  product_id: 0,
  product_sku: '',
}
export const INJECTED_ID = 987_654_321
export const INJECTED_TIME = '2000-01-01T00:00:00.000Z'
export const BUILTIN_SLUGS = ['super_admin', 'admin', 'manager', 'user']

/**
 * Every table, with the column it is ordered by. Reference tables of tens of thousands of rows that
 * no request writes (the regional areas) are compared by a digest (first and last id: two index
 * lookups) instead of row for row, and the append-only audit log by size.
 */
export let TABLES: { name: string; order: string; digest: 'rows' | 'ends' | 'size' }[] = []
export const REFERENCE_TABLE = /^regional_/

/**
 * The spec file's app, with the write counters installed; with `foreignRows`, also the other
 * workspace and its rows (for "an id of another workspace"), which only body mutations need.
 */
function useBadInputApp(options: { foreignRows: boolean }) {
  beforeAll(async () => {
    t.app = await createTestApp()
    lastSnapshot = null
    if (options.foreignRows) {
      other = await t.app.workspace()
      foreign.channel_group_id = await createGroup(other.owner.token)
      foreign.channel_id = await createChannel(other.owner.token, foreign.channel_group_id)
      await createForeignFixtures()
    }
    pathCaller = await t.app.workspace()
    const names = await t.app.db.pragma(
      "SELECT name, sql LIKE 'CREATE VIRTUAL TABLE%' AS virtual FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
    )
    const indexes = names.filter((row) => Number(row.virtual) === 1).map((row) => String(row.name))
    TABLES = []
    INDEX_TABLES.clear()
    for (const { name, virtual } of names) {
      // A full-text index is read through its shadow tables (`<index>_data`, …): the virtual table
      // itself would be a full scan.
      if (Number(virtual) === 1) continue
      const columns = await t.app.db.pragma(`PRAGMA table_info(${String(name)})`)
      const pk = columns.find((column) => Number(column.pk) === 1)?.name ?? 'rowid'
      const isIndex = indexes.some((index) => String(name).startsWith(`${index}_`))
      if (isIndex) INDEX_TABLES.add(String(name))
      const digest = name === 'audit_logs' || isIndex ? 'size' : REFERENCE_TABLE.test(String(name)) ? 'ends' : 'rows'
      TABLES.push({ name: String(name), order: String(pk), digest })
    }
    await installWriteCounters()
  }, SETUP_TIMEOUT_MS)
  afterAll(async () => {
    await t.app?.close()
  })
}
// ---------------------------------------------------------------------------------------------
// Factories (through the API, as the harness does).
// ---------------------------------------------------------------------------------------------

export function createdData(reply: Reply, what: string) {
  if (reply.status !== 201) throw new Error(`creating ${what} failed: ${reply.status} ${reply.text}`)
  return reply.body.data
}

export async function createGroup(token: string, name = unique('Group')): Promise<number> {
  return createdData(await t.app.post('/office/v1/outlets/channel-groups', { name }, { token }), 'a channel group').id
}

export async function createChannel(token: string, groupId?: number): Promise<number> {
  const channel_group_id = groupId ?? (await createGroup(token))
  return createdData(await t.app.post('/office/v1/outlets/channels', { name: unique('Channel'), channel_group_id }, { token }), 'a channel').id
}

export async function deleted(segment: string, id: number, token: string) {
  const reply = await t.app.delete(`/office/v1/${segment}/${id}`, { token })
  if (reply.status !== 200) throw new Error(`deleting ${segment} ${id} failed: ${reply.status} ${reply.text}`)
  return id
}

/** A fresh, unused refresh token of the workspace owner (switch-workspace mints one without hashing). */
export async function mintRefreshToken(rc: RouteCtx): Promise<string> {
  const reply = await t.app.post('/auth/switch-workspace', { workspace_id: rc.ws.id }, { token: rc.token })
  if (reply.status !== 200) throw new Error(`switch-workspace failed: ${reply.status} ${reply.text}`)
  return reply.body.data.refresh_token
}

/** A fresh password-reset token for the workspace owner, taken from the outbox. */
export async function mintResetToken(rc: RouteCtx): Promise<string> {
  const email = rc.ws.owner.user.email
  const reply = await t.app.post('/auth/forgot-password', { email })
  if (reply.status !== 200) throw new Error(`forgot-password failed: ${reply.status} ${reply.text}`)
  const [mail] = await t.app.db.pragma(`SELECT body FROM outbox WHERE to_address = '${email}' ORDER BY id DESC LIMIT 1`)
  const token = /reset-password: (\S+)/.exec(String(mail?.body))?.[1]
  if (!token) throw new Error('no reset token in the outbox')
  return token
}

// ---------------------------------------------------------------------------------------------
// "Nothing changed": every table row for row, the regional tables by their ends, the audit log by size.
// ---------------------------------------------------------------------------------------------

/**
 * Temporary triggers on the app's writer connection (the only one that writes) count every row
 * inserted, updated or deleted, per table, in a temporary table. The counts live in the same
 * transaction as the write, so a rolled-back write (a refused request inside a transaction or a
 * savepoint) leaves them as they were: a count that stands still means the table was not changed.
 */
async function installWriteCounters() {
  await t.app.db.pragma('CREATE TEMP TABLE IF NOT EXISTS bad_input_writes (name TEXT PRIMARY KEY, n INTEGER NOT NULL)')
  for (const { name } of TABLES) {
    if (INDEX_TABLES.has(name)) continue
    await t.app.db.pragma(`INSERT OR IGNORE INTO temp.bad_input_writes (name, n) VALUES ('${name}', 0)`)
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await t.app.db.pragma(
        `CREATE TEMP TRIGGER IF NOT EXISTS "bad_input_${name}_${event}" AFTER ${event} ON main."${name}" ` +
          `BEGIN UPDATE temp.bad_input_writes SET n = n + 1 WHERE name = '${name}'; END`,
      )
    }
  }
  writeCountsQuery = [
    'SELECT name, n FROM temp.bad_input_writes',
    ...TABLES.filter(({ name }) => INDEX_TABLES.has(name)).map(
      ({ name, order }) => `SELECT '${name}' AS name, (SELECT count(*) || ':' || coalesce(max(${order}), '') FROM ${name}) AS n`,
    ),
  ].join(' UNION ALL ')
}

/**
 * The shadow tables of the full-text indexes: SQLite allows no trigger on them, so their "count" is
 * their size (row count and largest key), read with the counts. The app never writes an index
 * itself; the triggers of the counted base tables keep them in step.
 */
const INDEX_TABLES = new Set<string>()

/** The write count of every table, and the size of every index table, in one query. */
let writeCountsQuery = ''

export async function writeCounts(): Promise<Record<string, number | string>> {
  const rows = await t.app.db.pragma(writeCountsQuery)
  return Object.fromEntries(rows.map((row) => [String(row.name), row.n as number | string]))
}

export interface Snapshot {
  tables: Record<string, Record<string, unknown>[]>
  /** The write count of each table when its rows were taken. */
  counts: Record<string, number | string>
}

async function dump(table: (typeof TABLES)[number]) {
  const { name, order, digest } = table
  if (digest === 'ends') return t.app.db.pragma(`SELECT min(${order}) AS first, max(${order}) AS last FROM ${name}`)
  if (digest === 'size') return t.app.db.pragma(`SELECT count(*) AS n, coalesce(max(${order}), 0) AS max_id FROM ${name}`)
  return t.app.db.pragma(`SELECT * FROM ${name} ORDER BY ${order}`)
}

let lastSnapshot: Snapshot | null = null

/** Every table's rows; only the tables written since the last snapshot are read again. */
export async function snapshot(): Promise<Snapshot> {
  const counts = await writeCounts()
  const tables: Snapshot['tables'] = {}
  for (const table of TABLES) {
    const kept = lastSnapshot?.counts[table.name] === counts[table.name] ? lastSnapshot.tables[table.name] : undefined
    tables[table.name] = kept ?? (await dump(table))
  }
  const taken = { tables, counts }
  // Only if nothing was written while the tables were being read (a background job, say).
  if (JSON.stringify(await writeCounts()) === JSON.stringify(counts)) lastSnapshot = taken
  return taken
}

/** Tables whose write count moved since the snapshot. */
async function written(before: Snapshot) {
  const counts = await writeCounts()
  return TABLES.filter(({ name }) => counts[name] !== before.counts[name])
}

export async function expectUnchanged(before: Snapshot) {
  for (const table of await written(before)) {
    const rows = await dump(table)
    if (JSON.stringify(rows) !== JSON.stringify(before.tables[table.name])) {
      expect({ table: table.name, rows }).toEqual({ table: table.name, rows: before.tables[table.name] })
    }
  }
}

/** Rows that are new or changed since the snapshot (every new audit entry). */
export async function changedRows(before: Snapshot) {
  const moved = new Set((await written(before)).map(({ name }) => name))
  const after = await snapshot()
  const changed: { table: string; row: Record<string, unknown> }[] = []
  for (const { name, digest } of TABLES) {
    if (!moved.has(name) || digest !== 'rows') continue
    const seen = new Set(before.tables[name].map((row) => JSON.stringify(row)))
    for (const row of after.tables[name]) if (!seen.has(JSON.stringify(row))) changed.push({ table: name, row })
  }
  const [audit] = before.tables.audit_logs
  for (const row of await t.app.db.pragma(`SELECT * FROM audit_logs WHERE id > ${Number(audit.max_id)} ORDER BY id`)) changed.push({ table: 'audit_logs', row })
  return changed
}

// ---------------------------------------------------------------------------------------------
// Answers.
// ---------------------------------------------------------------------------------------------

export function expectNo5xx(reply: Reply) {
  if (reply.status >= 500) throw new Error(`server error ${reply.status}: ${reply.text.slice(0, 500)}`)
}

/** `{success:false, message, code, errors:{…}}`, and no stack trace or SQL leaking out. */
export function expectErrorEnvelope(reply: Reply) {
  expectNo5xx(reply)
  expect(reply.status).toBeGreaterThanOrEqual(400)
  expect(reply.body).not.toBeNull()
  expect(reply.body.success).toBe(false)
  expect(typeof reply.body.message).toBe('string')
  expect(typeof reply.body.code).toBe('string')
  expect(reply.body.errors !== null && typeof reply.body.errors === 'object' && !Array.isArray(reply.body.errors)).toBe(true)
  expect(reply.text).not.toMatch(/SQLITE_|\.ts:\d+|\n\s+at /)
}

/** 400 VALIDATION_ERROR naming `path`; every other key it names belongs to `owner` (the mutated field). */
export function expectInvalid(reply: Reply, path: string, owner = path) {
  expectErrorEnvelope(reply)
  const errors = expectError(reply, 400, 'VALIDATION_ERROR')
  const messages = errors[path]
  if (!Array.isArray(messages) || messages.length === 0 || !messages.every((m) => typeof m === 'string' && m.length > 0)) {
    throw new Error(`expected errors[${JSON.stringify(path)}] to be a list of messages, got ${JSON.stringify(errors)}`)
  }
  const strangers = Object.keys(errors).filter((key) => key !== path && key !== owner && !key.startsWith(`${owner}.`))
  expect(strangers).toEqual([])
}

// ---------------------------------------------------------------------------------------------
// Mutations.
// ---------------------------------------------------------------------------------------------

export const MISSING = Symbol('missing')
export const MB = 'x'.repeat(1024 * 1024)
export const SQLISH = ["'; DROP TABLE users; --", '1 OR 1=1', '%', '_']
export const UNICODE: [string, string][] = [
  ['emoji', '🚀 Toko 👩🏽‍💻'],
  ['right-to-left text', 'متجر \u202Eabc\u202C'],
  ['combining characters', 'Cafe\u0301 Z\u0335\u0321a'],
  ['a NUL character', 'nul\u0000byte'],
]
/** The same, usable as the local part of an email address (no spaces). */
export const UNICODE_LOCAL: [string, string][] = [
  ['emoji', '🚀toko'],
  ['right-to-left text', 'متجر\u202Eabc'],
  ['combining characters', 'cafe\u0301'],
  ['a NUL character', 'nul\u0000byte'],
]
export const LONE_SURROGATE = 'half \ud800 pair'

/**
 * missing   absent from the body (400 when the field is required, else accepted)
 * invalid   400 VALIDATION_ERROR naming the field (or `field.path`)
 * valid     well-formed: the field's `onValid` outcome (default: accepted and stored)
 * maybe     unusual but well-formed: accepted and stored as sent, or a 400 naming the field
 * safe      anything but a 5xx (and an error envelope when refused)
 * notFound  a well-formed id that is not usable here: the field's `notFound` outcome (default 400)
 */
export type Category = 'missing' | 'invalid' | 'valid' | 'maybe' | 'safe' | 'notFound'

export interface Mutation {
  label: string
  category: Category
  value: (base: unknown, rc: RouteCtx) => unknown
  /** What reading the field back must give (default: the value sent). */
  stored?: (sent: any) => unknown
  /** Error path below the field (`0.key` → `permissions.0.key`). */
  path?: string
  /** The value still denotes the baseline's (e.g. the same email in upper case): always accepted. */
  same?: boolean
  /** An outcome the category cannot express (a 409, an error keyed on another field, …). */
  outcome?: Expect
}

export const mutation = (label: string, category: Category, value: unknown, extra: Partial<Mutation> = {}): Mutation => ({
  label,
  category,
  value: typeof value === 'function' ? (value as Mutation['value']) : () => value,
  ...extra,
})

export const missing = mutation('missing', 'missing', MISSING)

/** Wrong JSON types for a field whose right type is `right`. */
export function wrongTypes(right: 'string' | 'integer' | 'boolean' | 'array' | 'object'): Mutation[] {
  const all: [string, Mutation][] = [
    ['null', mutation('null', 'invalid', null)],
    ['number', mutation('number 42', 'invalid', 42)],
    ['string', mutation('string "abc"', 'invalid', 'abc')],
    ['boolean', mutation('boolean true', 'invalid', true)],
    ['array', mutation('array', 'invalid', ['x'])],
    ['object', mutation('object', 'invalid', { value: 'x' })],
  ]
  const skip = { string: 'string', integer: 'number', boolean: 'boolean', array: 'array', object: 'object' }[right]
  return all.filter(([kind]) => kind !== skip).map(([, m]) => m)
}

export const sqlAndUnicode = (sqlCategory: (s: string) => Category, unicodeCategory: Category): Mutation[] => [
  ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, sqlCategory(s), s)),
  ...UNICODE.map(([label, s]) => mutation(`unicode: ${label}`, unicodeCategory, s)),
  mutation('unicode: a lone surrogate', 'safe', LONE_SURROGATE),
]

export const trimmed = (sent: string) => sent.trim()

/** A required, trimmed text (names): docs/API.md §Errors "empty after trimming counts as missing". */
export function requiredText(max: number): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation(`${max + 1} characters (limit ${max})`, 'invalid', 'n'.repeat(max + 1)),
    mutation(`exactly ${max} characters`, 'valid', () => unique('Max').padEnd(max, 'n')),
    mutation('1 MB string', 'invalid', MB),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only', 'invalid', ' \t\n '),
    mutation('surrounded by spaces', 'valid', () => `  ${unique('Padded')}  `, { stored: trimmed }),
    ...sqlAndUnicode(() => 'valid', 'maybe'),
  ]
}

/** An optional, trimmed text (phone): empty or blank is stored as null. */
export function optionalText(max: number): Mutation[] {
  return [
    missing,
    mutation('null', 'valid', null),
    ...wrongTypes('string').filter((m) => m.label !== 'null'),
    mutation(`${max + 1} characters (limit ${max})`, 'invalid', '1'.repeat(max + 1)),
    mutation(`exactly ${max} characters`, 'valid', '1'.repeat(max)),
    mutation('1 MB string', 'invalid', MB),
    mutation('empty string', 'valid', '', { stored: () => null }),
    mutation('whitespace only', 'valid', ' \t ', { stored: () => null }),
    mutation('surrounded by spaces', 'valid', '  +62 812 555  ', { stored: trimmed }),
    ...sqlAndUnicode(() => 'valid', 'maybe'),
  ]
}

export const mailbox = (local: string) => `${local}@example.com`
export const lowerTrimmed = (sent: string) => sent.trim().toLowerCase()

/** An email address: trimmed and stored lower-case, at most 254 characters. */
export function email(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('not an email address', 'invalid', 'not-an-email'),
    mutation('two @ signs', 'invalid', 'a@b@example.com'),
    mutation('255 characters (limit 254)', 'invalid', mailbox('a'.repeat(243))),
    mutation('exactly 254 characters', 'valid', () => mailbox(unique('max').padEnd(242, 'a')), { stored: lowerTrimmed }),
    mutation('1 MB string', 'invalid', mailbox(MB)),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only', 'invalid', '   '),
    mutation('its own address in upper case, surrounded by spaces', 'valid', (base: unknown) => `  ${String(base).toUpperCase()}  `, {
      stored: lowerTrimmed,
      same: true,
    }),
    ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, 'invalid', s)),
    mutation(`SQL-ish but well-formed "o'brien'--…@example.com"`, 'valid', () => mailbox(`o'brien'--${unique()}`), { stored: lowerTrimmed }),
    ...UNICODE_LOCAL.map(([label, s]) => mutation(`unicode: ${label}`, 'maybe', () => mailbox(`${s}${unique()}`), { stored: lowerTrimmed })),
    mutation('unicode: a lone surrogate', 'safe', () => mailbox(`half\ud800${unique()}`)),
  ]
}

/** A password being set: 8 to 128 characters. */
export function newPassword(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('7 characters (minimum 8)', 'invalid', 'abc1234'),
    mutation('129 characters (limit 128)', 'invalid', 'p'.repeat(129)),
    mutation('exactly 128 characters', 'valid', 'p'.repeat(128)),
    mutation('1 MB string', 'invalid', MB),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only (8 spaces)', 'invalid', ' '.repeat(8)),
    ...sqlAndUnicode((s) => (s.length >= 8 ? 'valid' : 'invalid'), 'maybe'),
  ]
}

/** A password being tried at login: any string of 1 to 1024 characters. */
export function loginPassword(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only', 'invalid', '   '),
    mutation('1025 characters (limit 1024)', 'invalid', 'p'.repeat(1025)),
    mutation('exactly 1024 characters', 'valid', 'p'.repeat(1024)),
    mutation('1 MB string', 'invalid', MB),
    ...sqlAndUnicode(() => 'valid', 'maybe'),
  ]
}

/** An opaque token (refresh or reset): 1 to 512 characters. */
export function opaqueToken(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only', 'invalid', '   '),
    mutation('513 characters (limit 512)', 'invalid', 't'.repeat(513)),
    mutation('exactly 512 characters', 'valid', 't'.repeat(512)),
    mutation('1 MB string', 'invalid', MB),
    ...sqlAndUnicode(() => 'valid', 'maybe'),
  ]
}

/** A JSON integer id of a parent row (≥ 1, a safe integer; text such as "5" is refused). */
export function parentId(options: { foreign: (rc: RouteCtx) => number; deleted?: (rc: RouteCtx) => number }): Mutation[] {
  const list = [
    missing,
    mutation('null', 'invalid', null),
    mutation('its own id as a string ("5")', 'invalid', (base: unknown) => String(base)),
    mutation('string "abc"', 'invalid', 'abc'),
    mutation('float 1.5', 'invalid', 1.5),
    mutation('boolean true', 'invalid', true),
    mutation('array', 'invalid', (base: unknown) => [base]),
    mutation('object', 'invalid', (base: unknown) => ({ id: base })),
    mutation('zero', 'invalid', 0),
    mutation('negative -1', 'invalid', -1),
    mutation('-(2^53)', 'invalid', -(2 ** 53)),
    mutation('huge 1e308', 'invalid', 1e308),
    mutation('2^53 (beyond the safe integers)', 'invalid', 2 ** 53),
    mutation('2^53-1 (no such row)', 'notFound', Number.MAX_SAFE_INTEGER),
    mutation('99999999 (no such row)', 'notFound', 99_999_999),
    mutation('an id of another workspace', 'notFound', (_: unknown, rc: RouteCtx) => options.foreign(rc)),
  ]
  if (options.deleted) list.push(mutation('a soft-deleted row', 'notFound', (_: unknown, rc: RouteCtx) => options.deleted!(rc)))
  return list
}

export const GRANT = { key: 'channel.view', platform: 'web', access: 'view' }

/** A role's permission list: `[{key, platform, access}]`, at most 200. */
export function grants(): Mutation[] {
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single grant object instead of a list', 'invalid', GRANT),
    mutation('empty list', 'valid', []),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('a string item', 'invalid', ['channel.view'], { path: '0' }),
    mutation('an unknown permission key', 'invalid', [{ ...GRANT, key: 'no.such.permission' }], { path: '0.key' }),
    mutation('an SQL-ish permission key', 'invalid', [{ ...GRANT, key: "'; DROP TABLE roles; --" }], { path: '0.key' }),
    mutation('the reserved key workspace.manage', 'invalid', [{ key: 'workspace.manage', platform: 'web', access: 'full' }], { path: '0.key' }),
    mutation('a key over 100 characters', 'invalid', [{ ...GRANT, key: 'k'.repeat(101) }], { path: '0.key' }),
    mutation('a grant without key', 'invalid', [{ platform: 'web', access: 'view' }], { path: '0.key' }),
    mutation('a numeric key', 'invalid', [{ ...GRANT, key: 42 }], { path: '0.key' }),
    mutation('platform "desktop"', 'invalid', [{ ...GRANT, platform: 'desktop' }], { path: '0.platform' }),
    mutation('access "admin"', 'invalid', [{ ...GRANT, access: 'admin' }], { path: '0.access' }),
    mutation('a numeric access in the second item', 'invalid', [GRANT, { ...GRANT, key: 'account.view', access: 1 }], { path: '1.access' }),
    mutation(
      '201 items (limit 200)',
      'invalid',
      Array.from({ length: 201 }, () => GRANT),
    ),
    mutation('an item with an unknown extra field', 'valid', [{ ...GRANT, colour: 'red' }], { stored: () => [GRANT] }),
    mutation('duplicates, which collapse to the widest access', 'valid', [GRANT, { ...GRANT, access: 'full' }], {
      stored: () => [{ ...GRANT, access: 'full' }],
    }),
  ]
}

/** A JSON boolean (text such as "true" is refused). */
export function flag(): Mutation[] {
  return [
    missing,
    mutation('null', 'invalid', null),
    mutation('string "true"', 'invalid', 'true'),
    mutation('string "false"', 'invalid', 'false'),
    mutation('number 1', 'invalid', 1),
    mutation('number 0', 'invalid', 0),
    mutation('array', 'invalid', [true]),
    mutation('object', 'invalid', {}),
  ]
}

// ---------------------------------------------------------------------------------------------
// Expected outcomes.
// ---------------------------------------------------------------------------------------------

export type Expect =
  | { type: 'ok'; stored?: unknown; checkStored: boolean }
  | { type: 'invalid'; path: string }
  | { type: 'error'; statuses: number[]; codes: string[]; path?: string }
  | { type: 'either'; options: Expect[] }
  | { type: 'no5xx' }

export const invalid = (path: string): Expect => ({ type: 'invalid', path })
export const failsWith = (statuses: number[], codes: string[], path?: string): Expect => ({ type: 'error', statuses, codes, path })
/** A wrong password or unknown email: 401, or 429 once the failed-login limit is reached. */
export const BAD_LOGIN = failsWith([401, 429], ['INVALID_CREDENTIALS', 'RATE_LIMITED'])

export function describeExpect(e: Expect): string {
  switch (e.type) {
    case 'ok':
      return e.checkStored ? 'accepted and read back as stored' : 'accepted'
    case 'invalid':
      return `400 VALIDATION_ERROR (errors.${e.path})`
    case 'error':
      return `${e.statuses.join('|')} ${e.codes.join('|')}${e.path ? ` (errors.${e.path})` : ''}`
    case 'either':
      return e.options.map(describeExpect).join(' or ')
    case 'no5xx':
      return 'never a 5xx'
  }
}

// ---------------------------------------------------------------------------------------------
// The table of JSON-body routes: a valid baseline body for each, and how each field is mutated.
// ---------------------------------------------------------------------------------------------

export interface RouteCtx {
  ws: Workspace
  token: string
  [key: string]: any
}

export interface Baseline {
  path: string
  body: Record<string, unknown>
  token?: string
  /** Request headers the route needs (the location batch and a sales order require an X-Idempotency-Key, unique per request). */
  headers?: Record<string, string>
}

export interface FieldSpec {
  mutations: Mutation[]
  /** Absent → 400 (create bodies); otherwise absent is accepted unless the body is left empty. */
  required: boolean
  /** Outcome for a well-formed value other than the baseline's (default: accepted and stored). */
  onValid?: Expect
  /** Outcome for a well-formed id that cannot be used (default: 400 naming the field). */
  notFound?: Expect
  /** Outcome when the field is left out, where neither "required" nor "optional" says it (LOCATION_REQUIRED, …). */
  onMissing?: Expect
}

export interface RouteSpec {
  family: string
  /** Parents, targets and users the baseline needs, created once per route in its own workspace. */
  setup?: (rc: RouteCtx) => Promise<void>
  /** A valid request; `field` is the field about to be mutated. */
  baseline: (rc: RouteCtx, field?: string) => Promise<Baseline>
  fields: Record<string, FieldSpec>
  /** What is stored for the body's fields after a success (password: the hash). */
  readBack?: (rc: RouteCtx, reply: Reply) => Promise<Record<string, unknown>>
  /** The answer's data in the body's terms, where it names things differently (default: `data` as is). */
  answered?: (rc: RouteCtx, reply: Reply) => Record<string, unknown>
  /** Undo an accepted request where a later one could collide with it. */
  cleanup?: (rc: RouteCtx, reply: Reply) => Promise<void>
}

// Outlets, forms, projects, teams and visits: fixtures ----------------------------------------

export const VISIT_DATE = '2026-11-22'
export const SITE = { latitude: -6.2, longitude: 106.8 }
export const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
export const PNG_DATA_URI = `data:image/png;base64,${PNG_1PX}`
export const GIF_DATA_URI = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
export const base64 = (text: string) => Buffer.from(text).toString('base64')
export const TEXT_DATA_URI = `data:image/png;base64,${base64('just some text, not an image at all')}`
export const SVG_DATA_URI = `data:image/svg+xml;base64,${base64('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')}`
export let oversizedPng: string | undefined
/** A PNG header followed by zeros: 5 MiB + 1 KiB decoded (the limit is 5 MiB). Built once, on first use. */
export const OVERSIZED_PNG = () =>
  (oversizedPng ??= `data:image/png;base64,${Buffer.concat([Buffer.from(PNG_1PX, 'base64'), Buffer.alloc(5 * 1024 * 1024 + 1024)]).toString('base64')}`)

/** The form filled on the visits under test. */
export const VISIT_FORM_FIELDS = [
  { key: 'facings', label: 'Facings', type: 'integer', required: true, min: 0 },
  { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'], required: true },
  { key: 'photo', label: 'Shelf photo', type: 'photo' },
  { key: 'where', label: 'Where', type: 'location' },
  { key: 'remark', label: 'Remark', type: 'text' },
]
export const GOOD_ANSWERS = { facings: 4, brand: 'A' }

export async function post201(path: string, body: unknown, token: string, what: string) {
  return createdData(await t.app.post(path, body, { token }), what)
}

export function okData(reply: Reply, what: string) {
  if (reply.status !== 200) throw new Error(`${what} failed: ${reply.status} ${reply.text.slice(0, 500)}`)
  return reply.body.data
}

export async function newUser(token: string, roleId: number): Promise<number> {
  const body = { name: unique('User'), email: mailbox(unique('user')), password: 'password123', role_id: roleId }
  return (await post201('/office/v1/users', body, token, 'a user')).id
}

export async function newForm(token: string): Promise<number> {
  return (await post201('/office/v1/forms', { title: unique('Form'), fields: VISIT_FORM_FIELDS }, token, 'a form')).id
}

export async function newOutlet(token: string, extra: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
  return post201('/office/v1/outlets', { name: unique('Outlet'), code: unique('OUT'), ...SITE, ...extra }, token, 'an outlet')
}

export async function newProject(token: string, formId: number, extra: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
  const body = { name: unique('Project'), code: unique('PRJ'), forms: [{ form_id: formId, is_required: false }], ...extra }
  return post201('/office/v1/projects', body, token, 'a project')
}

export async function newTeam(token: string): Promise<{ id: number; name: string }> {
  return post201('/office/v1/teams', { name: unique('Team') }, token, 'a team')
}

export async function newAccount(token: string): Promise<number> {
  return (await post201('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: await createChannel(token) }, token, 'an account')).id
}

export async function newSubArea(token: string): Promise<number> {
  return (await post201('/office/v1/outlets/sub-areas', { name: unique('SubArea') }, token, 'a sub-area')).id
}

/** Rows of the foreign workspace, for "an id of another workspace". */
export async function createForeignFixtures() {
  const token = other.owner.token
  foreign.account_id = (await post201('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: foreign.channel_id }, token, 'an account')).id
  foreign.sub_area_id = await newSubArea(token)
  foreign.form_id = await newForm(token)
  const outlet = await newOutlet(token)
  const project = await newProject(token, foreign.form_id)
  const team = await newTeam(token)
  Object.assign(foreign, { outlet_id: outlet.id, outlet_code: outlet.code, project_id: project.id, project_code: project.code })
  Object.assign(foreign, { team_id: team.id, team_name: team.name, user_id: other.owner.user.id, user_email: other.owner.user.email })
  const visit = await post201('/office/v1/visits', { outlet_id: outlet.id, project_id: project.id, visit_date: VISIT_DATE }, token, 'a visit')
  foreign.visit_id = visit.id
  foreign.submission_id = visit.submissions[0].id
  const principal = await post201('/office/v1/principals', { name: unique('Principal'), code: unique('PRN') }, token, 'a principal')
  const product = await post201('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), principal_id: principal.id }, token, 'a product')
  Object.assign(foreign, { principal_id: principal.id, principal_code: principal.code, product_id: product.id, product_sku: product.sku })
}

/** What the visit routes of a workspace need: a form, a project using it, an outlet, a team and a field user. */
export async function visitKit(rc: RouteCtx) {
  rc.form = await newForm(rc.token)
  const project = await newProject(rc.token, rc.form)
  const outlet = await newOutlet(rc.token)
  const team = await newTeam(rc.token)
  Object.assign(rc, { project: project.id, projectCode: project.code, outlet: outlet.id, outletCode: outlet.code, team: team.id, teamName: team.name })
  rc.field = await t.app.member(rc.ws, 'user')
}

/** Parents a visit cannot use: soft-deleted ones, an inactive outlet, a draft project. */
export async function unusableParents(rc: RouteCtx) {
  const gone = await newOutlet(rc.token)
  rc.deletedOutlet = await deleted('outlets', gone.id, rc.token)
  rc.deletedOutletCode = gone.code
  rc.inactiveOutlet = (await newOutlet(rc.token, { is_active: false })).id
  rc.deletedProject = await deleted('projects', (await newProject(rc.token, rc.form)).id, rc.token)
  rc.draftProject = (await newProject(rc.token, rc.form, { status: 'draft' })).id
  rc.deletedTeam = await deleted('teams', (await newTeam(rc.token)).id, rc.token)
}

export const deletedFormOf = async (rc: RouteCtx) => {
  rc.deletedForm = await deleted('forms', await newForm(rc.token), rc.token)
}
export const deletedUserOf = async (rc: RouteCtx) => {
  rc.deletedUser = await deleted('users', await newUser(rc.token, rc.ws.roles.user), rc.token)
}

/** A scheduled visit assigned to the route's field user, with no forms unless told. */
export async function planVisit(rc: RouteCtx, extra: Record<string, unknown> = {}) {
  const body = { outlet_id: rc.outlet, project_id: rc.project, visit_date: VISIT_DATE, user_ids: [rc.field.user.id], submissions: [], ...extra }
  return post201('/office/v1/visits', body, rc.token, 'a visit')
}

/** A visit the field user has checked in to (in progress). */
export async function startedVisit(rc: RouteCtx, extra: Record<string, unknown> = {}) {
  const visit = await planVisit(rc, extra)
  okData(await t.app.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: rc.field.token }), 'check-in')
  return visit
}

/** A completed visit whose one submission is completed and awaits approval. */
export async function submittedForm(rc: RouteCtx): Promise<{ visit: number; submission: number }> {
  const visit = await startedVisit(rc, { submissions: [{ form_id: rc.form, is_required: true }] })
  const submission = visit.submissions[0].id
  const items = [{ submission_id: submission, status: 'completed', answers: GOOD_ANSWERS }]
  okData(await t.app.post(`/app/v1/visits/${visit.id}/submit-form-v2`, { form_id: rc.form, items }, { token: rc.field.token }), 'submit-form-v2')
  okData(await t.app.post(`/app/v1/visits/${visit.id}/check-out`, SITE, { token: rc.field.token }), 'check-out')
  return { visit: visit.id, submission }
}

/**
 * A target in the state the route changes (a scheduled visit to check in, a submission to approve):
 * made on first use and again only after an accepted request used it up (`usedUp` as cleanup), so a
 * route creates one visit per accepted request and none per refused one.
 */
export async function fresh<T>(rc: RouteCtx, make: (rc: RouteCtx) => Promise<T>): Promise<T> {
  rc.fresh ??= await make(rc)
  return rc.fresh as T
}
export const usedUp = async (rc: RouteCtx) => {
  rc.fresh = undefined
}

export const sortedIds = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b)

export async function visitDetail(rc: RouteCtx, id: number) {
  return okData(await t.app.get(`/office/v1/visits/${id}`, { token: rc.token }), 'reading the visit')
}

/** A visit detail in the terms of the create body. */
export function visitInBodyTerms(visit: any): Record<string, unknown> {
  return {
    outlet_id: visit.outlet.id,
    project_id: visit.project.id,
    visit_date: visit.visit_date,
    team_id: visit.team?.id ?? null,
    user_ids: sortedIds(visit.assignees.map((a: { user_id: number }) => a.user_id)),
    submissions: visit.submissions.map(({ form_id, is_required, order }: any) => ({ form_id, is_required, order })),
    notes: visit.notes,
  }
}

/** A create item as it must be stored (submissions given explicitly). */
export const plannedAs = (item: Record<string, any>) => ({
  outlet_id: item.outlet_id,
  project_id: item.project_id,
  visit_date: item.visit_date,
  team_id: item.team_id ?? null,
  user_ids: sortedIds(item.user_ids ?? []),
  submissions: (item.submissions ?? []).map((f: any, i: number) => ({ form_id: f.form_id, is_required: f.is_required, order: f.order ?? i })),
  notes: item.notes ?? null,
})

export const FILE_URL = /^\/api\/files\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A stored photo as the body names it: a file URL is downloaded and shown by its type. */
export async function photoBack(rc: RouteCtx, url: string | null): Promise<string | null> {
  if (url === null || !url.startsWith('/api/files/')) return url
  if (!FILE_URL.test(url)) return `malformed file URL ${url}`
  const file = await t.app.get(url.replace(/^\/api/, ''), { token: rc.token })
  return file.status === 200 ? `file ${file.headers.get('content-type')}` : `unreadable file ${url}: ${file.status}`
}

export const answersBack = (answers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(answers).map(([key, value]) => [key, typeof value === 'string' && FILE_URL.test(value) ? 'file' : value]))

export async function submissionOf(rc: RouteCtx, visitId: number, id: number) {
  return okData(await t.app.get(`/office/v1/visits/${visitId}/submissions/${id}`, { token: rc.token }), 'reading the submission')
}

// Mutations of the new fields ----------------------------------------------------------------

/** `null` is a value of its own (it clears an optional reference), not a wrong type. */
export const nullable = (list: Mutation[]) => list.map((m) => (m.label === 'null' ? mutation('null', 'valid', null) : m))

/** A JSON number within ±limit (latitude 90, longitude 180); `onNull` where null has a meaning of its own. */
export function coordinate(limit: number, onNull: Expect): Mutation[] {
  return [
    missing,
    mutation('null', 'invalid', null, { outcome: onNull }),
    mutation('string "12.5"', 'invalid', '12.5'),
    mutation('boolean true', 'invalid', true),
    mutation('array', 'invalid', [1]),
    mutation('object', 'invalid', { value: 1 }),
    mutation(`${limit + 0.5} (above ${limit})`, 'invalid', limit + 0.5),
    mutation(`-${limit + 0.5} (below -${limit})`, 'invalid', -(limit + 0.5)),
    mutation('1e308', 'invalid', 1e308),
    mutation(`exactly ${limit}`, 'valid', limit),
    mutation(`exactly -${limit}`, 'valid', -limit),
    mutation('zero', 'valid', 0),
    mutation('many decimals', 'valid', 12.3456789),
  ]
}

/** A regional area id (docs/API.md §Regional lookup: the code as an integer). Whether an unknown area is refused is not fixed. */
export function regionalId(): Mutation[] {
  return [
    missing,
    mutation('null', 'valid', null),
    mutation('its own id as a string', 'invalid', (base: unknown) => String(base)),
    mutation('float 1.5', 'invalid', 1.5),
    mutation('zero', 'invalid', 0),
    mutation('negative -1', 'invalid', -1),
    mutation('2^53 (beyond the safe integers)', 'invalid', 2 ** 53),
    mutation('boolean true', 'invalid', true),
    mutation('99999999 (no such area)', 'maybe', 99_999_999),
  ]
}

/** A `YYYY-MM-DD` calendar date (docs/API.md §Other areas): impossible days are refused. */
export function calendarDate(options: { nullable: boolean; valid: string[] }): Mutation[] {
  return [
    missing,
    mutation('null', options.nullable ? 'valid' : 'invalid', null),
    mutation('number 20260101', 'invalid', 20260101),
    mutation('boolean true', 'invalid', true),
    mutation('array', 'invalid', ['2026-01-01']),
    mutation('empty string', 'invalid', ''),
    mutation('"junk"', 'invalid', 'junk'),
    mutation('2026-02-30 (no such day)', 'invalid', '2026-02-30'),
    mutation('2027-02-29 (not a leap year)', 'invalid', '2027-02-29'),
    mutation('2026-04-31 (no such day)', 'invalid', '2026-04-31'),
    mutation('2026-13-01 (no such month)', 'invalid', '2026-13-01'),
    mutation('2026-00-10 (month zero)', 'invalid', '2026-00-10'),
    mutation('2026-1-5 (not zero-padded)', 'invalid', '2026-1-5'),
    mutation('a timestamp', 'invalid', '2026-01-01T00:00:00Z'),
    mutation('23/11/2026', 'invalid', '23/11/2026'),
    mutation('SQL-ish', 'invalid', "2026-01-01' OR 1=1 --"),
    ...options.valid.map((date) => mutation(`${date} (a real day)`, 'valid', date)),
  ]
}

/** One of a fixed set of strings. */
export function oneOf(values: readonly string[]): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('"junk"', 'invalid', 'junk'),
    mutation('in upper case', 'invalid', values[0].toUpperCase()),
    mutation('empty string', 'invalid', ''),
    mutation('SQL-ish', 'invalid', `${values[0]}' OR '1'='1`),
    ...values.map((value) => mutation(`"${value}"`, 'valid', value)),
  ]
}

export const flagValues = () => [...flag(), mutation('true', 'valid', true), mutation('false', 'valid', false)]

/** An optional code, unique per workspace (case-insensitive) but free across workspaces. */
export function uniqueCode(conflict: string, taken: (rc: RouteCtx) => string, foreignCode: () => string): Mutation[] {
  return [
    ...optionalText(64),
    mutation('the code of another row, in lower case', 'invalid', (_: unknown, rc: RouteCtx) => taken(rc).toLowerCase(), {
      outcome: failsWith([409], [conflict], 'code'),
    }),
    mutation('the code of a row in another workspace', 'valid', () => foreignCode()),
  ]
}

/** A list of ids of parent rows (assignees, members, visits). */
export function idList(o: {
  max: number
  min?: number
  item: (rc: RouteCtx) => number
  second: (rc: RouteCtx) => number
  foreign: (rc: RouteCtx) => number
  deleted?: (rc: RouteCtx) => number
}): Mutation[] {
  const list = [
    missing,
    ...wrongTypes('array'),
    mutation('a single id instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => o.item(rc)),
    mutation('empty list', o.min ? 'invalid' : 'valid', []),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('an id as a string', 'invalid', (_: unknown, rc: RouteCtx) => [String(o.item(rc))], { path: '0' }),
    mutation('[0]', 'invalid', [0], { path: '0' }),
    mutation('[-1]', 'invalid', [-1], { path: '0' }),
    mutation('[1.5]', 'invalid', [1.5], { path: '0' }),
    mutation('[2^53]', 'invalid', [2 ** 53], { path: '0' }),
    mutation('a good id, then text', 'invalid', (_: unknown, rc: RouteCtx) => [o.item(rc), 'x'], { path: '1' }),
    mutation('the same id twice', 'valid', (_: unknown, rc: RouteCtx) => [o.item(rc), o.item(rc)], { stored: sortedIds }),
    mutation('two ids', 'valid', (_: unknown, rc: RouteCtx) => [o.second(rc), o.item(rc)], { stored: sortedIds }),
    mutation('[99999999] (no such row)', 'notFound', [99_999_999]),
    mutation('a good id and one of another workspace', 'notFound', (_: unknown, rc: RouteCtx) => [o.item(rc), o.foreign(rc)]),
    mutation(`${o.max + 1} items (limit ${o.max})`, 'invalid', (_: unknown, rc: RouteCtx) => Array.from({ length: o.max + 1 }, () => o.item(rc))),
  ]
  if (o.deleted) list.push(mutation('a soft-deleted row', 'notFound', (_: unknown, rc: RouteCtx) => [o.deleted!(rc)]))
  return list
}

/** `[{form_id, is_required, order?}]` of a project or a visit; errors are keyed `<field>.N.form_id`. */
export function formRefs(field: string, max: number): Mutation[] {
  type Ref = { form_id: number; is_required: boolean; order?: number }
  const stored = (sent: Ref[]) =>
    sent.map((f, i) => ({ form_id: f.form_id, is_required: f.is_required, order: f.order ?? i })).sort((a, b) => a.order - b.order || a.form_id - b.form_id)
  const ref = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({ form_id: rc.form, is_required: true, ...extra })
  const unusable = (label: string, formId: (rc: RouteCtx) => number) =>
    mutation(label, 'notFound', (_: unknown, rc: RouteCtx) => [{ form_id: formId(rc), is_required: true }], { outcome: invalid(`${field}.0.form_id`) })
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single item instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => ref(rc)),
    mutation('empty list', 'valid', []),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('an item without form_id', 'invalid', [{ is_required: true }], { path: '0.form_id' }),
    mutation('form_id as a string', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc, { form_id: String(rc.form) })], { path: '0.form_id' }),
    mutation('form_id 0', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc, { form_id: 0 })], { path: '0.form_id' }),
    mutation('an item without is_required', 'invalid', (_: unknown, rc: RouteCtx) => [{ form_id: rc.form }], { path: '0.is_required' }),
    mutation('is_required "true"', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc, { is_required: 'true' })], { path: '0.is_required' }),
    mutation('order -1', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc, { order: -1 })], { path: '0.order' }),
    mutation('order 1.5', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc, { order: 1.5 })], { path: '0.order' }),
    mutation('order 10001 (limit 10000)', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc, { order: 10_001 })], { path: '0.order' }),
    unusable('a form that does not exist', () => 99_999_999),
    unusable('a form of another workspace', () => foreign.form_id),
    unusable('a soft-deleted form', (rc) => rc.deletedForm),
    mutation('the same form twice', 'invalid', (_: unknown, rc: RouteCtx) => [ref(rc), ref(rc, { is_required: false })], {
      outcome: invalid(`${field}.1.form_id`),
    }),
    mutation(`${max + 1} items (limit ${max})`, 'invalid', (_: unknown, rc: RouteCtx) => Array.from({ length: max + 1 }, () => ref(rc))),
    mutation(
      'two forms in a given order',
      'valid',
      (_: unknown, rc: RouteCtx) => [ref(rc, { order: 2 }), { form_id: rc.form2, is_required: false, order: 1 }],
      {
        stored,
      },
    ),
    mutation('two forms without order', 'valid', (_: unknown, rc: RouteCtx) => [ref(rc), { form_id: rc.form2, is_required: false }], { stored }),
  ]
}

/** A photo: a JPEG/PNG/WebP data URI or base64 (≤ 5 MiB, the bytes decide), or an https URL (docs/API.md §Visits). */
export function photo(): Mutation[] {
  const file = () => 'file image/png'
  return [
    missing,
    mutation('null', 'valid', null),
    mutation('empty string', 'valid', '', { stored: () => null }),
    mutation('number 42', 'invalid', 42),
    mutation('boolean true', 'invalid', true),
    mutation('array', 'invalid', [PNG_DATA_URI]),
    mutation('object', 'invalid', { data: PNG_1PX }),
    mutation('a PNG data URI', 'valid', PNG_DATA_URI, { stored: file }),
    mutation('bare base64 of a PNG', 'valid', PNG_1PX, { stored: file }),
    mutation('a PNG that claims to be image/jpeg (the bytes decide)', 'valid', `data:image/jpeg;base64,${PNG_1PX}`, { stored: file }),
    mutation('an https URL', 'valid', 'https://cdn.example.com/shelf.jpg'),
    mutation('an http URL', 'invalid', 'http://cdn.example.com/shelf.jpg'),
    mutation('a javascript: URL', 'invalid', 'javascript:alert(1)'),
    mutation('text bytes in an image data URI', 'invalid', TEXT_DATA_URI),
    mutation('a GIF', 'invalid', GIF_DATA_URI),
    mutation('an SVG with a script', 'invalid', SVG_DATA_URI),
    mutation('not base64', 'invalid', 'data:image/png;base64,@@@not base64@@@'),
    mutation('5 MiB + 1 KiB decoded (limit 5 MiB)', 'invalid', () => OVERSIZED_PNG()),
    ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, 'invalid', s)),
  ]
}

export const FIELD = { key: 'facings', label: 'Facings', type: 'integer', required: true }
export const SELECT_FIELD = { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'] }
export const EVERY_TYPE = [
  'text',
  'textarea',
  'number',
  'integer',
  'select',
  'multiselect',
  'checkbox',
  'date',
  'time',
  'photo',
  'signature',
  'location',
  'rating',
].map((type) => ({ key: `f_${type}`, label: `A ${type}`, type, ...(type.includes('select') ? { options: ['x', 'y'] } : {}) }))

/** A form's fields as they must be stored: labels and options trimmed, `required` false unless given. */
export const storedFields = (sent: Record<string, any>[]) =>
  sent.map(({ key, label, type, required, options, min, max, visible_if }) => ({
    key,
    label: label.trim(),
    type,
    required: required ?? false,
    ...(options ? { options: options.map((o: string) => o.trim()) } : {}),
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
    ...(visible_if !== undefined ? { visible_if } : {}),
  }))

/** `fields` of a form (docs/API.md §Other areas); errors are keyed `fields.N.<property>`. */
export function formFields(): Mutation[] {
  const one = (extra: Record<string, unknown>) => [{ ...FIELD, ...extra }]
  const choice = (extra: Record<string, unknown>) => [{ ...SELECT_FIELD, ...extra }]
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single field instead of a list', 'invalid', FIELD),
    mutation('empty list', 'invalid', []),
    mutation(
      '201 fields (limit 200)',
      'invalid',
      Array.from({ length: 201 }, (_, i) => ({ ...FIELD, key: `f${i}` })),
    ),
    mutation(
      'exactly 200 fields',
      'valid',
      Array.from({ length: 200 }, (_, i) => ({ ...FIELD, key: `f${i}` })),
      { stored: storedFields },
    ),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('a field without key', 'invalid', [{ label: 'X', type: 'text' }], { path: '0.key' }),
    mutation('a key with spaces and capitals', 'invalid', one({ key: 'Bad Key' }), { path: '0.key' }),
    mutation('an SQL-ish key', 'invalid', one({ key: "x'; DROP TABLE forms; --" }), { path: '0.key' }),
    mutation('a key of 65 characters', 'invalid', one({ key: 'k'.repeat(65) }), { path: '0.key' }),
    mutation('a key of 64 characters', 'valid', one({ key: 'k'.repeat(64) }), { stored: storedFields }),
    mutation('two fields with the same key', 'invalid', [FIELD, { ...SELECT_FIELD, key: FIELD.key }], { path: '1.key' }),
    mutation('a field without label', 'invalid', [{ key: 'x', type: 'text' }], { path: '0.label' }),
    mutation('a blank label', 'invalid', one({ label: '  \t ' }), { path: '0.label' }),
    mutation('a label of 256 characters', 'invalid', one({ label: 'l'.repeat(256) }), { path: '0.label' }),
    mutation('a field without type', 'invalid', [{ key: 'x', label: 'X' }], { path: '0.type' }),
    mutation('type "video"', 'invalid', one({ type: 'video' }), { path: '0.type' }),
    mutation('type "TEXT" (case matters)', 'invalid', one({ type: 'TEXT' }), { path: '0.type' }),
    mutation('required "yes"', 'invalid', one({ required: 'yes' }), { path: '0.required' }),
    mutation('a select without options', 'invalid', [{ key: 'b', label: 'B', type: 'select' }], { path: '0.options' }),
    mutation('a multiselect with no options', 'invalid', [{ key: 'b', label: 'B', type: 'multiselect', options: [] }], { path: '0.options' }),
    mutation('repeated options', 'invalid', choice({ options: ['A', 'A'] }), { path: '0.options' }),
    mutation('a blank option', 'invalid', choice({ options: ['A', '  '] }), { path: '0.options.1' }),
    mutation('options that are not text', 'invalid', choice({ options: [1, 2] }), { path: '0.options.0' }),
    mutation('options on a text field', 'invalid', [{ key: 't', label: 'T', type: 'text', options: ['A'] }], { path: '0.options' }),
    mutation('201 options (limit 200)', 'invalid', choice({ options: Array.from({ length: 201 }, (_, i) => `o${i}`) }), { path: '0.options' }),
    mutation('min above max', 'invalid', one({ min: 5, max: 1 }), { path: '0.max' }),
    mutation('min as text', 'invalid', one({ min: '1' }), { path: '0.min' }),
    mutation('a rating out of 11', 'invalid', [{ key: 'r', label: 'R', type: 'rating', max: 11 }], { path: '0.max' }),
    mutation('one field of every type', 'valid', EVERY_TYPE, { stored: storedFields }),
    mutation('a label and options surrounded by spaces', 'valid', choice({ label: '  Brand  ', options: ['  A ', 'B'] }), { stored: storedFields }),
    mutation('a field with an unknown extra property', 'valid', one({ colour: 'red' }), { stored: storedFields }),
    mutation('SQL-ish and unicode labels and options', 'valid', choice({ label: "'; DROP TABLE forms; --", options: ['🚀', "1' OR '1'='1"] }), {
      stored: storedFields,
    }),
  ]
}

/** `items` of submit-form-v2 (docs/API.md §Visits); errors are keyed `items.N.<property>` and `items.N.answers.<key>`. */
export function submitItems(): Mutation[] {
  type Item = Record<string, unknown>
  const item = (extra: Item = {}): Item => ({ submission_id: null, status: 'completed', answers: GOOD_ANSWERS, ...extra })
  const answering = (answers: Item) => [item({ answers: { ...GOOD_ANSWERS, ...answers } })]
  const saved =
    (...items: Item[]) =>
    () =>
      items
  const at = (path: string) => ({ path })
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single item instead of a list', 'invalid', item()),
    mutation('empty list', 'invalid', []),
    mutation(
      '51 items (limit 50)',
      'invalid',
      Array.from({ length: 51 }, () => item()),
    ),
    mutation('[null]', 'invalid', [null], at('0')),
    mutation('an item without status', 'invalid', [{ submission_id: null, answers: GOOD_ANSWERS }], at('0.status')),
    mutation('status "submitted"', 'invalid', [item({ status: 'submitted' })], at('0.status')),
    mutation('status null', 'invalid', [item({ status: null })], at('0.status')),
    mutation('an item without submission_id', 'invalid', [{ status: 'completed', answers: GOOD_ANSWERS }], at('0.submission_id')),
    mutation('submission_id as a string', 'invalid', (_: unknown, rc: RouteCtx) => [item({ submission_id: String(rc.draftable) })], at('0.submission_id')),
    mutation('submission_id 0', 'invalid', [item({ submission_id: 0 })], at('0.submission_id')),
    mutation('a submission that does not exist', 'invalid', [item({ submission_id: 99_999_999 })], at('0.submission_id')),
    mutation('a submission of another visit', 'invalid', (_: unknown, rc: RouteCtx) => [item({ submission_id: rc.elsewhere })], at('0.submission_id')),
    mutation('a submission of another workspace', 'invalid', () => [item({ submission_id: foreign.submission_id })], at('0.submission_id')),
    mutation('a submission of another form', 'invalid', (_: unknown, rc: RouteCtx) => [item({ submission_id: rc.form2Submission })], at('0.submission_id')),
    mutation('an item without answers', 'invalid', [{ submission_id: null, status: 'completed' }], at('0.answers')),
    mutation('answers as a list', 'invalid', [item({ answers: [4, 'A'] })], at('0.answers')),
    mutation('answers as text', 'invalid', [item({ answers: 'facings=4' })], at('0.answers')),
    mutation(
      '501 answers (limit 500)',
      'invalid',
      [item({ answers: Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`k${i}`, 1])) })],
      at('0.answers'),
    ),
    mutation('completed without a required answer', 'invalid', [item({ answers: { brand: 'A' } })], at('0.answers.facings')),
    mutation('an integer answer as text', 'invalid', answering({ facings: '4' }), at('0.answers.facings')),
    mutation('an integer answer 1.5', 'invalid', answering({ facings: 1.5 }), at('0.answers.facings')),
    mutation('an integer answer below its minimum', 'invalid', answering({ facings: -1 }), at('0.answers.facings')),
    mutation('an option the field does not have', 'invalid', answering({ brand: 'C' }), at('0.answers.brand')),
    mutation('a photo answer that is not an image', 'invalid', answering({ photo: TEXT_DATA_URI }), at('0.answers.photo')),
    mutation('a photo answer over http', 'invalid', answering({ photo: 'http://cdn.example.com/x.jpg' }), at('0.answers.photo')),
    mutation('a location answer out of range', 'invalid', answering({ where: '999,1' }), at('0.answers.where')),
    mutation('a location answer that is not a pair', 'invalid', answering({ where: 'Jakarta' }), at('0.answers.where')),
    mutation('a text answer of 5001 characters', 'invalid', answering({ remark: 'r'.repeat(5001) }), at('0.answers.remark')),
    mutation('a bad second item', 'invalid', [item(), item({ answers: { ...GOOD_ANSWERS, brand: 'C' } })], at('1.answers.brand')),
    mutation('a draft without the required answers', 'valid', [item({ status: 'draft', answers: { remark: 'later' } })], {
      stored: saved({ status: 'draft', answers: { remark: 'later' } }),
    }),
    mutation(
      'an existing submission saved as draft',
      'valid',
      (_: unknown, rc: RouteCtx) => [item({ submission_id: rc.draftable, status: 'draft', answers: { facings: 2 } })],
      {
        stored: saved({ status: 'draft', answers: { facings: 2 } }),
      },
    ),
    mutation('every kind of answer', 'valid', answering({ photo: PNG_DATA_URI, where: { latitude: 1.5, longitude: 2.5 }, remark: '  top shelf  ' }), {
      stored: saved({ status: 'completed', answers: { ...GOOD_ANSWERS, photo: 'file', where: '1.5,2.5', remark: 'top shelf' } }),
    }),
    mutation('a photo answer as an https URL', 'valid', answering({ photo: 'https://cdn.example.com/shelf.jpg' }), {
      stored: saved({ status: 'completed', answers: { ...GOOD_ANSWERS, photo: 'https://cdn.example.com/shelf.jpg' } }),
    }),
    mutation('an answer the form does not ask (dropped)', 'valid', answering({ colour: 'red' }), {
      stored: saved({ status: 'completed', answers: GOOD_ANSWERS }),
    }),
    mutation('two new items', 'valid', [item(), item({ status: 'draft', answers: { brand: 'B' } })], {
      stored: saved({ status: 'completed', answers: GOOD_ANSWERS }, { status: 'draft', answers: { brand: 'B' } }),
    }),
    ...SQLISH.map((s) =>
      mutation(`an SQL-ish text answer ${JSON.stringify(s)}`, 'valid', answering({ remark: s }), {
        stored: saved({ status: 'completed', answers: { ...GOOD_ANSWERS, remark: s } }),
      }),
    ),
    ...UNICODE.map(([label, s]) =>
      mutation(`a text answer in unicode: ${label}`, 'maybe', answering({ remark: s }), {
        stored: saved({ status: 'completed', answers: { ...GOOD_ANSWERS, remark: s } }),
        path: '0.answers.remark',
      }),
    ),
  ]
}

/** `answers` of the legacy submit-form: errors name `answers.<key>`, as the body does. */
export function legacyAnswers(): Mutation[] {
  const answering = (answers: Record<string, unknown>) => ({ ...GOOD_ANSWERS, ...answers })
  return [
    missing,
    ...wrongTypes('object'),
    mutation('empty (the required answers missing)', 'invalid', {}, { path: 'facings' }),
    mutation('an integer answer as text', 'invalid', answering({ facings: '4' }), { path: 'facings' }),
    mutation('an integer answer below its minimum', 'invalid', answering({ facings: -1 }), { path: 'facings' }),
    mutation('an option the field does not have', 'invalid', answering({ brand: 'C' }), { path: 'brand' }),
    mutation('a photo answer that is not an image', 'invalid', answering({ photo: TEXT_DATA_URI }), { path: 'photo' }),
    mutation('a location answer out of range', 'invalid', answering({ where: '1,999' }), { path: 'where' }),
    mutation('501 answers (limit 500)', 'invalid', Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`k${i}`, 1]))),
    mutation('every kind of answer', 'valid', answering({ photo: PNG_DATA_URI, where: '1.5, 2.5', remark: '  top shelf ' }), {
      stored: () => ({ ...GOOD_ANSWERS, photo: 'file', where: '1.5,2.5', remark: 'top shelf' }),
    }),
    mutation('an answer the form does not ask (dropped)', 'valid', answering({ colour: 'red' }), { stored: () => GOOD_ANSWERS }),
    ...SQLISH.map((s) => mutation(`an SQL-ish text answer ${JSON.stringify(s)}`, 'valid', answering({ remark: s }))),
  ]
}

export const locationRequired = (field: string) => failsWith([400], ['LOCATION_REQUIRED'], field)

/** Check-in and check-out bodies: a missing or null coordinate is 400 LOCATION_REQUIRED (docs/API.md §Errors). */
export const siteFields = (photoField: string): Record<string, FieldSpec> => ({
  latitude: { mutations: coordinate(90, locationRequired('latitude')), required: true, onMissing: locationRequired('latitude') },
  longitude: { mutations: coordinate(180, locationRequired('longitude')), required: true, onMissing: locationRequired('longitude') },
  [photoField]: { mutations: photo(), required: false },
  notes: { mutations: optionalText(1000), required: false },
})

// Running one mutation.
// ---------------------------------------------------------------------------------------------

export function resolve(fieldSpec: FieldSpec, m: Mutation, field: string, body: Record<string, unknown>, sent: unknown): Expect {
  const preview = sent === undefined || sent === MISSING
  const accepted: Expect = { type: 'ok', stored: m.stored && !preview ? m.stored(sent) : sent, checkStored: true }
  const onValid = m.same ? accepted : (fieldSpec.onValid ?? accepted)
  if (m.outcome) return m.outcome
  switch (m.category) {
    case 'missing':
      if (fieldSpec.onMissing) return fieldSpec.onMissing
      if (fieldSpec.required) return invalid(field)
      if (Object.keys(body).length === 0) return invalid('body') // an update with nothing left to change
      return { type: 'ok', checkStored: false }
    case 'invalid':
      return invalid(m.path ? `${field}.${m.path}` : field)
    case 'valid':
      return onValid
    case 'maybe':
      return { type: 'either', options: [onValid, invalid(m.path ? `${field}.${m.path}` : field)] }
    case 'safe':
      return { type: 'no5xx' }
    case 'notFound':
      return fieldSpec.notFound ?? invalid(field)
  }
}

export interface Attempt {
  route: CatalogueRoute
  spec: RouteSpec
  rc: RouteCtx
  field: string
  before: Snapshot
}

/** Fields whose read-back is a password hash: the value sent must verify against it. */
export const HASHED = new Set(['password', 'new_password'])

export async function expectStored(field: string, actual: unknown, expected: unknown) {
  if (HASHED.has(field)) {
    expect({ field, verifies: await Bun.password.verify(String(expected), String(actual)) }).toEqual({ field, verifies: true })
  } else {
    expect({ field, stored: actual }).toEqual({ field, stored: expected })
  }
}

export async function check(reply: Reply, expectation: Expect, attempt: Attempt): Promise<void> {
  expectNo5xx(reply)
  switch (expectation.type) {
    case 'ok': {
      if (reply.status !== attempt.route.success) throw new Error(`expected ${attempt.route.success}, got ${reply.status} ${reply.text.slice(0, 500)}`)
      expect(reply.body.success).toBe(true)
      if (expectation.checkStored && attempt.spec.readBack) {
        const stored = await attempt.spec.readBack(attempt.rc, reply)
        if (attempt.field in stored) await expectStored(attempt.field, stored[attempt.field], expectation.stored)
        const answered = attempt.spec.answered ? attempt.spec.answered(attempt.rc, reply) : reply.body.data
        if (!HASHED.has(attempt.field) && answered && typeof answered === 'object' && attempt.field in answered) {
          await expectStored(attempt.field, answered[attempt.field], expectation.stored)
        }
      }
      return
    }
    case 'invalid':
      expectInvalid(reply, expectation.path, attempt.field)
      await expectUnchanged(attempt.before)
      return
    case 'error':
      expectErrorEnvelope(reply)
      if (!expectation.statuses.includes(reply.status) || !expectation.codes.includes(reply.body.code)) {
        throw new Error(`expected ${describeExpect(expectation)}, got ${reply.status} ${reply.text.slice(0, 500)}`)
      }
      if (expectation.path !== undefined) {
        const messages = reply.body.errors[expectation.path]
        if (!Array.isArray(messages) || messages.length === 0) {
          throw new Error(`expected errors[${JSON.stringify(expectation.path)}], got ${JSON.stringify(reply.body.errors)}`)
        }
      }
      await expectUnchanged(attempt.before)
      return
    case 'either': {
      const problems: string[] = []
      for (const option of expectation.options) {
        try {
          await check(reply, option, attempt)
          return
        } catch (error) {
          problems.push(`${describeExpect(option)}: ${(error as Error).message}`)
        }
      }
      throw new Error(`none of the allowed outcomes:\n${problems.join('\n')}`)
    }
    case 'no5xx':
      if (reply.status >= 400) {
        expectErrorEnvelope(reply)
        await expectUnchanged(attempt.before)
      }
      return
  }
}

export async function runMutation(route: CatalogueRoute, spec: RouteSpec, rc: RouteCtx, field: string, fieldSpec: FieldSpec, m: Mutation) {
  const baseline = await spec.baseline(rc, field)
  const body = { ...baseline.body }
  const sent = m.value(baseline.body[field], rc)
  if (sent === MISSING) delete body[field]
  else body[field] = sent
  const expectation = resolve(fieldSpec, m, field, body, sent)
  const before = await snapshot()
  const reply = await t.app.request(route.method, baseline.path, { body, token: baseline.token, headers: baseline.headers })
  try {
    await check(reply, expectation, { route, spec, rc, field, before })
  } finally {
    // Also after a wrong acceptance: the next test must not inherit a used-up target.
    if (reply.status >= 200 && reply.status < 300) await spec.cleanup?.(rc, reply)
  }
}

// ---------------------------------------------------------------------------------------------
// Unknown fields: accepted, and never stored.
// ---------------------------------------------------------------------------------------------

export const EXTRAS: [string, () => unknown][] = [
  ['workspace_id', () => other.id],
  ['id', () => INJECTED_ID],
  ['created_at', () => INJECTED_TIME],
  ['updated_at', () => INJECTED_TIME],
  ['deleted_at', () => INJECTED_TIME],
  ['is_builtin', () => true],
  ['__proto__', () => ({ polluted: 'yes', workspace_id: other.id, id: INJECTED_ID, is_builtin: true })],
  ['constructor', () => ({ prototype: { polluted: 'yes' } })],
]

export function walk(value: unknown, visit: (key: string, value: unknown) => void) {
  if (Array.isArray(value)) for (const item of value) walk(item, visit)
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      visit(key, inner)
      walk(inner, visit)
    }
  }
}

/** Problems in an answer or row that show an injected value was taken. */
export function injectedValues(value: unknown, where: string): string[] {
  const problems: string[] = []
  walk(value, (key, inner) => {
    if (key === 'polluted') problems.push(`${where}: has "polluted"`)
    if (key === 'workspace_id' && inner === other.id) problems.push(`${where}: workspace_id is the other workspace`)
    if (key === 'id' && inner === INJECTED_ID) problems.push(`${where}: id is the injected one`)
    if (inner === INJECTED_TIME) problems.push(`${where}: ${key} is the injected timestamp`)
  })
  return problems
}

/** Sends the baseline body with the unknown fields `extras` added: accepted, and none of them taken. */
export async function runExtra(route: CatalogueRoute, spec: RouteSpec, rc: RouteCtx, extras: [string, unknown][]) {
  const baseline = await spec.baseline(rc)
  const body = { ...baseline.body }
  for (const [key, value] of extras) {
    // defineProperty: a plain assignment of `__proto__` would set the prototype instead of sending the key.
    Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true })
    expect(JSON.stringify(body)).toContain(`"${key}":`)
  }
  const before = await snapshot()
  const reply = await t.app.request(route.method, baseline.path, { body, token: baseline.token, headers: baseline.headers })
  try {
    expectNo5xx(reply)
    if (reply.status !== route.success) throw new Error(`expected ${route.success}, got ${reply.status} ${reply.text.slice(0, 500)}`)

    const problems = injectedValues(reply.body, 'answer')
    walk(reply.body, (k, v) => {
      if (k === 'is_builtin' && v === true) problems.push('answer: is_builtin is true')
    })
    for (const { table, row } of await changedRows(before)) {
      const where = `${table} row ${String(row.id ?? row.key)}`
      const parsed = Object.fromEntries(
        Object.entries(row).map(([column, cell]) => {
          if (typeof cell !== 'string' || !/^[[{]/.test(cell)) return [column, cell]
          try {
            return [column, JSON.parse(cell)]
          } catch {
            return [column, cell]
          }
        }),
      )
      problems.push(...injectedValues(parsed, where))
      if (table === 'workspaces' && row.id === other.id) problems.push(`${where}: the other workspace was changed`)
      if (table === 'roles' && row.is_builtin && !BUILTIN_SLUGS.includes(String(row.slug))) problems.push(`${where}: a custom role became built-in`)
    }
    expect(problems).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false)
  } finally {
    if (reply.status >= 200 && reply.status < 300) await spec.cleanup?.(rc, reply)
  }
}

// ---------------------------------------------------------------------------------------------
// The body matrix.
// ---------------------------------------------------------------------------------------------

export const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`

/** A CSV body route's cases, registered inside its describe. */
export type CsvTests = (route: CatalogueRoute, name: string) => void

export interface ModuleSpecs {
  /** A valid baseline body for each JSON POST and PUT route of the module. */
  specs?: Record<string, RouteSpec>
  /** The module's text/csv routes (by route key) and their cases. */
  csv?: Record<string, CsvTests>
}

/** Where a mutation's request is accepted (or may be): the expensive part of the matrix, sampled. */
function isAccepted(fieldSpec: FieldSpec, m: Mutation, field: string, fieldCount: number) {
  const body: Record<string, unknown> = Object.fromEntries(Array.from({ length: fieldCount - (m.category === 'missing' ? 1 : 0) }, (_, i) => [`f${i}`, 1]))
  const type = resolve(fieldSpec, m, field, body, undefined).type
  return type === 'ok' || type === 'either' || type === 'no5xx'
}

/**
 * Which accepted mutations of each field a route runs (see the header): a mutation is shared out
 * between the routes of the module whose field of that name takes it with the same expected outcome
 * (and the same read-back): the mutation at position i of the field's list goes to the (i mod n)-th
 * of those n routes. Keyed by route key, then field; the set holds the labels the route runs.
 */
function sampledOut(routes: CatalogueRoute[], specs: Record<string, RouteSpec>) {
  const groupOf = (spec: RouteSpec, field: string, m: Mutation) =>
    JSON.stringify([
      field,
      m.label,
      resolvePreview(spec.fields[field], m, field, Object.keys(spec.fields).length),
      Boolean(spec.readBack),
      Boolean(spec.answered),
    ])
  const accepted = (spec: RouteSpec, field: string) =>
    spec.fields[field].mutations.map((m, i) => ({ m, i })).filter(({ m }) => isAccepted(spec.fields[field], m, field, Object.keys(spec.fields).length))
  const groups = new Map<string, string[]>()
  for (const route of routes) {
    const spec = specs[routeKey(route)]
    for (const field of Object.keys(spec?.fields ?? {})) {
      for (const { m } of accepted(spec, field)) {
        const group = groupOf(spec, field, m)
        groups.set(group, [...(groups.get(group) ?? []), routeKey(route)])
      }
    }
  }
  const runs = new Map<string, Map<string, Set<string>>>()
  for (const route of routes) {
    const key = routeKey(route)
    const spec = specs[key]
    const fields = new Map<string, Set<string>>()
    for (const field of Object.keys(spec?.fields ?? {})) {
      const mine = accepted(spec, field).filter(({ m, i }) => {
        const members = groups.get(groupOf(spec, field, m))!
        return members[i % members.length] === key
      })
      fields.set(field, new Set(mine.map(({ m }) => m.label)))
    }
    runs.set(key, fields)
  }
  return runs
}

/** Refusals whose cost is the size of the value (parsing and checking megabytes), sampled per route. */
const HEAVY = /^1 MB string$|MiB/

/**
 * For each heavy mutation of a route, the one field that runs it: the (index)-th of the fields that
 * have it, counting round, so that the routes of a module try it on different fields.
 */
function heavyFields(spec: RouteSpec, index: number) {
  const byLabel = new Map<string, string[]>()
  for (const [field, fieldSpec] of Object.entries(spec.fields)) {
    for (const m of fieldSpec.mutations) if (HEAVY.test(m.label)) byLabel.set(m.label, [...(byLabel.get(m.label) ?? []), field])
  }
  return new Map([...byLabel].map(([label, fields]) => [label, fields[index % fields.length]]))
}

/** Every test of bad input for the routes of one module of src/modules (the spec file's own database). */
export function badInputTests(module: string, { specs = {}, csv = {} }: ModuleSpecs = {}) {
  const mine = ROUTES.filter((route) => moduleOf(route.path) === module)
  const bodyRoutes = mine.filter((route) => BODY_METHODS.has(route.method) && !csv[routeKey(route)])
  const csvRoutes = mine.filter((route) => BODY_METHODS.has(route.method) && csv[routeKey(route)])
  useBadInputApp({ foreignRows: bodyRoutes.length + csvRoutes.length > 0 })

  describe(`${module}: the matrix covers the module`, () => {
    test('every route the app serves belongs to a module that has its spec file tests/bad-input/<module>.test.ts', () => {
      const missing = [...new Set(ROUTES.map((route) => moduleOf(route.path)))].filter(
        (m) => !existsSync(join(import.meta.dir, '..', 'bad-input', `${m}.test.ts`)),
      )
      expect(missing).toEqual([])
    })
    test(`every POST and PUT route of ${module} has a baseline body here (or CSV cases), and neither names another route`, () => {
      const served = mine.filter((route) => BODY_METHODS.has(route.method)).map(routeKey)
      expect(served.filter((key) => !specs[key] && !csv[key])).toEqual([])
      expect(Object.keys(specs).filter((key) => !served.includes(key))).toEqual([])
      expect(Object.keys(csv).filter((key) => !served.includes(key))).toEqual([])
      expect(Object.keys(specs).filter((key) => csv[key])).toEqual([])
    })
    test('the "nothing changed" check sees a write, and not a rolled-back one', async () => {
      const ws = await t.app.workspace()
      const before = await snapshot()
      await createGroup(ws.owner.token)
      const after = await snapshot()
      expect(Number(after.counts.channel_groups)).toBeGreaterThan(Number(before.counts.channel_groups))
      expect(JSON.stringify(after.tables.channel_groups)).not.toBe(JSON.stringify(before.tables.channel_groups))
      await t.app.db
        .transaction(async (tx) => {
          await tx.run(sql.raw(`UPDATE channel_groups SET name = 'rolled back' WHERE workspace_id = ${ws.id}`))
          throw new Error('rolled back')
        })
        .catch(() => undefined)
      expect(await writeCounts()).toEqual(after.counts)
    })
  })

  const runs = sampledOut(bodyRoutes, specs)
  const familyOf = (route: CatalogueRoute) => specs[routeKey(route)]?.family ?? 'routes without a baseline'
  const extraKeys = (spec: RouteSpec) => EXTRAS.filter(([key]) => !(key in spec.fields))
  for (const family of [...new Set(bodyRoutes.map(familyOf))]) {
    describe(`bodies: ${family}`, () => {
      for (const route of bodyRoutes.filter((r) => familyOf(r) === family)) {
        const name = `${route.method} ${short(route.path)}`
        const spec = specs[routeKey(route)]
        describe(name, () => {
          if (!spec) {
            test(`${name} has a baseline body in SPECS`, () => {
              throw new Error(`add ${routeKey(route)} to SPECS in tests/bad-input/${module}.test.ts`)
            })
            return
          }
          const rc = {} as RouteCtx
          beforeAll(async () => {
            // A workspace per route: unique names and slugs of one route cannot collide with another's.
            rc.ws = await t.app.workspace()
            rc.token = rc.ws.owner.token
            await spec.setup?.(rc)
          })

          test(`${name} · the baseline body is accepted and lists exactly the fields under test`, async () => {
            const baseline = await spec.baseline(rc)
            expect(Object.keys(baseline.body).sort()).toEqual(Object.keys(spec.fields).sort())
            const reply = await t.app.request(route.method, baseline.path, { body: baseline.body, token: baseline.token, headers: baseline.headers })
            expectNo5xx(reply)
            expect(`${reply.status} ${reply.body?.code}`).toStartWith(String(route.success))
            await spec.cleanup?.(rc, reply)
          })

          const fieldCount = Object.keys(spec.fields).length
          const heavy = heavyFields(spec, bodyRoutes.indexOf(route))
          for (const [field, fieldSpec] of Object.entries(spec.fields)) {
            const sampled = runs.get(routeKey(route))!.get(field)!
            for (const m of fieldSpec.mutations) {
              if (isAccepted(fieldSpec, m, field, fieldCount) && !sampled.has(m.label)) continue
              if (HEAVY.test(m.label) && heavy.get(m.label) !== field) continue
              const preview = resolvePreview(fieldSpec, m, field, fieldCount)
              test(`${name} · ${field}: ${m.label} → ${preview}`, () => runMutation(route, spec, rc, field, fieldSpec, m))
            }
          }

          const extras = extraKeys(spec)
          test(`${name} · unknown fields ${extras.map(([key]) => key).join(', ')} at once → ignored, never stored`, () =>
            runExtra(
              route,
              spec,
              rc,
              extras.map(([key, value]) => [key, value()]),
            ))
          const index = bodyRoutes.indexOf(route)
          for (const [i, [key, value]] of EXTRAS.entries()) {
            if (i % bodyRoutes.length !== index || key in spec.fields) continue
            test(`${name} · unknown field ${key} alone → ignored, never stored`, () => runExtra(route, spec, rc, [[key, value()]]))
          }
        })
      }
    })
  }

  for (const route of csvRoutes) {
    const name = `${route.method} ${short(route.path)}`
    describe(`bodies: ${module} (text/csv) · ${name}`, () => csv[routeKey(route)](route, name))
  }

  queryStringTests(module)
  pathParamTests(module)
}

/** The expected outcome as shown in a test name (before any baseline exists). */
export function resolvePreview(fieldSpec: FieldSpec, m: Mutation, field: string, fieldCount: number): string {
  const body: Record<string, unknown> = Object.fromEntries(Array.from({ length: fieldCount - (m.category === 'missing' ? 1 : 0) }, (_, i) => [`f${i}`, 1]))
  return describeExpect(resolve(fieldSpec, m, field, body, undefined))
}

// ---------------------------------------------------------------------------------------------
// Query strings of every list route.
// ---------------------------------------------------------------------------------------------

/**
 * GET routes without an id that are not paginated lists, and why. Every other one is a list.
 * - csv: a CSV stream taking the list's filters. Bad parameters are still 400 (never a 5xx), but a
 *   good request answers `text/csv`, without `meta`.
 * - no-query: takes no query parameters; unknown ones are ignored, so only "never a 5xx" holds.
 * - report: one object for the filters given (no paging, no `meta`). Its own filters are checked as a
 *   list's are (junk → 400 naming it); the list parameters it does not take are ignored (200), except
 *   that repeating one is still refused. `pairs` completes a well-formed value that needs a partner
 *   (a `date_from` with its `date_to`, the range being bounded); `cases` are rules of its own.
 */
export interface NotList {
  kind: 'csv' | 'no-query' | 'report'
  reason: string
  pairs?: Record<string, string>
  cases?: QueryCase[]
}

/** Dashboard figures: a date range (default the last 7 days) and a team. */
export const REPORT: Omit<NotList, 'reason'> = {
  kind: 'report',
  pairs: { date_from: 'date_to=2024-03-06' },
  cases: [
    { param: 'date_from', label: 'date_from after date_to', query: 'date_from=2026-03-02&date_to=2026-03-01', expect: 'invalid' },
    { param: 'date_from', label: 'date_from equal to date_to (one day)', query: 'date_from=2026-03-01&date_to=2026-03-01', expect: 'ok' },
    { param: 'date_to', label: 'date_from and date_to a week apart', query: 'date_from=2026-03-01&date_to=2026-03-07&team_id=1', expect: 'ok' },
  ],
}

export const NOT_LISTS: Record<string, NotList> = {
  '/api/office/v1/visits/export': { kind: 'csv', reason: 'the office visit list as a CSV stream' },
  '/api/office/v1/outlet-visits/export': { kind: 'csv', reason: 'the office visit list as a CSV stream (listing A)' },
  '/api/app/v1/visits/active': { kind: 'no-query', reason: "the caller's visit in progress, or null" },
  '/api/app/v1/outlet-visits/active-visit': { kind: 'no-query', reason: "the caller's visit in progress, or null (listing A)" },
  '/api/office/v1/locations/route': {
    kind: 'no-query',
    reason: "one user's local day as GeoJSON or GPX; user_id and date are required and checked by tests/route-replay.test.ts (docs/API.md §Route replay)",
  },
  '/api/office/v1/locations/latest': { kind: 'no-query', reason: 'the newest ping of each user, a plain array without meta (docs/API.md §Location tracking)' },
  '/api/app/v1/attendances/today': { kind: 'no-query', reason: "the caller's attendance of today (or the one still open), or null" },
  '/api/app/v1/profile': { kind: 'no-query', reason: "the caller's own profile" },
  '/api/office/v1/notifications/unread-count': {
    kind: 'no-query',
    reason: "how many of the caller's notifications are unread, {count} (docs/API.md §Other areas)",
  },
  '/api/app/v1/notifications/unread-count': {
    kind: 'no-query',
    reason: "how many of the caller's notifications are unread, {count} (docs/API.md §Other areas)",
  },
  '/api/office/v1/day-routes': {
    kind: 'no-query',
    reason: "one user's local day in route order; user_id and date are required and checked by tests/day-routes.test.ts (docs/API.md §Journey plans)",
  },
  '/api/office/v1/dashboard/metrics': { ...REPORT, reason: 'dashboard figures for date_from..date_to and a team_id, one object, not paginated' },
  '/api/office/v1/dashboard/summary': {
    ...REPORT,
    reason: 'dashboard figures per team and user for date_from..date_to and a team_id, one object, not paginated',
  },
}

/**
 * Lists whose paging or parameters differ from the common ones, and why. A parameter a route does
 * not take is ignored like any unknown one (200), except that repeating it is still refused.
 */
export const LIST_RULES: Record<string, { defaultLimit: number; maxLimit: number; ignores: string[]; reason: string; base?: string }> = {
  '/api/office/v1/export/jobs': {
    defaultLimit: 10,
    maxLimit: 100,
    ignores: ['keyword', 'sort_by', 'sort_order'],
    reason: "the caller's export jobs, newest first: page and limit only (docs/API.md §Other areas)",
  },
  '/api/office/v1/notifications': {
    defaultLimit: 10,
    maxLimit: 100,
    ignores: ['keyword', 'sort_by', 'sort_order'],
    reason: "the caller's notifications, newest first: page, limit and the unread filter (docs/API.md §Other areas)",
  },
  '/api/app/v1/notifications': {
    defaultLimit: 10,
    maxLimit: 100,
    ignores: ['keyword', 'sort_by', 'sort_order'],
    reason: "the caller's notifications, newest first: page, limit and the unread filter (docs/API.md §Other areas)",
  },
  '/api/office/v1/reports/field-day': {
    defaultLimit: 10,
    maxLimit: 100,
    ignores: ['keyword', 'sort_by', 'sort_order'],
    reason: 'the field-day report of a local day: one row per field user by name; the date is required (docs/API.md §Field day report)',
    base: 'date=2026-03-01',
  },
  '/api/office/v1/reports/retail-execution': {
    defaultLimit: 10,
    maxLimit: 100,
    ignores: ['keyword', 'sort_by', 'sort_order'],
    reason: 'the retail-execution report of a period: one row per product by sku; the period is required (docs/API.md §Retail-execution report)',
    base: 'date_from=2026-03-01&date_to=2026-03-31',
  },
  '/api/office/v1/locations': {
    defaultLimit: 100,
    maxLimit: 1000,
    ignores: ['sort_by', 'keyword'],
    reason: 'location history: limit default 100, max 1000; always ordered by recorded_at, no keyword (docs/API.md §Location tracking)',
  },
  '/api/office/v1/regional/provinces': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup)',
  },
  '/api/office/v1/regional/cities': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup); the parent id is required',
    base: 'province_id=11',
  },
  '/api/office/v1/regional/districts': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup); the parent id is required',
    base: 'city_id=1101',
  },
  '/api/office/v1/regional/villages': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup); the parent id is required',
    base: 'district_id=110101',
  },
  '/api/app/v1/regional/provinces': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup)',
  },
  '/api/app/v1/regional/cities': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup); the parent id is required',
    base: 'province_id=11',
  },
  '/api/app/v1/regional/districts': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup); the parent id is required',
    base: 'city_id=1101',
  },
  '/api/app/v1/regional/villages': {
    defaultLimit: 50,
    maxLimit: 1000,
    ignores: ['sort_by', 'sort_order'],
    reason: 'regional lookup: limit default 50, max 1000, ordered by code (docs/API.md §Regional lookup); the parent id is required',
    base: 'district_id=110101',
  },
}

/** Health and metrics are operator pages without query parameters, not lists. */
export const OPERATOR_PAGES = new Set(['/api/health', '/api/metrics'])
/**
 * Change feeds page by an opaque cursor, not by page and limit 100: their query (cursor, limit up to
 * 1000, entity) is walked in tests/sync.test.ts.
 */
export const FEEDS = new Set(['/api/app/v1/sync', '/api/office/v1/changes'])
export const LIST_ROUTES = ROUTES.filter(
  (route) => route.method === 'GET' && !route.path.includes('/:') && !OPERATOR_PAGES.has(route.path) && !FEEDS.has(route.path),
)
export const LIST_MAX = 100

/** Filters of the outlet, team and visit lists that the matrix must reach (from the routes' query schemas). */
export const NEW_FILTERS = [
  'status',
  'outlet_id',
  'project_id',
  'team_id',
  'user_id',
  'date_from',
  'date_to',
  'approval_status',
  'form_id',
  'visit_id',
  'leader_id',
  'account_id',
  'channel_id',
  'sub_area_id',
  'city_id',
  'is_active',
  'principal_id',
  'unread',
]

/**
 * Lists whose sort columns are not the common ones (docs/API.md §Audit log: created_at, updated_at, name, id):
 * each of these is accepted, and a common column the list does not have is refused.
 */
export const SORT_COLUMNS: Record<string, string[]> = {
  '/api/office/v1/attendances': ['date', 'check_in_at', 'created_at', 'id'],
  // Sales orders sort by when and how much (docs/API.md §Orders); an order has no name.
  '/api/office/v1/sales-orders': ['created_at', 'updated_at', 'order_date', 'total'],
  '/api/app/v1/sales-orders': ['created_at', 'updated_at', 'order_date', 'total'],
}
export const COMMON_SORT_COLUMNS = ['created_at', 'updated_at', 'name', 'id']

/** The sort columns a list's query schema declares. */
export const sortColumnsOf = (route: CatalogueRoute) => (route.query?.properties?.sort_by?.anyOf ?? []).filter((s) => 'const' in s).map((s) => String(s.const))

/** Every sort column a list declares is usable (200); a common one it does not have is refused. */
export function sortCases(route: CatalogueRoute): QueryCase[] {
  const declared = sortColumnsOf(route)
  const cases: QueryCase[] = declared.map((column) => ({
    param: 'sort_by',
    label: `sort_by=${column}`,
    query: `sort_by=${column}&sort_order=asc`,
    expect: 'ok',
  }))
  if (SORT_COLUMNS[route.path]) {
    for (const column of COMMON_SORT_COLUMNS.filter((c) => !declared.includes(c))) {
      cases.push({ param: 'sort_by', label: `sort_by=${column} (not a column of this list)`, query: `sort_by=${column}`, expect: 'invalid' })
    }
  }
  return cases
}

export type QueryExpect = 'invalid' | 'clamped' | 'ok' | 'invalid-or-empty'
export interface QueryCase {
  param: string
  label: string
  query: string
  expect: QueryExpect
}

export const COMMON_QUERY_CASES: QueryCase[] = [
  ...['0', '-1', 'abc', '1.5', '1e400', ''].map((v) => ({ param: 'page', label: `page=${v}`, query: `page=${v}`, expect: 'invalid' as const })),
  { param: 'page', label: 'page=99999999999999999999', query: 'page=99999999999999999999', expect: 'invalid-or-empty' },
  ...['0', '-1', 'abc', '1.5', '1e400', ''].map((v) => ({ param: 'limit', label: `limit=${v}`, query: `limit=${v}`, expect: 'invalid' as const })),
  ...['1000000', '99999999999999999999'].map((v) => ({ param: 'limit', label: `limit=${v}`, query: `limit=${v}`, expect: 'clamped' as const })),
  ...['unknown_column', 'password_hash', 'name; DROP TABLE users; --', 'created_at desc'].map((v) => ({
    param: 'sort_by',
    label: `sort_by=${v}`,
    query: `sort_by=${encodeURIComponent(v)}`,
    expect: 'invalid' as const,
  })),
  ...['sideways', 'asc; DROP TABLE users; --'].map((v) => ({
    param: 'sort_order',
    label: `sort_order=${v}`,
    query: `sort_order=${encodeURIComponent(v)}`,
    expect: 'invalid' as const,
  })),
  { param: 'keyword', label: 'keyword of 10 kB', query: `keyword=${'k'.repeat(10 * 1024)}`, expect: 'invalid' },
  ...["' OR 1=1 --", '%', '_', 'nul\u0000byte', '🚀'].map((v) => ({
    param: 'keyword',
    label: `keyword=${JSON.stringify(v)}`,
    query: `keyword=${encodeURIComponent(v)}`,
    expect: 'ok' as const,
  })),
  ...[
    ['page', 'page=1&page=2'],
    ['limit', 'limit=1&limit=2'],
    ['sort_by', 'sort_by=name&sort_by=id'],
    ['sort_order', 'sort_order=asc&sort_order=desc'],
    ['keyword', 'keyword=a&keyword=b'],
  ].map(([param, query]) => ({ param, label: `repeated ${query}`, query, expect: 'invalid' as const })),
]

export const COMMON_PARAMS = new Set(['page', 'limit', 'keyword', 'sort_by', 'sort_order'])

/** Junk for a route's own filters, from its query schema. */
export function filterCases(route: CatalogueRoute): QueryCase[] {
  const cases: QueryCase[] = []
  for (const [param, schema] of Object.entries(route.query?.properties ?? {})) {
    if (COMMON_PARAMS.has(param)) continue
    const add = (values: string[], expect: QueryExpect) => {
      for (const v of values) cases.push({ param, label: `${param}=${JSON.stringify(v)}`, query: `${param}=${encodeURIComponent(v)}`, expect })
    }
    const options = schema.anyOf ?? []
    if (options.some((s) => s.format === 'integer' || s.type === 'integer')) {
      add(['abc', '0', '-1', '1.5', '99999999999999999999', '1 OR 1=1'], 'invalid')
      add(['1'], 'ok')
    } else if (schema.type === 'boolean') {
      add(['maybe', '2', "true' OR '1'='1"], 'invalid')
      add(['true', 'false'], 'ok')
    } else if (options.length > 0 && options.every((s) => 'const' in s)) {
      add(['junk', "x' OR '1'='1", String(options[0].const).toUpperCase()], 'invalid')
      add(
        options.map((s) => String(s.const)),
        'ok',
      )
    } else if (param === 'updated_since') {
      // An ISO 8601 date-time (docs/API.md §Sync and change feed); a calendar-invalid one is refused too.
      add(['junk', "1' OR '1'='1", '%', '2026-02-30T00:00:00Z', '2026-11-21'], 'invalid')
      add(['2026-11-21T08:15:00Z', '2026-11-21T08:15:00.000+07:00'], 'ok')
    } else if (param.startsWith('date_')) {
      // Calendar-invalid days too (docs/API.md §Other areas: dates are real days).
      add(['junk', '2026-13-45', '2026-02-30', '2027-02-29', '2026-04-31', "2026-01-01' OR 1=1 --", '2026-01-01T99:99:99Z'], 'invalid')
      add(['2024-02-29'], 'ok')
    } else if (schema.type === 'string') {
      if (schema.maxLength !== undefined) add(['x'.repeat(schema.maxLength + 1)], 'invalid')
      add(["1' OR '1'='1", '%'], 'ok')
    }
    cases.push({ param, label: `repeated ${param}`, query: `${param}=1&${param}=2`, expect: 'invalid' })
  }
  return cases
}

/** Query-string tests of the module's GET routes (and its entries of the route tables). */
function queryStringTests(module: string) {
  const ofModule = (path: string) => moduleOf(path) === module
  describe(`${module}: query strings: the route tables`, () => {
    test('every route NOT_LISTS names is a GET route the app serves', () => {
      const served = ROUTES.filter((route) => route.method === 'GET').map((route) => route.path)
      expect(Object.keys(NOT_LISTS).filter((path) => ofModule(path) && !served.includes(path))).toEqual([])
    })

    test('every route LIST_RULES names is a GET list the app serves, and it really takes none of the parameters it ignores', () => {
      for (const [path, rules] of Object.entries(LIST_RULES).filter(([path]) => ofModule(path))) {
        const route = LIST_ROUTES.find((r) => r.path === path)
        expect({ path, served: route !== undefined, notList: path in NOT_LISTS }).toEqual({ path, served: true, notList: false })
        const taken = Object.keys(route?.query?.properties ?? {})
        expect({ path, taken: rules.ignores.filter((param) => taken.includes(param)) }).toEqual({ path, taken: [] })
      }
    })

    test('every list SORT_COLUMNS names declares exactly those sort columns', () => {
      for (const [path, columns] of Object.entries(SORT_COLUMNS).filter(([path]) => ofModule(path))) {
        const route = LIST_ROUTES.find((r) => r.path === path)
        expect({ path, columns: route ? sortColumnsOf(route).sort() : 'not served' }).toEqual({ path, columns: [...columns].sort() })
      }
    })

    test('a report (NOT_LISTS kind "report") takes none of the list parameters, only its own filters', () => {
      for (const [path, notList] of Object.entries(NOT_LISTS).filter(([path, n]) => ofModule(path) && n.kind === 'report')) {
        const taken = Object.keys(ROUTES.find((r) => r.method === 'GET' && r.path === path)?.query?.properties ?? {})
        expect({ path, listParams: taken.filter((param) => COMMON_PARAMS.has(param)) }).toEqual({ path, listParams: [] })
        expect({ path, pairsOfParams: Object.keys(notList.pairs ?? {}).filter((param) => !taken.includes(param)) }).toEqual({ path, pairsOfParams: [] })
      }
    })

    test('the matrix reaches every filter of the outlet, team, visit and submission lists', () => {
      const reached = new Set(LIST_ROUTES.flatMap((route) => filterCases(route).map((c) => c.param)))
      expect(NEW_FILTERS.filter((param) => !reached.has(param))).toEqual([])
    })
  })

  describe(`${module}: query strings of every list route`, () => {
    let token: string
    beforeAll(async () => {
      const ws = await t.app.workspace()
      token = ws.owner.token
      const group = await createGroup(token)
      const channel = await createChannel(token, group)
      await t.app.post('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: channel }, { token })
      await t.app.post('/office/v1/outlets/sub-areas', { name: unique('SubArea') }, { token })
    })

    for (const route of LIST_ROUTES.filter((r) => ofModule(r.path))) {
      const path = short(route.path)
      const notList: (typeof NOT_LISTS)[string] | undefined = NOT_LISTS[route.path]
      const kind = notList?.kind ?? 'list'
      const rules: (typeof LIST_RULES)[string] | undefined = LIST_RULES[route.path]
      const maxLimit = rules?.maxLimit ?? LIST_MAX
      /** Required parameters (a regional list's parent) go with every request of the route. */
      const withBase = (query: string) => (rules?.base ? `${rules.base}${query ? `&${query}` : ''}` : query)
      /** A parameter the route does not take is ignored (only repeating it is refused, as for any key). */
      const notTaken = (param: string) => (kind === 'report' ? COMMON_PARAMS.has(param) : rules?.ignores.includes(param) === true)
      const ignored = (c: QueryCase) => notTaken(c.param) && !c.label.startsWith('repeated')
      describe(notList ? `GET ${path} (not a list: ${notList.reason})` : rules ? `GET ${path} (${rules.reason})` : `GET ${path}`, () => {
        if (rules) {
          test(`GET ${path} without a query → 200 with the default limit ${rules.defaultLimit}`, async () => {
            const reply = await t.app.get(rules.base ? `${path}?${rules.base}` : path, { token })
            expect(reply.status).toBe(200)
            expect(reply.body.meta).toMatchObject({ page: 1, limit: rules.defaultLimit })
          })
          test(`GET ${path} ?limit=${maxLimit} → 200 with limit ${maxLimit} (the maximum, not clamped lower)`, async () => {
            const reply = await t.app.get(`${path}?${withBase(`limit=${maxLimit}`)}`, { token })
            expect(reply.status).toBe(200)
            expect(reply.body.meta.limit).toBe(maxLimit)
          })
        }
        // The required parent of a regional list is sent with every request; its own cases would repeat it.
        const baseParams = new Set(new URLSearchParams(rules?.base ?? '').keys())
        // A well-formed value that needs a partner (a report's date_from) is sent with it.
        const paired = (c: QueryCase): QueryCase =>
          c.expect === 'ok' && notList?.pairs?.[c.param] && !c.query.includes('&') ? { ...c, query: `${c.query}&${notList.pairs[c.param]}` } : c
        const cases = [...COMMON_QUERY_CASES, ...filterCases(route).map(paired), ...(notList ? [] : sortCases(route)), ...(notList?.cases ?? [])]
        for (const original of cases.filter((c) => !baseParams.has(c.param))) {
          const c: QueryCase = ignored(original) ? { ...original, expect: 'ok' } : original
          const outcome =
            kind === 'no-query'
              ? 'never a 5xx (takes no query parameters)'
              : {
                  invalid: `400 VALIDATION_ERROR (errors.${c.param})`,
                  clamped: kind === 'csv' ? '200 text/csv' : `200 with limit clamped to ${maxLimit}`,
                  ok: kind === 'csv' ? '200 text/csv' : kind === 'report' ? '200 with one object, no meta' : '200',
                  'invalid-or-empty': kind === 'csv' ? `400 (errors.${c.param}) or 200 text/csv` : `400 (errors.${c.param}) or an empty page`,
                }[c.expect] + (ignored(original) ? ` (${c.param} is not a parameter of this list: ignored)` : '')
          test(`GET ${path} ?${c.label.length > 60 ? `${c.label.slice(0, 40)}…` : c.label} → ${outcome}`, async () => {
            const before = await snapshot()
            const reply = await t.app.get(`${path}?${withBase(c.query)}`, { token })
            expectNo5xx(reply)
            if (kind === 'no-query') {
              if (reply.status >= 400) {
                expectErrorEnvelope(reply)
                await expectUnchanged(before)
              }
              return
            }
            if (kind === 'report') {
              if (c.expect === 'invalid' || (c.expect === 'invalid-or-empty' && reply.status === 400)) expectInvalid(reply, c.param)
              else {
                expect(reply.status).toBe(200)
                expect(reply.body.success).toBe(true)
                expect({ data: typeof reply.body.data, meta: reply.body.meta }).toEqual({ data: 'object', meta: undefined })
              }
              if (reply.status >= 400) await expectUnchanged(before)
              return
            }
            if (kind === 'csv') {
              if (c.expect === 'invalid' || (c.expect === 'invalid-or-empty' && reply.status === 400)) expectInvalid(reply, c.param)
              else {
                expect(reply.status).toBe(200)
                expect(reply.headers.get('content-type') ?? '').toStartWith('text/csv')
                expect(reply.text.split('\n')[0]).toStartWith('id,visit_date,status')
              }
              if (reply.status >= 400) await expectUnchanged(before)
              return
            }
            const meta = reply.body?.meta ?? reply.body?.data?.meta
            const rows = Array.isArray(reply.body?.data) ? reply.body.data : reply.body?.data?.data
            switch (c.expect) {
              case 'invalid':
                expectInvalid(reply, c.param)
                break
              case 'invalid-or-empty':
                if (reply.status === 400) expectInvalid(reply, c.param)
                else {
                  expect(reply.status).toBe(200)
                  expect(rows).toEqual([])
                }
                break
              case 'clamped':
                expect(reply.status).toBe(200)
                expect(meta?.limit).toBe(maxLimit)
                break
              case 'ok':
                expect(reply.status).toBe(200)
                expect(reply.body.success).toBe(true)
                break
            }
            if (reply.status >= 400) await expectUnchanged(before)
          })
        }
      })
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Path ids of every route that has one.
// ---------------------------------------------------------------------------------------------

export const ID_ROUTES = ROUTES.filter((route) => /\/:[a-z_]+/.test(route.path))
export const BAD_IDS = ['abc', '-1', '0', '1.5', '99999999999999999999', '%00', '1e3', '0x10', '%20', "1' OR '1'='1"]
/** Stands for the other path parameter while one is being tried: well-formed, and no such row. */
export const ABSENT_ID = '99999999'

/**
 * Path parameters that name no row but one of a fixed set of words (an export format), and why.
 * Anything else there is 400 naming the parameter (never a 404, never a 5xx). A valid one starts a
 * background job (202, awaited before the next test so that it cannot write under another test's
 * "nothing changed" check); the route's query filters are checked as a list's are.
 */
export const PATH_WORDS: Record<string, { param: string; values: string[]; code: string; reason: string }> = {
  'GET /api/office/v1/export/submissions/:format': {
    param: 'format',
    values: ['csv', 'pdf'],
    code: 'EXPORT_QUEUED',
    reason: 'an export of the submission list as CSV or PDF, with the list filters (docs/API.md §Other areas)',
  },
  'GET /api/office/v1/export/sales-orders/:format': {
    param: 'format',
    values: ['csv'],
    code: 'EXPORT_QUEUED',
    reason: 'an export of the sales-order list as CSV, one row per line, with the list filters (docs/API.md §Orders)',
  },
}
export const BAD_WORDS = ['CSV', 'Pdf', 'xlsx', 'csv.exe', 'csv%00', '..%2F..%2Fetc%2Fpasswd', 'csv%20', encodeURIComponent("csv' OR '1'='1")]

/** A body each write route accepts, so that only the path is wrong. */
export function pathIdBody(path: string, formId: number): Record<string, unknown> {
  if (/\/check-(in|out)$/.test(path)) return { ...SITE }
  // An order and its edit (the product need not exist: the path id is refused first).
  if (/\/sales-orders(\/:id)?$/.test(path)) return { lines: [{ product_id: 1, quantity: 1 }] }
  if (/\/sales-orders\/:id\/reject$/.test(path)) return { reason: 'Wrong prices' }
  if (/\/(cancel|force-close)$/.test(path)) return { reason: 'Shop closed' }
  if (/\/(assign|assign-users)$/.test(path)) return { user_ids: [] }
  if (/\/submissions$/.test(path)) return { form_id: formId, is_required: false }
  if (/\/approve$/.test(path)) return { notes: 'Fine' }
  if (/\/reject$/.test(path)) return { notes: 'Blurry' }
  if (/\/approval$/.test(path)) return { status: 'approved' }
  if (/\/submit-form-v2$/.test(path)) return { form_id: formId, items: [{ submission_id: null, status: 'draft', answers: {} }] }
  if (/\/submit-form$/.test(path)) return { form_id: formId, answers: GOOD_ANSWERS }
  if (/\/forms\/:id$/.test(path)) return { title: unique('Renamed') }
  return { name: unique('Renamed') }
}

/** Path-parameter tests of the module's routes that have one. */
function pathParamTests(module: string) {
  const ofModule = (path: string) => moduleOf(path) === module
  describe(`${module}: path ids of every route that has one`, () => {
    let token: string
    let formId: number
    beforeAll(async () => {
      token = pathCaller.owner.token
      formId = await newForm(token)
    })

    // An id spelled another way (`0x10`, `1e3`) must not reach the row of that number: the kernel
    // accepts decimal digits only (src/platform/http/http.ts, notDecimal). Shown on the caller's own workspace.
    if (module === 'workspaces') {
      test('PUT /office/v1/workspaces/:id/settings with the caller’s own workspace id in hex (0x…) → 400, not that workspace', async () => {
        const reply = await t.app.put(`/office/v1/workspaces/0x${pathCaller.id.toString(16)}/settings`, { name: unique('Renamed') }, { token })
        expect(reply.status).toBe(400)
      })
    }

    for (const route of ID_ROUTES.filter((r) => ofModule(r.path))) {
      const pattern = short(route.path)
      const params = [...pattern.matchAll(/:([a-z_]+)/g)].map((match) => match[1])
      const words = PATH_WORDS[routeKey(route)]
      // One parameter at a time; any other stands for a well-formed id of no row.
      for (const param of params) {
        const isWord = words?.param === param
        for (const id of isWord ? [...BAD_IDS, ...BAD_WORDS] : BAD_IDS) {
          const sent = id === "1' OR '1'='1" ? encodeURIComponent(id) : id
          const path = pattern.replace(/:([a-z_]+)/g, (_, name: string) => (name === param ? sent : ABSENT_ID))
          const which = params.length > 1 || isWord ? param : 'id'
          const outcome = isWord ? `400 VALIDATION_ERROR (errors.${param}), never a 5xx` : '400 or 404, never a 5xx'
          test(`${route.method} ${pattern} with ${which} ${JSON.stringify(id)} → ${outcome}`, async () => {
            const before = await snapshot()
            const body = BODY_METHODS.has(route.method) ? pathIdBody(pattern, formId) : undefined
            // A route that requires an X-Idempotency-Key gets a new one, so that it is the id that is judged.
            const headers = route.keyRequired ? { 'x-idempotency-key': unique('path-id') } : undefined
            const reply = await t.app.request(route.method, path, { body, token, headers })
            expectErrorEnvelope(reply)
            if (reply.status === 400 || isWord) expectInvalid(reply, param)
            else {
              expect(reply.status).toBe(404)
              expect(reply.body.code).toEndWith('_NOT_FOUND')
            }
            await expectUnchanged(before)
          })
        }
      }
    }
  })

  describe(`${module}: path words: routes whose parameter is one of a fixed set (PATH_WORDS)`, () => {
    let token: string
    beforeAll(async () => {
      token = (await t.app.workspace()).owner.token
    })

    test('every route PATH_WORDS names is served, and its parameter is in its path', () => {
      for (const [key, words] of Object.entries(PATH_WORDS).filter(([key]) => ofModule(key.split(' ')[1]))) {
        const route = ROUTES.find((r) => routeKey(r) === key)
        expect({ key, param: route ? route.path.includes(`/:${words.param}`) : 'not served' }).toEqual({ key, param: true })
      }
    })

    for (const [key, words] of Object.entries(PATH_WORDS).filter(([key]) => ofModule(key.split(' ')[1]))) {
      const route = ROUTES.find((r) => routeKey(r) === key)
      if (!route) continue
      const pattern = short(route.path)
      const at = (value: string) => pattern.replace(`:${words.param}`, value)
      describe(`${route.method} ${pattern} (${words.reason})`, () => {
        for (const value of words.values) {
          test(`${route.method} ${at(value)} → ${route.success} ${words.code}, a queued job`, async () => {
            const reply = await t.app.request(route.method, at(value), { token })
            await t.app.deps.exports.idle()
            expectNo5xx(reply)
            expect(`${reply.status} ${reply.body?.code} ${reply.body?.data?.status}`).toBe(`${route.success} ${words.code} queued`)
            expect(Number.isInteger(reply.body.data.id)).toBe(true)
          })
        }
        for (const c of filterCases(route)) {
          const outcome = c.expect === 'ok' ? `${route.success} ${words.code}` : `400 VALIDATION_ERROR (errors.${c.param}), nothing queued`
          test(`${route.method} ${at(words.values[0])} ?${c.label} → ${outcome}`, async () => {
            const before = await snapshot()
            const reply = await t.app.request(route.method, `${at(words.values[0])}?${c.query}`, { token })
            await t.app.deps.exports.idle()
            expectNo5xx(reply)
            if (c.expect === 'ok') expect(`${reply.status} ${reply.body?.code}`).toBe(`${route.success} ${words.code}`)
            else {
              expectInvalid(reply, c.param)
              await expectUnchanged(before)
            }
          })
        }
      })
    }
  })
}
