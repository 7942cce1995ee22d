/**
 * Visits and submissions through the API (docs/API.md §Visits, "Submission", "States and transitions",
 * "Visits (office)", "Errors"; docs/API.md §Envelopes, §Errors, §Visits, §Other areas): planning, both path listings, the state
 * machine, forms, approval, photos, lists, bulk and CSV, send-to-field, permissions and isolation.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { guardCell, unguardCell } from '../src/modules/visits'
import type { ManualClock } from '../src/lib/clock'
import { created, HERE, newForm, newOutlet, newProject, newTeam, PNG } from './factories'
import { expectError, unique, useTestApp, type Reply, type Session, type Workspace } from './harness'

const t = useTestApp()
const clock = () => t.app.clock as ManualClock
const now = () => clock().now().toISOString()

const PNG_BYTES = Buffer.from(PNG.split(',')[1], 'base64')
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const FILE_URL = /^\/api\/files\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const SHELF_FIELDS = [
  { key: 'facings', label: 'Facings', type: 'integer', required: true, min: 0 },
  { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'], required: true },
  { key: 'photo', label: 'Shelf photo', type: 'photo' },
  { key: 'where', label: 'Where', type: 'location' },
]
const NOTE_FIELDS = [{ key: 'note', label: 'Note', type: 'text' }]
const GOOD = { facings: 4, brand: 'A' }

type Data = any

let ws: Workspace
let other: Workspace
const admin = () => ws.owner.token

/** The main workspace's fixtures: a required shelf form and an optional note form on one project. */
let shelfForm: Data
let noteForm: Data
let project: Data
let outlet: Data
let team: Data
/** Records of the other workspace, for "another workspace's id" checks. */
let foreign: { outlet: Data; project: Data; team: Data; form: Data; user: Session }

const create = (path: string, body: unknown, token = admin()): Promise<Data> => created(t.app, path, body, token)
const makeForm = (fields: unknown[] = SHELF_FIELDS, token = admin()) => newForm(t.app, token, { fields })
const makeProject = (forms: unknown[] = [], extra: Record<string, unknown> = {}, token = admin()) =>
  newProject(t.app, token, { code: unique('P'), forms, ...extra })
const makeOutlet = (extra: Record<string, unknown> = {}, token = admin()) => newOutlet(t.app, token, { code: unique('O'), ...extra })
const makeTeam = (token = admin()) => newTeam(t.app, token)
const fieldUser = (workspace = ws) => t.app.member(workspace, 'user')

const visitBody = (overrides: Record<string, unknown> = {}) => ({ outlet_id: outlet.id, project_id: project.id, visit_date: '2026-12-01', ...overrides })
const planVisit = (overrides: Record<string, unknown> = {}, token = admin()) => create('/office/v1/visits', visitBody(overrides), token)

const checkIn = (id: number, user: Session, body: unknown = HERE, base = '/app/v1/visits') => t.app.post(`${base}/${id}/check-in`, body, { token: user.token })
const checkOut = (id: number, user: Session, body: unknown = HERE, base = '/app/v1/visits') =>
  t.app.post(`${base}/${id}/check-out`, body, { token: user.token })
const submitV2 = (id: number, user: Session, formId: number, items: unknown[]) =>
  t.app.post(`/app/v1/visits/${id}/submit-form-v2`, { form_id: formId, items }, { token: user.token })
const cancel = (id: number, reason: unknown = 'outlet closed', token = admin()) => t.app.put(`/office/v1/visits/${id}/cancel`, { reason }, { token })
const forceClose = (id: number, reason: unknown = 'stuck', token = admin()) => t.app.put(`/office/v1/visits/${id}/force-close`, { reason }, { token })
const approve = (visitId: number, id: number, notes?: string, token = admin()) =>
  t.app.post(`/office/v1/visits/${visitId}/submissions/${id}/approve`, notes === undefined ? {} : { notes }, { token })
const reject = (visitId: number, id: number, notes: unknown = 'blurry photo', token = admin()) =>
  t.app.post(`/office/v1/visits/${visitId}/submissions/${id}/reject`, { notes }, { token })

const detail = async (id: number): Promise<Data> => (await t.app.get(`/office/v1/visits/${id}`, { token: admin() })).body.data
const shelfOf = (visit: Data) => visit.submissions.find((s: Data) => s.form_id === shelfForm.id)

/** A visit the user has checked in to. */
async function startedVisit(user?: Session, overrides: Record<string, unknown> = {}) {
  const who = user ?? (await fieldUser())
  const planned = await planVisit({ user_ids: [who.user.id], ...overrides })
  const reply = await checkIn(planned.id, who)
  if (reply.status !== 200) throw new Error(`check-in: ${reply.status} ${reply.text}`)
  return { visit: reply.body.data as Data, user: who }
}

/** Completes the visit's shelf submission; returns it. */
async function completeShelf(visit: Data, user: Session, answers: Record<string, unknown> = GOOD) {
  const reply = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: shelfOf(visit).id, status: 'completed', answers }])
  if (reply.status !== 200) throw new Error(`submit: ${reply.status} ${reply.text}`)
  return reply.body.data.submissions[0] as Data
}

/** A completed visit whose shelf submission awaits approval. */
async function finishedVisit(user?: Session) {
  const started = await startedVisit(user)
  const submission = await completeShelf(started.visit, started.user)
  const reply = await checkOut(started.visit.id, started.user)
  if (reply.status !== 200) throw new Error(`check-out: ${reply.status} ${reply.text}`)
  return { visit: reply.body.data as Data, user: started.user, submission }
}

const one = async (sql: string) => (await t.app.db.pragma(sql))[0] as Data
const visitRow = (id: number) => one(`SELECT * FROM visits WHERE id = ${id}`)
const submissionRow = (id: number) => one(`SELECT * FROM submissions WHERE id = ${id}`)
const parseJson = (row: Data) => ({ ...row, old_values: JSON.parse(row.old_values ?? 'null'), new_values: JSON.parse(row.new_values ?? 'null') })
/** The audit entries written by one request (matched by its X-Request-Id). */
async function auditOf(reply: Reply) {
  const id = reply.headers.get('x-request-id')
  expect(id).toBeString()
  const rows = await t.app.db.pragma(`SELECT * FROM audit_logs WHERE json_extract(metadata, '$.request_id') = '${id}' ORDER BY id`)
  return rows.map(parseJson)
}
const assigneeIds = async (visitId: number) =>
  (await t.app.db.pragma(`SELECT user_id FROM visit_assignees WHERE visit_id = ${visitId} ORDER BY user_id`)).map((row: Data) => row.user_id)

/** Photo files under UPLOAD_DIR (the harness puts it in the app's temporary directory). */
function uploadsOnDisk() {
  const dir = join(t.app.dir, 'uploads')
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((name) => /\.(png|jpg|webp)$/.test(String(name))).length : 0
}

const TABLES = ['visits', 'submissions', 'visit_assignees', 'visit_logs', 'audit_logs', 'notifications', 'visit_dispatches', 'files']
/** Row counts of every table a visit request may write, for "nothing written" checks. */
async function snapshot() {
  const counts: Record<string, number> = {}
  for (const table of TABLES) counts[table] = await t.app.count(table)
  return counts
}

/** The ids of a list answer, in order. */
const ids = (reply: Reply) => reply.body.data.map((item: Data) => item.id)

/** Replaces ids and timestamps so answers of twin requests on different records can be compared. */
function shape(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => shape(item, key))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v, k)]))
  if (typeof value === 'number' && (key === 'id' || key === 'ids' || key.endsWith('_id') || key === 'created_by')) return '<id>'
  if (typeof value === 'string' && ISO.test(value)) return '<time>'
  if (typeof value === 'string') return value.replace(/#\d+/g, '#<id>')
  return value
}
function expectTwins(a: Reply, b: Reply, status: number) {
  expect(a.status).toBe(status)
  expect(b.status).toBe(status)
  expect(shape(a.body)).toEqual(shape(b.body))
}

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  shelfForm = await makeForm(SHELF_FIELDS)
  noteForm = await makeForm(NOTE_FIELDS)
  project = await makeProject([
    { form_id: shelfForm.id, is_required: true, order: 0 },
    { form_id: noteForm.id, is_required: false, order: 1 },
  ])
  outlet = await makeOutlet({ name: 'Toko Maju', address: 'Jl. Merdeka 1', latitude: -6.2, longitude: 106.8 })
  team = await makeTeam()
  const otherToken = other.owner.token
  const otherForm = await makeForm(NOTE_FIELDS, otherToken)
  foreign = {
    form: otherForm,
    outlet: await makeOutlet({}, otherToken),
    project: await makeProject([{ form_id: otherForm.id, is_required: false }], {}, otherToken),
    team: await makeTeam(otherToken),
    user: await fieldUser(other),
  }
})

describe('create a visit', () => {
  test('answers 201 VISIT_CREATED with outlet, project, status scheduled, visit_date and assignees', async () => {
    const user = await fieldUser()
    const reply = await t.app.post('/office/v1/visits', visitBody({ user_ids: [user.user.id], team_id: team.id, notes: 'bring samples' }), { token: admin() })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ success: true, code: 'VISIT_CREATED' })
    const data = reply.body.data
    expect(data).toMatchObject({
      outlet: { id: outlet.id, name: 'Toko Maju', address: 'Jl. Merdeka 1' },
      project: { id: project.id, name: project.name },
      team: { id: team.id, name: team.name },
      status: 'scheduled',
      visit_date: '2026-12-01',
      notes: 'bring samples',
      checked_in_at: null,
      checked_out_at: null,
    })
    expect(data.id).toBeInteger()
    expect(data.assignees).toEqual([{ user_id: user.user.id, name: user.user.name, email: user.user.email }])
    expect(await visitRow(data.id)).toMatchObject({ workspace_id: ws.id, status: 'scheduled', outlet_id: outlet.id, project_id: project.id, team_id: team.id })
    expect(await assigneeIds(data.id)).toEqual([user.user.id])
  })

  test('without `submissions` the project forms are attached as pending submissions with approval_status null', async () => {
    const visit = await planVisit()
    expect(
      visit.submissions.map((s: Data) => ({
        form_id: s.form_id,
        title: s.title,
        is_required: s.is_required,
        status: s.status,
        approval_status: s.approval_status,
        answers: s.answers,
        submitted_at: s.submitted_at,
      })),
    ).toEqual([
      { form_id: shelfForm.id, title: shelfForm.title, is_required: true, status: 'pending', approval_status: null, answers: {}, submitted_at: null },
      { form_id: noteForm.id, title: noteForm.title, is_required: false, status: 'pending', approval_status: null, answers: {}, submitted_at: null },
    ])
    expect(await t.app.count('submissions', `visit_id = ${visit.id} AND status = 'pending' AND approval_status IS NULL`)).toBe(2)
  })

  test('explicit `submissions` replace the project forms, with their is_required and order', async () => {
    const visit = await planVisit({ submissions: [{ form_id: noteForm.id, is_required: true, order: 5 }] })
    expect(visit.submissions).toHaveLength(1)
    expect(visit.submissions[0]).toMatchObject({ form_id: noteForm.id, is_required: true, order: 5, status: 'pending', approval_status: null })
    const empty = await planVisit({ submissions: [] })
    expect(empty.submissions).toEqual([])
    expect(await t.app.count('submissions', `visit_id = ${empty.id}`)).toBe(0)
  })

  test('an outlet, project, team, user or form of another workspace, or an unknown one, is a 400 naming the field and nothing is written', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ outlet_id: foreign.outlet.id }, 'outlet_id'],
      [{ outlet_id: 999_999 }, 'outlet_id'],
      [{ project_id: foreign.project.id }, 'project_id'],
      [{ project_id: 999_999 }, 'project_id'],
      [{ team_id: foreign.team.id }, 'team_id'],
      [{ team_id: 999_999 }, 'team_id'],
      [{ user_ids: [foreign.user.user.id] }, 'user_ids'],
      [{ user_ids: [999_999] }, 'user_ids'],
      [{ submissions: [{ form_id: foreign.form.id, is_required: true }] }, 'submissions.0.form_id'],
      [{ submissions: [{ form_id: 999_999, is_required: true }] }, 'submissions.0.form_id'],
    ]
    for (const [override, field] of cases) {
      const before = await snapshot()
      const errors = expectError(await t.app.post('/office/v1/visits', visitBody(override), { token: admin() }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual([field])
      expect(await snapshot()).toEqual(before)
    }
  })

  test('an inactive outlet and a project that is not active are refused with 400', async () => {
    const inactive = await makeOutlet({ is_active: false })
    const draftProject = await makeProject([], { status: 'draft' })
    const before = await snapshot()
    expect(
      expectError(await t.app.post('/office/v1/visits', visitBody({ outlet_id: inactive.id }), { token: admin() }), 400, 'VALIDATION_ERROR').outlet_id,
    ).toBeArray()
    expect(
      expectError(await t.app.post('/office/v1/visits', visitBody({ project_id: draftProject.id }), { token: admin() }), 400, 'VALIDATION_ERROR').project_id,
    ).toBeArray()
    expect(await snapshot()).toEqual(before)
  })

  test('unknown body fields (status, workspace_id, checked_in_at) are ignored', async () => {
    const reply = await t.app.post('/office/v1/visits', visitBody({ status: 'completed', workspace_id: other.id, checked_in_at: '2000-01-01T00:00:00.000Z' }), {
      token: admin(),
    })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ status: 'scheduled', checked_in_at: null })
    expect(await visitRow(reply.body.data.id)).toMatchObject({ workspace_id: ws.id, status: 'scheduled', checked_in_at: null })
  })

  test('outlet_id, project_id and visit_date are required and visit_date must be a real date', async () => {
    const before = await snapshot()
    for (const missing of ['outlet_id', 'project_id', 'visit_date']) {
      const body: Record<string, unknown> = visitBody()
      delete body[missing]
      expect(expectError(await t.app.post('/office/v1/visits', body, { token: admin() }), 400, 'VALIDATION_ERROR')[missing]).toBeArray()
    }
    expect(
      expectError(await t.app.post('/office/v1/visits', visitBody({ visit_date: '2026-02-30' }), { token: admin() }), 400, 'VALIDATION_ERROR').visit_date,
    ).toBeArray()
    expect(await snapshot()).toEqual(before)
  })

  test('audit: one `created` entry and one `assigned` entry per assignee, in the same request', async () => {
    const [a, b] = [await fieldUser(), await fieldUser()]
    const reply = await t.app.post('/office/v1/visits', visitBody({ user_ids: [a.user.id, b.user.id] }), { token: admin() })
    expect(reply.status).toBe(201)
    const entries = await auditOf(reply)
    expect(entries.map((e) => [e.entity_type, e.entity_id, e.action])).toEqual([
      ['visit', String(reply.body.data.id), 'created'],
      ['visit', String(reply.body.data.id), 'assigned'],
      ['visit', String(reply.body.data.id), 'assigned'],
    ])
    expect(entries[0].old_values).toBeNull()
    expect(entries[0].new_values).toMatchObject({ id: reply.body.data.id, status: 'scheduled', outlet_id: outlet.id })
    expect(entries.slice(1).map((e) => e.new_values)).toEqual([
      { user_id: a.user.id, user_name: a.user.name },
      { user_id: b.user.id, user_name: b.user.name },
    ])
  })

  test('each assignee gets one visit.assigned notification', async () => {
    const [a, b] = [await fieldUser(), await fieldUser()]
    const visit = await planVisit({ user_ids: [a.user.id, b.user.id] })
    for (const user of [a, b]) {
      const rows = await t.app.db.pragma(`SELECT * FROM notifications WHERE user_id = ${user.user.id}`)
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ workspace_id: ws.id, type: 'visit.assigned', read_at: null })
      expect(JSON.parse(String(rows[0].data))).toEqual({ visit_id: visit.id })
    }
  })

  test('a self-visit (mobile) is created scheduled, assigned to the caller, with the project forms', async () => {
    const user = await fieldUser()
    const reply = await t.app.post('/app/v1/visits/self', { outlet_id: outlet.id, project_id: project.id, notes: 'walk-in' }, { token: user.token })
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('VISIT_CREATED')
    expect(reply.body.data).toMatchObject({ status: 'scheduled', notes: 'walk-in', visit_date: now().slice(0, 10) })
    expect(reply.body.data.assignees.map((a: Data) => a.user_id)).toEqual([user.user.id])
    expect(reply.body.data.submissions.map((s: Data) => s.form_id)).toEqual([shelfForm.id, noteForm.id])
  })
})

