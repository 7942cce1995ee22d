/**
 * Journey plans over HTTP (docs/API.md §Journey plans): plans CRUD and its validation, generation of
 * visits (once per plan, outlet and date; holidays skipped; the horizon in the workspace's local days),
 * edits replacing only future scheduled generated visits, phones seeing those removals as sync
 * deletions, holidays, and the stops import.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/lib/clock'
import { generateJourneyPlanVisits } from '../src/jobs/journey-plans.job'
import { expectError, type Session, type TestApp, unique, useTestApp, type Workspace } from './harness'
import { checkInVisit, data, newForm, newOutlet, newProject, newTeam, OFFICE, ok, type Row } from './factories'

const t = useTestApp()
const clock = (app: TestApp = t.app) => app.clock as ManualClock
const PLANS = `${OFFICE}/journey-plans`

// Wednesday 2026-11-25, 08:00 in Jakarta (UTC+7): today is a Wednesday; plans start on Monday 2026-11-23.
const NOW = '2026-11-25T01:00:00.000Z'
const MONDAY = '2026-11-23'

interface Fixture {
  ws: Workspace
  manager: Session
  field: Session
  project: Row
  form: Row
  outlets: Row[]
}

async function fixture(app: TestApp = t.app, timezone = 'Asia/Jakarta'): Promise<Fixture> {
  const ws = await app.workspace(unique('Plans'), { timezone })
  const manager = await app.member(ws, 'manager')
  const field = await app.member(ws, 'user')
  const form = await newForm(app, ws.owner.token, { title: unique('Form'), fields: [{ key: 'note', label: 'Note', type: 'text' }] })
  const project = await newProject(app, ws.owner.token, { forms: [{ form_id: form.id, is_required: true }] })
  const outlets = []
  for (let i = 0; i < 4; i++) outlets.push(await newOutlet(app, ws.owner.token, { code: unique('OUT') }))
  return { ws, manager, field, project, form, outlets }
}

/** Every weekday Monday–Friday, outlet i at sequence i + 1. */
const weekdayStops = (f: Fixture, weekdays = [1, 2, 3, 4, 5]) =>
  weekdays.flatMap((weekday) => f.outlets.map((outlet, i) => ({ outlet_id: outlet.id, weekday, sequence: i + 1 })))

const newPlan = async (f: Fixture, body: Row = {}, app: TestApp = t.app) =>
  data(
    await app.post(
      PLANS,
      { user_id: f.field.user.id, project_id: f.project.id, start_date: MONDAY, stops: weekdayStops(f), ...body },
      { token: f.manager.token },
    ),
  )

/** The plan's generated visits, live ones unless `deleted`. */
const generated = (f: Fixture, planId: number, app: TestApp = t.app) =>
  app.db.pragma(
    `SELECT * FROM visits WHERE workspace_id = ${f.ws.id} AND journey_plan_id = ${planId} AND deleted_at IS NULL ORDER BY visit_date, route_sequence`,
  ) as Promise<Row[]>

beforeAll(() => clock().set(NOW))

