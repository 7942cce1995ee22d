/**
 * Hostile input, property-based (docs/API.md §Envelopes, §Errors). tests/bad-input/ is the
 * hand-written matrix; this file throws generated garbage at every route the app serves, read from
 * `app.routes` (a new route is fuzzed without anyone listing it here):
 *
 * - bodies of every POST and PUT route: arbitrary JSON values (strings up to 100 kB, arrays and
 *   objects nested 1,000 levels deep, astral/RTL/NUL/lone-surrogate text, -0, 1e308, 2^53+1,
 *   400-digit and 1e400 literals, null, arrays for objects, SQL-ish text, `__proto__`/`constructor`
 *   keys), and "schema-shaped" bodies: a body built from the route's own TypeBox schema (the one the
 *   OpenAPI document is generated from), with real ids of the caller's workspace in `*_id` fields so
 *   that the services' own checks are reached, then one or two fields anywhere in it replaced by a
 *   hostile value, removed, or joined by an unknown or prototype-polluting key;
 * - malformed JSON text and wrong content types on every route that takes a body (DELETE included);
 *   the CSV import routes get the JSON bodies too, and must refuse every one with a 4xx;
 * - query strings of every GET and DELETE route: the keys its `query` schema declares, with valid
 *   values, some replaced by hostile text, undecodable percent-escapes or 100 kB values, sometimes
 *   repeated, plus random extra and bracketed keys.
 *
 * The rule, for every request: never a 5xx; a 4xx is the error envelope `{success:false, message,
 * code, errors:{}}` (VALIDATION_ERROR errors: field path → array of messages), with no stack trace or
 * SQL in it, and commits nothing to the database (background exports are drained before and after).
 *
 * Paths carry real ids of the caller's own workspace (a small fixture built through the API), so
 * that a body gets past the path lookup; DELETE routes get an id that names nothing (their only
 * inputs are the path and the query, and a real id would be deleted by the first request).
 * Requests go out as the workspace owner (super_admin); /api/app/ routes also as a field user.
 *
 * Deterministic: a fixed seed per route and kind (FUZZ_SEED changes the base seed, FUZZ_RUNS scales
 * every numRuns, FUZZ_SHRINK=1 shrinks counterexamples, FUZZ_STATS=1 prints the statuses answered).
 * A failure prints fast-check's seed and counterexample, the request and the answer, and writes the
 * whole request to a file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { data, HERE as SITE, PNG as PNG_DATA_URI } from './factories'
import { createTestApp, unique, type Reply, type Session, type Workspace } from './harness'

const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_261_121)
const RUN_SCALE = Number(process.env.FUZZ_RUNS ?? 1)

/** Runs per route and kind of input, tuned so the whole file stays under 20 s on a shared 2-core box. */
const RUNS = {
  arbitraryBody: 12,
  shapedBody: 20,
  malformedBody: 6,
  /** Routes that declare query keys; the others (details, DELETE) only have extra keys to ignore. */
  query: 14,
  undeclaredQuery: 5,
  /** Routes that hash a password for (almost) every well-formed body: ~30 ms of argon2id each. */
  passwordRoute: 6,
}
const PASSWORD_ROUTES = /\/auth\/(register|login|reset-password)$|\/profile\/password$|\/office\/v1\/users(\/:id)?$/

// ---------------------------------------------------------------------------------------------
// The app and its routes (one app for the whole file, so routes are known while tests are collected).
// ---------------------------------------------------------------------------------------------

const t = await createTestApp()
afterAll(() => t.close())

interface JsonSchema {
  type?: string
  format?: string
  pattern?: string
  const?: unknown
  anyOf?: JsonSchema[]
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  items?: JsonSchema
  required?: string[]
  properties?: Record<string, JsonSchema>
  patternProperties?: Record<string, JsonSchema>
}

interface FuzzRoute {
  method: string
  path: string
  body?: JsonSchema
  query?: JsonSchema
  /** Takes text/csv, not JSON: every JSON body must be refused with a 4xx. */
  csv: boolean
}

const ROUTES: FuzzRoute[] = t.app.routes
  .filter((route) => route.path.startsWith('/api/') && !route.path.startsWith('/api/docs'))
  .map((route) => {
    const hooks = route.hooks as { body?: JsonSchema; query?: JsonSchema }
    return { method: route.method, path: route.path, body: hooks.body, query: hooks.query, csv: hooks.body?.type === 'string' }
  })
const BODY_ROUTES = ROUTES.filter((route) => route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH')
const QUERY_ROUTES = ROUTES.filter((route) => route.method === 'GET' || route.method === 'DELETE')

/** A stable per-route seed, so one route's runs do not shift when another route is added. */
function seedOf(...parts: string[]) {
  let hash = BASE_SEED | 0
  for (const char of parts.join(' ')) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193)
  return hash | 0
}
const runs = (n: number) => Math.max(1, Math.round(n * RUN_SCALE))

// ---------------------------------------------------------------------------------------------
// Fixture: one workspace with one of everything, made through the API.
// ---------------------------------------------------------------------------------------------

