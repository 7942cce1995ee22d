/**
 * Route replay and the field-day report (docs/API.md §Route replay, §Field day report): a field user's
 * local day in a zone far from UTC (Pacific/Kiritimati, UTC+14), uploaded as pings through the API
 * with device times under a controlled clock. Distances are computed here with the test's own
 * great-circle formula (spherical law of cosines), never with the module's haversine.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/lib/clock'
import { ok, visitSite } from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'
import { distance, north } from './support/geo'

const t = useTestApp()
const clock = () => t.app.clock as ManualClock

// ── The test's own geometry ────────────────────────────────────────────────────────────────────
const pathLength = (points: { lat: number; lng: number }[]) => points.slice(1).reduce((sum, p, i) => sum + distance(points[i]!, p), 0)

// ── The day: 2026-11-23 in Pacific/Kiritimati (UTC+14) = [2026-11-22T10:00Z, 2026-11-23T10:00Z) ──
const ZONE = 'Pacific/Kiritimati'
const DAY = '2026-11-23'
/** 08:00 local on DAY. */
const T0 = Date.parse('2026-11-22T18:00:00.000Z')
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString()
const A = { lat: 1.87, lng: -157.4 }
/** The stop (and the outlet): 680 m north of A. */
const S = north(A, 680)
const JUMP = north(S, 20_000)

interface Ping {
  lat: number
  lng: number
  t: number
}
/** Moving north from A, 120 m a minute. */
const moving: Ping[] = [0, 1, 2, 3, 4].map((k) => ({ ...north(A, 120 * k), t: 60 * k }))
/** Ten minutes at S, jittering 10 m: a stop from t=300 to t=900. */
const stopped: Ping[] = Array.from({ length: 11 }, (_, j) => ({ ...(j % 2 ? north(S, 10) : S), t: 300 + 60 * j }))
/** 20 km away 30 s later: the server flags it impossible_speed and teleport. */
const jump: Ping = { ...JUMP, t: 930 }
/** Back on the road 5 min after the jump (under 70 m/s from it: not flagged). */
const onward: Ping[] = [
  { ...north(S, 130), t: 1230 },
  { ...north(S, 250), t: 1290 },
]
/** After a 20-minute gap: a second segment. */
const second: Ping[] = [
  { ...north(A, 1430), t: 2490 },
  { ...north(A, 1550), t: 2550 },
  { ...north(A, 1670), t: 2610 },
]
/** After a 16-minute gap: a segment of one ping (300 m on: no stop across the gap). */
const lone: Ping = { ...north(A, 1970), t: 3570 }
/** Local 23:50 of the day before: not part of DAY. */
const before: Ping = { ...A, t: -(8 * 3600 + 10 * 60) }
const kept = [...moving, ...stopped, ...onward, ...second, lone]
const segments = [[...moving, ...stopped, ...onward], second, [lone]]

const body = (pings: Ping[]) => ({ pings: pings.map((p) => ({ lat: p.lat, lng: p.lng, is_mock: false, recorded_at: at(p.t) })) })

/** A workspace registered in `timezone`. */
const zonedWorkspace = (timezone: string) => t.app.workspace(unique('Zoned'), { timezone })

let ws: Workspace
let field: Session
let manager: Session
let other: Workspace
let otherField: Session
let visit: { id: number }
let planned: { id: number }
const OUTLET_NAME = `Toko <Maju> & "Jaya" 'Abadi'`

async function upload(user: Session, pings: Ping[]) {
  ok(await t.app.post('/app/v1/locations/batch', body(pings), { token: user.token, idempotencyKey: crypto.randomUUID() }), 201)
}

/** Sessions signed again at the current (moved) clock: access tokens live 15 minutes of it. */
async function relogin() {
  ws.owner = await t.app.login(ws.owner.user.email)
  field = await t.app.login(field.user.email)
  manager = await t.app.login(manager.user.email)
  otherField = await t.app.login(otherField.user.email)
}