describe('plans: create, read, update, delete', () => {
  test('a manager creates a plan; the answer is the detail; it is listed, filtered and audited', async () => {
    const f = await fixture()
    const plan = await newPlan(f, { name: 'North route', cycle_weeks: 2, stops: [{ outlet_id: f.outlets[0].id, weekday: 1, weeks: [2] }] })
    expect(plan).toMatchObject({
      user_id: f.field.user.id,
      project_id: f.project.id,
      name: 'North route',
      start_date: MONDAY,
      end_date: null,
      cycle_weeks: 2,
      active: true,
    })
    expect(plan.stops).toEqual([{ outlet_id: f.outlets[0].id, outlet_name: f.outlets[0].name, weekday: 1, weeks: [2], sequence: 1 }])
    expect(ok(await t.app.get(`${PLANS}/${plan.id}`, { token: f.manager.token }))).toEqual(plan)
    const list = await t.app.get(`${PLANS}?user_id=${f.field.user.id}&active=true&keyword=north`, { token: f.manager.token })
    expect(list.body.data.map((row: Row) => row.id)).toEqual([plan.id])
    expect((await t.app.get(`${PLANS}?active=false`, { token: f.manager.token })).body.data).toEqual([])
    const audit = await t.app.db.pragma(
      `SELECT action FROM audit_logs WHERE workspace_id = ${f.ws.id} AND entity_type = 'journey_plan' AND entity_id = '${plan.id}'`,
    )
    expect(audit.map((row: Row) => row.action)).toEqual(['created'])
  })

  test('a field user can neither read nor manage plans', async () => {
    const f = await fixture()
    expectError(await t.app.get(PLANS, { token: f.field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.post(PLANS, { user_id: f.field.user.id, project_id: f.project.id, start_date: MONDAY }, { token: f.field.token }), 403, 'FORBIDDEN')
  })

  test('bad plans are refused with the field named and change nothing', async () => {
    const f = await fixture()
    const other = await fixture()
    const body = (extra: Row) => ({ user_id: f.field.user.id, project_id: f.project.id, start_date: MONDAY, ...extra })
    const refuse = async (extra: Row, field: string) => {
      const errors = expectError(await t.app.post(PLANS, body(extra), { token: f.manager.token }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toContain(field)
    }
    const before = await t.app.count('journey_plans')
    await refuse({ start_date: '2026-11-24' }, 'start_date') // a Tuesday
    await refuse({ start_date: '2026-02-30' }, 'start_date')
    await refuse({ end_date: '2026-11-16' }, 'end_date')
    await refuse({ cycle_weeks: 9 }, 'cycle_weeks')
    await refuse({ cycle_weeks: 2, stops: [{ outlet_id: f.outlets[0].id, weekday: 1, weeks: [3] }] }, 'stops.0.weeks')
    await refuse({ stops: [{ outlet_id: f.outlets[0].id, weekday: 8 }] }, 'stops.0.weekday')
    await refuse(
      {
        cycle_weeks: 4,
        stops: [
          { outlet_id: f.outlets[0].id, weekday: 1, weeks: [1, 2] },
          { outlet_id: f.outlets[0].id, weekday: 1, weeks: [2, 3] },
        ],
      },
      'stops.1.outlet_id',
    )
    await refuse({ user_id: other.field.user.id }, 'user_id')
    await refuse({ project_id: other.project.id }, 'project_id')
    await refuse({ team_id: (await newTeam(t.app, other.ws.owner.token)).id }, 'team_id')
    await refuse({ stops: [{ outlet_id: other.outlets[0].id, weekday: 1 }] }, 'stops.0.outlet_id')
    await refuse({ stops: Array.from({ length: 501 }, () => ({ outlet_id: f.outlets[0].id, weekday: 1 })) }, 'stops')
    expect(await t.app.count('journey_plans')).toBe(before)
    // The same outlet on the same weekday in weeks that do not meet is fine.
    await newPlan(f, {
      cycle_weeks: 2,
      stops: [
        { outlet_id: f.outlets[0].id, weekday: 1, weeks: [1] },
        { outlet_id: f.outlets[0].id, weekday: 1, weeks: [2] },
      ],
    })
  })

  test('another workspace’s plan is 404 on read, update, delete and generate', async () => {
    const f = await fixture()
    const other = await fixture()
    const plan = await newPlan(other)
    expectError(await t.app.get(`${PLANS}/${plan.id}`, { token: f.manager.token }), 404, 'JOURNEY_PLAN_NOT_FOUND')
    expectError(await t.app.put(`${PLANS}/${plan.id}`, { name: 'x' }, { token: f.manager.token }), 404, 'JOURNEY_PLAN_NOT_FOUND')
    expectError(await t.app.delete(`${PLANS}/${plan.id}`, { token: f.manager.token }), 404, 'JOURNEY_PLAN_NOT_FOUND')
    expectError(
      await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: MONDAY }, { token: f.manager.token }),
      404,
      'JOURNEY_PLAN_NOT_FOUND',
    )
  })
})

describe('generation: ordinary visits, once per plan, outlet and date', () => {
  test('creating a plan generates the horizon at once: scheduled, assigned, the project’s forms, audited, in route order', async () => {
    const f = await fixture()
    const plan = await newPlan(f)
    const visits = await generated(f, plan.id)
    // Today (Wednesday 25th) and the 6 days after: Wed, Thu, Fri, Mon, Tue → 5 weekdays × 4 outlets.
    expect([...new Set(visits.map((visit) => visit.visit_date))]).toEqual(['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-30', '2026-12-01'])
    expect(visits).toHaveLength(20)
    for (const visit of visits)
      expect(visit).toMatchObject({ status: 'scheduled', source: 'journey_plan', project_id: f.project.id, created_by: f.manager.user.id })
    expect(visits.filter((visit) => visit.visit_date === '2026-11-25').map((visit) => visit.route_sequence)).toEqual([1, 2, 3, 4])
    const detail = ok(await t.app.get(`/app/v1/visits/me/${visits[0].id}`, { token: f.field.token }))
    expect(detail.assignees.map((a: Row) => a.user_id)).toEqual([f.field.user.id])
    expect(detail.submissions.map((s: Row) => [s.form_id, s.is_required])).toEqual([[f.form.id, true]])
    expect(detail).toMatchObject({ source: 'journey_plan', journey_plan_id: plan.id, route_sequence: visits[0].route_sequence })
    const audit = await t.app.db.pragma(
      `SELECT action, count(*) AS n FROM audit_logs WHERE workspace_id = ${f.ws.id} AND entity_type = 'visit' GROUP BY action ORDER BY action`,
    )
    expect(audit.map((row: Row) => [row.action, Number(row.n)])).toEqual([
      ['assigned', 20],
      ['created', 20],
    ])
    // No per-visit "assigned" push: generated visits are announced when sent to the field.
    expect(await t.app.count('notifications', `user_id = ${f.field.user.id} AND type = 'visit.assigned'`)).toBe(0)
    const sent = ok(await t.app.post(`${OFFICE}/visits/send-to-field`, { visit_ids: [visits[0].id] }, { token: f.manager.token }))
    expect(sent.visits[0].notified_user_ids).toEqual([f.field.user.id])
    expect(await t.app.count('notifications', `user_id = ${f.field.user.id} AND type = 'visit.sent_to_field'`)).toBe(1)
  })

  test('generate answers created and skipped; a second run creates nothing; weeks of the cycle and end_date are kept', async () => {
    const f = await fixture()
    const plan = await newPlan(f, {
      active: false,
      cycle_weeks: 2,
      end_date: '2026-12-13',
      stops: [
        { outlet_id: f.outlets[0].id, weekday: 1, weeks: [1], sequence: 5 },
        { outlet_id: f.outlets[1].id, weekday: 1, weeks: [2], sequence: 6 },
      ],
    })
    expectError(
      await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: '2026-12-31' }, { token: f.manager.token }),
      409,
      'JOURNEY_PLAN_INACTIVE',
    )
    ok(await t.app.put(`${PLANS}/${plan.id}`, { active: true }, { token: f.manager.token }))
    const first = ok(await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: '2026-12-31' }, { token: f.manager.token }))
    const visits = await generated(f, plan.id)
    // Mondays 23 Nov (week 1), 30 Nov (week 2), 7 Dec (week 1); 14 Dec is after end_date.
    expect(visits.map((visit) => [visit.visit_date, visit.outlet_id, visit.route_sequence])).toEqual([
      ['2026-11-23', f.outlets[0].id, 5],
      ['2026-11-30', f.outlets[1].id, 6],
      ['2026-12-07', f.outlets[0].id, 5],
    ])
    // The re-activation had generated the horizon (30 Nov) already.
    expect(first).toEqual({ created: 2, skipped: 1 })
    expect(ok(await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: '2026-12-31' }, { token: f.manager.token }))).toEqual({
      created: 0,
      skipped: 3,
    })
    const errors = expectError(
      await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: '2027-01-24' }, { token: f.manager.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toEqual(['date_to'])
  })

  test('a generated visit the office deleted is not generated again', async () => {
    const f = await fixture()
    const plan = await newPlan(f, { stops: [{ outlet_id: f.outlets[0].id, weekday: 1 }] })
    ok(await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: MONDAY }, { token: f.manager.token }))
    const [visit] = (await generated(f, plan.id)).filter((row) => row.visit_date === MONDAY)
    await t.app.db.pragma(`UPDATE visits SET deleted_at = '${NOW}' WHERE id = ${visit.id}`)
    expect(ok(await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: MONDAY, date_to: MONDAY }, { token: f.manager.token }))).toEqual({
      created: 0,
      skipped: 1,
    })
  })
})

