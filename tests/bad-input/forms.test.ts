/**
 * Hostile input for Forms (src/modules/forms): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  FIELD,
  type FieldSpec,
  formFields,
  mutation,
  type Mutation,
  newForm,
  okData,
  optionalText,
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

const formSpecFields = (required: boolean): Record<string, FieldSpec> => ({
  title: { mutations: requiredText(255), required },
  description: { mutations: optionalText(2000), required: false },
  fields: { mutations: [...formFields(), ...visibleIfMutations()], required },
})
const formBody = () => ({ title: unique('Form'), description: 'Weekly shelf check', fields: [FIELD, SELECT_FIELD] })
const formReadBack = async (rc: RouteCtx, id: number) => {
  const form = okData(await t.app.get(`/office/v1/forms/${id}`, { token: rc.token }), 'reading the form')
  return { title: form.title, description: form.description, fields: form.fields }
}

SPECS['POST /api/office/v1/forms'] = {
  family: 'forms',
  baseline: async (rc) => ({ path: '/office/v1/forms', body: formBody(), token: rc.token }),
  fields: formSpecFields(true),
  readBack: (rc, reply) => formReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/forms/:id'] = {
  family: 'forms',
  setup: async (rc) => {
    rc.target = await newForm(rc.token)
  },
  baseline: async (rc) => ({ path: `/office/v1/forms/${rc.target}`, body: formBody(), token: rc.token }),
  fields: formSpecFields(false),
  readBack: (rc) => formReadBack(rc, rc.target),
}

badInputTests('forms', { specs: SPECS })
