/**
 * Hostile input for Workspaces and their settings (src/modules/workspaces): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import { badInputTests, missing, mutation, type Mutation, requiredText, type RouteSpec, t, wrongTypes } from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Workspaces, roles, users ----------------------------------------------------------------------

SPECS['POST /api/office/v1/workspaces'] = {
  family: 'workspaces',
  baseline: async (rc) => ({ path: '/office/v1/workspaces', body: { name: unique('Workspace') }, token: rc.token }),
  fields: { name: { mutations: requiredText(255), required: true } },
  readBack: async (rc, reply) => {
    const list = await t.app.get('/office/v1/workspaces?sort_by=id&sort_order=desc&limit=100', { token: rc.token })
    return { name: list.body.data.find((w: { id: number }) => w.id === reply.body.data.id)?.name }
  },
}

// Workspace settings ---------------------------------------------------------------------------

/** `location_retention_days`: an integer number of days, 1 to 3650 (docs/API.md §Location tracking). */
function retentionDays(): Mutation[] {
  return [
    missing,
    ...wrongTypes('integer'),
    mutation('its value as a string ("30")', 'invalid', '30'),
    mutation('zero', 'invalid', 0),
    mutation('negative -1', 'invalid', -1),
    mutation('3651 (limit 3650)', 'invalid', 3651),
    mutation('float 1.5', 'invalid', 1.5),
    mutation('huge 1e308', 'invalid', 1e308),
    mutation('exactly 1', 'valid', 1),
    mutation('exactly 3650', 'valid', 3650),
    mutation('the default 90', 'valid', 90),
  ]
}

/** `currency`: ISO 4217 in upper case, a code the runtime knows (docs/API.md §Workspaces). */
function currency(): Mutation[] {
  return [
    missing,
    ...wrongTypes('string'),
    mutation('lower case "idr" (not normalised)', 'invalid', 'idr'),
    mutation('a word "rupiah"', 'invalid', 'rupiah'),
    mutation('no such code "XYZ"', 'invalid', 'XYZ'),
    mutation('two letters "ID"', 'invalid', 'ID'),
    mutation('four letters "IDRR"', 'invalid', 'IDRR'),
    mutation('surrounded by spaces', 'invalid', ' IDR '),
    mutation('empty string', 'invalid', ''),
    mutation('SQL-ish', 'invalid', "IDR' OR '1'='1"),
    mutation('"USD"', 'valid', 'USD'),
    mutation('"IDR"', 'valid', 'IDR'),
  ]
}

/** `journey_plan_horizon_days`: an integer number of local days, 1 to 31. */
function horizonDays(): Mutation[] {
  return [
    missing,
    ...wrongTypes('integer'),
    mutation('its value as a string ("7")', 'invalid', '7'),
    mutation('zero', 'invalid', 0),
    mutation('32 (limit 31)', 'invalid', 32),
    mutation('float 1.5', 'invalid', 1.5),
    mutation('exactly 1', 'valid', 1),
    mutation('exactly 31', 'valid', 31),
  ]
}

SPECS['PUT /api/office/v1/workspaces/:id/settings'] = {
  family: 'workspaces',
  // The caller's own workspace (another id is a 404, see the security suite).
  baseline: async (rc) => ({
    path: `/office/v1/workspaces/${rc.ws.id}/settings`,
    body: { name: unique('Workspace'), location_retention_days: 30, currency: 'IDR', journey_plan_horizon_days: 7 },
    token: rc.token,
  }),
  fields: {
    name: { mutations: requiredText(255), required: false },
    location_retention_days: { mutations: retentionDays(), required: false },
    currency: { mutations: currency(), required: false },
    journey_plan_horizon_days: { mutations: horizonDays(), required: false },
  },
  readBack: async (rc) => {
    const [row] = await t.app.db.pragma(`SELECT name, location_retention_days, currency, journey_plan_horizon_days FROM workspaces WHERE id = ${rc.ws.id}`)
    return row
  },
}

badInputTests('workspaces', { specs: SPECS })