describe('a visit says where it came from (source)', () => {
  test('office-planned visits are manual, a field user’s own are self, imported ones import, generated ones journey_plan', async () => {
    const f = await fixture()
    const outlet = f.outlets[0]
    const office = data(
      await t.app.post(`${OFFICE}/visits`, { outlet_id: outlet.id, project_id: f.project.id, visit_date: '2026-11-27' }, { token: f.manager.token }),
    )
    const self = data(await t.app.post('/app/v1/visits/self', { outlet_id: outlet.id, project_id: f.project.id }, { token: f.field.token }))
    const csv = `outlet_code,project_id,visit_date\n${outlet.code},${f.project.id},2026-11-28\n`
    const imported = data(await t.app.request('POST', `${OFFICE}/visits/import`, { token: f.manager.token, raw: csv, headers: { 'content-type': 'text/csv' } }))
    const plan = await newPlan(f, { stops: [{ outlet_id: outlet.id, weekday: 3, sequence: 7 }] })
    const [generatedVisit] = await generated(f, plan.id)
    const sourceOf = async (id: number) => ok(await t.app.get(`${OFFICE}/visits/${id}`, { token: f.manager.token }))
    expect(await sourceOf(office.id)).toMatchObject({ source: 'manual', journey_plan_id: null, route_sequence: null })
    expect(await sourceOf(self.id)).toMatchObject({ source: 'self', journey_plan_id: null })
    expect(await sourceOf(imported.ids[0])).toMatchObject({ source: 'import', journey_plan_id: null })
    expect(await sourceOf(generatedVisit.id)).toMatchObject({ source: 'journey_plan', journey_plan_id: plan.id, route_sequence: 7 })
  })
})