describe('listing A paths answer exactly like their listing B twins', () => {
  let user: Session
  let visit: Data
  let submission: Data

  beforeAll(async () => {
    const started = await startedVisit()
    user = started.user
    visit = started.visit
    submission = await completeShelf(visit, user)
  })

  test('office reads: list, detail, submissions of a visit, submission detail and export', async () => {
    const pairs = [
      ['/office/v1/outlet-visits?status=in_progress&limit=100', '/office/v1/visits?status=in_progress&limit=100'],
      [`/office/v1/outlet-visits/${visit.id}`, `/office/v1/visits/${visit.id}`],
      [`/office/v1/outlet-visits/submissions?visit_id=${visit.id}`, `/office/v1/visits/${visit.id}/submissions`],
      [`/office/v1/outlet-visits/submissions/${submission.id}`, `/office/v1/visits/${visit.id}/submissions/${submission.id}`],
      [`/office/v1/outlet-visits/export?status=in_progress`, `/office/v1/visits/export?status=in_progress`],
    ]
    for (const [a, b] of pairs) {
      const [left, right] = [await t.app.get(a, { token: admin() }), await t.app.get(b, { token: admin() })]
      expect([a, left.status]).toEqual([a, 200])
      expect(right.status).toBe(200)
      expect(left.text).toBe(right.text)
    }
  })

  test('mobile reads: my visits, my visit detail, active visit, my submissions and submission detail', async () => {
    const pairs = [
      ['/app/v1/outlet-visits', '/app/v1/visits/me'],
      [`/app/v1/outlet-visits/${visit.id}`, `/app/v1/visits/me/${visit.id}`],
      ['/app/v1/outlet-visits/active-visit', '/app/v1/visits/active'],
      [`/app/v1/outlet-visits/submissions?visit_id=${visit.id}`, `/app/v1/visits/me/${visit.id}/submissions`],
      [`/app/v1/outlet-visits/submissions/${submission.id}`, `/app/v1/visits/me/${visit.id}/submissions/${submission.id}`],
    ]
    for (const [a, b] of pairs) {
      const [left, right] = [await t.app.get(a, { token: user.token }), await t.app.get(b, { token: user.token })]
      expect([a, left.status]).toEqual([a, 200])
      expect(right.status).toBe(200)
      expect(left.text).toBe(right.text)
    }
    const active = await t.app.get('/app/v1/visits/active', { token: user.token })
    expect(active.body.data.id).toBe(visit.id)
  })

  test('create, self-visit, bulk and import answer alike on both paths', async () => {
    const assignee = await fieldUser()
    expectTwins(
      await t.app.post('/office/v1/outlet-visits', visitBody({ user_ids: [assignee.user.id] }), { token: admin() }),
      await t.app.post('/office/v1/visits', visitBody({ user_ids: [assignee.user.id] }), { token: admin() }),
      201,
    )
    const selfBody = { outlet_id: outlet.id, project_id: project.id, visit_date: '2026-12-02' }
    expectTwins(
      await t.app.post('/app/v1/outlet-visits', selfBody, { token: assignee.token }),
      await t.app.post('/app/v1/visits/self', selfBody, { token: assignee.token }),
      201,
    )
    expectTwins(
      await t.app.post('/office/v1/outlet-visits/bulk', { visits: [visitBody(), visitBody()] }, { token: admin() }),
      await t.app.post('/office/v1/visits/bulk', { visits: [visitBody(), visitBody()] }, { token: admin() }),
      201,
    )
    const csv = `outlet_code,project_code,visit_date\n${outlet.code},${project.code},2026-12-03\n`
    const importAt = (path: string) => t.app.request('POST', path, { raw: csv, headers: { 'content-type': 'text/csv' }, token: admin() })
    expectTwins(await importAt('/office/v1/outlet-visits/import'), await importAt('/office/v1/visits/import'), 201)
    // Refusals are alike too.
    expectTwins(
      await t.app.post('/office/v1/outlet-visits', visitBody({ outlet_id: 999_999 }), { token: admin() }),
      await t.app.post('/office/v1/visits', visitBody({ outlet_id: 999_999 }), { token: admin() }),
      400,
    )
  })

  test('assign, send-to-field, cancel and force-close answer alike on both paths', async () => {
    const assignee = await fieldUser()
    const [a, b] = [await planVisit(), await planVisit()]
    expectTwins(
      await t.app.post(`/office/v1/outlet-visits/${a.id}/assign-users`, { user_ids: [assignee.user.id] }, { token: admin() }),
      await t.app.post(`/office/v1/visits/${b.id}/assign`, { user_ids: [assignee.user.id] }, { token: admin() }),
      200,
    )
    expect(await assigneeIds(a.id)).toEqual([assignee.user.id])
    expect(await assigneeIds(b.id)).toEqual([assignee.user.id])
    expectTwins(
      await t.app.post('/office/v1/outlet-visits/send-to-field', { visit_ids: [a.id] }, { token: admin() }),
      await t.app.post('/office/v1/visits/send-to-field', { visit_ids: [b.id] }, { token: admin() }),
      200,
    )
    expectTwins(
      await t.app.put(`/office/v1/outlet-visits/${a.id}/cancel`, {}, { token: admin() }),
      await t.app.put(`/office/v1/visits/${b.id}/cancel`, {}, { token: admin() }),
      400,
    )
    expectTwins(
      await t.app.put(`/office/v1/outlet-visits/${a.id}/cancel`, { reason: 'closed' }, { token: admin() }),
      await t.app.put(`/office/v1/visits/${b.id}/cancel`, { reason: 'closed' }, { token: admin() }),
      200,
    )
    expect([(await visitRow(a.id)).status, (await visitRow(b.id)).status]).toEqual(['cancelled', 'cancelled'])

    const worker = await fieldUser()
    const c = (await startedVisit(worker)).visit
    const closeA = await t.app.put(`/office/v1/outlet-visits/${c.id}/force-close`, { reason: 'stuck' }, { token: admin() })
    const d = (await startedVisit(worker)).visit
    const closeB = await t.app.put(`/office/v1/visits/${d.id}/force-close`, { reason: 'stuck' }, { token: admin() })
    expectTwins(closeA, closeB, 200)
    expect([(await visitRow(c.id)).status, (await visitRow(d.id)).status]).toEqual(['force_closed', 'force_closed'])
  })

  test('check-in, submit-form and check-out answer alike on both paths', async () => {
    const worker = await fieldUser()
    const [a, b] = [await planVisit({ user_ids: [worker.user.id] }), await planVisit({ user_ids: [worker.user.id] })]
    const day = async (id: number, base: string) => {
      const missing = await t.app.post(`${base}/${id}/check-in`, {}, { token: worker.token })
      const checkedIn = await checkIn(id, worker, HERE, base)
      const early = await checkOut(id, worker, HERE, base)
      const submitted = await t.app.post(`${base}/${id}/submit-form`, { form_id: shelfForm.id, answers: GOOD }, { token: worker.token })
      const checkedOut = await checkOut(id, worker, HERE, base)
      return [missing, checkedIn, early, submitted, checkedOut]
    }
    const left = await day(a.id, '/app/v1/outlet-visits')
    const right = await day(b.id, '/app/v1/visits')
    for (const [index, status] of [400, 200, 422, 200, 200].entries()) expectTwins(left[index], right[index], status)
    expect([(await visitRow(a.id)).status, (await visitRow(b.id)).status]).toEqual(['completed', 'completed'])
  })

  test('approval {status} in listing A answers like approve and reject in listing B', async () => {
    const started = await startedVisit()
    const reply = await submitV2(
      started.visit.id,
      started.user,
      noteForm.id,
      [1, 2, 3, 4].map((n) => ({ submission_id: null, status: 'completed', answers: { note: `n${n}` } })),
    )
    expect(reply.status).toBe(200)
    const [s1, s2, s3, s4] = reply.body.data.submissions.map((s: Data) => s.id)
    const id = started.visit.id
    // The four submissions differ only by their note text and position; compare them without those.
    const withoutAnswers = (r: Reply) => ({ ...r, body: { ...r.body, data: { ...r.body.data, answers: null, order: null } } })
    expectTwins(
      withoutAnswers(await t.app.post(`/office/v1/outlet-visits/submissions/${s1}/approval`, { status: 'approved', notes: 'fine' }, { token: admin() })),
      withoutAnswers(await approve(id, s2, 'fine')),
      200,
    )
    expectTwins(
      withoutAnswers(await t.app.post(`/office/v1/outlet-visits/submissions/${s3}/approval`, { status: 'rejected', notes: 'redo' }, { token: admin() })),
      withoutAnswers(await reject(id, s4, 'redo')),
      200,
    )
    const statuses = await t.app.db.pragma(`SELECT approval_status FROM submissions WHERE id IN (${s1},${s2},${s3},${s4}) ORDER BY id`)
    expect(statuses.map((r: Data) => r.approval_status)).toEqual(['approved', 'approved', 'rejected', 'rejected'])
  })
})

describe('check-in', () => {
  test('moves a scheduled visit to in_progress: 200 VISIT_CHECKED_IN with checked_in_at and check_in_location', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    clock().advance(60_000)
    const reply = await checkIn(visit.id, user, { ...HERE, notes: 'arrived' })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'VISIT_CHECKED_IN' })
    expect(reply.body.data).toMatchObject({ id: visit.id, status: 'in_progress', checked_in_at: now(), check_in_location: HERE })
    expect(await visitRow(visit.id)).toMatchObject({ status: 'in_progress', checked_in_at: now(), check_in_latitude: -6.2, check_in_longitude: 106.8 })
  })

  test('without latitude or longitude: 400 LOCATION_REQUIRED and nothing changes', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const before = await snapshot()
    expect(expectError(await checkIn(visit.id, user, {}), 400, 'LOCATION_REQUIRED')).toEqual({ latitude: ['is required'], longitude: ['is required'] })
    expect(expectError(await checkIn(visit.id, user, { latitude: 1 }), 400, 'LOCATION_REQUIRED')).toEqual({ longitude: ['is required'] })
    expect(expectError(await checkIn(visit.id, user, { latitude: null, longitude: 2 }), 400, 'LOCATION_REQUIRED')).toEqual({ latitude: ['is required'] })
    expect(await snapshot()).toEqual(before)
    expect(await visitRow(visit.id)).toMatchObject({ status: 'scheduled', checked_in_at: null })
  })

  test('coordinates out of range: 400 VALIDATION_ERROR and nothing changes', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const before = await snapshot()
    expect(expectError(await checkIn(visit.id, user, { latitude: 91, longitude: 0 }), 400, 'VALIDATION_ERROR').latitude).toBeArray()
    expect(expectError(await checkIn(visit.id, user, { latitude: 0, longitude: -180.5 }), 400, 'VALIDATION_ERROR').longitude).toBeArray()
    expect(expectError(await checkIn(visit.id, user, { latitude: '1', longitude: 2 }), 400, 'VALIDATION_ERROR').latitude).toBeArray()
    expect(await snapshot()).toEqual(before)
    expect((await visitRow(visit.id)).status).toBe('scheduled')
  })

  test('a second check-in: 409 VISIT_ALREADY_CHECKED_IN and the first check-in stands', async () => {
    const { visit, user } = await startedVisit()
    const first = await visitRow(visit.id)
    clock().advance(60_000)
    const before = await snapshot()
    expectError(await checkIn(visit.id, user, { latitude: 1, longitude: 1 }), 409, 'VISIT_ALREADY_CHECKED_IN')
    expect(await snapshot()).toEqual(before)
    expect(await visitRow(visit.id)).toEqual(first)
  })

  test('a user with another visit in progress: 409 ACTIVE_VISIT_EXISTS and the second visit stays scheduled', async () => {
    const { user } = await startedVisit()
    const second = await planVisit({ user_ids: [user.user.id] })
    const before = await snapshot()
    expectError(await checkIn(second.id, user), 409, 'ACTIVE_VISIT_EXISTS')
    expect(await snapshot()).toEqual(before)
    expect((await visitRow(second.id)).status).toBe('scheduled')
  })

  test('check-in of a cancelled, completed or force-closed visit: 409 INVALID_VISIT_STATUS', async () => {
    const user = await fieldUser()
    const cancelled = await planVisit({ user_ids: [user.user.id] })
    expect((await cancel(cancelled.id)).status).toBe(200)
    const completed = (await finishedVisit(user)).visit
    const forced = (await startedVisit(user)).visit
    expect((await forceClose(forced.id)).status).toBe(200)
    for (const [visit, status] of [
      [cancelled, 'cancelled'],
      [completed, 'completed'],
      [forced, 'force_closed'],
    ] as const) {
      const before = await snapshot()
      expectError(await checkIn(visit.id, user), 409, 'INVALID_VISIT_STATUS')
      expect(await snapshot()).toEqual(before)
      expect((await visitRow(visit.id)).status).toBe(status)
    }
  })

  test('a visit not assigned to the caller: 404 VISIT_NOT_FOUND', async () => {
    const assignee = await fieldUser()
    const stranger = await fieldUser()
    const visit = await planVisit({ user_ids: [assignee.user.id] })
    expectError(await checkIn(visit.id, stranger), 404, 'VISIT_NOT_FOUND')
    expectError(await checkIn(999_999, stranger), 404, 'VISIT_NOT_FOUND')
    expect((await visitRow(visit.id)).status).toBe('scheduled')
  })
})

describe('check-out', () => {
  test('before check-in: 409 VISIT_NOT_STARTED', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const before = await snapshot()
    expectError(await checkOut(visit.id, user), 409, 'VISIT_NOT_STARTED')
    expect(await snapshot()).toEqual(before)
    expect((await visitRow(visit.id)).status).toBe('scheduled')
  })

  test('without latitude or longitude: 400 LOCATION_REQUIRED', async () => {
    const { visit, user } = await startedVisit()
    expectError(await checkOut(visit.id, user, {}), 400, 'LOCATION_REQUIRED')
    expect((await visitRow(visit.id)).status).toBe('in_progress')
  })

  test('required submissions not completed (pending or draft): 422 SUBMISSION_REQUIRED with errors.form_ids', async () => {
    const { visit, user } = await startedVisit()
    const before = await snapshot()
    expect(expectError(await checkOut(visit.id, user), 422, 'SUBMISSION_REQUIRED')).toEqual({ form_ids: [shelfForm.id] })
    expect(await snapshot()).toEqual(before)
    const draft = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: shelfOf(visit).id, status: 'draft', answers: { facings: 1 } }])
    expect(draft.status).toBe(200)
    expect(expectError(await checkOut(visit.id, user), 422, 'SUBMISSION_REQUIRED')).toEqual({ form_ids: [shelfForm.id] })
    expect((await visitRow(visit.id)).status).toBe('in_progress')
  })

  test('with the required forms completed: 200 VISIT_CHECKED_OUT, status completed, checked_out_at recorded (optional forms may stay open)', async () => {
    const { visit, user } = await startedVisit()
    await completeShelf(visit, user)
    clock().advance(60_000)
    const reply = await checkOut(visit.id, user, { latitude: -6.3, longitude: 106.9, notes: 'done' })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('VISIT_CHECKED_OUT')
    expect(reply.body.data).toMatchObject({ status: 'completed', checked_out_at: now(), check_out_location: { latitude: -6.3, longitude: 106.9 } })
    expect(await visitRow(visit.id)).toMatchObject({ status: 'completed', checked_out_at: now() })
    expect(await t.app.count('submissions', `visit_id = ${visit.id} AND form_id = ${noteForm.id} AND status = 'pending'`)).toBe(1)
  })

  test('check-out of a completed or cancelled visit: 409 INVALID_VISIT_STATUS', async () => {
    const { visit, user } = await finishedVisit()
    expectError(await checkOut(visit.id, user), 409, 'INVALID_VISIT_STATUS')
    const cancelled = await planVisit({ user_ids: [user.user.id] })
    await cancel(cancelled.id)
    expectError(await checkOut(cancelled.id, user), 409, 'INVALID_VISIT_STATUS')
  })
})

