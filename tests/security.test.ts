/**
 * The shared security suite, run over every route the app serves (new routes are picked up
 * automatically): no token → 401; a role without the route's permission → 403; another
 * workspace's ids → 404 with nothing changed. Unkey's common-tests and Cal.com's "an ordinary
 * member gets 403 on every endpoint" are the models.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { SignJWT } from 'jose'
import { data, HERE as SITE, newForm, newOutlet, newProduct, newProject, PNG as PNG_DATA_URI } from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'
import { BUILTIN_GRANTS } from '../src/platform/permissions'

const t = useTestApp()

interface RouteInfo {
  method: string
  path: string
  permission: string
}

function routes(): RouteInfo[] {
  return t.app.app.routes
    .map((route) => ({
      method: route.method,
      path: route.path,
      permission: ((route.hooks as { detail?: Record<string, unknown> }).detail?.['x-permission'] as string) ?? 'none',
    }))
    .filter((route) => route.path.startsWith('/api/') && !route.path.startsWith('/api/docs'))
}

/** Path ids: one for every parameter, or one per parameter name (`{id, submission_id}`). */
type PathIds = number | string | Record<string, number | string>

const concrete = (path: string, ids: PathIds = 1) =>
  path.replace(/^\/api/, '').replace(/:([a-z_]+)/g, (_, name: string) => String(typeof ids === 'object' ? ids[name] : ids))

/** The CSV import takes text/csv, not JSON: it is sent a small CSV (authentication is checked before the body anyway). */
const isCsvImport = (path: string) => path.endsWith('/import')

/** A request to a route with placeholder ids, and a body of the kind the route reads. */
function probe(route: RouteInfo, token?: string) {
  if (isCsvImport(route.path)) {
    return t.app.request(route.method, concrete(route.path), {
      token,
      raw: 'outlet_code,project_code,visit_date\nX,Y,2026-11-22\n',
      headers: { 'content-type': 'text/csv' },
    })
  }
  return t.app.request(route.method, concrete(route.path), { token, body: route.method === 'GET' ? undefined : {} })
}

let a: Workspace
let b: Workspace
let powerless: Session

beforeAll(async () => {
  a = await t.app.workspace()
  b = await t.app.workspace()
  powerless = await t.app.memberWithGrants(a, [])
})

describe('every route declares how it is protected', () => {
  test('each route is public, authenticated-only or names a permission', () => {
    const undeclared = routes().filter((r) => r.permission === 'none' && r.path !== '/api/health')
    expect(undeclared).toEqual([])
  })

  test('the WebSocket route /ws is served outside /api and left out of this suite (it authenticates at the upgrade: tests/ws.test.ts)', () => {
    const all = t.app.app.routes.map((route) => route.path)
    expect(all).toContain('/ws')
    expect(routes().map((route) => route.path)).not.toContain('/ws')
    expect(routes().every((route) => route.path.startsWith('/api/'))).toBe(true)
  })

  test('only the auth endpoints, health and the operator metrics page are reachable without a user token', () => {
    const open = routes()
      .filter((r) => r.permission === 'public' || r.permission === 'none')
      .map((r) => r.path)
    // /api/metrics holds no tenant data and takes METRICS_TOKEN instead (tests/health.test.ts).
    expect(open.filter((path) => !(path.startsWith('/api/auth/') || path === '/api/health' || path === '/api/metrics'))).toEqual([])
  })
})