beforeAll(async () => {
  clock().set(at(-8 * 3600))
  ws = await zonedWorkspace(ZONE)
  field = await t.app.member(ws, 'user')
  manager = await t.app.member(ws, 'manager')
  other = await zonedWorkspace('UTC')
  otherField = await t.app.member(other, 'user')
  const token = ws.owner.token
  const { project, outlet } = await visitSite(t.app, token, { name: OUTLET_NAME, latitude: S.lat, longitude: S.lng })
  const plan = (extra: Record<string, unknown> = {}) =>
    t.app.post(
      '/office/v1/visits',
      { outlet_id: outlet.id, project_id: project.id, visit_date: DAY, user_ids: [field.user.id], submissions: [], ...extra },
      { token },
    )
  visit = ok(await plan(), 201)
  planned = ok(await plan(), 201)

  // The phone's day, uploaded as it happens; the visit checked in and out during the stop.
  await upload(field, [before])
  clock().set(at(400))
  await relogin()
  await upload(field, [...moving, ...stopped.slice(0, 2)])
  ok(await t.app.post(`/app/v1/visits/${visit.id}/check-in`, { latitude: S.lat, longitude: S.lng }, { token: field.token }))
  clock().set(at(800))
  await relogin()
  ok(await t.app.post(`/app/v1/visits/${visit.id}/check-out`, { latitude: S.lat, longitude: S.lng }, { token: field.token }))
  clock().set(at(4000))
  await relogin()
  await upload(field, [...stopped.slice(2), jump])
  await upload(field, [...onward, ...second, lone])
  // Another workspace's user on the same day (must never show).
  await upload(otherField, [{ ...A, t: 100 }])
  // The day is over in Kiritimati.
  clock().set('2026-11-23T12:00:00.000Z')
  await relogin()
})

const route = (query: string, token = manager.token) => t.app.get(`/office/v1/locations/route?${query}`, { token })
const geojson = async (query: string) => {
  const reply = await route(query)
  if (reply.status !== 200) throw new Error(`route: ${reply.status} ${reply.text.slice(0, 300)}`)
  return { reply, doc: JSON.parse(reply.text) }
}