describe('edits replace only future scheduled generated visits', () => {
  test('an edit removes tomorrow’s and later scheduled visits and generates the new plan’s; today’s and started ones stay; phones get deletions', async () => {
    const f = await fixture()
    const plan = await newPlan(f)
    const before = await generated(f, plan.id)
    const today = before.filter((visit) => visit.visit_date === '2026-11-25')
    const tomorrow = before.filter((visit) => visit.visit_date === '2026-11-26')
    // The field user is on one of tomorrow's visits already (checked in early): it stays.
    const started = await checkInVisit(t.app, tomorrow[0].id, f.field)
    expect(started.status).toBe('in_progress')
    const first = ok(await t.app.get('/app/v1/sync', { token: f.field.token }))

    // New stops: only outlet 3 on Thursdays.
    ok(await t.app.put(`${PLANS}/${plan.id}`, { stops: [{ outlet_id: f.outlets[3].id, weekday: 4, sequence: 2 }] }, { token: f.manager.token }))
    const after = await generated(f, plan.id)
    // Today's four stay as they were, the started one stays, Thursday's new visit of outlet 3 exists (it existed: kept).
    expect(after.filter((visit) => visit.visit_date === '2026-11-25').map((visit) => visit.id)).toEqual(today.map((visit) => visit.id))
    expect(after.filter((visit) => visit.visit_date > '2026-11-25').map((visit) => [visit.visit_date, visit.outlet_id])).toEqual([
      ['2026-11-26', f.outlets[0].id],
      ['2026-11-26', f.outlets[3].id],
    ])
    const removed = before.filter((visit) => visit.visit_date > '2026-11-25' && visit.id !== tomorrow[0].id)
    const rows = await t.app.db.pragma(`SELECT id, deleted_at, journey_plan_id FROM visits WHERE id IN (${removed.map((visit) => visit.id).join(',')})`)
    for (const row of rows) expect(row).toMatchObject({ journey_plan_id: null })
    expect(rows.every((row: Row) => row.deleted_at !== null)).toBe(true)

    const next = ok(await t.app.get(`/app/v1/sync?cursor=${encodeURIComponent(first.cursor)}`, { token: f.field.token }))
    const deletions = next.changes.filter((change: Row) => change.entity === 'visit' && change.op === 'delete').map((change: Row) => change.id)
    // Outlet 3's Thursday visit was detached and deleted too (it was a visit of the old plan's stop), then created anew.
    const recreated = after.find((visit) => visit.visit_date === '2026-11-26' && visit.outlet_id === f.outlets[3].id)!
    expect(deletions.sort()).toEqual(removed.map((visit) => visit.id).sort())
    expect(next.changes.some((change: Row) => change.entity === 'visit' && change.op === 'upsert' && change.id === recreated.id)).toBe(true)
  })

  test('a rename changes no visit; deactivating removes the future ones; deleting the plan too', async () => {
    const f = await fixture()
    const plan = await newPlan(f)
    const ids = (await generated(f, plan.id)).map((visit) => visit.id)
    ok(await t.app.put(`${PLANS}/${plan.id}`, { name: 'Renamed' }, { token: f.manager.token }))
    expect((await generated(f, plan.id)).map((visit) => visit.id)).toEqual(ids)
    ok(await t.app.put(`${PLANS}/${plan.id}`, { active: false }, { token: f.manager.token }))
    expect([...new Set((await generated(f, plan.id)).map((visit) => visit.visit_date))]).toEqual(['2026-11-25'])
    ok(await t.app.put(`${PLANS}/${plan.id}`, { active: true }, { token: f.manager.token }))
    expect(await generated(f, plan.id)).toHaveLength(20)
    const deleted = ok(await t.app.delete(`${PLANS}/${plan.id}`, { token: f.manager.token }))
    expect(deleted.deleted_at).not.toBeNull()
    expect([...new Set((await generated(f, plan.id)).map((visit) => visit.visit_date))]).toEqual(['2026-11-25'])
    expectError(await t.app.get(`${PLANS}/${plan.id}`, { token: f.manager.token }), 404, 'JOURNEY_PLAN_NOT_FOUND')
  })
})