describe('no token → 401', () => {
  test('every protected route answers 401 UNAUTHORIZED without a token', async () => {
    const failures: string[] = []
    for (const route of routes().filter((r) => r.permission !== 'public' && r.permission !== 'none')) {
      const reply = await probe(route)
      if (reply.status !== 401 || reply.body?.code !== 'UNAUTHORIZED') failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
    }
    expect(failures).toEqual([])
  })

  test('a bad, foreign-signed, alg:none or expired token is refused on every protected route', async () => {
    const foreign = await new SignJWT({ sub: String(a.owner.user.id), wid: a.id, role: 'super_admin', jti: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'))
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: String(a.owner.user.id), wid: a.id, role: 'super_admin', jti: 'x', exp: 9_999_999_999 }),
    ).toString('base64url')}.`
    const [{ value: secret }] = await t.app.db.pragma("SELECT value FROM app_settings WHERE key = 'jwt_secret'")
    const expired = await new SignJWT({ sub: String(a.owner.user.id), wid: a.id, role: 'super_admin', jti: 'y' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(String(secret)))
    const protectedRoutes = routes().filter((r) => r.permission !== 'public' && r.permission !== 'none')
    for (const token of ['garbage', foreign, none, `${a.owner.token}x`, expired]) {
      for (const route of protectedRoutes) {
        const reply = await probe(route, token)
        expect(`${route.method} ${route.path} ${reply.status}`).toBe(`${route.method} ${route.path} 401`)
      }
    }
  })
})

describe('missing permission → 403', () => {
  test('a user whose role grants nothing gets 403 FORBIDDEN on every permission-guarded route', async () => {
    const failures: string[] = []
    for (const route of routes().filter((r) => r.permission.includes(':'))) {
      const reply = await probe(route, powerless.token)
      if (reply.status !== 403 || reply.body?.code !== 'FORBIDDEN') failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
    }
    expect(failures).toEqual([])
  })

  test('the field user role gets 403 on every /office route that needs a permission', async () => {
    const fieldUser = await t.app.member(a, 'user')
    const failures: string[] = []
    for (const route of routes().filter((r) => r.path.startsWith('/api/office/') && r.permission.includes(':'))) {
      const reply = await probe(route, fieldUser.token)
      if (reply.status !== 403) failures.push(`${route.method} ${route.path} → ${reply.status}`)
    }
    expect(failures).toEqual([])
  })

  test('a field user gets 403 on every office decision on their own order, with a valid body, and the order is unchanged', async () => {
    const order = await orderOfA()
    const row = `SELECT * FROM sales_orders WHERE id = ${order}`
    const [before] = await t.app.db.pragma(row)
    const failures: string[] = []
    for (const [action, body] of [
      ['approve', undefined],
      ['reject', { reason: 'my own call' }],
      ['deliver', undefined],
      ['cancel', { reason: 'my own call' }],
    ] as const) {
      const reply = await t.app.put(`/office/v1/sales-orders/${order}/${action}`, body, { token: kit.field.token })
      if (reply.status !== 403 || reply.body?.code !== 'FORBIDDEN') failures.push(`${action} → ${reply.status} ${reply.body?.code}`)
    }
    expect(failures).toEqual([])
    expect((await t.app.db.pragma(row))[0]).toEqual(before)
    expect(before.status).toBe('submitted')
  })

  test('a manager gets 403 on every office write that needs a .manage key (but those a module grants managers: journey plans)', async () => {
    const manager = await t.app.member(a, 'manager')
    const failures: string[] = []
    // Declared with `grants: { manager: 'full' }` in the module's manifest; tests/journey-plans.test.ts has managers use them.
    const grantedToManagers = new Set(BUILTIN_GRANTS.manager.filter((grant) => grant.access === 'full' && grant.platform === 'web').map((grant) => grant.key))
    expect([...grantedToManagers].filter((key) => key.endsWith('.manage'))).toEqual(['journey_plan.manage'])
    for (const route of routes().filter(
      (r) => r.path.startsWith('/api/office/') && r.permission.includes('.manage') && !grantedToManagers.has(r.permission.split(':')[0]),
    )) {
      const reply = await t.app.request(route.method, concrete(route.path), { token: manager.token, body: {} })
      if (reply.status !== 403) failures.push(`${route.method} ${route.path} → ${reply.status}`)
    }
    expect(failures).toEqual([])
  })
})

/**
 * Workspace A's visit fixtures: a form, a project using it, an outlet and two field users (one keeps
 * a visit in progress, the other runs visits to the end to leave photos and submissions behind).
 * Workspace B gets a field user (mobile routes) and a form of its own (bodies that name a form).
 */
interface VisitFixtures {
  form: number
  project: number
  outlet: number
  field: Session
  runner: Session
}
let kit: VisitFixtures
let bField: Session
let bForm: number
/** A priced product of workspace B: the order bodies B sends name it (only the path id is foreign). */
let bProduct: number
const FORM_FIELDS = [
  { key: 'facings', label: 'Facings', type: 'integer', required: true },
  { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'] },
]

const newFormId = async (token: string): Promise<number> => (await newForm(t.app, token, { fields: FORM_FIELDS })).id

beforeAll(async () => {
  const token = a.owner.token
  const form = await newFormId(token)
  const project = await newProject(t.app, token, { forms: [{ form_id: form, is_required: false }] })
  const outlet = await newOutlet(t.app, token, SITE)
  kit = { form, project: project.id, outlet: outlet.id, field: await t.app.member(a, 'user'), runner: await t.app.member(a, 'user') }
  bField = await t.app.member(b, 'user')
  bForm = await newFormId(b.owner.token)
  bProduct = (await newProduct(t.app, b.owner.token, { price: 10_000 })).id
})

/** A scheduled visit of workspace A assigned to `who` (the field user unless told), with the form attached. */
async function visitOfA(who: Session = kit.field, extra: Record<string, unknown> = {}) {
  const body = { outlet_id: kit.outlet, project_id: kit.project, visit_date: '2026-11-22', user_ids: [who.user.id], ...extra }
  return data(await t.app.post('/office/v1/visits', body, { token: a.owner.token }), 201, 'planning a visit')
}

let started: Promise<any> | undefined
/** One visit of A in progress (its field user can have only one): the target of check-out and form submissions. */
function startedVisitOfA() {
  started ??= (async () => {
    const visit = await visitOfA()
    data(await t.app.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: kit.field.token }), 200, 'check-in')
    return visit
  })()
  return started
}

/** A finished visit of A whose submission is completed and awaits approval. */
async function submittedOfA(): Promise<{ id: number; submission_id: number }> {
  const visit = await visitOfA(kit.runner, { submissions: [{ form_id: kit.form, is_required: true }] })
  const submission = visit.submissions[0].id
  const token = kit.runner.token
  data(await t.app.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token }), 200, 'check-in')
  const items = [{ submission_id: submission, status: 'completed', answers: { facings: 3, brand: 'A' } }]
  data(await t.app.post(`/app/v1/visits/${visit.id}/submit-form-v2`, { form_id: kit.form, items }, { token }), 200, 'submit-form-v2')
  data(await t.app.post(`/app/v1/visits/${visit.id}/check-out`, SITE, { token }), 200, 'check-out')
  return { id: visit.id, submission_id: submission }
}

/** A photo of workspace A: a check-in with a PNG data URI by a field user of A; its `check_in_photo_url` id. */
async function fileOfA(): Promise<string> {
  const visit = await visitOfA(kit.runner)
  const checkedIn = data(
    await t.app.post(`/app/v1/visits/${visit.id}/check-in`, { ...SITE, check_in_photo: PNG_DATA_URI }, { token: kit.runner.token }),
    200,
    'check-in with a photo',
  )
  data(await t.app.post(`/app/v1/visits/${visit.id}/check-out`, SITE, { token: kit.runner.token }), 200, 'check-out')
  const url = String(checkedIn.check_in_photo_url)
  if (!/^\/api\/files\/[0-9a-f-]{36}$/.test(url)) throw new Error(`unexpected photo URL ${url}`)
  return url.split('/').pop()!
}

/** A notification of workspace A: a visit assigned to A's field user notifies them; the newest of their list. */
async function notificationOfA(): Promise<number> {
  await visitOfA(kit.field)
  const [newest] = data(await t.app.get('/app/v1/notifications?limit=1', { token: kit.field.token }), 200, 'listing notifications')
  if (newest?.type !== 'visit.assigned') throw new Error(`expected a visit.assigned notification, got ${JSON.stringify(newest)}`)
  return newest.id
}

/**
 * A finished export job of workspace A's owner. The runner works in the background: it is awaited
 * here, so that no job writes while the test counts the database's changes.
 */
async function exportJobOfA(): Promise<number> {
  const job = data(await t.app.get('/office/v1/export/submissions/csv', { token: a.owner.token }), 202, 'requesting an export')
  await t.app.deps.exports.idle()
  return job.id
}

/** A priced product of workspace A, made once: what A's orders are taken for. */
let productOfA: Promise<number> | undefined

/**
 * A submitted sales order of workspace A, taken by A's field user at the visit they have in progress
 * (so that the phone's own GET of it, the control, answers 200); a new one per call.
 */
async function orderOfA(): Promise<number> {
  productOfA ??= (async () => (await newProduct(t.app, a.owner.token, { price: 10_000 })).id)()
  const visit = await startedVisitOfA()
  const body = { lines: [{ product_id: await productOfA, quantity: 2 }] }
  const reply = await t.app.post(`/app/v1/visits/${visit.id}/sales-orders`, body, { token: kit.field.token, idempotencyKey: unique('order') })
  return data(reply, 201, 'taking an order').id
}

/**
 * Path parameters that name no row, so that there is nothing of workspace A to point at, and why.
 * These routes are left out of the id loop below; what they could leak is tested on its own.
 */
const NOT_ROW_PARAMS: Record<string, string> = {
  '/api/office/v1/export/submissions/:format':
    'its parameter names an export format (csv or pdf), not a row; the jobs it makes are /export/jobs/:id, and what an export holds is tested below',
  '/api/office/v1/export/sales-orders/:format':
    'its parameter names an export format (csv), not a row; the jobs it makes are /export/jobs/:id; that it holds only the workspace’s orders is tested in tests/orders.test.ts',
}

interface Resource {
  /** The table of the row the route's id names (`key`: the path parameter of that id, default `id`). */
  table: string
  key?: string
  /** Creates the thing in workspace A: its id, or the id of each path parameter. */
  create(): Promise<PathIds>
  /** A valid body for writes, from workspace B's point of view (only the path id is foreign). */
  body?: Record<string, unknown> | (() => Record<string, unknown>)
  /** The exact 404 code, where the contract names it (otherwise any `<ENTITY>_NOT_FOUND`). */
  notFound?: string
  /** Request headers the route needs, made per request (an order requires a new X-Idempotency-Key). */
  headers?: () => Record<string, string>
  /** A `text/csv` body instead of `body` (an import). */
  csv?: string
}

/** A journey plan of workspace A (inactive: nothing generated) for its field user. */
const planOfA = async () =>
  created('/office/v1/journey-plans', {
    user_id: kit.field.user.id,
    project_id: await created('/office/v1/projects', { name: unique('Project') }),
    start_date: '2026-11-16',
    active: false,
    stops: [{ outlet_id: await created('/office/v1/outlets', { name: unique('Outlet'), code: unique('OUT') }), weekday: 1 }],
  })
let holidayDay = 0
const created = async (path: string, body: Record<string, unknown>) => data(await t.app.post(path, body, { token: a.owner.token }), 201, `POST ${path}`).id

const visitIds = async () => (await visitOfA()).id
const startedIds = async () => (await startedVisitOfA()).id
const nestedIds = async () => {
  const visit = await visitOfA()
  return { id: visit.id, submission_id: visit.submissions[0].id }
}
const submissionIds = async () => (await visitOfA()).submissions[0].id

/**
 * For every route with an id in its path: how to create such a thing in workspace A, and a valid
 * body for writes. A route missing here fails the coverage test below. Mobile routes are looked up
 * by their own path, or else by the office path they mirror.
 */
const resources: Record<string, Resource> = {
  '/api/office/v1/outlets/channel-groups/:id': {
    table: 'channel_groups',
    create: async () => (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/outlets/channels/:id': {
    table: 'channels',
    create: async () => {
      const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data
      return (await t.app.post('/office/v1/outlets/channels', { name: unique('C'), channel_group_id: group.id }, { token: a.owner.token })).body.data.id
    },
    body: { name: 'hijacked' },
  },
  '/api/office/v1/outlets/accounts/:id': {
    table: 'accounts',
    create: async () => {
      const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data
      const channel = (await t.app.post('/office/v1/outlets/channels', { name: unique('C'), channel_group_id: group.id }, { token: a.owner.token })).body.data
      return (await t.app.post('/office/v1/outlets/accounts', { name: unique('A'), channel_id: channel.id }, { token: a.owner.token })).body.data.id
    },
    body: { name: 'hijacked' },
  },
  '/api/office/v1/outlets/sub-areas/:id': {
    table: 'sub_areas',
    create: async () => (await t.app.post('/office/v1/outlets/sub-areas', { name: unique('S') }, { token: a.owner.token })).body.data.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/roles/:id': {
    table: 'roles',
    create: async () => (await t.app.post('/office/v1/roles', { name: unique('Role'), permissions: [] }, { token: a.owner.token })).body.data.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/users/:id': {
    table: 'users',
    create: async () => (await t.app.member(a, 'user')).user.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/audit-logs/:id': {
    table: 'audit_logs',
    create: async () => {
      const logs = await t.app.get('/office/v1/audit-logs?limit=1', { token: a.owner.token })
      return logs.body.data.data[0].id
    },
  },
  '/api/office/v1/teams/:id': {
    table: 'teams',
    create: () => created('/office/v1/teams', { name: unique('Team'), user_ids: [kit.field.user.id] }),
    body: { name: 'hijacked', user_ids: [] },
  },
  '/api/office/v1/outlets/:id': {
    table: 'outlets',
    create: () => created('/office/v1/outlets', { name: unique('Outlet'), code: unique('OUT'), ...SITE }),
    body: { name: 'hijacked' },
  },
  '/api/office/v1/forms/:id': {
    table: 'forms',
    create: () => newFormId(a.owner.token),
    body: { title: 'hijacked' },
  },
  '/api/office/v1/projects/:id': {
    table: 'projects',
    create: () => created('/office/v1/projects', { name: unique('Project'), forms: [{ form_id: kit.form, is_required: true }] }),
    body: { name: 'hijacked', forms: [] },
  },
  '/api/files/:id': { table: 'files', create: fileOfA },
  '/api/office/v1/principals/:id': {
    table: 'principals',
    create: () => created('/office/v1/principals', { name: unique('Principal'), code: unique('PRN') }),
    body: { name: 'hijacked' },
    notFound: 'PRINCIPAL_NOT_FOUND',
  },
  '/api/office/v1/products/:id': {
    table: 'products',
    create: async () => {
      const principal = await created('/office/v1/principals', { name: unique('Principal') })
      return created('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), principal_id: principal, price: 10 })
    },
    body: { name: 'hijacked', sku: 'HIJACKED' },
    notFound: 'PRODUCT_NOT_FOUND',
  },
  '/api/office/v1/price-lists/:id': {
    table: 'price_lists',
    create: async () => {
      const product = await created('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), price: 10 })
      return created('/office/v1/price-lists', { name: unique('List'), items: [{ product_id: product, price: 9 }] })
    },
    body: { name: 'hijacked' },
    notFound: 'PRICE_LIST_NOT_FOUND',
  },
  // A's outlet's price sheet, asked for by B's field user.
  '/api/app/v1/outlets/:id/prices': { table: 'outlets', create: async () => kit.outlet, notFound: 'OUTLET_NOT_FOUND' },
  // A closed day of a field user of A, entered by hand.
  '/api/office/v1/attendances/:id': {
    table: 'attendances',
    create: () =>
      created('/office/v1/attendances', {
        user_id: kit.runner.user.id,
        date: '2026-11-20',
        check_in_at: '2026-11-20T01:00:00.000Z',
        check_out_at: '2026-11-20T09:00:00.000Z',
      }),
    notFound: 'ATTENDANCE_NOT_FOUND',
  },
  // A's field user's notification (from a visit assigned to them): B's caller cannot mark it read.
  '/api/office/v1/notifications/:id/read': { table: 'notifications', create: notificationOfA, notFound: 'NOTIFICATION_NOT_FOUND' },
  // A's notification's push deliveries, asked for by B's owner (an admin there).
  '/api/office/v1/notifications/:id/deliveries': { table: 'notifications', create: notificationOfA, notFound: 'NOTIFICATION_NOT_FOUND' },
  // A's field user's push token, removed by B's field user: not theirs, 404, kept.
  '/api/app/v1/notifications/tokens/:token': {
    table: 'push_tokens',
    create: async () => {
      const token = unique('fcm-token-of-a')
      const row = data(await t.app.post('/app/v1/notifications/tokens', { token, platform: 'android' }, { token: kit.field.token }), 201, 'a push token')
      return { id: row.id, token }
    },
    notFound: 'PUSH_TOKEN_NOT_FOUND',
  },
  '/api/office/v1/export/jobs/:id': { table: 'export_jobs', create: exportJobOfA, notFound: 'EXPORT_JOB_NOT_FOUND' },
  '/api/office/v1/export/jobs/:id/download': { table: 'export_jobs', create: exportJobOfA, notFound: 'EXPORT_JOB_NOT_FOUND' },
  '/api/office/v1/journey-plans/:id': { table: 'journey_plans', create: planOfA, body: { name: 'hijacked' }, notFound: 'JOURNEY_PLAN_NOT_FOUND' },
  '/api/office/v1/journey-plans/:id/stops/import': {
    table: 'journey_plans',
    create: planOfA,
    csv: 'outlet_code,weekday\nX-1,1\n',
    notFound: 'JOURNEY_PLAN_NOT_FOUND',
  },
  '/api/office/v1/journey-plans/:id/generate': {
    table: 'journey_plans',
    create: planOfA,
    body: { date_from: '2026-11-23', date_to: '2026-11-29' },
    notFound: 'JOURNEY_PLAN_NOT_FOUND',
  },
  '/api/office/v1/holidays/:id': {
    table: 'holidays',
    create: () => created('/office/v1/holidays', { date: `2030-01-${String(++holidayDay).padStart(2, '0')}`, name: unique('Holiday') }),
    notFound: 'HOLIDAY_NOT_FOUND',
  },
  // Workspace A's own id, from B's owner (a super_admin too): 404 WORKSPACE_NOT_FOUND, A's settings unchanged.
  '/api/office/v1/workspaces/:id/settings': {
    table: 'workspaces',
    create: async () => a.id,
    body: { location_retention_days: 7, name: 'hijacked' },
  },
}

for (const listing of ['visits', 'outlet-visits']) {
  const office = `/api/office/v1/${listing}`
  Object.assign(resources, {
    [`${office}/:id`]: { table: 'visits', create: visitIds },
    [`${office}/:id/cancel`]: { table: 'visits', create: visitIds, body: { reason: 'hijacked' } },
    [`${office}/:id/force-close`]: { table: 'visits', create: startedIds, body: { reason: 'hijacked' } },
    [`${office}/:id/${listing === 'visits' ? 'assign' : 'assign-users'}`]: { table: 'visits', create: visitIds, body: { user_ids: [] } },
    [`${office}/:id/submissions`]: { table: 'visits', create: visitIds, body: () => ({ form_id: bForm, is_required: true }) },
    // Both ids from workspace A.
    [`${office}/:id/submissions/:submission_id`]: { table: 'submissions', key: 'submission_id', create: nestedIds },
    [`${office}/:id/submissions/:submission_id/approve`]: { table: 'submissions', key: 'submission_id', create: submittedOfA, body: { notes: 'hijacked' } },
    [`${office}/:id/submissions/:submission_id/reject`]: { table: 'submissions', key: 'submission_id', create: submittedOfA, body: { notes: 'hijacked' } },
    [`${office}/submissions/:id`]: { table: 'submissions', create: submissionIds },
    [`${office}/submissions/:id/approval`]: {
      table: 'submissions',
      create: async () => (await submittedOfA()).submission_id,
      body: { status: 'approved', notes: 'hijacked' },
    },
  })
  const mobile = `/api/app/v1/${listing}`
  Object.assign(resources, {
    [`${mobile}/:id/check-in`]: { table: 'visits', create: visitIds, body: { ...SITE } },
    [`${mobile}/:id/check-out`]: { table: 'visits', create: startedIds, body: { ...SITE } },
    [`${mobile}/:id/submit-form-v2`]: {
      table: 'visits',
      create: startedIds,
      body: () => ({ form_id: bForm, items: [{ submission_id: null, status: 'completed', answers: { facings: 1, brand: 'A' } }] }),
    },
    [`${mobile}/:id/submit-form`]: { table: 'visits', create: startedIds, body: () => ({ form_id: bForm, answers: { facings: 1, brand: 'A' } }) },
  })
}
// Sales orders: an order of A (taken by A's field user) from B's owner or B's field user. The phone's
// routes mirror the office ones (GET and PUT of /app/v1/sales-orders/:id, its cancel).
const orderBody = () => ({ lines: [{ product_id: bProduct, quantity: 1 }], notes: 'hijacked' })
Object.assign(resources, {
  // B's field user naming A's visit in progress: 404 VISIT_NOT_FOUND, sent with the key the route requires
  // (without one it would answer 400 IDEMPOTENCY_KEY_REQUIRED before looking at the visit).
  '/api/app/v1/visits/:id/sales-orders': {
    table: 'visits',
    create: startedIds,
    body: orderBody,
    headers: () => ({ 'x-idempotency-key': unique('order') }),
    notFound: 'VISIT_NOT_FOUND',
  },
  '/api/office/v1/sales-orders/:id': { table: 'sales_orders', create: orderOfA, body: orderBody, notFound: 'SALES_ORDER_NOT_FOUND' },
  '/api/office/v1/sales-orders/:id/approve': { table: 'sales_orders', create: orderOfA, notFound: 'SALES_ORDER_NOT_FOUND' },
  '/api/office/v1/sales-orders/:id/reject': { table: 'sales_orders', create: orderOfA, body: { reason: 'hijacked' }, notFound: 'SALES_ORDER_NOT_FOUND' },
  '/api/office/v1/sales-orders/:id/deliver': {
    table: 'sales_orders',
    // Approved, so that delivering it would be allowed from its own workspace.
    create: async () => {
      const id = await orderOfA()
      data(await t.app.put(`/office/v1/sales-orders/${id}/approve`, undefined, { token: a.owner.token }), 200, 'approving the order')
      return id
    },
    notFound: 'SALES_ORDER_NOT_FOUND',
  },
  '/api/office/v1/sales-orders/:id/cancel': { table: 'sales_orders', create: orderOfA, body: { reason: 'hijacked' }, notFound: 'SALES_ORDER_NOT_FOUND' },
})
Object.assign(resources, {
  '/api/app/v1/visits/me/:id': { table: 'visits', create: visitIds },
  '/api/app/v1/visits/me/:id/submissions': { table: 'visits', create: visitIds },
  '/api/app/v1/visits/me/:id/submissions/:submission_id': { table: 'submissions', key: 'submission_id', create: nestedIds },
})

describe("another workspace's ids → 404, nothing changed", () => {
  const idRoutes = () => routes().filter((r) => r.path.includes('/:') && r.permission !== 'public' && !NOT_ROW_PARAMS[r.path])
  const mirrored = (path: string) => path.replace('/api/app/', '/api/office/')
  const resourceOf = (path: string) => resources[path] ?? resources[mirrored(path)]

  test('every route with an id has a resource factory in this suite', () => {
    const missing = [...new Set(idRoutes().map((r) => r.path))].filter((path) => !resourceOf(path))
    expect(missing).toEqual([])
  })

  test('every route left out as NOT_ROW_PARAMS is served, has a path parameter and no factory (it is either one or the other)', () => {
    const served = routes().map((r) => r.path)
    for (const path of Object.keys(NOT_ROW_PARAMS)) {
      expect({ path, served: served.includes(path), param: path.includes('/:'), factory: resourceOf(path) !== undefined }).toEqual({
        path,
        served: true,
        param: true,
        factory: false,
      })
    }
  })

  test("an export requested from workspace B holds none of workspace A's submissions, and its job is not A's to see", async () => {
    const ofA = await submittedOfA()
    const own = data(await t.app.get('/office/v1/export/submissions/csv', { token: a.owner.token }), 202, "A's export")
    const job = data(await t.app.get('/office/v1/export/submissions/csv', { token: b.owner.token }), 202, "B's export")
    await t.app.deps.exports.idle()
    // The control: A's own export has A's submission, so an empty export of B is the workspace boundary.
    const mine = await t.app.get(`/office/v1/export/jobs/${own.id}/download`, { token: a.owner.token })
    expect(mine.status).toBe(200)
    expect(mine.text.split('\n').some((line) => line.startsWith(`${ofA.submission_id},${ofA.id},`))).toBe(true)
    const csv = await t.app.get(`/office/v1/export/jobs/${job.id}/download`, { token: b.owner.token })
    expect(`${csv.status} ${csv.headers.get('content-type')}`).toStartWith('200 text/csv')
    expect(csv.text.trim().split('\n')).toHaveLength(1)
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: a.owner.token }), 404, 'EXPORT_JOB_NOT_FOUND')
  })

  test("GET, PUT, POST and DELETE with workspace A ids from workspace B answer 404 and write nothing (mobile routes: B's field user)", async () => {
    const failures: string[] = []
    const totalChanges = async () => Number((await t.app.db.pragma('SELECT total_changes() AS n'))[0].n)
    for (const route of idRoutes()) {
      const resource = resourceOf(route.path)
      if (!resource) continue
      const ids = await resource.create()
      const rowId = typeof ids === 'object' ? ids[resource.key ?? 'id'] : ids
      const row = `SELECT * FROM ${resource.table} WHERE id = ${typeof rowId === 'string' ? `'${rowId.replaceAll("'", "''")}'` : rowId}`
      const [before] = await t.app.db.pragma(row)
      if (!before) throw new Error(`${route.method} ${route.path}: no ${resource.table} row ${rowId} to test with`)
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : typeof resource.body === 'function' ? resource.body() : resource.body
      const token = route.path.startsWith('/api/app/') ? bField.token : b.owner.token
      const changes = await totalChanges()
      const csv = resource.csv === undefined ? {} : { raw: resource.csv, headers: { 'content-type': 'text/csv' } }
      const headers: Record<string, string> = { ...resource.headers?.(), ...csv.headers }
      const reply = await t.app.request(route.method, concrete(route.path, ids), { token, body, ...csv, headers })
      if (reply.status !== 404 || !String(reply.body?.code).endsWith('_NOT_FOUND') || (resource.notFound && reply.body?.code !== resource.notFound)) {
        failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
      }
      const [after] = await t.app.db.pragma(row)
      if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${route.method} ${route.path} changed the row`)
      // A request with an X-Idempotency-Key writes its key's record first in the transaction that the
      // refusal rolls back (src/platform/data/transaction.ts): that one write is counted, none is kept.
      const key = headers?.['x-idempotency-key']
      const kept = key ? await t.app.db.pragma(`SELECT id FROM idempotency_keys WHERE key = '${key.replaceAll("'", "''")}'`) : []
      if ((await totalChanges()) - changes > (key ? 1 : 0) || kept.length > 0) failures.push(`${route.method} ${route.path} wrote to the database`)
      // The control: the same read from workspace A works, so the 404 is the workspace boundary, not a bad fixture.
      if (route.method === 'GET') {
        const own = await t.app.get(concrete(route.path, ids), { token: route.path.startsWith('/api/app/') ? kit.field.token : a.owner.token })
        if (own.status !== 200) failures.push(`${route.method} ${route.path} from workspace A itself → ${own.status} (fixture problem)`)
      }
    }
    expect(failures).toEqual([])
  })

  test('an id of workspace A used as a parent from workspace B is refused with 400', async () => {
    const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data
    const errors = expectError(
      await t.app.post('/office/v1/outlets/channels', { name: 'x', channel_group_id: group.id }, { token: b.owner.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors.channel_group_id).toBeArray()
  })
})