let ws: Workspace
let owner: Session
let field: Session
/** Real ids of the workspace by body field name (`outlet_id`, …), for schema-shaped bodies. */
const ids: Record<string, number> = {}
/** Real ids of the workspace by the path segment before `:id` (`outlets` → an outlet). */
const pathIds: Record<string, number | string> = {}
/** A visit of the field user that is in progress (check-out, form submission). */
let started: { id: number; submission: number }
/** A finished visit whose submission is completed and awaits approval. */
let submitted: { id: number; submission: number }
const NO_SUCH_ID = 999_999_999
const FORM_FIELDS = [
  { key: 'facings', label: 'Facings', type: 'integer', required: true },
  { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'] },
  { key: 'note', label: 'Note', type: 'text' },
]

const created = async (path: string, body: Record<string, unknown>, token = owner.token) =>
  data(await t.post(path, body, { token }), 201, `POST ${path}`).id as number

async function scheduledVisit(assignee: Session = field, extra: Record<string, unknown> = {}) {
  const body = { outlet_id: ids.outlet_id, project_id: ids.project_id, visit_date: '2026-11-22', user_ids: [assignee.user.id], ...extra }
  const visit = data(await t.post('/office/v1/visits', body, { token: owner.token }), 201, 'planning a visit')
  return { id: visit.id as number, submission: visit.submissions[0]?.id as number }
}

async function startedVisit(assignee: Session, photo = false) {
  const visit = await scheduledVisit(assignee, { submissions: [{ form_id: ids.form_id, is_required: true }] })
  const body = photo ? { ...SITE, check_in_photo: PNG_DATA_URI } : SITE
  const checkedIn = data(await t.post(`/app/v1/visits/${visit.id}/check-in`, body, { token: assignee.token }), 200, 'check-in')
  return { ...visit, photo: String(checkedIn.check_in_photo_url ?? '') }
}

beforeAll(async () => {
  ws = await t.workspace()
  owner = ws.owner
  field = await t.member(ws, 'user')
  const token = owner.token
  ids.workspace_id = ws.id
  ids.user_id = ids.leader_id = field.user.id
  ids.role_id = ws.roles.user
  ids.channel_group_id = await created('/office/v1/outlets/channel-groups', { name: unique('Group') })
  ids.channel_id = await created('/office/v1/outlets/channels', { name: unique('Channel'), channel_group_id: ids.channel_group_id })
  ids.account_id = await created('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: ids.channel_id })
  ids.sub_area_id = await created('/office/v1/outlets/sub-areas', { name: unique('Area') })
  ids.principal_id = await created('/office/v1/principals', { name: unique('Principal'), code: unique('PRN') })
  ids.product_id = await created('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), principal_id: ids.principal_id, price: 10 })
  ids.team_id = await created('/office/v1/teams', { name: unique('Team'), leader_id: field.user.id, user_ids: [field.user.id] })
  ids.outlet_id = await created('/office/v1/outlets', {
    name: unique('Outlet'),
    code: unique('OUT'),
    ...SITE,
    account_id: ids.account_id,
    sub_area_id: ids.sub_area_id,
  })
  ids.form_id = await created('/office/v1/forms', { title: unique('Form'), fields: FORM_FIELDS })
  ids.project_id = await created('/office/v1/projects', {
    name: unique('Project'),
    principal_id: ids.principal_id,
    forms: [{ form_id: ids.form_id, is_required: true }],
  })
  // A province, city, district and village of the embedded regional data.
  Object.assign(ids, { province_id: 11, city_id: 1101, district_id: 110101, village_id: 1101012001 })

  const run = await startedVisit(field, true)
  started = { id: run.id, submission: run.submission }
  ids.visit_id = started.id
  ids.submission_id = started.submission

  // A submission completed on a finished visit, awaiting approval (approve, reject, approval).
  const runner = await t.member(ws, 'user')
  const done = await startedVisit(runner)
  const items = [{ submission_id: done.submission, status: 'completed', answers: { facings: 3, brand: 'A' } }]
  data(await t.post(`/app/v1/visits/${done.id}/submit-form-v2`, { form_id: ids.form_id, items }, { token: runner.token }), 200, 'submitting a form')
  data(await t.post(`/app/v1/visits/${done.id}/check-out`, SITE, { token: runner.token }), 200, 'check-out')
  submitted = { id: done.id, submission: done.submission }

  const [notification] = data(await t.get('/app/v1/notifications?limit=1', { token: field.token }), 200, 'listing notifications')
  const job = data(await t.get('/office/v1/export/submissions/csv', { token }), 202, 'requesting an export')
  await t.deps.exports.idle()
  const [log] = data(await t.get('/office/v1/audit-logs?limit=1', { token }), 200, 'listing audit logs').data
  Object.assign(pathIds, {
    'channel-groups': ids.channel_group_id,
    channels: ids.channel_id,
    accounts: ids.account_id,
    'sub-areas': ids.sub_area_id,
    principals: ids.principal_id,
    products: ids.product_id,
    teams: ids.team_id,
    outlets: ids.outlet_id,
    forms: ids.form_id,
    projects: ids.project_id,
    workspaces: ws.id,
    notifications: notification.id,
    jobs: job.id,
    'audit-logs': log.id,
    files: run.photo.split('/').pop()!,
    // Someone the fuzz may rename, deactivate or re-role: not a caller of this file.
    users: data(
      await t.post(
        '/office/v1/users',
        { name: 'Target', email: `${unique('target')}@example.com`, password: 'password123', role_id: ws.roles.user },
        { token },
      ),
      201,
      'creating a user',
    ).id,
    'price-lists': await created('/office/v1/price-lists', { name: unique('List'), items: [{ product_id: ids.product_id, price: 9 }] }),
    roles: await created('/office/v1/roles', { name: unique('Role'), permissions: [{ key: 'outlet.view', platform: 'web', access: 'view' }] }),
    // An order the field user took at their visit in progress (each decision route gets it; the fuzz may decide it).
    'sales-orders': data(
      await t.post(
        `/app/v1/visits/${started.id}/sales-orders`,
        { lines: [{ product_id: ids.product_id, quantity: 2 }] },
        { token: field.token, idempotencyKey: unique('order') },
      ),
      201,
      'taking an order',
    ).id,
    'journey-plans': await created('/office/v1/journey-plans', {
      user_id: field.user.id,
      project_id: ids.project_id,
      start_date: '2026-11-16',
      stops: [{ outlet_id: ids.outlet_id, weekday: 1 }],
    }),
    attendances: await created('/office/v1/attendances', {
      user_id: field.user.id,
      date: '2026-11-20',
      check_in_at: '2026-11-20T01:00:00.000Z',
      check_out_at: '2026-11-20T09:00:00.000Z',
    }),
  })
  ids.attendance_id = pathIds.attendances as number
})

const VISIT_LISTS = /\/(visits|outlet-visits)\//
const concretePaths = new Map<string, Promise<string>>()

/** The route's path with real ids of the fixture workspace (made once per route). */
function pathOf(route: FuzzRoute): Promise<string> {
  const key = `${route.method} ${route.path}`
  let path = concretePaths.get(key)
  if (!path) {
    path = resolvePath(route)
    concretePaths.set(key, path)
  }
  return path
}

async function resolvePath(route: FuzzRoute): Promise<string> {
  const p = route.path
  const fill = (values: Record<string, number | string>) =>
    p.replace(/^\/api/, '').replace(/:([a-z_]+)/g, (_, name: string) => {
      if (values[name] === undefined) throw new Error(`no fixture for :${name} of ${route.method} ${p}`)
      return encodeURIComponent(String(values[name]))
    })
  if (!p.includes('/:')) return fill({})
  if (route.method === 'DELETE') return fill({ id: NO_SUCH_ID, submission_id: NO_SUCH_ID, token: 'no-such-push-token' })
  if (p.endsWith('/:format')) return fill({ format: 'csv' })
  if (VISIT_LISTS.test(p)) {
    if (/\/submissions\/:id(\/approval)?$/.test(p)) return fill({ id: p.endsWith('/approval') ? submitted.submission : started.submission })
    if (/\/(approve|reject)$/.test(p)) return fill({ id: submitted.id, submission_id: submitted.submission })
    if (/\/:submission_id$/.test(p)) return fill({ id: started.id, submission_id: started.submission })
    if (/\/(check-out|submit-form|submit-form-v2|sales-orders)$/.test(p)) return fill({ id: started.id })
    // Its own visit in progress (of its own field user: one in-progress visit per user).
    if (p.endsWith('/force-close')) return fill({ id: (await startedVisit(await t.member(ws, 'user'))).id })
    // Its own scheduled visit, so that one route cancelling or re-assigning it does not change another's.
    return fill({ id: (await scheduledVisit()).id })
  }
  const segments = p.split('/')
  return fill({ id: pathIds[segments[segments.indexOf(':id') - 1]] })
}

/** Who sends: the workspace owner (super_admin) everywhere, and on /api/app/ routes a field user too. */
type Caller = 'owner' | 'field user'
const callersOf = (route: FuzzRoute): Caller[] => (route.path.startsWith('/api/app/') ? ['owner', 'field user'] : ['owner'])
const sessionOf = (caller: Caller) => (caller === 'owner' ? owner : field)

// ---------------------------------------------------------------------------------------------
// Hostile values. Anything JSON.stringify cannot write (-0, 2^53+1, 1e400, huge or deep text) is a
// Raw fragment: JSON text sent verbatim, shown by a short label in counterexamples.
// ---------------------------------------------------------------------------------------------

class Raw {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
  [fc.toStringMethod]() {
    return `Raw(${this.label})`
  }
}

/** JSON text of a value; own `__proto__` keys and Raw fragments are written as they are. */
function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .map((key) => `${JSON.stringify(key)}:${toJson(record[key])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** An object with these own keys (`__proto__` included, as a plain key and not the prototype). */
function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {}
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  return object
}

const SQLISH = [
  "' OR '1'='1",
  '1; DROP TABLE users; --',
  "x') UNION SELECT password_hash FROM users --",
  '%',
  '_',
  '%_%',
  "\\'",
  '"',
  '`',
  '; PRAGMA writable_schema=1;',
]
const UNICODE = [
  '\u0000',
  'a\u0000b',
  '\u202Eevil\u202C',
  'مرحبا بالعالم',
  'שלום',
  '𝕳𝖊𝖑𝖑𝖔 😀',
  '👩‍👩‍👧‍👦',
  '\uFEFF',
  'e\u0301\u0301\u0301',
  '\uD800',
  '\uDFFF',
  'a\uDC00b\uD83D',
  '\uFFFF\uFFFE',
  '\u2028\u2029',
  'Ａｄｍｉｎ',
]
const TRICKY_TEXT = [
  '',
  ' ',
  '\t\r\n',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e308',
  'NaN',
  'Infinity',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: template-injection text, meant literally
  '${7*7}{{7*7}}',
  '../../etc/passwd',
  '2026-02-30',
  '0000-00-00',
  '2026-11-21T25:61:61Z',
  '+275760-09-13T00:00:00.001Z',
  '-000001-01-01T00:00:00Z',
  'data:image/png;base64,AAAA',
  `data:image/png;base64,${'A'.repeat(64)}`,
  'javascript:alert(1)',
  'https://',
  'a@b',
]
const NUMBERS = [
  0,
  1,
  -1,
  0.5,
  -1.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e21,
  90.000001,
  -180.5,
]
const RAW_NUMBERS = [
  '-0',
  '9007199254740993',
  '-9007199254740993',
  `1${'0'.repeat(400)}`,
  '123456789012345678901234567890',
  '1e400',
  '-1e400',
  '1e-400',
  `0.${'0'.repeat(30)}1`,
  '1.0',
  '1E2',
  '18446744073709551616',
]

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit))
const nastyChar = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  loneSurrogate,
  fc.constantFrom('\u0000', '\u202E', '\u200B', "'", '"', '\\', '%', '&', '=', '#', '?', '/', '+'),
)
const randomText = fc.string({ unit: nastyChar, maxLength: 24 })
const hostileText = fc.oneof(fc.constantFrom(...SQLISH, ...UNICODE, ...TRICKY_TEXT), randomText)

