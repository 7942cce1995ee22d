/**
 * Hostile input, table-driven (docs/API.md §Envelopes, §Errors).
 *
 * - Bodies: every POST and PUT route the app serves has a valid baseline body in SPECS (a route
 *   without one fails). Each field of that body is mutated in turn: missing, wrong types, oversized,
 *   empty and blank strings, out-of-range numbers, SQL-ish and unusual Unicode text, ids that do not
 *   exist or belong to another workspace. Unknown fields (`workspace_id`, `id`, `created_at`, …) are
 *   added one at a time and must change nothing.
 * - The CSV visit import (text/csv) has CSV cases instead: accepted variants, and refused ones
 *   (malformed CSV, missing columns, unknown codes, impossible dates, a wrong content type) that
 *   must be 400 VALIDATION_ERROR and import nothing.
 * - Query strings of every GET list route (the few GET routes that are not lists are named in
 *   NOT_LISTS with what holds for them), and the `:id` of every route that has one, one path
 *   parameter at a time.
 * - State-changing routes (check-in, approve, cancel, …) get a target in the right state from
 *   `fresh`, made again only after an accepted request used it up.
 *
 * Every rejection must be the error envelope with a 4xx (400 VALIDATION_ERROR naming the field as a
 * dot path unless the contract names another answer), never a 5xx, and must leave every table as it
 * was. Every acceptance of a text value must store it as sent (after trimming) and read it back equal.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, expectError, unique, useTestApp, type Reply, type Workspace } from './harness'

// ---------------------------------------------------------------------------------------------
// The route catalogue, read from a throwaway app while tests are collected, so that every route
// the app serves gets its tests without anyone listing it here.
// ---------------------------------------------------------------------------------------------

interface QuerySchema {
  type?: string
  format?: string
  maxLength?: number
  const?: unknown
  anyOf?: QuerySchema[]
  properties?: Record<string, QuerySchema>
}

interface CatalogueRoute {
  method: string
  path: string
  query?: QuerySchema
  success: number
}

const ROUTES: CatalogueRoute[] = await (async () => {
  const catalogue = await createTestApp()
  try {
    return catalogue.app.routes
      .filter((route) => !route.path.startsWith('/api/docs'))
      .map((route) => {
        const hooks = route.hooks as { query?: QuerySchema; response?: Record<string, unknown> }
        const success = Object.keys(hooks.response ?? {})
          .map(Number)
          .filter((status) => status >= 200 && status < 300)
        return { method: route.method, path: route.path, query: hooks.query, success: success.length ? Math.min(...success) : 200 }
      })
  } finally {
    await catalogue.close()
  }
})()

const t = useTestApp()
const BODY_METHODS = new Set(['POST', 'PUT'])
/** `/api/office/v1/users/:id` → `/office/v1/users/:id` (harness paths are relative to /api). */
const short = (path: string) => path.replace(/^\/api/, '')

// ---------------------------------------------------------------------------------------------
// Shared state: a foreign workspace whose ids must never be usable from another one.
// ---------------------------------------------------------------------------------------------

let other: Workspace
const foreign = {
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
  product_sku: '',
}
const INJECTED_ID = 987_654_321
const INJECTED_TIME = '2000-01-01T00:00:00.000Z'
const BUILTIN_SLUGS = ['super_admin', 'admin', 'manager', 'user']

/**
 * Every table but the append-only audit log, with the column it is ordered by. Reference tables of
 * tens of thousands of rows that no request writes (the regional areas) are compared by a digest
 * (first and last id: two index lookups, where even count(*) would scan) instead of row for row,
 * so the thousands of snapshots stay cheap.
 */
let TABLES: { name: string; order: string; digest: boolean }[] = []
const REFERENCE_TABLE = /^regional_/

beforeAll(async () => {
  other = await t.app.workspace()
  foreign.channel_group_id = await createGroup(other.owner.token)
  foreign.channel_id = await createChannel(other.owner.token, foreign.channel_group_id)
  await createForeignFixtures()
  const names = await t.app.db.pragma(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' AND name <> 'audit_logs' ORDER BY name",
  )
  TABLES = []
  for (const { name } of names) {
    const columns = await t.app.db.pragma(`PRAGMA table_info(${String(name)})`)
    const pk = columns.find((column) => Number(column.pk) === 1)?.name ?? 'rowid'
    TABLES.push({ name: String(name), order: String(pk), digest: REFERENCE_TABLE.test(String(name)) })
  }
})

// ---------------------------------------------------------------------------------------------
// Factories (through the API, as the harness does).
// ---------------------------------------------------------------------------------------------

function createdData(reply: Reply, what: string) {
  if (reply.status !== 201) throw new Error(`creating ${what} failed: ${reply.status} ${reply.text}`)
  return reply.body.data
}

async function createGroup(token: string, name = unique('Group')): Promise<number> {
  return createdData(await t.app.post('/office/v1/outlets/channel-groups', { name }, { token }), 'a channel group').id
}

async function createChannel(token: string, groupId?: number): Promise<number> {
  const channel_group_id = groupId ?? (await createGroup(token))
  return createdData(await t.app.post('/office/v1/outlets/channels', { name: unique('Channel'), channel_group_id }, { token }), 'a channel').id
}

async function deleted(segment: string, id: number, token: string) {
  const reply = await t.app.delete(`/office/v1/${segment}/${id}`, { token })
  if (reply.status !== 200) throw new Error(`deleting ${segment} ${id} failed: ${reply.status} ${reply.text}`)
  return id
}

/** A fresh, unused refresh token of the workspace owner (switch-workspace mints one without hashing). */
async function mintRefreshToken(rc: RouteCtx): Promise<string> {
  const reply = await t.app.post('/auth/switch-workspace', { workspace_id: rc.ws.id }, { token: rc.token })
  if (reply.status !== 200) throw new Error(`switch-workspace failed: ${reply.status} ${reply.text}`)
  return reply.body.data.refresh_token
}

/** A fresh password-reset token for the workspace owner, taken from the outbox. */
async function mintResetToken(rc: RouteCtx): Promise<string> {
  const email = rc.ws.owner.user.email
  const reply = await t.app.post('/auth/forgot-password', { email })
  if (reply.status !== 200) throw new Error(`forgot-password failed: ${reply.status} ${reply.text}`)
  const [mail] = await t.app.db.pragma(`SELECT body FROM outbox WHERE to_address = '${email}' ORDER BY id DESC LIMIT 1`)
  const token = /reset-password: (\S+)/.exec(String(mail?.body))?.[1]
  if (!token) throw new Error('no reset token in the outbox')
  return token
}

// ---------------------------------------------------------------------------------------------
// "Nothing changed": every table row for row, and the audit log by size.
// ---------------------------------------------------------------------------------------------

interface Snapshot {
  tables: Record<string, Record<string, unknown>[]>
  audit: { count: number; maxId: number }
  /** SQLite's total_changes() of the writer connection when the snapshot was taken. */
  changes: number
}

/**
 * The writer connection's count of rows ever inserted, updated or deleted (the reader connection is
 * read-only). While it stands still, nothing was written, so the last snapshot still holds and a
 * request that left it unchanged changed nothing; when it moves (a write, even one rolled back),
 * the tables are dumped and compared row for row.
 */
async function totalChanges(): Promise<number> {
  const [row] = await t.app.db.pragma('SELECT total_changes() AS n')
  return Number(row.n)
}

let lastSnapshot: Snapshot | null = null

async function snapshot(): Promise<Snapshot> {
  const changes = await totalChanges()
  if (lastSnapshot && lastSnapshot.changes === changes) return lastSnapshot
  const tables: Snapshot['tables'] = {}
  for (const { name, order, digest } of TABLES) {
    tables[name] = await t.app.db.pragma(
      digest ? `SELECT min(${order}) AS first, max(${order}) AS last FROM ${name}` : `SELECT * FROM ${name} ORDER BY ${order}`,
    )
  }
  const [audit] = await t.app.db.pragma('SELECT count(*) AS n, coalesce(max(id), 0) AS max_id FROM audit_logs')
  const taken = { tables, audit: { count: Number(audit.n), maxId: Number(audit.max_id) }, changes }
  if ((await totalChanges()) === changes) lastSnapshot = taken
  return taken
}

async function expectUnchanged(before: Snapshot) {
  if ((await totalChanges()) === before.changes) return
  const after = await snapshot()
  for (const name of Object.keys(before.tables)) {
    if (JSON.stringify(after.tables[name]) !== JSON.stringify(before.tables[name])) {
      expect({ table: name, rows: after.tables[name] }).toEqual({ table: name, rows: before.tables[name] })
    }
  }
  expect({ audit_logs: after.audit }).toEqual({ audit_logs: before.audit })
}

/** Rows that are new or changed since the snapshot. */
async function changedRows(before: Snapshot) {
  const after = await snapshot()
  const changed: { table: string; row: Record<string, unknown> }[] = []
  for (const name of Object.keys(after.tables)) {
    const seen = new Set(before.tables[name].map((row) => JSON.stringify(row)))
    for (const row of after.tables[name]) if (!seen.has(JSON.stringify(row))) changed.push({ table: name, row })
  }
  const audit = await t.app.db.pragma(`SELECT * FROM audit_logs WHERE id > ${before.audit.maxId} ORDER BY id`)
  for (const row of audit) changed.push({ table: 'audit_logs', row })
  return changed
}

// ---------------------------------------------------------------------------------------------
// Answers.
// ---------------------------------------------------------------------------------------------

function expectNo5xx(reply: Reply) {
  if (reply.status >= 500) throw new Error(`server error ${reply.status}: ${reply.text.slice(0, 500)}`)
}

