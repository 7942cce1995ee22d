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
  newForm,
  okData,
  optionalText,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  SELECT_FIELD,
  t,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Forms ----------------------------------------------------------------------------------------

const formSpecFields = (required: boolean): Record<string, FieldSpec> => ({
  title: { mutations: requiredText(255), required },
  description: { mutations: optionalText(2000), required: false },
  fields: { mutations: formFields(), required },
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
