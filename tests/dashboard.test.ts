/**
 * The dashboard (docs/API.md §Other areas, §Roles and permissions): summary metrics over a date range,
 * team scope for managers, and workspace isolation.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { expectError, useTestApp, type Session, type Workspace } from './harness'
import { type Row, HERE, manualClock, data, kit, planVisit, checkInVisit, review, walkVisit, pingBatch } from './factories'

const NOW = '2026-03-10T10:00:00.000Z'
const TODAY = '2026-03-10'

describe('Dashboard', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  let t1: Row
  let t2: Row
  let otherTeam: Row
  let f1: Session
  let f2: Session
  let f4: Session
  let manager: Session
  let field: Session
  const admin = () => ws.owner.token

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
    manager = await t.app.member(ws, 'manager')
    field = await t.app.member(ws, 'user')
    f1 = await t.app.member(ws, 'user', { name: 'Ahmad One' })
    f2 = await t.app.member(ws, 'user', { name: 'Budi Two' })
    const f3 = await t.app.member(ws, 'user', { name: 'Citra Three' })
    f4 = await t.app.member(ws, 'user', { name: 'Dewi Four' })
    const f5 = await t.app.member(ws, 'user', { name: 'Eko Five' })
    t1 = data(await t.app.post('/office/v1/teams', { name: 'Team Alpha', user_ids: [f1.user.id, f3.user.id] }, { token: admin() }))
    t2 = data(await t.app.post('/office/v1/teams', { name: 'Team Beta', user_ids: [f2.user.id, f5.user.id] }, { token: admin() }))
    const k = await kit(t.app, admin())

    // Default range (2026-03-04 … 2026-03-10): V1 completed+approved, V2 in_progress+pending, V3 completed+rejected,
    // V4 scheduled, V5 cancelled, V6 force_closed, V7 scheduled (no team). V8 (03-01) is out of range.
    const v1 = await walkVisit(t.app, admin(), k, f1, { visit_date: '2026-03-10', team_id: t1.id })
    await review(t.app, admin(), v1, 'approve')
    await walkVisit(t.app, admin(), k, f1, { visit_date: '2026-03-09', team_id: t1.id }, { checkOut: false })
    const v3 = await walkVisit(t.app, admin(), k, f2, { visit_date: '2026-03-08', team_id: t2.id })
    await review(t.app, admin(), v3, 'reject')
    await planVisit(t.app, admin(), k, { visit_date: '2026-03-07', team_id: t2.id, user_ids: [f2.user.id] })
    const v5 = await planVisit(t.app, admin(), k, { visit_date: '2026-03-06', team_id: t1.id, user_ids: [f1.user.id] })
    data(await t.app.put(`/office/v1/visits/${v5.id}/cancel`, { reason: 'closed shop' }, { token: admin() }), 200)
    const v6 = await planVisit(t.app, admin(), k, { visit_date: '2026-03-06', team_id: t2.id, user_ids: [f2.user.id] })
    await checkInVisit(t.app, v6.id, f2)
    data(await t.app.put(`/office/v1/visits/${v6.id}/force-close`, { reason: 'forgot to check out' }, { token: admin() }), 200)
    await planVisit(t.app, admin(), k, { visit_date: '2026-03-05', user_ids: [f4.user.id] })
    await walkVisit(t.app, admin(), k, f3, { visit_date: '2026-03-01', team_id: t1.id }, { checkOut: false })

    // Activity: f3 pinged on 03-05, f1 pings now, f4 has an attendance on 03-06; f5 was active only in February.
    await pingBatch(t.app, f3, [{ recorded_at: '2026-03-05T09:00:00.000Z' }, { recorded_at: '2026-03-05T09:05:00.000Z' }])
    await pingBatch(t.app, f1, [{}])
    await pingBatch(t.app, f5, [{ recorded_at: '2026-02-20T09:00:00.000Z' }])
    for (const [who, date] of [
      [f4, '2026-03-06'],
      [f5, '2026-02-25'],
    ] as const) {
      data(
        await t.app.post(
          '/office/v1/attendances',
          { user_id: who.user.id, date, check_in_at: `${date}T08:00:00.000Z`, check_out_at: `${date}T16:00:00.000Z` },
          { token: admin() },
        ),
      )
    }

    // Another workspace, busy today: never counted here.
    const otherKit = await kit(t.app, other.owner.token)
    const stranger = await t.app.member(other, 'user')
    otherTeam = data(await t.app.post('/office/v1/teams', { name: 'Their Team', user_ids: [stranger.user.id] }, { token: other.owner.token }))
    const theirs = await walkVisit(t.app, other.owner.token, otherKit, stranger, { team_id: otherTeam.id }, { checkOut: false })
    expect(theirs.id).toBeGreaterThan(0)
    await pingBatch(t.app, stranger, [{}])
    data(await t.app.post('/app/v1/attendances/clock-in', HERE, { token: stranger.token }))
  })

  const metrics = async (query = '', token = admin()) => {
    const reply = await t.app.get(`/office/v1/dashboard/metrics${query}`, { token })
    if (reply.status !== 200) throw new Error(`metrics ${query}: ${reply.status} ${reply.text}`)
    expect(reply.body.code).toBe('SUCCESS')
    return reply.body.data
  }

  test('metrics for the default range (the last 7 days): visits by status, completion_rate = completed / (total − cancelled), submissions, pending_approvals, active_field_users, pings_received', async () => {
    expect(await metrics()).toEqual({
      range: { date_from: '2026-03-04', date_to: TODAY },
      visits: { total: 7, scheduled: 2, in_progress: 1, completed: 2, cancelled: 1, force_closed: 1 },
      completion_rate: 0.3333,
      submissions: { pending: 1, approved: 1, rejected: 1 },
      pending_approvals: 1,
      // f1 (checked in, pinged), f2 (checked in), f3 (pinged on 03-05, checked in), f4 (attendance on 03-06)
      active_field_users: 4,
      // f3's two pings on 03-05 and f1's today, by recorded_at
      pings_received: 3,
    })
  })

  test('metrics for an explicit range: visit dates, check-ins, attendances and pings outside it are left out', async () => {
    expect(await metrics('?date_from=2026-03-04&date_to=2026-03-09')).toEqual({
      range: { date_from: '2026-03-04', date_to: '2026-03-09' },
      visits: { total: 6, scheduled: 2, in_progress: 1, completed: 1, cancelled: 1, force_closed: 1 },
      completion_rate: 0.2,
      submissions: { pending: 1, approved: 0, rejected: 1 },
      pending_approvals: 1,
      active_field_users: 2,
      pings_received: 2,
    })
    const february = await metrics('?date_from=2026-02-01&date_to=2026-03-01')
    expect(february).toMatchObject({
      visits: { total: 1, in_progress: 1 },
      completion_rate: 0,
      submissions: { pending: 1, approved: 0, rejected: 0 },
      pending_approvals: 1,
      active_field_users: 1,
      pings_received: 1,
    })
    // Only date_to: the 7 days up to it.
    expect((await metrics('?date_to=2026-03-07')).range).toEqual({ date_from: '2026-03-01', date_to: '2026-03-07' })
  })

  test("metrics team_id filter: only that team's visits, submissions, members and pings; another workspace's team gives zeros", async () => {
    expect(await metrics(`?team_id=${t1.id}`)).toEqual({
      range: { date_from: '2026-03-04', date_to: TODAY },
      visits: { total: 3, scheduled: 0, in_progress: 1, completed: 1, cancelled: 1, force_closed: 0 },
      completion_rate: 0.5,
      submissions: { pending: 1, approved: 1, rejected: 0 },
      pending_approvals: 1,
      active_field_users: 2,
      pings_received: 3,
    })
    expect(await metrics(`?team_id=${otherTeam.id}`)).toEqual({
      range: { date_from: '2026-03-04', date_to: TODAY },
      visits: { total: 0, scheduled: 0, in_progress: 0, completed: 0, cancelled: 0, force_closed: 0 },
      completion_rate: 0,
      submissions: { pending: 0, approved: 0, rejected: 0 },
      pending_approvals: 0,
      active_field_users: 0,
      pings_received: 0,
    })
  })

  test('workspace isolation: the other workspace sees only its own figures', async () => {
    expect(await metrics('', other.owner.token)).toMatchObject({
      visits: { total: 1, in_progress: 1 },
      submissions: { pending: 1, approved: 0, rejected: 0 },
      active_field_users: 1,
      pings_received: 1,
    })
    const summary = data(await t.app.get('/office/v1/dashboard/summary', { token: other.owner.token }), 200)
    expect(summary.teams.map((row: Row) => row.team_id)).toEqual([otherTeam.id])
    expect(summary.users).toHaveLength(1)
  })

  test('date_from after date_to → 400 errors.date_from; malformed dates → 400 VALIDATION_ERROR (metrics and summary)', async () => {
    for (const path of ['/office/v1/dashboard/metrics', '/office/v1/dashboard/summary']) {
      expect(Object.keys(expectError(await t.app.get(`${path}?date_from=2026-03-10&date_to=2026-03-01`, { token: admin() }), 400, 'VALIDATION_ERROR'))).toEqual(
        ['date_from'],
      )
      for (const query of ['date_from=2026-13-01', 'date_to=yesterday', 'date_from=2026-02-30', 'date_to=10-03-2026', 'team_id=abc']) {
        expectError(await t.app.get(`${path}?${query}`, { token: admin() }), 400, 'VALIDATION_ERROR')
      }
    }
  })

  test('summary per team and per user with the same figures (visits_total, visits_completed, completion_rate, pending_approvals)', async () => {
    const reply = await t.app.get('/office/v1/dashboard/summary', { token: admin() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUCCESS')
    const summary = reply.body.data
    expect(summary.range).toEqual({ date_from: '2026-03-04', date_to: TODAY })
    const byTeam = Object.fromEntries(summary.teams.map((row: Row) => [String(row.team_id), row]))
    expect(summary.teams).toHaveLength(3)
    expect(byTeam[String(t1.id)]).toEqual({
      team_id: t1.id,
      team_name: 'Team Alpha',
      visits_total: 3,
      visits_completed: 1,
      completion_rate: 0.5,
      pending_approvals: 1,
    })
    expect(byTeam[String(t2.id)]).toEqual({
      team_id: t2.id,
      team_name: 'Team Beta',
      visits_total: 3,
      visits_completed: 1,
      completion_rate: 0.3333,
      pending_approvals: 0,
    })
    expect(byTeam.null).toEqual({ team_id: null, team_name: null, visits_total: 1, visits_completed: 0, completion_rate: 0, pending_approvals: 0 })
    const byUser = Object.fromEntries(summary.users.map((row: Row) => [row.user_id, row]))
    expect(summary.users).toHaveLength(3)
    expect(byUser[f1.user.id]).toEqual({ user_id: f1.user.id, name: 'Ahmad One', visits_total: 3, visits_completed: 1, completion_rate: 0.5 })
    expect(byUser[f2.user.id]).toEqual({ user_id: f2.user.id, name: 'Budi Two', visits_total: 3, visits_completed: 1, completion_rate: 0.3333 })
    expect(byUser[f4.user.id]).toEqual({ user_id: f4.user.id, name: 'Dewi Four', visits_total: 1, visits_completed: 0, completion_rate: 0 })

    // The same figures as the metrics: totals add up.
    const m = await metrics()
    expect(summary.teams.reduce((sum: number, row: Row) => sum + row.visits_total, 0)).toBe(m.visits.total)
    expect(summary.teams.reduce((sum: number, row: Row) => sum + row.visits_completed, 0)).toBe(m.visits.completed)
    expect(summary.teams.reduce((sum: number, row: Row) => sum + row.pending_approvals, 0)).toBe(m.pending_approvals)

    const team = data(await t.app.get(`/office/v1/dashboard/summary?team_id=${t2.id}`, { token: admin() }), 200)
    expect(team.teams.map((row: Row) => row.team_id)).toEqual([t2.id])
    expect(team.users.map((row: Row) => row.user_id)).toEqual([f2.user.id])
  })

  test('active_field_users counts the assignee who checked in, not a co-assignee of the same visit who did nothing', async () => {
    const third = await t.app.workspace()
    const k = await kit(t.app, third.owner.token)
    const doer = await t.app.member(third, 'user')
    const bystander = await t.app.member(third, 'user')
    const visit = await planVisit(t.app, third.owner.token, k, { user_ids: [doer.user.id, bystander.user.id] })
    await checkInVisit(t.app, visit.id, doer)
    expect(await metrics('', third.owner.token)).toMatchObject({ visits: { total: 1, in_progress: 1 }, active_field_users: 1, pings_received: 0 })
  })

  test('permissions: a manager gets 200, a field user 403 on both dashboard routes', async () => {
    expect((await t.app.get('/office/v1/dashboard/metrics', { token: manager.token })).status).toBe(200)
    expect((await t.app.get('/office/v1/dashboard/summary', { token: manager.token })).status).toBe(200)
    expectError(await t.app.get('/office/v1/dashboard/metrics', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/dashboard/summary', { token: field.token }), 403, 'FORBIDDEN')
  })
})