describe('route replay: the local day as GeoJSON', () => {
  test('the answer is application/geo+json: a FeatureCollection of the day’s segments as [lng, lat] LineStrings in device-time order', async () => {
    const { reply, doc } = await geojson(`user_id=${field.user.id}&date=${DAY}`)
    expect(reply.headers.get('content-type')).toStartWith('application/geo+json')
    expect(doc.type).toBe('FeatureCollection')
    const lines = doc.features.filter((f: any) => f.properties.kind === 'segment')
    expect(lines.map((f: any) => f.geometry.type)).toEqual(['LineString', 'LineString', 'Point'])
    expect(lines[0].geometry.coordinates).toEqual(segments[0]!.map((p) => [p.lng, p.lat]))
    expect(lines[1].geometry.coordinates).toEqual(segments[1]!.map((p) => [p.lng, p.lat]))
    expect(lines[2].geometry.coordinates).toEqual([lone.lng, lone.lat])
    expect(lines.map((f: any) => [f.properties.started_at, f.properties.ended_at])).toEqual(segments.map((s) => [at(s[0]!.t), at(s[s.length - 1]!.t)]))
  })

  test('a ping flagged impossible_speed/teleport is left out of the line and of the distance; distance is the sum of the segments', async () => {
    const flagged = ok(await t.app.get(`/office/v1/locations?user_id=${field.user.id}&date_from=${DAY}&date_to=${DAY}&limit=100`, { token: manager.token }))
    const stored = flagged.find((p: any) => p.recorded_at === at(jump.t))
    expect(stored.flags).toEqual(['impossible_speed', 'teleport'])
    expect(flagged.filter((p: any) => p.flags.length)).toHaveLength(1)

    const { doc } = await geojson(`user_id=${field.user.id}&date=${DAY}`)
    const all = doc.features
      .filter((f: any) => f.properties.kind === 'segment')
      .flatMap((f: any) => (f.geometry.type === 'Point' ? [f.geometry.coordinates] : f.geometry.coordinates))
    expect(all).toHaveLength(kept.length)
    expect(all).not.toContainEqual([JUMP.lng, JUMP.lat])
    const expected = segments.reduce((sum, segment) => sum + pathLength(segment), 0)
    expect(Math.abs(doc.properties.distance_m - expected)).toBeLessThan(0.1)
    // With the jump in, the distance would be 40 km more.
    expect(doc.properties.distance_m).toBeLessThan(3_000)
    expect(doc.properties.pings).toBe(kept.length + 1)
    expect(doc.properties.excluded_pings).toBe(1)
  })

  test('the day is the workspace’s local day: a ping of local 23:50 the day before is not in it; first and last ping times', async () => {
    const { doc } = await geojson(`user_id=${field.user.id}&date=${DAY}`)
    expect(doc.properties.date).toBe(DAY)
    expect(doc.properties.time_zone).toBe(ZONE)
    expect(doc.properties.first_ping_at).toBe(at(0))
    expect(doc.properties.last_ping_at).toBe(at(lone.t))
    const dayBefore = (await geojson(`user_id=${field.user.id}&date=2026-11-22`)).doc
    expect(dayBefore.properties.pings).toBe(1)
    expect(dayBefore.properties.first_ping_at).toBe(at(before.t))
  })

  test('a stop (≥ 5 min within 100 m) is a Point with its times, duration and the visit in progress then', async () => {
    const { doc } = await geojson(`user_id=${field.user.id}&date=${DAY}`)
    const stops = doc.features.filter((f: any) => f.properties.kind === 'stop')
    expect(stops).toHaveLength(1)
    const [stop] = stops
    expect(stop.geometry.type).toBe('Point')
    expect(stop.properties).toEqual({ kind: 'stop', started_at: at(300), ended_at: at(900), duration_s: 600, visit_id: visit.id })
    expect(distance({ lat: stop.geometry.coordinates[1], lng: stop.geometry.coordinates[0] }, S)).toBeLessThan(10)
    expect(doc.properties.stopped_s).toBe(600)
  })

  test('gaps are every interval over 15 minutes without pings; moving time is the rest outside stops', async () => {
    const { doc } = await geojson(`user_id=${field.user.id}&date=${DAY}`)
    expect(doc.properties.gaps).toEqual([
      { from: at(onward[1]!.t), to: at(second[0]!.t) },
      { from: at(second[2]!.t), to: at(lone.t) },
    ])
    const gapSeconds = second[0]!.t - onward[1]!.t + (lone.t - second[2]!.t)
    // first to last kept ping, less the stop's 600 s and the gaps
    expect(doc.properties.moving_s).toBe(lone.t - moving[0]!.t - 600 - gapSeconds)
  })

  test('each checked-in visit of the user’s day is a Point at its check-in with id, outlet name, status and flags; a visit never checked in has none', async () => {
    const { doc } = await geojson(`user_id=${field.user.id}&date=${DAY}`)
    const visits = doc.features.filter((f: any) => f.properties.kind === 'visit')
    expect(visits).toHaveLength(1)
    expect(visits[0].geometry).toEqual({ type: 'Point', coordinates: [S.lng, S.lat] })
    expect(visits[0].properties).toMatchObject({
      visit_id: visit.id,
      outlet_name: OUTLET_NAME,
      status: 'completed',
      flags: [],
      checked_in_at: at(400),
      checked_out_at: at(800),
    })
    expect(visits.map((f: any) => f.properties.visit_id)).not.toContain(planned.id)
  })

  test('a day without pings is a valid empty FeatureCollection with zeros', async () => {
    const { reply, doc } = await geojson(`user_id=${field.user.id}&date=2026-11-25`)
    expect(reply.headers.get('content-type')).toStartWith('application/geo+json')
    expect(doc).toEqual({
      type: 'FeatureCollection',
      properties: expect.objectContaining({
        distance_m: 0,
        moving_s: 0,
        stopped_s: 0,
        gaps: [],
        first_ping_at: null,
        last_ping_at: null,
        pings: 0,
        excluded_pings: 0,
      }),
      features: [],
    })
  })
})

