/**
 * Product matrix (docs/API.md "Product matrix"): the definition (products of the workspace, 1–10
 * columns with fitting bounds and options), its rows frozen on the submission at check-in, and its
 * answers checked against those rows.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { checkIn, data, HERE, newOutlet, newPrincipal, newProduct, newProject, newVisit, OFFICE, type Row } from './factories'
import { expectError, type Session, unique, useTestApp, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let other: Workspace
const token = () => ws.owner.token

let principal: Row
let products: Row[]
let foreignPrincipal: Row
let foreignProduct: Row
let deletedProduct: Row

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()

  principal = await newPrincipal(t.app, token())
  // Created out of sku order: the rows come by sku, then id.
  products = []
  for (const sku of ['C-300', 'A-100', 'B-200']) products.push(await newProduct(t.app, token(), { sku: `${sku}-${unique('s')}`, principal_id: principal.id }))
  foreignPrincipal = await newPrincipal(t.app, other.owner.token)
  foreignProduct = await newProduct(t.app, other.owner.token)
  deletedProduct = await newProduct(t.app, token())
  data(await t.app.delete(`${OFFICE}/products/${deletedProduct.id}`, { token: token() }), 200, 'delete product')
})

const postForm = (fields: unknown) => t.app.post(`${OFFICE}/forms`, { title: unique('Form'), fields }, { token: token() })

const COLUMNS = [
  { key: 'available', label: 'Available', type: 'checkbox', required: true },
  { key: 'facings', label: 'Facings', type: 'integer', min: 0, max: 50 },
  { key: 'shelf_price', label: 'Shelf price', type: 'number', min: 0 },
  { key: 'stock_qty', label: 'Stock', type: 'integer', min: 0 },
  { key: 'display', label: 'Display', type: 'select', options: ['Shelf', 'Chiller'] },
]
const matrix = (extra: Row = {}) => ({
  key: 'shelf',
  label: 'Shelf audit',
  type: 'product_matrix',
  products: { principal_id: principal.id },
  columns: COLUMNS,
  ...extra,
})

describe('product matrix: definitions', () => {
  test('a matrix by principal and one by listed products are stored as given (columns normalized)', async () => {
    const form = data(
      await postForm([matrix(), matrix({ key: 'listed', products: { product_ids: [products[0].id, products[1].id] }, columns: [COLUMNS[0]] })]),
      201,
      'form',
    )
    expect(form.fields[0]).toEqual({
      key: 'shelf',
      label: 'Shelf audit',
      type: 'product_matrix',
      required: false,
      products: { principal_id: principal.id },
      columns: [
        { key: 'available', label: 'Available', type: 'checkbox', required: true },
        { key: 'facings', label: 'Facings', type: 'integer', required: false, min: 0, max: 50 },
        { key: 'shelf_price', label: 'Shelf price', type: 'number', required: false, min: 0 },
        { key: 'stock_qty', label: 'Stock', type: 'integer', required: false, min: 0 },
        { key: 'display', label: 'Display', type: 'select', required: false, options: ['Shelf', 'Chiller'] },
      ],
    })
    expect(form.fields[1].products).toEqual({ product_ids: [products[0].id, products[1].id] })
  })

  const refused = async (fields: unknown, path: string, says?: string | RegExp) => {
    const before = await t.app.count('forms')
    const errors = expectError(await postForm(fields), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toContain(path)
    if (says) expect((errors[path] as string[]).join(' ')).toMatch(says)
    expect(await t.app.count('forms')).toBe(before)
  }
  const column = (extra: Row) => ({ key: 'c', label: 'C', type: 'integer', ...extra })

  const CASES: [string, () => unknown[], string, (string | RegExp)?][] = [
    ['no products', () => [matrix({ products: undefined })], 'fields.0.products', 'is required'],
    ['no columns', () => [matrix({ columns: undefined })], 'fields.0.columns', 'is required'],
    ['no column at all', () => [matrix({ columns: [] })], 'fields.0.columns'],
    ['eleven columns', () => [matrix({ columns: Array.from({ length: 11 }, (_, i) => column({ key: `c${i}` })) })], 'fields.0.columns'],
    ['a repeated column key', () => [matrix({ columns: [column({}), column({})] })], 'fields.0.columns.1.key', 'another column'],
    ['an unknown column type', () => [matrix({ columns: [column({ type: 'text' })] })], 'fields.0.columns.0.type'],
    ['a select column without options', () => [matrix({ columns: [column({ type: 'select' })] })], 'fields.0.columns.0.options', 'required'],
    ['options on an integer column', () => [matrix({ columns: [column({ options: ['a'] })] })], 'fields.0.columns.0.options', 'only for select'],
    ['repeated options', () => [matrix({ columns: [column({ type: 'select', options: ['a', 'a'] })] })], 'fields.0.columns.0.options', 'repeat'],
    ['min above max', () => [matrix({ columns: [column({ min: 5, max: 1 })] })], 'fields.0.columns.0.max', 'below min'],
    ['bounds on a checkbox column', () => [matrix({ columns: [column({ type: 'checkbox', min: 0 })] })], 'fields.0.columns.0.min', 'integer and number'],
    ['bounds on the matrix itself', () => [matrix({ max: 3 })], 'fields.0.max', 'column'],
    ['options on the matrix itself', () => [matrix({ options: ['a'] })], 'fields.0.options'],
    [
      'products on a text field',
      () => [{ key: 'x', label: 'X', type: 'text', products: { principal_id: principal.id } }],
      'fields.0.products',
      'only for product_matrix',
    ],
    ['columns on a number field', () => [{ key: 'x', label: 'X', type: 'number', columns: COLUMNS }], 'fields.0.columns', 'only for product_matrix'],
    ['another workspace’s principal', () => [matrix({ products: { principal_id: foreignPrincipal.id } })], 'fields.0.products.principal_id', 'does not exist'],
    ['an unknown principal', () => [matrix({ products: { principal_id: 99_999_999 } })], 'fields.0.products.principal_id', 'does not exist'],
    [
      'another workspace’s product',
      () => [matrix({ products: { product_ids: [products[0].id, foreignProduct.id] } })],
      'fields.0.products.product_ids.1',
      'does not exist',
    ],
    ['a deleted product', () => [matrix({ products: { product_ids: [deletedProduct.id] } })], 'fields.0.products.product_ids.0', 'does not exist'],
    ['a product listed twice', () => [matrix({ products: { product_ids: [products[0].id, products[0].id] } })], 'fields.0.products.product_ids.1', 'twice'],
    ['an empty product list', () => [matrix({ products: { product_ids: [] } })], 'fields.0.products'],
    ['both principal and products', () => [matrix({ products: { principal_id: principal.id, product_ids: [products[0].id] } })], 'fields.0.products'],
    [
      'a matrix controlling with eq',
      () => [matrix(), { key: 'why', label: 'Why', type: 'text', visible_if: { field: 'shelf', op: 'eq', value: 'x' } }],
      'fields.1.visible_if',
      /allowed: answered/,
    ],
  ]
  for (const [name, fields, path, says] of CASES) test(`refuses ${name} at ${path}`, () => refused(fields(), path, says))

  test('a matrix may control a field with op answered', async () => {
    data(await postForm([matrix(), { key: 'why', label: 'Why', type: 'text', visible_if: { field: 'shelf', op: 'answered' } }]), 201, 'form')
  })

  test('an update naming a foreign product is refused and changes nothing', async () => {
    const form = data(await postForm([matrix()]), 201, 'form')
    const errors = expectError(
      await t.app.put(`${OFFICE}/forms/${form.id}`, { fields: [matrix({ products: { product_ids: [foreignProduct.id] } })] }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toEqual(['fields.0.products.product_ids.0'])
    expect(data(await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() }), 200, 'form').fields[0].products).toEqual({ principal_id: principal.id })
  })
})

/** The rows a principal's matrix freezes now: its live products by sku, then id. */
const expectedRows = (list: Row[]) =>
  [...list].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : a.id - b.id)).map((p) => ({ product_id: p.id, sku: p.sku, name: p.name }))

