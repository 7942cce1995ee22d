/**
 * Skip logic (docs/API.md "Skip logic"): a field's `visible_if` is checked on create and update,
 * and a completed submission hides the fields whose condition is false (not required; an answer
 * for one is refused as "hidden"). Drafts are not checked.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { data, OFFICE, type Row, startVisit, visitSite } from './factories'
import { expectError, type Session, unique, useRealSocket, useTestApp, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let field: Session
const token = () => ws.owner.token

beforeAll(async () => {
  ws = await t.app.workspace()
  field = await t.app.member(ws, 'user')
})

const postForm = (fields: unknown) => t.app.post(`${OFFICE}/forms`, { title: unique('Form'), fields }, { token: token() })
const newForm = async (fields: unknown) => data(await postForm(fields), 201, 'form')

/** A visit of `who` in progress (its project has no forms, so submissions are created by the items). */
async function visitInProgress(who: Session) {
  const { outlet, project } = await visitSite(t.app, token())
  return startVisit(t.app, token(), who, { outlet_id: outlet.id, project_id: project.id })
}

const submit = (visitId: number, formId: number, answers: Row, status: 'completed' | 'draft' = 'completed') =>
  t.app.post(`/app/v1/visits/${visitId}/submit-form-v2`, { form_id: formId, items: [{ submission_id: null, status, answers }] }, { token: field.token })

const SELECT = { key: 'display', label: 'Display', type: 'select', options: ['Shelf', 'Chiller', 'None'] }

