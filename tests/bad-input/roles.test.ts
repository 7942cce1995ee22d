/**
 * Hostile input for Roles (src/modules/roles): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import { badInputTests, createdData, deleted, GRANT, grants, requiredText, type RouteCtx, type RouteSpec, t } from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

const roleReadBack = async (rc: RouteCtx, id: number) => {
  const role = (await t.app.get(`/office/v1/roles/${id}`, { token: rc.token })).body.data
  return { name: role.name, permissions: role.permissions }
}

SPECS['POST /api/office/v1/roles'] = {
  family: 'roles',
  baseline: async (rc) => ({ path: '/office/v1/roles', body: { name: unique('Role'), permissions: [GRANT] }, token: rc.token }),
  fields: {
    name: { mutations: requiredText(100), required: true },
    permissions: { mutations: grants(), required: true },
  },
  readBack: (rc, reply) => roleReadBack(rc, reply.body.data.id),
  // Slugs are unique: names such as "%" and "_" share the slug "role", so each accepted role goes again.
  cleanup: async (rc, reply) => {
    await deleted('roles', reply.body.data.id, rc.token)
  },
}

SPECS['PUT /api/office/v1/roles/:id'] = {
  family: 'roles',
  setup: async (rc) => {
    rc.target = createdData(await t.app.post('/office/v1/roles', { name: unique('Target'), permissions: [] }, { token: rc.token }), 'a role').id
  },
  baseline: async (rc) => ({ path: `/office/v1/roles/${rc.target}`, body: { name: unique('Role'), permissions: [GRANT] }, token: rc.token }),
  fields: {
    name: { mutations: requiredText(100), required: false },
    permissions: { mutations: grants(), required: false },
  },
  readBack: (rc) => roleReadBack(rc, rc.target),
}

badInputTests('roles', { specs: SPECS })
