/**
 * Location tracking (docs/API.md §Location tracking, "Location batch (mobile)", "Limits", "Idempotency rules";
 * docs/API.md §Idempotency, §Audit log, §Location tracking): the batch upload from phones, its validation matrix, idempotency and backlog
 * de-duplication, the office history and live map, and the daily retention job with its per-workspace
 * setting.
 */
import { PingTrail, savedPings, type TrailPoint } from '../src/modules/locations'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { JOBS, startJobs } from '../src/jobs'
import { purgeExpiredLocations } from '../src/jobs/location-retention.job'
import type { ManualClock } from '../src/lib/clock'
import { data, newVisit, visitSite } from './factories'
import { createTestApp, expectError, unique, useTestApp, type Reply, type Session, type TestApp, type Workspace } from './harness'

const t = useTestApp()

const BATCH = '/app/v1/locations/batch'
const HISTORY = '/office/v1/locations'
const LATEST = '/office/v1/locations/latest'
const MIN = 60_000
const DAY = 86_400_000

const clock = (app: TestApp = t.app) => app.clock as ManualClock
/** An instant `ms` before the (manual) clock's now, as the API writes it. */
const ago = (ms: number, app: TestApp = t.app) => new Date(clock(app).now().getTime() - ms).toISOString()
/** Midnight (UTC) `days` days before today, as `YYYY-MM-DD`. */
const dayAgo = (days: number, app: TestApp = t.app) => new Date(clock(app).now().getTime() - days * DAY).toISOString().slice(0, 10)

const ping = (extra: Record<string, unknown> = {}) => ({ lat: -6.2, lng: 106.8, is_mock: false, ...extra })

function batch(token: string, pings: unknown[], options: { key?: string | null; body?: Record<string, unknown>; app?: TestApp } = {}) {
  const app = options.app ?? t.app
  const idempotencyKey = options.key === null ? undefined : (options.key ?? unique('batch'))
  return app.post(BATCH, { pings, ...options.body }, { token, idempotencyKey })
}

function expectSaved(reply: Reply, count: number) {
  if (reply.status !== 201) throw new Error(`expected 201, got ${reply.status} ${reply.text}`)
  expect(reply.body).toEqual({ success: true, message: 'Locations Saved', code: 'CREATED', data: { count } })
}

/** Pings as stored (raw rows), for one user, oldest id first. */
async function pingsOf(userId: number, app: TestApp = t.app) {
  return app.db.pragma(`SELECT * FROM location_pings WHERE user_id = ${userId} ORDER BY id`)
}

async function lastPing() {
  const [row] = await t.app.db.pragma('SELECT * FROM location_pings ORDER BY id DESC LIMIT 1')
  return row
}

const pingCount = (where = '1 = 1', app: TestApp = t.app) => app.count('location_pings', where)

/** A visit of the workspace (no forms), assigned to `assignee`. */
async function visitIn(ws: Workspace, assignee: Session): Promise<number> {
  const token = ws.owner.token
  const { project, outlet } = await visitSite(t.app, token)
  return (await newVisit(t.app, token, { outlet_id: outlet.id, project_id: project.id, visit_date: dayAgo(0), user_ids: [assignee.user.id], submissions: [] }))
    .id
}

let ws: Workspace
let other: Workspace
let field: Session
let manager: Session
let admin: Session
let otherField: Session
let visitId: number
let foreignVisitId: number

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  field = await t.app.member(ws, 'user')
  manager = await t.app.member(ws, 'manager')
  admin = await t.app.member(ws, 'admin')
  otherField = await t.app.member(other, 'user')
  visitId = await visitIn(ws, field)
  foreignVisitId = await visitIn(other, otherField)
})

// ---------------------------------------------------------------------------------------------
// The validation matrix of POST /app/v1/locations/batch.
// ---------------------------------------------------------------------------------------------

interface PingCase {
  label: string
  /** The ping's fields (merged over a valid ping); `undefined` values remove the field. */
  value: () => Record<string, unknown>
  /** The field the 400 names (`pings.N.<field>`); absent = accepted. */
  invalid?: string
  /** For accepted cases: what the stored row must hold (raw columns). */
  stored?: () => Record<string, unknown>
}

const without = (field: string) => () => ({ [field]: undefined })
const set = (field: string, value: unknown) => () => ({ [field]: value })