/** 256 B to ~100 kB of one character (ASCII, astral, NUL, quote or blank). */
const hugeText = fc
  .tuple(fc.constantFrom(256, 4_097, 65_536, 100_000), fc.constantFrom('a', '𝕏', '\u0000', "'", ' ', 'é'))
  .map(([length, char]) => char.repeat(Math.ceil(length / char.length)))
const huge = hugeText.map((text) => new Raw(JSON.stringify(text), `${JSON.stringify(text[0])} × ${text.length}`))

/**
 * Arrays, objects or both nested 33 to 10,000 levels deep, written as text: the kernel refuses
 * nesting over 32 levels before validation (it once cost seconds, or a stack overflow, to report).
 */
const deep = fc.tuple(fc.constantFrom(33, 64, 1_000, 10_000), fc.constantFrom('array', 'object', 'mixed')).map(([depth, kind]) => {
  const open = kind === 'array' ? '[' : kind === 'object' ? '{"a":' : '[{"a":'
  const close = kind === 'array' ? ']' : kind === 'object' ? '}' : '}]'
  return new Raw(open.repeat(depth) + (kind === 'array' ? '' : 'null') + close.repeat(depth), `${kind} nested ${depth} deep`)
})

const hostileKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '',
    ' ',
    'a.b',
    '0',
    '$where',
    'id',
    'workspace_id',
    'created_at',
    'deleted_at',
    'password_hash',
    'is_active',
  ),
  randomText,
)

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, ...NUMBERS),
  fc.constantFrom(...RAW_NUMBERS).map((text) => new Raw(text, text.length > 24 ? `${text.slice(0, 12)}…(${text.length} chars)` : text)),
  fc.double(),
  fc.integer(),
  hostileText,
)