describe('skip logic: definitions', () => {
  const refused = async (fields: unknown, path: string, says: string | RegExp) => {
    const before = await t.app.count('forms')
    const errors = expectError(await postForm(fields), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toContain(path)
    expect((errors[path] as string[]).join(' ')).toMatch(says)
    expect(await t.app.count('forms')).toBe(before)
  }
  const dependent = (visible_if: unknown, extra: Row = {}) => ({ key: 'dep', label: 'Dependent', type: 'text', visible_if, ...extra })
  const on = (control: Row, visible_if: unknown) => [control, dependent(visible_if)]

  const NUMBER = { key: 'price', label: 'Price', type: 'number' }
  const INTEGER = { key: 'facings', label: 'Facings', type: 'integer' }
  const RATING = { key: 'score', label: 'Score', type: 'rating' }
  const DATE = { key: 'expiry', label: 'Expiry', type: 'date' }
  const TIME = { key: 'opened', label: 'Opened', type: 'time' }
  const TEXT = { key: 'shop', label: 'Shop', type: 'text' }
  const CHECKBOX = { key: 'poster', label: 'Poster', type: 'checkbox' }
  const MULTI = { key: 'brands', label: 'Brands', type: 'multiselect', options: ['A', 'B', 'C'] }
  const PHOTO = { key: 'shelf', label: 'Shelf photo', type: 'photo' }
  const SIGNATURE = { key: 'sign', label: 'Signature', type: 'signature' }
  const LOCATION = { key: 'gps', label: 'GPS', type: 'location' }

  const CASES: [string, unknown[], string, string | RegExp][] = [
    ['a self reference', [dependent({ field: 'dep', op: 'answered' })], 'fields.0.visible_if', 'itself'],
    ['an unknown field', [SELECT, dependent({ field: 'nope', op: 'answered' })], 'fields.1.visible_if', 'not a field of this form'],
    ['a forward reference', [dependent({ field: 'display', op: 'eq', value: 'Shelf' }), SELECT], 'fields.0.visible_if', 'earlier field'],
    ['gt on a text field', on(TEXT, { field: 'shop', op: 'gt', value: 'a' }), 'fields.1.visible_if', /op "gt" does not fit the text field/],
    ['lte on a select field', on(SELECT, { field: 'display', op: 'lte', value: 'Shelf' }), 'fields.1.visible_if', /does not fit the select/],
    ['gte on a checkbox field', on(CHECKBOX, { field: 'poster', op: 'gte', value: true }), 'fields.1.visible_if', /does not fit/],
    ['lt on a multiselect field', on(MULTI, { field: 'brands', op: 'lt', value: 'A' }), 'fields.1.visible_if', /does not fit/],
    ['eq on a photo field', on(PHOTO, { field: 'shelf', op: 'eq', value: 'x' }), 'fields.1.visible_if', /allowed: answered/],
    ['ne on a signature field', on(SIGNATURE, { field: 'sign', op: 'ne', value: 'x' }), 'fields.1.visible_if', /allowed: answered/],
    ['in on a location field', on(LOCATION, { field: 'gps', op: 'in', value: ['1,2'] }), 'fields.1.visible_if', /allowed: answered/],
    ['eq without a value', on(SELECT, { field: 'display', op: 'eq' }), 'fields.1.visible_if', 'needs a value'],
    ['a value that is not an option of the select', on(SELECT, { field: 'display', op: 'eq', value: 'Floor' }), 'fields.1.visible_if', 'options'],
    ['a value that is not an option of the multiselect', on(MULTI, { field: 'brands', op: 'eq', value: 'Z' }), 'fields.1.visible_if', 'options'],
    ['text compared with a number field', on(NUMBER, { field: 'price', op: 'gt', value: '10' }), 'fields.1.visible_if', 'must be a number'],
    ['a fraction on an integer field', on(INTEGER, { field: 'facings', op: 'gte', value: 2.5 }), 'fields.1.visible_if', 'whole number'],
    ['a fraction on a rating field', on(RATING, { field: 'score', op: 'lt', value: 3.5 }), 'fields.1.visible_if', 'whole number'],
    ['an impossible date', on(DATE, { field: 'expiry', op: 'lt', value: '2026-02-30' }), 'fields.1.visible_if', 'date'],
    ['a time out of range', on(TIME, { field: 'opened', op: 'gt', value: '25:00' }), 'fields.1.visible_if', 'time'],
    ['text on a checkbox field', on(CHECKBOX, { field: 'poster', op: 'eq', value: 'yes' }), 'fields.1.visible_if', 'true or false'],
    ['a number on a text field', on(TEXT, { field: 'shop', op: 'eq', value: 5 }), 'fields.1.visible_if', 'must be text'],
    ['in with a single value', on(SELECT, { field: 'display', op: 'in', value: 'Shelf' }), 'fields.1.visible_if', 'must be a non-empty list'],
    ['in with an empty list', on(SELECT, { field: 'display', op: 'in', value: [] }), 'fields.1.visible_if', 'non-empty list'],
    ['in with one bad item', on(SELECT, { field: 'display', op: 'in', value: ['Shelf', 'Floor'] }), 'fields.1.visible_if', '"Floor"'],
    ['a list for eq', on(SELECT, { field: 'display', op: 'eq', value: ['Shelf'] }), 'fields.1.visible_if', 'single value'],
  ]
  for (const [label, fields, path, says] of CASES) {
    test(`${label} → 400 VALIDATION_ERROR at ${path}, nothing stored`, () => refused(fields, path, says))
  }

  test('schema errors name the property under visible_if: unknown op, wrong types, an object value', async () => {
    for (const visible_if of [
      { field: 'display', op: 'between', value: 'Shelf' },
      { field: 'display', op: 'eq', value: { a: 1 } },
      { field: 7, op: 'eq', value: 'Shelf' },
      'display == Shelf',
      { op: 'answered' },
    ]) {
      const errors = expectError(await postForm(on(SELECT, visible_if)), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors).some((key) => key.startsWith('fields.1.visible_if'))).toBe(true)
    }
  })

  test('every op a type allows is accepted; stored trimmed, and `answered` drops its value', async () => {
    const ORDERED_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']
    const ALLOWED: [Row, unknown, string[]][] = [
      [NUMBER, 9.5, ORDERED_OPS],
      [INTEGER, 3, ORDERED_OPS],
      [RATING, 4, ORDERED_OPS],
      [DATE, '2026-11-26', ORDERED_OPS],
      [TIME, '09:30', ORDERED_OPS],
      [TEXT, 'Toko', ['eq', 'ne']],
      [SELECT, 'Shelf', ['eq', 'ne']],
      [CHECKBOX, true, ['eq', 'ne']],
      [MULTI, 'A', ['eq', 'ne']],
    ]
    for (const [control, value, ops] of ALLOWED) {
      const fields = [
        control,
        ...ops.map((op) => ({ key: `d_${op}`, label: op, type: 'text', visible_if: { field: control.key, op, value } })),
        { key: 'd_in', label: 'in', type: 'text', visible_if: { field: control.key, op: 'in', value: [value] } },
        { key: 'd_answered', label: 'answered', type: 'text', visible_if: { field: control.key, op: 'answered', value: 'ignored' } },
      ]
      const form = await newForm(fields)
      expect(form.fields.at(-1).visible_if).toEqual({ field: control.key, op: 'answered' })
      expect(form.fields[1].visible_if).toEqual({ field: control.key, op: ops[0], value })
    }
    for (const control of [PHOTO, SIGNATURE, LOCATION]) await newForm(on(control, { field: control.key, op: 'answered' }))
    const trimmed = await newForm(on(SELECT, { field: 'display', op: 'in', value: ['  Shelf ', 'None'] }))
    expect(trimmed.fields[1].visible_if).toEqual({ field: 'display', op: 'in', value: ['Shelf', 'None'] })
  })

  test('PUT checks visible_if too: a forward reference is refused and the form is unchanged; a good one is stored', async () => {
    const form = await newForm([SELECT, { key: 'why', label: 'Why', type: 'text' }])
    const put = (fields: unknown) => t.app.put(`${OFFICE}/forms/${form.id}`, { fields }, { token: token() })
    const errors = expectError(
      await put([
        { ...SELECT, visible_if: { field: 'why', op: 'answered' } },
        { key: 'why', label: 'Why', type: 'text' },
      ]),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['fields.0.visible_if']).toEqual(['must refer to an earlier field: "why" comes after this one'])
    expect(data(await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() }), 200).fields).toEqual(form.fields)
    const updated = data(await put([SELECT, dependent({ field: 'display', op: 'ne', value: 'None' })]), 200)
    expect(updated.fields[1].visible_if).toEqual({ field: 'display', op: 'ne', value: 'None' })
  })

  test('the OpenAPI document shows visible_if as the named schema FormFieldCondition, in the form and in its input', async () => {
    const doc = (await t.app.get('/docs/json')).body
    const condition = doc.components.schemas.FormFieldCondition
    expect(Object.keys(condition.properties).sort()).toEqual(['field', 'op', 'value'])
    expect(condition.required.sort()).toEqual(['field', 'op'])
    const form = doc.components.schemas.Form
    expect(form.properties.fields.items.properties.visible_if).toEqual({ $ref: '#/components/schemas/FormFieldCondition' })
    expect(JSON.stringify(doc.paths['/api/office/v1/forms'].post.requestBody)).toContain('#/components/schemas/FormFieldCondition')
  })
})