/** Well-formedness by a stack of tags (the answer has no comments, CDATA or doctype); returns the element names in order. */
function xmlElements(xml: string): string[] {
  // XML 1.0 `Char`: tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF; nothing else, escaped or not.
  const notChar = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.exec(xml)
  if (notChar) throw new Error(`not an XML 1.0 character: U+${notChar[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${notChar.index}`)
  // Character references must name a `Char` too (`&#1;` is as ill-formed as the character itself).
  for (const [, hex, decimal] of xml.matchAll(/&#(?:x([0-9a-f]+)|([0-9]+));/gi)) {
    const code = hex ? Number.parseInt(hex, 16) : Number(decimal)
    if (!/[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.test(String.fromCodePoint(code))) throw new Error(`a reference to U+${code.toString(16)}`)
  }
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '')
  const stack: string[] = []
  const names: string[] = []
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<&]*(?:&(?:amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(\/?)>/g
  let last = 0
  for (let match = tag.exec(body); match; match = tag.exec(body)) {
    const text = body.slice(last, match.index)
    if (/[<>]/.test(text) || /&(?!(amp|lt|gt|quot|apos);)/.test(text)) throw new Error(`bad text: ${text}`)
    last = tag.lastIndex
    const [, closing, name, , selfClosing] = match
    if (closing) {
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}>`)
    } else {
      if (stack.length === 0 && names.length > 0) throw new Error('more than one root element')
      names.push(name!)
      if (!selfClosing) stack.push(name!)
    }
  }
  if (stack.length || body.slice(last).trim()) throw new Error('unclosed elements or trailing text')
  return names
}

describe('route replay: GPX 1.1', () => {
  test('format=gpx answers well-formed GPX: one trkseg per segment, a trkpt with <time> per kept ping, wpt for the stop and the visit; names escaped', async () => {
    const reply = await route(`user_id=${field.user.id}&date=${DAY}&format=gpx`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toStartWith('application/gpx+xml')
    const names = xmlElements(reply.text)
    expect(names[0]).toBe('gpx')
    expect(reply.text).toContain('version="1.1"')
    expect(reply.text).toContain('xmlns="http://www.topografix.com/GPX/1/1"')
    expect(names.filter((n) => n === 'trkseg')).toHaveLength(3)
    expect(names.filter((n) => n === 'trkpt')).toHaveLength(kept.length)
    expect(names.filter((n) => n === 'wpt')).toHaveLength(2)
    expect(reply.text).toContain(`<trkpt lat="${A.lat}" lon="${A.lng}"><time>${at(0)}</time></trkpt>`)
    expect(reply.text).not.toContain(`lat="${JUMP.lat}"`)
    expect(reply.text).toContain('<name>Toko &lt;Maju&gt; &amp; &quot;Jaya&quot; &apos;Abadi&apos;</name>')
  })

  test('names holding control characters (rows written before names were checked) still give well-formed XML 1.0', async () => {
    const cws = await zonedWorkspace(ZONE)
    const person = await t.app.member(cws, 'user')
    const { project, outlet } = await visitSite(t.app, cws.owner.token, { latitude: A.lat, longitude: A.lng })
    const plannedVisit = ok(
      await t.app.post(
        '/office/v1/visits',
        { outlet_id: outlet.id, project_id: project.id, visit_date: DAY, user_ids: [person.user.id], submissions: [] },
        { token: cws.owner.token },
      ),
      201,
    )
    ok(await t.app.post(`/app/v1/visits/${plannedVisit.id}/check-in`, { latitude: A.lat, longitude: A.lng }, { token: person.token }))
    await upload(person, [...moving, ...stopped])
    // Straight into the database, as an older build (or a hand edit) could have stored them.
    const dirty = (text: string) => `'${text}' || char(1) || char(8) || char(11) || char(27) || '[31m' || char(31) || char(65534) || char(65535) || ' end'`
    await t.app.db.pragma(`UPDATE outlets SET name = ${dirty('Toko')} WHERE id = ${outlet.id}`)
    await t.app.db.pragma(`UPDATE users SET name = ${dirty('Rina')} WHERE id = ${person.user.id}`)
    const reply = await t.app.get(`/office/v1/locations/route?user_id=${person.user.id}&date=${DAY}&format=gpx`, { token: cws.owner.token })
    expect(reply.status).toBe(200)
    const names = xmlElements(reply.text)
    expect(names.filter((n) => n === 'wpt')).toHaveLength(2)
    expect(reply.text).toContain('<name>Toko\ufffd\ufffd\ufffd\ufffd[31m\ufffd\ufffd\ufffd end</name>')
    expect(reply.text).toContain('<name>Rina\ufffd\ufffd\ufffd\ufffd[31m\ufffd\ufffd\ufffd end · 2026-11-23</name>')
  })

  test('an empty day is a GPX document with an empty track', async () => {
    const reply = await route(`user_id=${field.user.id}&date=2026-11-25&format=gpx`)
    expect(reply.status).toBe(200)
    const names = xmlElements(reply.text)
    expect(names.filter((n) => n === 'trkpt' || n === 'wpt')).toEqual([])
  })
})

describe('route replay: who may ask, and bad input', () => {
  test('livemap:view on the web: a field user gets 403, a manager 200', async () => {
    expectError(await route(`user_id=${field.user.id}&date=${DAY}`, field.token), 403, 'FORBIDDEN')
    expect((await route(`user_id=${field.user.id}&date=${DAY}`, manager.token)).status).toBe(200)
  })

  test('a user of another workspace, or no user at all, is 404 USER_NOT_FOUND', async () => {
    expectError(await route(`user_id=${otherField.user.id}&date=${DAY}`), 404, 'USER_NOT_FOUND')
    expectError(await route(`user_id=99999999&date=${DAY}`), 404, 'USER_NOT_FOUND')
  })

  test('missing or malformed user_id or date, or an unknown format, is 400 VALIDATION_ERROR naming the field', async () => {
    expect(expectError(await route(`date=${DAY}`), 400, 'VALIDATION_ERROR')).toHaveProperty('user_id')
    expect(expectError(await route(`user_id=${field.user.id}`), 400, 'VALIDATION_ERROR')).toHaveProperty('date')
    expect(expectError(await route(`user_id=${field.user.id}&date=2026-02-30`), 400, 'VALIDATION_ERROR')).toHaveProperty('date')
    expect(expectError(await route(`user_id=${field.user.id}&date=23-11-2026`), 400, 'VALIDATION_ERROR')).toHaveProperty('date')
    expect(expectError(await route(`user_id=abc&date=${DAY}`), 400, 'VALIDATION_ERROR')).toHaveProperty('user_id')
    expect(expectError(await route(`user_id=${field.user.id}&date=${DAY}&format=kml`), 400, 'VALIDATION_ERROR')).toHaveProperty('format')
  })

  test('over a real socket: GeoJSON and GPX with their content types', async () => {
    const server = t.app.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const base = `http://127.0.0.1:${server.server!.port}/api/office/v1/locations/route?user_id=${field.user.id}&date=${DAY}`
      const headers = { authorization: `Bearer ${manager.token}` }
      const json = await fetch(base, { headers })
      expect(json.status).toBe(200)
      expect(json.headers.get('content-type')).toStartWith('application/geo+json')
      const doc = (await json.json()) as any
      expect(doc.features.filter((f: any) => f.properties.kind === 'segment')).toHaveLength(3)
      const gpx = await fetch(`${base}&format=gpx`, { headers })
      expect(gpx.headers.get('content-type')).toStartWith('application/gpx+xml')
      expect(xmlElements(await gpx.text()).filter((n) => n === 'trkpt')).toHaveLength(kept.length)
      const anonymous = await fetch(base)
      expect(anonymous.status).toBe(401)
    } finally {
      await t.app.app.stop(true)
    }
  })
})

