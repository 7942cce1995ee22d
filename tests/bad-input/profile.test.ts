/**
 * Hostile input for Profile (mobile) (src/modules/profile): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  fresh,
  MB,
  missing,
  mutation,
  type Mutation,
  newPassword,
  okData,
  optionalText,
  requiredText,
  type RouteSpec,
  SQLISH,
  t,
  usedUp,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Profile (mobile) ----------------------------------------------------------------------------------

SPECS['PUT /api/app/v1/profile'] = {
  family: 'profile',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => ({ path: '/app/v1/profile', body: { name: unique('Field'), phone: '+62 812 0000 0000' }, token: rc.field.token }),
  fields: {
    name: { mutations: requiredText(255), required: false },
    phone: { mutations: optionalText(32), required: false },
  },
  readBack: async (rc) => {
    const profile = okData(await t.app.get('/app/v1/profile', { token: rc.field.token }), 'reading the profile')
    return { name: profile.name, phone: profile.phone }
  },
}

/** The password being proved: any string; a wrong one is 400 errors.current_password (never a 401). */
function currentPassword(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only', 'invalid', '   '),
    mutation('1025 characters (limit 1024)', 'invalid', 'p'.repeat(1025)),
    mutation('1 MB string', 'invalid', MB),
    mutation('a wrong password', 'invalid', 'not-my-password'),
    mutation('the right password in upper case', 'invalid', 'PASSWORD123'),
    mutation('the right password with a NUL appended', 'invalid', 'password123\u0000'),
    ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, 'invalid', s)),
  ]
}

SPECS['PUT /api/app/v1/profile/password'] = {
  family: 'profile',
  // A field user whose password is still "password123": a new one after every accepted change.
  baseline: async (rc) => {
    const session = await fresh(rc, (r) => t.app.member(r.ws, 'user'))
    return { path: '/app/v1/profile/password', body: { current_password: 'password123', new_password: 'a-new-password-1' }, token: session.token }
  },
  fields: {
    current_password: { mutations: currentPassword(), required: true },
    new_password: {
      mutations: [...newPassword(), mutation('the current password', 'invalid', 'password123')],
      required: true,
    },
  },
  readBack: async (rc) => {
    const [row] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${Number(rc.fresh.user.id)}`)
    return { new_password: row.password_hash }
  },
  cleanup: usedUp,
}

badInputTests('profile', { specs: SPECS })