describe('cancel and force-close', () => {
  test('a reason is required (missing or blank: 400) and nothing changes', async () => {
    const visit = await planVisit()
    const before = await snapshot()
    for (const body of [{}, { reason: '' }, { reason: '   ' }]) {
      expect(expectError(await t.app.put(`/office/v1/visits/${visit.id}/cancel`, body, { token: admin() }), 400, 'VALIDATION_ERROR').reason).toBeArray()
      expect(expectError(await t.app.put(`/office/v1/visits/${visit.id}/force-close`, body, { token: admin() }), 400, 'VALIDATION_ERROR').reason).toBeArray()
    }
    expect(await snapshot()).toEqual(before)
    expect((await visitRow(visit.id)).status).toBe('scheduled')
  })

  test('cancel is allowed on scheduled and in_progress visits: 200 VISIT_CANCELLED with the reason kept', async () => {
    const scheduled = await planVisit()
    const reply = await cancel(scheduled.id, '  outlet closed  ')
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('VISIT_CANCELLED')
    expect(reply.body.data).toMatchObject({ status: 'cancelled', close_reason: 'outlet closed' })
    const { visit } = await startedVisit()
    expect((await cancel(visit.id)).body.code).toBe('VISIT_CANCELLED')
    expect(await visitRow(scheduled.id)).toMatchObject({ status: 'cancelled', close_reason: 'outlet closed' })
    expect((await visitRow(visit.id)).status).toBe('cancelled')
  })

  test('cancel of a completed, cancelled or force-closed visit: 409 INVALID_VISIT_STATUS', async () => {
    const completed = (await finishedVisit()).visit
    const cancelled = await planVisit()
    await cancel(cancelled.id)
    const forced = (await startedVisit()).visit
    await forceClose(forced.id)
    for (const [visit, status] of [
      [completed, 'completed'],
      [cancelled, 'cancelled'],
      [forced, 'force_closed'],
    ] as const) {
      const before = await snapshot()
      expectError(await cancel(visit.id), 409, 'INVALID_VISIT_STATUS')
      expect(await snapshot()).toEqual(before)
      expect((await visitRow(visit.id)).status).toBe(status)
    }
  })

  test('force-close is allowed on an in_progress visit only: 200 VISIT_FORCE_CLOSED', async () => {
    const { visit } = await startedVisit()
    const reply = await forceClose(visit.id, 'phone lost')
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('VISIT_FORCE_CLOSED')
    expect(reply.body.data).toMatchObject({ status: 'force_closed', close_reason: 'phone lost' })
    expect((await visitRow(visit.id)).status).toBe('force_closed')
  })

  test('force-close of a scheduled, completed, cancelled or force-closed visit: 409 INVALID_VISIT_STATUS', async () => {
    const scheduled = await planVisit()
    const completed = (await finishedVisit()).visit
    const cancelled = await planVisit()
    await cancel(cancelled.id)
    const forced = (await startedVisit()).visit
    await forceClose(forced.id)
    for (const [visit, status] of [
      [scheduled, 'scheduled'],
      [completed, 'completed'],
      [cancelled, 'cancelled'],
      [forced, 'force_closed'],
    ] as const) {
      const before = await snapshot()
      expectError(await forceClose(visit.id), 409, 'INVALID_VISIT_STATUS')
      expect(await snapshot()).toEqual(before)
      expect((await visitRow(visit.id)).status).toBe(status)
    }
  })
})

describe('every transition appends to logs and writes exactly one audit entry in the same request', () => {
  const lastLog = async (id: number) => (await detail(id)).logs.at(-1)

  test('check-in, check-out, cancel and force-close each log {action, timestamp, user} and one visit audit entry', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const me = { id: user.user.id, name: user.user.name }
    const owner = { id: ws.owner.user.id, name: ws.owner.user.name }

    const steps: [string, () => Promise<Reply>, string, { id: number; name: string }, string, string][] = [
      ['check_in', () => checkIn(visit.id, user, { ...HERE, notes: 'arrived' }), 'arrived', me, 'scheduled', 'in_progress'],
      [
        'check_out',
        async () => {
          await completeShelf(await detail(visit.id), user)
          return checkOut(visit.id, user, { ...HERE, notes: 'left' })
        },
        'left',
        me,
        'in_progress',
        'completed',
      ],
    ]
    const visit2 = await planVisit()
    const visit3 = (await startedVisit()).visit
    for (const [action, run, notes, who, from, to] of steps) {
      clock().advance(1000)
      const reply = await run()
      expect(reply.status).toBe(200)
      expect(await lastLog(visit.id)).toEqual({ action, timestamp: now(), notes, user: who })
      const entries = await auditOf(reply)
      expect(entries).toHaveLength(1)
      expect(entries[0]).toMatchObject({ entity_type: 'visit', entity_id: String(visit.id), action: 'updated', actor_id: who.id })
      expect(entries[0].old_values.status).toBe(from)
      expect(entries[0].new_values.status).toBe(to)
    }
    for (const [id, action, run, from, to] of [
      [visit2.id, 'cancel', () => cancel(visit2.id, 'rain'), 'scheduled', 'cancelled'],
      [visit3.id, 'force_close', () => forceClose(visit3.id, 'rain'), 'in_progress', 'force_closed'],
    ] as const) {
      clock().advance(1000)
      const reply = await run()
      expect(reply.status).toBe(200)
      expect(await lastLog(id)).toEqual({ action, timestamp: now(), notes: 'rain', user: owner })
      const entries = await auditOf(reply)
      expect(entries).toHaveLength(1)
      expect(entries[0]).toMatchObject({ entity_type: 'visit', entity_id: String(id), action: 'updated' })
      expect(entries[0].old_values.status).toBe(from)
      expect(entries[0].new_values.status).toBe(to)
    }
    expect((await detail(visit.id)).logs.map((l: Data) => l.action)).toEqual(['created', 'check_in', 'check_out'])
  })

  test('a refused transition writes neither a log row nor an audit entry', async () => {
    const visit = await planVisit()
    const logs = await t.app.count('visit_logs', `visit_id = ${visit.id}`)
    const reply = await forceClose(visit.id)
    expectError(reply, 409, 'INVALID_VISIT_STATUS')
    expect(await t.app.count('visit_logs', `visit_id = ${visit.id}`)).toBe(logs)
    expect(await auditOf(reply)).toEqual([])
  })
})

describe('concurrent check-ins', () => {
  test('give exactly one 200 and one 409 VISIT_ALREADY_CHECKED_IN, with one log row and one audit entry', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const replies = await Promise.all([checkIn(visit.id, user), checkIn(visit.id, user, { latitude: 1, longitude: 1 })])
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409])
    const refused = replies.find((r) => r.status === 409)!
    expectError(refused, 409, 'VISIT_ALREADY_CHECKED_IN')
    expect(await t.app.count('visit_logs', `visit_id = ${visit.id} AND action = 'check_in'`)).toBe(1)
    expect(await t.app.count('audit_logs', `entity_type = 'visit' AND entity_id = '${visit.id}' AND action = 'updated'`)).toBe(1)
    const winner = replies.find((r) => r.status === 200)!
    expect(await visitRow(visit.id)).toMatchObject({ status: 'in_progress', check_in_latitude: winner.body.data.check_in_location.latitude })
  })

  test('one user checking in to two visits at once: one 200 and one 409 ACTIVE_VISIT_EXISTS', async () => {
    const user = await fieldUser()
    const [a, b] = [await planVisit({ user_ids: [user.user.id] }), await planVisit({ user_ids: [user.user.id] })]
    const replies = await Promise.all([checkIn(a.id, user), checkIn(b.id, user)])
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409])
    expectError(replies.find((r) => r.status === 409)!, 409, 'ACTIVE_VISIT_EXISTS')
    expect(await t.app.count('visits', `id IN (${a.id}, ${b.id}) AND status = 'in_progress'`)).toBe(1)
  })
})

describe('assign', () => {
  test('sets the assignee list of a scheduled visit: 200 VISIT_ASSIGNED, audit assigned/unassigned per user, a notification per added user', async () => {
    const [a, b, c] = [await fieldUser(), await fieldUser(), await fieldUser()]
    const visit = await planVisit({ user_ids: [a.user.id, b.user.id] })
    const reply = await t.app.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [b.user.id, c.user.id] }, { token: admin() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('VISIT_ASSIGNED')
    expect(reply.body.data.assignees.map((x: Data) => x.user_id).sort()).toEqual([b.user.id, c.user.id].sort())
    expect(await assigneeIds(visit.id)).toEqual([b.user.id, c.user.id].sort((x, y) => x - y))
    const entries = await auditOf(reply)
    expect(entries.map((e) => [e.action, e.new_values])).toEqual([
      ['assigned', { user_id: c.user.id, user_name: c.user.name }],
      ['unassigned', { user_id: a.user.id, user_name: a.user.name }],
    ])
    expect(entries.every((e) => e.entity_type === 'visit' && e.entity_id === String(visit.id))).toBe(true)
    expect(await t.app.count('notifications', `user_id = ${c.user.id} AND type = 'visit.assigned'`)).toBe(1)
    expect(await t.app.count('notifications', `user_id = ${b.user.id} AND type = 'visit.assigned'`)).toBe(1)
    // The removed user no longer sees it.
    expectError(await t.app.get(`/app/v1/visits/me/${visit.id}`, { token: a.token }), 404, 'VISIT_NOT_FOUND')
  })

  test('an empty list removes every assignee', async () => {
    const a = await fieldUser()
    const visit = await planVisit({ user_ids: [a.user.id] })
    const reply = await t.app.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [] }, { token: admin() })
    expect(reply.status).toBe(200)
    expect(await assigneeIds(visit.id)).toEqual([])
    expect((await auditOf(reply)).map((e) => e.action)).toEqual(['unassigned'])
  })

  test('a visit that is not scheduled: 409 INVALID_VISIT_STATUS and the list is unchanged', async () => {
    const { visit, user } = await startedVisit()
    const newcomer = await fieldUser()
    const before = await snapshot()
    expectError(await t.app.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [newcomer.user.id] }, { token: admin() }), 409, 'INVALID_VISIT_STATUS')
    expect(await snapshot()).toEqual(before)
    expect(await assigneeIds(visit.id)).toEqual([user.user.id])
  })

  test('an unknown user or a user of another workspace: 400 errors.user_ids and the list is unchanged', async () => {
    const a = await fieldUser()
    const visit = await planVisit({ user_ids: [a.user.id] })
    for (const userIds of [[999_999], [foreign.user.user.id], [a.user.id, 999_999]]) {
      const before = await snapshot()
      expect(
        expectError(await t.app.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: userIds }, { token: admin() }), 400, 'VALIDATION_ERROR').user_ids,
      ).toBeArray()
      expect(await snapshot()).toEqual(before)
    }
    expect(await assigneeIds(visit.id)).toEqual([a.user.id])
  })
})