describe('field-day report', () => {
  const report = (query: string, token = manager.token) => t.app.get(`/office/v1/reports/field-day?${query}`, { token })

  test('one row per field user: distance as the route’s, visits planned/completed/missed, time on site, activity, flags', async () => {
    const reply = await report(`date=${DAY}`)
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toEqual({ page: 1, limit: 10, total: 1, total_pages: 1 })
    const [row] = reply.body.data
    const expected = segments.reduce((sum, segment) => sum + pathLength(segment), 0)
    expect(row.user_id).toBe(field.user.id)
    expect(Math.abs(row.distance_m - expected)).toBeLessThan(0.1)
    const routed = (await geojson(`user_id=${field.user.id}&date=${DAY}`)).doc
    expect(row.distance_m).toBe(routed.properties.distance_m)
    expect(row).toMatchObject({
      name: field.user.name,
      visits_planned: 2,
      visits_completed: 1,
      visits_missed: 1,
      time_on_site_s: 400,
      first_activity_at: at(0),
      last_activity_at: at(lone.t),
      flagged_visits: 0,
    })
  })

  test('visits_missed is 0 while the local day is not over', async () => {
    const now = clock().now()
    try {
      clock().set('2026-11-23T09:59:00.000Z')
      const [row] = (await report(`date=${DAY}`)).body.data
      expect(row.visits_missed).toBe(0)
      expect(row.visits_planned).toBe(2)
    } finally {
      clock().set(now)
    }
  })

  test('a manager who is assigned a visit that day gets a row; other days and other workspaces’ users do not', async () => {
    const token = ws.owner.token
    const [outlet] = ok(await t.app.get('/office/v1/outlets?limit=1', { token }))
    const [project] = ok(await t.app.get('/office/v1/projects?limit=1', { token }))
    ok(
      await t.app.post(
        '/office/v1/visits',
        { outlet_id: outlet.id, project_id: project.id, visit_date: '2026-11-24', user_ids: [manager.user.id], submissions: [] },
        { token },
      ),
      201,
    )
    const day = (await report('date=2026-11-24')).body.data.map((row: any) => row.user_id)
    expect(day).toContain(manager.user.id)
    expect(day).toContain(field.user.id)
    expect((await report(`date=${DAY}`)).body.data.map((row: any) => row.user_id)).not.toContain(manager.user.id)
    expect((await report(`date=${DAY}&user_id=${otherField.user.id}`)).body.data).toEqual([])
  })

  test('team_id keeps the team’s members; pages of limit rows with meta', async () => {
    const extra = await t.app.member(ws, 'user')
    const team = ok(await t.app.post('/office/v1/teams', { name: unique('Team'), user_ids: [extra.user.id] }, { token: ws.owner.token }), 201)
    expect((await report(`date=${DAY}&team_id=${team.id}`)).body.data.map((row: any) => row.user_id)).toEqual([extra.user.id])
    const paged = await report(`date=${DAY}&limit=1&page=2`)
    expect(paged.body.meta).toEqual({ page: 2, limit: 1, total: 2, total_pages: 2 })
    expect(paged.body.data).toHaveLength(1)
    expect((await report(`date=${DAY}&limit=1000`)).body.meta.limit).toBe(100)
  })

  test('visit:view on the web: a field user gets 403; a bad or missing date is 400', async () => {
    expectError(await report(`date=${DAY}`, field.token), 403, 'FORBIDDEN')
    expect(expectError(await report(''), 400, 'VALIDATION_ERROR')).toHaveProperty('date')
    expect(expectError(await report('date=2026-13-01'), 400, 'VALIDATION_ERROR')).toHaveProperty('date')
  })
})