describe('skip logic: answers of a completed submission', () => {
  let visit: Row
  beforeAll(async () => {
    visit = await visitInProgress(field)
  })
  const submissionsOfVisit = () => t.app.count('submissions', `visit_id = ${visit.id}`)

  /**
   * Each op on each comparable type: one form per case whose dependents (each required, one per
   * condition) are required exactly when shown, so the "is required" errors of a completed item with
   * only the control answered are the shown dependents.
   */
  type Case = { control: Row; answer: unknown; conditions: [op: string, value: unknown, shown: boolean][] }
  const CASES: Case[] = [
    {
      control: { key: 'c', label: 'C', type: 'number' },
      answer: 10,
      conditions: [
        ['eq', 10, true],
        ['eq', 9.5, false],
        ['ne', 10, false],
        ['ne', 3, true],
        ['in', [1, 10], true],
        ['in', [1, 2], false],
        ['gt', 9.5, true],
        ['gt', 10, false],
        ['gte', 10, true],
        ['gte', 11, false],
        ['lt', 11, true],
        ['lt', 10, false],
        ['lte', 10, true],
        ['lte', 9, false],
        ['answered', undefined, true],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'integer' },
      answer: 3,
      conditions: [
        ['eq', 3, true],
        ['ne', 3, false],
        ['in', [2, 3], true],
        ['gt', 2, true],
        ['gte', 4, false],
        ['lt', 3, false],
        ['lte', 3, true],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'rating' },
      answer: 2,
      conditions: [
        ['eq', 2, true],
        ['ne', 5, true],
        ['in', [4, 5], false],
        ['gt', 2, false],
        ['gte', 2, true],
        ['lt', 3, true],
        ['lte', 1, false],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'date' },
      answer: '2026-11-26',
      conditions: [
        ['eq', '2026-11-26', true],
        ['ne', '2026-11-26', false],
        ['in', ['2026-01-01'], false],
        ['gt', '2026-11-25', true],
        ['gte', '2026-11-27', false],
        ['lt', '2027-01-01', true],
        ['lte', '2026-11-25', false],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'time' },
      answer: '09:30',
      conditions: [
        ['eq', '09:30:00', true],
        ['ne', '09:30', false],
        ['in', ['08:00', '09:30'], true],
        ['gt', '09:29:59', true],
        ['gte', '09:30:01', false],
        ['lt', '10:00', true],
        ['lte', '09:00', false],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'text' },
      answer: '  Toko Maju ',
      conditions: [
        ['eq', 'Toko Maju', true],
        ['eq', 'toko maju', false],
        ['ne', 'Other', true],
        ['in', ['A', 'Toko Maju'], true],
        ['in', ['A'], false],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'textarea' },
      answer: 'broken',
      conditions: [
        ['eq', 'broken', true],
        ['ne', 'broken', false],
        ['in', ['fine'], false],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'select', options: ['Shelf', 'Chiller', 'None'] },
      answer: 'Chiller',
      conditions: [
        ['eq', 'Chiller', true],
        ['eq', 'Shelf', false],
        ['ne', 'None', true],
        ['in', ['Shelf', 'Chiller'], true],
        ['in', ['None'], false],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'checkbox' },
      answer: false,
      conditions: [
        ['eq', false, true],
        ['eq', true, false],
        ['ne', true, true],
        ['in', [true], false],
        ['answered', undefined, true],
      ],
    },
    {
      control: { key: 'c', label: 'C', type: 'multiselect', options: ['A', 'B', 'C'] },
      answer: ['A', 'C'],
      conditions: [
        ['eq', 'A', true],
        ['eq', 'B', false],
        ['ne', 'B', true],
        ['ne', 'C', false],
        ['in', ['B', 'C'], true],
        ['in', ['B'], false],
        ['answered', undefined, true],
      ],
    },
  ]
  for (const { control, answer, conditions } of CASES) {
    test(`${control.type} answered ${JSON.stringify(answer)}: each op shows exactly the dependents whose condition holds`, async () => {
      const form = await newForm([
        control,
        ...conditions.map(([op, value], index) => ({
          key: `d${index}`,
          label: `${op} ${JSON.stringify(value)}`,
          type: 'text',
          required: true,
          visible_if: { field: 'c', op, ...(value === undefined ? {} : { value }) },
        })),
      ])
      const errors = expectError(await submit(visit.id, form.id, { c: answer }), 400, 'VALIDATION_ERROR')
      const shown = conditions.flatMap(([op, value, isShown]) => (isShown ? [`${op} ${JSON.stringify(value)}`] : []))
      const required = Object.keys(errors).map((key) => conditions[Number(key.replace('items.0.answers.d', ''))])
      expect(required.map(([op, value]) => `${op} ${JSON.stringify(value)}`)).toEqual(shown)
      for (const messages of Object.values(errors)) expect(messages).toEqual(['is required'])
    })
  }

  test('an unanswered controlling field makes every op but ne false', async () => {
    const ops: [string, unknown][] = [
      ['eq', 5],
      ['ne', 5],
      ['in', [5]],
      ['gt', 1],
      ['gte', 1],
      ['lt', 9],
      ['lte', 9],
      ['answered', undefined],
    ]
    const form = await newForm([
      { key: 'c', label: 'C', type: 'integer' },
      ...ops.map(([op, value]) => ({ key: `d_${op}`, label: op, type: 'text', required: true, visible_if: { field: 'c', op, value } })),
    ])
    for (const unanswered of [{}, { c: null }]) {
      expect(expectError(await submit(visit.id, form.id, unanswered), 400, 'VALIDATION_ERROR')).toEqual({ 'items.0.answers.d_ne': ['is required'] })
    }
  })

  test('a required field that is hidden is not required: the submission completes without it', async () => {
    const form = await newForm([
      SELECT,
      { key: 'chiller_temp', label: 'Temp', type: 'number', required: true, visible_if: { field: 'display', op: 'eq', value: 'Chiller' } },
    ])
    const saved = data(await submit(visit.id, form.id, { display: 'Shelf' }), 200).submissions[0]
    expect(saved).toMatchObject({ status: 'completed', answers: { display: 'Shelf' } })
    // Shown, it is required again.
    expect(expectError(await submit(visit.id, form.id, { display: 'Chiller' }), 400, 'VALIDATION_ERROR')).toEqual({
      'items.0.answers.chiller_temp': ['is required'],
    })
    // A blank answer (null, "", []) for a hidden field is no answer.
    expect(data(await submit(visit.id, form.id, { display: 'None', chiller_temp: null }), 200).submissions[0].answers).toEqual({ display: 'None' })
  })

  const chainForm = () =>
    newForm([
      { key: 'has_chiller', label: 'Chiller?', type: 'checkbox', required: true },
      { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'], required: true, visible_if: { field: 'has_chiller', op: 'eq', value: true } },
      { key: 'other', label: 'Other brand', type: 'text', required: true, visible_if: { field: 'brand', op: 'ne', value: 'A' } },
      { key: 'photo_note', label: 'Note', type: 'text', visible_if: { field: 'other', op: 'answered' } },
    ])

  test('a field hidden by a hidden field is hidden, even under ne (which an unanswered field would satisfy)', async () => {
    const form = await chainForm()
    const saved = data(await submit(visit.id, form.id, { has_chiller: false }), 200).submissions[0]
    expect(saved.answers).toEqual({ has_chiller: false })
    const errors = expectError(await submit(visit.id, form.id, { has_chiller: false, other: 'C', photo_note: 'n' }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors).sort()).toEqual(['items.0.answers.other', 'items.0.answers.photo_note'])
    expect(String(errors['items.0.answers.other'])).toContain('hidden')
    // Shown down the chain: brand B shows other, other answered shows the note.
    const shown = data(await submit(visit.id, form.id, { has_chiller: true, brand: 'B', other: 'C', photo_note: 'n' }), 200).submissions[0]
    expect(shown.answers).toEqual({ has_chiller: true, brand: 'B', other: 'C', photo_note: 'n' })
  })

  test('an answer to a hidden field → 400 saying "hidden" at items.N.answers.<key>; nothing written', async () => {
    const form = await chainForm()
    const before = { submissions: await submissionsOfVisit(), audit: await t.app.count('audit_logs', "entity_type = 'submission'") }
    const reply = await t.app.post(
      `/app/v1/visits/${visit.id}/submit-form-v2`,
      {
        form_id: form.id,
        items: [
          { submission_id: null, status: 'completed', answers: { has_chiller: true, brand: 'B', other: 'C' } },
          { submission_id: null, status: 'completed', answers: { has_chiller: true, brand: 'A', other: 'C' } },
        ],
      },
      { token: field.token },
    )
    expect(expectError(reply, 400, 'VALIDATION_ERROR')).toEqual({
      'items.1.answers.other': ['is hidden (shown only when brand ne "A"): send no answer for it'],
    })
    expect(await submissionsOfVisit()).toBe(before.submissions)
    expect(await t.app.count('audit_logs', "entity_type = 'submission'")).toBe(before.audit)
  })

  test('the legacy submit-form applies the same rule, at answers.<key>', async () => {
    const form = await chainForm()
    const before = await submissionsOfVisit()
    const legacy = (answers: Row) => t.app.post(`/app/v1/visits/${visit.id}/submit-form`, { form_id: form.id, answers }, { token: field.token })
    const errors = expectError(await legacy({ has_chiller: false, brand: 'A' }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(['answers.brand'])
    expect(String(errors['answers.brand'])).toContain('hidden')
    expect(await submissionsOfVisit()).toBe(before)
    expect(data(await legacy({ has_chiller: false }), 200).submissions[0]).toMatchObject({ status: 'completed', answers: { has_chiller: false } })
  })

  test('drafts are not checked: a draft keeps an answer to a field its condition would hide', async () => {
    const form = await chainForm()
    const draft = data(await submit(visit.id, form.id, { has_chiller: false, brand: 'A' }, 'draft'), 200).submissions[0]
    expect(draft).toMatchObject({ status: 'draft', answers: { has_chiller: false, brand: 'A' } })
  })

  test('a controlling answer in error is the only error: its dependents are neither required nor hidden', async () => {
    const form = await chainForm()
    expect(expectError(await submit(visit.id, form.id, { has_chiller: 'yes', brand: 'A' }), 400, 'VALIDATION_ERROR')).toEqual({
      'items.0.answers.has_chiller': ['must be true or false'],
    })
  })

  test('the example of docs/API.md "Skip logic" behaves as documented', async () => {
    const form = await newForm([
      { key: 'has_chiller', label: 'Chiller in the outlet?', type: 'checkbox', required: true },
      {
        key: 'chiller_brand',
        label: 'Chiller brand',
        type: 'select',
        options: ['Ours', 'Other'],
        required: true,
        visible_if: { field: 'has_chiller', op: 'eq', value: true },
      },
      { key: 'chiller_photo', label: 'Photo', type: 'photo', required: true, visible_if: { field: 'chiller_brand', op: 'eq', value: 'Other' } },
    ])
    expect(data(await submit(visit.id, form.id, { has_chiller: false }), 200).submissions[0].answers).toEqual({ has_chiller: false })
    expect(expectError(await submit(visit.id, form.id, { has_chiller: false, chiller_brand: 'Ours' }), 400, 'VALIDATION_ERROR')).toEqual({
      'items.0.answers.chiller_brand': ['is hidden (shown only when has_chiller eq true): send no answer for it'],
    })
    expect(expectError(await submit(visit.id, form.id, { has_chiller: true, chiller_brand: 'Other' }), 400, 'VALIDATION_ERROR')).toEqual({
      'items.0.answers.chiller_photo': ['is required'],
    })
  })

  test('a form created without visible_if behaves as before: required keys, types, stored fields without visible_if', async () => {
    const form = await newForm([SELECT, { key: 'facings', label: 'Facings', type: 'integer', required: true }])
    expect(form.fields.every((f: Row) => !('visible_if' in f))).toBe(true)
    expect(expectError(await submit(visit.id, form.id, { display: 'Shelf' }), 400, 'VALIDATION_ERROR')).toEqual({ 'items.0.answers.facings': ['is required'] })
    expect(data(await submit(visit.id, form.id, { display: 'None', facings: 2 }), 200).submissions[0].answers).toEqual({ display: 'None', facings: 2 })
  })
})

describe('skip logic over a real socket', () => {
  const socket = useRealSocket(t)
  test('an answer to a hidden field is refused over HTTP with the error envelope; the allowed answer set is accepted', async () => {
    const other = await t.app.member(ws, 'user')
    const visit = await visitInProgress(other)
    const form = await newForm([
      SELECT,
      { key: 'temp', label: 'Temp', type: 'number', required: true, visible_if: { field: 'display', op: 'eq', value: 'Chiller' } },
    ])
    const send = (answers: Row) =>
      fetch(`${socket.base}/app/v1/visits/${visit.id}/submit-form-v2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${other.token}` },
        body: JSON.stringify({ form_id: form.id, items: [{ submission_id: null, status: 'completed', answers }] }),
      })
    const refused = await send({ display: 'Shelf', temp: 4 })
    expect(refused.status).toBe(400)
    const body = (await refused.json()) as Row
    expect(body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' })
    expect(body.errors['items.0.answers.temp'][0]).toContain('hidden')
    const accepted = await send({ display: 'Shelf' })
    expect(accepted.status).toBe(200)
  })
})