describe('submissions: attach and remove (office)', () => {
  test('add: 201 SUBMISSION_CREATED, a pending submission with approval_status null, audited', async () => {
    const visit = await planVisit({ submissions: [] })
    const reply = await t.app.post(`/office/v1/visits/${visit.id}/submissions`, { form_id: noteForm.id, is_required: true }, { token: admin() })
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('SUBMISSION_CREATED')
    expect(reply.body.data).toMatchObject({
      visit_id: visit.id,
      form_id: noteForm.id,
      title: noteForm.title,
      is_required: true,
      status: 'pending',
      approval_status: null,
    })
    expect(await submissionRow(reply.body.data.id)).toMatchObject({ visit_id: visit.id, workspace_id: ws.id, status: 'pending', approval_status: null })
    expect((await auditOf(reply)).map((e) => [e.entity_type, e.action])).toEqual([['submission', 'created']])
  })

  test('add with an unknown or foreign form: 400 errors.form_id; on a completed visit: 409 INVALID_VISIT_STATUS', async () => {
    const visit = await planVisit()
    for (const formId of [999_999, foreign.form.id]) {
      const before = await snapshot()
      expect(
        expectError(await t.app.post(`/office/v1/visits/${visit.id}/submissions`, { form_id: formId }, { token: admin() }), 400, 'VALIDATION_ERROR').form_id,
      ).toBeArray()
      expect(await snapshot()).toEqual(before)
    }
    const done = (await finishedVisit()).visit
    const before = await snapshot()
    expectError(await t.app.post(`/office/v1/visits/${done.id}/submissions`, { form_id: noteForm.id }, { token: admin() }), 409, 'INVALID_VISIT_STATUS')
    expect(await snapshot()).toEqual(before)
  })

  test('delete of a submission not yet submitted: 200 SUBMISSION_DELETED and it is gone from the visit', async () => {
    const visit = await planVisit()
    const note = visit.submissions.find((s: Data) => s.form_id === noteForm.id)
    const reply = await t.app.delete(`/office/v1/visits/${visit.id}/submissions/${note.id}`, { token: admin() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUBMISSION_DELETED')
    expect((await detail(visit.id)).submissions.map((s: Data) => s.id)).not.toContain(note.id)
    expect((await submissionRow(note.id)).deleted_at).toBe(now())
    expect((await auditOf(reply)).map((e) => [e.entity_type, e.action])).toEqual([['submission', 'deleted']])
    expectError(await t.app.get(`/office/v1/visits/${visit.id}/submissions/${note.id}`, { token: admin() }), 404, 'SUBMISSION_NOT_FOUND')
  })

  test('delete of a completed submission: 409 SUBMISSION_ALREADY_SUBMITTED and it stays', async () => {
    const { visit, user } = await startedVisit()
    const submission = await completeShelf(visit, user)
    const before = await snapshot()
    expectError(await t.app.delete(`/office/v1/visits/${visit.id}/submissions/${submission.id}`, { token: admin() }), 409, 'SUBMISSION_ALREADY_SUBMITTED')
    expect(await snapshot()).toEqual(before)
    expect((await submissionRow(submission.id)).deleted_at).toBeNull()
  })
})

describe('submit-form-v2', () => {
  test('an item with submission_id null creates a submission when the form has none open on the visit; an id updates it', async () => {
    const { visit, user } = await startedVisit()
    const extraForm = await makeForm(NOTE_FIELDS)
    const before = await t.app.count('submissions', `visit_id = ${visit.id}`)
    const created = await submitV2(visit.id, user, extraForm.id, [{ submission_id: null, status: 'draft', answers: { note: 'first' } }])
    expect(created.status).toBe(200)
    expect(created.body.code).toBe('FORM_SUBMITTED')
    expect(created.body.data.visit_id).toBe(visit.id)
    const made = created.body.data.submissions[0]
    expect(made).toMatchObject({ form_id: extraForm.id, status: 'draft', approval_status: null, submitted_at: null, answers: { note: 'first' } })
    expect(await t.app.count('submissions', `visit_id = ${visit.id}`)).toBe(before + 1)

    const updated = await submitV2(visit.id, user, extraForm.id, [{ submission_id: made.id, status: 'draft', answers: { note: 'second' } }])
    expect(updated.status).toBe(200)
    expect(updated.body.data.submissions[0]).toMatchObject({ id: made.id, answers: { note: 'second' } })
    expect(await t.app.count('submissions', `visit_id = ${visit.id}`)).toBe(before + 1)
    expect(JSON.parse((await submissionRow(made.id)).answers)).toEqual({ note: 'second' })
  })

  test('a draft keeps approval_status null; completed sets submitted_at, submitted_by and approval_status "pending"', async () => {
    const { visit, user } = await startedVisit()
    const id = shelfOf(visit).id
    const draft = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: id, status: 'draft', answers: { facings: 2 } }])
    expect(draft.status).toBe(200)
    expect(await submissionRow(id)).toMatchObject({ status: 'draft', approval_status: null, submitted_at: null })
    clock().advance(5000)
    const done = await submitV2(visit.id, user, shelfForm.id, [
      { submission_id: id, status: 'completed', answers: { facings: 3, brand: 'B', where: { latitude: 1.5, longitude: 2.5 }, extra: 'dropped' } },
    ])
    expect(done.status).toBe(200)
    expect(done.body.data.submissions[0]).toMatchObject({
      id,
      status: 'completed',
      approval_status: 'pending',
      submitted_at: now(),
      submitted_by: { id: user.user.id, name: user.user.name },
      answers: { facings: 3, brand: 'B', where: '1.5,2.5' },
    })
    expect(done.body.data.submissions[0].answers).not.toHaveProperty('extra')
    expect(await submissionRow(id)).toMatchObject({ status: 'completed', approval_status: 'pending', submitted_at: now(), submitted_by: user.user.id })
  })

  test('answers of the wrong type or missing required keys: 400 with errors["items.0.answers.<key>"] and nothing saved', async () => {
    const { visit, user } = await startedVisit()
    const id = shelfOf(visit).id
    const before = await snapshot()
    const errors = expectError(
      await submitV2(visit.id, user, shelfForm.id, [{ submission_id: id, status: 'completed', answers: { facings: 'four', where: 'nowhere' } }]),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors).toEqual({
      'items.0.answers.facings': ['must be a number'],
      'items.0.answers.brand': ['is required'],
      'items.0.answers.where': ['must be "latitude,longitude"'],
    })
    expect(
      expectError(
        await submitV2(visit.id, user, shelfForm.id, [{ submission_id: id, status: 'completed', answers: { facings: -1, brand: 'C' } }]),
        400,
        'VALIDATION_ERROR',
      ),
    ).toEqual({
      'items.0.answers.facings': ['must be at least 0'],
      'items.0.answers.brand': ['must be one of: A, B'],
    })
    expect(await snapshot()).toEqual(before)
    expect(await submissionRow(id)).toMatchObject({ status: 'pending', approval_status: null, answers: '{}' })
  })

  test('outside in_progress: 409 INVALID_VISIT_STATUS (scheduled, completed, cancelled)', async () => {
    const user = await fieldUser()
    const scheduled = await planVisit({ user_ids: [user.user.id] })
    const cancelled = await planVisit({ user_ids: [user.user.id] })
    await cancel(cancelled.id)
    const { visit: completed } = await finishedVisit(user)
    for (const visit of [scheduled, cancelled, completed]) {
      const before = await snapshot()
      const note = (await detail(visit.id)).submissions.find((s: Data) => s.form_id === noteForm.id)
      expectError(
        await submitV2(visit.id, user, noteForm.id, [{ submission_id: note.id, status: 'completed', answers: { note: 'x' } }]),
        409,
        'INVALID_VISIT_STATUS',
      )
      expectError(await submitV2(visit.id, user, noteForm.id, [{ submission_id: null, status: 'draft', answers: {} }]), 409, 'INVALID_VISIT_STATUS')
      expect(await snapshot()).toEqual(before)
    }
  })

  test('a completed submission awaiting approval cannot be saved again: 409 SUBMISSION_ALREADY_SUBMITTED', async () => {
    const { visit, user } = await startedVisit()
    const submission = await completeShelf(visit, user)
    expectError(
      await submitV2(visit.id, user, shelfForm.id, [{ submission_id: submission.id, status: 'completed', answers: { facings: 9, brand: 'B' } }]),
      409,
      'SUBMISSION_ALREADY_SUBMITTED',
    )
    expect(JSON.parse((await submissionRow(submission.id)).answers)).toEqual(GOOD)
  })

  test('a submission id of another visit or another form: 400 errors["items.N.submission_id"], and no item of the request is saved', async () => {
    const { visit, user } = await startedVisit()
    const elsewhere = await planVisit()
    const before = await snapshot()
    const foreignItem = { submission_id: shelfOf(elsewhere).id, status: 'completed', answers: GOOD }
    const errors = expectError(
      await submitV2(visit.id, user, shelfForm.id, [{ submission_id: null, status: 'completed', answers: GOOD }, foreignItem]),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toEqual(['items.1.submission_id'])
    const note = visit.submissions.find((s: Data) => s.form_id === noteForm.id)
    expect(
      Object.keys(
        expectError(await submitV2(visit.id, user, shelfForm.id, [{ submission_id: note.id, status: 'completed', answers: GOOD }]), 400, 'VALIDATION_ERROR'),
      ),
    ).toEqual(['items.0.submission_id'])
    expect(await snapshot()).toEqual(before)
  })

  test('an item status other than draft or completed is 400 and nothing is saved', async () => {
    const { visit, user } = await startedVisit()
    const before = await snapshot()
    for (const status of ['pending', 'approved', 'done']) {
      expect(
        Object.keys(
          expectError(await submitV2(visit.id, user, shelfForm.id, [{ submission_id: shelfOf(visit).id, status, answers: GOOD }]), 400, 'VALIDATION_ERROR'),
        ),
      ).toEqual(['items.0.status'])
    }
    expect(await snapshot()).toEqual(before)
  })

  test('an unknown form or a form of another workspace: 400 errors.form_id', async () => {
    const { visit, user } = await startedVisit()
    for (const formId of [999_999, foreign.form.id]) {
      expect(
        expectError(await submitV2(visit.id, user, formId, [{ submission_id: null, status: 'draft', answers: {} }]), 400, 'VALIDATION_ERROR').form_id,
      ).toBeArray()
    }
  })

  describe('an item with submission_id null fills the form’s oldest submission that is not completed, instead of adding one', () => {
    const count = (visitId: number) => t.app.count('submissions', `visit_id = ${visitId} AND deleted_at IS NULL`)

    test('the pre-created pending required submission is completed by a null item; check-out succeeds; no submission added', async () => {
      const { visit, user } = await startedVisit()
      const before = await count(visit.id)
      const reply = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: null, status: 'completed', answers: GOOD }])
      expect(reply.status).toBe(200)
      expect(reply.body.data.submissions.map((s: Data) => s.id)).toEqual([shelfOf(visit).id])
      expect(reply.body.data.submissions[0]).toMatchObject({ status: 'completed', approval_status: 'pending', is_required: true })
      expect(await count(visit.id)).toBe(before)
      expect((await auditOf(reply)).map((e) => [e.entity_id, e.action])).toEqual([[String(shelfOf(visit).id), 'updated']])
      expect((await checkOut(visit.id, user)).status).toBe(200)
    })

    test('a null draft, then a null completed item, fill the same submission', async () => {
      const { visit, user } = await startedVisit()
      const before = await count(visit.id)
      const draft = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: null, status: 'draft', answers: { facings: 1 } }])
      expect(draft.body.data.submissions.map((s: Data) => [s.id, s.status])).toEqual([[shelfOf(visit).id, 'draft']])
      const done = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: null, status: 'completed', answers: GOOD }])
      expect(done.body.data.submissions.map((s: Data) => [s.id, s.status])).toEqual([[shelfOf(visit).id, 'completed']])
      expect(await count(visit.id)).toBe(before)
      expect((await checkOut(visit.id, user)).status).toBe(200)
    })

    test('two null items of one form in one request apply in order: a completed one takes the open submission, the next gets a new one; two drafts share one', async () => {
      const { visit, user } = await startedVisit()
      const before = await count(visit.id)
      const drafts = await submitV2(visit.id, user, shelfForm.id, [
        { submission_id: null, status: 'draft', answers: { facings: 1 } },
        { submission_id: null, status: 'draft', answers: { facings: 2 } },
      ])
      expect(drafts.status).toBe(200)
      expect(drafts.body.data.submissions.map((s: Data) => [s.id, s.answers])).toEqual([[shelfOf(visit).id, { facings: 2 }]])
      expect(await count(visit.id)).toBe(before)
      expect((await auditOf(drafts)).map((e) => [e.action, e.old_values.answers, e.new_values.answers])).toEqual([
        ['updated', {}, { facings: 1 }],
        ['updated', { facings: 1 }, { facings: 2 }],
      ])

      const two = await submitV2(visit.id, user, shelfForm.id, [
        { submission_id: null, status: 'completed', answers: GOOD },
        { submission_id: null, status: 'completed', answers: { facings: 9, brand: 'B' } },
      ])
      expect(two.status).toBe(200)
      const [first, second] = two.body.data.submissions
      expect(first).toMatchObject({ id: shelfOf(visit).id, status: 'completed', answers: GOOD })
      expect(second).toMatchObject({ status: 'completed', answers: { facings: 9, brand: 'B' } })
      expect(second.id).not.toBe(first.id)
      expect(await count(visit.id)).toBe(before + 1)
      expect((await checkOut(visit.id, user)).status).toBe(200)
    })

    test('with several open submissions of the form, the oldest is filled first', async () => {
      const { visit, user } = await startedVisit()
      const older = visit.submissions.find((s: Data) => s.form_id === noteForm.id)
      const newer = await create(`/office/v1/visits/${visit.id}/submissions`, { form_id: noteForm.id, is_required: true })
      const first = await submitV2(visit.id, user, noteForm.id, [{ submission_id: null, status: 'completed', answers: { note: 'a' } }])
      const second = await submitV2(visit.id, user, noteForm.id, [{ submission_id: null, status: 'completed', answers: { note: 'b' } }])
      expect([first.body.data.submissions[0].id, second.body.data.submissions[0].id]).toEqual([older.id, newer.id])
    })

    test('an id-less item leaves a submission named by another item of the request to that item', async () => {
      const { visit, user } = await startedVisit()
      const pending = shelfOf(visit).id
      const reply = await submitV2(visit.id, user, shelfForm.id, [
        { submission_id: null, status: 'completed', answers: { facings: 5, brand: 'B' } },
        { submission_id: pending, status: 'completed', answers: GOOD },
      ])
      expect(reply.status).toBe(200)
      expect(reply.body.data.submissions.find((s: Data) => s.id === pending)).toMatchObject({ answers: GOOD })
      expect(reply.body.data.submissions).toHaveLength(2)
    })

    test('30 concurrent null submissions of the same form fill one submission', async () => {
      const { visit, user } = await startedVisit()
      const before = await count(visit.id)
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, n) => submitV2(visit.id, user, noteForm.id, [{ submission_id: null, status: 'draft', answers: { note: `n${n}` } }])),
      )
      expect(replies.map((r) => r.status)).toEqual(Array(30).fill(200))
      const note = visit.submissions.find((s: Data) => s.form_id === noteForm.id)
      expect(new Set(replies.map((r) => r.body.data.submissions[0].id))).toEqual(new Set([note.id]))
      expect(await count(visit.id)).toBe(before)
      expect(await t.app.count('submissions', `visit_id = ${visit.id} AND form_id = ${noteForm.id}`)).toBe(1)
    })
  })

  test('each saved item writes one submission audit entry (created or updated)', async () => {
    const { visit, user } = await startedVisit()
    const reply = await submitV2(visit.id, user, shelfForm.id, [
      { submission_id: shelfOf(visit).id, status: 'completed', answers: GOOD },
      { submission_id: null, status: 'draft', answers: { facings: 1 } },
    ])
    expect(reply.status).toBe(200)
    expect((await auditOf(reply)).map((e) => [e.entity_type, e.action])).toEqual([
      ['submission', 'updated'],
      ['submission', 'created'],
    ])
  })
})