/** A matrix form on a project, and a visit planned with it for a new field user `who` (not yet checked in). */
async function plannedMatrixVisit(fields: unknown[] = [matrix()]) {
  const who = await t.app.member(ws, 'user')
  const form = data(await postForm(fields), 201, 'form')
  const project = await newProject(t.app, token(), { forms: [{ form_id: form.id, is_required: true }] })
  const outlet = await newOutlet(t.app, token(), { name: unique('Outlet'), ...HERE })
  const visit = await newVisit(t.app, token(), { outlet_id: outlet.id, project_id: project.id, user_ids: [who.user.id] })
  return { form, visit, who }
}
const visitDetail = async (id: number) => data(await t.app.get(`${OFFICE}/visits/${id}`, { token: token() }), 200, 'visit')

describe('product matrix: rows frozen on the submission', () => {
  test('null before check-in; at check-in the live products of the principal by sku then id, kept through renames and deletions', async () => {
    const { visit, who } = await plannedMatrixVisit()
    expect(visit.submissions[0].rows).toBeNull()
    const checkedIn = data(await checkIn(t.app, visit.id, who), 200, 'check-in')
    const want = { shelf: expectedRows(products) }
    expect(want.shelf.map((row) => row.product_id)).toEqual([products[1].id, products[2].id, products[0].id])
    expect(checkedIn.submissions[0].rows).toEqual(want)
    // Rename one product and delete another: the frozen rows stay as they were.
    data(await t.app.put(`${OFFICE}/products/${products[1].id}`, { name: unique('Renamed') }, { token: token() }), 200, 'rename')
    const doomed = await newProduct(t.app, token(), { principal_id: principal.id })
    data(await t.app.delete(`${OFFICE}/products/${doomed.id}`, { token: token() }), 200, 'delete')
    const submission = data(await t.app.get(`${OFFICE}/visits/submissions/${checkedIn.submissions[0].id}`, { token: token() }), 200, 'submission')
    expect(submission.rows).toEqual(want)
    expect((await visitDetail(visit.id)).submissions[0].rows).toEqual(want)
    // Renamed back for the other tests' expectations.
    data(await t.app.put(`${OFFICE}/products/${products[1].id}`, { name: products[1].name }, { token: token() }), 200, 'rename back')
  })

  test('listed products: only the live ones among them, by sku then id; a form without a matrix freezes {}', async () => {
    const gone = await newProduct(t.app, token(), { sku: `0-${unique('s')}` })
    const { form, visit, who } = await plannedMatrixVisit([matrix({ products: { product_ids: [products[0].id, gone.id, products[2].id] } })])
    data(await t.app.delete(`${OFFICE}/products/${gone.id}`, { token: token() }), 200, 'delete')
    const plain = data(await postForm([{ key: 'notes', label: 'Notes', type: 'text' }]), 201, 'form')
    data(await t.app.post(`${OFFICE}/visits/${visit.id}/submissions`, { form_id: plain.id }, { token: token() }), 201, 'attach before check-in')
    const checkedIn = data(await checkIn(t.app, visit.id, who), 200, 'check-in')
    const byForm = new Map(checkedIn.submissions.map((s: Row) => [s.form_id, s.rows]))
    expect(byForm.get(form.id)).toEqual({ shelf: expectedRows([products[0], products[2]]) })
    expect(byForm.get(plain.id)).toEqual({})
  })

  test('a listed product deleted later: the form keeps working (later rows leave it out); saving its fields again asks to drop it', async () => {
    const doomed = await newProduct(t.app, token(), { principal_id: principal.id })
    const fields = [matrix({ products: { product_ids: [products[0].id, doomed.id] } })]
    const { form, visit, who } = await plannedMatrixVisit(fields)
    data(await t.app.delete(`${OFFICE}/products/${doomed.id}`, { token: token() }), 200, 'delete')
    const checkedIn = data(await checkIn(t.app, visit.id, who), 200, 'check-in')
    expect(checkedIn.submissions[0].rows).toEqual({ shelf: expectedRows([products[0]]) })
    // A title alone changes; the fields as they were name a deleted product, at its place.
    data(await t.app.put(`${OFFICE}/forms/${form.id}`, { title: unique('Renamed') }, { token: token() }), 200, 'rename form')
    const errors = expectError(await t.app.put(`${OFFICE}/forms/${form.id}`, { fields }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors['fields.0.products.product_ids.1']).toEqual([`product ${doomed.id} does not exist`])
  })

  test('a submission attached after check-in, or created by submit-form-v2, freezes its rows when it is created', async () => {
    const { visit, who } = await plannedMatrixVisit([{ key: 'notes', label: 'Notes', type: 'text' }])
    data(await checkIn(t.app, visit.id, who), 200, 'check-in')
    const later = await newProduct(t.app, token(), { principal_id: principal.id })
    const live = [...products, later]
    const form = data(await postForm([matrix()]), 201, 'form')
    const attached = data(await t.app.post(`${OFFICE}/visits/${visit.id}/submissions`, { form_id: form.id }, { token: token() }), 201, 'attach')
    expect(attached.rows).toEqual({ shelf: expectedRows(live) })
    const other = data(await postForm([matrix({ key: 'listed', products: { product_ids: [later.id] } })]), 201, 'form')
    const saved = data(
      await t.app.post(
        `/app/v1/visits/${visit.id}/submit-form-v2`,
        { form_id: other.id, items: [{ submission_id: null, status: 'draft', answers: {} }] },
        { token: who.token },
      ),
      200,
      'submit',
    )
    expect(saved.submissions[0].rows).toEqual({ listed: expectedRows([later]) })
    data(await t.app.delete(`${OFFICE}/products/${later.id}`, { token: token() }), 200, 'delete')
  })
})

describe('product matrix: answers', () => {
  let visit: Row
  let who: Session
  let form: Row
  let a: string
  let b: string
  let c: string
  beforeAll(async () => {
    ;({ visit, who, form } = await plannedMatrixVisit([matrix({ required: true })]))
    data(await checkIn(t.app, visit.id, who), 200, 'check-in')
    ;[a, b, c] = products.map((p) => String(p.id))
  })
  const submit = (answers: Row, status: 'completed' | 'draft' = 'completed') =>
    t.app.post(`/app/v1/visits/${visit.id}/submit-form-v2`, { form_id: form.id, items: [{ submission_id: null, status, answers }] }, { token: who.token })
  const refused = async (answers: Row, path: string, says?: string | RegExp, status: 'completed' | 'draft' = 'completed') => {
    const before = await t.app.count('submissions')
    const errors = expectError(await submit(answers, status), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toContain(path)
    if (says) expect((errors[path] as string[]).join(' ')).toMatch(says)
    expect(await t.app.count('submissions')).toBe(before)
    return errors
  }
  const full = (): Row => ({ [a]: { available: true, facings: 3 }, [b]: { available: false }, [c]: { available: true, display: 'Chiller', shelf_price: 12.5 } })

  test('unknown products and columns and bad cells are refused at answers.<key>.<product_id>[.<column>]', async () => {
    const P = 'items.0.answers.shelf'
    await refused({ shelf: { ...full(), 99999999: { available: true } } }, `${P}.99999999`, 'not a product of this matrix')
    await refused({ shelf: { ...full(), [a]: { available: true, colour: 'red' } } }, `${P}.${a}.colour`, 'not a column')
    await refused({ shelf: { ...full(), [a]: { available: 'yes' } } }, `${P}.${a}.available`, 'true or false')
    await refused({ shelf: { ...full(), [a]: { available: true, facings: 2.5 } } }, `${P}.${a}.facings`, 'whole number')
    await refused({ shelf: { ...full(), [a]: { available: true, facings: 51 } } }, `${P}.${a}.facings`, 'at most 50')
    await refused({ shelf: { ...full(), [a]: { available: true, shelf_price: -1 } } }, `${P}.${a}.shelf_price`, 'at least 0')
    await refused({ shelf: { ...full(), [a]: { available: true, shelf_price: '12' } } }, `${P}.${a}.shelf_price`, 'number')
    await refused({ shelf: { ...full(), [a]: { available: true, display: 'Floor' } } }, `${P}.${a}.display`, 'Shelf, Chiller')
    await refused({ shelf: { ...full(), [a]: [true] } }, `${P}.${a}`, 'keyed by column')
    await refused({ shelf: [1, 2] }, P, 'keyed by product id')
    await refused({ shelf: 'all good' }, P, 'keyed by product id')
  })

  test('a required matrix needs every frozen row answered, each with its required columns', async () => {
    const P = 'items.0.answers.shelf'
    const { [b]: _dropped, ...missingB } = full()
    const errors = await refused({ shelf: missingB }, `${P}.${b}`, 'every product')
    expect(Object.keys(errors)).toEqual([`${P}.${b}`])
    await refused({ shelf: { ...full(), [c]: { display: 'Shelf' } } }, `${P}.${c}.available`, 'is required')
    await refused({ shelf: { ...full(), [c]: {} } }, `${P}.${c}`, 'every product')
    await refused({}, `${P}.${a}`, 'every product')
    // A product added after check-in is not among the rows.
    const later = await newProduct(t.app, token(), { principal_id: principal.id })
    await refused({ shelf: { ...full(), [later.id]: { available: true } } }, `${P}.${later.id}`, 'not a product')
    data(await t.app.delete(`${OFFICE}/products/${later.id}`, { token: token() }), 200, 'delete')
  })

  test('every error of a matrix answer is reported at once (the documented example)', async () => {
    const P = 'items.0.answers.shelf'
    const errors = await refused({ shelf: { [a]: { facings: 3 }, 99999999: { available: true } } }, `${P}.99999999`, 'not a product')
    expect(Object.keys(errors).sort()).toEqual([`${P}.${a}.available`, `${P}.${b}`, `${P}.${c}`, `${P}.99999999`].sort())
    expect(errors[`${P}.${a}.available`]).toEqual(['is required'])
  })

  test('drafts: a partial matrix is kept, unknowns and bad cells are still refused', async () => {
    const P = 'items.0.answers.shelf'
    await refused({ shelf: { 99999999: { available: true } } }, `${P}.99999999`, 'not a product', 'draft')
    await refused({ shelf: { [a]: { nope: 1 } } }, `${P}.${a}.nope`, 'not a column', 'draft')
    await refused({ shelf: { [a]: { facings: 'x' } } }, `${P}.${a}.facings`, 'number', 'draft')
    const saved = data(await submit({ shelf: { [a]: { facings: 2 } } }, 'draft'), 200, 'draft')
    expect(saved.submissions[0].answers).toEqual({ shelf: { [a]: { facings: 2 } } })
  })

  test('a complete answer is stored as sent, null cells and empty rows dropped', async () => {
    const saved = data(await submit({ shelf: { ...full(), [b]: { available: false, facings: null } } }), 200, 'complete')
    expect(saved.submissions[0].status).toBe('completed')
    expect(saved.submissions[0].answers).toEqual({ shelf: full() })
    expect(saved.submissions[0].rows).toEqual({ shelf: expectedRows(products) })
  })
})

describe('product matrix: skip logic', () => {
  test('a matrix answered shows its dependent; a hidden matrix takes no answer and is not required', async () => {
    const fields = [
      { key: 'has_shelf', label: 'Shelf?', type: 'checkbox', required: true },
      matrix({ required: true, visible_if: { field: 'has_shelf', op: 'eq', value: true } }),
      { key: 'why', label: 'Why', type: 'text', required: true, visible_if: { field: 'shelf', op: 'answered' } },
    ]
    const { visit, who, form } = await plannedMatrixVisit(fields)
    data(await checkIn(t.app, visit.id, who), 200, 'check-in')
    const [a, b, c] = products.map((p) => String(p.id))
    const submit = (answers: Row) =>
      t.app.post(
        `/app/v1/visits/${visit.id}/submit-form-v2`,
        { form_id: form.id, items: [{ submission_id: null, status: 'completed', answers }] },
        { token: who.token },
      )
    const hidden = expectError(await submit({ has_shelf: false, shelf: { [a]: { available: true } } }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(hidden)).toEqual(['items.0.answers.shelf'])
    expect((hidden['items.0.answers.shelf'] as string[]).join(' ')).toMatch('hidden')
    const shelf = { [a]: { available: true }, [b]: { available: false }, [c]: { available: true } }
    const needsWhy = expectError(await submit({ has_shelf: true, shelf }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(needsWhy)).toEqual(['items.0.answers.why'])
    data(await submit({ has_shelf: false }), 200, 'hidden matrix, not required')
  })
})
