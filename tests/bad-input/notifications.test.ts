/**
 * Hostile input for Notifications (src/modules/notifications): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  invalid,
  MB,
  missing,
  mutation,
  type Mutation,
  newForm,
  newOutlet,
  newProject,
  okData,
  oneOf,
  post201,
  type RouteCtx,
  type RouteSpec,
  sqlAndUnicode,
  t,
  VISIT_DATE,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Notifications (docs/API.md §Other areas) ---------------------------------------------------------------------

/** A push token: 8 to 4096 characters, not blank. */
function pushToken(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('7 characters (minimum 8)', 'invalid', 'tok1234'),
    mutation('exactly 8 characters', 'valid', 'tok12345'),
    mutation('4097 characters (limit 4096)', 'invalid', 't'.repeat(4097)),
    mutation('exactly 4096 characters', 'valid', 't'.repeat(4096)),
    mutation('1 MB string', 'invalid', MB),
    mutation('empty string', 'invalid', ''),
    mutation('whitespace only (8 spaces)', 'invalid', ' '.repeat(8)),
    ...sqlAndUnicode((s) => (s.length >= 8 ? 'valid' : 'invalid'), 'maybe'),
  ]
}

SPECS['POST /api/app/v1/notifications/tokens'] = {
  family: 'notifications',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => ({ path: '/app/v1/notifications/tokens', body: { token: unique('fcm-token'), platform: 'android' }, token: rc.field.token }),
  fields: {
    token: { mutations: pushToken(), required: true },
    // A web token is a browser subscription (docs/API.md §Push notifications): the baseline's FCM-style token is not one.
    platform: {
      mutations: [
        ...oneOf(['android', 'ios']),
        mutation('"web" with a token that is not a browser subscription', 'invalid', 'web', { outcome: invalid('token') }),
      ],
      required: true,
    },
  },
  readBack: async (_rc, reply) => {
    const [row] = await t.app.db.pragma(`SELECT token, platform FROM push_tokens WHERE id = ${Number(reply.body.data.id)}`)
    return row
  },
}

/** A notification of `who`: a visit assigned to them (docs/API.md §Other areas); its id, from their own list. */
async function notificationFor(rc: RouteCtx, who: { token: string; user: { id: number } }, listing: string): Promise<number> {
  const form = await newForm(rc.token)
  const project = await newProject(rc.token, form)
  const outlet = await newOutlet(rc.token)
  await post201('/office/v1/visits', { outlet_id: outlet.id, project_id: project.id, visit_date: VISIT_DATE, user_ids: [who.user.id] }, rc.token, 'a visit')
  const [first] = okData(await t.app.get(`${listing}?limit=1`, { token: who.token }), 'listing notifications')
  if (!first) throw new Error('assigning a visit notified nobody')
  return first.id
}

for (const platform of ['office', 'app'] as const) {
  const listing = `/${platform}/v1/notifications`
  // The office side reads the owner's notifications, the phone side a field user's.
  const who = (rc: RouteCtx) => (platform === 'office' ? rc.ws.owner : rc.field)
  const setup = async (rc: RouteCtx) => {
    rc.field = await t.app.member(rc.ws, 'user')
    rc.notification = await notificationFor(rc, who(rc), listing)
  }
  // Neither takes a body: only unknown fields (ignored) and the path id (below) are tried.
  SPECS[`PUT /api${listing}/:id/read`] = {
    family: 'notifications',
    setup,
    baseline: async (rc) => ({ path: `${listing}/${rc.notification}/read`, body: {}, token: who(rc).token }),
    fields: {},
  }
  SPECS[`PUT /api${listing}/read-all`] = {
    family: 'notifications',
    setup,
    baseline: async (rc) => ({ path: `${listing}/read-all`, body: {}, token: who(rc).token }),
    fields: {},
  }
}

badInputTests('notifications', { specs: SPECS })