describe('legacy submit-form', () => {
  test('{form_id, answers} saves one completed item into the visit’s open submission of that form', async () => {
    const { visit, user } = await startedVisit()
    const count = await t.app.count('submissions', `visit_id = ${visit.id}`)
    const reply = await t.app.post(`/app/v1/visits/${visit.id}/submit-form`, { form_id: shelfForm.id, answers: GOOD }, { token: user.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('FORM_SUBMITTED')
    expect(reply.body.data.submissions).toHaveLength(1)
    expect(reply.body.data.submissions[0]).toMatchObject({ id: shelfOf(visit).id, status: 'completed', approval_status: 'pending', answers: GOOD })
    expect(await t.app.count('submissions', `visit_id = ${visit.id}`)).toBe(count)
  })

  test('answers are checked as a completed submission: missing required keys are 400 naming answers.<key> of the request', async () => {
    const { visit, user } = await startedVisit()
    const errors = expectError(
      await t.app.post(`/app/v1/visits/${visit.id}/submit-form`, { form_id: shelfForm.id, answers: { facings: 1 } }, { token: user.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors).toEqual({ 'answers.brand': ['is required'] })
    expect((await submissionRow(shelfOf(visit).id)).status).toBe('pending')
  })
})

describe('approve and reject', () => {
  test('approve (B): 200 SUBMISSION_APPROVED, approval_status approved, reviewer recorded, audit `approved`', async () => {
    const { visit, submission } = await finishedVisit()
    clock().advance(1000)
    const reply = await approve(visit.id, submission.id, 'looks good')
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUBMISSION_APPROVED')
    expect(reply.body.data).toMatchObject({
      id: submission.id,
      approval_status: 'approved',
      approval_notes: 'looks good',
      reviewed_at: now(),
      reviewed_by: { id: ws.owner.user.id, name: ws.owner.user.name },
    })
    expect(await submissionRow(submission.id)).toMatchObject({ approval_status: 'approved', reviewed_by: ws.owner.user.id })
    const entries = await auditOf(reply)
    expect(entries.map((e) => [e.entity_type, e.entity_id, e.action])).toEqual([['submission', String(submission.id), 'approved']])
    expect(entries[0].old_values).toEqual({ approval_status: 'pending' })
  })

  test('approve without notes is allowed', async () => {
    const { visit, submission } = await finishedVisit()
    const reply = await approve(visit.id, submission.id)
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ approval_status: 'approved', approval_notes: null })
  })

  test('reject (B): notes required (400), then 200 SUBMISSION_REJECTED, approval_status rejected, audit `rejected`', async () => {
    const { visit, submission } = await finishedVisit()
    const before = await snapshot()
    for (const body of [{}, { notes: '' }, { notes: '  ' }]) {
      expect(
        expectError(await t.app.post(`/office/v1/visits/${visit.id}/submissions/${submission.id}/reject`, body, { token: admin() }), 400, 'VALIDATION_ERROR')
          .notes,
      ).toBeArray()
    }
    expect(await snapshot()).toEqual(before)
    const reply = await reject(visit.id, submission.id, 'blurry photo')
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUBMISSION_REJECTED')
    expect(reply.body.data).toMatchObject({ approval_status: 'rejected', approval_notes: 'blurry photo' })
    expect((await submissionRow(submission.id)).approval_status).toBe('rejected')
    expect((await auditOf(reply)).map((e) => e.action)).toEqual(['rejected'])
  })

  test('approval (A) {status, notes}: approved, or rejected with notes required', async () => {
    const first = await finishedVisit()
    const second = await finishedVisit()
    const path = (id: number) => `/office/v1/outlet-visits/submissions/${id}/approval`
    const ok = await t.app.post(path(first.submission.id), { status: 'approved' }, { token: admin() })
    expect(ok.status).toBe(200)
    expect(ok.body.code).toBe('SUBMISSION_APPROVED')
    expect((await submissionRow(first.submission.id)).approval_status).toBe('approved')
    expect((await auditOf(ok)).map((e) => e.action)).toEqual(['approved'])

    expect(expectError(await t.app.post(path(second.submission.id), { status: 'rejected' }, { token: admin() }), 400, 'VALIDATION_ERROR').notes).toBeArray()
    expect(
      expectError(await t.app.post(path(second.submission.id), { status: 'rejected', notes: '   ' }, { token: admin() }), 400, 'VALIDATION_ERROR').notes,
    ).toBeArray()
    expect(expectError(await t.app.post(path(second.submission.id), { status: 'maybe' }, { token: admin() }), 400, 'VALIDATION_ERROR').status).toBeArray()
    expect((await submissionRow(second.submission.id)).approval_status).toBe('pending')
    const no = await t.app.post(path(second.submission.id), { status: 'rejected', notes: 'wrong shelf' }, { token: admin() })
    expect(no.status).toBe(200)
    expect(no.body.code).toBe('SUBMISSION_REJECTED')
    expect((await submissionRow(second.submission.id)).approval_status).toBe('rejected')
    expect((await auditOf(no)).map((e) => e.action)).toEqual(['rejected'])
  })

  test('only a completed submission awaiting approval: pending, draft, approved or rejected ones give 409 INVALID_SUBMISSION_STATUS', async () => {
    const { visit, user } = await startedVisit()
    const pending = visit.submissions.find((s: Data) => s.form_id === noteForm.id)
    const draft = (await submitV2(visit.id, user, (await makeForm(NOTE_FIELDS)).id, [{ submission_id: null, status: 'draft', answers: { note: 'wip' } }])).body
      .data.submissions[0]
    const approved = await completeShelf(visit, user)
    expect((await approve(visit.id, approved.id)).status).toBe(200)
    const rejected = (await submitV2(visit.id, user, (await makeForm(NOTE_FIELDS)).id, [{ submission_id: null, status: 'completed', answers: { note: 'x' } }]))
      .body.data.submissions[0]
    expect((await reject(visit.id, rejected.id)).status).toBe(200)
    for (const submission of [pending, draft, approved, rejected]) {
      const before = await snapshot()
      const row = await submissionRow(submission.id)
      expectError(await approve(visit.id, submission.id), 409, 'INVALID_SUBMISSION_STATUS')
      expectError(await reject(visit.id, submission.id), 409, 'INVALID_SUBMISSION_STATUS')
      expectError(
        await t.app.post(`/office/v1/outlet-visits/submissions/${submission.id}/approval`, { status: 'approved' }, { token: admin() }),
        409,
        'INVALID_SUBMISSION_STATUS',
      )
      expect(await snapshot()).toEqual(before)
      expect(await submissionRow(submission.id)).toEqual(row)
    }
  })

  test('a submission of another visit on the B path: 404 SUBMISSION_NOT_FOUND', async () => {
    const { submission } = await finishedVisit()
    const elsewhere = await planVisit()
    expectError(await approve(elsewhere.id, submission.id), 404, 'SUBMISSION_NOT_FOUND')
    expect((await submissionRow(submission.id)).approval_status).toBe('pending')
  })

  test('the submitter gets a notification when their submission is approved or rejected', async () => {
    const first = await finishedVisit()
    await approve(first.visit.id, first.submission.id)
    const approvedRows = await t.app.db.pragma(`SELECT * FROM notifications WHERE user_id = ${first.user.user.id} AND type = 'submission.approved'`)
    expect(approvedRows).toHaveLength(1)
    expect(JSON.parse(String(approvedRows[0].data))).toEqual({ submission_id: first.submission.id, visit_id: first.visit.id })

    const second = await finishedVisit()
    await reject(second.visit.id, second.submission.id, 'redo')
    const rejectedRows = await t.app.db.pragma(`SELECT * FROM notifications WHERE user_id = ${second.user.user.id} AND type = 'submission.rejected'`)
    expect(rejectedRows).toHaveLength(1)
    expect(JSON.parse(String(rejectedRows[0].data))).toEqual({ submission_id: second.submission.id, visit_id: second.visit.id })
  })

  test('a rejected submission may be resubmitted while the visit is in_progress and goes back to pending', async () => {
    const { visit, user } = await startedVisit()
    const submission = await completeShelf(visit, user)
    await reject(visit.id, submission.id, 'redo')
    clock().advance(1000)
    const reply = await submitV2(visit.id, user, shelfForm.id, [{ submission_id: submission.id, status: 'completed', answers: { facings: 7, brand: 'B' } }])
    expect(reply.status).toBe(200)
    expect(reply.body.data.submissions[0]).toMatchObject({
      approval_status: 'pending',
      status: 'completed',
      submitted_at: now(),
      reviewed_at: null,
      reviewed_by: null,
      approval_notes: null,
    })
    expect((await approve(visit.id, submission.id)).status).toBe(200)
  })

  test('a rejected submission may be resubmitted while the visit is completed (v2 and legacy) and goes back to pending', async () => {
    const first = await finishedVisit()
    await reject(first.visit.id, first.submission.id, 'redo')
    const v2 = await submitV2(first.visit.id, first.user, shelfForm.id, [
      { submission_id: first.submission.id, status: 'completed', answers: { facings: 8, brand: 'A' } },
    ])
    expect(v2.status).toBe(200)
    expect(await submissionRow(first.submission.id)).toMatchObject({ approval_status: 'pending', status: 'completed' })

    const second = await finishedVisit()
    await reject(second.visit.id, second.submission.id, 'redo')
    const legacy = await t.app.post(
      `/app/v1/outlet-visits/${second.visit.id}/submit-form`,
      { form_id: shelfForm.id, answers: { facings: 5, brand: 'B' } },
      { token: second.user.token },
    )
    expect(legacy.status).toBe(200)
    expect(legacy.body.data.submissions[0]).toMatchObject({ id: second.submission.id, approval_status: 'pending', answers: { facings: 5, brand: 'B' } })
    expect((await visitRow(second.visit.id)).status).toBe('completed')
  })

  test('a rejected submission cannot be resubmitted once the visit is cancelled: 409 INVALID_VISIT_STATUS', async () => {
    const { visit, user } = await startedVisit()
    const submission = await completeShelf(visit, user)
    await reject(visit.id, submission.id, 'redo')
    await cancel(visit.id)
    expectError(
      await submitV2(visit.id, user, shelfForm.id, [{ submission_id: submission.id, status: 'completed', answers: GOOD }]),
      409,
      'INVALID_VISIT_STATUS',
    )
    expect((await submissionRow(submission.id)).approval_status).toBe('rejected')
  })
})

describe('photos', () => {
  test('a PNG data URI check_in_photo is stored and served at /api/files/<uuid> with its content type to the same workspace only', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const files = await t.app.count('files')
    const reply = await checkIn(visit.id, user, { ...HERE, check_in_photo: PNG })
    expect(reply.status).toBe(200)
    const url = reply.body.data.check_in_photo_url
    expect(url).toMatch(FILE_URL)
    expect((await visitRow(visit.id)).check_in_photo_url).toBe(url)
    expect(await t.app.count('files')).toBe(files + 1)
    expect(await one(`SELECT workspace_id, mime_type, size FROM files WHERE id = '${url.split('/').at(-1)}'`)).toEqual({
      workspace_id: ws.id,
      mime_type: 'image/png',
      size: PNG_BYTES.length,
    })

    for (const token of [admin(), user.token]) {
      const file = await t.app.get(url.replace(/^\/api/, ''), { token })
      expect(file.status).toBe(200)
      expect(file.headers.get('content-type')).toBe('image/png')
    }
    const raw = await t.app.app.handle(new Request(`http://localhost${url}`, { headers: { authorization: `Bearer ${admin()}` } }))
    expect(Buffer.from(await raw.arrayBuffer()).equals(PNG_BYTES)).toBe(true)

    expectError(await t.app.get(url.replace(/^\/api/, ''), { token: other.owner.token }), 404, 'FILE_NOT_FOUND')
    expect((await t.app.get(url.replace(/^\/api/, ''))).status).toBe(401)
  })

  test('bare base64 is accepted too', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const reply = await checkIn(visit.id, user, { ...HERE, check_in_photo: PNG.split(',')[1] })
    expect(reply.status).toBe(200)
    expect(reply.body.data.check_in_photo_url).toMatch(FILE_URL)
  })

  test('a non-image, bad base64 or an image over 5 MiB: 400 errors.check_in_photo, nothing stored, visit unchanged', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const big = Buffer.alloc(5 * 1024 * 1024 + 1000)
    PNG_BYTES.copy(big)
    const cases: [string, string[]][] = [
      [
        `data:image/png;base64,${Buffer.from('just some text, not an image').toString('base64')}`,
        ['must be a JPEG, PNG or WebP image (data URI or base64) or an https:// URL'],
      ],
      ['data:image/png;base64,@@not*base64!!', ['must be a JPEG, PNG or WebP image (data URI or base64) or an https:// URL']],
      [`data:image/png;base64,${big.toString('base64')}`, ['must be at most 5 MiB']],
    ]
    for (const [photo, messages] of cases) {
      const before = await snapshot()
      expect(expectError(await checkIn(visit.id, user, { ...HERE, check_in_photo: photo }), 400, 'VALIDATION_ERROR')).toEqual({ check_in_photo: messages })
      expect(await snapshot()).toEqual(before)
    }
    expect(await visitRow(visit.id)).toMatchObject({ status: 'scheduled', check_in_photo_url: null })
  })

  test('the photo of a refused check-in or check-out is kept neither in the files table nor on disk', async () => {
    const { visit, user } = await startedVisit()
    const files = await t.app.count('files')
    const onDisk = uploadsOnDisk()
    expectError(await checkIn(visit.id, user, { ...HERE, check_in_photo: PNG }), 409, 'VISIT_ALREADY_CHECKED_IN')
    expectError(await checkOut(visit.id, user, { ...HERE, check_out_photo: PNG }), 422, 'SUBMISSION_REQUIRED')
    expect(await t.app.count('files')).toBe(files)
    expect(uploadsOnDisk()).toBe(onDisk)
  })

  test('the cheap refusals come before the photo is decoded: a broken photo sent to a visit already in progress is 409, not 400, and nothing is written', async () => {
    const { visit, user } = await startedVisit()
    const onDisk = uploadsOnDisk()
    const broken = `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}`
    expectError(await checkIn(visit.id, user, { ...HERE, check_in_photo: broken }), 409, 'VISIT_ALREADY_CHECKED_IN')
    expectError(await checkOut(visit.id, user, { ...HERE, check_out_photo: broken }), 422, 'SUBMISSION_REQUIRED')
    const planned = await planVisit({ user_ids: [user.user.id] })
    expectError(await checkOut(planned.id, user, { ...HERE, check_out_photo: broken }), 409, 'VISIT_NOT_STARTED')
    expect(uploadsOnDisk()).toBe(onDisk)
  })

  test('a photo stored for one item is removed again when a later item’s photo is refused: nothing is left in UPLOAD_DIR', async () => {
    const { visit, user } = await startedVisit()
    const files = await t.app.count('files')
    const onDisk = uploadsOnDisk()
    const reply = await submitV2(visit.id, user, shelfForm.id, [
      { submission_id: shelfOf(visit).id, status: 'completed', answers: { ...GOOD, photo: PNG } },
      { submission_id: null, status: 'completed', answers: { ...GOOD, photo: 'data:image/png;base64,aGVsbG8=' } },
    ])
    expect(Object.keys(expectError(reply, 400, 'VALIDATION_ERROR'))).toEqual(['items.1.answers.photo'])
    expect(await t.app.count('files')).toBe(files)
    expect(uploadsOnDisk()).toBe(onDisk)
  })

  test('ten check-ins of one visit at once, each with a photo: one wins, and exactly its photo stays on disk', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const onDisk = uploadsOnDisk()
    const replies = await Promise.all(Array.from({ length: 10 }, () => checkIn(visit.id, user, { ...HERE, check_in_photo: PNG })))
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1)
    expect(replies.filter((reply) => reply.status === 409).every((reply) => reply.body.code === 'VISIT_ALREADY_CHECKED_IN')).toBe(true)
    expect(replies.filter((reply) => reply.status === 409)).toHaveLength(9)
    expect(uploadsOnDisk()).toBe(onDisk + 1)
  })

  test('an https:// URL is kept as given', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    const url = 'https://cdn.example.com/photos/shelf.jpg?v=1'
    const files = await t.app.count('files')
    const reply = await checkIn(visit.id, user, { ...HERE, check_in_photo: url })
    expect(reply.status).toBe(200)
    expect(reply.body.data.check_in_photo_url).toBe(url)
    expect(await t.app.count('files')).toBe(files)
  })

  test('check_out_photo and photo answers are stored the same way', async () => {
    const { visit, user } = await startedVisit()
    const submission = await completeShelf(visit, user, { ...GOOD, photo: PNG })
    expect(submission.answers.photo).toMatch(FILE_URL)
    expect((await t.app.get(submission.answers.photo.replace(/^\/api/, ''), { token: admin() })).headers.get('content-type')).toBe('image/png')
    const reply = await checkOut(visit.id, user, { ...HERE, check_out_photo: PNG })
    expect(reply.status).toBe(200)
    expect(reply.body.data.check_out_photo_url).toMatch(FILE_URL)
    const { visit: other2, user: user2 } = await startedVisit()
    const bad = await submitV2(other2.id, user2, shelfForm.id, [
      { submission_id: shelfOf(other2).id, status: 'completed', answers: { ...GOOD, photo: 'data:image/png;base64,aGVsbG8=' } },
    ])
    expect(Object.keys(expectError(bad, 400, 'VALIDATION_ERROR'))).toEqual(['items.0.answers.photo'])
  })
})

