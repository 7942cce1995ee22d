/**
 * Hostile input, table-driven (CONTRACT §2, §3; SPEC "Errors", "Limits").
 *
 * - Bodies: every POST and PUT route the app serves has a valid baseline body in SPECS (a route
 *   without one fails). Each field of that body is mutated in turn: missing, wrong types, oversized,
 *   empty and blank strings, out-of-range numbers, SQL-ish and unusual Unicode text, ids that do not
 *   exist or belong to another workspace. Unknown fields (`workspace_id`, `id`, `created_at`, …) are
 *   added one at a time and must change nothing.
 * - Query strings of every GET list route, and the `:id` of every route that has one.
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
const foreign = { channel_group_id: 0, channel_id: 0 }
const INJECTED_ID = 987_654_321
const INJECTED_TIME = '2000-01-01T00:00:00.000Z'
const BUILTIN_SLUGS = ['super_admin', 'admin', 'manager', 'user']

/** Every table but the append-only audit log, with the column it is ordered by. */
let TABLES: { name: string; order: string }[] = []

beforeAll(async () => {
  other = await t.app.workspace()
  foreign.channel_group_id = await createGroup(other.owner.token)
  foreign.channel_id = await createChannel(other.owner.token, foreign.channel_group_id)
  const names = await t.app.db.pragma(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' AND name <> 'audit_logs' ORDER BY name",
  )
  TABLES = []
  for (const { name } of names) {
    const columns = await t.app.db.pragma(`PRAGMA table_info(${String(name)})`)
    const pk = columns.find((column) => Number(column.pk) === 1)?.name ?? 'rowid'
    TABLES.push({ name: String(name), order: String(pk) })
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
}

async function snapshot(): Promise<Snapshot> {
  const tables: Snapshot['tables'] = {}
  for (const { name, order } of TABLES) tables[name] = await t.app.db.pragma(`SELECT * FROM ${name} ORDER BY ${order}`)
  const [audit] = await t.app.db.pragma('SELECT count(*) AS n, coalesce(max(id), 0) AS max_id FROM audit_logs')
  return { tables, audit: { count: Number(audit.n), maxId: Number(audit.max_id) } }
}

async function expectUnchanged(before: Snapshot) {
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
}

const mutation = (label: string, category: Category, value: unknown, extra: Partial<Mutation> = {}): Mutation => ({
  label,
  category,
  value: typeof value === 'function' ? (value as Mutation['value']) : () => value,
  ...extra,
})

const missing = mutation('missing', 'missing', MISSING)

/** Wrong JSON types for a field whose right type is `right`. */
function wrongTypes(right: 'string' | 'integer' | 'boolean' | 'array'): Mutation[] {
  const all: [string, Mutation][] = [
    ['null', mutation('null', 'invalid', null)],
    ['number', mutation('number 42', 'invalid', 42)],
    ['string', mutation('string "abc"', 'invalid', 'abc')],
    ['boolean', mutation('boolean true', 'invalid', true)],
    ['array', mutation('array', 'invalid', ['x'])],
    ['object', mutation('object', 'invalid', { value: 'x' })],
  ]
  const skip = { string: 'string', integer: 'number', boolean: 'boolean', array: 'array' }[right]
  return all.filter(([kind]) => kind !== skip).map(([, m]) => m)
}

const sqlAndUnicode = (sqlCategory: (s: string) => Category, unicodeCategory: Category): Mutation[] => [
  ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, sqlCategory(s), s)),
  ...UNICODE.map(([label, s]) => mutation(`unicode: ${label}`, unicodeCategory, s)),
  mutation('unicode: a lone surrogate', 'safe', LONE_SURROGATE),
]

const trimmed = (sent: string) => sent.trim()

/** A required, trimmed text (names): CONTRACT §3 "empty after trimming counts as missing". */
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
    mutation('201 items (limit 200)', 'invalid', Array.from({ length: 201 }, () => GRANT)),
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
  | { type: 'error'; statuses: number[]; codes: string[] }
  | { type: 'either'; options: Expect[] }
  | { type: 'no5xx' }

const invalid = (path: string): Expect => ({ type: 'invalid', path })
const failsWith = (statuses: number[], codes: string[]): Expect => ({ type: 'error', statuses, codes })
/** A wrong password or unknown email: 401, or 429 once the failed-login limit is reached. */
const BAD_LOGIN = failsWith([401, 429], ['INVALID_CREDENTIALS', 'RATE_LIMITED'])

