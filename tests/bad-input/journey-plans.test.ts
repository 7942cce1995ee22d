/**
 * Hostile input for Journey plans and holidays (src/modules/journey-plans): the baseline bodies of the
 * module's POST and PUT routes and the stops import's CSV cases. What is mutated, what must hold, and
 * what is sampled: tests/support/bad-input.ts.
 */
import { beforeAll, expect, test } from 'bun:test'
import { expectError, unique } from '../harness'
import {
  badInputTests,
  calendarDate,
  type CsvTests,
  deletedUserOf,
  type Expect,
  expectErrorEnvelope,
  expectNo5xx,
  expectUnchanged,
  failsWith,
  type FieldSpec,
  flagValues,
  foreign,
  idList,
  invalid,
  missing,
  mutation,
  newForm,
  newOutlet,
  newProject,
  newTeam,
  newUser,
  nullable,
  okData,
  optionalText,
  parentId,
  post201,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  short,
  SITE,
  snapshot,
  t,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}
const PLANS = '/office/v1/journey-plans'

// Journey plans ---------------------------------------------------------------------------------

type Stop = { outlet_id: number; weekday: number; weeks?: number[]; sequence?: number }
/** A stop in the body's terms (what the baseline sends: outlet and weekday). */
const asSent = (stops: Stop[]) => stops.map(({ outlet_id, weekday }) => ({ outlet_id, weekday }))

const stopMutations = () => [
  missing,
  ...wrongTypes('array'),
  mutation('empty list', 'valid', []),
  mutation('[null]', 'invalid', [null], { path: '0' }),
  mutation('weekday 0', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.outlet, weekday: 0 }], { path: '0.weekday' }),
  mutation('weekday 8', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.outlet, weekday: 8 }], { path: '0.weekday' }),
  mutation('weekday "1"', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.outlet, weekday: '1' }], { path: '0.weekday' }),
  mutation('week 9 of the cycle', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.outlet, weekday: 1, weeks: [9] }], { path: '0.weeks.0' }),
  mutation('week 5 of a 4-week cycle', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.outlet, weekday: 1, weeks: [5] }], { path: '0.weeks' }),
  mutation('sequence -1', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.outlet, weekday: 1, sequence: -1 }], { path: '0.sequence' }),
  mutation(
    'the same outlet twice on a weekday',
    'invalid',
    (_: unknown, rc: RouteCtx) => [
      { outlet_id: rc.outlet, weekday: 3 },
      { outlet_id: rc.outlet, weekday: 3 },
    ],
    { path: '1.outlet_id' },
  ),
  mutation('an outlet of another workspace', 'invalid', () => [{ outlet_id: foreign.outlet_id, weekday: 1 }], { path: '0.outlet_id' }),
  mutation('an inactive outlet', 'invalid', (_: unknown, rc: RouteCtx) => [{ outlet_id: rc.inactiveOutlet, weekday: 1 }], { path: '0.outlet_id' }),
  mutation('an outlet that does not exist', 'invalid', () => [{ outlet_id: 99_999_999, weekday: 1 }], { path: '0.outlet_id' }),
  mutation('501 stops (limit 500)', 'invalid', (_: unknown, rc: RouteCtx) =>
    Array.from({ length: 501 }, (_, i) => ({ outlet_id: rc.outlet, weekday: (i % 7) + 1 })),
  ),
  mutation('two outlets on other weekdays', 'valid', (_: unknown, rc: RouteCtx) => [
    { outlet_id: rc.outlet, weekday: 6 },
    { outlet_id: rc.second, weekday: 7 },
  ]),
]