/** `{success:false, message, code, errors:{…}}`, and no stack trace or SQL leaking out. */
function expectErrorEnvelope(reply: Reply) {
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
function expectInvalid(reply: Reply, path: string, owner = path) {
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

const MISSING = Symbol('missing')
const MB = 'x'.repeat(1024 * 1024)
const SQLISH = ["'; DROP TABLE users; --", '1 OR 1=1', '%', '_']
const UNICODE: [string, string][] = [
  ['emoji', '🚀 Toko 👩🏽‍💻'],
  ['right-to-left text', 'متجر \u202Eabc\u202C'],
  ['combining characters', 'Cafe\u0301 Z\u0335\u0321a'],
  ['a NUL character', 'nul\u0000byte'],
]
/** The same, usable as the local part of an email address (no spaces). */
const UNICODE_LOCAL: [string, string][] = [
  ['emoji', '🚀toko'],
  ['right-to-left text', 'متجر\u202Eabc'],
  ['combining characters', 'cafe\u0301'],
  ['a NUL character', 'nul\u0000byte'],
]
const LONE_SURROGATE = 'half \ud800 pair'

/**
 * missing   absent from the body (400 when the field is required, else accepted)
 * invalid   400 VALIDATION_ERROR naming the field (or `field.path`)
 * valid     well-formed: the field's `onValid` outcome (default: accepted and stored)
 * maybe     unusual but well-formed: accepted and stored as sent, or a 400 naming the field
 * safe      anything but a 5xx (and an error envelope when refused)
 * notFound  a well-formed id that is not usable here: the field's `notFound` outcome (default 400)
 */
type Category = 'missing' | 'invalid' | 'valid' | 'maybe' | 'safe' | 'notFound'

interface Mutation {
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

const mutation = (label: string, category: Category, value: unknown, extra: Partial<Mutation> = {}): Mutation => ({
  label,
  category,
  value: typeof value === 'function' ? (value as Mutation['value']) : () => value,
  ...extra,
})

const missing = mutation('missing', 'missing', MISSING)

/** Wrong JSON types for a field whose right type is `right`. */
function wrongTypes(right: 'string' | 'integer' | 'boolean' | 'array' | 'object'): Mutation[] {
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

const sqlAndUnicode = (sqlCategory: (s: string) => Category, unicodeCategory: Category): Mutation[] => [
  ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, sqlCategory(s), s)),
  ...UNICODE.map(([label, s]) => mutation(`unicode: ${label}`, unicodeCategory, s)),
  mutation('unicode: a lone surrogate', 'safe', LONE_SURROGATE),
]

const trimmed = (sent: string) => sent.trim()

/** A required, trimmed text (names): docs/API.md §Errors "empty after trimming counts as missing". */
function requiredText(max: number): Mutation[] {
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
function optionalText(max: number): Mutation[] {
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

const mailbox = (local: string) => `${local}@example.com`
const lowerTrimmed = (sent: string) => sent.trim().toLowerCase()

/** An email address: trimmed and stored lower-case, at most 254 characters. */
function email(): Mutation[] {
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
function newPassword(): Mutation[] {
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
function loginPassword(): Mutation[] {
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
function opaqueToken(): Mutation[] {
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
function parentId(options: { foreign: (rc: RouteCtx) => number; deleted?: (rc: RouteCtx) => number }): Mutation[] {
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

const GRANT = { key: 'channel.view', platform: 'web', access: 'view' }

/** A role's permission list: `[{key, platform, access}]`, at most 200. */
function grants(): Mutation[] {
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
function flag(): Mutation[] {
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

type Expect =
  | { type: 'ok'; stored?: unknown; checkStored: boolean }
  | { type: 'invalid'; path: string }
  | { type: 'error'; statuses: number[]; codes: string[]; path?: string }
  | { type: 'either'; options: Expect[] }
  | { type: 'no5xx' }

const invalid = (path: string): Expect => ({ type: 'invalid', path })
const failsWith = (statuses: number[], codes: string[], path?: string): Expect => ({ type: 'error', statuses, codes, path })
/** A wrong password or unknown email: 401, or 429 once the failed-login limit is reached. */
const BAD_LOGIN = failsWith([401, 429], ['INVALID_CREDENTIALS', 'RATE_LIMITED'])

function describeExpect(e: Expect): string {
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

interface RouteCtx {
  ws: Workspace
  token: string
  [key: string]: any
}

interface Baseline {
  path: string
  body: Record<string, unknown>
  token?: string
  /** Request headers the route needs (the location batch requires an X-Idempotency-Key, unique per request). */
  headers?: Record<string, string>
}

interface FieldSpec {
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

interface RouteSpec {
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

const SPECS: Record<string, RouteSpec> = {}

// Auth ----------------------------------------------------------------------------------------

SPECS['POST /api/auth/register'] = {
  family: 'auth',
  baseline: async () => ({
    path: '/auth/register',
    body: { name: unique('Owner'), email: mailbox(unique('register')), password: 'password123', workspace_name: unique('Workspace') },
  }),
  fields: {
    name: { mutations: requiredText(255), required: true },
    email: { mutations: email(), required: true },
    password: { mutations: newPassword(), required: true },
    workspace_name: { mutations: requiredText(255), required: true },
  },
  readBack: async (_rc, reply) => {
    const { id, workspace_id } = reply.body.data.user
    const [user] = await t.app.db.pragma(`SELECT name, email, password_hash FROM users WHERE id = ${Number(id)}`)
    const [workspace] = await t.app.db.pragma(`SELECT name FROM workspaces WHERE id = ${Number(workspace_id)}`)
    return { name: user.name, email: user.email, password: user.password_hash, workspace_name: workspace.name }
  },
}

SPECS['POST /api/auth/login'] = {
  family: 'auth',
  setup: async (rc) => {
    rc.email = (await t.app.member(rc.ws, 'user')).user.email
    // Wrong passwords count towards the failed-login limit of their email: they go to a user of their own.
    rc.passwordVictim = (await t.app.member(rc.ws, 'user')).user.email
  },
  baseline: async (rc, field) => ({
    path: '/auth/login',
    body: { email: field === 'password' ? rc.passwordVictim : rc.email, password: 'password123' },
  }),
  fields: {
    email: { mutations: email(), required: true, onValid: BAD_LOGIN },
    password: { mutations: loginPassword(), required: true, onValid: BAD_LOGIN },
  },
}

SPECS['POST /api/auth/refresh'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/refresh', body: { refresh_token: await mintRefreshToken(rc) } }),
  fields: {
    refresh_token: { mutations: opaqueToken(), required: true, onValid: failsWith([401], ['UNAUTHORIZED']) },
  },
}

SPECS['POST /api/auth/logout'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/logout', body: { refresh_token: await mintRefreshToken(rc) }, token: rc.token }),
  fields: {
    // Logging out a session that does not exist is a harmless no-op.
    refresh_token: { mutations: opaqueToken(), required: true, onValid: { type: 'ok', checkStored: false } },
  },
}

SPECS['POST /api/auth/forgot-password'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/forgot-password', body: { email: rc.ws.owner.user.email } }),
  fields: {
    // Always 200 for a well-formed address (no account enumeration).
    email: { mutations: email(), required: true, onValid: { type: 'ok', checkStored: false } },
  },
}

SPECS['POST /api/auth/reset-password'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/reset-password', body: { token: await mintResetToken(rc), password: 'password123' } }),
  fields: {
    token: { mutations: opaqueToken(), required: true, onValid: invalid('token') },
    password: { mutations: newPassword(), required: true },
  },
  readBack: async (rc) => {
    const [user] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${rc.ws.owner.user.id}`)
    return { password: user.password_hash }
  },
}

SPECS['POST /api/auth/switch-workspace'] = {
  family: 'auth',
  setup: async (rc) => {
    rc.second = createdData(await t.app.post('/office/v1/workspaces', { name: unique('Second') }, { token: rc.token }), 'a workspace').id
  },
  baseline: async (rc) => ({ path: '/auth/switch-workspace', body: { workspace_id: rc.second }, token: rc.token }),
  fields: {
    workspace_id: {
      mutations: parentId({ foreign: () => other.id }),
      required: true,
      notFound: failsWith([404], ['WORKSPACE_NOT_FOUND']),
    },
  },
}

// Workspaces, roles, users ----------------------------------------------------------------------

SPECS['POST /api/office/v1/workspaces'] = {
  family: 'workspaces',
  baseline: async (rc) => ({ path: '/office/v1/workspaces', body: { name: unique('Workspace') }, token: rc.token }),
  fields: { name: { mutations: requiredText(255), required: true } },
  readBack: async (rc, reply) => {
    const list = await t.app.get('/office/v1/workspaces?sort_by=id&sort_order=desc&limit=100', { token: rc.token })
    return { name: list.body.data.find((w: { id: number }) => w.id === reply.body.data.id)?.name }
  },
}

const roleReadBack = async (rc: RouteCtx, id: number) => {
  const role = (await t.app.get(`/office/v1/roles/${id}`, { token: rc.token })).body.data
  return { name: role.name, permissions: role.permissions }
}

SPECS['POST /api/office/v1/roles'] = {
  family: 'roles',
  baseline: async (rc) => ({ path: '/office/v1/roles', body: { name: unique('Role'), permissions: [GRANT] }, token: rc.token }),
  fields: {
    name: { mutations: requiredText(100), required: true },
    permissions: { mutations: grants(), required: true },
  },
  readBack: (rc, reply) => roleReadBack(rc, reply.body.data.id),
  // Slugs are unique: names such as "%" and "_" share the slug "role", so each accepted role goes again.
  cleanup: async (rc, reply) => {
    await deleted('roles', reply.body.data.id, rc.token)
  },
}

SPECS['PUT /api/office/v1/roles/:id'] = {
  family: 'roles',
  setup: async (rc) => {
    rc.target = createdData(await t.app.post('/office/v1/roles', { name: unique('Target'), permissions: [] }, { token: rc.token }), 'a role').id
  },
  baseline: async (rc) => ({ path: `/office/v1/roles/${rc.target}`, body: { name: unique('Role'), permissions: [GRANT] }, token: rc.token }),
  fields: {
    name: { mutations: requiredText(100), required: false },
    permissions: { mutations: grants(), required: false },
  },
  readBack: (rc) => roleReadBack(rc, rc.target),
}

const userReadBack = async (rc: RouteCtx, id: number) => {
  const user = (await t.app.get(`/office/v1/users/${id}`, { token: rc.token })).body.data
  const [row] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${Number(id)}`)
  return { name: user.name, email: user.email, phone: user.phone, role_id: user.role_id, is_active: user.is_active, password: row.password_hash }
}

const usersSetup = async (rc: RouteCtx) => {
  const role = createdData(await t.app.post('/office/v1/roles', { name: unique('Gone'), permissions: [] }, { token: rc.token }), 'a role')
  rc.deletedRole = await deleted('roles', role.id, rc.token)
}

const userFields = (required: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required },
  email: { mutations: email(), required },
  password: { mutations: newPassword(), required },
  role_id: { mutations: parentId({ foreign: () => other.roles.user, deleted: (rc) => rc.deletedRole }), required },
  phone: { mutations: optionalText(32), required: false },
})

SPECS['POST /api/office/v1/users'] = {
  family: 'users',
  setup: usersSetup,
  baseline: async (rc) => ({
    path: '/office/v1/users',
    body: { name: unique('User'), email: mailbox(unique('user')), password: 'password123', role_id: rc.ws.roles.user, phone: '+62 812 0000 0000' },
    token: rc.token,
  }),
  fields: userFields(true),
  readBack: (rc, reply) => userReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/users/:id'] = {
  family: 'users',
  setup: async (rc) => {
    await usersSetup(rc)
    const body = { name: unique('Target'), email: mailbox(unique('target')), password: 'password123', role_id: rc.ws.roles.user }
    rc.target = createdData(await t.app.post('/office/v1/users', body, { token: rc.token }), 'a user').id
  },
  baseline: async (rc) => ({
    path: `/office/v1/users/${rc.target}`,
    body: {
      name: unique('User'),
      email: mailbox(unique('user')),
      password: 'password123',
      role_id: rc.ws.roles.user,
      phone: '+62 812 0000 0000',
      is_active: true,
    },
    token: rc.token,
  }),
  fields: { ...userFields(false), is_active: { mutations: flag(), required: false } },
  readBack: (rc) => userReadBack(rc, rc.target),
}

// Master data ----------------------------------------------------------------------------------

interface MasterEntity {
  segment: string
  label: string
  parent?: { field: string; create: (rc: RouteCtx) => Promise<number>; segment: string; foreign: () => number }
}

const MASTER: MasterEntity[] = [
  { segment: 'channel-groups', label: 'Group' },
  {
    segment: 'channels',
    label: 'Channel',
    parent: { field: 'channel_group_id', create: (rc) => createGroup(rc.token), segment: 'outlets/channel-groups', foreign: () => foreign.channel_group_id },
  },
  {
    segment: 'accounts',
    label: 'Account',
    parent: { field: 'channel_id', create: (rc) => createChannel(rc.token), segment: 'outlets/channels', foreign: () => foreign.channel_id },
  },
  { segment: 'sub-areas', label: 'SubArea' },
]

for (const entity of MASTER) {
  const base = `/office/v1/outlets/${entity.segment}`
  const body = (rc: RouteCtx) => ({ name: unique(entity.label), ...(entity.parent ? { [entity.parent.field]: rc.parent } : {}) })
  const setup = async (rc: RouteCtx) => {
    if (!entity.parent) return
    rc.parent = await entity.parent.create(rc)
    rc.deletedParent = await deleted(entity.parent.segment, await entity.parent.create(rc), rc.token)
  }
  const fields = (required: boolean): Record<string, FieldSpec> => ({
    name: { mutations: requiredText(255), required },
    ...(entity.parent
      ? { [entity.parent.field]: { mutations: parentId({ foreign: entity.parent.foreign, deleted: (rc) => rc.deletedParent }), required } }
      : {}),
  })
  const readBack = async (rc: RouteCtx, id: number) => (await t.app.get(`${base}/${id}`, { token: rc.token })).body.data

  SPECS[`POST /api${base}`] = {
    family: 'master data',
    setup,
    baseline: async (rc) => ({ path: base, body: body(rc), token: rc.token }),
    fields: fields(true),
    readBack: (rc, reply) => readBack(rc, reply.body.data.id),
  }
  SPECS[`PUT /api${base}/:id`] = {
    family: 'master data',
    setup: async (rc) => {
      await setup(rc)
      rc.target = createdData(await t.app.post(base, body(rc), { token: rc.token }), entity.label).id
    },
    baseline: async (rc) => ({ path: `${base}/${rc.target}`, body: body(rc), token: rc.token }),
    fields: fields(false),
    readBack: (rc) => readBack(rc, rc.target),
  }
}

// Outlets, forms, projects, teams and visits: fixtures ----------------------------------------

const VISIT_DATE = '2026-11-22'
const SITE = { latitude: -6.2, longitude: 106.8 }
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const PNG_DATA_URI = `data:image/png;base64,${PNG_1PX}`
const GIF_DATA_URI = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
const base64 = (text: string) => Buffer.from(text).toString('base64')
const TEXT_DATA_URI = `data:image/png;base64,${base64('just some text, not an image at all')}`
const SVG_DATA_URI = `data:image/svg+xml;base64,${base64('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')}`
let oversizedPng: string | undefined
/** A PNG header followed by zeros: 5 MiB + 1 KiB decoded (the limit is 5 MiB). Built once, on first use. */
const OVERSIZED_PNG = () =>
  (oversizedPng ??= `data:image/png;base64,${Buffer.concat([Buffer.from(PNG_1PX, 'base64'), Buffer.alloc(5 * 1024 * 1024 + 1024)]).toString('base64')}`)

/** The form filled on the visits under test. */
const VISIT_FORM_FIELDS = [
  { key: 'facings', label: 'Facings', type: 'integer', required: true, min: 0 },
  { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'], required: true },
  { key: 'photo', label: 'Shelf photo', type: 'photo' },
  { key: 'where', label: 'Where', type: 'location' },
  { key: 'remark', label: 'Remark', type: 'text' },
]
const GOOD_ANSWERS = { facings: 4, brand: 'A' }

async function post201(path: string, body: unknown, token: string, what: string) {
  return createdData(await t.app.post(path, body, { token }), what)
}

function okData(reply: Reply, what: string) {
  if (reply.status !== 200) throw new Error(`${what} failed: ${reply.status} ${reply.text.slice(0, 500)}`)
  return reply.body.data
}

async function newUser(token: string, roleId: number): Promise<number> {
  const body = { name: unique('User'), email: mailbox(unique('user')), password: 'password123', role_id: roleId }
  return (await post201('/office/v1/users', body, token, 'a user')).id
}

async function newForm(token: string): Promise<number> {
  return (await post201('/office/v1/forms', { title: unique('Form'), fields: VISIT_FORM_FIELDS }, token, 'a form')).id
}

async function newOutlet(token: string, extra: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
  return post201('/office/v1/outlets', { name: unique('Outlet'), code: unique('OUT'), ...SITE, ...extra }, token, 'an outlet')
}

async function newProject(token: string, formId: number, extra: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
  const body = { name: unique('Project'), code: unique('PRJ'), forms: [{ form_id: formId, is_required: false }], ...extra }
  return post201('/office/v1/projects', body, token, 'a project')
}

async function newTeam(token: string): Promise<{ id: number; name: string }> {
  return post201('/office/v1/teams', { name: unique('Team') }, token, 'a team')
}

async function newAccount(token: string): Promise<number> {
  return (await post201('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: await createChannel(token) }, token, 'an account')).id
}

async function newSubArea(token: string): Promise<number> {
  return (await post201('/office/v1/outlets/sub-areas', { name: unique('SubArea') }, token, 'a sub-area')).id
}

/** Rows of the foreign workspace, for "an id of another workspace". */
async function createForeignFixtures() {
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
  Object.assign(foreign, { principal_id: principal.id, principal_code: principal.code, product_sku: product.sku })
}

/** What the visit routes of a workspace need: a form, a project using it, an outlet, a team and a field user. */
async function visitKit(rc: RouteCtx) {
  rc.form = await newForm(rc.token)
  const project = await newProject(rc.token, rc.form)
  const outlet = await newOutlet(rc.token)
  const team = await newTeam(rc.token)
  Object.assign(rc, { project: project.id, projectCode: project.code, outlet: outlet.id, outletCode: outlet.code, team: team.id, teamName: team.name })
  rc.field = await t.app.member(rc.ws, 'user')
}

/** Parents a visit cannot use: soft-deleted ones, an inactive outlet, a draft project. */
async function unusableParents(rc: RouteCtx) {
  const gone = await newOutlet(rc.token)
  rc.deletedOutlet = await deleted('outlets', gone.id, rc.token)
  rc.deletedOutletCode = gone.code
  rc.inactiveOutlet = (await newOutlet(rc.token, { is_active: false })).id
  rc.deletedProject = await deleted('projects', (await newProject(rc.token, rc.form)).id, rc.token)
  rc.draftProject = (await newProject(rc.token, rc.form, { status: 'draft' })).id
  rc.deletedTeam = await deleted('teams', (await newTeam(rc.token)).id, rc.token)
}

const deletedFormOf = async (rc: RouteCtx) => {
  rc.deletedForm = await deleted('forms', await newForm(rc.token), rc.token)
}
const deletedUserOf = async (rc: RouteCtx) => {
  rc.deletedUser = await deleted('users', await newUser(rc.token, rc.ws.roles.user), rc.token)
}

/** A scheduled visit assigned to the route's field user, with no forms unless told. */
async function planVisit(rc: RouteCtx, extra: Record<string, unknown> = {}) {
  const body = { outlet_id: rc.outlet, project_id: rc.project, visit_date: VISIT_DATE, user_ids: [rc.field.user.id], submissions: [], ...extra }
  return post201('/office/v1/visits', body, rc.token, 'a visit')
}

/** A visit the field user has checked in to (in progress). */
async function startedVisit(rc: RouteCtx, extra: Record<string, unknown> = {}) {
  const visit = await planVisit(rc, extra)
  okData(await t.app.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: rc.field.token }), 'check-in')
  return visit
}

/** A completed visit whose one submission is completed and awaits approval. */
async function submittedForm(rc: RouteCtx): Promise<{ visit: number; submission: number }> {
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
async function fresh<T>(rc: RouteCtx, make: (rc: RouteCtx) => Promise<T>): Promise<T> {
  rc.fresh ??= await make(rc)
  return rc.fresh as T
}
const usedUp = async (rc: RouteCtx) => {
  rc.fresh = undefined
}

const sortedIds = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b)

async function visitDetail(rc: RouteCtx, id: number) {
  return okData(await t.app.get(`/office/v1/visits/${id}`, { token: rc.token }), 'reading the visit')
}

/** A visit detail in the terms of the create body. */
function visitInBodyTerms(visit: any): Record<string, unknown> {
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
const plannedAs = (item: Record<string, any>) => ({
  outlet_id: item.outlet_id,
  project_id: item.project_id,
  visit_date: item.visit_date,
  team_id: item.team_id ?? null,
  user_ids: sortedIds(item.user_ids ?? []),
  submissions: (item.submissions ?? []).map((f: any, i: number) => ({ form_id: f.form_id, is_required: f.is_required, order: f.order ?? i })),
  notes: item.notes ?? null,
})

const FILE_URL = /^\/api\/files\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A stored photo as the body names it: a file URL is downloaded and shown by its type. */
async function photoBack(rc: RouteCtx, url: string | null): Promise<string | null> {
  if (url === null || !url.startsWith('/api/files/')) return url
  if (!FILE_URL.test(url)) return `malformed file URL ${url}`
  const file = await t.app.get(url.replace(/^\/api/, ''), { token: rc.token })
  return file.status === 200 ? `file ${file.headers.get('content-type')}` : `unreadable file ${url}: ${file.status}`
}

const answersBack = (answers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(answers).map(([key, value]) => [key, typeof value === 'string' && FILE_URL.test(value) ? 'file' : value]))

async function submissionOf(rc: RouteCtx, visitId: number, id: number) {
  return okData(await t.app.get(`/office/v1/visits/${visitId}/submissions/${id}`, { token: rc.token }), 'reading the submission')
}

// Mutations of the new fields ----------------------------------------------------------------

/** `null` is a value of its own (it clears an optional reference), not a wrong type. */
const nullable = (list: Mutation[]) => list.map((m) => (m.label === 'null' ? mutation('null', 'valid', null) : m))

/** A JSON number within ±limit (latitude 90, longitude 180); `onNull` where null has a meaning of its own. */
function coordinate(limit: number, onNull: Expect): Mutation[] {
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
function regionalId(): Mutation[] {
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
function calendarDate(options: { nullable: boolean; valid: string[] }): Mutation[] {
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
function oneOf(values: readonly string[]): Mutation[] {
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

const flagValues = () => [...flag(), mutation('true', 'valid', true), mutation('false', 'valid', false)]

/** An optional code, unique per workspace (case-insensitive) but free across workspaces. */
function uniqueCode(conflict: string, taken: (rc: RouteCtx) => string, foreignCode: () => string): Mutation[] {
  return [
    ...optionalText(64),
    mutation('the code of another row, in lower case', 'invalid', (_: unknown, rc: RouteCtx) => taken(rc).toLowerCase(), {
      outcome: failsWith([409], [conflict], 'code'),
    }),
    mutation('the code of a row in another workspace', 'valid', () => foreignCode()),
  ]
}

/** A list of ids of parent rows (assignees, members, visits). */
function idList(o: {
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
function formRefs(field: string, max: number): Mutation[] {
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
function photo(): Mutation[] {
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

const FIELD = { key: 'facings', label: 'Facings', type: 'integer', required: true }
const SELECT_FIELD = { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'] }
const EVERY_TYPE = [
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
const storedFields = (sent: Record<string, any>[]) =>
  sent.map(({ key, label, type, required, options, min, max }) => ({
    key,
    label: label.trim(),
    type,
    required: required ?? false,
    ...(options ? { options: options.map((o: string) => o.trim()) } : {}),
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
  }))

/** `fields` of a form (docs/API.md §Other areas); errors are keyed `fields.N.<property>`. */
function formFields(): Mutation[] {
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
function submitItems(): Mutation[] {
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
function legacyAnswers(): Mutation[] {
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

// Teams ----------------------------------------------------------------------------------------

const teamFields = (required: boolean): Record<string, FieldSpec> => ({
  name: {
    mutations: [
      ...requiredText(255),
      mutation('the name of another team, in upper case', 'invalid', (_: unknown, rc: RouteCtx) => rc.takenName.toUpperCase(), {
        outcome: failsWith([409], ['TEAM_ALREADY_EXISTS'], 'name'),
      }),
    ],
    required,
  },
  description: { mutations: optionalText(2000), required: false },
  leader_id: { mutations: nullable(parentId({ foreign: () => foreign.user_id, deleted: (rc) => rc.deletedUser })), required: false },
  user_ids: {
    mutations: idList({
      max: 1000,
      item: (rc) => rc.member,
      second: (rc) => rc.ws.owner.user.id,
      foreign: () => foreign.user_id,
      deleted: (rc) => rc.deletedUser,
    }),
    required: false,
  },
})

const teamSetup = async (rc: RouteCtx) => {
  rc.member = await newUser(rc.token, rc.ws.roles.user)
  await deletedUserOf(rc)
  rc.takenName = (await newTeam(rc.token)).name
}
const teamBody = (rc: RouteCtx) => ({ name: unique('Team'), description: 'North Jakarta merchandisers', leader_id: rc.member, user_ids: [rc.member] })
const teamReadBack = async (rc: RouteCtx, id: number) => {
  const team = okData(await t.app.get(`/office/v1/teams/${id}`, { token: rc.token }), 'reading the team')
  return {
    name: team.name,
    description: team.description,
    leader_id: team.leader_id,
    user_ids: sortedIds(team.members.map((m: { user_id: number }) => m.user_id)),
  }
}

SPECS['POST /api/office/v1/teams'] = {
  family: 'teams',
  setup: teamSetup,
  baseline: async (rc) => ({ path: '/office/v1/teams', body: teamBody(rc), token: rc.token }),
  fields: teamFields(true),
  readBack: (rc, reply) => teamReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/teams/:id'] = {
  family: 'teams',
  setup: async (rc) => {
    await teamSetup(rc)
    rc.target = (await newTeam(rc.token)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/teams/${rc.target}`, body: teamBody(rc), token: rc.token }),
  fields: teamFields(false),
  readBack: (rc) => teamReadBack(rc, rc.target),
}

// Outlets --------------------------------------------------------------------------------------

const outletFields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  code: {
    mutations: uniqueCode(
      'OUTLET_ALREADY_EXISTS',
      (rc) => rc.takenCode,
      () => foreign.outlet_code,
    ),
    required: false,
  },
  address: { mutations: optionalText(1000), required: false },
  // Coordinates come as a pair: with the other one in the body, leaving one out (or null) is refused
  // on create; on update a left-out one keeps its stored value.
  latitude: { mutations: coordinate(90, invalid('latitude')), required: create },
  longitude: { mutations: coordinate(180, invalid('longitude')), required: create },
  account_id: { mutations: nullable(parentId({ foreign: () => foreign.account_id, deleted: (rc) => rc.deletedAccount })), required: false },
  sub_area_id: { mutations: nullable(parentId({ foreign: () => foreign.sub_area_id, deleted: (rc) => rc.deletedSubArea })), required: false },
  province_id: { mutations: regionalId(), required: false },
  city_id: { mutations: regionalId(), required: false },
  district_id: { mutations: regionalId(), required: false },
  village_id: { mutations: regionalId(), required: false },
  contact_name: { mutations: optionalText(255), required: false },
  contact_phone: { mutations: optionalText(32), required: false },
  is_active: { mutations: flagValues(), required: false },
})

const outletSetup = async (rc: RouteCtx) => {
  rc.account = await newAccount(rc.token)
  rc.deletedAccount = await deleted('outlets/accounts', await newAccount(rc.token), rc.token)
  rc.subArea = await newSubArea(rc.token)
  rc.deletedSubArea = await deleted('outlets/sub-areas', await newSubArea(rc.token), rc.token)
  rc.takenCode = (await newOutlet(rc.token, { code: unique('TAKEN').toUpperCase() })).code
}
const outletBody = (rc: RouteCtx) => ({
  name: unique('Outlet'),
  code: unique('OUT'),
  address: 'Jl. Sudirman 1, Jakarta',
  ...SITE,
  account_id: rc.account,
  sub_area_id: rc.subArea,
  province_id: 31,
  city_id: 3171,
  district_id: 317101,
  village_id: 3171011001,
  contact_name: 'Budi',
  contact_phone: '+62 812 0000 0000',
  is_active: true,
})
const outletReadBack = async (rc: RouteCtx, id: number) => okData(await t.app.get(`/office/v1/outlets/${id}`, { token: rc.token }), 'reading the outlet')

SPECS['POST /api/office/v1/outlets'] = {
  family: 'outlets',
  setup: outletSetup,
  baseline: async (rc) => ({ path: '/office/v1/outlets', body: outletBody(rc), token: rc.token }),
  fields: outletFields(true),
  readBack: (rc, reply) => outletReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/outlets/:id'] = {
  family: 'outlets',
  setup: async (rc) => {
    await outletSetup(rc)
    rc.target = (await newOutlet(rc.token)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/outlets/${rc.target}`, body: outletBody(rc), token: rc.token }),
  fields: outletFields(false),
  readBack: (rc) => outletReadBack(rc, rc.target),
}

// Forms ----------------------------------------------------------------------------------------

const formSpecFields = (required: boolean): Record<string, FieldSpec> => ({
  title: { mutations: requiredText(255), required },
  description: { mutations: optionalText(2000), required: false },
  fields: { mutations: formFields(), required },
})
const formBody = () => ({ title: unique('Form'), description: 'Weekly shelf check', fields: [FIELD, SELECT_FIELD] })
const formReadBack = async (rc: RouteCtx, id: number) => {
  const form = okData(await t.app.get(`/office/v1/forms/${id}`, { token: rc.token }), 'reading the form')
  return { title: form.title, description: form.description, fields: form.fields }
}

SPECS['POST /api/office/v1/forms'] = {
  family: 'forms',
  baseline: async (rc) => ({ path: '/office/v1/forms', body: formBody(), token: rc.token }),
  fields: formSpecFields(true),
  readBack: (rc, reply) => formReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/forms/:id'] = {
  family: 'forms',
  setup: async (rc) => {
    rc.target = await newForm(rc.token)
  },
  baseline: async (rc) => ({ path: `/office/v1/forms/${rc.target}`, body: formBody(), token: rc.token }),
  fields: formSpecFields(false),
  readBack: (rc) => formReadBack(rc, rc.target),
}

// Projects -------------------------------------------------------------------------------------

const PROJECT_STATUSES = ['draft', 'active', 'completed', 'archived']

const projectFields = (required: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required },
  code: {
    mutations: uniqueCode(
      'PROJECT_ALREADY_EXISTS',
      (rc) => rc.takenCode,
      () => foreign.project_code,
    ),
    required: false,
  },
  // No principal exists in these workspaces, so any id is one that does not exist (docs/API.md §Errors: 400).
  principal_id: {
    mutations: nullable(parentId({ foreign: () => 0 })).filter((m) => m.label !== 'an id of another workspace'),
    required: false,
  },
  start_date: {
    mutations: [
      ...calendarDate({ nullable: true, valid: ['2024-02-29'] }),
      mutation('after end_date', 'invalid', '2027-01-01', { outcome: invalid('end_date') }),
    ],
    required: false,
  },
  end_date: {
    mutations: [...calendarDate({ nullable: true, valid: ['2028-02-29'] }), mutation('before start_date', 'invalid', '2025-12-31')],
    required: false,
  },
  status: { mutations: oneOf(PROJECT_STATUSES), required: false },
  forms: { mutations: formRefs('forms', 100), required: false },
})

const projectSetup = async (rc: RouteCtx) => {
  rc.form = await newForm(rc.token)
  rc.form2 = await newForm(rc.token)
  await deletedFormOf(rc)
  rc.takenCode = (await newProject(rc.token, rc.form, { code: unique('TAKEN').toUpperCase() })).code
}
const projectBody = (rc: RouteCtx) => ({
  name: unique('Project'),
  code: unique('PRJ'),
  principal_id: null,
  start_date: '2026-01-01',
  end_date: '2026-12-31',
  status: 'active',
  forms: [{ form_id: rc.form, is_required: true, order: 0 }],
})
const projectInBodyTerms = (project: any) => ({
  ...project,
  forms: project.forms.map(({ form_id, is_required, order }: any) => ({ form_id, is_required, order })),
})
const projectReadBack = async (rc: RouteCtx, id: number) =>
  projectInBodyTerms(okData(await t.app.get(`/office/v1/projects/${id}`, { token: rc.token }), 'reading the project'))

SPECS['POST /api/office/v1/projects'] = {
  family: 'projects',
  setup: projectSetup,
  baseline: async (rc) => ({ path: '/office/v1/projects', body: projectBody(rc), token: rc.token }),
  fields: projectFields(true),
  readBack: (rc, reply) => projectReadBack(rc, reply.body.data.id),
  answered: (_rc, reply) => projectInBodyTerms(reply.body.data),
}

SPECS['PUT /api/office/v1/projects/:id'] = {
  family: 'projects',
  setup: async (rc) => {
    await projectSetup(rc)
    rc.target = (await newProject(rc.token, rc.form)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/projects/${rc.target}`, body: projectBody(rc), token: rc.token }),
  fields: projectFields(false),
  readBack: (rc) => projectReadBack(rc, rc.target),
  answered: (_rc, reply) => projectInBodyTerms(reply.body.data),
}

// Visits (both path listings, docs/API.md §Visits) --------------------------------------------------------

const VISIT_LISTINGS = ['visits', 'outlet-visits'] as const
const BULK_MAX = 500

const visitBody = (rc: RouteCtx) => ({
  outlet_id: rc.outlet,
  project_id: rc.project,
  visit_date: VISIT_DATE,
  team_id: rc.team,
  user_ids: [rc.field.user.id],
  submissions: [{ form_id: rc.form, is_required: true, order: 0 }],
  notes: 'Bring the planogram',
})

const outletRef = (): Mutation[] => [
  ...parentId({ foreign: () => foreign.outlet_id, deleted: (rc) => rc.deletedOutlet }),
  mutation('an inactive outlet', 'notFound', (_: unknown, rc: RouteCtx) => rc.inactiveOutlet),
]
const projectRef = (): Mutation[] => [
  ...parentId({ foreign: () => foreign.project_id, deleted: (rc) => rc.deletedProject }),
  mutation('a draft project', 'notFound', (_: unknown, rc: RouteCtx) => rc.draftProject),
]

const visitFields = (): Record<string, FieldSpec> => ({
  outlet_id: { mutations: outletRef(), required: true },
  project_id: { mutations: projectRef(), required: true },
  visit_date: { mutations: calendarDate({ nullable: false, valid: ['2028-02-29', '2000-02-29'] }), required: true },
  team_id: { mutations: nullable(parentId({ foreign: () => foreign.team_id, deleted: (rc) => rc.deletedTeam })), required: false },
  user_ids: {
    mutations: idList({
      max: 100,
      item: (rc) => rc.field.user.id,
      second: (rc) => rc.ws.owner.user.id,
      foreign: () => foreign.user_id,
      deleted: (rc) => rc.deletedUser,
    }),
    required: false,
  },
  submissions: { mutations: formRefs('submissions', 50), required: false },
  notes: { mutations: optionalText(2000), required: false },
})

const planningSetup = async (rc: RouteCtx) => {
  await visitKit(rc)
  rc.form2 = await newForm(rc.token)
  await unusableParents(rc)
  await deletedFormOf(rc)
  await deletedUserOf(rc)
}

/** `visits` of the bulk body: every item is a create body; errors are keyed `visits.N.<field>`. */
function bulkVisits(): Mutation[] {
  const item = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({ ...visitBody(rc), ...extra })
  const stored = (sent: Record<string, any>[]) => sent.map(plannedAs)
  const items = (make: (rc: RouteCtx) => unknown[]) => (_: unknown, rc: RouteCtx) => make(rc)
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single visit instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => item(rc)),
    mutation('empty list', 'invalid', []),
    mutation(
      `${BULK_MAX + 1} visits (limit ${BULK_MAX})`,
      'invalid',
      items((rc) => Array.from({ length: BULK_MAX + 1 }, () => item(rc))),
    ),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation(
      'a visit without outlet_id',
      'invalid',
      items((rc) => [{ ...item(rc), outlet_id: undefined }]),
      { path: '0.outlet_id' },
    ),
    mutation(
      'outlet_id as a string',
      'invalid',
      items((rc) => [item(rc, { outlet_id: String(rc.outlet) })]),
      { path: '0.outlet_id' },
    ),
    mutation(
      'an outlet of another workspace',
      'invalid',
      items((rc) => [item(rc, { outlet_id: foreign.outlet_id })]),
      { path: '0.outlet_id' },
    ),
    mutation(
      'a soft-deleted project',
      'invalid',
      items((rc) => [item(rc, { project_id: rc.deletedProject })]),
      { path: '0.project_id' },
    ),
    mutation(
      'a team that does not exist',
      'invalid',
      items((rc) => [item(rc, { team_id: 99_999_999 })]),
      { path: '0.team_id' },
    ),
    mutation(
      '2026-02-30 in the second visit',
      'invalid',
      items((rc) => [item(rc), item(rc, { visit_date: '2026-02-30' })]),
      { path: '1.visit_date' },
    ),
    mutation(
      'an unknown user in the second visit',
      'invalid',
      items((rc) => [item(rc), item(rc, { user_ids: [99_999_999] })]),
      { path: '1.user_ids' },
    ),
    mutation(
      'a form listed twice',
      'invalid',
      items((rc) => [
        item(rc, {
          submissions: [
            { form_id: rc.form, is_required: true },
            { form_id: rc.form, is_required: false },
          ],
        }),
      ]),
      { path: '0.submissions.1.form_id' },
    ),
    mutation(
      'notes of 2001 characters',
      'invalid',
      items((rc) => [item(rc, { notes: 'n'.repeat(2001) })]),
      { path: '0.notes' },
    ),
    mutation(
      'two visits',
      'valid',
      items((rc) => [item(rc), item(rc, { visit_date: '2026-11-23', team_id: null, user_ids: [], submissions: [], notes: null })]),
      { stored },
    ),
    mutation(
      'the same visit twice',
      'valid',
      items((rc) => [item(rc), item(rc)]),
      { stored },
    ),
  ]
}

const reviewBack = async (rc: RouteCtx, reply: Reply) => {
  const submission = okData(await t.app.get(`/office/v1/visits/submissions/${reply.body.data.id}`, { token: rc.token }), 'reading the submission')
  return { status: submission.approval_status, notes: submission.approval_notes }
}
const reviewAnswered = (_rc: RouteCtx, reply: Reply) => ({ status: reply.body.data.approval_status, notes: reply.body.data.approval_notes })

for (const listing of VISIT_LISTINGS) {
  const office = `/office/v1/${listing}`

  SPECS[`POST /api${office}`] = {
    family: 'visits: planning',
    setup: planningSetup,
    baseline: async (rc) => ({ path: office, body: visitBody(rc), token: rc.token }),
    fields: visitFields(),
    readBack: async (rc, reply) => visitInBodyTerms(await visitDetail(rc, reply.body.data.id)),
    answered: (_rc, reply) => visitInBodyTerms(reply.body.data),
  }

  SPECS[`POST /api${office}/bulk`] = {
    family: 'visits: planning',
    setup: planningSetup,
    baseline: async (rc) => ({ path: `${office}/bulk`, body: { visits: [visitBody(rc)] }, token: rc.token }),
    fields: { visits: { mutations: bulkVisits(), required: true } },
    readBack: async (rc, reply) => ({
      visits: await Promise.all(reply.body.data.ids.map(async (id: number) => visitInBodyTerms(await visitDetail(rc, id)))),
    }),
  }

  SPECS[`POST /api${office}/send-to-field`] = {
    family: 'visits: planning',
    setup: async (rc) => {
      await visitKit(rc)
      rc.visit = (await planVisit(rc)).id
      rc.visit2 = (await planVisit(rc)).id
      const done = await startedVisit(rc)
      okData(await t.app.post(`/app/v1/visits/${done.id}/check-out`, SITE, { token: rc.field.token }), 'check-out')
      rc.completedVisit = done.id
    },
    baseline: async (rc) => ({ path: `${office}/send-to-field`, body: { visit_ids: [rc.visit] }, token: rc.token }),
    fields: {
      visit_ids: {
        mutations: [
          ...idList({ max: BULK_MAX, min: 1, item: (rc) => rc.visit, second: (rc) => rc.visit2, foreign: () => foreign.visit_id }),
          mutation('a scheduled and a completed visit', 'invalid', (_: unknown, rc: RouteCtx) => [rc.visit, rc.completedVisit], {
            outcome: failsWith([409], ['INVALID_VISIT_STATUS']),
          }),
        ],
        required: true,
      },
    },
    // The visits the answer names, where the visit now shows it was sent.
    readBack: async (rc, reply) => {
      const sent: number[] = []
      for (const { id } of reply.body.data.visits) if ((await visitDetail(rc, id)).sent_to_field_at) sent.push(id)
      return { visit_ids: sortedIds(sent) }
    },
  }

  for (const [action, prepare] of [
    ['cancel', planVisit],
    ['force-close', startedVisit],
  ] as const) {
    SPECS[`PUT /api${office}/:id/${action}`] = {
      family: 'visits: closing',
      setup: visitKit,
      baseline: async (rc) => ({
        path: `${office}/${(await fresh(rc, prepare)).id}/${action}`,
        body: { reason: 'Shop closed for renovation' },
        token: rc.token,
      }),
      fields: { reason: { mutations: requiredText(1000), required: true } },
      readBack: async (rc, reply) => ({ reason: (await visitDetail(rc, reply.body.data.id)).close_reason }),
      answered: (_rc, reply) => ({ reason: reply.body.data.close_reason }),
      cleanup: usedUp,
    }
  }

  const assign = listing === 'visits' ? 'assign' : 'assign-users'
  SPECS[`POST /api${office}/:id/${assign}`] = {
    family: 'visits: planning',
    setup: async (rc) => {
      await visitKit(rc)
      await deletedUserOf(rc)
      rc.visit = (await planVisit(rc)).id
    },
    baseline: async (rc) => ({ path: `${office}/${rc.visit}/${assign}`, body: { user_ids: [rc.field.user.id] }, token: rc.token }),
    fields: {
      user_ids: {
        mutations: idList({
          max: 100,
          item: (rc) => rc.field.user.id,
          second: (rc) => rc.ws.owner.user.id,
          foreign: () => foreign.user_id,
          deleted: (rc) => rc.deletedUser,
        }),
        required: true,
      },
    },
    readBack: async (rc) => ({ user_ids: visitInBodyTerms(await visitDetail(rc, rc.visit)).user_ids }),
    answered: (_rc, reply) => ({ user_ids: visitInBodyTerms(reply.body.data).user_ids }),
  }

  SPECS[`POST /api${office}/:id/submissions`] = {
    family: 'visits: planning',
    setup: async (rc) => {
      await visitKit(rc)
      await deletedFormOf(rc)
      rc.visit = (await planVisit(rc)).id
    },
    baseline: async (rc) => ({ path: `${office}/${rc.visit}/submissions`, body: { form_id: rc.form, is_required: true }, token: rc.token }),
    fields: {
      form_id: { mutations: parentId({ foreign: () => foreign.form_id, deleted: (rc) => rc.deletedForm }), required: true },
      is_required: { mutations: flagValues(), required: false },
    },
    readBack: async (rc, reply) => {
      const submission = await submissionOf(rc, rc.visit, reply.body.data.id)
      return { form_id: submission.form_id, is_required: submission.is_required }
    },
  }

  SPECS[`POST /api${office}/:id/submissions/:submission_id/approve`] = {
    family: 'visits: reviews',
    setup: visitKit,
    baseline: async (rc) => {
      const { visit, submission } = await fresh(rc, submittedForm)
      return { path: `${office}/${visit}/submissions/${submission}/approve`, body: { notes: 'Well done' }, token: rc.token }
    },
    // Notes are optional: an empty body approves.
    fields: { notes: { mutations: optionalText(2000), required: false, onMissing: { type: 'ok', checkStored: false } } },
    readBack: reviewBack,
    answered: reviewAnswered,
    cleanup: usedUp,
  }

  SPECS[`POST /api${office}/:id/submissions/:submission_id/reject`] = {
    family: 'visits: reviews',
    setup: visitKit,
    baseline: async (rc) => {
      const { visit, submission } = await fresh(rc, submittedForm)
      return { path: `${office}/${visit}/submissions/${submission}/reject`, body: { notes: 'The photo is blurry' }, token: rc.token }
    },
    fields: { notes: { mutations: requiredText(2000), required: true } },
    readBack: reviewBack,
    answered: reviewAnswered,
    cleanup: usedUp,
  }

  SPECS[`POST /api${office}/submissions/:id/approval`] = {
    family: 'visits: reviews',
    setup: visitKit,
    baseline: async (rc, field) => {
      const { submission } = await fresh(rc, submittedForm)
      // Notes are required to reject: their mutations are tried on a rejection.
      const body = field === 'notes' ? { status: 'rejected', notes: 'The photo is blurry' } : { status: 'approved', notes: 'Well done' }
      return { path: `${office}/submissions/${submission}/approval`, body, token: rc.token }
    },
    fields: {
      status: {
        mutations: [
          missing,
          ...wrongTypes('string'),
          mutation('"junk"', 'invalid', 'junk'),
          mutation('"APPROVED" (case matters)', 'invalid', 'APPROVED'),
          mutation('"pending" (not a decision)', 'invalid', 'pending'),
          mutation('empty string', 'invalid', ''),
          mutation('"rejected"', 'valid', 'rejected'),
          mutation('"approved"', 'valid', 'approved'),
        ],
        required: true,
      },
      notes: { mutations: requiredText(2000), required: true },
    },
    readBack: reviewBack,
    answered: reviewAnswered,
    cleanup: usedUp,
  }
}

// Visits on the phone ----------------------------------------------------------------------------

for (const path of ['/app/v1/visits/self', '/app/v1/outlet-visits']) {
  SPECS[`POST /api${path}`] = {
    family: 'visits: in the field',
    setup: async (rc) => {
      await visitKit(rc)
      await unusableParents(rc)
    },
    baseline: async (rc) => ({
      path,
      body: { outlet_id: rc.outlet, project_id: rc.project, notes: 'On my way', visit_date: VISIT_DATE },
      token: rc.field.token,
    }),
    fields: {
      outlet_id: { mutations: outletRef(), required: true },
      project_id: { mutations: projectRef(), required: true },
      notes: { mutations: optionalText(2000), required: false },
      visit_date: { mutations: calendarDate({ nullable: false, valid: ['2028-02-29'] }), required: false },
    },
    readBack: async (rc, reply) => visitInBodyTerms(await visitDetail(rc, reply.body.data.id)),
    answered: (_rc, reply) => visitInBodyTerms(reply.body.data),
  }
}

const locationRequired = (field: string) => failsWith([400], ['LOCATION_REQUIRED'], field)

/** Check-in and check-out bodies: a missing or null coordinate is 400 LOCATION_REQUIRED (docs/API.md §Errors). */
const siteFields = (photoField: string): Record<string, FieldSpec> => ({
  latitude: { mutations: coordinate(90, locationRequired('latitude')), required: true, onMissing: locationRequired('latitude') },
  longitude: { mutations: coordinate(180, locationRequired('longitude')), required: true, onMissing: locationRequired('longitude') },
  [photoField]: { mutations: photo(), required: false },
  notes: { mutations: optionalText(1000), required: false },
})

/** Where a check-in or check-out is kept: location and photo on the visit, notes in its log (docs/API.md §Other areas). */
async function siteBack(rc: RouteCtx, visitId: number, step: 'check_in' | 'check_out') {
  const visit = await visitDetail(rc, visitId)
  return { ...siteAnswered(visit, step), [`${step}_photo`]: await photoBack(rc, visit[`${step}_photo_url`]) }
}
function siteAnswered(visit: any, step: 'check_in' | 'check_out') {
  const location = visit[`${step}_location`]
  const log = [...visit.logs].reverse().find((entry: { action: string }) => entry.action === step)
  return { latitude: location?.latitude ?? null, longitude: location?.longitude ?? null, notes: log?.notes ?? null }
}

async function submitSetup(rc: RouteCtx) {
  await visitKit(rc)
  rc.form2 = await newForm(rc.token)
  await deletedFormOf(rc)
  const visit = await startedVisit(rc, {
    submissions: [
      { form_id: rc.form, is_required: false },
      { form_id: rc.form2, is_required: false },
    ],
  })
  rc.visit = visit.id
  // Sent and rejected: it may be saved again, and id-less items (which fill a form's submission that
  // is not yet completed) leave it alone, so it stays there for the items that name it.
  rc.draftable = visit.submissions[0].id
  const sent = [{ submission_id: rc.draftable, status: 'completed', answers: GOOD_ANSWERS }]
  okData(await t.app.post(`/app/v1/visits/${visit.id}/submit-form-v2`, { form_id: rc.form, items: sent }, { token: rc.field.token }), 'submit-form-v2')
  okData(await t.app.post(`/office/v1/visits/${visit.id}/submissions/${rc.draftable}/reject`, { notes: 'again' }, { token: rc.token }), 'reject')
  rc.form2Submission = visit.submissions[1].id
  rc.elsewhere = (await planVisit(rc, { submissions: [{ form_id: rc.form, is_required: false }] })).submissions[0].id
}

for (const listing of VISIT_LISTINGS) {
  const mobile = `/app/v1/${listing}`

  SPECS[`POST /api${mobile}/:id/check-in`] = {
    family: 'visits: in the field',
    setup: visitKit,
    baseline: async (rc) => ({
      path: `${mobile}/${(await fresh(rc, planVisit)).id}/check-in`,
      body: { ...SITE, check_in_photo: 'https://cdn.example.com/arrival.jpg', notes: 'Arrived' },
      token: rc.field.token,
    }),
    fields: siteFields('check_in_photo'),
    readBack: (rc, reply) => siteBack(rc, reply.body.data.id, 'check_in'),
    answered: (_rc, reply) => siteAnswered(reply.body.data, 'check_in'),
    // One visit in progress per user: the checked-in visit is closed before the next check-in.
    cleanup: async (rc, reply) => {
      okData(await t.app.put(`/office/v1/visits/${reply.body.data.id}/force-close`, { reason: 'test done' }, { token: rc.token }), 'force-close')
      rc.fresh = undefined
    },
  }

  SPECS[`POST /api${mobile}/:id/check-out`] = {
    family: 'visits: in the field',
    setup: visitKit,
    baseline: async (rc) => ({
      path: `${mobile}/${(await fresh(rc, startedVisit)).id}/check-out`,
      body: { ...SITE, check_out_photo: 'https://cdn.example.com/departure.jpg', notes: 'All done' },
      token: rc.field.token,
    }),
    fields: siteFields('check_out_photo'),
    readBack: (rc, reply) => siteBack(rc, reply.body.data.id, 'check_out'),
    answered: (_rc, reply) => siteAnswered(reply.body.data, 'check_out'),
    cleanup: usedUp,
  }

  SPECS[`POST /api${mobile}/:id/submit-form-v2`] = {
    family: 'visits: in the field',
    setup: submitSetup,
    baseline: async (rc) => ({
      path: `${mobile}/${rc.visit}/submit-form-v2`,
      body: { form_id: rc.form, items: [{ submission_id: null, status: 'completed', answers: GOOD_ANSWERS }] },
      token: rc.field.token,
    }),
    fields: {
      form_id: { mutations: parentId({ foreign: () => foreign.form_id, deleted: (rc) => rc.deletedForm }), required: true },
      items: { mutations: submitItems(), required: true },
    },
    readBack: async (rc, reply) => ({
      items: await Promise.all(
        reply.body.data.submissions.map(async ({ id }: { id: number }) => {
          const stored = await submissionOf(rc, rc.visit, id)
          return { status: stored.status, answers: answersBack(stored.answers) }
        }),
      ),
    }),
  }

  SPECS[`POST /api${mobile}/:id/submit-form`] = {
    family: 'visits: in the field',
    setup: submitSetup,
    baseline: async (rc) => ({ path: `${mobile}/${rc.visit}/submit-form`, body: { form_id: rc.form, answers: GOOD_ANSWERS }, token: rc.field.token }),
    fields: {
      form_id: { mutations: parentId({ foreign: () => foreign.form_id, deleted: (rc) => rc.deletedForm }), required: true },
      answers: { mutations: legacyAnswers(), required: true },
    },
    readBack: async (rc, reply) => ({ answers: answersBack((await submissionOf(rc, rc.visit, reply.body.data.submissions[0].id)).answers) }),
  }
}

// Workspace settings ---------------------------------------------------------------------------

/** `location_retention_days`: an integer number of days, 1 to 3650 (docs/API.md §Location tracking). */
function retentionDays(): Mutation[] {
  return [
    missing,
    ...wrongTypes('integer'),
    mutation('its value as a string ("30")', 'invalid', '30'),
    mutation('zero', 'invalid', 0),
    mutation('negative -1', 'invalid', -1),
    mutation('3651 (limit 3650)', 'invalid', 3651),
    mutation('float 1.5', 'invalid', 1.5),
    mutation('huge 1e308', 'invalid', 1e308),
    mutation('exactly 1', 'valid', 1),
    mutation('exactly 3650', 'valid', 3650),
    mutation('the default 90', 'valid', 90),
  ]
}

SPECS['PUT /api/office/v1/workspaces/:id/settings'] = {
  family: 'workspaces',
  // The caller's own workspace (another id is a 404, see the security suite).
  baseline: async (rc) => ({
    path: `/office/v1/workspaces/${rc.ws.id}/settings`,
    body: { name: unique('Workspace'), location_retention_days: 30 },
    token: rc.token,
  }),
  fields: {
    name: { mutations: requiredText(255), required: false },
    location_retention_days: { mutations: retentionDays(), required: false },
  },
  readBack: async (rc) => {
    const [row] = await t.app.db.pragma(`SELECT name, location_retention_days FROM workspaces WHERE id = ${rc.ws.id}`)
    return row
  },
}

// Location batch (docs/API.md §Location tracking) ---------------------------------------------------------------------

let deviceSeconds = 0
/** A device time no other ping of the matrix has: a repeat would be skipped as a resent backlog. */
const deviceTime = () => new Date(t.app.clock.now().getTime() - 60_000 - ++deviceSeconds * 1000).toISOString()

const fullPing = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({
  lat: -6.2,
  lng: 106.8,
  is_mock: false,
  visit_id: rc.visit,
  accuracy_m: 5,
  speed_mps: 1.5,
  source: 'gps',
  battery_level: 0.8,
  signal_quality: 'good',
  recorded_at: deviceTime(),
  ...extra,
})

/** The same instant written with a +07:00 offset (`…T08:00:00.000Z` → `…T15:00:00.000+07:00`). */
const inJakarta = (iso: string) => new Date(Date.parse(iso) + 7 * 3_600_000).toISOString().replace('Z', '+07:00')

/** A ping as stored and read back: absent optional fields are null, recorded_at in UTC (or the receive time). */
const pingAsStored = (sent: Record<string, any>) => ({
  lat: sent.lat,
  lng: sent.lng,
  is_mock: sent.is_mock,
  visit_id: sent.visit_id ?? null,
  accuracy_m: sent.accuracy_m ?? null,
  speed_mps: sent.speed_mps ?? null,
  source: sent.source ?? null,
  battery_level: sent.battery_level ?? null,
  signal_quality: sent.signal_quality ?? null,
  recorded_at: sent.recorded_at != null ? new Date(sent.recorded_at).toISOString() : t.app.clock.now().toISOString(),
})

/** `pings` of a batch: 1 to 50 pings, all or nothing; errors are keyed `pings.N.<field>`. */
function pingList(): Mutation[] {
  type Extra = Record<string, unknown>
  const pings =
    (...extras: Extra[]) =>
    (_: unknown, rc: RouteCtx) =>
      extras.map((extra) => fullPing(rc, extra))
  const bad = (label: string, extra: Extra, path: string) => mutation(label, 'invalid', pings(extra), { path: `0.${path}` })
  const good = (label: string, ...extras: Extra[]) => mutation(label, 'valid', pings(...extras), { stored: (sent: Extra[]) => sent.map(pingAsStored) })
  const absent = undefined
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single ping instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => fullPing(rc)),
    mutation('empty list', 'invalid', []),
    mutation('51 pings (limit 50)', 'invalid', (_: unknown, rc: RouteCtx) => Array.from({ length: 51 }, () => fullPing(rc))),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('a ping that is a number', 'invalid', [42], { path: '0' }),
    bad('a ping without lat', { lat: absent }, 'lat'),
    bad('lat 90.5', { lat: 90.5 }, 'lat'),
    bad('lat -90.5', { lat: -90.5 }, 'lat'),
    bad('lat as a string', { lat: '-6.2' }, 'lat'),
    bad('lat null', { lat: null }, 'lat'),
    bad('a ping without lng', { lng: absent }, 'lng'),
    bad('lng 180.5', { lng: 180.5 }, 'lng'),
    bad('lng -180.5', { lng: -180.5 }, 'lng'),
    bad('a ping without is_mock', { is_mock: absent }, 'is_mock'),
    bad('is_mock "false"', { is_mock: 'false' }, 'is_mock'),
    bad('is_mock 0', { is_mock: 0 }, 'is_mock'),
    bad('accuracy_m -1', { accuracy_m: -1 }, 'accuracy_m'),
    bad('speed_mps -0.5', { speed_mps: -0.5 }, 'speed_mps'),
    bad('battery_level 1.5', { battery_level: 1.5 }, 'battery_level'),
    bad('battery_level -0.1', { battery_level: -0.1 }, 'battery_level'),
    bad('source "wifi"', { source: 'wifi' }, 'source'),
    bad('source "GPS" (case matters)', { source: 'GPS' }, 'source'),
    bad('an SQL-ish source', { source: "gps' OR '1'='1" }, 'source'),
    bad('signal_quality "excellent"', { signal_quality: 'excellent' }, 'signal_quality'),
    bad('visit_id 0', { visit_id: 0 }, 'visit_id'),
    bad('visit_id as a string', { visit_id: '1' }, 'visit_id'),
    bad('visit_id 2^53', { visit_id: 2 ** 53 }, 'visit_id'),
    bad('a visit that does not exist', { visit_id: 99_999_999 }, 'visit_id'),
    mutation('a visit of another workspace', 'invalid', (_: unknown, rc: RouteCtx) => [fullPing(rc, { visit_id: foreign.visit_id })], { path: '0.visit_id' }),
    bad('recorded_at "junk"', { recorded_at: 'junk' }, 'recorded_at'),
    bad('recorded_at 2026-02-30 (no such day)', { recorded_at: '2026-02-30T08:00:00Z' }, 'recorded_at'),
    bad('recorded_at a date only', { recorded_at: '2026-01-15' }, 'recorded_at'),
    mutation(
      'recorded_at 10 minutes in the future',
      'invalid',
      (_: unknown, rc: RouteCtx) => [fullPing(rc, { recorded_at: new Date(t.app.clock.now().getTime() + 600_000).toISOString() })],
      {
        path: '0.recorded_at',
      },
    ),
    mutation('a good ping, then one with lat 91 (nothing is saved)', 'invalid', pings({}, { lat: 91 }), { path: '1.lat' }),
    mutation(
      'a good ping, then one of another workspace’s visit (nothing is saved)',
      'invalid',
      (_: unknown, rc: RouteCtx) => [fullPing(rc), fullPing(rc, { visit_id: foreign.visit_id })],
      {
        path: '1.visit_id',
      },
    ),
    good('only the required fields', {
      visit_id: absent,
      accuracy_m: absent,
      speed_mps: absent,
      source: absent,
      battery_level: absent,
      signal_quality: absent,
      recorded_at: absent,
    }),
    good('every optional field null', {
      visit_id: null,
      accuracy_m: null,
      speed_mps: null,
      source: null,
      battery_level: null,
      signal_quality: null,
      recorded_at: null,
    }),
    good('the bounds: lat 90, lng -180, accuracy 0, speed 0, battery 0', { lat: 90, lng: -180, accuracy_m: 0, speed_mps: 0, battery_level: 0 }),
    good('the bounds: lat -90, lng 180, battery 1, a mock location', { lat: -90, lng: 180, battery_level: 1, is_mock: true }),
    good(
      'every source and signal quality',
      { source: 'network', signal_quality: 'fair' },
      { source: 'passive', signal_quality: 'poor' },
      { source: 'gps', signal_quality: 'good' },
    ),
    mutation('recorded_at with a +07:00 offset', 'valid', (_: unknown, rc: RouteCtx) => [fullPing(rc, { recorded_at: inJakarta(deviceTime()) })], {
      stored: (sent: Extra[]) => sent.map(pingAsStored),
    }),
    mutation('50 pings', 'valid', (_: unknown, rc: RouteCtx) => Array.from({ length: 50 }, () => fullPing(rc)), {
      stored: (sent: Extra[]) => sent.map(pingAsStored),
    }),
  ]
}

SPECS['POST /api/app/v1/locations/batch'] = {
  family: 'locations',
  setup: async (rc) => {
    await visitKit(rc)
    rc.visit = (await planVisit(rc)).id
  },
  // Sent by the field user, with the key the route requires (a new one per request).
  baseline: async (rc) => ({
    path: '/app/v1/locations/batch',
    body: { pings: [fullPing(rc)] },
    token: rc.field.token,
    headers: { 'x-idempotency-key': unique('batch') },
  }),
  fields: { pings: { mutations: pingList(), required: true } },
  // The pings this request saved: the field user's newest, as many as it counted, oldest first.
  readBack: async (rc, reply) => {
    const count = Number(reply.body.data.count)
    const rows = await t.app.db.pragma(`SELECT * FROM location_pings WHERE user_id = ${rc.field.user.id} ORDER BY id DESC LIMIT ${count}`)
    return {
      pings: rows.reverse().map((row) => ({
        lat: row.lat,
        lng: row.lng,
        is_mock: Boolean(row.is_mock),
        visit_id: row.visit_id,
        accuracy_m: row.accuracy_m,
        speed_mps: row.speed_mps,
        source: row.source,
        battery_level: row.battery_level,
        signal_quality: row.signal_quality,
        recorded_at: row.recorded_at,
      })),
    }
  },
}

// Catalogue: principals and products (docs/API.md §Other areas) ------------------------------------------------

/** An optional contact email: null clears it; only well-formed addresses of at most 254 characters. */
function optionalEmail(): Mutation[] {
  return [
    missing,
    mutation('null', 'valid', null),
    ...wrongTypes('string').filter((m) => m.label !== 'null'),
    mutation('not an email address', 'invalid', 'not-an-email'),
    mutation('two @ signs', 'invalid', 'a@b@example.com'),
    mutation('255 characters (limit 254)', 'invalid', mailbox('a'.repeat(243))),
    mutation('exactly 254 characters', 'valid', () => mailbox(unique('max').padEnd(242, 'a'))),
    mutation('1 MB string', 'invalid', mailbox(MB)),
    // Blank means "none" (stored as null) or is refused; either way nothing malformed is stored.
    mutation('empty string', 'maybe', '', { stored: () => null }),
    mutation('whitespace only', 'maybe', '   ', { stored: () => null }),
    mutation('surrounded by spaces', 'maybe', '  sales@example.com  ', { stored: trimmed }),
    ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, 'invalid', s)),
    mutation(`SQL-ish but well-formed "o'brien'--@example.com"`, 'valid', `o'brien'--@example.com`),
    mutation('unicode: a lone surrogate', 'safe', 'half\ud800@example.com'),
  ]
}

/** A price: a JSON number from 0 to 1e12, or null. */
function price(): Mutation[] {
  return [
    missing,
    mutation('null', 'valid', null),
    mutation('string "12.5"', 'invalid', '12.5'),
    mutation('boolean true', 'invalid', true),
    mutation('array', 'invalid', [12.5]),
    mutation('object', 'invalid', { amount: 12.5 }),
    mutation('negative -0.01', 'invalid', -0.01),
    mutation('1e12 + 1 (limit 1e12)', 'invalid', 1e12 + 1),
    mutation('huge 1e308', 'invalid', 1e308),
    mutation('zero', 'valid', 0),
    mutation('exactly 1e12', 'valid', 1e12),
    mutation('two decimals', 'valid', 12_345.67),
    mutation('an integer', 'valid', 15_000),
  ]
}

async function newPrincipal(token: string, extra: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
  return post201('/office/v1/principals', { name: unique('Principal'), code: unique('PRN'), ...extra }, token, 'a principal')
}

const principalFields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  code: {
    mutations: uniqueCode(
      'PRINCIPAL_ALREADY_EXISTS',
      (rc) => rc.takenCode,
      () => foreign.principal_code,
    ),
    required: false,
  },
  contact_name: { mutations: optionalText(255), required: false },
  contact_phone: { mutations: optionalText(32), required: false },
  contact_email: { mutations: optionalEmail(), required: false },
})
const principalSetup = async (rc: RouteCtx) => {
  rc.takenCode = (await newPrincipal(rc.token, { code: unique('TAKEN').toUpperCase() })).code
}
const principalBody = () => ({
  name: unique('Principal'),
  code: unique('PRN'),
  contact_name: 'Siti',
  contact_phone: '+62 812 0000 0000',
  contact_email: 'sales@example.com',
})
const principalReadBack = async (rc: RouteCtx, id: number) =>
  okData(await t.app.get(`/office/v1/principals/${id}`, { token: rc.token }), 'reading the principal')

SPECS['POST /api/office/v1/principals'] = {
  family: 'catalogue',
  setup: principalSetup,
  baseline: async (rc) => ({ path: '/office/v1/principals', body: principalBody(), token: rc.token }),
  fields: principalFields(true),
  readBack: (rc, reply) => principalReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/principals/:id'] = {
  family: 'catalogue',
  setup: async (rc) => {
    await principalSetup(rc)
    rc.target = (await newPrincipal(rc.token)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/principals/${rc.target}`, body: principalBody(), token: rc.token }),
  fields: principalFields(false),
  readBack: (rc) => principalReadBack(rc, rc.target),
}

const productFields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  sku: {
    mutations: [
      ...requiredText(64),
      mutation('the SKU of another product, in lower case', 'invalid', (_: unknown, rc: RouteCtx) => rc.takenSku.toLowerCase(), {
        outcome: failsWith([409], ['PRODUCT_ALREADY_EXISTS'], 'sku'),
      }),
      mutation('the SKU of a product in another workspace', 'valid', () => foreign.product_sku),
    ],
    required: create,
  },
  principal_id: { mutations: nullable(parentId({ foreign: () => foreign.principal_id, deleted: (rc) => rc.deletedPrincipal })), required: false },
  price: { mutations: price(), required: false },
  unit: { mutations: optionalText(32), required: false },
  barcode: { mutations: optionalText(64), required: false },
})
const productSetup = async (rc: RouteCtx) => {
  rc.principal = (await newPrincipal(rc.token)).id
  rc.deletedPrincipal = await deleted('principals', (await newPrincipal(rc.token)).id, rc.token)
  rc.takenSku = (await post201('/office/v1/products', { name: unique('Taken'), sku: unique('TAKEN').toUpperCase() }, rc.token, 'a product')).sku
}
const productBody = (rc: RouteCtx) => ({
  name: unique('Product'),
  sku: unique('SKU'),
  principal_id: rc.principal,
  price: 12.5,
  unit: 'pcs',
  barcode: '8991234567890',
})
const productReadBack = async (rc: RouteCtx, id: number) => okData(await t.app.get(`/office/v1/products/${id}`, { token: rc.token }), 'reading the product')

SPECS['POST /api/office/v1/products'] = {
  family: 'catalogue',
  setup: productSetup,
  baseline: async (rc) => ({ path: '/office/v1/products', body: productBody(rc), token: rc.token }),
  fields: productFields(true),
  readBack: (rc, reply) => productReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/products/:id'] = {
  family: 'catalogue',
  setup: async (rc) => {
    await productSetup(rc)
    rc.target = (await post201('/office/v1/products', { name: unique('Target'), sku: unique('SKU') }, rc.token, 'a product')).id
  },
  baseline: async (rc) => ({ path: `/office/v1/products/${rc.target}`, body: productBody(rc), token: rc.token }),
  fields: productFields(false),
  readBack: (rc) => productReadBack(rc, rc.target),
}

// Attendance (docs/API.md §Other areas) ----------------------------------------------------------------------

const ATTENDANCE_DAY = '2026-11-20'
const CLOCKED_IN = '2026-11-20T01:00:00.000Z'
const CLOCKED_OUT = '2026-11-20T10:00:00.000Z'

/** An ISO 8601 date-time of a manual attendance; stored in UTC with milliseconds. */
function dateTime(): Mutation[] {
  const utc = (iso: string) => () => iso
  return [
    missing,
    ...wrongTypes('string'),
    mutation('empty string', 'invalid', ''),
    mutation('"junk"', 'invalid', 'junk'),
    mutation('a date only', 'invalid', ATTENDANCE_DAY),
    mutation('2026-02-30T08:00:00Z (no such day)', 'invalid', '2026-02-30T08:00:00Z'),
    mutation('hour 24', 'invalid', '2026-11-20T24:00:00Z'),
    mutation('a space instead of T', 'invalid', '2026-11-20 08:00:00Z'),
    mutation('20/11/2026 08:00', 'invalid', '20/11/2026 08:00'),
    mutation('epoch milliseconds as text', 'invalid', '1763600000000'),
    mutation('SQL-ish', 'invalid', "2026-11-20T08:00:00Z' OR 1=1 --"),
    mutation('1 MB string', 'invalid', MB),
    mutation('with a +07:00 offset (stored in UTC)', 'valid', '2026-11-20T08:30:00+07:00', { stored: utc('2026-11-20T01:30:00.000Z') }),
    mutation('without a zone (read as UTC)', 'valid', '2026-11-20T02:15:00', { stored: utc('2026-11-20T02:15:00.000Z') }),
    mutation('with milliseconds', 'valid', '2026-11-20T03:45:10.250Z', { stored: utc('2026-11-20T03:45:10.250Z') }),
  ]
}

const attendanceReadBack = async (rc: RouteCtx, id: number) => {
  const row = okData(await t.app.get(`/office/v1/attendances/${id}`, { token: rc.token }), 'reading the attendance')
  return { user_id: row.user_id, date: row.date, check_in_at: row.check_in_at, check_out_at: row.check_out_at, notes: row.notes }
}

SPECS['POST /api/office/v1/attendances'] = {
  family: 'attendance',
  setup: async (rc) => {
    rc.user = await newUser(rc.token, rc.ws.roles.user)
    await deletedUserOf(rc)
  },
  // check_in_at is tried on an open day (no check-out), so that its own rules (a real date-time, not
  // in the future) are what decides, not its order against a fixed check-out.
  baseline: async (rc, field) => ({
    path: '/office/v1/attendances',
    body: {
      user_id: rc.user,
      date: ATTENDANCE_DAY,
      check_in_at: CLOCKED_IN,
      check_out_at: field === 'check_in_at' ? null : CLOCKED_OUT,
      notes: 'Forgot to clock in',
    },
    token: rc.token,
  }),
  fields: {
    user_id: { mutations: parentId({ foreign: () => foreign.user_id, deleted: (rc) => rc.deletedUser }), required: true },
    date: { mutations: calendarDate({ nullable: false, valid: ['2026-11-21'] }), required: true },
    check_in_at: {
      mutations: [...dateTime(), mutation('an hour in the future', 'invalid', () => new Date(t.app.clock.now().getTime() + 3_600_000).toISOString())],
      required: true,
    },
    check_out_at: {
      mutations: [
        ...dateTime().filter((m) => m.label !== 'null'),
        mutation('null (still open)', 'valid', null),
        mutation('before check_in_at', 'invalid', '2026-11-20T00:59:59.000Z'),
        mutation('equal to check_in_at', 'invalid', CLOCKED_IN),
      ],
      required: false,
    },
    notes: { mutations: optionalText(1000), required: false },
  },
  readBack: (rc, reply) => attendanceReadBack(rc, reply.body.data.id),
  // A user has at most one open attendance: after an open one is entered, the next goes to a new user.
  cleanup: async (rc, reply) => {
    if (reply.status === 201 && reply.body.data.check_out_at === null) rc.user = await newUser(rc.token, rc.ws.roles.user)
  },
}

/** Clock-in and clock-out as the attendance keeps them: location and photo of that step, and the notes. */
async function clockBack(rc: RouteCtx, reply: Reply, step: 'check_in' | 'check_out') {
  const row = okData(await t.app.get(`/office/v1/attendances/${reply.body.data.id}`, { token: rc.token }), 'reading the attendance')
  return { ...clockAnswered(row, step), photo: await photoBack(rc, row[`${step}_photo_url`]) }
}
function clockAnswered(row: any, step: 'check_in' | 'check_out') {
  const location = row[`${step}_location`]
  return { latitude: location?.latitude ?? null, longitude: location?.longitude ?? null, notes: row.notes }
}

/** The field user clocks in (no photo, no notes): the open attendance a clock-out closes. */
async function clockedIn(rc: RouteCtx) {
  return createdData(await t.app.post('/app/v1/attendances/clock-in', SITE, { token: rc.field.token }), 'clock-in')
}

SPECS['POST /api/app/v1/attendances/clock-in'] = {
  family: 'attendance',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => ({
    path: '/app/v1/attendances/clock-in',
    body: { ...SITE, photo: 'https://cdn.example.com/selfie.jpg', notes: 'Morning shift' },
    token: rc.field.token,
  }),
  fields: siteFields('photo'),
  readBack: (rc, reply) => clockBack(rc, reply, 'check_in'),
  answered: (_rc, reply) => clockAnswered(reply.body.data, 'check_in'),
  // One open attendance per user: an accepted clock-in is clocked out before the next request.
  cleanup: async (rc, reply) => {
    if (reply.status === 201) okData(await t.app.post('/app/v1/attendances/clock-out', SITE, { token: rc.field.token }), 'clock-out')
  },
}

SPECS['POST /api/app/v1/attendances/clock-out'] = {
  family: 'attendance',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => {
    await fresh(rc, clockedIn)
    return {
      path: '/app/v1/attendances/clock-out',
      body: { ...SITE, photo: 'https://cdn.example.com/leaving.jpg', notes: 'Done for today' },
      token: rc.field.token,
    }
  },
  fields: siteFields('photo'),
  readBack: (rc, reply) => clockBack(rc, reply, 'check_out'),
  answered: (_rc, reply) => clockAnswered(reply.body.data, 'check_out'),
  cleanup: usedUp,
}

// Notifications (docs/API.md §Other areas) ---------------------------------------------------------------------

/** A push token: 8 to 4096 characters, not blank. */
function pushToken(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('7 characters (minimum 8)', 'invalid', 'tok1234'),
    mutation('exactly 8 characters', 'valid', 'tok12345'),
    mutation('4097 characters (limit 4096)', 'invalid', 't'.repeat(4097)),
    mutation('exactly 4096 characters', 'valid', 't'.repeat(4096)),
    mutation('1 MB string', 'invalid', MB),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only (8 spaces)', 'invalid', ' '.repeat(8)),
    ...sqlAndUnicode((s) => (s.length >= 8 ? 'valid' : 'invalid'), 'maybe'),
  ]
}

SPECS['POST /api/app/v1/notifications/tokens'] = {
  family: 'notifications',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => ({ path: '/app/v1/notifications/tokens', body: { token: unique('fcm-token'), platform: 'android' }, token: rc.field.token }),
  fields: {
    token: { mutations: pushToken(), required: true },
    platform: { mutations: oneOf(['android', 'ios', 'web']), required: true },
  },
  readBack: async (_rc, reply) => {
    const [row] = await t.app.db.pragma(`SELECT token, platform FROM push_tokens WHERE id = ${Number(reply.body.data.id)}`)
    return row
  },
}

/** A notification of `who`: a visit assigned to them (docs/API.md §Other areas); its id, from their own list. */
async function notificationFor(rc: RouteCtx, who: { token: string; user: { id: number } }, listing: string): Promise<number> {
  const form = await newForm(rc.token)
  const project = await newProject(rc.token, form)
  const outlet = await newOutlet(rc.token)
  await post201('/office/v1/visits', { outlet_id: outlet.id, project_id: project.id, visit_date: VISIT_DATE, user_ids: [who.user.id] }, rc.token, 'a visit')
  const [first] = okData(await t.app.get(`${listing}?limit=1`, { token: who.token }), 'listing notifications')
  if (!first) throw new Error('assigning a visit notified nobody')
  return first.id
}

for (const platform of ['office', 'app'] as const) {
  const listing = `/${platform}/v1/notifications`
  // The office side reads the owner's notifications, the phone side a field user's.
  const who = (rc: RouteCtx) => (platform === 'office' ? rc.ws.owner : rc.field)
  const setup = async (rc: RouteCtx) => {
    rc.field = await t.app.member(rc.ws, 'user')
    rc.notification = await notificationFor(rc, who(rc), listing)
  }
  // Neither takes a body: only unknown fields (ignored) and the path id (below) are tried.
  SPECS[`PUT /api${listing}/:id/read`] = {
    family: 'notifications',
    setup,
    baseline: async (rc) => ({ path: `${listing}/${rc.notification}/read`, body: {}, token: who(rc).token }),
    fields: {},
  }
  SPECS[`PUT /api${listing}/read-all`] = {
    family: 'notifications',
    setup,
    baseline: async (rc) => ({ path: `${listing}/read-all`, body: {}, token: who(rc).token }),
    fields: {},
  }
}

// Profile (mobile) ----------------------------------------------------------------------------------

SPECS['PUT /api/app/v1/profile'] = {
  family: 'profile',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => ({ path: '/app/v1/profile', body: { name: unique('Field'), phone: '+62 812 0000 0000' }, token: rc.field.token }),
  fields: {
    name: { mutations: requiredText(255), required: false },
    phone: { mutations: optionalText(32), required: false },
  },
  readBack: async (rc) => {
    const profile = okData(await t.app.get('/app/v1/profile', { token: rc.field.token }), 'reading the profile')
    return { name: profile.name, phone: profile.phone }
  },
}

/** The password being proved: any string; a wrong one is 400 errors.current_password (never a 401). */
function currentPassword(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only', 'invalid', '   '),
    mutation('1025 characters (limit 1024)', 'invalid', 'p'.repeat(1025)),
    mutation('1 MB string', 'invalid', MB),
    mutation('a wrong password', 'invalid', 'not-my-password'),
    mutation('the right password in upper case', 'invalid', 'PASSWORD123'),
    mutation('the right password with a NUL appended', 'invalid', 'password123\u0000'),
    ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, 'invalid', s)),
  ]
}

SPECS['PUT /api/app/v1/profile/password'] = {
  family: 'profile',
  // A field user whose password is still "password123": a new one after every accepted change.
  baseline: async (rc) => {
    const session = await fresh(rc, (r) => t.app.member(r.ws, 'user'))
    return { path: '/app/v1/profile/password', body: { current_password: 'password123', new_password: 'a-new-password-1' }, token: session.token }
  },
  fields: {
    current_password: { mutations: currentPassword(), required: true },
    new_password: {
      mutations: [...newPassword(), mutation('the current password', 'invalid', 'password123')],
      required: true,
    },
  },
  readBack: async (rc) => {
    const [row] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${Number(rc.fresh.user.id)}`)
    return { new_password: row.password_hash }
  },
  cleanup: usedUp,
}

// Visit import: a text/csv body, not JSON ---------------------------------------------------------

/**
 * The CSV import routes take `text/csv`, so they have no JSON baseline: each has a CSV baseline and
 * a list of accepted variants and of refused ones (malformed CSV, missing columns, unknown codes,
 * impossible dates, a wrong content type). A refused one is 400 VALIDATION_ERROR and imports nothing.
 */
interface CsvCase {
  label: string
  body: (rc: RouteCtx) => string
  contentType?: string
  /** Accepted: the visits it creates, in the create body's terms (only the keys given are compared). */
  creates?: (rc: RouteCtx) => Record<string, unknown>[]
  /** Refused: every key of `errors` matches this. */
  errors?: RegExp
}

const CSV_IMPORTS: Record<string, true> = Object.fromEntries(VISIT_LISTINGS.map((listing) => [`POST /api/office/v1/${listing}/import`, true]))

const CSV_COLUMNS = ['outlet_code', 'project_code', 'visit_date', 'team_name', 'assignee_emails', 'notes'] as const
type CsvCells = Partial<Record<(typeof CSV_COLUMNS)[number], string>>
const csvCells = (rc: RouteCtx, cells: CsvCells = {}): Record<string, string> => ({
  outlet_code: rc.outletCode,
  project_code: rc.projectCode,
  visit_date: '2026-11-23',
  team_name: rc.teamName,
  assignee_emails: rc.field.user.email,
  notes: 'Imported',
  ...cells,
})
const csvRow = (rc: RouteCtx, cells: CsvCells = {}) => CSV_COLUMNS.map((column) => csvCells(rc, cells)[column]).join(',')
const csvOf = (rc: RouteCtx, ...rows: string[]) => `${[CSV_COLUMNS.join(','), ...rows].join('\n')}\n`
/** Only some columns, in this order. */
const csvWith = (rc: RouteCtx, columns: string[], cells: Record<string, string> = {}) => {
  const all = { ...csvCells(rc), ...cells }
  return `${columns.join(',')}\n${columns.map((column) => all[column] ?? '').join(',')}\n`
}
const imported = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({
  outlet_id: rc.outlet,
  project_id: rc.project,
  visit_date: '2026-11-23',
  team_id: rc.team,
  user_ids: [rc.field.user.id],
  notes: 'Imported',
  ...extra,
})

const CSV_CASES: CsvCase[] = [
  { label: 'the baseline: codes, a team name and an assignee email', body: (rc) => csvOf(rc, csvRow(rc)), creates: (rc) => [imported(rc)] },
  {
    label: 'a byte-order mark, CRLF line ends and a header in capitals with spaces',
    body: (rc) => `\uFEFF${CSV_COLUMNS.map((c) => ` ${c.toUpperCase()} `).join(',')}\r\n${csvRow(rc)}\r\n`,
    creates: (rc) => [imported(rc)],
  },
  {
    label: 'ids instead of codes, and two assignees',
    body: (rc) => `outlet_id,project_id,visit_date,user_ids\n${rc.outlet},${rc.project},2026-11-24,${rc.field.user.id};${rc.ws.owner.user.id}\n`,
    creates: (rc) => [imported(rc, { visit_date: '2026-11-24', team_id: null, user_ids: sortedIds([rc.field.user.id, rc.ws.owner.user.id]), notes: null })],
  },
  {
    label: 'a quoted note with a comma, quotes and a line break',
    body: (rc) => csvOf(rc, csvRow(rc, { notes: '"Shelf 3, ""top""\nrow"' })),
    creates: (rc) => [imported(rc, { notes: 'Shelf 3, "top"\nrow' })],
  },
  {
    label: 'an unknown extra column (ignored)',
    body: (rc) => `${CSV_COLUMNS.join(',')},colour\n${csvRow(rc)},red\n`,
    creates: (rc) => [imported(rc)],
  },
  {
    label: 'a note a spreadsheet would run as a formula',
    body: (rc) => csvOf(rc, csvRow(rc, { notes: '=1+1' })),
    creates: (rc) => [imported(rc, { notes: '=1+1' })],
  },
  {
    label: 'two rows with blank lines around them',
    body: (rc) => `\n${csvOf(rc, csvRow(rc), '', csvRow(rc, { visit_date: '2028-02-29' }))}\n\n`,
    creates: (rc) => [imported(rc), imported(rc, { visit_date: '2028-02-29' })],
  },

  // Malformed CSV.
  { label: 'an unclosed quote', body: (rc) => csvOf(rc, csvRow(rc, { notes: '"never closed' })), errors: /^csv$/ },
  { label: 'a row with more cells than the header', body: (rc) => csvOf(rc, `${csvRow(rc)},extra`), errors: /^csv$/ },
  { label: 'a row with fewer cells than the header', body: (rc) => csvOf(rc, `${rc.outletCode},${rc.projectCode}`), errors: /^csv$/ },
  { label: 'only the header row', body: (rc) => csvOf(rc), errors: /^csv$/ },
  { label: 'an empty body', body: () => '', errors: /^(body|csv)$/ },
  { label: 'blank lines only', body: () => '\n\n   \n', errors: /^(body|csv)$/ },
  { label: 'binary bytes', body: () => '\u0000\u0001\u0002\uFFFD\n\u0003,\u0004\n', errors: /^(csv|rows\.\d+\.[a-z_]+)$/ },
  { label: '5001 rows (limit 5000)', body: (rc) => csvOf(rc, ...Array.from({ length: 5001 }, () => csvRow(rc))), errors: /^csv$/ },

  // Missing columns.
  { label: 'no outlet column', body: (rc) => csvWith(rc, ['project_code', 'visit_date']), errors: /^rows\.2\.outlet_(code|id)$/ },
  { label: 'no project column', body: (rc) => csvWith(rc, ['outlet_code', 'visit_date']), errors: /^rows\.2\.project_(code|id)$/ },
  { label: 'no visit_date column', body: (rc) => csvWith(rc, ['outlet_code', 'project_code']), errors: /^rows\.2\.visit_date$/ },
  { label: 'a header of other columns', body: () => 'a,b,c\n1,2,3\n', errors: /^rows\.2\.[a-z_]+$/ },

  // Unknown codes.
  { label: 'an outlet code that does not exist', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: 'NO-SUCH-OUTLET' })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'an outlet code of another workspace', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: foreign.outlet_code })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'the code of a soft-deleted outlet', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: rc.deletedOutletCode })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'an SQL-ish outlet code', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: "' OR 1=1 --" })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'a project code that does not exist', body: (rc) => csvOf(rc, csvRow(rc, { project_code: 'NO-SUCH-PROJECT' })), errors: /^rows\.2\.project_code$/ },
  {
    label: 'a project code of another workspace',
    body: (rc) => csvOf(rc, csvRow(rc, { project_code: foreign.project_code })),
    errors: /^rows\.2\.project_code$/,
  },
  {
    label: 'a draft project',
    body: (rc) => csvWith(rc, ['outlet_code', 'project_id', 'visit_date'], { project_id: String(rc.draftProject) }),
    errors: /^rows\.2\.project_id$/,
  },
  { label: 'a team name that does not exist', body: (rc) => csvOf(rc, csvRow(rc, { team_name: 'No Such Team' })), errors: /^rows\.2\.team_name$/ },
  { label: 'a team of another workspace', body: (rc) => csvOf(rc, csvRow(rc, { team_name: foreign.team_name })), errors: /^rows\.2\.team_name$/ },
  {
    label: 'an assignee email that does not exist',
    body: (rc) => csvOf(rc, csvRow(rc, { assignee_emails: 'nobody@example.com' })),
    errors: /^rows\.2\.assignee_emails$/,
  },
  {
    label: 'an assignee of another workspace',
    body: (rc) => csvOf(rc, csvRow(rc, { assignee_emails: foreign.user_email })),
    errors: /^rows\.2\.assignee_emails$/,
  },
  {
    label: 'outlet_id "abc"',
    body: (rc) => csvWith(rc, ['outlet_id', 'project_code', 'visit_date'], { outlet_id: 'abc' }),
    errors: /^rows\.2\.outlet_id$/,
  },
  {
    label: 'an outlet_id of another workspace',
    body: (rc) => csvWith(rc, ['outlet_id', 'project_code', 'visit_date'], { outlet_id: String(foreign.outlet_id) }),
    errors: /^rows\.2\.outlet_id$/,
  },
  {
    label: 'user_ids that are not numbers',
    body: (rc) => csvWith(rc, ['outlet_code', 'project_code', 'visit_date', 'user_ids'], { user_ids: `${rc.field.user.id};x` }),
    errors: /^rows\.2\.user_ids$/,
  },

  // Impossible dates.
  ...['2026-02-30', '2027-02-29', '2026-04-31', '2026-13-01', '23/11/2026', '2026-11-23T08:00:00Z', ''].map(
    (date): CsvCase => ({
      label: `visit_date ${JSON.stringify(date)}`,
      body: (rc) => csvOf(rc, csvRow(rc, { visit_date: date })),
      errors: /^rows\.2\.visit_date$/,
    }),
  ),
  {
    label: 'a good row, then a bad one (nothing is imported)',
    body: (rc) => csvOf(rc, csvRow(rc), csvRow(rc, { visit_date: '2026-02-30' })),
    errors: /^rows\.3\.visit_date$/,
  },

  // Not CSV.
  { label: 'Content-Type text/plain', body: (rc) => csvOf(rc, csvRow(rc)), contentType: 'text/plain', errors: /^content-type$/ },
  { label: 'Content-Type application/xml', body: (rc) => csvOf(rc, csvRow(rc)), contentType: 'application/xml', errors: /^content-type$/ },
  { label: 'the CSV as a JSON string', body: (rc) => JSON.stringify(csvOf(rc, csvRow(rc))), contentType: 'application/json', errors: /^body$/ },
  { label: 'a JSON object', body: (rc) => JSON.stringify({ csv: csvOf(rc, csvRow(rc)) }), contentType: 'application/json', errors: /^body$/ },
]

async function runCsvCase(path: string, rc: RouteCtx, c: CsvCase) {
  const before = await snapshot()
  const reply = await t.app.request('POST', path, { raw: c.body(rc), headers: { 'content-type': c.contentType ?? 'text/csv' }, token: rc.token })
  expectNo5xx(reply)
  if (c.creates) {
    if (reply.status !== 201) throw new Error(`expected 201, got ${reply.status} ${reply.text.slice(0, 500)}`)
    expect(reply.body.code).toBe('VISITS_IMPORTED')
    const expected = c.creates(rc)
    expect(reply.body.data.count).toBe(expected.length)
    expect(reply.body.data.ids).toHaveLength(expected.length)
    for (const [index, id] of reply.body.data.ids.entries()) {
      const stored = visitInBodyTerms(await visitDetail(rc, id))
      const picked = Object.fromEntries(Object.keys(expected[index]).map((key) => [key, stored[key]]))
      expect({ row: index + 2, visit: picked }).toEqual({ row: index + 2, visit: expected[index] })
    }
    return
  }
  expectErrorEnvelope(reply)
  const errors = expectError(reply, 400, 'VALIDATION_ERROR')
  const keys = Object.keys(errors)
  if (keys.length === 0 || !keys.every((key) => c.errors!.test(key))) throw new Error(`expected errors keyed ${c.errors}, got ${JSON.stringify(errors)}`)
  for (const key of keys) expect({ key, messages: Array.isArray(errors[key]) && (errors[key] as unknown[]).length > 0 }).toEqual({ key, messages: true })
  await expectUnchanged(before)
}

// ---------------------------------------------------------------------------------------------
// Running one mutation.
// ---------------------------------------------------------------------------------------------

function resolve(fieldSpec: FieldSpec, m: Mutation, field: string, body: Record<string, unknown>, sent: unknown): Expect {
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

interface Attempt {
  route: CatalogueRoute
  spec: RouteSpec
  rc: RouteCtx
  field: string
  before: Snapshot
}

/** Fields whose read-back is a password hash: the value sent must verify against it. */
const HASHED = new Set(['password', 'new_password'])

async function expectStored(field: string, actual: unknown, expected: unknown) {
  if (HASHED.has(field)) {
    expect({ field, verifies: await Bun.password.verify(String(expected), String(actual)) }).toEqual({ field, verifies: true })
  } else {
    expect({ field, stored: actual }).toEqual({ field, stored: expected })
  }
}

async function check(reply: Reply, expectation: Expect, attempt: Attempt): Promise<void> {
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

async function runMutation(route: CatalogueRoute, spec: RouteSpec, rc: RouteCtx, field: string, fieldSpec: FieldSpec, m: Mutation) {
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

const EXTRAS: [string, () => unknown][] = [
  ['workspace_id', () => other.id],
  ['id', () => INJECTED_ID],
  ['created_at', () => INJECTED_TIME],
  ['updated_at', () => INJECTED_TIME],
  ['deleted_at', () => INJECTED_TIME],
  ['is_builtin', () => true],
  ['__proto__', () => ({ polluted: 'yes', workspace_id: other.id, id: INJECTED_ID, is_builtin: true })],
  ['constructor', () => ({ prototype: { polluted: 'yes' } })],
]

function walk(value: unknown, visit: (key: string, value: unknown) => void) {
  if (Array.isArray(value)) for (const item of value) walk(item, visit)
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      visit(key, inner)
      walk(inner, visit)
    }
  }
}

/** Problems in an answer or row that show an injected value was taken. */
function injectedValues(value: unknown, where: string): string[] {
  const problems: string[] = []
  walk(value, (key, inner) => {
    if (key === 'polluted') problems.push(`${where}: has "polluted"`)
    if (key === 'workspace_id' && inner === other.id) problems.push(`${where}: workspace_id is the other workspace`)
    if (key === 'id' && inner === INJECTED_ID) problems.push(`${where}: id is the injected one`)
    if (inner === INJECTED_TIME) problems.push(`${where}: ${key} is the injected timestamp`)
  })
  return problems
}

async function runExtra(route: CatalogueRoute, spec: RouteSpec, rc: RouteCtx, key: string, value: unknown) {
  const baseline = await spec.baseline(rc)
  const body = { ...baseline.body }
  // defineProperty: a plain assignment of `__proto__` would set the prototype instead of sending the key.
  Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true })
  expect(JSON.stringify(body)).toContain(`"${key}":`)
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

const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`
const BODY_ROUTES = ROUTES.filter((route) => BODY_METHODS.has(route.method) && !CSV_IMPORTS[routeKey(route)])
const CSV_ROUTES = ROUTES.filter((route) => BODY_METHODS.has(route.method) && CSV_IMPORTS[routeKey(route)])

describe('the "nothing changed" check', () => {
  test('sees a write: total_changes() of the writer connection moves, and the dump differs', async () => {
    const ws = await t.app.workspace()
    const before = await snapshot()
    await createGroup(ws.owner.token)
    expect(await totalChanges()).toBeGreaterThan(before.changes)
    const after = await snapshot()
    expect(JSON.stringify(after.tables.channel_groups)).not.toBe(JSON.stringify(before.tables.channel_groups))
  })
})

describe('the matrix covers every JSON-body route', () => {
  test('every POST and PUT route has a baseline body in SPECS (or CSV cases), and neither names another route', () => {
    const served = ROUTES.filter((route) => BODY_METHODS.has(route.method)).map(routeKey)
    expect(served.filter((key) => !SPECS[key] && !CSV_IMPORTS[key])).toEqual([])
    expect(Object.keys(SPECS).filter((key) => !served.includes(key))).toEqual([])
    expect(Object.keys(CSV_IMPORTS).filter((key) => !served.includes(key))).toEqual([])
    expect(Object.keys(SPECS).filter((key) => CSV_IMPORTS[key])).toEqual([])
  })
})

const familyOf = (route: CatalogueRoute) => SPECS[routeKey(route)]?.family ?? 'routes without a baseline'
const FAMILIES = [...new Set(BODY_ROUTES.map(familyOf))]

for (const family of FAMILIES) {
  describe(`bodies: ${family}`, () => {
    for (const route of BODY_ROUTES.filter((r) => familyOf(r) === family)) {
      const name = `${route.method} ${short(route.path)}`
      const spec = SPECS[routeKey(route)]
      describe(name, () => {
        if (!spec) {
          test(`${name} has a baseline body in SPECS`, () => {
            throw new Error(`add ${routeKey(route)} to SPECS in tests/bad-input.test.ts`)
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

        for (const [field, fieldSpec] of Object.entries(spec.fields)) {
          for (const m of fieldSpec.mutations) {
            const preview = resolvePreview(fieldSpec, m, field, Object.keys(spec.fields).length)
            test(`${name} · ${field}: ${m.label} → ${preview}`, () => runMutation(route, spec, rc, field, fieldSpec, m))
          }
        }

        for (const [key, value] of EXTRAS) {
          if (key in spec.fields) continue
          test(`${name} · unknown field ${key} → ignored, never stored`, () => runExtra(route, spec, rc, key, value()))
        }
      })
    }
  })
}

for (const route of CSV_ROUTES) {
  const name = `${route.method} ${short(route.path)}`
  describe(`bodies: visit import (text/csv) · ${name}`, () => {
    const rc = {} as RouteCtx
    beforeAll(async () => {
      rc.ws = await t.app.workspace()
      rc.token = rc.ws.owner.token
      await visitKit(rc)
      await unusableParents(rc)
    })
    for (const c of CSV_CASES) {
      const outcome = c.creates ? '201 VISITS_IMPORTED, the rows stored as sent' : `400 VALIDATION_ERROR (errors ${c.errors}), imports nothing`
      test(`${name} · ${c.label} → ${outcome}`, () => runCsvCase(short(route.path), rc, c))
    }
  })
}

/** The expected outcome as shown in a test name (before any baseline exists). */
function resolvePreview(fieldSpec: FieldSpec, m: Mutation, field: string, fieldCount: number): string {
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
interface NotList {
  kind: 'csv' | 'no-query' | 'report'
  reason: string
  pairs?: Record<string, string>
  cases?: QueryCase[]
}

/** Dashboard figures: a date range (default the last 7 days) and a team. */
const REPORT: Omit<NotList, 'reason'> = {
  kind: 'report',
  pairs: { date_from: 'date_to=2024-03-06' },
  cases: [
    { param: 'date_from', label: 'date_from after date_to', query: 'date_from=2026-03-02&date_to=2026-03-01', expect: 'invalid' },
    { param: 'date_from', label: 'date_from equal to date_to (one day)', query: 'date_from=2026-03-01&date_to=2026-03-01', expect: 'ok' },
    { param: 'date_to', label: 'date_from and date_to a week apart', query: 'date_from=2026-03-01&date_to=2026-03-07&team_id=1', expect: 'ok' },
  ],
}

const NOT_LISTS: Record<string, NotList> = {
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
const LIST_RULES: Record<string, { defaultLimit: number; maxLimit: number; ignores: string[]; reason: string; base?: string }> = {
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
const OPERATOR_PAGES = new Set(['/api/health', '/api/metrics'])
/**
 * Change feeds page by an opaque cursor, not by page and limit 100: their query (cursor, limit up to
 * 1000, entity) is walked in tests/sync.test.ts.
 */
const FEEDS = new Set(['/api/app/v1/sync', '/api/office/v1/changes'])
const LIST_ROUTES = ROUTES.filter((route) => route.method === 'GET' && !route.path.includes('/:') && !OPERATOR_PAGES.has(route.path) && !FEEDS.has(route.path))
const LIST_MAX = 100

/** Filters of the outlet, team and visit lists that the matrix must reach (from the routes' query schemas). */
const NEW_FILTERS = [
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
const SORT_COLUMNS: Record<string, string[]> = {
  '/api/office/v1/attendances': ['date', 'check_in_at', 'created_at', 'id'],
}
const COMMON_SORT_COLUMNS = ['created_at', 'updated_at', 'name', 'id']

/** The sort columns a list's query schema declares. */
const sortColumnsOf = (route: CatalogueRoute) => (route.query?.properties?.sort_by?.anyOf ?? []).filter((s) => 'const' in s).map((s) => String(s.const))

/** Every sort column a list declares is usable (200); a common one it does not have is refused. */
function sortCases(route: CatalogueRoute): QueryCase[] {
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

type QueryExpect = 'invalid' | 'clamped' | 'ok' | 'invalid-or-empty'
interface QueryCase {
  param: string
  label: string
  query: string
  expect: QueryExpect
}

const COMMON_QUERY_CASES: QueryCase[] = [
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

const COMMON_PARAMS = new Set(['page', 'limit', 'keyword', 'sort_by', 'sort_order'])

/** Junk for a route's own filters, from its query schema. */
function filterCases(route: CatalogueRoute): QueryCase[] {
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

describe('query strings: the route tables', () => {
  test('every route NOT_LISTS names is a GET route the app serves', () => {
    const served = ROUTES.filter((route) => route.method === 'GET').map((route) => route.path)
    expect(Object.keys(NOT_LISTS).filter((path) => !served.includes(path))).toEqual([])
  })

  test('every route LIST_RULES names is a GET list the app serves, and it really takes none of the parameters it ignores', () => {
    for (const [path, rules] of Object.entries(LIST_RULES)) {
      const route = LIST_ROUTES.find((r) => r.path === path)
      expect({ path, served: route !== undefined, notList: path in NOT_LISTS }).toEqual({ path, served: true, notList: false })
      const taken = Object.keys(route?.query?.properties ?? {})
      expect({ path, taken: rules.ignores.filter((param) => taken.includes(param)) }).toEqual({ path, taken: [] })
    }
  })

  test('every list SORT_COLUMNS names declares exactly those sort columns', () => {
    for (const [path, columns] of Object.entries(SORT_COLUMNS)) {
      const route = LIST_ROUTES.find((r) => r.path === path)
      expect({ path, columns: route ? sortColumnsOf(route).sort() : 'not served' }).toEqual({ path, columns: [...columns].sort() })
    }
  })

  test('a report (NOT_LISTS kind "report") takes none of the list parameters, only its own filters', () => {
    for (const [path, notList] of Object.entries(NOT_LISTS).filter(([, n]) => n.kind === 'report')) {
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

describe('query strings of every list route', () => {
  let token: string
  beforeAll(async () => {
    const ws = await t.app.workspace()
    token = ws.owner.token
    const group = await createGroup(token)
    const channel = await createChannel(token, group)
    await t.app.post('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: channel }, { token })
    await t.app.post('/office/v1/outlets/sub-areas', { name: unique('SubArea') }, { token })
  })

  for (const route of LIST_ROUTES) {
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

// ---------------------------------------------------------------------------------------------
// Path ids of every route that has one.
// ---------------------------------------------------------------------------------------------

const ID_ROUTES = ROUTES.filter((route) => /\/:[a-z_]+/.test(route.path))
const BAD_IDS = ['abc', '-1', '0', '1.5', '99999999999999999999', '%00', '1e3', '0x10', '%20', "1' OR '1'='1"]
/** Stands for the other path parameter while one is being tried: well-formed, and no such row. */
const ABSENT_ID = '99999999'

/**
 * Path parameters that name no row but one of a fixed set of words (an export format), and why.
 * Anything else there is 400 naming the parameter (never a 404, never a 5xx). A valid one starts a
 * background job (202, awaited before the next test so that it cannot write under another test's
 * "nothing changed" check); the route's query filters are checked as a list's are.
 */
const PATH_WORDS: Record<string, { param: string; values: string[]; code: string; reason: string }> = {
  'GET /api/office/v1/export/submissions/:format': {
    param: 'format',
    values: ['csv', 'pdf'],
    code: 'EXPORT_QUEUED',
    reason: 'an export of the submission list as CSV or PDF, with the list filters (docs/API.md §Other areas)',
  },
}
const BAD_WORDS = ['CSV', 'Pdf', 'xlsx', 'csv.exe', 'csv%00', '..%2F..%2Fetc%2Fpasswd', 'csv%20', encodeURIComponent("csv' OR '1'='1")]

/** A body each write route accepts, so that only the path is wrong. */
function pathIdBody(path: string, formId: number): Record<string, unknown> {
  if (/\/check-(in|out)$/.test(path)) return { ...SITE }
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

describe('path ids of every route that has one', () => {
  let token: string
  let formId: number
  beforeAll(async () => {
    const ws = await t.app.workspace()
    token = ws.owner.token
    formId = await newForm(token)
  })

  for (const route of ID_ROUTES) {
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
          const reply = await t.app.request(route.method, path, { body, token })
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

describe('path words: routes whose parameter is one of a fixed set (PATH_WORDS)', () => {
  let token: string
  beforeAll(async () => {
    token = (await t.app.workspace()).owner.token
  })

  test('every route PATH_WORDS names is served, and its parameter is in its path', () => {
    for (const [key, words] of Object.entries(PATH_WORDS)) {
      const route = ROUTES.find((r) => routeKey(r) === key)
      expect({ key, param: route ? route.path.includes(`/:${words.param}`) : 'not served' }).toEqual({ key, param: true })
    }
  })

  for (const [key, words] of Object.entries(PATH_WORDS)) {
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