describe('route replay: one GPS glitch costs one point', () => {
  // A, then B 20 km away 10 s later (a glitch), then C back 50 m from A 10 s after B.
  const glitch: Ping[] = [
    { ...A, t: 0 },
    { ...north(A, 20_000), t: 10 },
    { ...north(A, 50), t: 20 },
  ]
  const line = (doc: any) =>
    doc.features
      .filter((f: any) => f.properties.kind === 'segment')
      .flatMap((f: any) => (f.geometry.type === 'Point' ? [f.geometry.coordinates] : f.geometry.coordinates))
  let glitchWs: Workspace

  beforeAll(async () => {
    glitchWs = await zonedWorkspace(ZONE)
  })

  async function dayOf(user: Session) {
    const reply = await t.app.get(`/office/v1/locations/route?user_id=${user.user.id}&date=${DAY}`, { token: glitchWs.owner.token })
    expect(reply.status).toBe(200)
    const report = ok(await t.app.get(`/office/v1/reports/field-day?date=${DAY}&user_id=${user.user.id}`, { token: glitchWs.owner.token }))
    return { doc: JSON.parse(reply.text), report: report[0] }
  }

  test('only B is flagged at ingest; the route keeps A and C (and the field-day distance is A→C)', async () => {
    const user = await t.app.member(glitchWs, 'user')
    await upload(user, glitch)
    const history = ok(await t.app.get(`/office/v1/locations?user_id=${user.user.id}&sort_order=asc`, { token: glitchWs.owner.token }))
    expect(history.map((p: any) => p.flags)).toEqual([[], ['impossible_speed', 'teleport'], []])
    const { doc, report } = await dayOf(user)
    expect(line(doc)).toEqual([
      [A.lng, A.lat],
      [glitch[2]!.lng, glitch[2]!.lat],
    ])
    expect(doc.properties.excluded_pings).toBe(1)
    expect(Math.abs(doc.properties.distance_m - distance(A, glitch[2]!))).toBeLessThan(0.1)
    expect(report.distance_m).toBe(doc.properties.distance_m)
  })

  test('pings stored before this rule (C flagged too, as the old ingest did) are replayed against the kept line: A and C stay', async () => {
    const user = await t.app.member(glitchWs, 'user')
    await upload(user, glitch)
    await t.app.db.pragma(`UPDATE location_pings SET flags = 6 WHERE user_id = ${user.user.id} AND recorded_at = '${at(20)}'`)
    const { doc, report } = await dayOf(user)
    expect(line(doc)).toEqual([
      [A.lng, A.lat],
      [glitch[2]!.lng, glitch[2]!.lat],
    ])
    expect(report.distance_m).toBe(doc.properties.distance_m)
    // The first ping of the day flagged as a jump has no kept ping before it: its stored verdict stands.
    const first = await t.app.member(glitchWs, 'user')
    await upload(first, glitch)
    await t.app.db.pragma(`UPDATE location_pings SET flags = 6 WHERE user_id = ${first.user.id} AND recorded_at = '${at(0)}'`)
    expect(line((await dayOf(first)).doc)).toEqual([[glitch[2]!.lng, glitch[2]!.lat]])
  })
})