const planFields = (required: boolean): Record<string, FieldSpec> => ({
  user_id: { mutations: parentId({ foreign: () => foreign.user_id, deleted: (rc) => rc.deletedUser }), required },
  project_id: {
    mutations: [...parentId({ foreign: () => foreign.project_id }), mutation('a draft project', 'notFound', (_: unknown, rc: RouteCtx) => rc.draft)],
    required,
  },
  team_id: { mutations: nullable(parentId({ foreign: () => foreign.team_id })), required: false },
  name: { mutations: optionalText(255), required: false },
  start_date: {
    mutations: [
      ...calendarDate({ nullable: false, valid: ['2024-01-01'] }),
      mutation('a Tuesday', 'invalid', '2026-11-24'),
      mutation('after end_date', 'invalid', '2029-01-01', { outcome: invalid('end_date') }),
    ],
    required,
  },
  end_date: {
    mutations: [...calendarDate({ nullable: true, valid: ['2028-02-29'] }), mutation('before start_date', 'invalid', '2026-11-01')],
    required: false,
  },
  cycle_weeks: {
    mutations: [
      missing,
      ...wrongTypes('integer'),
      mutation('0', 'invalid', 0),
      mutation('9 (limit 8)', 'invalid', 9),
      mutation('1.5', 'invalid', 1.5),
      mutation('1', 'valid', 1),
      mutation('8', 'valid', 8),
    ],
    required: false,
  },
  active: { mutations: flagValues(), required: false },
  stops: { mutations: stopMutations(), required: false },
})

const planSetup = async (rc: RouteCtx) => {
  rc.field = await t.app.member(rc.ws, 'user')
  const form = await newForm(rc.token)
  rc.project = (await newProject(rc.token, form)).id
  rc.draft = (await newProject(rc.token, form, { status: 'draft' })).id
  rc.team = (await newTeam(rc.token)).id
  rc.outlet = (await newOutlet(rc.token)).id
  rc.second = (await newOutlet(rc.token)).id
  rc.inactiveOutlet = (await newOutlet(rc.token, { is_active: false })).id
  await deletedUserOf(rc)
}
const planBody = (rc: RouteCtx) => ({
  user_id: rc.field.user.id,
  project_id: rc.project,
  team_id: rc.team,
  name: unique('Route'),
  start_date: '2026-11-23',
  end_date: '2027-06-30',
  cycle_weeks: 4,
  active: true,
  stops: [
    { outlet_id: rc.outlet, weekday: 1 },
    { outlet_id: rc.second, weekday: 2 },
  ],
})
/** A plan in the body's terms. */
const planInBodyTerms = (plan: any) => ({
  user_id: plan.user_id,
  project_id: plan.project_id,
  team_id: plan.team_id,
  name: plan.name,
  start_date: plan.start_date,
  end_date: plan.end_date,
  cycle_weeks: plan.cycle_weeks,
  active: plan.active,
  stops: asSent(plan.stops),
})
const planReadBack = async (rc: RouteCtx, id: number) => planInBodyTerms(okData(await t.app.get(`${PLANS}/${id}`, { token: rc.token }), 'reading the plan'))

SPECS['POST /api/office/v1/journey-plans'] = {
  family: 'journey plans',
  setup: planSetup,
  baseline: async (rc) => ({ path: PLANS, body: planBody(rc), token: rc.token }),
  fields: planFields(true),
  readBack: (rc, reply) => planReadBack(rc, reply.body.data.id),
  answered: (_rc, reply) => planInBodyTerms(reply.body.data),
}

SPECS['PUT /api/office/v1/journey-plans/:id'] = {
  family: 'journey plans',
  setup: async (rc) => {
    await planSetup(rc)
    rc.target = (await post201(PLANS, planBody(rc), rc.token, 'a plan')).id
  },
  baseline: async (rc) => ({ path: `${PLANS}/${rc.target}`, body: planBody(rc), token: rc.token }),
  fields: planFields(false),
  readBack: (rc) => planReadBack(rc, rc.target),
  answered: (_rc, reply) => planInBodyTerms(reply.body.data),
}

