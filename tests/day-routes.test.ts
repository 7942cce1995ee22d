/**
 * The day route (docs/API.md §Journey plans, "The day route"): a field user's visits of a local day in route
 * order with straight-line legs, and the office's optimisation of the order, stored and audited. The
 * optimiser's own rules (never longer than the current order or nearest neighbour, locks, determinism, 150
 * stops) are tested in tests/journey-plans.route.test.ts.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { expectError, type Session, useRealSocket, useTestApp, type Workspace } from './harness'
import { newOutlet, newProject, newVisit, OFFICE, ok, type Row } from './factories'

const h = useTestApp()
const t = () => h.app

let ws: Workspace
let rep: Session
let project: Row
const DAY = '2026-12-01'
/** Outlets on a line of longitude 106.8, at these latitudes (about 1.1 km per 0.01°). */
const LATITUDES = [-6.2, -6.23, -6.21, -6.24, -6.22]
let stops: Row[]

const route = (query: string, token = ws.owner.token) => t().get(`${OFFICE}/day-routes?${query}`, { token })
const optimise = (body: unknown, token = ws.owner.token) => t().post(`${OFFICE}/day-routes/optimize`, body, { token })
const count = async (query: ReturnType<typeof sql>) => ((await t().db.read.all(query)) as { n: number }[])[0].n

beforeAll(async () => {
  ws = await t().workspace()
  rep = await t().member(ws, 'user')
  project = await newProject(t(), ws.owner.token)
  stops = []
  for (const latitude of LATITUDES) {
    const outlet = await newOutlet(t(), ws.owner.token, { latitude, longitude: 106.8 })
    stops.push(await newVisit(t(), ws.owner.token, { outlet_id: outlet.id, project_id: project.id, visit_date: DAY, user_ids: [rep.user.id] }))
  }
})

describe('GET /office/v1/day-routes', () => {
  test('the day’s visits in route order (unset: by id), with haversine legs and the total; cancelled, other days and other users left out', async () => {
    const nowhere = await newOutlet(t(), ws.owner.token, {})
    const unlocated = await newVisit(t(), ws.owner.token, { outlet_id: nowhere.id, project_id: project.id, visit_date: DAY, user_ids: [rep.user.id] })
    const cancelled = await newVisit(t(), ws.owner.token, { outlet_id: stops[0].outlet.id, project_id: project.id, visit_date: DAY, user_ids: [rep.user.id] })
    ok(await t().put(`${OFFICE}/visits/${cancelled.id}/cancel`, { reason: 'closed' }, { token: ws.owner.token }))
    const colleague = await t().member(ws, 'user')
    await newVisit(t(), ws.owner.token, { outlet_id: stops[0].outlet.id, project_id: project.id, visit_date: DAY, user_ids: [colleague.user.id] })
    await newVisit(t(), ws.owner.token, { outlet_id: stops[0].outlet.id, project_id: project.id, visit_date: '2026-12-02', user_ids: [rep.user.id] })

    const day = ok(await route(`user_id=${rep.user.id}&date=${DAY}`))
    expect(day.stops.map((stop: Row) => stop.visit_id)).toEqual([...stops.map((stop) => stop.id), unlocated.id])
    expect(day.distance_source).toBe('straight_line')
    expect(day.stops[0].leg_distance_m).toBe(0)
    // 0.03° of latitude is about 3,336 m.
    expect(day.stops[1].leg_distance_m).toBeGreaterThan(3_300)
    expect(day.stops[1].leg_distance_m).toBeLessThan(3_400)
    expect(day.stops.at(-1)).toMatchObject({ visit_id: unlocated.id, leg_distance_m: null, outlet: { latitude: null, longitude: null } })
    expect(day.total_distance_m).toBe(day.stops.reduce((sum: number, stop: Row) => sum + (stop.leg_distance_m ?? 0), 0))
    ok(await t().put(`${OFFICE}/visits/${unlocated.id}/cancel`, { reason: 'no address' }, { token: ws.owner.token }))
  })

  test('bad input: a missing or malformed date or user → 400; someone of another workspace → 404 USER_NOT_FOUND', async () => {
    expectError(await route(`user_id=${rep.user.id}`), 400, 'VALIDATION_ERROR')
    expectError(await route(`user_id=${rep.user.id}&date=2026-02-30`), 400, 'VALIDATION_ERROR')
    expectError(await route(`user_id=abc&date=${DAY}`), 400, 'VALIDATION_ERROR')
    const other = await t().workspace()
    expectError(await route(`user_id=${other.owner.user.id}&date=${DAY}`), 404, 'USER_NOT_FOUND')
    expectError(await route(`user_id=${rep.user.id}&date=${DAY}`, rep.token), 403, 'FORBIDDEN')
  })
})

