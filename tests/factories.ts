/**
 * Domain objects for tests, made through the API as a client would (tests/harness.ts keeps the app,
 * database and HTTP plumbing; this file the outlets, forms, projects, teams and visits built on it).
 * Every factory takes the TestApp and the token of the caller, then the body fields that differ from
 * a valid default; it throws with the answer when the API refuses, so a broken fixture fails loudly
 * where it is made.
 */
import type { ManualClock } from '../src/lib/clock'
import { type Reply, type Session, type TestApp, unique, type Workspace } from './harness'

export type Row = Record<string, any>

/** A 1×1 PNG as a data URI (check-in photos, photo answers). */
export const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
/** Where the test outlets stand and the field users check in (Jakarta). */
export const HERE = { latitude: -6.2, longitude: 106.8 }

export const OFFICE = '/office/v1'
export const MASTER = `${OFFICE}/outlets`

export const manualClock = (t: TestApp) => t.clock as ManualClock

/** The `data` of a reply with the expected status (throws with the body otherwise); `any`, as tests read what the route answers. */
export function data(reply: Reply, status = 201, what = 'request'): any {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text.slice(0, 400)}`)
  return reply.body.data
}

/** The `data` of a reply expected with 200 (or `status`). */
export const ok = (reply: Reply, status = 200) => data(reply, status)

/** POSTs a body and answers the created record (201). */
export async function created(t: TestApp, path: string, body: unknown, token: string): Promise<any> {
  return data(await t.post(path, body, { token }), 201, `POST ${path}`)
}

// ── Master data ────────────────────────────────────────────────────────────────────────────────

export const newChannelGroup = (t: TestApp, token: string, body: Row = {}) => created(t, `${MASTER}/channel-groups`, { name: unique('Group'), ...body }, token)

/** A channel, in a new channel group unless `channel_group_id` is given. */
export async function newChannel(t: TestApp, token: string, body: Row = {}) {
  const groupId = body.channel_group_id ?? (await newChannelGroup(t, token)).id
  return created(t, `${MASTER}/channels`, { name: unique('Channel'), ...body, channel_group_id: groupId }, token)
}

/** An account, in a new channel (and group) unless `channel_id` is given. */
export async function newAccount(t: TestApp, token: string, body: Row = {}) {
  const channelId = body.channel_id ?? (await newChannel(t, token)).id
  return created(t, `${MASTER}/accounts`, { name: unique('Account'), ...body, channel_id: channelId }, token)
}

export const newSubArea = (t: TestApp, token: string, body: Row = {}) => created(t, `${MASTER}/sub-areas`, { name: unique('SubArea'), ...body }, token)

// ── Catalogue ──────────────────────────────────────────────────────────────────────────────────

export const newPrincipal = (t: TestApp, token: string, body: Row = {}) => created(t, `${OFFICE}/principals`, { name: unique('Principal'), ...body }, token)
export const newProduct = (t: TestApp, token: string, body: Row = {}) =>
  created(t, `${OFFICE}/products`, { name: unique('Product'), sku: unique('SKU'), ...body }, token)

// ── Outlets, forms, projects, teams, users ─────────────────────────────────────────────────────

export const newOutlet = (t: TestApp, token: string, body: Row = {}) => created(t, `${OFFICE}/outlets`, { name: unique('Outlet'), ...body }, token)

export const textField = (key = 'notes', extra: Row = {}) => ({ key, label: `Label ${key}`, type: 'text', ...extra })
/** A form; one optional text field unless `fields` is given. */
export const newForm = (t: TestApp, token: string, body: Row = {}) =>
  created(t, `${OFFICE}/forms`, { title: unique('Form'), fields: [textField()], ...body }, token)

export const newProject = (t: TestApp, token: string, body: Row = {}) => created(t, `${OFFICE}/projects`, { name: unique('Project'), ...body }, token)

export const newTeam = (t: TestApp, token: string, body: Row = {}) => created(t, `${OFFICE}/teams`, { name: unique('Team'), ...body }, token)

export const PASSWORD = 'password123'
export const newEmail = (prefix = 'person') => `${unique(prefix)}@example.com`

/** Creates a user through the API (a `user` unless `role_id` is given) without logging in; answers the reply, as tests check refusals too. */
export function newUser(t: TestApp, ws: Workspace, overrides: Row = {}, token = ws.owner.token) {
  return t.post(`${OFFICE}/users`, { name: unique('User'), email: newEmail('user'), password: PASSWORD, role_id: ws.roles.user, ...overrides }, { token })
}

/** Creates a user with a role (slug or id) and answers their id, email and name (not logged in). */
export async function addUser(t: TestApp, ws: Workspace, role: string | number = 'user', overrides: Row = {}) {
  const email = newEmail(String(role))
  const name = unique(`Name ${role}`)
  const reply = await newUser(t, ws, { name, email, role_id: ws.roles[role] ?? role, ...overrides })
  if (reply.status !== 201) throw new Error(`create user failed: ${reply.status} ${reply.text}`)
  return { id: reply.body.data.id as number, email: reply.body.data.email as string, name }
}

/** The live membership row of a user in a workspace (undefined when there is none). */
export const membership = async (t: TestApp, workspaceId: number, userId: number) =>
  (await t.db.pragma(`SELECT * FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND deleted_at IS NULL`))[0]

export type Grant = { key: string; platform: 'web' | 'mobile'; access: 'full' | 'view' }
export const grant = (key: string, access: 'full' | 'view' = 'full', platform: 'web' | 'mobile' = 'web'): Grant => ({ key, platform, access })

// ── Visits ─────────────────────────────────────────────────────────────────────────────────────

/** A planned (scheduled) visit; the body names at least `outlet_id` and `project_id`. */
export const newVisit = (t: TestApp, token: string, body: Row) =>
  created(t, `${OFFICE}/visits`, { visit_date: t.clock.now().toISOString().slice(0, 10), ...body }, token)

export const checkIn = (t: TestApp, visitId: number, who: Session, body: unknown = HERE) =>
  t.post(`/app/v1/visits/${visitId}/check-in`, body, { token: who.token })
export const checkOut = (t: TestApp, visitId: number, who: Session, body: unknown = HERE) =>
  t.post(`/app/v1/visits/${visitId}/check-out`, body, { token: who.token })

/** An outlet at HERE (or at `outlet`'s fields) and a project without forms: where a visit can be planned. */
export async function visitSite(t: TestApp, token: string, outlet: Row = {}) {
  return { outlet: await newOutlet(t, token, { ...HERE, ...outlet }), project: await newProject(t, token) }
}

/** A visit its assignee has checked in to (the visit as the check-in answers it). */
export async function startVisit(t: TestApp, token: string, who: Session, body: Row, checkInBody: unknown = HERE) {
  const planned = await newVisit(t, token, { user_ids: [who.user.id], ...body })
  return data(await checkIn(t, planned.id, who, checkInBody), 200, 'check-in')
}

/** A form with one required text field, a project that requires it, and an outlet. */
export interface Kit {
  form: Row
  project: Row
  outlet: Row
}

export async function kit(t: TestApp, token: string, options: { outletName?: string; outletCode?: string; formTitle?: string } = {}): Promise<Kit> {
  const form = await newForm(t, token, { title: options.formTitle ?? unique('Form'), fields: [{ key: 'note', label: 'Note', type: 'text', required: true }] })
  const project = await newProject(t, token, { forms: [{ form_id: form.id, is_required: true }] })
  const outlet = await newOutlet(t, token, { name: options.outletName ?? unique('Outlet'), ...(options.outletCode ? { code: options.outletCode } : {}) })
  return { form, project, outlet }
}

/** A visit of the kit's outlet and project, planned for `TODAY` of the kit's tests unless `visit_date` is given. */
export const planVisit = async (t: TestApp, token: string, k: Kit, extra: Row = {}) =>
  newVisit(t, token, { outlet_id: k.outlet.id, project_id: k.project.id, ...extra })

export const checkInVisit = async (t: TestApp, visitId: number, who: Session) => data(await checkIn(t, visitId, who), 200, 'check-in')
export const checkOutVisit = async (t: TestApp, visitId: number, who: Session) => data(await checkOut(t, visitId, who), 200, 'check-out')

/** Completes the visit's first submission with `answers`. */
export async function submitVisit(t: TestApp, visit: Row, who: Session, answers: Row = { note: 'all good' }) {
  const submission = visit.submissions[0]
  return data(
    await t.post(
      `/app/v1/visits/${visit.id}/submit-form-v2`,
      { form_id: submission.form_id, items: [{ submission_id: submission.id, status: 'completed', answers }] },
      { token: who.token },
    ),
    200,
    'submit',
  )
}

export async function review(t: TestApp, token: string, visit: Row, decision: 'approve' | 'reject', notes = 'reviewed') {
  return data(await t.post(`${OFFICE}/visits/${visit.id}/submissions/${visit.submissions[0].id}/${decision}`, { notes }, { token }), 200, decision)
}

/** Plans a visit for `who`, checks in, submits the form completed and (optionally) checks out. */
export async function walkVisit(t: TestApp, token: string, k: Kit, who: Session, extra: Row = {}, options: { checkOut?: boolean; answers?: Row } = {}) {
  const visit = await planVisit(t, token, k, { user_ids: [who.user.id], ...extra })
  await checkInVisit(t, visit.id, who)
  await submitVisit(t, visit, who, options.answers)
  if (options.checkOut !== false) await checkOutVisit(t, visit.id, who)
  return visit
}

// ── Locations ──────────────────────────────────────────────────────────────────────────────────

export async function pingBatch(t: TestApp, who: Session, pings: Row[]) {
  return data(
    await t.post(
      '/app/v1/locations/batch',
      { pings: pings.map((ping) => ({ lat: -6.2, lng: 106.8, is_mock: false, ...ping })) },
      { token: who.token, idempotencyKey: crypto.randomUUID() },
    ),
  )
}

/** The ids of rows, in order; `sorted` puts numbers in ascending order (for order-free comparisons). */
export const ids = (rows: Row[]) => rows.map((row) => row.id as number)
export const sorted = (values: number[]) => [...values].sort((a, b) => a - b)

// ── Audit log ──────────────────────────────────────────────────────────────────────────────────

export const parseJson = (value: unknown) => (value === null || value === undefined ? null : JSON.parse(String(value)))

/** The audit rows of one entity (and action), oldest first, with their JSON columns parsed. */
export async function auditRows(t: TestApp, entityType: string, entityId: number | string, action?: string) {
  const rows = await t.db.pragma(
    `SELECT * FROM audit_logs WHERE entity_type = '${entityType}' AND entity_id = '${entityId}'${action ? ` AND action = '${action}'` : ''} ORDER BY id`,
  )
  return rows.map((row) => ({
    ...row,
    old_values: parseJson(row.old_values),
    new_values: parseJson(row.new_values),
    metadata: parseJson(row.metadata),
  })) as Row[]
}

// ── Bound to a test file's app and workspace ───────────────────────────────────────────────────

/**
 * The factories bound to a file's app (`useTestApp()`'s holder) and its main workspace, with the
 * caller's token last and the workspace owner's by default: `newOutlet({ code: 'A-1' })`,
 * `newOutlet({}, field.token)`. Visits are planned for the clock's today.
 */
export function onWorkspace(holder: { app: TestApp }, workspace: () => Workspace) {
  const token = () => workspace().owner.token
  const today = () => holder.app.clock.now().toISOString().slice(0, 10)
  return {
    created: (reply: Reply, what: string) => data(reply, 201, `create ${what}`),
    newAccount: (as = token(), name = unique('Account')) => newAccount(holder.app, as, { name }),
    newAccountIn: (channelId: number, as = token(), name = unique('Account')) => newAccount(holder.app, as, { name, channel_id: channelId }),
    newSubArea: (as = token(), name = unique('SubArea')) => newSubArea(holder.app, as, { name }),
    newOutlet: (body: Row = {}, as = token()) => newOutlet(holder.app, as, body),
    newForm: (body: Row = {}, as = token()) => newForm(holder.app, as, body),
    newProject: (body: Row = {}, as = token()) => newProject(holder.app, as, body),
    newTeam: (body: Row = {}, as = token()) => newTeam(holder.app, as, body),
    newVisit: (outletId: number, projectId: number, extra: Row = {}, as = token()) =>
      newVisit(holder.app, as, { outlet_id: outletId, project_id: projectId, visit_date: today(), ...extra }),
    cancelVisit: async (visitId: number) => {
      data(await holder.app.put(`${OFFICE}/visits/${visitId}/cancel`, { reason: 'not needed' }, { token: token() }), 200, 'cancel')
    },
    checkIn: async (visitId: number, as: Session) => {
      data(await checkIn(holder.app, visitId, as), 200, 'check-in')
    },
    /** Creates a user through the API (no login); answers the reply. */
    newUser: (body: Row = {}, as = token(), roleId = workspace().roles.user) => newUser(holder.app, workspace(), { role_id: roleId, ...body }, as),
  }
}