/** A separate workspace with a known set of visits, so list answers are exact. */
describe('lists', () => {
  let lw: Workspace
  let lo1: Data, lo2: Data, lp1: Data, lp2: Data, lt1: Data, form: Data
  let lu1: Session, lu2: Session, lu3: Session
  let v1: Data, v2: Data, v3: Data, v4: Data, v5: Data
  let s4: Data, s5: Data
  const tok = () => lw.owner.token
  const plan = (body: Record<string, unknown>) => create('/office/v1/visits', body, tok())
  const list = (query: string) => t.app.get(`/office/v1/visits${query}`, { token: tok() })

  beforeAll(async () => {
    lw = await t.app.workspace()
    form = await makeForm(NOTE_FIELDS, tok())
    lp1 = await makeProject([{ form_id: form.id, is_required: false }], {}, tok())
    lp2 = await makeProject([{ form_id: form.id, is_required: false }], {}, tok())
    lo1 = await makeOutlet({ name: 'Alpha Mart' }, tok())
    lo2 = await makeOutlet({ name: 'Beta Store' }, tok())
    lt1 = await makeTeam(tok())
    ;[lu1, lu2, lu3] = [await fieldUser(lw), await fieldUser(lw), await fieldUser(lw)]
    v1 = await plan({ outlet_id: lo1.id, project_id: lp1.id, team_id: lt1.id, visit_date: '2026-01-10', user_ids: [lu1.user.id] })
    v2 = await plan({ outlet_id: lo2.id, project_id: lp1.id, visit_date: '2026-01-15', user_ids: [lu2.user.id] })
    v3 = await plan({ outlet_id: lo1.id, project_id: lp2.id, team_id: lt1.id, visit_date: '2026-01-20', user_ids: [lu1.user.id, lu2.user.id] })
    v4 = await plan({ outlet_id: lo2.id, project_id: lp2.id, team_id: lt1.id, visit_date: '2026-02-01', user_ids: [lu1.user.id] })
    v5 = await plan({ outlet_id: lo2.id, project_id: lp1.id, visit_date: '2026-02-05', user_ids: [lu2.user.id] })
    await cancel(v3.id, 'closed', tok())
    await checkIn(v4.id, lu1)
    s4 = (await submitV2(v4.id, lu1, form.id, [{ submission_id: v4.submissions[0].id, status: 'completed', answers: { note: 'a' } }])).body.data.submissions[0]
    await checkIn(v5.id, lu2)
    s5 = (await submitV2(v5.id, lu2, form.id, [{ submission_id: v5.submissions[0].id, status: 'completed', answers: { note: 'b' } }])).body.data.submissions[0]
    expect((await approve(v5.id, s5.id, undefined, tok())).status).toBe(200)
    expect((await checkOut(v5.id, lu2)).status).toBe(200)
  })

  describe('office visit list: filters and pagination', () => {
    test('lists every visit of the workspace, newest visit_date first, LIST_OK with meta (default limit 10)', async () => {
      const reply = await list('')
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ success: true, code: 'LIST_OK', meta: { page: 1, limit: 10, total: 5, total_pages: 1 } })
      expect(ids(reply)).toEqual([v5.id, v4.id, v3.id, v2.id, v1.id])
      expect(reply.body.data[1]).toMatchObject({
        outlet: { id: lo2.id, name: 'Beta Store' },
        project: { id: lp2.id, name: lp2.name },
        team: { id: lt1.id, name: lt1.name },
        status: 'in_progress',
        visit_date: '2026-02-01',
        assignees: [{ user_id: lu1.user.id, name: lu1.user.name }],
        submissions_total: 1,
        submissions_completed: 1,
      })
    })

    test('each filter narrows the list: status, outlet_id, project_id, team_id, user_id, date_from, date_to, keyword', async () => {
      const cases: [string, Data[]][] = [
        ['?status=cancelled', [v3]],
        ['?status=in_progress', [v4]],
        ['?status=completed', [v5]],
        ['?status=scheduled', [v2, v1]],
        ['?status=force_closed', []],
        [`?outlet_id=${lo1.id}`, [v3, v1]],
        [`?project_id=${lp2.id}`, [v4, v3]],
        [`?team_id=${lt1.id}`, [v4, v3, v1]],
        [`?user_id=${lu2.user.id}`, [v5, v3, v2]],
        [`?user_id=${lu3.user.id}`, []],
        ['?date_from=2026-01-15', [v5, v4, v3, v2]],
        ['?date_to=2026-01-20', [v3, v2, v1]],
        ['?date_from=2026-01-15&date_to=2026-02-01', [v4, v3, v2]],
        ['?keyword=alpha', [v3, v1]],
        ['?keyword=BETA%20st', [v5, v4, v2]],
        [`?status=scheduled&user_id=${lu1.user.id}`, [v1]],
        // An assignee with a date range takes another query shape (range first, then assignees).
        [`?user_id=${lu2.user.id}&date_to=2026-01-20`, [v3, v2]],
        [`?user_id=${lu2.user.id}&date_from=2026-01-15&date_to=2026-02-01`, [v3, v2]],
      ]
      for (const [query, expected] of cases) {
        const reply = await list(query)
        expect([query, reply.status]).toEqual([query, 200])
        expect([query, ids(reply)]).toEqual([query, expected.map((v) => v.id)])
        expect(reply.body.meta.total).toBe(expected.length)
      }
    })

    test('the keyword is folded exactly like the stored outlet keys (NFKC, then lower case): full-width and decomposed spellings find the visit', async () => {
      // A workspace of its own: the outlet's name carries a composed accent.
      const kw = await t.app.workspace()
      const token = kw.owner.token
      const kwForm = await makeForm(NOTE_FIELDS, token)
      const kwProject = await makeProject([{ form_id: kwForm.id, is_required: false }], {}, token)
      const cafe = await makeOutlet({ name: 'Café Gamma', code: 'CAFÉ-1' }, token)
      const visit = await create('/office/v1/visits', { outlet_id: cafe.id, project_id: kwProject.id, visit_date: '2026-03-01' }, token)
      const search = async (keyword: string) => {
        for (const base of ['/office/v1/visits', '/office/v1/outlet-visits']) {
          const reply = await t.app.get(`${base}?keyword=${encodeURIComponent(keyword)}`, { token })
          expect([keyword, base, reply.status]).toEqual([keyword, base, 200])
          expect([keyword, base, ids(reply)]).toEqual([keyword, base, [visit.id]])
        }
      }
      await search('ＧＡＭＭＡ') // full-width: NFKC gives "GAMMA"
      await search('CAFE\u0301') // decomposed é: NFKC composes it
      await search('ｃａｆｅ\u0301-１') // the code, full-width and decomposed
      expect(ids(await t.app.get(`/office/v1/visits?keyword=${encodeURIComponent('cafe-1')}`, { token }))).toEqual([])
    })

    test('page and limit paginate with meta {page, limit, total, total_pages}', async () => {
      const first = await list('?limit=2')
      expect(first.body.meta).toEqual({ page: 1, limit: 2, total: 5, total_pages: 3 })
      expect(ids(first)).toEqual([v5.id, v4.id])
      const third = await list('?limit=2&page=3')
      expect(third.body.meta).toEqual({ page: 3, limit: 2, total: 5, total_pages: 3 })
      expect(ids(third)).toEqual([v1.id])
      const beyond = await list('?limit=2&page=4')
      expect(ids(beyond)).toEqual([])
      expect((await list('?status=force_closed')).body.meta).toEqual({ page: 1, limit: 10, total: 0, total_pages: 0 })
      expect((await list('?limit=500')).body.meta.limit).toBe(100)
    })

    test('bad filter values are 400', async () => {
      for (const query of ['?status=done', '?outlet_id=abc', '?date_from=2026-02-30', '?page=0', '?sort_by=outlet']) {
        expectError(await list(query), 400, 'VALIDATION_ERROR')
      }
    })
  })

  describe('my visits and the active visit (mobile)', () => {
    const mine = (user: Session, query = '') => t.app.get(`/app/v1/visits/me${query}`, { token: user.token })

    test('a field user sees only the visits assigned to them, with filters', async () => {
      const cases: [string, Data[]][] = [
        ['', [v4, v3, v1]],
        ['?status=in_progress', [v4]],
        [`?outlet_id=${lo1.id}`, [v3, v1]],
        [`?project_id=${lp1.id}`, [v1]],
        ['?date_from=2026-01-15', [v4, v3]],
        ['?date_to=2026-01-15', [v1]],
        ['?date_from=2026-01-15&date_to=2026-01-20', [v3]],
      ]
      for (const [query, expected] of cases) {
        const reply = await mine(lu1, query)
        expect(reply.body.code).toBe('LIST_OK')
        expect([query, ids(reply)]).toEqual([query, expected.map((v) => v.id)])
      }
      expect(ids(await mine(lu2))).toEqual([v5.id, v3.id, v2.id])
      expect((await mine(lu3)).body).toMatchObject({ data: [], meta: { page: 1, limit: 10, total: 0, total_pages: 0 } })
    })

    test("date ranges follow the visit's date: assigned later, moved to another day by a direct write", async () => {
      // "Mine between two dates" reads the assignee rows' copy of the visit date (migration 0010).
      const ws = await t.app.workspace()
      const token = ws.owner.token
      const [outlet, project] = [await makeOutlet({ name: 'Gamma Mart' }, token), await makeProject([], {}, token)]
      const [a, b] = [await fieldUser(ws), await fieldUser(ws)]
      const at = (visit_date: string) => create('/office/v1/visits', { outlet_id: outlet.id, project_id: project.id, visit_date, user_ids: [a.user.id] }, token)
      const [moved, later] = [await at('2026-03-10'), await at('2026-03-11')]
      const range = (from: string, to: string) => `?date_from=${from}&date_to=${to}`
      expect(ids(await mine(b, range('2026-03-01', '2026-03-31')))).toEqual([])
      expect((await t.app.post(`/office/v1/visits/${later.id}/assign`, { user_ids: [a.user.id, b.user.id] }, { token })).status).toBe(200)
      expect(ids(await mine(b, range('2026-03-11', '2026-03-11')))).toEqual([later.id])
      expect(ids(await t.app.get(`/office/v1/visits?user_id=${b.user.id}&date_from=2026-03-01`, { token }))).toEqual([later.id])

      await t.app.db.pragma(`UPDATE visits SET visit_date = '2026-04-02' WHERE id = ${moved.id}`)
      expect(ids(await mine(a, range('2026-03-10', '2026-03-10')))).toEqual([])
      expect(ids(await mine(a, range('2026-04-01', '2026-04-30')))).toEqual([moved.id])
      const since = await mine(a, '?date_from=2026-03-01')
      expect(ids(since)).toEqual([moved.id, later.id])
      expect(since.body.meta.total).toBe(2)
    })

    test('a visit not assigned to the caller is 404 VISIT_NOT_FOUND on the mobile detail', async () => {
      expectError(await t.app.get(`/app/v1/visits/me/${v2.id}`, { token: lu1.token }), 404, 'VISIT_NOT_FOUND')
      expectError(await t.app.get(`/app/v1/visits/me/${v2.id}/submissions`, { token: lu1.token }), 404, 'VISIT_NOT_FOUND')
      const own = await t.app.get(`/app/v1/visits/me/${v1.id}`, { token: lu1.token })
      expect(own.status).toBe(200)
      expect(own.body.code).toBe('SUCCESS')
    })

    test('the active visit is the caller’s in_progress visit, or null when none', async () => {
      const active = await t.app.get('/app/v1/visits/active', { token: lu1.token })
      expect(active.status).toBe(200)
      expect(active.body.code).toBe('SUCCESS')
      expect(active.body.data).toMatchObject({ id: v4.id, status: 'in_progress' })
      for (const user of [lu2, lu3]) {
        const none = await t.app.get('/app/v1/visits/active', { token: user.token })
        expect(none.status).toBe(200)
        expect(none.body).toMatchObject({ success: true, code: 'SUCCESS', data: null })
      }
    })
  })

  describe('submission lists', () => {
    const sorted = (reply: Reply) => ids(reply).sort((a: number, b: number) => a - b)
    const subOf = (visit: Data) => visit.submissions[0].id

    test('office: every submission of the workspace, filtered by approval_status and team_id', async () => {
      const office = (query: string) => t.app.get(`/office/v1/outlet-visits/submissions${query}`, { token: tok() })
      const all = await office('')
      expect(all.body.code).toBe('LIST_OK')
      expect(all.body.meta.total).toBe(5)
      expect(sorted(all)).toEqual([v1, v2, v3, v4, v5].map(subOf))
      expect(ids(await office('?approval_status=pending'))).toEqual([s4.id])
      expect(ids(await office('?approval_status=approved'))).toEqual([s5.id])
      expect(ids(await office('?approval_status=rejected'))).toEqual([])
      expect(sorted(await office(`?team_id=${lt1.id}`))).toEqual([v1, v3, v4].map(subOf))
      expect(ids(await office(`?team_id=${lt1.id}&approval_status=pending`))).toEqual([s4.id])
      expect((await office('?approval_status=maybe')).status).toBe(400)
    })

    test('office: submissions of one visit', async () => {
      const reply = await t.app.get(`/office/v1/visits/${v5.id}/submissions`, { token: tok() })
      expect(reply.body.code).toBe('LIST_OK')
      expect(reply.body.data).toHaveLength(1)
      expect(reply.body.data[0]).toMatchObject({ id: s5.id, status: 'completed', approval_status: 'approved', answers: { note: 'b' } })
    })

    test('mobile: only the submissions of the caller’s visits, with the same filters', async () => {
      const mobile = (user: Session, query = '') => t.app.get(`/app/v1/outlet-visits/submissions${query}`, { token: user.token })
      expect(sorted(await mobile(lu1))).toEqual([v1, v3, v4].map(subOf))
      expect(sorted(await mobile(lu2))).toEqual([v2, v3, v5].map(subOf))
      expect(ids(await mobile(lu1, '?approval_status=approved'))).toEqual([])
      expect(ids(await mobile(lu2, '?approval_status=approved'))).toEqual([s5.id])
      expect(ids(await mobile(lu1, `?team_id=${lt1.id}&approval_status=pending`))).toEqual([s4.id])
      expect((await mobile(lu3)).body.meta.total).toBe(0)
      expectError(await t.app.get(`/app/v1/outlet-visits/submissions/${s5.id}`, { token: lu1.token }), 404, 'SUBMISSION_NOT_FOUND')
      const own = await t.app.get(`/app/v1/outlet-visits/submissions/${s4.id}`, { token: lu1.token })
      expect(own.status).toBe(200)
      expect(own.body.data).toMatchObject({ id: s4.id, approval_status: 'pending' })
    })
  })
})

describe('my visits default page size', () => {
  test('a field user with 12 visits gets 10 by default, total 12', async () => {
    const user = await fieldUser()
    const reply = await t.app.post(
      '/office/v1/visits/bulk',
      { visits: Array.from({ length: 12 }, () => visitBody({ user_ids: [user.user.id] })) },
      { token: admin() },
    )
    expect(reply.status).toBe(201)
    const mine = await t.app.get('/app/v1/visits/me', { token: user.token })
    expect(mine.body.data).toHaveLength(10)
    expect(mine.body.meta).toEqual({ page: 1, limit: 10, total: 12, total_pages: 2 })
  })
})

