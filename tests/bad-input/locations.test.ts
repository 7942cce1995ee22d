/**
 * Hostile input for Location batches (src/modules/locations): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  foreign,
  missing,
  mutation,
  type Mutation,
  planVisit,
  type RouteCtx,
  type RouteSpec,
  t,
  visitKit,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Location batch (docs/API.md §Location tracking) ---------------------------------------------------------------------

let deviceSeconds = 0
/** A device time no other ping of the matrix has: a repeat would be skipped as a resent backlog. */
const deviceTime = () => new Date(t.app.clock.now().getTime() - 60_000 - ++deviceSeconds * 1000).toISOString()

const fullPing = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({
  lat: -6.2,
  lng: 106.8,
  is_mock: false,
  visit_id: rc.visit,
  accuracy_m: 5,
  speed_mps: 1.5,
  source: 'gps',
  battery_level: 0.8,
  signal_quality: 'good',
  recorded_at: deviceTime(),
  ...extra,
})

/** The same instant written with a +07:00 offset (`…T08:00:00.000Z` → `…T15:00:00.000+07:00`). */
const inJakarta = (iso: string) => new Date(Date.parse(iso) + 7 * 3_600_000).toISOString().replace('Z', '+07:00')

/** A ping as stored and read back: absent optional fields are null, recorded_at in UTC (or the receive time). */
const pingAsStored = (sent: Record<string, any>) => ({
  lat: sent.lat,
  lng: sent.lng,
  is_mock: sent.is_mock,
  visit_id: sent.visit_id ?? null,
  accuracy_m: sent.accuracy_m ?? null,
  speed_mps: sent.speed_mps ?? null,
  source: sent.source ?? null,
  battery_level: sent.battery_level ?? null,
  signal_quality: sent.signal_quality ?? null,
  recorded_at: sent.recorded_at != null ? new Date(sent.recorded_at).toISOString() : t.app.clock.now().toISOString(),
})

