/**
 * Hostile input for Forms (src/modules/forms): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  FIELD,
  type FieldSpec,
  foreign,
  formFields,
  mutation,
  type Mutation,
  newForm,
  okData,
  optionalText,
  post201,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  SELECT_FIELD,
  storedFields,
  t,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Forms ----------------------------------------------------------------------------------------

/**
 * A field's skip logic (docs/API.md "Skip logic"): `visible_if` on the second field of a select and
 * a dependent; definition errors are keyed `fields.N.visible_if`, schema errors below it.
 */
function visibleIfMutations(): Mutation[] {
  const dependent = (visible_if: unknown) => ({ key: 'why', label: 'Why', type: 'text', visible_if })
  const onBrand = (visible_if: unknown) => [SELECT_FIELD, dependent(visible_if)]
  return [
    mutation('visible_if as text', 'invalid', onBrand('brand == A'), { path: '1.visible_if' }),
    mutation('visible_if as a number', 'invalid', onBrand(1), { path: '1.visible_if' }),
    mutation('visible_if as a list', 'invalid', onBrand([{ field: 'brand', op: 'eq', value: 'A' }]), { path: '1.visible_if' }),
    mutation('visible_if without field', 'invalid', onBrand({ op: 'answered' }), { path: '1.visible_if.field' }),
    mutation('visible_if field as a number', 'invalid', onBrand({ field: 0, op: 'answered' }), { path: '1.visible_if.field' }),
    mutation('visible_if without op', 'invalid', onBrand({ field: 'brand', value: 'A' }), { path: '1.visible_if.op' }),
    mutation('visible_if op "between" (unknown)', 'invalid', onBrand({ field: 'brand', op: 'between', value: 'A' }), { path: '1.visible_if.op' }),
    mutation('visible_if op "EQ" (case matters)', 'invalid', onBrand({ field: 'brand', op: 'EQ', value: 'A' }), { path: '1.visible_if.op' }),
    mutation('visible_if value as an object', 'invalid', onBrand({ field: 'brand', op: 'eq', value: { a: 1 } }), { path: '1.visible_if.value' }),
    mutation('visible_if value null', 'invalid', onBrand({ field: 'brand', op: 'eq', value: null }), { path: '1.visible_if.value' }),
    mutation('visible_if forward reference', 'invalid', [dependent({ field: 'brand', op: 'eq', value: 'A' }), SELECT_FIELD], {
      path: '0.visible_if',
    }),
    mutation('visible_if self reference', 'invalid', onBrand({ field: 'why', op: 'answered' }), { path: '1.visible_if' }),
    mutation('visible_if unknown field', 'invalid', onBrand({ field: 'nope', op: 'answered' }), { path: '1.visible_if' }),
    mutation('visible_if gt on a select', 'invalid', onBrand({ field: 'brand', op: 'gt', value: 'A' }), { path: '1.visible_if' }),
    mutation('visible_if eq on a photo', 'invalid', [{ key: 'p', label: 'P', type: 'photo' }, dependent({ field: 'p', op: 'eq', value: 'x' })], {
      path: '1.visible_if',
    }),
    mutation('visible_if value not an option', 'invalid', onBrand({ field: 'brand', op: 'eq', value: 'Z' }), { path: '1.visible_if' }),
    mutation('visible_if value text on a number', 'invalid', [FIELD, dependent({ field: 'facings', op: 'gt', value: '3' })], { path: '1.visible_if' }),
    mutation('visible_if in with one value', 'invalid', onBrand({ field: 'brand', op: 'in', value: 'A' }), { path: '1.visible_if' }),
    mutation('visible_if in with an empty list', 'invalid', onBrand({ field: 'brand', op: 'in', value: [] }), { path: '1.visible_if' }),
    mutation('visible_if eq without value', 'invalid', onBrand({ field: 'brand', op: 'eq' }), { path: '1.visible_if' }),
    mutation('visible_if eq an option', 'valid', onBrand({ field: 'brand', op: 'eq', value: 'A' }), { stored: storedFields }),
    mutation('visible_if in options', 'valid', onBrand({ field: 'brand', op: 'in', value: ['A', 'B'] }), { stored: storedFields }),
    mutation('visible_if gte on an integer', 'valid', [FIELD, dependent({ field: 'facings', op: 'gte', value: 3 })], { stored: storedFields }),
    mutation('visible_if answered (a value is dropped)', 'valid', onBrand({ field: 'brand', op: 'answered', value: 'ignored' }), {
      stored: (sent) => storedFields(sent).map((field) => (field.key === 'why' ? { ...field, visible_if: { field: 'brand', op: 'answered' } } : field)),
    }),
    mutation(
      'visible_if SQL-ish value on a text field',
      'valid',
      [{ key: 'shop', label: 'Shop', type: 'text' }, dependent({ field: 'shop', op: 'ne', value: "x'; DROP TABLE forms; --" })],
      { stored: storedFields },
    ),
  ]
}

/**
 * A product-matrix field (docs/API.md "Product matrix") as the form's only field: schema errors keyed
 * below `fields.0.products` / `fields.0.columns`, definition errors at the property, products of
 * another workspace at `fields.0.products.principal_id` / `fields.0.products.product_ids.N`.
 * `rc.principal` and `rc.product` are the route's own (made by `matrixRows`).
 */