SPECS['POST /api/office/v1/journey-plans/:id/generate'] = {
  family: 'journey plans',
  setup: async (rc) => {
    await planSetup(rc)
    rc.target = (await post201(PLANS, planBody(rc), rc.token, 'a plan')).id
  },
  baseline: async (rc) => ({ path: `${PLANS}/${rc.target}/generate`, body: { date_from: '2026-11-23', date_to: '2026-11-29' }, token: rc.token }),
  fields: {
    date_from: {
      mutations: [
        ...calendarDate({ nullable: false, valid: ['2026-11-01'] }),
        mutation('after date_to', 'invalid', '2026-12-01', { outcome: invalid('date_to') }),
      ],
      required: true,
    },
    date_to: {
      mutations: [
        ...calendarDate({ nullable: false, valid: ['2026-12-31'] }),
        mutation('before date_from', 'invalid', '2026-11-22'),
        mutation('63 days after date_from (limit 62)', 'invalid', '2027-01-24'),
      ],
      required: true,
    },
  },
}

// Holidays ------------------------------------------------------------------------------------

let holidayDay = 0
/** A date no other request of this file declared (2031 on, one day each). */
const freshDate = () => new Date(Date.UTC(2031, 0, 1 + holidayDay++)).toISOString().slice(0, 10)

SPECS['POST /api/office/v1/holidays'] = {
  family: 'holidays',
  setup: async (rc) => {
    rc.taken = (await post201('/office/v1/holidays', { date: freshDate(), name: 'Taken' }, rc.token, 'a holiday')).date
  },
  baseline: async (rc) => ({ path: '/office/v1/holidays', body: { date: freshDate(), name: unique('Holiday') }, token: rc.token }),
  fields: {
    date: {
      mutations: [
        ...calendarDate({ nullable: false, valid: ['2028-02-29'] }),
        mutation('a date already declared', 'invalid', (_: unknown, rc: RouteCtx) => rc.taken, {
          outcome: failsWith([409], ['HOLIDAY_ALREADY_EXISTS'], 'date'),
        }),
      ],
      required: true,
    },
    name: { mutations: requiredText(255), required: true },
  },
  readBack: async (_rc, reply) => {
    const [row] = await t.app.db.pragma(`SELECT date, name FROM holidays WHERE id = ${Number(reply.body.data.id)}`)
    return { date: row.date, name: row.name }
  },
  // Removed again, so a later request may declare the same date.
  cleanup: async (rc, reply) => {
    await t.app.delete(`/office/v1/holidays/${reply.body.data.id}`, { token: rc.token })
  },
}

// The stops import: a text/csv body ---------------------------------------------------------------

interface CsvCase {
  label: string
  body: (rc: RouteCtx) => string
  contentType?: string
  /** Accepted: the plan's stops after it, in the body's terms. */
  stops?: (rc: RouteCtx) => Stop[]
  /** Refused: every key of `errors` matches this. */
  errors?: RegExp
}