describe('bulk create', () => {
  test('201 VISITS_CREATED with the ids; every visit gets its forms, assignees and audit entries', async () => {
    const user = await fieldUser()
    const reply = await t.app.post(
      '/office/v1/visits/bulk',
      { visits: [visitBody({ user_ids: [user.user.id] }), visitBody({ visit_date: '2026-12-24' })] },
      { token: admin() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('VISITS_CREATED')
    expect(reply.body.data.count).toBe(2)
    const [a, b] = reply.body.data.ids
    expect(await visitRow(b)).toMatchObject({ status: 'scheduled', visit_date: '2026-12-24', workspace_id: ws.id })
    expect(await assigneeIds(a)).toEqual([user.user.id])
    expect(await t.app.count('submissions', `visit_id IN (${a}, ${b})`)).toBe(4)
    expect((await auditOf(reply)).map((e) => [e.entity_id, e.action])).toEqual([
      [String(a), 'created'],
      [String(a), 'assigned'],
      [String(b), 'created'],
    ])
  })

  test('all or nothing: one bad item is a 400 with errors["visits.N.field"] and nothing is written', async () => {
    const before = await snapshot()
    const errors = expectError(
      await t.app.post(
        '/office/v1/visits/bulk',
        { visits: [visitBody(), visitBody({ outlet_id: foreign.outlet.id }), visitBody(), visitBody({ user_ids: [999_999] })] },
        { token: admin() },
      ),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors).sort()).toEqual(['visits.1.outlet_id', 'visits.3.user_ids'])
    expect(await snapshot()).toEqual(before)
    expect(expectError(await t.app.post('/office/v1/visits/bulk', { visits: [] }, { token: admin() }), 400, 'VALIDATION_ERROR').visits).toBeArray()
  })
})

describe('CSV import', () => {
  const importCsv = (csv: string, contentType = 'text/csv') =>
    t.app.request('POST', '/office/v1/visits/import', { raw: csv, headers: { 'content-type': contentType }, token: admin() })

  test('text/csv with outlet_code, project_code, visit_date, assignee_emails: 201 VISITS_IMPORTED, one visit per row', async () => {
    const [a, b] = [await fieldUser(), await fieldUser()]
    const csv = [
      'outlet_code,project_code,visit_date,assignee_emails',
      `${outlet.code},${project.code},2026-12-10,${a.user.email};${b.user.email}`,
      `${outlet.code.toLowerCase()},${project.code},2026-12-11,`,
    ].join('\n')
    const reply = await importCsv(csv)
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('VISITS_IMPORTED')
    expect(reply.body.data.count).toBe(2)
    const [first, second] = reply.body.data.ids
    expect(await visitRow(first)).toMatchObject({ outlet_id: outlet.id, project_id: project.id, visit_date: '2026-12-10', status: 'scheduled' })
    expect(await assigneeIds(first)).toEqual([a.user.id, b.user.id].sort((x, y) => x - y))
    expect(await visitRow(second)).toMatchObject({ visit_date: '2026-12-11' })
    expect(await assigneeIds(second)).toEqual([])
    expect(await t.app.count('submissions', `visit_id = ${first}`)).toBe(2)
  })

  test('a bad row is a 400 with errors["rows.<line>.<column>"] (header is line 1) and nothing is imported', async () => {
    const inactive = await makeOutlet({ is_active: false })
    const cases: [string, string[]][] = [
      [`outlet_code,project_code,visit_date\n${outlet.code},${project.code},2026-12-10\n${outlet.code},${project.code},2026-02-30\n`, ['rows.3.visit_date']],
      [`outlet_code,project_code,visit_date\nNOPE-1,${project.code},2026-12-10\n`, ['rows.2.outlet_code']],
      [`outlet_code,project_code,visit_date\n${outlet.code},NOPE-2,2026-12-10\n`, ['rows.2.project_code']],
      [`outlet_code,project_code,visit_date,assignee_emails\n${outlet.code},${project.code},2026-12-10,nobody@example.com\n`, ['rows.2.assignee_emails']],
      [
        `outlet_code,project_code,visit_date,assignee_emails\n${outlet.code},${project.code},2026-12-10,${foreign.user.user.email}\n`,
        ['rows.2.assignee_emails'],
      ],
      [`project_code,visit_date\n${project.code},2026-12-10\n`, ['rows.2.outlet_code']],
      [`outlet_code,project_code,visit_date\n${outlet.code},${project.code},2026-12-10\n${inactive.code},${project.code},2026-12-10\n`, ['rows.3.outlet_id']],
    ]
    for (const [csv, keys] of cases) {
      const before = await snapshot()
      const errors = expectError(await importCsv(csv), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(keys)
      expect(await snapshot()).toEqual(before)
    }
  })

  test('an empty CSV or a JSON body is refused with 400', async () => {
    const before = await snapshot()
    expectError(await importCsv('outlet_code,project_code,visit_date\n'), 400, 'VALIDATION_ERROR')
    expectError(await importCsv(JSON.stringify({ outlet_code: outlet.code }), 'application/json'), 400, 'VALIDATION_ERROR')
    expect(await snapshot()).toEqual(before)
  })
})

describe('CSV export', () => {
  test("text/csv with a header row, the list filters applied, and formula cells prefixed with '", async () => {
    const exportProject = await makeProject([])
    const names = ['=1+2', '+SUM(A1)', '-3', '@cmd', 'Plain Shop']
    const planned: Data[] = []
    for (const name of names) planned.push(await planVisit({ outlet_id: (await makeOutlet({ name })).id, project_id: exportProject.id }))
    await cancel(planned[4].id)

    const reply = await t.app.get(`/office/v1/visits/export?project_id=${exportProject.id}`, { token: admin() })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toStartWith('text/csv')
    const [header] = reply.text.split('\n')
    expect(header.split(',')).toEqual(expect.arrayContaining(['id', 'visit_date', 'status', 'outlet_name', 'project_name', 'assignees']))
    const rows = parse(reply.text, { columns: true }) as Record<string, string>[]
    expect(rows.map((r) => Number(r.id))).toEqual(planned.map((v) => v.id))
    expect(rows.map((r) => r.outlet_name)).toEqual(["'=1+2", "'+SUM(A1)", "'-3", "'@cmd", 'Plain Shop'])
    expect(rows.every((r) => r.project_name === exportProject.name)).toBe(true)

    const cancelled = parse((await t.app.get(`/office/v1/visits/export?project_id=${exportProject.id}&status=cancelled`, { token: admin() })).text, {
      columns: true,
    }) as Record<string, string>[]
    expect(cancelled.map((r) => [Number(r.id), r.status])).toEqual([[planned[4].id, 'cancelled']])

    const none = await t.app.get(`/office/v1/visits/export?project_id=${exportProject.id}&status=completed`, { token: admin() })
    expect(none.status).toBe(200)
    expect(parse(none.text, { columns: true })).toEqual([])
    expect(none.text.split('\n')[0]).toBe(header)
  })
})

describe('send to field', () => {
  test('marks sent_to_field_at, writes one visit_dispatches row and one notification per assignee', async () => {
    const [a, b] = [await fieldUser(), await fieldUser()]
    const visit = await planVisit({ user_ids: [a.user.id, b.user.id] })
    const lonely = await planVisit()
    clock().advance(1000)
    const reply = await t.app.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id, lonely.id] }, { token: admin() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('VISITS_SENT_TO_FIELD')
    expect(reply.body.data.count).toBe(2)
    expect((await visitRow(visit.id)).sent_to_field_at).toBe(now())
    expect((await visitRow(lonely.id)).sent_to_field_at).toBe(now())
    const dispatches = await t.app.db.pragma(`SELECT user_id, sent_by FROM visit_dispatches WHERE visit_id = ${visit.id} ORDER BY user_id`)
    expect(dispatches).toEqual([a.user.id, b.user.id].sort((x, y) => x - y).map((user_id) => ({ user_id, sent_by: ws.owner.user.id })))
    expect(await t.app.count('visit_dispatches', `visit_id = ${lonely.id}`)).toBe(0)
    for (const user of [a, b]) {
      const rows = await t.app.db.pragma(`SELECT data FROM notifications WHERE user_id = ${user.user.id} AND type = 'visit.sent_to_field'`)
      expect(rows.map((r: Data) => JSON.parse(r.data))).toEqual([{ visit_id: visit.id }])
    }
    expect((await auditOf(reply)).map((e) => [e.entity_id, e.action])).toEqual([
      [String(visit.id), 'updated'],
      [String(lonely.id), 'updated'],
    ])
    const mine = await t.app.get(`/app/v1/visits/me/${visit.id}`, { token: a.token })
    expect(mine.body.data.sent_to_field_at).toBe(now())
  })

  test('an unknown or foreign id: 400 errors.visit_ids and nothing is sent', async () => {
    const visit = await planVisit({ user_ids: [(await fieldUser()).user.id] })
    const foreignVisit = await create(
      '/office/v1/visits',
      { outlet_id: foreign.outlet.id, project_id: foreign.project.id, visit_date: '2026-12-01' },
      other.owner.token,
    )
    for (const bad of [999_999, foreignVisit.id]) {
      const before = await snapshot()
      expect(
        expectError(await t.app.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id, bad] }, { token: admin() }), 400, 'VALIDATION_ERROR').visit_ids,
      ).toBeArray()
      expect(await snapshot()).toEqual(before)
    }
    expect((await visitRow(visit.id)).sent_to_field_at).toBeNull()
    expect((await visitRow(foreignVisit.id)).sent_to_field_at).toBeNull()
  })

  test('a visit that is not scheduled: 409 INVALID_VISIT_STATUS and nothing is sent', async () => {
    const visit = await planVisit()
    const cancelled = await planVisit()
    await cancel(cancelled.id)
    const before = await snapshot()
    expectError(await t.app.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id, cancelled.id] }, { token: admin() }), 409, 'INVALID_VISIT_STATUS')
    expect(await snapshot()).toEqual(before)
    expect((await visitRow(visit.id)).sent_to_field_at).toBeNull()
  })
})