const { hostile } = fc.letrec<{ hostile: unknown }>((tie) => ({
  hostile: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { weight: 6, arbitrary: hostileScalar },
    { weight: 1, arbitrary: huge },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: fc.constantFrom([], {}, [null], [[]], [{}]) },
    { weight: 1, arbitrary: fc.constant(ownObject([['__proto__', { is_admin: true, polluted: 1 }]])) },
    { weight: 1, arbitrary: fc.constant({ constructor: { prototype: { polluted: 1 } } }) },
    { weight: 2, arbitrary: fc.array(tie('hostile'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.array(fc.tuple(hostileKey, tie('hostile')), { maxLength: 4 }).map(ownObject) },
  ),
}))

// ---------------------------------------------------------------------------------------------
// Schema-shaped values: valid by the route's own schema, with real ids where a field names one.
// ---------------------------------------------------------------------------------------------

/** `user_ids` → `user_id` (array items), for the real-id lookup. */
const singular = (name: string) => name.replace(/_ids$/, '_id')

function fromSchema(schema: JsonSchema, name = ''): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => fromSchema({ minimum: schema.minimum, maximum: schema.maximum, ...branch }, name)))
  switch (schema.type) {
    case 'object': {
      const properties = schema.properties ?? {}
      // A free-form record (form answers): the fixture form's keys, or others.
      if (Object.keys(properties).length === 0) {
        const key = fc.oneof(fc.constantFrom(...FORM_FIELDS.map((f) => f.key)), fc.string({ maxLength: 8 }))
        return fc.dictionary(key, fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('A', 'B', 3)), { maxKeys: 3 })
      }
      const model = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fromSchema(value, key)]))
      return fc.record(model, { requiredKeys: schema.required ?? [] })
    }
    case 'array': {
      const minLength = schema.minItems ?? 0
      return fc.array(fromSchema(schema.items ?? {}, singular(name)), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) })
    }
    case 'integer': {
      const numbers = fc.integer({
        min: Math.max(schema.minimum ?? -1000, -(2 ** 31)),
        max: Math.min(schema.maximum ?? 1000, Math.max(schema.minimum ?? 0, 1000)),
      })
      // Mostly the real id, so that the rest of the body gets past the parent lookups.
      return ids[name] !== undefined ? fc.oneof({ weight: 4, arbitrary: fc.constant(ids[name]) }, { weight: 1, arbitrary: numbers }) : numbers
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'string':
      return stringFromSchema(schema, name)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

const dateBetween = (from: string, to: Date) => fc.date({ min: new Date(from), max: to, noInvalidDate: true })

/**
 * Fields that must not come before their partner (`date_from` ≤ `date_to`) are drawn from the second
 * half of 2026, the others from the first (a range stays under the dashboard's 366 days).
 */
const LATER = /(_to|^end_date|^check_out_at)$/
const calendarDate = (later: boolean) =>
  (later ? dateBetween('2026-07-01', new Date('2026-12-31')) : dateBetween('2026-01-01', new Date('2026-06-30'))).map((date) => date.toISOString().slice(0, 10))
/** Text fields that hold a date without declaring a format (checked by the service). */
const DATE_NAMED = /^date(_from|_to)?$|_date$/

function stringFromSchema(schema: JsonSchema, name: string): fc.Arbitrary<unknown> {
  const later = LATER.test(name)
  switch (schema.format) {
    case 'calendar-date':
      return calendarDate(later)
    case 'iso-date-time': {
      const now = t.clock.now()
      return (later ? dateBetween('2025-06-01', now) : dateBetween('2020-01-01', new Date('2025-05-31'))).map((date) => date.toISOString())
    }
    case 'clock-time':
      return fc
        .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`)
    case 'integer':
    case 'numeric':
      return fc.integer({ min: Math.max(schema.minimum ?? 1, 1), max: 1000 }).map(String)
    case 'boolean':
      return fc.constantFrom('true', 'false')
  }
  if (DATE_NAMED.test(name)) return calendarDate(later)
  if (/email/.test(name)) return fc.emailAddress().filter((email) => email.length <= (schema.maxLength ?? 255))
  const maxLength = Math.min(schema.maxLength ?? 40, 40)
  const minLength = Math.min(schema.minLength ?? 0, maxLength)
  if (schema.pattern && schema.pattern !== '\\S') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= (schema.maxLength ?? Infinity))
  }
  const text = fc.string({ minLength: Math.max(minLength, 1), maxLength })
  return schema.pattern === '\\S' ? text.map((value) => (/\S/.test(value) ? value : `x${value}`.slice(0, maxLength))) : text
}

interface Mutation {
  /** Which slot of the valid body (any property or item, at any depth) it hits, modulo their number. */
  at: number
  op: 'replace' | 'remove' | 'add'
  key: string
  value: unknown
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('replace', 'replace', 'replace', 'remove', 'add'),
  key: hostileKey,
  value: hostile,
})

type Slot = { container: Record<string, unknown> | unknown[]; key: string | number }

/** Every property and item of a value, at any depth: the places a mutation can hit. */
function slotsOf(value: unknown, into: Slot[] = []): Slot[] {
  if (value instanceof Raw || value === null || typeof value !== 'object') return into
  const container = value as Record<string, unknown> | unknown[]
  const keys = Array.isArray(container) ? container.map((_, index) => index) : Object.keys(container)
  for (const key of keys) {
    into.push({ container, key })
    slotsOf((container as Record<string | number, unknown>)[key], into)
  }
  return into
}

/**
 * A deep copy keeping own `__proto__` keys and Raw fragments (immutable, shared). Generated values
 * are copied before they are changed or nested: fast-check hands out the same instance of a
 * constant on every run, and one mutation must not add an object into itself.
 */
function copy<T>(value: T): T {
  if (value instanceof Raw || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(copy) as T
  return ownObject(Object.keys(value).map((key) => [key, copy((value as Record<string, unknown>)[key])])) as T
}

/** A valid body with its mutations applied (to a copy). */
function mutate(valid: unknown, mutations: Mutation[]): unknown {
  const body = copy(valid) as Record<string, unknown>
  for (const { at, op, key, value: generated } of mutations) {
    const value = copy(generated)
    const slots = slotsOf(body)
    if (op === 'add' || slots.length === 0) {
      const objects = [body, ...slots.map((slot) => slot.container[slot.key as never])].filter(
        (candidate): candidate is Record<string, unknown> =>
          candidate !== null && typeof candidate === 'object' && !Array.isArray(candidate) && !(candidate instanceof Raw),
      )
      const target = objects[at % objects.length] ?? body
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
      continue
    }
    const { container, key: slot } = slots[at % slots.length]
    if (op === 'remove') {
      if (Array.isArray(container)) container.splice(slot as number, 1)
      else delete container[slot as string]
    } else (container as Record<string | number, unknown>)[slot] = value
  }
  return body
}

// ---------------------------------------------------------------------------------------------
// Query strings.
// ---------------------------------------------------------------------------------------------

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) 3-byte UTF-8 escape. */
function encodeLoosely(text: string): string {
  let out = ''
  for (const char of text) {
    const unit = char.charCodeAt(0)
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')
    } else out += encodeURIComponent(char)
  }
  return out
}

/** A query value: text to encode, or a fragment sent as written (bad escapes, `&`, `=`). */
const queryValue: fc.Arbitrary<string | Raw> = fc.oneof(
  hostileText,
  fc.constantFrom('-0', '1e308', '9007199254740993', `1${'0'.repeat(400)}`, '1.5', '0x1F', ' 1', '1 ', '١٢٣', '１', '[]', '{"a":1}', 'true', ''),
  fc.constantFrom('%', '%zz', '%0', '%00', '%ED%A0%80', '%C0%AF', '%FF%FE', '+', '&', '=', '==', '&&', '#x').map((text) => new Raw(text, text)),
  hugeText.map((text) => new Raw(encodeLoosely(text), `${JSON.stringify(text[0])} × ${text.length}`)),
)
const queryKey = fc.oneof(
  fc.constantFrom('page[]', 'limit[0]', 'a[b][c]', '__proto__', 'constructor', 'prototype', '__proto__[polluted]', 'toString', '', ' ', '%', 'page%00'),
  randomText,
)

const queryPart = (key: string | Raw, value: string | Raw | null) => {
  const k = key instanceof Raw ? key.text : encodeLoosely(key)
  return value === null ? k : `${k}=${value instanceof Raw ? value.text : encodeLoosely(value)}`
}

/** Declared keys with valid values, some replaced by hostile ones or repeated, plus extra keys. */
function queryString(route: FuzzRoute): fc.Arbitrary<string> {
  const declared = route.query?.properties ?? {}
  const keys = Object.keys(declared)
  const valid: fc.Arbitrary<Record<string, unknown>> = keys.length
    ? (fromSchema({ type: 'object', properties: declared, required: route.query?.required }) as fc.Arbitrary<Record<string, unknown>>)
    : fc.constant({})
  const hit = keys.length ? fc.oneof(fc.constantFrom(...keys), queryKey) : queryKey
  return fc
    .tuple(
      valid,
      fc.array(fc.tuple(hit, fc.option(queryValue, { nil: null, freq: 8 })), { maxLength: 4 }),
      fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    )
    .map(([values, hostileParts, repeat]) => {
      // A hostile value replaces the valid one of its key, except in one run of five: a repeated key (400).
      const kept = Object.entries(values).filter(([key]) => repeat || !hostileParts.some(([hostileKey]) => hostileKey === key))
      return [...kept.map(([key, value]) => queryPart(key, String(value))), ...hostileParts.map(([key, value]) => queryPart(key, value))].join('&')
    })
}

// ---------------------------------------------------------------------------------------------
// The rule.
// ---------------------------------------------------------------------------------------------

/**
 * Commits, as the reader connection sees them: its `PRAGMA data_version` moves whenever another
 * connection (the writer) commits. The writer's `total_changes()`, which tests/security.test.ts
 * compares, also counts rows that a rolled-back transaction wrote and undid (POST /users inserts the
 * user, then refuses an unknown team id), so it is reported beside the rule but is not the rule.
 */
async function writes(): Promise<{ commits: number; changes: number }> {
  const [, [reader]] = await t.db.pragmaEverywhere('PRAGMA data_version')
  const [writer] = await t.db.pragma('SELECT total_changes() AS n')
  return { commits: Number(reader.data_version), changes: Number(writer.n) }
}

const LEAK = /SQLITE_|sqlite3?\b|\bat .+\.[jt]s:\d+|\bSELECT\b.+\bFROM\b/i

interface Sent {
  route: FuzzRoute
  caller: Caller
  /** Which property sent it (for the reach statistics). */
  kind: 'arbitrary' | 'shaped' | 'malformed' | 'query' | 'control'
  query?: string
  /** Raw body text; absent for no body. */
  body?: string
  contentType?: string
  /** The CSV import: a 2xx is wrong too. */
  mustRefuse?: boolean
}

/**
 * An exception out of `app.handle` (the error handler itself threw): a real server answers Bun's own
 * 500 page for it, so it counts as a 500 without the envelope.
 */
const escaped = (error: unknown): Reply => {
  const text = `(no answer: app.handle threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)})`
  return { status: 500, headers: new Headers(), body: null, text }
}

/** Statuses answered, per kind of input and route: how far the fuzz got past validation. */
const outcomes = new Map<string, Map<string, number[]>>()
function record(sent: Sent, status: number) {
  const byRoute = outcomes.get(sent.kind) ?? outcomes.set(sent.kind, new Map()).get(sent.kind)!
  const key = routeName(sent.route)
  if (!byRoute.has(key)) byRoute.set(key, [])
  byRoute.get(key)!.push(status)
}
afterAll(() => {
  if (!process.env.FUZZ_STATS) return
  for (const [kind, byRoute] of outcomes) {
    const all = [...byRoute.values()].flat()
    const histogram = Object.entries(Object.groupBy(all, (status) => String(status))).map(([status, list]) => `${status}×${list!.length}`)
    console.log(`fuzz ${kind}: ${all.length} requests over ${byRoute.size} routes: ${histogram.join(' ')}`)
    for (const [route, statuses] of byRoute) if (statuses.every((status) => status === 400)) console.log(`  only 400s: ${route}`)
  }
})

const preview = (text: string | undefined, max = 300) =>
  text === undefined ? '(none)' : text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text

/**
 * Sends one request and checks the rule; throws (failing the property) with the request and the
 * answer, and writes the whole request to a file (bodies run to 100 kB). Background exports are
 * drained before and after, so the commits counted are the request's own.
 */
async function sendAndCheck(sent: Sent) {
  const path = (await pathOf(sent.route)) + (sent.query ? `?${sent.query}` : '')
  await t.deps.exports.idle()
  const before = await writes()
  const headers: Record<string, string> = {}
  if (sent.contentType !== undefined) headers['content-type'] = sent.contentType
  const reply = await t.request(sent.route.method, path, { token: sessionOf(sent.caller).token, raw: sent.body, headers }).catch(escaped)
  record(sent, reply.status)
  await t.deps.exports.idle()
  const after = await writes()
  const problems = problemsOf(reply, after.commits - before.commits, sent.mustRefuse ?? false)
  if (problems.length > 0) {
    const file = join(tmpdir(), `fuzz-failure-${process.pid}-${Date.now()}.json`)
    writeFileSync(file, JSON.stringify({ method: sent.route.method, path: `/api${path}`, caller: sent.caller, contentType: sent.contentType, body: sent.body }))
    throw new Error(
      [
        `${problems.join('; ')}`,
        `request: ${sent.route.method} /api${preview(path, 200)} as the ${sent.caller} (written in full to ${file})`,
        `content-type: ${sent.contentType ?? '(none)'}, body: ${preview(sent.body)}`,
        `answer: ${reply.status} ${preview(reply.text, 500)}`,
        `total_changes() moved by ${after.changes - before.changes}, commits by ${after.commits - before.commits}`,
      ].join('\n'),
    )
  }
  return reply
}

function problemsOf(reply: Reply, commits: number, mustRefuse: boolean): string[] {
  const problems: string[] = []
  if (reply.status >= 500) problems.push(`a ${reply.status}`)
  if (mustRefuse && reply.status < 400) problems.push(`accepted (${reply.status}) where a 4xx was due`)
  if (reply.status >= 400) {
    const body = reply.body as Record<string, unknown> | null
    const errors = body?.errors
    if (
      body === null ||
      typeof body !== 'object' ||
      body.success !== false ||
      typeof body.message !== 'string' ||
      body.message === '' ||
      typeof body.code !== 'string' ||
      !/^[A-Z][A-Z0-9_]*$/.test(body.code) ||
      errors === null ||
      typeof errors !== 'object' ||
      Array.isArray(errors)
    ) {
      problems.push('not the error envelope {success:false, message, code, errors:{}}')
    } else if (body.code === 'VALIDATION_ERROR') {
      const bad = Object.entries(errors).filter(([, messages]) => !Array.isArray(messages) || !messages.every((m) => typeof m === 'string'))
      if (bad.length > 0) problems.push('VALIDATION_ERROR whose errors are not arrays of messages')
    }
    if (!reply.headers.get('content-type')?.startsWith('application/json')) problems.push(`content-type ${reply.headers.get('content-type')}`)
    if (LEAK.test(reply.text)) problems.push('a stack trace or SQL in the answer')
    if (reply.status < 500 && commits !== 0) problems.push(`committed a write to the database on a ${reply.status}`)
  }
  return problems
}

/**
 * fast-check's report names the seed, the path and the counterexample. It is not shrunk unless
 * FUZZ_SHRINK=1: every shrinking step is another request to a server whose state the failing run
 * may have changed, and a hundred of them blow the time budget.
 */
async function check(property: fc.IAsyncProperty<any>, numRuns: number, ...name: string[]) {
  await fc.assert(property, { seed: seedOf(...name), numRuns: runs(numRuns), endOnFailure: process.env.FUZZ_SHRINK !== '1' })
}

const routeName = (route: FuzzRoute) => `${route.method} ${route.path}`
const bodyRuns = (route: FuzzRoute, n: number) => (PASSWORD_ROUTES.test(route.path) ? Math.min(n, RUNS.passwordRoute) : n)

// ---------------------------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------------------------

describe('the fuzzer and its checker', () => {
  test('it has every route of the app: bodies of every POST/PUT, queries of every GET/DELETE', () => {
    const all = t.app.routes.filter((route) => route.path.startsWith('/api/') && !route.path.startsWith('/api/docs')).length
    expect(BODY_ROUTES.length + QUERY_ROUTES.length).toBe(all)
    expect(BODY_ROUTES.length).toBeGreaterThan(50)
    expect(QUERY_ROUTES.filter((route) => route.query?.properties).length).toBeGreaterThan(40)
  })

  test('every route with a path parameter gets a real id of the fixture workspace (or a missing one for DELETE)', async () => {
    const unresolved: string[] = []
    for (const route of ROUTES.filter((r) => r.path.includes('/:'))) {
      const path = await pathOf(route).catch((error: Error) => error.message)
      if (!/^\/[\w/-]+$/.test(path) || path.includes('undefined')) unresolved.push(`${routeName(route)} → ${path}`)
    }
    expect(unresolved).toEqual([])
  })

  test("a schema-shaped body without mutations is accepted by a route (control: the fixture's ids reach the service)", async () => {
    const route = BODY_ROUTES.find((r) => r.method === 'POST' && r.path === '/api/office/v1/visits')!
    const sample = fc.sample(fromSchema(route.body!), { seed: seedOf('control'), numRuns: 20 })
    const accepted = []
    for (const body of sample)
      accepted.push((await sendAndCheck({ route, caller: 'owner', kind: 'control', body: toJson(body), contentType: 'application/json' })).status)
    expect(accepted).toContain(201)
  })

  test('the rule flags a 5xx, a commit on a 4xx, a wrong envelope and an accepted CSV-route body (the checker is not blind)', () => {
    const fake = (status: number, body: unknown): Reply => ({
      status,
      body,
      text: JSON.stringify(body),
      headers: new Headers({ 'content-type': 'application/json' }),
    })
    const envelope = { success: false, message: 'x', code: 'VALIDATION_ERROR', errors: { name: ['is required'] } }
    expect(problemsOf(fake(400, envelope), 0, false)).toEqual([])
    expect(problemsOf(fake(400, envelope), 1, false)).toEqual(['committed a write to the database on a 400'])
    expect(problemsOf(fake(500, { ...envelope, code: 'INTERNAL_ERROR', errors: {} }), 0, false)).toEqual(['a 500'])
    expect(problemsOf(fake(404, { success: false, code: 'X_NOT_FOUND', errors: {} }), 0, false)).toHaveLength(1)
    expect(problemsOf(fake(400, { ...envelope, errors: { name: 'is required' } }), 0, false)).toHaveLength(1)
    expect(problemsOf(fake(400, { ...envelope, errors: [] }), 0, false)).toHaveLength(1)
    expect(problemsOf(fake(201, { success: true }), 0, true)).toHaveLength(1)
  })

  test('the commit counter sees a committed write, and not a write that a 4xx rolled back', async () => {
    const before = await writes()
    data(await t.post('/office/v1/outlets/sub-areas', { name: unique('Area') }, { token: owner.token }), 201, 'creating a sub-area')
    const afterCreate = await writes()
    expect(afterCreate.commits).toBeGreaterThan(before.commits)
    const refused = await t.post(
      '/office/v1/users',
      { name: 'Rolled back', email: `${unique('rb')}@example.com`, password: 'password123', role_id: ws.roles.user, team_ids: [NO_SUCH_ID] },
      { token: owner.token },
    )
    expect(refused.status).toBe(400)
    const afterRefusal = await writes()
    expect(afterRefusal.commits).toBe(afterCreate.commits)
    expect(await t.count('users', "name = 'Rolled back'")).toBe(0)
  })

  // Bugs this file found, fixed in the kernel's JSON parsing (src/lib/json.ts): each used to
  // answer 500 (on /auth/* without even the envelope) or take seconds.
  const FOUND = [
    { what: 'an own "toString" key in a field', path: '/app/v1/notifications/tokens', raw: '{"token":{"toString":null},"platform":"ios"}', token: true },
    { what: 'an own "toString" key in a list item', path: '/office/v1/outlets/sub-areas', raw: '{"name":["x",{"toString":1}]}', token: true },
    { what: 'an own "toString" key in an e-mail (no token)', path: '/auth/forgot-password', raw: '{"email":{"toString":1}}', token: false },
    { what: 'an escaped "toString" key', path: '/auth/register', raw: '{"email":{"\\u0074oString":1},"password":"x"}', token: false },
    { what: 'a value nested 5,000 deep', path: '/office/v1/outlets/sub-areas', raw: `{"name":${'['.repeat(5_000)}${']'.repeat(5_000)}}`, token: true },
    { what: 'an e-mail nested 5,000 deep (no token)', path: '/auth/forgot-password', raw: `{"email":${'['.repeat(5_000)}${']'.repeat(5_000)}}`, token: false },
    {
      what: 'a name nested 40,000 objects deep',
      path: '/office/v1/outlets/sub-areas',
      raw: `{"name":${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}}`,
      token: true,
    },
  ]
  for (const found of FOUND) {
    test(`fixed: ${found.what} → 400 VALIDATION_ERROR at once, nothing written`, async () => {
      const before = await writes()
      const started = performance.now()
      const reply = await t
        .request('POST', found.path, { token: found.token ? owner.token : undefined, raw: found.raw, headers: { 'content-type': 'application/json' } })
        .catch(escaped)
      expect(performance.now() - started).toBeLessThan(500)
      expect(problemsOf(reply, (await writes()).commits - before.commits, false)).toEqual([])
      expect(`${reply.status} ${reply.body?.code}`).toBe('400 VALIDATION_ERROR')
    })
  }

  test('an own prototype-named key next to valid fields is ignored like any unknown field (docs/API.md §Errors)', async () => {
    for (const key of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
      const name = `Proto ${key} ${Date.now()}`
      const reply = await t.request('POST', '/office/v1/outlets/sub-areas', {
        token: owner.token,
        raw: `{"name":${JSON.stringify(name)},${JSON.stringify(key)}:{"polluted":1}}`,
        headers: { 'content-type': 'application/json' },
      })
      expect(`${key}: ${reply.status}`).toBe(`${key}: 201`)
      expect(reply.body.data.name).toBe(name)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    }
  })
})

describe('arbitrary JSON bodies: no 5xx, the envelope on every 4xx, nothing written', () => {
  for (const route of BODY_ROUTES) {
    test(`${routeName(route)}`, async () => {
      const schemaKeys = Object.keys(route.body?.properties ?? {})
      const objectBody = fc
        .array(fc.tuple(schemaKeys.length ? fc.oneof(fc.constantFrom(...schemaKeys), hostileKey) : hostileKey, hostile), { maxLength: 6 })
        .map(ownObject)
      const body = fc.oneof(
        { weight: 3, arbitrary: objectBody },
        { weight: 1, arbitrary: hostile },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
      )
      await check(
        fc.asyncProperty(fc.constantFrom(...callersOf(route)), body, (caller, value) =>
          sendAndCheck({ route, caller, kind: 'arbitrary', body: toJson(value), contentType: 'application/json', mustRefuse: route.csv }).then(() => true),
        ),
        bodyRuns(route, RUNS.arbitraryBody),
        routeName(route),
        'arbitrary',
      )
    })
  }
})

describe("schema-shaped bodies with hostile fields (from the route's own schema): no 5xx, the envelope, nothing written", () => {
  for (const route of BODY_ROUTES.filter((r) => r.body?.type === 'object')) {
    test(`${routeName(route)}`, async () => {
      const body = fc.tuple(fromSchema(route.body!), fc.array(mutation, { minLength: 1, maxLength: 2 })).map(([valid, mutations]) => mutate(valid, mutations))
      await check(
        fc.asyncProperty(fc.constantFrom(...callersOf(route)), body, (caller, value) =>
          sendAndCheck({ route, caller, kind: 'shaped', body: toJson(value), contentType: 'application/json' }).then(() => true),
        ),
        bodyRuns(route, RUNS.shapedBody),
        routeName(route),
        'shaped',
      )
    })
  }
})

const MALFORMED = [
  '{',
  '}',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  '[1,2',
  '{"a":1}garbage',
  '{"a":1}{"b":2}',
  'nul',
  'NaN',
  'undefined',
  '\uFEFF{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  '{"a":"\u0000"}',
  '{"__proto__":{"polluted":true}}',
  '{"a":1e400}',
  `{"a":${'1'.repeat(10_000)}}`,
  '"just a string"',
  '42',
  'null',
  '[]',
  '[{}]',
  '['.repeat(100_000),
  `{"a":"${'x'.repeat(100_000)}`,
  '\u0000',
]
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/csv',
  'application/vnd.api+json',
  '',
]

