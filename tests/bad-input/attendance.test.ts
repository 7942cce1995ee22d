/**
 * Hostile input for Attendance (src/modules/attendance): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import type { Reply } from '../harness'
import {
  badInputTests,
  calendarDate,
  createdData,
  deletedUserOf,
  foreign,
  fresh,
  MB,
  missing,
  mutation,
  type Mutation,
  newUser,
  okData,
  optionalText,
  parentId,
  photoBack,
  type RouteCtx,
  type RouteSpec,
  SITE,
  siteFields,
  t,
  usedUp,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Attendance (docs/API.md §Other areas) ----------------------------------------------------------------------

const ATTENDANCE_DAY = '2026-11-20'
const CLOCKED_IN = '2026-11-20T01:00:00.000Z'
const CLOCKED_OUT = '2026-11-20T10:00:00.000Z'

/** An ISO 8601 date-time of a manual attendance; stored in UTC with milliseconds. */
function dateTime(): Mutation[] {
  const utc = (iso: string) => () => iso
  return [
    missing,
    ...wrongTypes('string'),
    mutation('empty string', 'invalid', ''),
    mutation('"junk"', 'invalid', 'junk'),
    mutation('a date only', 'invalid', ATTENDANCE_DAY),
    mutation('2026-02-30T08:00:00Z (no such day)', 'invalid', '2026-02-30T08:00:00Z'),
    mutation('hour 24', 'invalid', '2026-11-20T24:00:00Z'),
    mutation('a space instead of T', 'invalid', '2026-11-20 08:00:00Z'),
    mutation('20/11/2026 08:00', 'invalid', '20/11/2026 08:00'),
    mutation('epoch milliseconds as text', 'invalid', '1763600000000'),
    mutation('SQL-ish', 'invalid', "2026-11-20T08:00:00Z' OR 1=1 --"),
    mutation('1 MB string', 'invalid', MB),
    mutation('with a +07:00 offset (stored in UTC)', 'valid', '2026-11-20T08:30:00+07:00', { stored: utc('2026-11-20T01:30:00.000Z') }),
    mutation('without a zone (read as UTC)', 'valid', '2026-11-20T02:15:00', { stored: utc('2026-11-20T02:15:00.000Z') }),
    mutation('with milliseconds', 'valid', '2026-11-20T03:45:10.250Z', { stored: utc('2026-11-20T03:45:10.250Z') }),
  ]
}

const attendanceReadBack = async (rc: RouteCtx, id: number) => {
  const row = okData(await t.app.get(`/office/v1/attendances/${id}`, { token: rc.token }), 'reading the attendance')
  return { user_id: row.user_id, date: row.date, check_in_at: row.check_in_at, check_out_at: row.check_out_at, notes: row.notes }
}

SPECS['POST /api/office/v1/attendances'] = {
  family: 'attendance',
  setup: async (rc) => {
    rc.user = await newUser(rc.token, rc.ws.roles.user)
    await deletedUserOf(rc)
  },
  // check_in_at is tried on an open day (no check-out), so that its own rules (a real date-time, not
  // in the future) are what decides, not its order against a fixed check-out.
  baseline: async (rc, field) => ({
    path: '/office/v1/attendances',
    body: {
      user_id: rc.user,
      date: ATTENDANCE_DAY,
      check_in_at: CLOCKED_IN,
      check_out_at: field === 'check_in_at' ? null : CLOCKED_OUT,
      notes: 'Forgot to clock in',
    },
    token: rc.token,
  }),
  fields: {
    user_id: { mutations: parentId({ foreign: () => foreign.user_id, deleted: (rc) => rc.deletedUser }), required: true },
    date: { mutations: calendarDate({ nullable: false, valid: ['2026-11-21'] }), required: true },
    check_in_at: {
      mutations: [...dateTime(), mutation('an hour in the future', 'invalid', () => new Date(t.app.clock.now().getTime() + 3_600_000).toISOString())],
      required: true,
    },
    check_out_at: {
      mutations: [
        ...dateTime().filter((m) => m.label !== 'null'),
        mutation('null (still open)', 'valid', null),
        mutation('before check_in_at', 'invalid', '2026-11-20T00:59:59.000Z'),
        mutation('equal to check_in_at', 'invalid', CLOCKED_IN),
      ],
      required: false,
    },
    notes: { mutations: optionalText(1000), required: false },
  },
  readBack: (rc, reply) => attendanceReadBack(rc, reply.body.data.id),
  // A user has at most one open attendance: after an open one is entered, the next goes to a new user.
  cleanup: async (rc, reply) => {
    if (reply.status === 201 && reply.body.data.check_out_at === null) rc.user = await newUser(rc.token, rc.ws.roles.user)
  },
}

/** Clock-in and clock-out as the attendance keeps them: location and photo of that step, and the notes. */
async function clockBack(rc: RouteCtx, reply: Reply, step: 'check_in' | 'check_out') {
  const row = okData(await t.app.get(`/office/v1/attendances/${reply.body.data.id}`, { token: rc.token }), 'reading the attendance')
  return { ...clockAnswered(row, step), photo: await photoBack(rc, row[`${step}_photo_url`]) }
}
function clockAnswered(row: any, step: 'check_in' | 'check_out') {
  const location = row[`${step}_location`]
  return { latitude: location?.latitude ?? null, longitude: location?.longitude ?? null, notes: row.notes }
}

/** The field user clocks in (no photo, no notes): the open attendance a clock-out closes. */
async function clockedIn(rc: RouteCtx) {
  return createdData(await t.app.post('/app/v1/attendances/clock-in', SITE, { token: rc.field.token }), 'clock-in')
}

SPECS['POST /api/app/v1/attendances/clock-in'] = {
  family: 'attendance',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => ({
    path: '/app/v1/attendances/clock-in',
    body: { ...SITE, photo: 'https://cdn.example.com/selfie.jpg', notes: 'Morning shift' },
    token: rc.field.token,
  }),
  fields: siteFields('photo'),
  readBack: (rc, reply) => clockBack(rc, reply, 'check_in'),
  answered: (_rc, reply) => clockAnswered(reply.body.data, 'check_in'),
  // One open attendance per user: an accepted clock-in is clocked out before the next request.
  cleanup: async (rc, reply) => {
    if (reply.status === 201) okData(await t.app.post('/app/v1/attendances/clock-out', SITE, { token: rc.field.token }), 'clock-out')
  },
}

SPECS['POST /api/app/v1/attendances/clock-out'] = {
  family: 'attendance',
  setup: async (rc) => {
    rc.field = await t.app.member(rc.ws, 'user')
  },
  baseline: async (rc) => {
    await fresh(rc, clockedIn)
    return {
      path: '/app/v1/attendances/clock-out',
      body: { ...SITE, photo: 'https://cdn.example.com/leaving.jpg', notes: 'Done for today' },
      token: rc.field.token,
    }
  },
  fields: siteFields('photo'),
  readBack: (rc, reply) => clockBack(rc, reply, 'check_out'),
  answered: (_rc, reply) => clockAnswered(reply.body.data, 'check_out'),
  cleanup: usedUp,
}

badInputTests('attendance', { specs: SPECS })