/** A valid ping field by field, then each bound and wrong type. */
const PING_CASES: PingCase[] = [
  // lat: required, -90..90
  { label: 'lat missing', value: without('lat'), invalid: 'lat' },
  { label: 'lat null', value: set('lat', null), invalid: 'lat' },
  { label: 'lat as a string "12.5"', value: set('lat', '12.5'), invalid: 'lat' },
  { label: 'lat true', value: set('lat', true), invalid: 'lat' },
  { label: 'lat 90.000001 (above 90)', value: set('lat', 90.000001), invalid: 'lat' },
  { label: 'lat -90.5 (below -90)', value: set('lat', -90.5), invalid: 'lat' },
  { label: 'lat 1e308', value: set('lat', 1e308), invalid: 'lat' },
  { label: 'lat exactly 90', value: set('lat', 90), stored: () => ({ lat: 90 }) },
  { label: 'lat exactly -90', value: set('lat', -90), stored: () => ({ lat: -90 }) },
  { label: 'lat 0', value: set('lat', 0), stored: () => ({ lat: 0 }) },
  // lng: required, -180..180
  { label: 'lng missing', value: without('lng'), invalid: 'lng' },
  { label: 'lng null', value: set('lng', null), invalid: 'lng' },
  { label: 'lng as a string', value: set('lng', '106.8'), invalid: 'lng' },
  { label: 'lng 180.5 (above 180)', value: set('lng', 180.5), invalid: 'lng' },
  { label: 'lng -180.000001 (below -180)', value: set('lng', -180.000001), invalid: 'lng' },
  { label: 'lng exactly 180', value: set('lng', 180), stored: () => ({ lng: 180 }) },
  { label: 'lng exactly -180', value: set('lng', -180), stored: () => ({ lng: -180 }) },
  { label: 'lng with many decimals', value: set('lng', 106.123456789), stored: () => ({ lng: 106.123456789 }) },
  // is_mock: required boolean
  { label: 'is_mock missing', value: without('is_mock'), invalid: 'is_mock' },
  { label: 'is_mock null', value: set('is_mock', null), invalid: 'is_mock' },
  { label: 'is_mock "true"', value: set('is_mock', 'true'), invalid: 'is_mock' },
  { label: 'is_mock "false"', value: set('is_mock', 'false'), invalid: 'is_mock' },
  { label: 'is_mock 1', value: set('is_mock', 1), invalid: 'is_mock' },
  { label: 'is_mock 0', value: set('is_mock', 0), invalid: 'is_mock' },
  { label: 'is_mock true', value: set('is_mock', true), stored: () => ({ is_mock: 1 }) },
  { label: 'is_mock false', value: set('is_mock', false), stored: () => ({ is_mock: 0 }) },
  // visit_id: optional, a visit of the caller's workspace
  { label: 'visit_id as a string', value: () => ({ visit_id: String(visitId) }), invalid: 'visit_id' },
  { label: 'visit_id 0', value: set('visit_id', 0), invalid: 'visit_id' },
  { label: 'visit_id -1', value: set('visit_id', -1), invalid: 'visit_id' },
  { label: 'visit_id 1.5', value: set('visit_id', 1.5), invalid: 'visit_id' },
  { label: 'visit_id 2^53 (beyond the safe integers)', value: set('visit_id', 2 ** 53), invalid: 'visit_id' },
  { label: 'visit_id of no visit (99999999)', value: set('visit_id', 99_999_999), invalid: 'visit_id' },
  { label: "visit_id of another workspace's visit", value: () => ({ visit_id: foreignVisitId }), invalid: 'visit_id' },
  { label: 'visit_id of a visit of the workspace', value: () => ({ visit_id: visitId }), stored: () => ({ visit_id: visitId }) },
  { label: 'visit_id null', value: set('visit_id', null), stored: () => ({ visit_id: null }) },
  // accuracy_m, speed_mps: optional, >= 0
  { label: 'accuracy_m -0.1 (below 0)', value: set('accuracy_m', -0.1), invalid: 'accuracy_m' },
  { label: 'accuracy_m as a string', value: set('accuracy_m', '5'), invalid: 'accuracy_m' },
  { label: 'accuracy_m true', value: set('accuracy_m', true), invalid: 'accuracy_m' },
  { label: 'accuracy_m 0', value: set('accuracy_m', 0), stored: () => ({ accuracy_m: 0 }) },
  { label: 'accuracy_m 12.5', value: set('accuracy_m', 12.5), stored: () => ({ accuracy_m: 12.5 }) },
  { label: 'accuracy_m null', value: set('accuracy_m', null), stored: () => ({ accuracy_m: null }) },
  { label: 'speed_mps -1 (below 0)', value: set('speed_mps', -1), invalid: 'speed_mps' },
  { label: 'speed_mps as a string', value: set('speed_mps', '3'), invalid: 'speed_mps' },
  { label: 'speed_mps 0', value: set('speed_mps', 0), stored: () => ({ speed_mps: 0 }) },
  { label: 'speed_mps 33.3', value: set('speed_mps', 33.3), stored: () => ({ speed_mps: 33.3 }) },
  // battery_level: optional, 0..1
  { label: 'battery_level -0.01 (below 0)', value: set('battery_level', -0.01), invalid: 'battery_level' },
  { label: 'battery_level 1.01 (above 1)', value: set('battery_level', 1.01), invalid: 'battery_level' },
  { label: 'battery_level 87 (a percentage)', value: set('battery_level', 87), invalid: 'battery_level' },
  { label: 'battery_level as a string', value: set('battery_level', '0.5'), invalid: 'battery_level' },
  { label: 'battery_level exactly 0', value: set('battery_level', 0), stored: () => ({ battery_level: 0 }) },
  { label: 'battery_level exactly 1', value: set('battery_level', 1), stored: () => ({ battery_level: 1 }) },
  { label: 'battery_level 0.15', value: set('battery_level', 0.15), stored: () => ({ battery_level: 0.15 }) },
  // source: gps | network | passive
  ...['wifi', 'GPS', '', "gps' OR '1'='1"].map((v): PingCase => ({ label: `source ${JSON.stringify(v)}`, value: set('source', v), invalid: 'source' })),
  { label: 'source 1', value: set('source', 1), invalid: 'source' },
  ...['gps', 'network', 'passive'].map((v): PingCase => ({ label: `source "${v}"`, value: set('source', v), stored: () => ({ source: v }) })),
  { label: 'source null', value: set('source', null), stored: () => ({ source: null }) },
  // signal_quality: good | fair | poor
  ...['excellent', 'GOOD', ''].map(
    (v): PingCase => ({ label: `signal_quality ${JSON.stringify(v)}`, value: set('signal_quality', v), invalid: 'signal_quality' }),
  ),
  { label: 'signal_quality true', value: set('signal_quality', true), invalid: 'signal_quality' },
  ...['good', 'fair', 'poor'].map(
    (v): PingCase => ({ label: `signal_quality "${v}"`, value: set('signal_quality', v), stored: () => ({ signal_quality: v }) }),
  ),
  // recorded_at: optional ISO 8601 date-time, a real calendar day, at most 5 minutes in the future
  ...[
    ['"junk"', 'junk'],
    ['empty string', ''],
    ['a date only', '2026-01-15'],
    ['2026-02-30 (no such day)', '2026-02-30T08:00:00Z'],
    ['2027-02-29 (not a leap year)', '2027-02-29T08:00:00Z'],
    ['2026-04-31 (no such day)', '2026-04-31T08:00:00Z'],
    ['month 13', '2026-13-01T08:00:00Z'],
    ['hour 25', '2026-01-15T25:00:00Z'],
    ['minute 60', '2026-01-15T08:60:00Z'],
    ['a US-style date', '01/15/2026 08:00'],
    ['an SQL-ish string', "2026-01-15T08:00:00Z' OR 1=1 --"],
  ].map(([label, v]): PingCase => ({ label: `recorded_at ${label}`, value: set('recorded_at', v), invalid: 'recorded_at' })),
  { label: 'recorded_at a number', value: set('recorded_at', 1_768_464_000_000), invalid: 'recorded_at' },
  { label: 'recorded_at 6 minutes in the future', value: () => ({ recorded_at: ago(-6 * MIN) }), invalid: 'recorded_at' },
  { label: 'recorded_at a year in the future', value: () => ({ recorded_at: ago(-365 * DAY) }), invalid: 'recorded_at' },
  {
    label: 'recorded_at 4 minutes in the future',
    value: () => ({ recorded_at: ago(-4 * MIN) }),
    stored: () => ({ recorded_at: ago(-4 * MIN), device_time: 1 }),
  },
  {
    label: 'recorded_at with a +07:00 offset (stored in UTC)',
    value: () => ({ recorded_at: `${dayAgo(2)}T15:30:00+07:00` }),
    stored: () => ({ recorded_at: `${dayAgo(2)}T08:30:00.000Z`, device_time: 1 }),
  },
  {
    label: 'recorded_at without milliseconds (stored with them)',
    value: () => ({ recorded_at: `${dayAgo(2)}T09:00:00Z` }),
    stored: () => ({ recorded_at: `${dayAgo(2)}T09:00:00.000Z`, device_time: 1 }),
  },
  {
    label: 'recorded_at absent: the server receive time, not a device time',
    value: without('recorded_at'),
    stored: () => ({ recorded_at: clock().now().toISOString(), device_time: 0 }),
  },
  {
    label: 'recorded_at null: the server receive time',
    value: set('recorded_at', null),
    stored: () => ({ recorded_at: clock().now().toISOString(), device_time: 0 }),
  },
]