function matrixMutations(): Mutation[] {
  const COLUMN = { key: 'available', label: 'Available', type: 'checkbox', required: true }
  const matrix = (extra: Record<string, unknown>) => (_: unknown, rc: RouteCtx) => [
    { key: 'shelf', label: 'Shelf', type: 'product_matrix', products: { principal_id: rc.principal }, columns: [COLUMN], ...extra },
  ]
  const column = (extra: Record<string, unknown>) => matrix({ columns: [{ ...COLUMN, ...extra }] })
  const stored = (sent: Record<string, any>[]) =>
    sent.map(({ key, label, type, products, columns }) => ({
      key,
      label,
      type,
      required: false,
      products,
      columns: columns.map((c: Record<string, any>) => ({ ...c, required: c.required ?? false })),
    }))
  return [
    mutation('matrix products as text', 'invalid', matrix({ products: 'all' }), { path: '0.products' }),
    mutation('matrix products {}', 'invalid', matrix({ products: {} }), { path: '0.products' }),
    mutation('matrix principal_id as text', 'invalid', matrix({ products: { principal_id: 'x' } }), { path: '0.products' }),
    mutation('matrix product_ids empty', 'invalid', matrix({ products: { product_ids: [] } }), { path: '0.products' }),
    mutation('matrix without products', 'invalid', matrix({ products: undefined }), { path: '0.products' }),
    mutation('matrix columns as an object', 'invalid', matrix({ columns: COLUMN }), { path: '0.columns' }),
    mutation('matrix columns empty', 'invalid', matrix({ columns: [] }), { path: '0.columns' }),
    mutation('matrix 11 columns', 'invalid', matrix({ columns: Array.from({ length: 11 }, (_, i) => ({ ...COLUMN, key: `c${i}` })) }), {
      path: '0.columns',
    }),
    mutation('matrix without columns', 'invalid', matrix({ columns: undefined }), { path: '0.columns' }),
    mutation('matrix column type text', 'invalid', column({ type: 'text' }), { path: '0.columns.0.type' }),
    mutation('matrix column key with spaces', 'invalid', column({ key: 'not ok' }), { path: '0.columns.0.key' }),
    mutation('matrix column required as text', 'invalid', column({ required: 'yes' }), { path: '0.columns.0.required' }),
    mutation('matrix column repeated key', 'invalid', matrix({ columns: [COLUMN, COLUMN] }), { path: '0.columns.1.key' }),
    mutation('matrix select column without options', 'invalid', column({ type: 'select' }), { path: '0.columns.0.options' }),
    mutation('matrix options on a checkbox column', 'invalid', column({ options: ['a'] }), { path: '0.columns.0.options' }),
    mutation('matrix column min above max', 'invalid', column({ type: 'integer', min: 5, max: 1 }), { path: '0.columns.0.max' }),
    mutation(
      'matrix another workspace’s principal',
      'invalid',
      (_: unknown, rc: RouteCtx) => matrix({ products: { principal_id: foreign.principal_id } })(_, rc),
      {
        path: '0.products.principal_id',
      },
    ),
    mutation(
      'matrix another workspace’s product',
      'invalid',
      (_: unknown, rc: RouteCtx) => matrix({ products: { product_ids: [rc.product, foreign.product_id] } })(_, rc),
      {
        path: '0.products.product_ids.1',
      },
    ),
    mutation('matrix by principal', 'valid', matrix({}), { stored }),
    mutation(
      'matrix by products, every column type',
      'valid',
      (_: unknown, rc: RouteCtx) =>
        matrix({
          products: { product_ids: [rc.product] },
          columns: [
            COLUMN,
            { key: 'facings', label: 'Facings', type: 'integer', min: 0, max: 50 },
            { key: 'shelf_price', label: 'Price', type: 'number', min: 0 },
            { key: 'display', label: 'Display', type: 'select', options: ['Shelf', 'Chiller'] },
          ],
        })(_, rc),
      { stored },
    ),
  ]
}

/** The route's own principal and product, for the matrix mutations. */
async function matrixRows(rc: RouteCtx) {
  rc.principal = (await post201('/office/v1/principals', { name: unique('Principal') }, rc.token, 'a principal')).id
  rc.product = (await post201('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), principal_id: rc.principal }, rc.token, 'a product')).id
}

const formSpecFields = (required: boolean): Record<string, FieldSpec> => ({
  title: { mutations: requiredText(255), required },
  description: { mutations: optionalText(2000), required: false },
  fields: { mutations: [...formFields(), ...visibleIfMutations(), ...matrixMutations()], required },
})
const formBody = () => ({ title: unique('Form'), description: 'Weekly shelf check', fields: [FIELD, SELECT_FIELD] })
const formReadBack = async (rc: RouteCtx, id: number) => {
  const form = okData(await t.app.get(`/office/v1/forms/${id}`, { token: rc.token }), 'reading the form')
  return { title: form.title, description: form.description, fields: form.fields }
}

SPECS['POST /api/office/v1/forms'] = {
  family: 'forms',
  setup: matrixRows,
  baseline: async (rc) => ({ path: '/office/v1/forms', body: formBody(), token: rc.token }),
  fields: formSpecFields(true),
  readBack: (rc, reply) => formReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/forms/:id'] = {
  family: 'forms',
  setup: async (rc) => {
    rc.target = await newForm(rc.token)
    await matrixRows(rc)
  },
  baseline: async (rc) => ({ path: `/office/v1/forms/${rc.target}`, body: formBody(), token: rc.token }),
  fields: formSpecFields(false),
  readBack: (rc) => formReadBack(rc, rc.target),
}

badInputTests('forms', { specs: SPECS })