describe('permissions per role', () => {
  test('a field user gets 403 FORBIDDEN on the office visit routes and nothing is written', async () => {
    const { visit, user } = await startedVisit()
    const submission = await completeShelf(visit, user)
    const before = await snapshot()
    const calls: [string, string, unknown?][] = [
      ['GET', '/office/v1/visits'],
      ['GET', '/office/v1/outlet-visits'],
      ['POST', '/office/v1/visits', visitBody()],
      ['POST', '/office/v1/visits/bulk', { visits: [visitBody()] }],
      ['GET', '/office/v1/visits/export'],
      ['POST', '/office/v1/visits/send-to-field', { visit_ids: [visit.id] }],
      ['GET', `/office/v1/visits/${visit.id}`],
      ['PUT', `/office/v1/visits/${visit.id}/cancel`, { reason: 'x' }],
      ['PUT', `/office/v1/visits/${visit.id}/force-close`, { reason: 'x' }],
      ['POST', `/office/v1/visits/${visit.id}/assign`, { user_ids: [] }],
      ['GET', `/office/v1/visits/${visit.id}/submissions`],
      ['POST', `/office/v1/visits/${visit.id}/submissions`, { form_id: noteForm.id }],
      ['GET', '/office/v1/outlet-visits/submissions'],
      ['POST', `/office/v1/visits/${visit.id}/submissions/${submission.id}/approve`, {}],
      ['POST', `/office/v1/visits/${visit.id}/submissions/${submission.id}/reject`, { notes: 'x' }],
      ['POST', `/office/v1/outlet-visits/submissions/${submission.id}/approval`, { status: 'approved' }],
    ]
    for (const [method, path, body] of calls) {
      const reply = await t.app.request(method, path, { token: user.token, body })
      expect([method, path, reply.status, reply.body?.code]).toEqual([method, path, 403, 'FORBIDDEN'])
    }
    expect(await snapshot()).toEqual(before)
    expect((await submissionRow(submission.id)).approval_status).toBe('pending')
    expect((await visitRow(visit.id)).status).toBe('in_progress')
  })

  test('without a token every visit route is 401', async () => {
    for (const path of ['/office/v1/visits', '/app/v1/visits/me', '/app/v1/visits/active']) expectError(await t.app.get(path), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/office/v1/visits', visitBody()), 401, 'UNAUTHORIZED')
  })

  test('a manager can plan visits and approve submissions on web', async () => {
    const manager = await t.app.member(ws, 'manager')
    const created = await t.app.post('/office/v1/visits', visitBody(), { token: manager.token })
    expect(created.status).toBe(201)
    expect((await auditOf(created))[0]).toMatchObject({ action: 'created', actor_id: manager.user.id, actor_role: 'manager' })
    expect((await t.app.get(`/office/v1/visits/${created.body.data.id}`, { token: manager.token })).status).toBe(200)
    const { visit, submission } = await finishedVisit()
    const approved = await approve(visit.id, submission.id, undefined, manager.token)
    expect(approved.status).toBe(200)
    expect((await submissionRow(submission.id)).approval_status).toBe('approved')
  })

  test('a role with only web visit:view can read but not plan, close or approve', async () => {
    const reader = await t.app.memberWithGrants(ws, [{ key: 'visit:view', platform: 'web', access: 'view' }])
    const { visit, submission } = await finishedVisit()
    expect((await t.app.get('/office/v1/visits', { token: reader.token })).status).toBe(200)
    expect((await t.app.get(`/office/v1/visits/${visit.id}`, { token: reader.token })).status).toBe(200)
    const before = await snapshot()
    expectError(await t.app.post('/office/v1/visits', visitBody(), { token: reader.token }), 403, 'FORBIDDEN')
    expectError(await approve(visit.id, submission.id, undefined, reader.token), 403, 'FORBIDDEN')
    expectError(await cancel(visit.id, 'x', reader.token), 403, 'FORBIDDEN')
    expect(await snapshot()).toEqual(before)
  })

  test('the office roles do not act on the phone routes without mobile grants', async () => {
    const reader = await t.app.memberWithGrants(ws, [{ key: 'visit:view', platform: 'web', access: 'full' }])
    expectError(await t.app.get('/app/v1/visits/me', { token: reader.token }), 403, 'FORBIDDEN')
  })
})

describe('workspace isolation', () => {
  test('a user of another workspace gets 404 on every visit and submission id, and nothing changes', async () => {
    const { visit, user, submission } = await finishedVisit()
    const pendingVisit = await planVisit()
    const note = pendingVisit.submissions.find((s: Data) => s.form_id === noteForm.id)
    const outsider = other.owner.token
    const before = await snapshot()
    const officeCalls: [string, string, string, unknown?][] = [
      ['GET', `/office/v1/visits/${visit.id}`, 'VISIT_NOT_FOUND'],
      ['GET', `/office/v1/outlet-visits/${visit.id}`, 'VISIT_NOT_FOUND'],
      ['PUT', `/office/v1/visits/${pendingVisit.id}/cancel`, 'VISIT_NOT_FOUND', { reason: 'x' }],
      ['PUT', `/office/v1/visits/${pendingVisit.id}/force-close`, 'VISIT_NOT_FOUND', { reason: 'x' }],
      ['POST', `/office/v1/visits/${pendingVisit.id}/assign`, 'VISIT_NOT_FOUND', { user_ids: [] }],
      ['GET', `/office/v1/visits/${visit.id}/submissions`, 'VISIT_NOT_FOUND'],
      ['POST', `/office/v1/visits/${pendingVisit.id}/submissions`, 'VISIT_NOT_FOUND', { form_id: foreign.form.id }],
      ['GET', `/office/v1/visits/${visit.id}/submissions/${submission.id}`, 'VISIT_NOT_FOUND'],
      ['DELETE', `/office/v1/visits/${pendingVisit.id}/submissions/${note.id}`, 'VISIT_NOT_FOUND'],
      ['POST', `/office/v1/visits/${visit.id}/submissions/${submission.id}/approve`, 'VISIT_NOT_FOUND', {}],
      ['POST', `/office/v1/visits/${visit.id}/submissions/${submission.id}/reject`, 'VISIT_NOT_FOUND', { notes: 'x' }],
      ['GET', `/office/v1/outlet-visits/submissions/${submission.id}`, 'SUBMISSION_NOT_FOUND'],
      ['POST', `/office/v1/outlet-visits/submissions/${submission.id}/approval`, 'SUBMISSION_NOT_FOUND', { status: 'approved' }],
    ]
    for (const [method, path, code, body] of officeCalls) {
      const reply = await t.app.request(method, path, { token: outsider, body })
      expect([method, path, reply.status, reply.body?.code]).toEqual([method, path, 404, code])
    }
    const lists = await t.app.get('/office/v1/visits?limit=100', { token: outsider })
    expect(ids(lists)).not.toContain(visit.id)
    const subs = await t.app.get('/office/v1/outlet-visits/submissions?limit=100', { token: outsider })
    expect(ids(subs)).not.toContain(submission.id)
    expect(await snapshot()).toEqual(before)
    expect((await submissionRow(submission.id)).approval_status).toBe('pending')
    expect((await visitRow(pendingVisit.id)).status).toBe('scheduled')
    expect(user.user.workspace_id).toBe(ws.id)
  })

  test('a field user of another workspace gets 404 on the phone routes of this workspace’s visits', async () => {
    const { visit, submission } = await startedVisit().then(async (s) => ({ ...s, submission: await completeShelf(s.visit, s.user) }))
    const scheduled = await planVisit()
    const outsider = foreign.user
    const before = await snapshot()
    const calls: [string, string, string, unknown?][] = [
      ['GET', `/app/v1/visits/me/${visit.id}`, 'VISIT_NOT_FOUND'],
      ['GET', `/app/v1/outlet-visits/${visit.id}`, 'VISIT_NOT_FOUND'],
      ['GET', `/app/v1/visits/me/${visit.id}/submissions`, 'VISIT_NOT_FOUND'],
      ['GET', `/app/v1/visits/me/${visit.id}/submissions/${submission.id}`, 'VISIT_NOT_FOUND'],
      ['GET', `/app/v1/outlet-visits/submissions/${submission.id}`, 'SUBMISSION_NOT_FOUND'],
      ['POST', `/app/v1/visits/${scheduled.id}/check-in`, 'VISIT_NOT_FOUND', HERE],
      ['POST', `/app/v1/visits/${visit.id}/check-out`, 'VISIT_NOT_FOUND', HERE],
      [
        'POST',
        `/app/v1/visits/${visit.id}/submit-form-v2`,
        'VISIT_NOT_FOUND',
        { form_id: foreign.form.id, items: [{ submission_id: null, status: 'draft', answers: {} }] },
      ],
      ['POST', `/app/v1/visits/${visit.id}/submit-form`, 'VISIT_NOT_FOUND', { form_id: foreign.form.id, answers: { note: 'x' } }],
    ]
    for (const [method, path, code, body] of calls) {
      const reply = await t.app.request(method, path, { token: outsider.token, body })
      expect([method, path, reply.status, reply.body?.code]).toEqual([method, path, 404, code])
    }
    expect(await snapshot()).toEqual(before)
  })
})

describe('`updated` audit entries hold exactly the fields that changed (old and new), nothing else', () => {
  /** The one entry a request wrote, with its metadata parsed. */
  async function onlyEntry(reply: Reply) {
    expect(reply.status).toBe(200)
    const entries = await auditOf(reply)
    expect(entries).toHaveLength(1)
    expect(entries[0].action).toBe('updated')
    return { ...entries[0], metadata: JSON.parse(entries[0].metadata) }
  }

  test('check-in without a photo: status, time and place; no check_in_photo_url null → null', async () => {
    const user = await fieldUser()
    const visit = await planVisit({ user_ids: [user.user.id] })
    clock().advance(1000)
    const entry = await onlyEntry(await checkIn(visit.id, user))
    expect(entry.old_values).toEqual({ status: 'scheduled', checked_in_at: null, check_in_latitude: null, check_in_longitude: null, check_in_distance_m: null })
    expect(entry.new_values).toEqual({
      status: 'in_progress',
      checked_in_at: now(),
      check_in_latitude: HERE.latitude,
      check_in_longitude: HERE.longitude,
      check_in_distance_m: 0,
    })
  })

  test('check-out without a photo: status, time and place; no check_out_photo_url null → null', async () => {
    const { visit, user } = await startedVisit()
    await completeShelf(visit, user)
    clock().advance(1000)
    const entry = await onlyEntry(await checkOut(visit.id, user))
    expect(entry.old_values).toEqual({
      status: 'in_progress',
      checked_out_at: null,
      check_out_latitude: null,
      check_out_longitude: null,
      check_out_distance_m: null,
    })
    expect(entry.new_values).toEqual({
      status: 'completed',
      checked_out_at: now(),
      check_out_latitude: HERE.latitude,
      check_out_longitude: HERE.longitude,
      check_out_distance_m: 0,
    })
  })

  test('cancel records status and close_reason only', async () => {
    const visit = await planVisit()
    const entry = await onlyEntry(await cancel(visit.id, 'rain'))
    expect(entry.old_values).toEqual({ status: 'scheduled', close_reason: null })
    expect(entry.new_values).toEqual({ status: 'cancelled', close_reason: 'rain' })
  })

  test('a draft save records status and answers; no approval_status null → null', async () => {
    const { visit, user } = await startedVisit()
    const id = shelfOf(visit).id
    const entry = await onlyEntry(await submitV2(visit.id, user, shelfForm.id, [{ submission_id: id, status: 'draft', answers: { facings: 2 } }]))
    expect(entry).toMatchObject({ entity_type: 'submission', entity_id: String(id) })
    expect(entry.old_values).toEqual({ status: 'pending', answers: {} })
    expect(entry.new_values).toEqual({ status: 'draft', answers: { facings: 2 } })
  })

  test('completion records submitted_at and submitted_by beside status, approval_status and answers', async () => {
    const { visit, user } = await startedVisit()
    const id = shelfOf(visit).id
    clock().advance(1000)
    const entry = await onlyEntry(await submitV2(visit.id, user, shelfForm.id, [{ submission_id: id, status: 'completed', answers: GOOD }]))
    expect(entry.old_values).toEqual({ status: 'pending', approval_status: null, answers: {}, submitted_at: null, submitted_by: null })
    expect(entry.new_values).toEqual({ status: 'completed', approval_status: 'pending', answers: GOOD, submitted_at: now(), submitted_by: user.user.id })
  })

  test('a resubmission records the new submission time and the cleared review, not status completed → completed', async () => {
    const { visit, user, submission } = await finishedVisit()
    const submittedAt = (await submissionRow(submission.id)).submitted_at
    clock().advance(1000)
    expect((await reject(visit.id, submission.id, 'blurry photo')).status).toBe(200)
    const reviewedAt = now()
    clock().advance(1000)
    const changed = { facings: 9, brand: 'B' }
    const entry = await onlyEntry(await submitV2(visit.id, user, shelfForm.id, [{ submission_id: submission.id, status: 'completed', answers: changed }]))
    expect(entry.old_values).toEqual({
      approval_status: 'rejected',
      answers: GOOD,
      submitted_at: submittedAt,
      reviewed_at: reviewedAt,
      reviewed_by: ws.owner.user.id,
      approval_notes: 'blurry photo',
    })
    expect(entry.new_values).toEqual({
      approval_status: 'pending',
      answers: changed,
      submitted_at: now(),
      reviewed_at: null,
      reviewed_by: null,
      approval_notes: null,
    })
  })

  test('send-to-field records sent_to_field_at only; who was notified goes to metadata, not into the values', async () => {
    const [a, b] = [await fieldUser(), await fieldUser()]
    const visit = await planVisit({ user_ids: [a.user.id, b.user.id] })
    clock().advance(1000)
    const entry = await onlyEntry(await t.app.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id] }, { token: admin() }))
    expect(entry.old_values).toEqual({ sent_to_field_at: null })
    expect(entry.new_values).toEqual({ sent_to_field_at: now() })
    expect([...entry.metadata.notified_user_ids].sort((x: number, y: number) => x - y)).toEqual([a.user.id, b.user.id].sort((x, y) => x - y))
    expect(Object.keys(entry.metadata).sort()).toEqual(['ip', 'notified_user_ids', 'request_id', 'timestamp', 'user_agent'])
  })

  test('the audit-log API shows metadata extras (notified_user_ids) as stored', async () => {
    const a = await fieldUser()
    const visit = await planVisit({ user_ids: [a.user.id] })
    const reply = await t.app.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id] }, { token: admin() })
    const stored = await onlyEntry(reply)
    const shown = await t.app.get(`/office/v1/audit-logs/${stored.id}`, { token: admin() })
    expect(shown.status).toBe(200)
    expect(shown.body.data.metadata).toEqual(stored.metadata)
    expect(shown.body.data.metadata.notified_user_ids).toEqual([a.user.id])
  })

  test('assigning the same assignees again changes nothing: one `updated` entry with {} and {}', async () => {
    const a = await fieldUser()
    const visit = await planVisit({ user_ids: [a.user.id] })
    const entry = await onlyEntry(await t.app.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [a.user.id] }, { token: admin() }))
    expect(entry.old_values).toEqual({})
    expect(entry.new_values).toEqual({})
  })
})

describe('a visits CSV export imports again as is', () => {
  /** Names a spreadsheet would run as formulas (guarded on export), and two that only start with `'`. */
  const NAMES = ['@Tim Timur', '=SUM(1)', '-minus', '+plus', "'quoted", "'=quoted formula"]

  const importCsv = (csv: string, token: string) =>
    t.app.request('POST', '/office/v1/visits/import', { raw: csv, headers: { 'content-type': 'text/csv' }, token })
  const exportCsv = async (token: string) => {
    const reply = await t.app.get('/office/v1/visits/export', { token })
    expect(reply.status).toBe(200)
    return reply.text
  }

  /** What makes a visit the same visit: place, work, team, day and people (ids and times aside). */
  async function plans(workspaceId: number) {
    const rows = await t.app.db.pragma(
      `SELECT v.outlet_id, v.project_id, v.team_id, v.visit_date, v.status,
              (SELECT group_concat(user_id, ';') FROM (SELECT user_id FROM visit_assignees a WHERE a.visit_id = v.id ORDER BY user_id)) AS users
         FROM visits v WHERE v.workspace_id = ${workspaceId} AND v.deleted_at IS NULL`,
    )
    return rows.map((row: Data) => JSON.stringify(row)).sort()
  }

  /** A fresh workspace whose teams, outlets (codes too), projects and one assignee's email start with a guarded character. */
  async function guardedWorkspace() {
    const home = await t.app.workspace()
    const token = home.owner.token
    const dash = await t.app.member(home, 'user', { email: `-${unique('dash')}@example.com` })
    const plain = await t.app.member(home, 'user')
    const made: Data[] = []
    for (const [index, name] of NAMES.entries()) {
      const team = await create('/office/v1/teams', { name }, token)
      const outlet = await create('/office/v1/outlets', { name, code: `${name.replace(/[^=+\-@']/g, '')}O${index}` }, token)
      const project = await create('/office/v1/projects', { name, code: `${name.replace(/[^=+\-@']/g, '')}P${index}` }, token)
      made.push(
        await create(
          '/office/v1/visits',
          {
            outlet_id: outlet.id,
            project_id: project.id,
            team_id: team.id,
            visit_date: `2026-12-0${index + 1}`,
            user_ids: index % 2 ? [dash.user.id, plain.user.id] : [dash.user.id],
          },
          token,
        ),
      )
    }
    return { home, token, made }
  }

  test("guardCell and unguardCell undo each other; only `'` before a guarded character is taken off", async () => {
    for (const text of [...NAMES, "''=x", "''quoted", '\tTab', '\rCR', 'plain', "'", "''", '', "it's", '=', "'-"]) {
      expect(unguardCell(guardCell(text))).toBe(text)
    }
    expect(guardCell('@Tim Timur')).toBe("'@Tim Timur")
    expect(guardCell("'quoted")).toBe("'quoted")
    expect(guardCell("'=x")).toBe("''=x")
    expect(unguardCell("'quoted")).toBe("'quoted")
    expect(unguardCell("'@Tim Timur")).toBe('@Tim Timur')
  })

  test("export a workspace with names starting =, +, -, @ and ' → import that file into the same workspace → 201, the same visits again", async () => {
    const { home, token, made } = await guardedWorkspace()
    const csv = await exportCsv(token)
    const cells = parse(csv, { columns: true }) as Record<string, string>[]
    expect(cells.map((row) => row.team_name)).toEqual(["'@Tim Timur", "'=SUM(1)", "'-minus", "'+plus", "'quoted", "''=quoted formula"])
    const before = await plans(home.id)
    expect(before).toHaveLength(made.length)

    const reply = await importCsv(csv, token)
    expect(reply.status).toBe(201)
    expect(reply.body.data.count).toBe(made.length)
    const after = await plans(home.id)
    // Every visit is there twice now: the original and its imported twin (scheduled, like any new plan).
    expect(after).toEqual([...before, ...before].sort())
  })

  test('codes and emails are unguarded too: the export without its id columns imports by outlet_code and assignee_emails', async () => {
    const { home, token, made } = await guardedWorkspace()
    const rows = parse(await exportCsv(token), { columns: true }) as Record<string, string>[]
    expect(rows.every((row) => row.outlet_code.startsWith("'"))).toBe(true)
    expect(rows.every((row) => row.assignee_emails.startsWith("'-"))).toBe(true)
    const projects = await t.app.db.pragma(`SELECT id, code FROM projects WHERE workspace_id = ${home.id}`)
    const codeOf = new Map(projects.map((p: Data) => [p.id, p.code]))
    const quote = (text: string) => `"${text.replaceAll('"', '""')}"`
    const csv = [
      'outlet_code,project_code,team_name,visit_date,assignee_emails',
      ...rows.map((row) =>
        [row.outlet_code, guardCell(codeOf.get(Number(row.project_id))), row.team_name, row.visit_date, row.assignee_emails].map(quote).join(','),
      ),
    ].join('\n')
    const before = await plans(home.id)
    const reply = await importCsv(csv, token)
    expect(reply.status).toBe(201)
    expect(reply.body.data.count).toBe(made.length)
    expect(await plans(home.id)).toEqual([...before, ...before].sort())
  })

  test('a name that only starts with `\'` keeps it: "\'quoted" does not match a team "quoted"', async () => {
    const home = await t.app.workspace()
    const token = home.owner.token
    await create('/office/v1/teams', { name: 'quoted' }, token)
    const outlet = await create('/office/v1/outlets', { name: 'Shop', code: unique('O') }, token)
    const work = await create('/office/v1/projects', { name: 'Work', code: unique('P') }, token)
    const csv = `outlet_id,project_id,team_name,visit_date\n${outlet.id},${work.id},'quoted,2026-12-01\n`
    const before = await snapshot()
    expect(expectError(await importCsv(csv, token), 400, 'VALIDATION_ERROR')).toEqual({ 'rows.2.team_name': ['no team with this name'] })
    expect(await snapshot()).toEqual(before)
  })

  test("another workspace's export does not import as is into a fresh workspace: 400 naming its ids and names, nothing written", async () => {
    const { token } = await guardedWorkspace()
    const csv = await exportCsv(token)
    const fresh = await t.app.workspace()
    const before = await snapshot()
    const errors = expectError(await importCsv(csv, fresh.owner.token), 400, 'VALIDATION_ERROR')
    // Names and emails are looked up first; they are the other workspace's.
    expect(Object.keys(errors)).toEqual(expect.arrayContaining(['rows.2.team_name', 'rows.2.assignee_emails']))
    expect(Object.keys(errors).every((key) => /^rows\.\d+\.(team_name|assignee_emails)$/.test(key))).toBe(true)
    // Without them, its outlet and project ids are the other workspace's too.
    const idsOnly = (parse(csv, { columns: true }) as Record<string, string>[]).map((row) => `${row.outlet_id},${row.project_id},${row.visit_date}`)
    const second = expectError(await importCsv(['outlet_id,project_id,visit_date', ...idsOnly].join('\n'), fresh.owner.token), 400, 'VALIDATION_ERROR')
    expect(Object.keys(second)).toEqual(expect.arrayContaining(['rows.2.outlet_id', 'rows.2.project_id']))
    expect(await snapshot()).toEqual(before)
  })

  test('over a real socket: the exported bytes, posted back as text/csv, import', async () => {
    const { home, token, made } = await guardedWorkspace()
    const server = t.app.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const base = `http://127.0.0.1:${server.server!.port}/api`
      const exported = await fetch(`${base}/office/v1/visits/export`, { headers: { authorization: `Bearer ${token}` } })
      expect(exported.status).toBe(200)
      const bytes = await exported.arrayBuffer()
      const imported = await fetch(`${base}/office/v1/visits/import`, {
        method: 'POST',
        body: bytes,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
      })
      expect(imported.status).toBe(201)
      expect((await imported.json()).data.count).toBe(made.length)
      expect(await t.app.count('visits', `workspace_id = ${home.id}`)).toBe(2 * made.length)
    } finally {
      await t.app.app.stop(true)
    }
  })
})