describe('on the libSQL driver', () => {
  test('the route and the report read the same pings (value rows through the libSQL client)', async () => {
    const { createTestApp } = await import('./harness')
    const app = await createTestApp({ driver: 'libsql', clock: new (await import('../src/lib/clock')).ManualClock(at(4000)) })
    try {
      const reply = await app.post('/auth/register', {
        name: 'O',
        email: `${unique('o')}@example.com`,
        password: 'password123',
        workspace_name: unique('L'),
        timezone: ZONE,
      })
      const owner = reply.body.data
      const roles = (await app.get('/office/v1/roles', { token: owner.token })).body.data
      const email = `${unique('f')}@example.com`
      const roleId = roles.find((role: { slug: string }) => role.slug === 'user').id
      expect((await app.post('/office/v1/users', { name: 'Field', email, password: 'password123', role_id: roleId }, { token: owner.token })).status).toBe(201)
      const fieldUser = await app.login(email)
      const pings = moving.slice(0, 3)
      const batch = await app.post('/app/v1/locations/batch', body(pings), { token: fieldUser.token, idempotencyKey: crypto.randomUUID() })
      expect(batch.status).toBe(201)
      const routed = await app.get(`/office/v1/locations/route?user_id=${fieldUser.user.id}&date=${DAY}`, { token: owner.token })
      const doc = JSON.parse(routed.text)
      expect(doc.features[0].geometry.coordinates).toEqual(pings.map((p) => [p.lng, p.lat]))
      expect(Math.abs(doc.properties.distance_m - pathLength(pings))).toBeLessThan(0.1)
      const report = await app.get(`/office/v1/reports/field-day?date=${DAY}`, { token: owner.token })
      expect(report.body.data).toHaveLength(1)
      expect(report.body.data[0]).toMatchObject({
        user_id: fieldUser.user.id,
        distance_m: doc.properties.distance_m,
        first_activity_at: at(0),
        last_activity_at: at(120),
      })
    } finally {
      await app.close()
    }
  })
})
