/**
 * Hostile input for Journey plans (src/modules/journey-plans): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import {
  badInputTests,
  calendarDate,
  deletedUserOf,
  type Expect,
  foreign,
  idList,
  missing,
  mutation,
  newForm,
  newOutlet,
  newProject,
  newUser,
  parentId,
  post201,
  type RouteCtx,
  type RouteSpec,
  SITE,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// The day route (docs/API.md §Journey plans, "The day route") ---------------------------------------------

const ROUTE_DAY = '2026-12-01'
/** An optimisation stores route_sequence, not the body: an accepted body is checked as accepted, not read back. */
const ACCEPTED: Expect = { type: 'ok', checkStored: false }

SPECS['POST /api/office/v1/day-routes/optimize'] = {
  family: 'day routes',
  setup: async (rc: RouteCtx) => {
    rc.field = await newUser(rc.token, rc.ws.roles.user)
    await deletedUserOf(rc)
    const project = await newProject(rc.token, await newForm(rc.token))
    rc.visits = []
    for (const latitude of [-6.2, -6.23, -6.21]) {
      const outlet = await newOutlet(rc.token, { latitude, longitude: SITE.longitude })
      const visit = await post201(
        '/office/v1/visits',
        { outlet_id: outlet.id, project_id: project.id, visit_date: ROUTE_DAY, user_ids: [rc.field] },
        rc.token,
        'a visit of the route',
      )
      rc.visits.push(visit.id)
    }
  },
  baseline: async (rc) => ({
    path: '/office/v1/day-routes/optimize',
    body: { user_id: rc.field, date: ROUTE_DAY, start: SITE, locked_visit_ids: [rc.visits[0]] },
    token: rc.token,
  }),
  fields: {
    user_id: { mutations: parentId({ foreign: () => foreign.user_id, deleted: (rc) => rc.deletedUser }), required: true, onValid: ACCEPTED },
    date: { mutations: calendarDate({ nullable: false, valid: [ROUTE_DAY] }), required: true, onValid: ACCEPTED },
    start: {
      mutations: [
        missing,
        ...wrongTypes('object'),
        mutation('latitude 91', 'invalid', { latitude: 91, longitude: 0 }, { path: 'latitude' }),
        mutation('longitude -181', 'invalid', { latitude: 0, longitude: -181 }, { path: 'longitude' }),
        mutation('no longitude', 'invalid', { latitude: -6.2 }, { path: 'longitude' }),
        mutation('coordinates as text', 'invalid', { latitude: '-6.2', longitude: '106.8' }, { path: 'latitude' }),
        mutation('another point', 'valid', { latitude: -6.3, longitude: 106.9 }),
      ],
      required: false,
      onValid: ACCEPTED,
    },
    locked_visit_ids: {
      mutations: idList({ max: 500, item: (rc) => rc.visits[0], second: (rc) => rc.visits[1], foreign: () => foreign.visit_id }),
      required: false,
      onValid: ACCEPTED,
    },
  },
}

badInputTests('journey-plans', { specs: SPECS })
