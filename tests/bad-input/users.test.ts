/**
 * Hostile input for Users (src/modules/users): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  createdData,
  deleted,
  email,
  type FieldSpec,
  flag,
  mailbox,
  newPassword,
  optionalText,
  other,
  parentId,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  t,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

const userReadBack = async (rc: RouteCtx, id: number) => {
  const user = (await t.app.get(`/office/v1/users/${id}`, { token: rc.token })).body.data
  const [row] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${Number(id)}`)
  return { name: user.name, email: user.email, phone: user.phone, role_id: user.role_id, is_active: user.is_active, password: row.password_hash }
}

const usersSetup = async (rc: RouteCtx) => {
  const role = createdData(await t.app.post('/office/v1/roles', { name: unique('Gone'), permissions: [] }, { token: rc.token }), 'a role')
  rc.deletedRole = await deleted('roles', role.id, rc.token)
}

const userFields = (required: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required },
  email: { mutations: email(), required },
  password: { mutations: newPassword(), required },
  role_id: { mutations: parentId({ foreign: () => other.roles.user, deleted: (rc) => rc.deletedRole }), required },
  phone: { mutations: optionalText(32), required: false },
})

SPECS['POST /api/office/v1/users'] = {
  family: 'users',
  setup: usersSetup,
  baseline: async (rc) => ({
    path: '/office/v1/users',
    body: { name: unique('User'), email: mailbox(unique('user')), password: 'password123', role_id: rc.ws.roles.user, phone: '+62 812 0000 0000' },
    token: rc.token,
  }),
  fields: userFields(true),
  readBack: (rc, reply) => userReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/users/:id'] = {
  family: 'users',
  setup: async (rc) => {
    await usersSetup(rc)
    const body = { name: unique('Target'), email: mailbox(unique('target')), password: 'password123', role_id: rc.ws.roles.user }
    rc.target = createdData(await t.app.post('/office/v1/users', body, { token: rc.token }), 'a user').id
  },
  baseline: async (rc) => ({
    path: `/office/v1/users/${rc.target}`,
    body: {
      name: unique('User'),
      email: mailbox(unique('user')),
      password: 'password123',
      role_id: rc.ws.roles.user,
      phone: '+62 812 0000 0000',
      is_active: true,
    },
    token: rc.token,
  }),
  fields: { ...userFields(false), is_active: { mutations: flag(), required: false } },
  readBack: (rc) => userReadBack(rc, rc.target),
}

badInputTests('users', { specs: SPECS })