describe('no privilege beyond your own → 403, nothing changed', () => {
  /** Body field names of a route (its validation schema), to find every route that hands out a role or grants. */
  const bodyFields = (method: string, path: string): string[] => {
    const route = t.app.app.routes.find((r) => r.method === method && r.path === path)
    const body = (route?.hooks as { body?: { properties?: Record<string, unknown> } } | undefined)?.body
    return Object.keys(body?.properties ?? {})
  }
  const BEYOND = { key: 'audit_log.view', platform: 'web', access: 'view' } as const
  const totalChanges = async () => Number((await t.app.db.pragma('SELECT total_changes() AS n'))[0].n)

  test('every route whose body gives a role (role_id) or grants (permissions) refuses one the caller does not hold', async () => {
    // The caller may manage users and roles, but holds nothing else (no audit_log.view, not admin).
    const within = (await t.app.post('/office/v1/roles', { name: unique('Within'), permissions: [] }, { token: a.owner.token })).body.data.id as number
    const caller = await t.app.memberWithGrants(a, [
      { key: 'user.manage', platform: 'web', access: 'full' },
      { key: 'role.manage', platform: 'web', access: 'full' },
    ])
    const managed = (
      await t.app.post(
        '/office/v1/users',
        { name: 'Managed', email: `${unique('managed')}@example.com`, password: 'password123', role_id: within },
        { token: a.owner.token },
      )
    ).body.data.id as number
    // One escalation per route; a new route that hands out roles or grants must get one here.
    const attempts: Record<string, { path: string; body: Record<string, unknown> }> = {
      'POST /api/office/v1/roles': { path: '/office/v1/roles', body: { name: unique('Wider'), permissions: [BEYOND] } },
      'PUT /api/office/v1/roles/:id': { path: `/office/v1/roles/${within}`, body: { permissions: [BEYOND] } },
      'POST /api/office/v1/users': {
        path: '/office/v1/users',
        body: { name: 'Escalated', email: `${unique('escalated')}@example.com`, password: 'password123', role_id: a.roles.admin },
      },
      'PUT /api/office/v1/users/:id': { path: `/office/v1/users/${managed}`, body: { role_id: a.roles.admin } },
    }
    const handingOut = routes().filter((route) => bodyFields(route.method, route.path).some((field) => field === 'role_id' || field === 'permissions'))
    expect(handingOut.map((route) => `${route.method} ${route.path}`).sort()).toEqual(Object.keys(attempts).sort())

    const failures: string[] = []
    for (const route of handingOut) {
      const { path, body } = attempts[`${route.method} ${route.path}`]
      const changes = await totalChanges()
      const reply = await t.app.request(route.method, path, { token: caller.token, body })
      if (reply.status !== 403 || reply.body?.code !== 'FORBIDDEN') failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
      if ((await totalChanges()) !== changes) failures.push(`${route.method} ${route.path} wrote to the database`)
    }
    expect(failures).toEqual([])
  })
})