describe('holidays', () => {
  test('a holiday removes that date’s scheduled generated visits, none are generated on it; removing it generates them again', async () => {
    const f = await fixture()
    const plan = await newPlan(f)
    const manual = data(
      await t.app.post(`${OFFICE}/visits`, { outlet_id: f.outlets[0].id, project_id: f.project.id, visit_date: '2026-11-27' }, { token: f.manager.token }),
    )
    const holiday = data(await t.app.post(`${OFFICE}/holidays`, { date: '2026-11-27', name: 'Founders day' }, { token: f.manager.token }))
    expect(holiday).toMatchObject({ date: '2026-11-27', name: 'Founders day' })
    expect((await generated(f, plan.id)).filter((visit) => visit.visit_date === '2026-11-27')).toEqual([])
    // A visit planned by hand on that day stays.
    expect(await t.app.count('visits', `id = ${manual.id} AND deleted_at IS NULL`)).toBe(1)
    expect(ok(await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: '2026-11-27', date_to: '2026-11-27' }, { token: f.manager.token }))).toEqual({
      created: 0,
      skipped: 0,
    })
    expectError(await t.app.post(`${OFFICE}/holidays`, { date: '2026-11-27', name: 'Again' }, { token: f.manager.token }), 409, 'HOLIDAY_ALREADY_EXISTS')
    const listed = await t.app.get(`${OFFICE}/holidays?date_from=2026-11-01&date_to=2026-11-30`, { token: f.manager.token })
    expect(listed.body.data.map((row: Row) => row.id)).toEqual([holiday.id])
    ok(await t.app.delete(`${OFFICE}/holidays/${holiday.id}`, { token: f.manager.token }))
    expect((await generated(f, plan.id)).filter((visit) => visit.visit_date === '2026-11-27')).toHaveLength(4)
    expectError(await t.app.delete(`${OFFICE}/holidays/${holiday.id}`, { token: f.manager.token }), 404, 'HOLIDAY_NOT_FOUND')
    const audit = await t.app.db.pragma(`SELECT action FROM audit_logs WHERE workspace_id = ${f.ws.id} AND entity_type = 'holiday' ORDER BY id`)
    expect(audit.map((row: Row) => row.action)).toEqual(['created', 'deleted'])
  })
})

