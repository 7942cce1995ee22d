/**
 * Hostile input for Auth (src/modules/auth): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  BAD_LOGIN,
  badInputTests,
  createdData,
  email,
  failsWith,
  invalid,
  loginPassword,
  mailbox,
  mintRefreshToken,
  mintResetToken,
  newPassword,
  opaqueToken,
  other,
  parentId,
  requiredText,
  type RouteSpec,
  t,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Auth ----------------------------------------------------------------------------------------

SPECS['POST /api/auth/register'] = {
  family: 'auth',
  baseline: async () => ({
    path: '/auth/register',
    body: { name: unique('Owner'), email: mailbox(unique('register')), password: 'password123', workspace_name: unique('Workspace') },
  }),
  fields: {
    name: { mutations: requiredText(255), required: true },
    email: { mutations: email(), required: true },
    password: { mutations: newPassword(), required: true },
    workspace_name: { mutations: requiredText(255), required: true },
  },
  readBack: async (_rc, reply) => {
    const { id, workspace_id } = reply.body.data.user
    const [user] = await t.app.db.pragma(`SELECT name, email, password_hash FROM users WHERE id = ${Number(id)}`)
    const [workspace] = await t.app.db.pragma(`SELECT name FROM workspaces WHERE id = ${Number(workspace_id)}`)
    return { name: user.name, email: user.email, password: user.password_hash, workspace_name: workspace.name }
  },
}

SPECS['POST /api/auth/login'] = {
  family: 'auth',
  setup: async (rc) => {
    rc.email = (await t.app.member(rc.ws, 'user')).user.email
    // Wrong passwords count towards the failed-login limit of their email: they go to a user of their own.
    rc.passwordVictim = (await t.app.member(rc.ws, 'user')).user.email
  },
  baseline: async (rc, field) => ({
    path: '/auth/login',
    body: { email: field === 'password' ? rc.passwordVictim : rc.email, password: 'password123' },
  }),
  fields: {
    email: { mutations: email(), required: true, onValid: BAD_LOGIN },
    password: { mutations: loginPassword(), required: true, onValid: BAD_LOGIN },
  },
}

SPECS['POST /api/auth/refresh'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/refresh', body: { refresh_token: await mintRefreshToken(rc) } }),
  fields: {
    refresh_token: { mutations: opaqueToken(), required: true, onValid: failsWith([401], ['UNAUTHORIZED']) },
  },
}

SPECS['POST /api/auth/logout'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/logout', body: { refresh_token: await mintRefreshToken(rc) }, token: rc.token }),
  fields: {
    // Logging out a session that does not exist is a harmless no-op.
    refresh_token: { mutations: opaqueToken(), required: true, onValid: { type: 'ok', checkStored: false } },
  },
}

SPECS['POST /api/auth/forgot-password'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/forgot-password', body: { email: rc.ws.owner.user.email } }),
  fields: {
    // Always 200 for a well-formed address (no account enumeration).
    email: { mutations: email(), required: true, onValid: { type: 'ok', checkStored: false } },
  },
}

SPECS['POST /api/auth/reset-password'] = {
  family: 'auth',
  baseline: async (rc) => ({ path: '/auth/reset-password', body: { token: await mintResetToken(rc), password: 'password123' } }),
  fields: {
    token: { mutations: opaqueToken(), required: true, onValid: invalid('token') },
    password: { mutations: newPassword(), required: true },
  },
  readBack: async (rc) => {
    const [user] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${rc.ws.owner.user.id}`)
    return { password: user.password_hash }
  },
}

SPECS['POST /api/auth/switch-workspace'] = {
  family: 'auth',
  setup: async (rc) => {
    rc.second = createdData(await t.app.post('/office/v1/workspaces', { name: unique('Second') }, { token: rc.token }), 'a workspace').id
  },
  baseline: async (rc) => ({ path: '/auth/switch-workspace', body: { workspace_id: rc.second }, token: rc.token }),
  fields: {
    workspace_id: {
      mutations: parentId({ foreign: () => other.id }),
      required: true,
      notFound: failsWith([404], ['WORKSPACE_NOT_FOUND']),
    },
  },
}

badInputTests('auth', { specs: SPECS })
