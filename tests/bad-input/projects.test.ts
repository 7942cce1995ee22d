/**
 * Hostile input for Projects (src/modules/projects): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  calendarDate,
  deletedFormOf,
  type FieldSpec,
  foreign,
  formRefs,
  invalid,
  mutation,
  newForm,
  newProject,
  nullable,
  okData,
  oneOf,
  parentId,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  t,
  uniqueCode,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Projects -------------------------------------------------------------------------------------

const PROJECT_STATUSES = ['draft', 'active', 'completed', 'archived']

const projectFields = (required: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required },
  code: {
    mutations: uniqueCode(
      'PROJECT_ALREADY_EXISTS',
      (rc) => rc.takenCode,
      () => foreign.project_code,
    ),
    required: false,
  },
  // No principal exists in these workspaces, so any id is one that does not exist (docs/API.md §Errors: 400).
  principal_id: {
    mutations: nullable(parentId({ foreign: () => 0 })).filter((m) => m.label !== 'an id of another workspace'),
    required: false,
  },
  start_date: {
    mutations: [
      ...calendarDate({ nullable: true, valid: ['2024-02-29'] }),
      mutation('after end_date', 'invalid', '2027-01-01', { outcome: invalid('end_date') }),
    ],
    required: false,
  },
  end_date: {
    mutations: [...calendarDate({ nullable: true, valid: ['2028-02-29'] }), mutation('before start_date', 'invalid', '2025-12-31')],
    required: false,
  },
  status: { mutations: oneOf(PROJECT_STATUSES), required: false },
  forms: { mutations: formRefs('forms', 100), required: false },
})

const projectSetup = async (rc: RouteCtx) => {
  rc.form = await newForm(rc.token)
  rc.form2 = await newForm(rc.token)
  await deletedFormOf(rc)
  rc.takenCode = (await newProject(rc.token, rc.form, { code: unique('TAKEN').toUpperCase() })).code
}
const projectBody = (rc: RouteCtx) => ({
  name: unique('Project'),
  code: unique('PRJ'),
  principal_id: null,
  start_date: '2026-01-01',
  end_date: '2026-12-31',
  status: 'active',
  forms: [{ form_id: rc.form, is_required: true, order: 0 }],
})
const projectInBodyTerms = (project: any) => ({
  ...project,
  forms: project.forms.map(({ form_id, is_required, order }: any) => ({ form_id, is_required, order })),
})
const projectReadBack = async (rc: RouteCtx, id: number) =>
  projectInBodyTerms(okData(await t.app.get(`/office/v1/projects/${id}`, { token: rc.token }), 'reading the project'))

SPECS['POST /api/office/v1/projects'] = {
  family: 'projects',
  setup: projectSetup,
  baseline: async (rc) => ({ path: '/office/v1/projects', body: projectBody(rc), token: rc.token }),
  fields: projectFields(true),
  readBack: (rc, reply) => projectReadBack(rc, reply.body.data.id),
  answered: (_rc, reply) => projectInBodyTerms(reply.body.data),
}

SPECS['PUT /api/office/v1/projects/:id'] = {
  family: 'projects',
  setup: async (rc) => {
    await projectSetup(rc)
    rc.target = (await newProject(rc.token, rc.form)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/projects/${rc.target}`, body: projectBody(rc), token: rc.token }),
  fields: projectFields(false),
  readBack: (rc) => projectReadBack(rc, rc.target),
  answered: (_rc, reply) => projectInBodyTerms(reply.body.data),
}

badInputTests('projects', { specs: SPECS })