function describeExpect(e: Expect): string {
  switch (e.type) {
    case 'ok':
      return e.checkStored ? 'accepted and read back as stored' : 'accepted'
    case 'invalid':
      return `400 VALIDATION_ERROR (errors.${e.path})`
    case 'error':
      return `${e.statuses.join('|')} ${e.codes.join('|')}`
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
}

interface FieldSpec {
  mutations: Mutation[]
  /** Absent → 400 (create bodies); otherwise absent is accepted unless the body is left empty. */
  required: boolean
  /** Outcome for a well-formed value other than the baseline's (default: accepted and stored). */
  onValid?: Expect
  /** Outcome for a well-formed id that cannot be used (default: 400 naming the field). */
  notFound?: Expect
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

// ---------------------------------------------------------------------------------------------
// Running one mutation.
// ---------------------------------------------------------------------------------------------

function resolve(fieldSpec: FieldSpec, m: Mutation, field: string, body: Record<string, unknown>, sent: unknown): Expect {
  const preview = sent === undefined || sent === MISSING
  const accepted: Expect = { type: 'ok', stored: m.stored && !preview ? m.stored(sent) : sent, checkStored: true }
  const onValid = m.same ? accepted : (fieldSpec.onValid ?? accepted)
  switch (m.category) {
    case 'missing':
      if (fieldSpec.required) return invalid(field)
      if (Object.keys(body).length === 0) return invalid('body') // an update with nothing left to change
      return { type: 'ok', checkStored: false }
    case 'invalid':
      return invalid(m.path ? `${field}.${m.path}` : field)
    case 'valid':
      return onValid
    case 'maybe':
      return { type: 'either', options: [onValid, invalid(field)] }
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

async function expectStored(field: string, actual: unknown, expected: unknown) {
  if (field === 'password') {
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
        const answered = reply.body.data
        if (attempt.field !== 'password' && answered && typeof answered === 'object' && attempt.field in answered) {
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
  const reply = await t.app.request(route.method, baseline.path, { body, token: baseline.token })
  await check(reply, expectation, { route, spec, rc, field, before })
  if (reply.status >= 200 && reply.status < 300) await spec.cleanup?.(rc, reply)
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
  const reply = await t.app.request(route.method, baseline.path, { body, token: baseline.token })
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
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false)
  await spec.cleanup?.(rc, reply)
}

// ---------------------------------------------------------------------------------------------
// The body matrix.
// ---------------------------------------------------------------------------------------------

const BODY_ROUTES = ROUTES.filter((route) => BODY_METHODS.has(route.method))
const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`

describe('the matrix covers every JSON-body route', () => {
  test('every POST and PUT route has a baseline body in SPECS, and SPECS names no other route', () => {
    const served = BODY_ROUTES.map(routeKey)
    expect(served.filter((key) => !SPECS[key])).toEqual([])
    expect(Object.keys(SPECS).filter((key) => !served.includes(key))).toEqual([])
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
          const reply = await t.app.request(route.method, baseline.path, { body: baseline.body, token: baseline.token })
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

/** The expected outcome as shown in a test name (before any baseline exists). */
function resolvePreview(fieldSpec: FieldSpec, m: Mutation, field: string, fieldCount: number): string {
  const body: Record<string, unknown> = Object.fromEntries(Array.from({ length: fieldCount - (m.category === 'missing' ? 1 : 0) }, (_, i) => [`f${i}`, 1]))
  return describeExpect(resolve(fieldSpec, m, field, body, undefined))
}

// ---------------------------------------------------------------------------------------------
// Query strings of every list route.
// ---------------------------------------------------------------------------------------------

const LIST_ROUTES = ROUTES.filter((route) => route.method === 'GET' && !route.path.includes('/:') && route.path !== '/api/health')
const LIST_MAX = 100

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
    if (options.some((s) => s.format === 'integer' || s.type === 'integer')) add(['abc', '0', '-1', '1.5', '99999999999999999999', '1 OR 1=1'], 'invalid')
    else if (schema.type === 'boolean') add(['maybe', '2', "true' OR '1'='1"], 'invalid')
    else if (options.length > 0 && options.every((s) => 'const' in s)) add(['junk', "x' OR '1'='1"], 'invalid')
    else if (param.startsWith('date_')) add(['junk', '2026-13-45', "2026-01-01' OR 1=1 --", '2026-01-01T99:99:99Z'], 'invalid')
    else if (schema.type === 'string') {
      if (schema.maxLength !== undefined) add(['x'.repeat(schema.maxLength + 1)], 'invalid')
      add(["1' OR '1'='1", '%'], 'ok')
    }
    cases.push({ param, label: `repeated ${param}`, query: `${param}=1&${param}=2`, expect: 'invalid' })
  }
  return cases
}

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
    describe(`GET ${path}`, () => {
      for (const c of [...COMMON_QUERY_CASES, ...filterCases(route)]) {
        const outcome = {
          invalid: `400 VALIDATION_ERROR (errors.${c.param})`,
          clamped: `200 with limit clamped to ${LIST_MAX}`,
          ok: '200',
          'invalid-or-empty': `400 (errors.${c.param}) or an empty page`,
        }[c.expect]
        test(`GET ${path} ?${c.label.length > 60 ? `${c.label.slice(0, 40)}…` : c.label} → ${outcome}`, async () => {
          const before = await snapshot()
          const reply = await t.app.get(`${path}?${c.query}`, { token })
          expectNo5xx(reply)
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
              expect(meta?.limit).toBe(LIST_MAX)
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

describe('path ids of every route that has one', () => {
  let token: string
  beforeAll(async () => {
    const ws = await t.app.workspace()
    token = ws.owner.token
  })

  for (const route of ID_ROUTES) {
    for (const id of BAD_IDS) {
      const path = short(route.path).replace(/:[a-z_]+/g, id === "1' OR '1'='1" ? encodeURIComponent(id) : id)
      test(`${route.method} ${short(route.path)} with id ${JSON.stringify(id)} → 400 or 404, never a 5xx`, async () => {
        const before = await snapshot()
        const body = BODY_METHODS.has(route.method) ? { name: unique('Renamed') } : undefined
        const reply = await t.app.request(route.method, path, { body, token })
        expectErrorEnvelope(reply)
        if (reply.status === 400) expectInvalid(reply, short(route.path).match(/:([a-z_]+)/)![1])
        else {
          expect(reply.status).toBe(404)
          expect(reply.body.code).toEndWith('_NOT_FOUND')
        }
        await expectUnchanged(before)
      })
    }
  }
})