describe('POST /office/v1/day-routes/optimize', () => {
  test('a zig-zag becomes a line: stored as route_sequence 1…n, each moved visit audited; the same request again changes nothing', async () => {
    const before = ok(await route(`user_id=${rep.user.id}&date=${DAY}`))
    const audits = () => count(sql`select count(*) as n from audit_logs where workspace_id = ${ws.id} and entity_type = 'visit' and action = 'updated'`)
    const audited = await audits()
    const reply = await optimise({ user_id: rep.user.id, date: DAY, start: { latitude: -6.19, longitude: 106.8 } })
    const after = ok(reply)
    expect(reply.body.code).toBe('DAY_ROUTE_OPTIMIZED')
    expect(after.total_distance_m).toBeLessThan(before.total_distance_m)
    // North to south: -6.2, -6.21, -6.22, -6.23, -6.24.
    expect(after.stops.map((stop: Row) => stop.visit_id)).toEqual([0, 2, 4, 1, 3].map((i) => stops[i].id))
    expect(after.stops.map((stop: Row) => stop.route_sequence)).toEqual([1, 2, 3, 4, 5])
    expect(ok(await route(`user_id=${rep.user.id}&date=${DAY}`)).stops.map((stop: Row) => stop.visit_id)).toEqual(after.stops.map((stop: Row) => stop.visit_id))
    const moved = await audits()
    expect(moved - audited).toBe(5)
    const again = ok(await optimise({ user_id: rep.user.id, date: DAY, start: { latitude: -6.19, longitude: 106.8 } }))
    expect(again.stops).toEqual(after.stops)
    expect(await audits()).toBe(moved)
  })

  test("the phone's own visits come in route order by default; sort_by=id still orders by id", async () => {
    const stored = ok(await route(`user_id=${rep.user.id}&date=${DAY}`)).stops.map((stop: Row) => stop.visit_id)
    // The phone's list shows cancelled visits too (the day route leaves them out).
    const mine = (query = '') => t().get(`/app/v1/visits/me?date_from=${DAY}&date_to=${DAY}&status=scheduled${query}`, { token: rep.token })
    expect(ok(await mine()).map((visit: Row) => visit.id)).toEqual(stored)
    expect(ok(await mine('&sort_by=route&sort_order=asc')).map((visit: Row) => visit.id)).toEqual(stored)
    expect(ok(await mine('&sort_by=id&sort_order=asc')).map((visit: Row) => visit.id)).toEqual([...stored].sort((a, b) => a - b))
    expect(ok(await mine()).map((visit: Row) => visit.route_sequence ?? null)).toEqual([1, 2, 3, 4, 5])
  })

  test('locked visits and visits already started keep their places', async () => {
    const w = await t().workspace()
    const field = await t().member(w, 'user')
    const p = await newProject(t(), w.owner.token)
    const made: Row[] = []
    for (const latitude of LATITUDES) {
      const outlet = await newOutlet(t(), w.owner.token, { latitude, longitude: 106.8 })
      made.push(await newVisit(t(), w.owner.token, { outlet_id: outlet.id, project_id: p.id, visit_date: DAY, user_ids: [field.user.id] }))
    }
    ok(await optimise({ user_id: field.user.id, date: DAY }, w.owner.token))
    const first = ok(await route(`user_id=${field.user.id}&date=${DAY}`, w.owner.token)).stops.map((stop: Row) => stop.visit_id)
    // Lock the last stop and put a visit in progress: an optimisation from a far start keeps both in place.
    const inProgress = first[1]
    await t().db.transaction(async (tx) => {
      await tx.run(sql`update visits set status = 'in_progress' where id = ${inProgress}`)
    })
    const reply = ok(
      await optimise({ user_id: field.user.id, date: DAY, start: { latitude: -6.3, longitude: 106.8 }, locked_visit_ids: [first[4]] }, w.owner.token),
    )
    const order = reply.stops.map((stop: Row) => stop.visit_id)
    expect(order[1]).toBe(inProgress)
    expect(order[4]).toBe(first[4])
    expect([...order].sort()).toEqual([...first].sort())
  })

  test('bad input: unknown locked visits, a user of another workspace, a bad start, a field user → refused, nothing stored', async () => {
    const snapshot = async () => (await t().db.read.all(sql`select id, route_sequence from visits where workspace_id = ${ws.id} order by id`)) as Row[]
    const before = await snapshot()
    const other = await t().workspace()
    expectError(await optimise({ user_id: rep.user.id, date: DAY, locked_visit_ids: [99_999_999] }), 400, 'VALIDATION_ERROR')
    expectError(await optimise({ user_id: other.owner.user.id, date: DAY }), 400, 'VALIDATION_ERROR')
    expectError(await optimise({ user_id: rep.user.id, date: DAY, start: { latitude: 91, longitude: 0 } }), 400, 'VALIDATION_ERROR')
    expectError(await optimise({ user_id: rep.user.id, date: 'tomorrow' }), 400, 'VALIDATION_ERROR')
    expectError(await optimise({ user_id: rep.user.id, date: DAY }, rep.token), 403, 'FORBIDDEN')
    expect(await snapshot()).toEqual(before)
  })
})

describe('over a real socket', () => {
  const socket = useRealSocket(h)
  test('GET /office/v1/day-routes answers over HTTP', async () => {
    const response = await fetch(`${socket.base}/office/v1/day-routes?user_id=${rep.user.id}&date=${DAY}`, {
      headers: { authorization: `Bearer ${ws.owner.token}` },
    })
    expect(response.status).toBe(200)
    expect((await response.json()).data.stops).toHaveLength(LATITUDES.length)
  })
})