/** A batch where the case's ping sits at index 2 behind two valid ones: the error names `pings.2.*`. */
describe('POST /app/v1/locations/batch: every ping field and bound', () => {
  let user: Session
  beforeAll(async () => {
    user = await t.app.member(ws, 'user')
  })
  let seq = 0
  /** Distinct device times, so valid companions are never taken for backlog duplicates. */
  const companion = () => ping({ recorded_at: ago(30 * DAY - ++seq * 1000) })

  for (const c of PING_CASES) {
    const outcome = c.invalid ? `400 VALIDATION_ERROR errors["pings.2.${c.invalid}"], nothing saved` : '201, stored as sent'
    test(`${c.label} → ${outcome}`, async () => {
      const mutated: Record<string, unknown> = ping()
      for (const [key, value] of Object.entries(c.value())) {
        if (value === undefined) delete mutated[key]
        else mutated[key] = value
      }
      const before = await pingCount()
      const reply = await batch(user.token, [companion(), companion(), mutated])
      if (c.invalid) {
        const errors = expectError(reply, 400, 'VALIDATION_ERROR')
        expect(reply.body.message).toBe('Validation failed')
        expect(Object.keys(errors)).toEqual([`pings.2.${c.invalid}`])
        expect(errors[`pings.2.${c.invalid}`]).toBeArray()
        expect(await pingCount()).toBe(before)
        return
      }
      expectSaved(reply, 3)
      expect(await pingCount()).toBe(before + 3)
      const row = await lastPing()
      expect(row.user_id).toBe(user.user.id)
      expect(row.workspace_id).toBe(ws.id)
      const expected = c.stored!()
      const picked = Object.fromEntries(Object.keys(expected).map((key) => [key, row[key]]))
      expect(picked).toEqual(expected)
    })
  }

  test('a ping with every field is stored with every field, as the history shows it', async () => {
    const recordedAt = ago(3 * MIN)
    const full = {
      lat: -6.175392,
      lng: 106.827153,
      is_mock: true,
      visit_id: visitId,
      accuracy_m: 8.5,
      speed_mps: 1.25,
      source: 'network',
      battery_level: 0.42,
      signal_quality: 'fair',
      recorded_at: recordedAt,
    }
    expectSaved(await batch(user.token, [full]), 1)
    const history = await t.app.get(
      `${HISTORY}?user_id=${user.user.id}&date_from=${encodeURIComponent(recordedAt)}&date_to=${encodeURIComponent(recordedAt)}`,
      {
        token: ws.owner.token,
      },
    )
    expect(history.status).toBe(200)
    expect(history.body.data).toHaveLength(1)
    const [shown] = history.body.data
    expect(Object.keys(shown).sort()).toEqual(
      [
        'id',
        'workspace_id',
        'user_id',
        'visit_id',
        'lat',
        'lng',
        'accuracy_m',
        'speed_mps',
        'source',
        'battery_level',
        'is_mock',
        'signal_quality',
        'recorded_at',
        'flags',
        'created_at',
        'updated_at',
      ].sort(),
    )
    const now = clock().now().toISOString()
    expect(shown).toEqual({
      ...full,
      id: shown.id,
      workspace_id: ws.id,
      user_id: user.user.id,
      flags: full.is_mock ? ['mock'] : [],
      created_at: now,
      updated_at: now,
    })
  })

  test('a recorded_at without a zone is read as UTC whatever the server’s time zone (as the history filters read it)', async () => {
    const zone = process.env.TZ
    const local = `${dayAgo(2)}T10:20:30`
    try {
      process.env.TZ = 'Asia/Jakarta'
      expectSaved(await batch(user.token, [ping({ recorded_at: local })]), 1)
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
    expect((await lastPing()).recorded_at).toBe(`${local}.000Z`)
    const history = await t.app.get(`${HISTORY}?user_id=${user.user.id}&date_from=${local}&date_to=${local}`, { token: ws.owner.token })
    expect(history.body.data.map((p: { recorded_at: string }) => p.recorded_at)).toEqual([`${local}.000Z`])
  })

  test('errors of several pings are all reported, each keyed pings.N.field, and none is saved', async () => {
    const before = await pingCount()
    const reply = await batch(user.token, [ping({ lat: 91 }), companion(), ping({ lng: -181, battery_level: 2 }), ping({ is_mock: undefined, source: 'wifi' })])
    const errors = expectError(reply, 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors).sort()).toEqual(['pings.0.lat', 'pings.2.battery_level', 'pings.2.lng', 'pings.3.is_mock', 'pings.3.source'])
    expect(await pingCount()).toBe(before)
  })

  test('all or nothing: one unknown visit_id among valid pings saves none of them', async () => {
    const before = await pingCount()
    const reply = await batch(user.token, [companion(), ping({ visit_id: visitId }), companion(), ping({ visit_id: foreignVisitId })])
    const errors = expectError(reply, 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(['pings.3.visit_id'])
    expect(await pingCount()).toBe(before)
  })

  test('all or nothing: one ping 6 minutes in the future among valid pings saves none of them', async () => {
    const before = await pingCount()
    const reply = await batch(user.token, [companion(), companion(), companion(), ping({ recorded_at: ago(-6 * MIN) })])
    const errors = expectError(reply, 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(['pings.3.recorded_at'])
    expect(await pingCount()).toBe(before)
    expect(await t.app.count('latest_locations', `user_id = ${user.user.id} AND recorded_at > '${ago(-5 * MIN)}'`)).toBe(0)
  })

  test('a ping that is not an object (null, a number, a list) → 400 errors["pings.N"]', async () => {
    for (const bad of [null, 42, 'ping', [ping()]]) {
      const before = await pingCount()
      const errors = expectError(await batch(user.token, [companion(), bad]), 400, 'VALIDATION_ERROR')
      expect({ bad, keys: Object.keys(errors) }).toEqual({ bad, keys: ['pings.1'] })
      expect(await pingCount()).toBe(before)
    }
  })
})

describe('POST /app/v1/locations/batch: the batch itself', () => {
  test('0 pings → 400 VALIDATION_ERROR errors.pings, nothing saved', async () => {
    const before = await pingCount()
    const errors = expectError(await batch(field.token, []), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(['pings'])
    expect(await pingCount()).toBe(before)
  })

  test('51 pings → 400 VALIDATION_ERROR errors.pings, nothing saved', async () => {
    const before = await pingCount()
    const errors = expectError(
      await batch(
        field.token,
        Array.from({ length: 51 }, () => ping()),
      ),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toEqual(['pings'])
    expect(await pingCount()).toBe(before)
  })

  test('exactly 50 pings → 201 with count 50, all stored', async () => {
    const user = await t.app.member(ws, 'user')
    expectSaved(
      await batch(
        user.token,
        Array.from({ length: 50 }, (_, i) => ping({ recorded_at: ago(DAY + i * MIN) })),
      ),
      50,
    )
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(50)
  })

  test('exactly 1 ping → 201 with count 1', async () => {
    const before = await pingCount(`user_id = ${field.user.id}`)
    expectSaved(await batch(field.token, [ping()]), 1)
    expect(await pingCount(`user_id = ${field.user.id}`)).toBe(before + 1)
  })

  test('pings missing, null, an object or text → 400 VALIDATION_ERROR errors.pings', async () => {
    for (const body of [{}, { pings: null }, { pings: ping() }, { pings: 'lat=1' }]) {
      const before = await pingCount()
      const reply = await t.app.post(BATCH, body, { token: field.token, idempotencyKey: unique('batch') })
      const errors = expectError(reply, 400, 'VALIDATION_ERROR')
      expect({ body, keys: Object.keys(errors) }).toEqual({ body, keys: ['pings'] })
      expect(await pingCount()).toBe(before)
    }
  })

  test('malformed JSON → 400 VALIDATION_ERROR errors.body, nothing saved', async () => {
    const before = await pingCount()
    const reply = await t.app.request('POST', BATCH, {
      raw: '{"pings": [',
      headers: { 'content-type': 'application/json' },
      token: field.token,
      idempotencyKey: unique('batch'),
    })
    expect(Object.keys(expectError(reply, 400, 'VALIDATION_ERROR'))).toEqual(['body'])
    expect(await pingCount()).toBe(before)
  })

  test('without X-Idempotency-Key → 400 VALIDATION_ERROR errors["x-idempotency-key"], nothing saved', async () => {
    const before = await pingCount()
    const errors = expectError(await batch(field.token, [ping()], { key: null }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(['x-idempotency-key'])
    expect(errors['x-idempotency-key']).toBeArray()
    expect(await pingCount()).toBe(before)
  })

  test('an empty X-Idempotency-Key → 400 errors["x-idempotency-key"]; one over 64 characters → 400 too; nothing saved', async () => {
    const before = await pingCount()
    for (const key of ['', 'k'.repeat(65)]) {
      const reply = await t.app.post(BATCH, { pings: [ping()] }, { token: field.token, headers: { 'x-idempotency-key': key } })
      const errors = expectError(reply, 400, 'VALIDATION_ERROR')
      expect({ length: key.length, keys: Object.keys(errors) }).toEqual({ length: key.length, keys: ['x-idempotency-key'] })
    }
    expect(await pingCount()).toBe(before)
  })

  test('an X-Idempotency-Key of exactly 64 characters is accepted', async () => {
    const key = `${unique('k')}-`.padEnd(64, 'k')
    expectSaved(await batch(field.token, [ping()], { key }), 1)
  })

  test('user and workspace always come from the token: body and ping user_id/workspace_id are ignored', async () => {
    const user = await t.app.member(ws, 'user')
    const forged = { user_id: otherField.user.id, workspace_id: other.id, id: 987_654_321, created_at: '2000-01-01T00:00:00.000Z', device_time: false }
    const reply = await batch(user.token, [ping({ ...forged, recorded_at: ago(MIN) })], { body: { user_id: otherField.user.id, workspace_id: other.id } })
    expectSaved(reply, 1)
    const [row] = await pingsOf(user.user.id)
    expect(row).toMatchObject({ user_id: user.user.id, workspace_id: ws.id, created_at: clock().now().toISOString(), device_time: 1 })
    expect(row.id).not.toBe(987_654_321)
    expect(await pingCount(`user_id = ${otherField.user.id}`)).toBe(0)
    expect(await pingCount(`workspace_id = ${other.id}`)).toBe(0)
  })

  test('a batch writes no audit entry (docs/API.md §Audit log)', async () => {
    const before = await t.app.count('audit_logs')
    expectSaved(await batch(field.token, [ping(), ping({ lat: 1 })]), 2)
    expect(await t.app.count('audit_logs')).toBe(before)
  })
})

describe('POST /app/v1/locations/batch: who may upload', () => {
  test('without a token → 401 UNAUTHORIZED, nothing saved', async () => {
    const before = await pingCount()
    const reply = await t.app.post(BATCH, { pings: [ping()] }, { idempotencyKey: unique('batch') })
    expectError(reply, 401, 'UNAUTHORIZED')
    expect(await pingCount()).toBe(before)
  })

  for (const role of ['user', 'manager', 'admin', 'super_admin'] as const) {
    test(`a ${role} (mobile location:create) may upload: 201, stored under their own id`, async () => {
      const session = { user: field, manager, admin, super_admin: ws.owner }[role]
      const before = await pingCount(`user_id = ${session.user.id}`)
      expectSaved(await batch(session.token, [ping({ lat: 10 })]), 1)
      expect(await pingCount(`user_id = ${session.user.id}`)).toBe(before + 1)
    })
  }

  test('a custom role with no grants → 403 FORBIDDEN, nothing saved (even with a bad body and no key)', async () => {
    const powerless = await t.app.memberWithGrants(ws, [])
    const before = await pingCount()
    expectError(await batch(powerless.token, [ping()]), 403, 'FORBIDDEN')
    expectError(await batch(powerless.token, [], { key: null }), 403, 'FORBIDDEN')
    expect(await pingCount()).toBe(before)
  })

  test('location:create granted on the web platform only → 403 on the mobile route', async () => {
    const webOnly = await t.app.memberWithGrants(ws, [{ key: 'location:create', platform: 'web', access: 'full' }])
    const before = await pingCount()
    expectError(await batch(webOnly.token, [ping()]), 403, 'FORBIDDEN')
    expect(await pingCount()).toBe(before)
  })

  test('livemap:view alone does not allow uploading → 403', async () => {
    const viewer = await t.app.memberWithGrants(ws, [
      { key: 'livemap:view', platform: 'web', access: 'view' },
      { key: 'livemap:view', platform: 'mobile', access: 'view' },
    ])
    expectError(await batch(viewer.token, [ping()]), 403, 'FORBIDDEN')
    expect(await pingCount(`user_id = ${viewer.user.id}`)).toBe(0)
  })

  test('a custom role with mobile location:create may upload → 201', async () => {
    const tracker = await t.app.memberWithGrants(ws, [{ key: 'location:create', platform: 'mobile', access: 'full' }])
    expectSaved(await batch(tracker.token, [ping()]), 1)
    expect(await pingCount(`user_id = ${tracker.user.id}`)).toBe(1)
  })
})

describe('POST /app/v1/locations/batch: idempotency (docs/API.md §Idempotency)', () => {
  let user: Session
  beforeAll(async () => {
    user = await t.app.member(ws, 'user')
  })

  test('the same key and body again → 204, no body, X-Idempotency-Code IDEMPOTENT_DUPLICATE, nothing written', async () => {
    const key = unique('retry')
    const pings = [ping({ recorded_at: ago(10 * MIN) }), ping()]
    expectSaved(await batch(user.token, pings, { key }), 2)
    const rows = await pingsOf(user.user.id)
    const latest = await t.app.db.pragma(`SELECT * FROM latest_locations WHERE user_id = ${user.user.id}`)
    const keys = await t.app.count('idempotency_keys')
    const again = await batch(user.token, pings, { key })
    expect(again.status).toBe(204)
    expect(again.text).toBe('')
    expect(again.headers.get('x-idempotency-code')).toBe('IDEMPOTENT_DUPLICATE')
    expect(await pingsOf(user.user.id)).toEqual(rows)
    expect(await t.app.db.pragma(`SELECT * FROM latest_locations WHERE user_id = ${user.user.id}`)).toEqual(latest)
    expect(await t.app.count('idempotency_keys')).toBe(keys)
  })

  test('the key is checked before the batch is: a retry of a saved batch that would now be refused (the server clock stepped back) is still 204', async () => {
    const key = unique('retry')
    const now = clock().now()
    const pings = [ping({ recorded_at: new Date(now.getTime() + 4 * MIN).toISOString() })]
    expectSaved(await batch(user.token, pings, { key }), 1)
    // An NTP correction puts the server two minutes back: the ping is now 6 minutes ahead of it.
    clock().set(new Date(now.getTime() - 2 * MIN))
    try {
      // The control: a new key with the same body is refused.
      expectError(await batch(user.token, pings, { key: unique('fresh') }), 400, 'VALIDATION_ERROR')
      const again = await batch(user.token, pings, { key })
      expect(again.status).toBe(204)
      expect(again.headers.get('x-idempotency-code')).toBe('IDEMPOTENT_DUPLICATE')
    } finally {
      clock().set(now)
    }
  })

  test('the same key with another body → 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const key = unique('retry')
    expectSaved(await batch(user.token, [ping({ lat: 1 })], { key }), 1)
    const before = await pingCount(`user_id = ${user.user.id}`)
    expectError(await batch(user.token, [ping({ lat: 2 })], { key }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(before)
    expect(await pingCount(`user_id = ${user.user.id} AND lat = 2`)).toBe(0)
  })

  test("another user of the workspace with someone's key and body → 422, nothing written for either", async () => {
    const key = unique('retry')
    const pings = [ping({ lat: 3 })]
    expectSaved(await batch(user.token, pings, { key }), 1)
    const before = await pingCount()
    expectError(await batch(field.token, pings, { key }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await pingCount()).toBe(before)
  })

  test('keys are scoped to the workspace: the same key in another workspace is a new batch', async () => {
    const key = unique('retry')
    expectSaved(await batch(user.token, [ping()], { key }), 1)
    expectSaved(await batch(otherField.token, [ping()], { key }), 1)
    expect(await pingCount(`user_id = ${otherField.user.id}`)).toBeGreaterThanOrEqual(1)
  })

  test('a refused batch stores no key: the corrected batch under the same key is saved', async () => {
    const key = unique('retry')
    const before = await pingCount(`user_id = ${user.user.id}`)
    expectError(await batch(user.token, [ping({ visit_id: foreignVisitId })], { key }), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('idempotency_keys', `key = '${key}'`)).toBe(0)
    expectSaved(await batch(user.token, [ping({ visit_id: visitId })], { key }), 1)
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(before + 1)
    expect(await t.app.count('idempotency_keys', `key = '${key}'`)).toBe(1)
  })
})

describe('POST /app/v1/locations/batch: backlog de-duplication by device time', () => {
  test('a resent backlog under a NEW key stores only the new pings; count reports only those', async () => {
    const user = await t.app.member(ws, 'user')
    const [t1, t2, t3, t4] = [40, 30, 20, 10].map((m) => ago(m * MIN))
    expectSaved(await batch(user.token, [ping({ recorded_at: t1 }), ping({ recorded_at: t2 }), ping({ recorded_at: t3 })]), 3)
    expectSaved(await batch(user.token, [ping({ recorded_at: t2, lat: 5 }), ping({ recorded_at: t3, lat: 5 }), ping({ recorded_at: t4 })]), 1)
    const rows = await pingsOf(user.user.id)
    expect(rows.map((row) => row.recorded_at)).toEqual([t1, t2, t3, t4])
    // The first copy stays: the resent duplicates changed nothing.
    expect(rows.map((row) => row.lat)).toEqual([-6.2, -6.2, -6.2, -6.2])
  })

  test('a backlog that is all duplicates → 201 with count 0, nothing stored', async () => {
    const user = await t.app.member(ws, 'user')
    const pings = [ping({ recorded_at: ago(5 * MIN) }), ping({ recorded_at: ago(4 * MIN) })]
    expectSaved(await batch(user.token, pings), 2)
    expectSaved(await batch(user.token, pings), 0)
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(2)
  })

  test('the same instant written another way (offset, no milliseconds) is the same device time', async () => {
    const user = await t.app.member(ws, 'user')
    const day = dayAgo(1)
    expectSaved(await batch(user.token, [ping({ recorded_at: `${day}T08:15:00.000Z` })]), 1)
    expectSaved(await batch(user.token, [ping({ recorded_at: `${day}T08:15:00Z` }), ping({ recorded_at: `${day}T15:15:00+07:00` })]), 0)
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(1)
  })

  test('the same device time twice in one batch is stored once', async () => {
    const user = await t.app.member(ws, 'user')
    const at = ago(2 * MIN)
    expectSaved(await batch(user.token, [ping({ recorded_at: at }), ping({ recorded_at: at, lat: 1 }), ping({ recorded_at: ago(MIN) })]), 2)
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(2)
  })

  test('on libSQL too: saved ids and counts match the rows stored, with and without skipped duplicates', async () => {
    const app = await createTestApp({ driver: 'libsql' })
    try {
      const w = await app.workspace()
      const user = await app.member(w, 'user')
      const [t1, t2, t3] = [30, 20, 10].map((m) => ago(m * MIN, app))
      expectSaved(await batch(user.token, [ping({ recorded_at: t1 }), ping({ recorded_at: t2 })], { app }), 2)
      expectSaved(await batch(user.token, [ping({ recorded_at: t3 }), ping({ recorded_at: t1 }), ping({ recorded_at: t2 })], { app }), 1)
      expectSaved(await batch(user.token, [ping(), ping({ lat: 1 })], { app }), 2)
      const rows = await pingsOf(user.user.id, app)
      expect(rows.map((row) => row.recorded_at).slice(0, 3)).toEqual([t1, t2, t3])
      const [latest] = (await app.get(LATEST, { token: w.owner.token })).body.data
      expect(latest).toMatchObject({ id: rows[4].id, user_id: user.user.id, lat: 1 })
    } finally {
      await app.close()
    }
  })

  test('pings without recorded_at are never de-duplicated', async () => {
    const user = await t.app.member(ws, 'user')
    const pings = [ping(), ping()]
    expectSaved(await batch(user.token, pings), 2)
    expectSaved(await batch(user.token, pings), 2)
    expect(await pingCount(`user_id = ${user.user.id}`)).toBe(4)
  })

  test('another user with the same device times is stored', async () => {
    const [a, b] = [await t.app.member(ws, 'user'), await t.app.member(ws, 'user')]
    const pings = [ping({ recorded_at: ago(7 * MIN) }), ping({ recorded_at: ago(6 * MIN) })]
    expectSaved(await batch(a.token, pings), 2)
    expectSaved(await batch(b.token, pings), 2)
    expect(await pingCount(`user_id IN (${a.user.id}, ${b.user.id})`)).toBe(4)
  })
})

// ---------------------------------------------------------------------------------------------
// History and live map.
// ---------------------------------------------------------------------------------------------

describe('GET /office/v1/locations: history (livemap:view)', () => {
  let hws: Workspace
  let h1: Session
  let h2: Session
  let h3: Session
  let hVisit: number
  let D: string
  let prev: string
  let next: string
  beforeAll(async () => {
    hws = await t.app.workspace()
    ;[h1, h2, h3] = [await t.app.member(hws, 'user'), await t.app.member(hws, 'user'), await t.app.member(hws, 'user')]
    hVisit = await visitIn(hws, h1)
    D = dayAgo(3)
    prev = dayAgo(4)
    next = dayAgo(2)
    expectSaved(
      await batch(h1.token, [
        ping({ recorded_at: `${D}T00:00:00.000Z`, visit_id: hVisit }),
        ping({ recorded_at: `${D}T12:00:00.000Z` }),
        ping({ recorded_at: `${D}T23:59:59.999Z` }),
        ping({ recorded_at: `${next}T00:00:00.000Z` }),
      ]),
      4,
    )
    // Same device time as one of h1's, saved later: a tie broken by id, newest first.
    expectSaved(await batch(h2.token, [ping({ recorded_at: `${D}T12:00:00.000Z` }), ping({ recorded_at: `${prev}T08:00:00.000Z` })]), 2)
  })

  const list = (query: string, token = hws.owner.token) => t.app.get(`${HISTORY}${query ? `?${query}` : ''}`, { token })
  const shown = (reply: Reply) => reply.body.data.map((p: { user_id: number; recorded_at: string }) => [p.user_id, p.recorded_at])

  test('ordered by recorded_at newest first, ties by id newest first; LIST_OK with meta', async () => {
    const reply = await list('')
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'LIST_OK' })
    expect(shown(reply)).toEqual([
      [h1.user.id, `${next}T00:00:00.000Z`],
      [h1.user.id, `${D}T23:59:59.999Z`],
      [h2.user.id, `${D}T12:00:00.000Z`],
      [h1.user.id, `${D}T12:00:00.000Z`],
      [h1.user.id, `${D}T00:00:00.000Z`],
      [h2.user.id, `${prev}T08:00:00.000Z`],
    ])
    expect(reply.body.data[2].id).toBeGreaterThan(reply.body.data[3].id)
    expect(reply.body.meta).toEqual({ page: 1, limit: 100, total: 6, total_pages: 1 })
  })

  test('user_id filter: only that user’s pings', async () => {
    const reply = await list(`user_id=${h2.user.id}`)
    expect(shown(reply)).toEqual([
      [h2.user.id, `${D}T12:00:00.000Z`],
      [h2.user.id, `${prev}T08:00:00.000Z`],
    ])
    expect(reply.body.meta.total).toBe(2)
  })

  test('visit_id filter: only pings of that visit', async () => {
    const reply = await list(`visit_id=${hVisit}`)
    expect(reply.body.data.map((p: { visit_id: number; recorded_at: string }) => [p.visit_id, p.recorded_at])).toEqual([[hVisit, `${D}T00:00:00.000Z`]])
  })

  test('a date-only date_to covers that whole day of recorded_at (UTC), a date-only date_from starts at its midnight', async () => {
    const reply = await list(`date_from=${D}&date_to=${D}`)
    expect(shown(reply)).toEqual([
      [h1.user.id, `${D}T23:59:59.999Z`],
      [h2.user.id, `${D}T12:00:00.000Z`],
      [h1.user.id, `${D}T12:00:00.000Z`],
      [h1.user.id, `${D}T00:00:00.000Z`],
    ])
  })

  test('date-time bounds are inclusive, on recorded_at (not the receive time)', async () => {
    const reply = await list(`date_from=${encodeURIComponent(`${D}T12:00:00.000Z`)}&date_to=${encodeURIComponent(`${D}T12:00:00Z`)}`)
    expect(shown(reply)).toEqual([
      [h2.user.id, `${D}T12:00:00.000Z`],
      [h1.user.id, `${D}T12:00:00.000Z`],
    ])
    // Every ping was received today: a filter on created_at would find none in these days.
    expect((await list(`date_to=${next}`)).body.meta.total).toBe(6)
    expect((await list(`date_from=${dayAgo(1)}`)).body.meta.total).toBe(0)
  })

  test('filters combine: user_id with a date range', async () => {
    const reply = await list(`user_id=${h1.user.id}&date_from=${D}&date_to=${encodeURIComponent(`${D}T12:00:00.000Z`)}`)
    expect(shown(reply)).toEqual([
      [h1.user.id, `${D}T12:00:00.000Z`],
      [h1.user.id, `${D}T00:00:00.000Z`],
    ])
  })

  test('impossible or malformed dates → 400 naming the filter', async () => {
    for (const [param, value] of [
      ['date_from', '2026-02-30'],
      ['date_to', 'junk'],
      ['date_to', '2026-01-15T25:00:00Z'],
    ]) {
      const errors = expectError(await list(`${param}=${encodeURIComponent(value)}`), 400, 'VALIDATION_ERROR')
      expect({ param, keys: Object.keys(errors) }).toEqual({ param, keys: [param] })
    }
  })

  test('paging: default limit 100 (of 150), limit above 1000 clamped to 1000, page 2 continues', async () => {
    expectSaved(
      await batch(
        h3.token,
        Array.from({ length: 50 }, (_, i) => ping({ recorded_at: `${prev}T10:${String(i).padStart(2, '0')}:00.000Z` })),
      ),
      50,
    )
    expectSaved(
      await batch(
        h3.token,
        Array.from({ length: 50 }, (_, i) => ping({ recorded_at: `${prev}T11:${String(i).padStart(2, '0')}:00.000Z` })),
      ),
      50,
    )
    expectSaved(
      await batch(
        h3.token,
        Array.from({ length: 50 }, (_, i) => ping({ recorded_at: `${prev}T12:${String(i).padStart(2, '0')}:00.000Z` })),
      ),
      50,
    )
    const first = await list(`user_id=${h3.user.id}`)
    expect(first.body.data).toHaveLength(100)
    expect(first.body.meta).toEqual({ page: 1, limit: 100, total: 150, total_pages: 2 })
    const clamped = await list(`user_id=${h3.user.id}&limit=5000`)
    expect(clamped.status).toBe(200)
    expect(clamped.body.meta).toEqual({ page: 1, limit: 1000, total: 150, total_pages: 1 })
    expect(clamped.body.data).toHaveLength(150)
    const page2 = await list(`user_id=${h3.user.id}&limit=2&page=2`)
    expect(page2.body.data.map((p: { recorded_at: string }) => p.recorded_at)).toEqual([`${prev}T12:47:00.000Z`, `${prev}T12:46:00.000Z`])
  })

  test('a manager and an admin (livemap:view on web) may read it; a field user and a powerless role get 403', async () => {
    const [m, a, f, p] = [await t.app.member(hws, 'manager'), await t.app.member(hws, 'admin'), h1, await t.app.memberWithGrants(hws, [])]
    expect((await list(`user_id=${h2.user.id}`, m.token)).body.meta.total).toBe(2)
    expect((await list(`user_id=${h2.user.id}`, a.token)).body.meta.total).toBe(2)
    expectError(await list('', f.token), 403, 'FORBIDDEN')
    expectError(await list('', p.token), 403, 'FORBIDDEN')
    const mobileOnly = await t.app.memberWithGrants(hws, [{ key: 'livemap:view', platform: 'mobile', access: 'view' }])
    expectError(await list('', mobileOnly.token), 403, 'FORBIDDEN')
    const webViewer = await t.app.memberWithGrants(hws, [{ key: 'livemap:view', platform: 'web', access: 'view' }])
    expect((await list(`user_id=${h2.user.id}`, webViewer.token)).body.meta.total).toBe(2)
  })

  test("another workspace sees none of these pings, even filtering by this workspace's user or visit", async () => {
    for (const query of ['', `user_id=${h1.user.id}`, `visit_id=${hVisit}`]) {
      const reply = await list(query, other.owner.token)
      expect(reply.status).toBe(200)
      expect(reply.body.data.filter((p: { workspace_id: number }) => p.workspace_id === hws.id)).toEqual([])
      if (query) expect(reply.body.meta.total).toBe(0)
    }
  })
})

describe('GET /office/v1/locations/latest: the live map (livemap:view)', () => {
  let lws: Workspace
  let l1: Session
  let l2: Session
  let l3: Session
  beforeAll(async () => {
    lws = await t.app.workspace()
    ;[l1, l2, l3] = [await t.app.member(lws, 'user', { name: 'Lina' }), await t.app.member(lws, 'user', { name: 'Lukas' }), await t.app.member(lws, 'user')]
  })

  const latest = async (token = lws.owner.token) => {
    const reply = await t.app.get(LATEST, { token })
    expect(reply.status).toBe(200)
    return reply
  }
  const entryOf = async (userId: number) => (await latest()).body.data.filter((p: { user_id: number }) => p.user_id === userId)

  test('a plain array (no meta) with one entry per user: the ping with the greatest recorded_at, with user_name', async () => {
    expectSaved(
      await batch(l1.token, [
        ping({ recorded_at: ago(30 * MIN), lat: 1 }),
        ping({ recorded_at: ago(10 * MIN), lat: 2 }),
        ping({ recorded_at: ago(20 * MIN), lat: 3 }),
      ]),
      3,
    )
    expectSaved(await batch(l2.token, [ping({ recorded_at: ago(50 * MIN), lat: 4 })]), 1)
    const reply = await latest()
    expect(reply.body).toMatchObject({ success: true, code: 'SUCCESS' })
    expect(reply.body.meta).toBeUndefined()
    expect(Array.isArray(reply.body.data)).toBe(true)
    expect(reply.body.data.map((p: any) => [p.user_id, p.user_name, p.lat, p.recorded_at])).toEqual([
      [l1.user.id, 'Lina', 2, ago(10 * MIN)],
      [l2.user.id, 'Lukas', 4, ago(50 * MIN)],
    ])
    // The entry is the stored ping itself (same id and fields as the history shows).
    const history = await t.app.get(`${HISTORY}?user_id=${l1.user.id}&limit=1`, { token: lws.owner.token })
    const { user_name: _name, ...entry } = reply.body.data[0]
    expect(entry).toEqual(history.body.data[0])
  })

  test('a late backlog with older device times never moves a user back', async () => {
    const before = await entryOf(l1.user.id)
    expectSaved(await batch(l1.token, [ping({ recorded_at: ago(3 * 60 * MIN), lat: 9 }), ping({ recorded_at: ago(15 * MIN), lat: 9 })]), 2)
    expect(await entryOf(l1.user.id)).toEqual(before)
  })

  test('a backlog of duplicates only (count 0) changes nothing', async () => {
    const before = await entryOf(l1.user.id)
    expectSaved(await batch(l1.token, [ping({ recorded_at: ago(10 * MIN), lat: 8 })]), 0)
    expect(await entryOf(l1.user.id)).toEqual(before)
  })

  test('a newer ping moves the user forward: the newest of the batch, not the last one sent', async () => {
    expectSaved(
      await batch(l2.token, [
        ping({ recorded_at: ago(40 * MIN), lat: 5 }),
        ping({ recorded_at: ago(5 * MIN), lat: 6 }),
        ping({ recorded_at: ago(45 * MIN), lat: 7 }),
      ]),
      3,
    )
    const [entry] = await entryOf(l2.user.id)
    expect([entry.lat, entry.recorded_at]).toEqual([6, ago(5 * MIN)])
  })

  test('a ping without recorded_at counts as received now, so it is the newest', async () => {
    expectSaved(await batch(l1.token, [ping({ lat: 11 })]), 1)
    const [entry] = await entryOf(l1.user.id)
    expect([entry.lat, entry.recorded_at]).toEqual([11, clock().now().toISOString()])
  })

  test('the entry moved forward is the newer ping as a whole: its id, recorded_at and created_at, as the history shows it', async () => {
    clock().advance(1000)
    expectSaved(await batch(l2.token, [ping({ recorded_at: ago(MIN), lat: 12, source: 'gps' })]), 1)
    const [entry] = await entryOf(l2.user.id)
    const history = await t.app.get(`${HISTORY}?user_id=${l2.user.id}&limit=1`, { token: lws.owner.token })
    const { user_name: _name, ...shown } = entry
    expect(shown).toEqual(history.body.data[0])
    expect(shown.created_at).toBe(clock().now().toISOString())
  })

  test('users without pings are not on the map; a refused batch puts no one on it', async () => {
    expectError(await batch(l3.token, [ping(), ping({ lat: 95 })]), 400, 'VALIDATION_ERROR')
    expect(await entryOf(l3.user.id)).toEqual([])
    expect((await latest()).body.data.map((p: { user_id: number }) => p.user_id).sort()).toEqual([l1.user.id, l2.user.id].sort())
  })

  test("workspace isolation: another workspace's map shows none of these users, and this one none of theirs", async () => {
    expectSaved(await batch(otherField.token, [ping({ recorded_at: ago(MIN) })]), 1)
    const theirs = await latest(other.owner.token)
    expect(theirs.body.data.every((p: { workspace_id: number }) => p.workspace_id === other.id)).toBe(true)
    expect(theirs.body.data.map((p: { user_id: number }) => p.user_id)).toContain(otherField.user.id)
    const ours = await latest()
    expect(ours.body.data.every((p: { workspace_id: number }) => p.workspace_id === lws.id)).toBe(true)
  })

  test('a field user and a powerless role get 403; a manager and an admin may read it', async () => {
    expectError(await t.app.get(LATEST, { token: l1.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(LATEST, { token: (await t.app.memberWithGrants(lws, [])).token }), 403, 'FORBIDDEN')
    expect((await latest((await t.app.member(lws, 'manager')).token)).body.data).toHaveLength(2)
    expect((await latest((await t.app.member(lws, 'admin')).token)).body.data).toHaveLength(2)
  })
})

// ---------------------------------------------------------------------------------------------
// Retention: its own app, so the purge sees only the pings written here.
// ---------------------------------------------------------------------------------------------

describe('retention: purgeExpiredLocations removes pings older than each workspace’s location_retention_days', () => {
  let r: TestApp
  let w90: Workspace
  let w30: Workspace
  let u90: Session
  let gone90: Session
  let u30: Session
  beforeAll(async () => {
    r = await createTestApp()
    w90 = await r.workspace()
    w30 = await r.workspace()
    u90 = await r.member(w90, 'user')
    gone90 = await r.member(w90, 'user')
    u30 = await r.member(w30, 'user')
  })
  afterAll(async () => {
    await r?.close()
  })

  test('the default retention of a workspace is 90 days', async () => {
    const list = await r.get('/office/v1/workspaces', { token: w90.owner.token })
    expect(list.body.data.find((w: { id: number }) => w.id === w90.id).location_retention_days).toBe(90)
  })

  test('only pings past the cutoff go (90 days by default, 30 after PUT settings); the count is returned; latest entries past retention go too', async () => {
    const set30 = await r.put(`/office/v1/workspaces/${w30.id}/settings`, { location_retention_days: 30 }, { token: w30.owner.token })
    expect(set30.status).toBe(200)
    const at = (ms: number) => ago(ms, r)
    // Workspace with 90 days: u90 has one ping just past and one just within; gone90 only old ones.
    expectSaved(
      await batch(u90.token, [ping({ recorded_at: at(90 * DAY + MIN) }), ping({ recorded_at: at(90 * DAY - MIN) }), ping({ recorded_at: at(31 * DAY) })], {
        app: r,
      }),
      3,
    )
    expectSaved(await batch(gone90.token, [ping({ recorded_at: at(200 * DAY) }), ping({ recorded_at: at(91 * DAY) })], { app: r }), 2)
    // Workspace with 30 days: the same 31-day-old ping is past retention there.
    expectSaved(
      await batch(u30.token, [ping({ recorded_at: at(31 * DAY) }), ping({ recorded_at: at(30 * DAY + MIN) }), ping({ recorded_at: at(29 * DAY) }), ping()], {
        app: r,
      }),
      4,
    )
    expect(await r.count('latest_locations')).toBe(3)

    const result = await purgeExpiredLocations(r.deps)
    expect(result).toEqual({ removed: 5, workspaces: 2 })

    expect((await pingsOf(u90.user.id, r)).map((row) => row.recorded_at)).toEqual([at(90 * DAY - MIN), at(31 * DAY)])
    expect(await pingsOf(gone90.user.id, r)).toEqual([])
    expect((await pingsOf(u30.user.id, r)).map((row) => row.recorded_at)).toEqual([at(29 * DAY), clock(r).now().toISOString()])

    const map90 = await r.get(LATEST, { token: w90.owner.token })
    expect(map90.body.data.map((p: { user_id: number; recorded_at: string }) => [p.user_id, p.recorded_at])).toEqual([[u90.user.id, at(31 * DAY)]])
    const map30 = await r.get(LATEST, { token: w30.owner.token })
    expect(map30.body.data.map((p: { user_id: number }) => p.user_id)).toEqual([u30.user.id])

    // Running again removes nothing more.
    expect(await purgeExpiredLocations(r.deps)).toEqual({ removed: 0, workspaces: 2 })
  })

  test('as time passes (ManualClock), pings age out and users whose newest ping is past retention leave the map', async () => {
    const c = clock(r)
    const start = c.now()
    try {
      c.advance(60 * DAY)
      // u90's newest (31 days old) is now 91 days old; u30's newest (now) is 60 days old in a 30-day workspace.
      const result = await purgeExpiredLocations(r.deps)
      expect(result.removed).toBe(4)
      expect(await r.count('location_pings')).toBe(0)
      expect(await r.count('latest_locations')).toBe(0)
    } finally {
      c.set(start)
    }
  })

  test('a shorter setting takes effect on the next run', async () => {
    const user = await r.member(w90, 'user')
    expectSaved(await batch(user.token, [ping({ recorded_at: ago(10 * DAY, r) }), ping({ recorded_at: ago(DAY, r) })], { app: r }), 2)
    expect((await purgeExpiredLocations(r.deps)).removed).toBe(0)
    expect((await r.put(`/office/v1/workspaces/${w90.id}/settings`, { location_retention_days: 7 }, { token: w90.owner.token })).status).toBe(200)
    expect((await purgeExpiredLocations(r.deps)).removed).toBe(1)
    expect((await pingsOf(user.user.id, r)).map((row) => row.recorded_at)).toEqual([ago(DAY, r)])
    expect(await r.count('latest_locations', `user_id = ${user.user.id}`)).toBe(1)
  })

  test("the job is in the cron table as 'location-retention', daily", () => {
    const job = JOBS.find((j) => j.name === 'location-retention')
    expect(job?.run).toBe(purgeExpiredLocations)
    const jobs = startJobs(r.deps)
    try {
      const cron = jobs.scheduled.find((c) => c.name === 'location-retention')!
      expect(cron.getPattern()).toBe(job?.schedule)
      const [first, second] = cron.nextRuns(2)
      expect(second!.getTime() - first!.getTime()).toBe(DAY)
    } finally {
      jobs.stop()
    }
  })
})

// ---------------------------------------------------------------------------------------------
// PUT /office/v1/workspaces/:id/settings.
// ---------------------------------------------------------------------------------------------

describe('PUT /office/v1/workspaces/:id/settings (workspace.manage: super_admin only)', () => {
  let sws: Workspace
  beforeAll(async () => {
    sws = await t.app.workspace()
  })
  const settings = (id: number, body: unknown, token = sws.owner.token) => t.app.put(`/office/v1/workspaces/${id}/settings`, body, { token })
  const stored = async (id: number) => {
    const [row] = await t.app.db.pragma(`SELECT name, location_retention_days FROM workspaces WHERE id = ${id}`)
    return row
  }

  test('the super_admin sets location_retention_days and name: 200 WORKSPACE_UPDATED, stored', async () => {
    const name = unique('Renamed')
    const reply = await settings(sws.id, { location_retention_days: 45, name })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'WORKSPACE_UPDATED', data: { id: sws.id, name, location_retention_days: 45, role: 'super_admin' } })
    expect(await stored(sws.id)).toEqual({ name, location_retention_days: 45 })
  })

  test("an audit entry 'updated' on entity workspace with old and new values of the changed fields", async () => {
    const before = await stored(sws.id)
    expect((await settings(sws.id, { location_retention_days: 120 })).status).toBe(200)
    const logs = await t.app.get(`/office/v1/audit-logs?entity_type=workspace&entity_id=${sws.id}&action=updated&limit=1`, { token: sws.owner.token })
    const [entry] = logs.body.data.data
    expect(entry).toMatchObject({
      entity_type: 'workspace',
      entity_id: String(sws.id),
      action: 'updated',
      actor_id: sws.owner.user.id,
      old_values: { location_retention_days: before.location_retention_days },
      new_values: { location_retention_days: 120 },
    })
  })

  test('the bounds 1 and 3650 are accepted', async () => {
    for (const days of [1, 3650]) {
      expect((await settings(sws.id, { location_retention_days: days })).status).toBe(200)
      expect((await stored(sws.id)).location_retention_days).toBe(days)
    }
  })

  for (const [label, value] of [
    ['0', 0],
    ['3651', 3651],
    ['-1', -1],
    ['1.5', 1.5],
    ['"30" (a string)', '30'],
    ['null', null],
    ['true', true],
  ] as [string, unknown][]) {
    test(`location_retention_days ${label} → 400 VALIDATION_ERROR errors.location_retention_days, nothing changed`, async () => {
      const before = await stored(sws.id)
      const errors = expectError(await settings(sws.id, { location_retention_days: value }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['location_retention_days'])
      expect(await stored(sws.id)).toEqual(before)
    })
  }

  test('an empty body → 400, nothing changed', async () => {
    const before = await stored(sws.id)
    expectError(await settings(sws.id, {}), 400, 'VALIDATION_ERROR')
    expect(await stored(sws.id)).toEqual(before)
  })

  test('an admin or a manager → 403 FORBIDDEN, nothing changed', async () => {
    const before = await stored(sws.id)
    for (const role of ['admin', 'manager', 'user']) {
      const member = await t.app.member(sws, role)
      expect({ role, code: (await settings(sws.id, { location_retention_days: 5 }, member.token)).body.code }).toEqual({ role, code: 'FORBIDDEN' })
    }
    expect(await stored(sws.id)).toEqual(before)
  })

  test('another workspace’s id → 404 WORKSPACE_NOT_FOUND, that workspace unchanged', async () => {
    const before = await stored(other.id)
    expectError(await settings(other.id, { location_retention_days: 5 }), 404, 'WORKSPACE_NOT_FOUND')
    expect(await stored(other.id)).toEqual(before)
  })

  test('a second workspace the super_admin can access is still 404 until switched to; no such id → 404', async () => {
    const second = data(await t.app.post('/office/v1/workspaces', { name: unique('Second') }, { token: sws.owner.token }), 201, 'a workspace')
    const before = await stored(second.id)
    expectError(await settings(second.id, { location_retention_days: 5 }), 404, 'WORKSPACE_NOT_FOUND')
    expect(await stored(second.id)).toEqual(before)
    expectError(await settings(99_999_999, { location_retention_days: 5 }), 404, 'WORKSPACE_NOT_FOUND')
    const switched = data(await t.app.post('/auth/switch-workspace', { workspace_id: second.id }, { token: sws.owner.token }), 200, 'switch')
    expect((await settings(second.id, { location_retention_days: 5 }, switched.token)).status).toBe(200)
    expect((await stored(second.id)).location_retention_days).toBe(5)
  })
})

describe('savedPings: pairing the ids a batch insert returns with the rows sent', () => {
  const row = (recorded_at: string, device_time: boolean, lat = 1) => ({
    visit_id: null,
    lat,
    lng: 2,
    accuracy_m: null,
    speed_mps: null,
    source: null,
    battery_level: null,
    is_mock: false,
    signal_quality: null,
    recorded_at,
    device_time,
    flag_bits: 0,
    created_at: 'NOW',
  })

  test('skipped repeats (in the batch or stored before) are left out; ids follow batch order whatever order they come back in', () => {
    const rows = [row('T1', true, 1), row('T1', true, 2), row('NOW', false, 3), row('T0', true, 4), row('NOW', false, 5)]
    // T0 was stored before; the second T1 repeats the first. Returned out of order on purpose.
    const stored = [
      { id: 12, recorded_at: 'NOW', device_time: 0 },
      { id: 11, recorded_at: 'T1', device_time: 1 },
      { id: 13, recorded_at: 'NOW', device_time: 0 },
    ]
    const saved = savedPings(rows, stored, 7, 9)
    expect(saved.map((ping) => [ping.id, ping.lat])).toEqual([
      [11, 1],
      [12, 3],
      [13, 5],
    ])
    expect(saved[0]).toEqual({
      id: 11,
      workspace_id: 7,
      user_id: 9,
      visit_id: null,
      lat: 1,
      lng: 2,
      accuracy_m: null,
      speed_mps: null,
      source: null,
      battery_level: null,
      is_mock: false,
      signal_quality: null,
      recorded_at: 'T1',
      flags: [],
      created_at: 'NOW',
      updated_at: 'NOW',
    })
  })

  test('a device time equal to the receive time is told apart by device_time', () => {
    const saved = savedPings([row('NOW', true, 1), row('NOW', false, 2)], [{ id: 2, recorded_at: 'NOW', device_time: 0 }], 1, 1)
    expect(saved.map((ping) => [ping.id, ping.lat])).toEqual([[2, 2]])
  })

  test('ids that match no row are an error, never a silent mix-up', () => {
    expect(() => savedPings([row('T1', true)], [{ id: 1, recorded_at: 'T2', device_time: 1 }], 1, 1)).toThrow(/matched 0/)
  })
})

// Spoofing flags on pings (docs/API.md §Field integrity): computed by the server against the user's
// previous ping by device time; distances computed here with the test's own formula.
describe('POST /app/v1/locations/batch: spoofing flags computed by the server', () => {
  const R = 6_371_008.8
  /** `metres` north of (lat, lng): one degree of latitude is R·π/180 metres. */
  const north = (lat: number, metres: number) => lat + (metres / (R * Math.PI)) * 180
  const BASE = -6.2
  const at = (seconds: number, metresNorth: number, extra: Record<string, unknown> = {}) =>
    ping({ lat: north(BASE, metresNorth), recorded_at: ago(3_600_000 - seconds * 1000), ...extra })

  let tracker: Session
  beforeAll(async () => {
    tracker = await t.app.member(ws, 'user')
  })
  const flagsOf = async (userId: number) => (await pingsOf(userId)).map((row) => row.flags)

  test('is_mock → mock; 69 m/s is clean, 71 m/s is impossible_speed; 5.1 km within 60 s is also a teleport', async () => {
    const user = await t.app.member(ws, 'user')
    // Each judged against the last kept ping: the 4th against the 2nd (69 m/s), the 6th against the 4th (51 m/s).
    expectSaved(await batch(user.token, [at(0, 0), at(100, 6_900), at(200, 14_000), at(300, 20_700), at(350, 25_800), at(400, 25_800, { is_mock: true })]), 6)
    expect(await flagsOf(user.user.id)).toEqual([0, 0, 2, 0, 2 | 4, 1])
    const history = data(await t.app.get(`${HISTORY}?user_id=${user.user.id}&sort_order=asc`, { token: admin.token }), 200, 'history')
    expect(history.map((p: { flags: string[] }) => p.flags)).toEqual([[], [], ['impossible_speed'], [], ['impossible_speed', 'teleport'], ['mock']])
    const latest = data(await t.app.get(LATEST, { token: admin.token }), 200, 'latest').find((p: { user_id: number }) => p.user_id === user.user.id)
    expect(latest.flags).toEqual(['mock'])
  })

  test('one GPS glitch flags one ping: A, B 20 km away 10 s later, C back near A 10 s after B → only B is flagged (one batch, or one batch each)', async () => {
    const together = await t.app.member(ws, 'user')
    expectSaved(await batch(together.token, [at(0, 0), at(10, 20_000), at(20, 50)]), 3)
    expect(await flagsOf(together.user.id)).toEqual([0, 2 | 4, 0])
    const apart = await t.app.member(ws, 'user')
    for (const [seconds, metres] of [
      [0, 0],
      [10, 20_000],
      [20, 50],
      [30, 100],
    ])
      expectSaved(await batch(apart.token, [at(seconds!, metres!)]), 1)
    expect(await flagsOf(apart.user.id)).toEqual([0, 2 | 4, 0, 0])
  })

  test('two glitches in a row are both flagged; a true move far away is accepted once the time since the last kept ping makes it possible', async () => {
    const user = await t.app.member(ws, 'user')
    // 20 km from A: impossible at 10 s and 20 s (judged against A both times), possible at 300 s (67 m/s).
    expectSaved(await batch(user.token, [at(0, 0), at(10, 20_000), at(20, 20_100)]), 3)
    expectSaved(await batch(user.token, [at(300, 20_100), at(310, 20_200)]), 2)
    expect(await flagsOf(user.user.id)).toEqual([0, 2 | 4, 2 | 4, 0, 0])
  })

  test('a late backlog reaching back before a stored glitch is judged against the kept ping before it, and the glitch keeps its flag', async () => {
    const user = await t.app.member(ws, 'user')
    expectSaved(await batch(user.token, [at(0, 0), at(10, 20_000), at(40, 100)]), 3)
    // Recorded between the glitch and C: 80 m from A 30 s after it: clean (against the glitch it would be a jump).
    expectSaved(await batch(user.token, [at(30, 80)]), 1)
    expect(await flagsOf(user.user.id)).toEqual([0, 2 | 4, 0, 0])
  })

  test('the previous ping may come from an earlier batch', async () => {
    expectSaved(await batch(tracker.token, [at(1_000, 0)]), 1)
    expectSaved(await batch(tracker.token, [at(1_010, 1_000)]), 1)
    expect(await flagsOf(tracker.user.id)).toEqual([0, 2])
  })

  test('a late backlog is compared with the ping before it by device time, not the last one received', async () => {
    const user = await t.app.member(ws, 'user')
    expectSaved(await batch(user.token, [at(0, 0), at(600, 30_000)]), 2) // 50 m/s: clean
    // Sent later, recorded between the two: 10 s after the first ping but 20 km away.
    expectSaved(await batch(user.token, [at(10, 20_000), at(590, 29_900)]), 2)
    expect(await flagsOf(user.user.id)).toEqual([0, 0, 2 | 4, 0])
  })

  test('pings without device time are neither flagged for jumps nor compared with', async () => {
    const user = await t.app.member(ws, 'user')
    expectSaved(
      await batch(user.token, [ping({ lat: north(BASE, 0) }), ping({ lat: north(BASE, 50_000) }), ping({ lat: north(BASE, 90_000), is_mock: true })]),
      3,
    )
    expect(await flagsOf(user.user.id)).toEqual([0, 0, 1])
  })

  test("a backlog repeat skipped as a duplicate changes no flag; another user's pings are never the previous one", async () => {
    const user = await t.app.member(ws, 'user')
    expectSaved(await batch(user.token, [at(0, 0)]), 1)
    expectSaved(await batch(tracker.token, [at(5, 40_000)]), 1)
    expectSaved(await batch(user.token, [at(0, 0), at(60, 1_000)]), 1)
    expect(await flagsOf(user.user.id)).toEqual([0, 0])
  })

  test('a fresh process reads the newest stored ping; a batch that fails leaves no trace in the trail (src/modules/locations/ping-trail.ts)', async () => {
    const user = await t.app.member(ws, 'user')
    const workspaceId = user.user.workspace_id
    expectSaved(await batch(user.token, [at(0, 0)]), 1)
    // As after a restart: nothing known in memory, so the stored ping is read: 1 km in 10 s is flagged.
    let failing = false
    class FailingTrail extends PingTrail {
      override set(ws: number, userId: number, point: TrailPoint | null) {
        super.set(ws, userId, point)
        if (failing) throw new Error('the commit failed')
      }
    }
    const trail = new FailingTrail()
    t.app.deps.pingTrail = trail
    expectSaved(await batch(user.token, [at(10, 1_000)]), 1)
    // The trail holds the newest KEPT ping: the flagged one is not it.
    expect(trail.get(workspaceId, user.user.id)?.at).toBe(Date.parse((at(0, 0) as { recorded_at?: string }).recorded_at!))
    expectSaved(await batch(user.token, [at(15, 700)]), 1)
    expect(trail.get(workspaceId, user.user.id)?.at).toBe(Date.parse((at(15, 700) as { recorded_at?: string }).recorded_at!))
    // A batch 100 km away whose transaction fails: nothing stored, nothing remembered.
    failing = true
    expect((await batch(user.token, [at(20, 100_000)])).status).toBe(500)
    expect(trail.get(workspaceId, user.user.id)).toBeUndefined()
    failing = false
    // 800 m in 15 s from the last kept ping: clean (against the failed one it would be a jump).
    expectSaved(await batch(user.token, [at(30, 1_500)]), 1)
    expect(await flagsOf(user.user.id)).toEqual([0, 2, 0, 0])
    t.app.deps.pingTrail = new PingTrail()
  })

  test('the live map receives the flags with each ping', async () => {
    const user = await t.app.member(ws, 'user')
    // A stand-in for the Bun server the hub publishes through (the real socket is tests/ws.test.ts's).
    const events: { type: string; data: { flags: string[] } }[] = []
    t.app.deps.hub.attach({ publish: (_topic: string, message: string) => events.push(JSON.parse(message)), subscriberCount: () => 1 } as never)
    expectSaved(await batch(user.token, [at(0, 0), at(1, 10_000)]), 2)
    expect(events.filter((e) => e.type === 'location.created').map((e) => e.data.flags)).toEqual([[], ['impossible_speed', 'teleport']])
  })
})
