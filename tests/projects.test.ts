/**
 * Projects (docs/API.md §Other areas, §Envelopes, §Errors): the forms a project asks for, its fields,
 * and delete.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { ids, type Row, onWorkspace } from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let other: Workspace
let field: Session
const token = () => ws.owner.token

const OFFICE = '/office/v1'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const { newOutlet, newForm, newProject, newVisit, cancelVisit } = onWorkspace(t, () => ws)

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  field = await t.app.member(ws, 'user')
})

describe('projects: forms', () => {
  test('forms are attached and returned in their order with titles: 201 PROJECT_CREATED', async () => {
    const fa = await newForm({ title: 'Form A' })
    const fb = await newForm({ title: 'Form B' })
    const fc = await newForm({ title: 'Form C' })
    const reply = await t.app.post(
      `${OFFICE}/projects`,
      {
        name: 'Display Audit',
        forms: [
          { form_id: fa.id, is_required: false, order: 2 },
          { form_id: fb.id, is_required: true, order: 3 },
          { form_id: fc.id, is_required: true, order: 1 },
        ],
      },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('PROJECT_CREATED')
    const expected = [
      { form_id: fc.id, title: 'Form C', is_required: true, order: 1 },
      { form_id: fa.id, title: 'Form A', is_required: false, order: 2 },
      { form_id: fb.id, title: 'Form B', is_required: true, order: 3 },
    ]
    expect(reply.body.data.forms).toEqual(expected)
    expect((await t.app.get(`${OFFICE}/projects/${reply.body.data.id}`, { token: token() })).body.data.forms).toEqual(expected)
    expect((await t.app.get(`/app/v1/projects/${reply.body.data.id}`, { token: field.token })).body.data.forms).toEqual(expected)
    expect(await t.app.count('project_forms', `project_id = ${reply.body.data.id}`)).toBe(3)
  })

  test('without order the forms keep the order they were listed in', async () => {
    const f1 = await newForm()
    const f2 = await newForm()
    const project = await newProject({
      forms: [
        { form_id: f2.id, is_required: true },
        { form_id: f1.id, is_required: false },
      ],
    })
    expect(project.forms.map((f: Row) => f.form_id)).toEqual([f2.id, f1.id])
  })

  test('an unknown, foreign or deleted form is a 400 with errors["forms.N.form_id"]; nothing stored', async () => {
    const mine = await newForm()
    const foreign = await newForm({}, other.owner.token)
    const deleted = await newForm()
    expect((await t.app.delete(`${OFFICE}/forms/${deleted.id}`, { token: token() })).status).toBe(200)
    const before = await t.app.count('projects')
    for (const id of [987_654_321, foreign.id, deleted.id]) {
      const errors = expectError(
        await t.app.post(
          `${OFFICE}/projects`,
          {
            name: 'P',
            forms: [
              { form_id: mine.id, is_required: true },
              { form_id: id, is_required: true },
            ],
          },
          { token: token() },
        ),
        400,
        'VALIDATION_ERROR',
      )
      expect(errors['forms.1.form_id']).toBeArray()
    }
    expect(await t.app.count('projects')).toBe(before)
  })

  test('a form listed twice is a 400 with errors["forms.1.form_id"]', async () => {
    const form = await newForm()
    const before = await t.app.count('projects')
    const errors = expectError(
      await t.app.post(
        `${OFFICE}/projects`,
        {
          name: 'P',
          forms: [
            { form_id: form.id, is_required: true },
            { form_id: form.id, is_required: false },
          ],
        },
        { token: token() },
      ),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['forms.1.form_id']).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
  })

  test('update replaces the forms list', async () => {
    const f1 = await newForm()
    const f2 = await newForm()
    const project = await newProject({ forms: [{ form_id: f1.id, is_required: true }] })
    const reply = await t.app.put(`${OFFICE}/projects/${project.id}`, { forms: [{ form_id: f2.id, is_required: false, order: 0 }] }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('PROJECT_UPDATED')
    expect(reply.body.data.forms).toEqual([{ form_id: f2.id, title: f2.title, is_required: false, order: 0 }])
    expect(await t.app.count('project_forms', `project_id = ${project.id}`)).toBe(1)
  })
})

describe('projects: fields', () => {
  test('code is unique per workspace case-insensitively: 409 PROJECT_ALREADY_EXISTS; another workspace may reuse it', async () => {
    const code = unique('PRJ')
    await newProject({ code })
    const before = await t.app.count('projects')
    const errors = expectError(
      await t.app.post(`${OFFICE}/projects`, { name: 'Dup', code: code.toLowerCase() }, { token: token() }),
      409,
      'PROJECT_ALREADY_EXISTS',
    )
    expect(errors.code).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
    expect((await t.app.post(`${OFFICE}/projects`, { name: 'Elsewhere', code }, { token: other.owner.token })).status).toBe(201)
    const second = await newProject({ code: unique('PRJ') })
    expectError(await t.app.put(`${OFFICE}/projects/${second.id}`, { code }, { token: token() }), 409, 'PROJECT_ALREADY_EXISTS')
  })

  test('end_date before start_date is a 400 with errors.end_date', async () => {
    const before = await t.app.count('projects')
    const errors = expectError(
      await t.app.post(`${OFFICE}/projects`, { name: 'P', start_date: '2026-03-10', end_date: '2026-03-09' }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors.end_date).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
    const sameDay = await newProject({ start_date: '2026-03-10', end_date: '2026-03-10' })
    expect([sameDay.start_date, sameDay.end_date]).toEqual(['2026-03-10', '2026-03-10'])
  })

  test('on update, changing only one of the dates is checked against the stored other one', async () => {
    const project = await newProject({ start_date: '2026-03-01', end_date: '2026-03-31' })
    const early = expectError(await t.app.put(`${OFFICE}/projects/${project.id}`, { end_date: '2026-02-28' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(early.end_date).toBeArray()
    const late = expectError(await t.app.put(`${OFFICE}/projects/${project.id}`, { start_date: '2026-04-01' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(late.end_date).toBeArray()
    const stored = (await t.app.get(`${OFFICE}/projects/${project.id}`, { token: token() })).body.data
    expect([stored.start_date, stored.end_date]).toEqual(['2026-03-01', '2026-03-31'])
    expect((await t.app.put(`${OFFICE}/projects/${project.id}`, { end_date: '2026-04-15' }, { token: token() })).body.data.end_date).toBe('2026-04-15')
  })

  test('impossible or malformed dates are a 400 naming the field', async () => {
    const before = await t.app.count('projects')
    for (const [start_date, fieldName] of [
      ['2026-02-30', 'start_date'],
      ['2026-13-01', 'start_date'],
      ['2026-2-3', 'start_date'],
      ['2026-03-01T00:00:00Z', 'start_date'],
    ]) {
      const errors = expectError(await t.app.post(`${OFFICE}/projects`, { name: 'P', start_date }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors[fieldName]).toBeArray()
    }
    const errors = expectError(await t.app.post(`${OFFICE}/projects`, { name: 'P', end_date: '2025-02-29' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.end_date).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
    expect((await newProject({ start_date: '2028-02-29' })).start_date).toBe('2028-02-29')
  })

  test('status defaults to active; the list filters by status', async () => {
    const listWs = await t.app.workspace()
    const as = listWs.owner.token
    const active = await newProject({}, as)
    expect(active.status).toBe('active')
    const draft = await newProject({ status: 'draft' }, as)
    const archived = await newProject({ status: 'archived' }, as)
    expect(draft.status).toBe('draft')
    const reply = await t.app.get(`${OFFICE}/projects?status=draft`, { token: as })
    expect(reply.status).toBe(200)
    expect(ids(reply.body.data)).toEqual([draft.id])
    expect(ids((await t.app.get(`${OFFICE}/projects?status=active`, { token: as })).body.data)).toEqual([active.id])
    expect((await t.app.get(`${OFFICE}/projects`, { token: as })).body.meta).toEqual({ page: 1, limit: 10, total: 3, total_pages: 1 })
    expect((await t.app.put(`${OFFICE}/projects/${archived.id}`, { status: 'completed' }, { token: as })).body.data.status).toBe('completed')
    expectError(await t.app.get(`${OFFICE}/projects?status=paused`, { token: as }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.post(`${OFFICE}/projects`, { name: 'P', status: 'paused' }, { token: as }), 400, 'VALIDATION_ERROR')
  })
})

describe('projects: delete', () => {
  test('a scheduled visit blocks the delete: 409 PROJECT_HAS_ACTIVE_VISITS; after cancelling it the delete is soft', async () => {
    const project = await newProject()
    const outlet = await newOutlet()
    const visit = await newVisit(outlet.id, project.id)
    const errors = expectError(await t.app.delete(`${OFFICE}/projects/${project.id}`, { token: token() }), 409, 'PROJECT_HAS_ACTIVE_VISITS')
    expect(errors.visit_count).toBe(1)
    expect(await t.app.count('projects', `id = ${project.id} AND deleted_at IS NULL`)).toBe(1)
    await cancelVisit(visit.id)
    const reply = await t.app.delete(`${OFFICE}/projects/${project.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('PROJECT_DELETED')
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    expectError(await t.app.get(`${OFFICE}/projects/${project.id}`, { token: token() }), 404, 'PROJECT_NOT_FOUND')
  })
})