describe('malformed JSON text and wrong content types: no 5xx, the envelope, nothing written', () => {
  for (const route of ROUTES.filter((r) => r.method !== 'GET')) {
    test(`${routeName(route)}`, async () => {
      const text = fc.oneof(fc.constantFrom(...MALFORMED), fc.string({ unit: nastyChar, maxLength: 40 }))
      // Well-formed JSON of the right shape under a wrong content type is part of it: text/csv
      // is a JSON route's string body, the CSV import's expected type.
      const contentType = fc.oneof({ weight: 3, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) })
      await check(
        fc.asyncProperty(fc.constantFrom(...callersOf(route)), text, contentType, (caller, body, type) =>
          sendAndCheck({ route, caller, kind: 'malformed', body, contentType: type || undefined }).then(() => true),
        ),
        RUNS.malformedBody,
        routeName(route),
        'malformed',
      )
    })
  }
})

describe('query strings (declared keys with hostile values, extra keys): no 5xx, the envelope, nothing written', () => {
  for (const route of QUERY_ROUTES) {
    test(`${routeName(route)}${route.query?.properties ? ` ?${Object.keys(route.query.properties).join(',')}` : ''}`, async () => {
      await check(
        fc.asyncProperty(fc.constantFrom(...callersOf(route)), queryString(route), (caller, query) =>
          sendAndCheck({ route, caller, kind: 'query', query }).then(() => true),
        ),
        route.query?.properties ? RUNS.query : RUNS.undeclaredQuery,
        routeName(route),
        'query',
      )
    })
  }
})

describe('reach: the fuzz gets past the schema gate', () => {
  // Valid values of the declared keys, mixed with hostile ones: every list and report answered a 2xx.
  test('every GET route that declares query keys answered at least one 2xx to a fuzzed query', () => {
    const queries = outcomes.get('query') ?? new Map<string, number[]>()
    const neverAccepted = QUERY_ROUTES.filter((route) => route.method === 'GET' && route.query?.properties && queries.has(routeName(route)))
      .map(routeName)
      .filter((name) => !queries.get(name)!.some((status) => status >= 200 && status < 300))
    expect(neverAccepted).toEqual([])
  })

  test('schema-shaped bodies got an answer other than 400 (a service rule, a conflict, a 2xx) on most routes', () => {
    const shaped = [...(outcomes.get('shaped') ?? new Map<string, number[]>()).values()]
    const reached = shaped.filter((statuses) => statuses.some((status) => status !== 400)).length
    expect(reached).toBeGreaterThanOrEqual(shaped.length / 2)
  })
})