describe('stops import', () => {
  test('a CSV replaces the stops and regenerates like an edit; a bad row changes nothing and names its line and column', async () => {
    const f = await fixture()
    const plan = await newPlan(f, { cycle_weeks: 2 })
    const csv = (text: string) =>
      t.app.request('POST', `${PLANS}/${plan.id}/stops/import`, { token: f.manager.token, raw: text, headers: { 'content-type': 'text/csv' } })
    const bad = expectError(
      await csv(`outlet_code,weekday,weeks,sequence\n${f.outlets[0].code},4,1,1\nNOPE,4,,2\n${f.outlets[1].code},9,,3\n`),
      400,
      'VALIDATION_ERROR',
    )
    expect(bad).toEqual({ 'rows.4.weekday': [expect.any(String)] })
    const unknown = expectError(await csv(`outlet_code,weekday\n${f.outlets[0].code},4\nNOPE,4\n`), 400, 'VALIDATION_ERROR')
    expect(Object.keys(unknown)).toEqual(['rows.3.outlet_code'])
    expect(ok(await t.app.get(`${PLANS}/${plan.id}`, { token: f.manager.token })).stops).toHaveLength(20)

    const plan2 = ok(await csv(`outlet_code,weekday,weeks,sequence\n${f.outlets[2].code},4,1;2,7\n`))
    expect(plan2.stops).toEqual([{ outlet_id: f.outlets[2].id, outlet_name: f.outlets[2].name, weekday: 4, weeks: [1, 2], sequence: 7 }])
    const future = (await generated(f, plan.id)).filter((visit) => visit.visit_date > '2026-11-25')
    expect(future.map((visit) => [visit.visit_date, visit.outlet_id, visit.route_sequence])).toEqual([['2026-11-26', f.outlets[2].id, 7]])
  })
})

describe('stops import: a plan’s stops at most', () => {
  test('a CSV of 501 stops is refused like a body of 501 (errors.csv), and the plan keeps its stops', async () => {
    const f = await fixture()
    const plan = await newPlan(f, { cycle_weeks: 4 })
    // 18 outlets × 7 weekdays × 4 single weeks: 504 distinct stops, of which the first 501.
    const outlets = [...f.outlets]
    while (outlets.length < 18) outlets.push(await newOutlet(t.app, f.ws.owner.token, { code: unique('OUT') }))
    const stops = outlets.flatMap((outlet) => [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => [1, 2, 3, 4].map((week) => ({ outlet, weekday, week })))).slice(0, 501)
    const asBody = stops.map(({ outlet, weekday, week }) => ({ outlet_id: outlet.id, weekday, weeks: [week] }))
    expect(Object.keys(expectError(await t.app.put(`${PLANS}/${plan.id}`, { stops: asBody }, { token: f.manager.token }), 400, 'VALIDATION_ERROR'))).toEqual([
      'stops',
    ])
    const text = `outlet_code,weekday,weeks\n${stops.map(({ outlet, weekday, week }) => `${outlet.code},${weekday},${week}`).join('\n')}\n`
    const reply = await t.app.request('POST', `${PLANS}/${plan.id}/stops/import`, {
      token: f.manager.token,
      raw: text,
      headers: { 'content-type': 'text/csv' },
    })
    expect(expectError(reply, 400, 'VALIDATION_ERROR')).toEqual({ csv: ['has more than 500 rows'] })
    expect(ok(await t.app.get(`${PLANS}/${plan.id}`, { token: f.manager.token })).stops).toHaveLength(20)
  })
})