const CSV_CASES: CsvCase[] = [
  {
    label: 'the baseline: codes, weekdays, weeks and sequences',
    body: (rc) => `outlet_code,weekday,weeks,sequence\n${rc.outletCode},1,1;3,2\n${rc.secondCode},1,,1\n`,
    stops: (rc) => [
      { outlet_id: rc.second, weekday: 1, weeks: [1, 2, 3, 4], sequence: 1 },
      { outlet_id: rc.outlet, weekday: 1, weeks: [1, 3], sequence: 2 },
    ],
  },
  {
    label: 'a byte-order mark, CRLF line ends, columns in another order and in capitals',
    body: (rc) => `\uFEFFWEEKDAY,OUTLET_CODE\r\n2,${rc.outletCode}\r\n`,
    stops: (rc) => [{ outlet_id: rc.outlet, weekday: 2, weeks: [1, 2, 3, 4], sequence: 2 }],
  },
  { label: 'an unknown outlet code', body: () => 'outlet_code,weekday\nNO-SUCH-OUTLET,1\n', errors: /^rows\.2\.outlet_code$/ },
  { label: 'an outlet code of another workspace', body: () => `outlet_code,weekday\n${foreign.outlet_code},1\n`, errors: /^rows\.2\.outlet_code$/ },
  { label: 'an SQL-ish outlet code', body: () => "outlet_code,weekday\n' OR 1=1 --,1\n", errors: /^rows\.2\.outlet_code$/ },
  { label: 'weekday 8', body: (rc) => `outlet_code,weekday\n${rc.outletCode},8\n`, errors: /^rows\.2\.weekday$/ },
  { label: 'week 5 of a 4-week cycle', body: (rc) => `outlet_code,weekday,weeks\n${rc.outletCode},1,5\n`, errors: /^rows\.2\.weeks$/ },
  { label: 'sequence "x"', body: (rc) => `outlet_code,weekday,sequence\n${rc.outletCode},1,x\n`, errors: /^rows\.2\.sequence$/ },
  {
    label: 'a good row, then the same outlet on the same weekday (nothing is imported)',
    body: (rc) => `outlet_code,weekday\n${rc.outletCode},1\n${rc.outletCode},1\n`,
    errors: /^rows\.3\.outlet_code$/,
  },
  { label: 'no weekday column', body: (rc) => `outlet_code\n${rc.outletCode}\n`, errors: /^csv$/ },
  { label: 'an unknown column', body: (rc) => `outlet_code,weekday,colour\n${rc.outletCode},1,red\n`, errors: /^csv$/ },
  { label: 'only the header row', body: () => 'outlet_code,weekday\n', errors: /^csv$/ },
  { label: 'an unclosed quote', body: (rc) => `outlet_code,weekday\n"${rc.outletCode},1\n`, errors: /^csv$/ },
  { label: '1001 rows (limit 1000)', body: (rc) => `outlet_code,weekday\n${`${rc.outletCode},1\n`.repeat(1001)}`, errors: /^csv$/ },
  { label: 'Content-Type text/plain', body: (rc) => `outlet_code,weekday\n${rc.outletCode},1\n`, contentType: 'text/plain', errors: /^content-type$/ },
  {
    label: 'the CSV as a JSON string',
    body: (rc) => JSON.stringify(`outlet_code,weekday\n${rc.outletCode},1\n`),
    contentType: 'application/json',
    errors: /^body$/,
  },
]

const csvTests: CsvTests = (route, name) => {
  const rc = {} as RouteCtx
  beforeAll(async () => {
    rc.ws = await t.app.workspace()
    rc.token = rc.ws.owner.token
    await planSetup(rc)
    const outlet = await newOutlet(rc.token)
    const second = await newOutlet(rc.token)
    Object.assign(rc, { outlet: outlet.id, outletCode: outlet.code, second: second.id, secondCode: second.code })
    rc.target = (await post201(PLANS, { ...planBody(rc), active: false }, rc.token, 'a plan')).id
  })
  for (const c of CSV_CASES) {
    const outcome = c.stops ? '200 JOURNEY_PLAN_STOPS_IMPORTED, the stops replaced' : `400 VALIDATION_ERROR (errors ${c.errors}), changes nothing`
    test(`${name} · ${c.label} → ${outcome}`, async () => {
      const path = short(route.path).replace(':id', String(rc.target))
      const before = await snapshot()
      const reply = await t.app.request('POST', path, { raw: c.body(rc), headers: { 'content-type': c.contentType ?? 'text/csv' }, token: rc.token })
      expectNo5xx(reply)
      if (c.stops) {
        if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status} ${reply.text.slice(0, 500)}`)
        expect(reply.body.code).toBe('JOURNEY_PLAN_STOPS_IMPORTED')
        const plan = okData(await t.app.get(`${PLANS}/${rc.target}`, { token: rc.token }), 'reading the plan')
        expect(plan.stops.map(({ outlet_name: _, ...stop }: any) => stop)).toEqual(c.stops(rc))
        return
      }
      expectErrorEnvelope(reply)
      const errors = expectError(reply, 400, 'VALIDATION_ERROR')
      const keys = Object.keys(errors)
      if (keys.length === 0 || !keys.every((key) => c.errors!.test(key))) throw new Error(`expected errors keyed ${c.errors}, got ${JSON.stringify(errors)}`)
      await expectUnchanged(before)
    })
  }
}

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

badInputTests('journey-plans', { specs: SPECS, csv: { 'POST /api/office/v1/journey-plans/:id/stops/import': csvTests } })
