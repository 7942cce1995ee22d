/**
 * Forms (docs/API.md §Other areas, §Envelopes, §Errors): the field types and their rules, update,
 * delete and list.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { ids, textField, onWorkspace } from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let field: Session
const token = () => ws.owner.token

const OFFICE = '/office/v1'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const { newForm, newProject } = onWorkspace(t, () => ws)

beforeAll(async () => {
  ws = await t.app.workspace()
  field = await t.app.member(ws, 'user')
})

const ALL_TYPES = [
  { key: 'shop_name', label: 'Shop name', type: 'text', required: true, max: 100 },
  { key: 'remarks', label: 'Remarks', type: 'textarea' },
  { key: 'price', label: 'Price', type: 'number', min: 0 },
  { key: 'facings', label: 'Facings', type: 'integer', min: 0, max: 50 },
  { key: 'display', label: 'Display', type: 'select', options: ['Shelf', 'Chiller'] },
  { key: 'brands', label: 'Brands', type: 'multiselect', options: ['A', 'B', 'C'], max: 2 },
  { key: 'has_poster', label: 'Poster?', type: 'checkbox' },
  { key: 'expiry', label: 'Expiry date', type: 'date' },
  { key: 'opened_at', label: 'Opening time', type: 'time' },
  { key: 'shelf_photo', label: 'Shelf photo', type: 'photo', required: true },
  { key: 'owner_signature', label: 'Signature', type: 'signature' },
  { key: 'gps', label: 'Location', type: 'location' },
  { key: 'satisfaction', label: 'Satisfaction', type: 'rating', max: 5 },
]

describe('forms: fields', () => {
  const post = (fields: unknown) => t.app.post(`${OFFICE}/forms`, { title: unique('Form'), fields }, { token: token() })
  const refused = async (fields: unknown) => {
    const before = await t.app.count('forms')
    const errors = expectError(await post(fields), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('forms')).toBe(before)
    return errors
  }

  test('a form with a field of every type is created: 201 FORM_CREATED, fields kept in order, required defaults to false', async () => {
    const reply = await t.app.post(`${OFFICE}/forms`, { title: 'Shelf Audit', description: 'Monthly', fields: ALL_TYPES }, { token: token() })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ success: true, code: 'FORM_CREATED' })
    const form = reply.body.data
    expect(form).toMatchObject({ workspace_id: ws.id, title: 'Shelf Audit', description: 'Monthly', deleted_at: null })
    expect(form.fields).toEqual(ALL_TYPES.map((f) => ({ required: false, ...f })))
    expect(form).not.toHaveProperty('title_key')
    expect((await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() })).body.data).toEqual(form)
    expect((await t.app.get(`/app/v1/forms/${form.id}`, { token: field.token })).body.data).toEqual(form)
  })

  test('a field key must be lower snake case: 400 with errors["fields.N.key"]', async () => {
    for (const key of ['Shop', '1st', 'shop-name', 'shop name', '_x', '']) {
      const errors = await refused([textField('ok_key'), textField(key)])
      expect(errors['fields.1.key']).toBeArray()
    }
  })

  test('duplicate keys: 400 with errors["fields.1.key"]', async () => {
    const errors = await refused([textField('same'), { key: 'same', label: 'Again', type: 'number' }])
    expect(errors['fields.1.key']).toBeArray()
    expect(errors['fields.0.key']).toBeUndefined()
  })

  test('select and multiselect need options: 400 with errors["fields.N.options"]', async () => {
    for (const type of ['select', 'multiselect']) {
      const errors = await refused([textField('a'), { key: 'choice', label: 'Choice', type }])
      expect(errors['fields.1.options']).toBeArray()
      const empty = await refused([{ key: 'choice', label: 'Choice', type, options: [] }])
      expect(empty['fields.0.options']).toBeArray()
    }
  })

  test('options on a text field: 400 with errors["fields.N.options"]', async () => {
    const errors = await refused([{ key: 'name', label: 'Name', type: 'text', options: ['a'] }])
    expect(errors['fields.0.options']).toBeArray()
  })

  test('min above max: 400', async () => {
    const errors = await refused([{ key: 'qty', label: 'Qty', type: 'integer', min: 10, max: 5 }])
    expect(Object.keys(errors).some((key) => key.startsWith('fields.0.'))).toBe(true)
  })

  test('an unknown type: 400 with errors["fields.N.type"]', async () => {
    const errors = await refused([textField('a'), { key: 'colour', label: 'Colour', type: 'colour' }])
    expect(errors['fields.1.type']).toBeArray()
  })

  test('an empty or missing fields list: 400 with errors.fields', async () => {
    expect((await refused([])).fields).toBeArray()
    const before = await t.app.count('forms')
    const errors = expectError(await t.app.post(`${OFFICE}/forms`, { title: 'No fields' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.fields).toBeArray()
    expect(await t.app.count('forms')).toBe(before)
  })

  test('the same rules apply on update, which changes nothing when refused', async () => {
    const form = await newForm()
    const errors = expectError(
      await t.app.put(`${OFFICE}/forms/${form.id}`, { fields: [textField('a'), textField('a')] }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['fields.1.key']).toBeArray()
    expect((await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() })).body.data).toEqual(form)
  })
})

describe('forms: update, delete and list', () => {
  test('update replaces the fields: FORM_UPDATED', async () => {
    const form = await newForm({ fields: [textField('old_one'), textField('old_two')] })
    const fields = [{ key: 'fresh', label: 'Fresh', type: 'checkbox', required: true }]
    const reply = await t.app.put(`${OFFICE}/forms/${form.id}`, { fields }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('FORM_UPDATED')
    expect(reply.body.data.fields).toEqual(fields)
    expect(reply.body.data.title).toBe(form.title)
    expect((await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() })).body.data.fields).toEqual(fields)
  })

  test('a form used by a live project cannot be deleted: 409 FORM_IN_USE with errors.project_count; allowed once the projects are deleted', async () => {
    const form = await newForm()
    const p1 = await newProject({ forms: [{ form_id: form.id, is_required: true }] })
    const p2 = await newProject({ forms: [{ form_id: form.id, is_required: false }] })
    const errors = expectError(await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() }), 409, 'FORM_IN_USE')
    expect(errors.project_count).toBe(2)
    expect(await t.app.count('forms', `id = ${form.id} AND deleted_at IS NULL`)).toBe(1)
    expect((await t.app.delete(`${OFFICE}/projects/${p1.id}`, { token: token() })).status).toBe(200)
    expect(expectError(await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() }), 409, 'FORM_IN_USE').project_count).toBe(1)
    expect((await t.app.delete(`${OFFICE}/projects/${p2.id}`, { token: token() })).status).toBe(200)
    const reply = await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('FORM_DELETED')
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    expectError(await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() }), 404, 'FORM_NOT_FOUND')
  })

  test('keyword filters on title case-insensitively; default limit 10', async () => {
    const tag = unique('kw').toLowerCase()
    const a = await newForm({ title: `Shelf ${tag.toUpperCase()} Audit` })
    const b = await newForm({ title: `Price ${tag} check` })
    await newForm({ title: unique('Unrelated') })
    const reply = await t.app.get(`${OFFICE}/forms?keyword=${tag}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LIST_OK')
    expect(ids(reply.body.data).sort()).toEqual([a.id, b.id].sort())
    expect(reply.body.meta).toEqual({ page: 1, limit: 10, total: 2, total_pages: 1 })
    const mobile = await t.app.get(`/app/v1/forms?keyword=${tag}`, { token: field.token })
    expect(mobile.status).toBe(200)
    expect(ids(mobile.body.data).sort()).toEqual([a.id, b.id].sort())
  })

  test('the mobile forms routes are read-only', async () => {
    expectError(await t.app.post('/app/v1/forms', { title: 'x', fields: [textField()] }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
  })
})