describe('the horizon is a workspace setting', () => {
  test('journey_plan_horizon_days (1–31, default 7) sets how far ahead plans generate', async () => {
    const f = await fixture()
    const settings = `${OFFICE}/workspaces/${f.ws.id}/settings`
    expect(ok(await t.app.put(settings, { journey_plan_horizon_days: 14 }, { token: f.ws.owner.token })).journey_plan_horizon_days).toBe(14)
    for (const days of [0, 32])
      expect(
        Object.keys(expectError(await t.app.put(settings, { journey_plan_horizon_days: days }, { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')),
      ).toEqual(['journey_plan_horizon_days'])
    const plan = await newPlan(f, { stops: [{ outlet_id: f.outlets[0].id, weekday: 3 }] })
    // Wednesday 25 Nov and the 13 days after: Wednesdays 25 Nov, 2 Dec.
    expect((await generated(f, plan.id)).map((visit) => visit.visit_date)).toEqual(['2026-11-25', '2026-12-02'])
  })
})

describe('the nightly run: each workspace after its own local midnight', () => {
  test('UTC+14 and UTC−11 workspaces get the next day added just after their midnight, not before', async () => {
    // 2026-11-30T09:59Z: 23:59 Monday 30th in Kiritimati (UTC+14); 22:59 Sunday 29th in Pago Pago (UTC−11).
    clock().set('2026-11-30T09:59:00.000Z')
    const kiritimati = await fixture(t.app, 'Pacific/Kiritimati')
    const pagoPago = await fixture(t.app, 'Pacific/Pago_Pago')
    const everyDay = (f: Fixture) => ({
      start_date: MONDAY,
      stops: [{ outlet_id: f.outlets[0].id, weekday: 1 }, ...[2, 3, 4, 5, 6, 7].map((weekday) => ({ outlet_id: f.outlets[0].id, weekday }))],
    })
    const east = await newPlan(kiritimati, everyDay(kiritimati))
    const west = await newPlan(pagoPago, everyDay(pagoPago))
    const dates = async (f: Fixture, id: number) => (await generated(f, id)).map((visit) => visit.visit_date)
    expect(await dates(kiritimati, east.id)).toEqual(['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05', '2026-12-06'])
    expect(await dates(pagoPago, west.id)).toEqual(['2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05'])
    await generateJourneyPlanVisits(t.app.deps)
    // Before either midnight: nothing new.
    expect(await dates(kiritimati, east.id)).toHaveLength(7)
    clock().set('2026-11-30T10:01:00.000Z') // 00:01 Tuesday 1 Dec in Kiritimati; still 23:01 Sunday in Pago Pago
    await generateJourneyPlanVisits(t.app.deps)
    expect((await dates(kiritimati, east.id)).at(-1)).toBe('2026-12-07')
    expect((await dates(pagoPago, west.id)).at(-1)).toBe('2026-12-05')
    clock().set('2026-11-30T11:01:00.000Z') // 00:01 Monday 30th in Pago Pago
    await generateJourneyPlanVisits(t.app.deps)
    expect((await dates(pagoPago, west.id)).at(-1)).toBe('2026-12-06')
    expect(await dates(kiritimati, east.id)).toHaveLength(8)
    clock().set(NOW)
  })
})

describe('the field-day report: plan compliance and the effective call', () => {
  test('planned by plan, unplanned, compliance, out-of-sequence check-ins, effective calls and order value of the day', async () => {
    const f = await fixture()
    const plan = await newPlan(f, { stops: f.outlets.map((outlet, i) => ({ outlet_id: outlet.id, weekday: 3, sequence: i + 1 })) })
    const today = (await generated(f, plan.id)).filter((visit) => visit.visit_date === '2026-11-25')
    expect(today.map((visit) => visit.route_sequence)).toEqual([1, 2, 3, 4])
    // An office visit outside the plan, never started.
    data(
      await t.app.post(
        `${OFFICE}/visits`,
        { outlet_id: f.outlets[0].id, project_id: f.project.id, visit_date: '2026-11-25', user_ids: [f.field.user.id] },
        { token: f.ws.owner.token },
      ),
    )
    const product = data(await t.app.post(`${OFFICE}/products`, { name: unique('Product'), sku: unique('SKU'), price: 12_500 }, { token: f.ws.owner.token }))
    // Visits of sequence 2, 1, 3 done in that order (one out of sequence); 4 left scheduled; an order at the first.
    let minute = 1
    for (const sequence of [2, 1, 3]) {
      clock().set(`2026-11-25T01:0${minute++}:00.000Z`)
      const visit = await checkInVisit(t.app, today[sequence - 1].id, f.field)
      if (sequence === 2) {
        const order = await t.app.post(
          `/app/v1/visits/${visit.id}/sales-orders`,
          { lines: [{ product_id: product.id, quantity: 4 }] },
          { token: f.field.token, idempotencyKey: unique('order') },
        )
        expect(order.status).toBe(201)
      }
      const submission = visit.submissions[0]
      ok(
        await t.app.post(
          `/app/v1/visits/${visit.id}/submit-form-v2`,
          { form_id: submission.form_id, items: [{ submission_id: submission.id, status: 'completed', answers: { note: 'done' } }] },
          { token: f.field.token },
        ),
      )
      ok(await t.app.post(`/app/v1/visits/${visit.id}/check-out`, { latitude: -6.2, longitude: 106.8 }, { token: f.field.token }))
    }
    clock().set(NOW)
    const [row] = ok(await t.app.get(`${OFFICE}/reports/field-day?date=2026-11-25&user_id=${f.field.user.id}`, { token: f.ws.owner.token }))
    expect(row).toMatchObject({
      visits_planned_by_plan: 4,
      visits_unplanned: 1,
      plan_compliance_pct: 75,
      out_of_sequence: 1,
      effective_calls: 1,
      order_value: 50_000,
      visits_completed: 3,
    })
    // A day without plan visits: no compliance to speak of (null, not 0).
    const [quiet] = ok(await t.app.get(`${OFFICE}/reports/field-day?date=2026-11-01&user_id=${f.field.user.id}`, { token: f.ws.owner.token }))
    expect(quiet).toMatchObject({ visits_planned_by_plan: 0, plan_compliance_pct: null, out_of_sequence: 0, effective_calls: 0, order_value: 0 })
  })
})

describe('a plan whose team was deleted since', () => {
  test('still generates its visits, without the team: on demand, and in the nightly run, which goes on to the other workspaces', async () => {
    const f = await fixture()
    const team = await newTeam(t.app, f.ws.owner.token)
    const everyDay = (g: Fixture) => [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ outlet_id: g.outlets[0].id, weekday }))
    const plan = await newPlan(f, { team_id: team.id, stops: everyDay(f) })
    // Created with the team: today (Wednesday 25th) and the 6 days after.
    expect((await generated(f, plan.id)).map((visit) => visit.team_id)).toEqual(Array(7).fill(team.id))
    ok(await t.app.delete(`${OFFICE}/teams/${team.id}`, { token: f.ws.owner.token }))

    const reply = await t.app.post(`${PLANS}/${plan.id}/generate`, { date_from: '2026-12-05', date_to: '2026-12-06' }, { token: f.manager.token })
    expect(ok(reply)).toEqual({ created: 2, skipped: 0 })
    const made = (await generated(f, plan.id)).filter((visit) => visit.visit_date >= '2026-12-05')
    expect(made.map((visit) => [visit.visit_date, visit.team_id])).toEqual([
      ['2026-12-05', null],
      ['2026-12-06', null],
    ])

    // The next local day (Thursday 26th in Jakarta): the horizon reaches 2 December, for this plan and for a later workspace's.
    const later = await fixture()
    const other = await newPlan(later, { stops: everyDay(later) })
    clock().set('2026-11-26T01:00:00.000Z')
    try {
      await generateJourneyPlanVisits(t.app.deps)
      expect((await generated(f, plan.id)).filter((visit) => visit.visit_date === '2026-12-02').map((visit) => visit.team_id)).toEqual([null])
      expect((await generated(later, other.id)).map((visit) => visit.visit_date).at(-1)).toBe('2026-12-02')
    } finally {
      clock().set(NOW)
    }
  })
})

describe('an edited plan is always told apart from the plan a running generation read', () => {
  test('two edits within one millisecond (the clock standing still) give two different, increasing updated_at', async () => {
    const f = await fixture()
    const plan = await newPlan(f)
    const stamps = [plan.updated_at]
    for (const name of ['A', 'B', 'C']) {
      const edited = ok(await t.app.put(`${PLANS}/${plan.id}`, { name, stops: weekdayStops(f, [2]) }, { token: f.manager.token }))
      stamps.push(edited.updated_at)
    }
    expect(new Set(stamps).size).toBe(4)
    expect([...stamps].sort()).toEqual(stamps)
  })
})