/** `pings` of a batch: 1 to 50 pings, all or nothing; errors are keyed `pings.N.<field>`. */
function pingList(): Mutation[] {
  type Extra = Record<string, unknown>
  const pings =
    (...extras: Extra[]) =>
    (_: unknown, rc: RouteCtx) =>
      extras.map((extra) => fullPing(rc, extra))
  const bad = (label: string, extra: Extra, path: string) => mutation(label, 'invalid', pings(extra), { path: `0.${path}` })
  const good = (label: string, ...extras: Extra[]) => mutation(label, 'valid', pings(...extras), { stored: (sent: Extra[]) => sent.map(pingAsStored) })
  const absent = undefined
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single ping instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => fullPing(rc)),
    mutation('empty list', 'invalid', []),
    mutation('51 pings (limit 50)', 'invalid', (_: unknown, rc: RouteCtx) => Array.from({ length: 51 }, () => fullPing(rc))),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('a ping that is a number', 'invalid', [42], { path: '0' }),
    bad('a ping without lat', { lat: absent }, 'lat'),
    bad('lat 90.5', { lat: 90.5 }, 'lat'),
    bad('lat -90.5', { lat: -90.5 }, 'lat'),
    bad('lat as a string', { lat: '-6.2' }, 'lat'),
    bad('lat null', { lat: null }, 'lat'),
    bad('a ping without lng', { lng: absent }, 'lng'),
    bad('lng 180.5', { lng: 180.5 }, 'lng'),
    bad('lng -180.5', { lng: -180.5 }, 'lng'),
    bad('a ping without is_mock', { is_mock: absent }, 'is_mock'),
    bad('is_mock "false"', { is_mock: 'false' }, 'is_mock'),
    bad('is_mock 0', { is_mock: 0 }, 'is_mock'),
    bad('accuracy_m -1', { accuracy_m: -1 }, 'accuracy_m'),
    bad('speed_mps -0.5', { speed_mps: -0.5 }, 'speed_mps'),
    bad('battery_level 1.5', { battery_level: 1.5 }, 'battery_level'),
    bad('battery_level -0.1', { battery_level: -0.1 }, 'battery_level'),
    bad('source "wifi"', { source: 'wifi' }, 'source'),
    bad('source "GPS" (case matters)', { source: 'GPS' }, 'source'),
    bad('an SQL-ish source', { source: "gps' OR '1'='1" }, 'source'),
    bad('signal_quality "excellent"', { signal_quality: 'excellent' }, 'signal_quality'),
    bad('visit_id 0', { visit_id: 0 }, 'visit_id'),
    bad('visit_id as a string', { visit_id: '1' }, 'visit_id'),
    bad('visit_id 2^53', { visit_id: 2 ** 53 }, 'visit_id'),
    bad('a visit that does not exist', { visit_id: 99_999_999 }, 'visit_id'),
    mutation('a visit of another workspace', 'invalid', (_: unknown, rc: RouteCtx) => [fullPing(rc, { visit_id: foreign.visit_id })], { path: '0.visit_id' }),
    bad('recorded_at "junk"', { recorded_at: 'junk' }, 'recorded_at'),
    bad('recorded_at 2026-02-30 (no such day)', { recorded_at: '2026-02-30T08:00:00Z' }, 'recorded_at'),
    bad('recorded_at a date only', { recorded_at: '2026-01-15' }, 'recorded_at'),
    mutation(
      'recorded_at 10 minutes in the future',
      'invalid',
      (_: unknown, rc: RouteCtx) => [fullPing(rc, { recorded_at: new Date(t.app.clock.now().getTime() + 600_000).toISOString() })],
      {
        path: '0.recorded_at',
      },
    ),
    mutation('a good ping, then one with lat 91 (nothing is saved)', 'invalid', pings({}, { lat: 91 }), { path: '1.lat' }),
    mutation(
      'a good ping, then one of another workspace’s visit (nothing is saved)',
      'invalid',
      (_: unknown, rc: RouteCtx) => [fullPing(rc), fullPing(rc, { visit_id: foreign.visit_id })],
      {
        path: '1.visit_id',
      },
    ),
    good('only the required fields', {
      visit_id: absent,
      accuracy_m: absent,
      speed_mps: absent,
      source: absent,
      battery_level: absent,
      signal_quality: absent,
      recorded_at: absent,
    }),
    good('every optional field null', {
      visit_id: null,
      accuracy_m: null,
      speed_mps: null,
      source: null,
      battery_level: null,
      signal_quality: null,
      recorded_at: null,
    }),
    good('the bounds: lat 90, lng -180, accuracy 0, speed 0, battery 0', { lat: 90, lng: -180, accuracy_m: 0, speed_mps: 0, battery_level: 0 }),
    good('the bounds: lat -90, lng 180, battery 1, a mock location', { lat: -90, lng: 180, battery_level: 1, is_mock: true }),
    good(
      'every source and signal quality',
      { source: 'network', signal_quality: 'fair' },
      { source: 'passive', signal_quality: 'poor' },
      { source: 'gps', signal_quality: 'good' },
    ),
    mutation('recorded_at with a +07:00 offset', 'valid', (_: unknown, rc: RouteCtx) => [fullPing(rc, { recorded_at: inJakarta(deviceTime()) })], {
      stored: (sent: Extra[]) => sent.map(pingAsStored),
    }),
    mutation('50 pings', 'valid', (_: unknown, rc: RouteCtx) => Array.from({ length: 50 }, () => fullPing(rc)), {
      stored: (sent: Extra[]) => sent.map(pingAsStored),
    }),
  ]
}

SPECS['POST /api/app/v1/locations/batch'] = {
  family: 'locations',
  setup: async (rc) => {
    await visitKit(rc)
    rc.visit = (await planVisit(rc)).id
  },
  // Sent by the field user, with the key the route requires (a new one per request).
  baseline: async (rc) => ({
    path: '/app/v1/locations/batch',
    body: { pings: [fullPing(rc)] },
    token: rc.field.token,
    headers: { 'x-idempotency-key': unique('batch') },
  }),
  fields: { pings: { mutations: pingList(), required: true } },
  // The pings this request saved: the field user's newest, as many as it counted, oldest first.
  readBack: async (rc, reply) => {
    const count = Number(reply.body.data.count)
    const rows = await t.app.db.pragma(`SELECT * FROM location_pings WHERE user_id = ${rc.field.user.id} ORDER BY id DESC LIMIT ${count}`)
    return {
      pings: rows.reverse().map((row) => ({
        lat: row.lat,
        lng: row.lng,
        is_mock: Boolean(row.is_mock),
        visit_id: row.visit_id,
        accuracy_m: row.accuracy_m,
        speed_mps: row.speed_mps,
        source: row.source,
        battery_level: row.battery_level,
        signal_quality: row.signal_quality,
        recorded_at: row.recorded_at,
      })),
    }
  },
}

badInputTests('locations', { specs: SPECS })
