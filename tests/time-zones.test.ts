/**
 * Workspace time zones (docs/API.md §Time zones): every workspace has an IANA zone, and "today" and
 * every calendar date of a rule are its local days. Tested in zones far from UTC (UTC+14 and UTC−11)
 * with a controlled clock on both sides of local midnight.
 */
import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config/env'
import type { ManualClock } from '../src/lib/clock'
import { localDate, localDateTimeLabel, localDayRange, localMidnight, utcOffsetLabel } from '../src/lib/time-zones'
import { newOutlet, newProject, ok } from './factories'
import { createTestApp, expectError, unique, useTestApp, type TestApp } from './harness'

const t = useTestApp()
const clock = (app: TestApp = t.app) => app.clock as ManualClock

const KIRITIMATI = 'Pacific/Kiritimati' // UTC+14, no daylight saving
const PAGO_PAGO = 'Pacific/Pago_Pago' // UTC−11, no daylight saving

const workspaceIn = (timezone: string, app: TestApp = t.app) => app.workspace(unique('Zone'), { timezone })

describe('local days: pure functions', () => {
  test('UTC+14: 2026-11-23T10:00Z is already the 24th; the 24th begins at 2026-11-23T10:00Z', () => {
    expect(localDate(Date.parse('2026-11-23T09:59:59.999Z'), KIRITIMATI)).toBe('2026-11-23')
    expect(localDate(Date.parse('2026-11-23T10:00:00.000Z'), KIRITIMATI)).toBe('2026-11-24')
    expect(new Date(localMidnight('2026-11-24', KIRITIMATI)).toISOString()).toBe('2026-11-23T10:00:00.000Z')
  })

  test('UTC−11: 2026-11-24T10:59Z is still the 23rd; the 23rd ends at 2026-11-24T11:00Z', () => {
    expect(localDate(Date.parse('2026-11-24T10:59:59.999Z'), PAGO_PAGO)).toBe('2026-11-23')
    expect(localDate(Date.parse('2026-11-24T11:00:00.000Z'), PAGO_PAGO)).toBe('2026-11-24')
    expect(localDayRange('2026-11-23', PAGO_PAGO)).toEqual({ from: '2026-11-23T11:00:00.000Z', until: '2026-11-24T11:00:00.000Z' })
  })

  test('the example of the contract: Asia/Jakarta, 2026-11-23T23:30Z is 2026-11-24', () => {
    expect(localDate(Date.parse('2026-11-23T23:30:00.000Z'), 'Asia/Jakarta')).toBe('2026-11-24')
  })

  test('a zone with daylight saving: a local day is 23 or 25 hours long on the change days', () => {
    const spring = localDayRange('2026-03-08', 'America/New_York')
    expect(Date.parse(spring.until) - Date.parse(spring.from)).toBe(23 * 3_600_000)
    const autumn = localDayRange('2026-11-01', 'America/New_York')
    expect(Date.parse(autumn.until) - Date.parse(autumn.from)).toBe(25 * 3_600_000)
    expect(spring.from).toBe('2026-03-08T05:00:00.000Z')
  })
})

describe('report times: the local wall clock with its offset', () => {
  test('UTC+14, UTC−11, half-hour zones, UTC itself and a daylight-saving zone on both sides of its change', () => {
    expect(localDateTimeLabel(Date.parse('2026-11-23T19:15:00Z'), KIRITIMATI)).toBe('2026-11-24 09:15 UTC+14')
    expect(localDateTimeLabel(Date.parse('2026-11-24T10:59:59Z'), PAGO_PAGO)).toBe('2026-11-23 23:59 UTC-11')
    expect(localDateTimeLabel(Date.parse('2026-11-24T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-11-24 05:30 UTC+5:30')
    expect(localDateTimeLabel(Date.parse('2026-11-24T00:00:00Z'), 'UTC')).toBe('2026-11-24 00:00 UTC')
    expect(utcOffsetLabel(Date.parse('2026-03-08T06:59:00Z'), 'America/New_York')).toBe('UTC-5')
    expect(utcOffsetLabel(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York')).toBe('UTC-4')
  })
})

describe('the workspace zone: register, create, settings, login', () => {
  test('register takes a zone, in any case Intl accepts, and stores its canonical name; login carries it', async () => {
    const ws = await workspaceIn('asia/jakarta')
    expect(ws.owner.user.timezone).toBe('Asia/Jakarta')
    const listed = ok(await t.app.get('/office/v1/workspaces', { token: ws.owner.token }))
    expect(listed[0].timezone).toBe('Asia/Jakarta')
  })

  test('an unknown zone is 400 errors.timezone and creates nothing', async () => {
    const before = await t.app.count('workspaces')
    for (const timezone of ['Mars/Olympus', 'UTC+7', '', 'Asia/Jakarta; DROP TABLE workspaces', 'x'.repeat(65), 7]) {
      const reply = await t.app.post('/auth/register', {
        name: 'N',
        email: `${unique('tz')}@example.com`,
        password: 'password123',
        workspace_name: 'W',
        timezone,
      })
      const errors = expectError(reply, 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['timezone'])
    }
    expect(await t.app.count('workspaces')).toBe(before)
  })

  test('without a zone a workspace takes DEFAULT_TIMEZONE (UTC unless set)', async () => {
    const plain = await t.app.workspace()
    expect(plain.owner.user.timezone).toBe('UTC')
    const app = await createTestApp({ env: { DEFAULT_TIMEZONE: 'Asia/Makassar' } })
    try {
      const ws = await app.workspace()
      expect(ws.owner.user.timezone).toBe('Asia/Makassar')
      const created = ok(await app.post('/office/v1/workspaces', { name: 'Second' }, { token: ws.owner.token }), 201)
      expect(created.timezone).toBe('Asia/Makassar')
      const third = ok(await app.post('/office/v1/workspaces', { name: 'Third', timezone: 'Asia/Jayapura' }, { token: ws.owner.token }), 201)
      expect(third.timezone).toBe('Asia/Jayapura')
    } finally {
      await app.close()
    }
  })

  test('DEFAULT_TIMEZONE must be a real zone: the configuration refuses to start', () => {
    expect(() => loadConfig({ DEFAULT_TIMEZONE: 'Nowhere/Land' })).toThrow(ConfigError)
    expect(loadConfig({ DEFAULT_TIMEZONE: 'Asia/Jakarta' }).DEFAULT_TIMEZONE).toBe('Asia/Jakarta')
  })

  test('settings change the zone (audited old → new), and the next request already uses it', async () => {
    clock().set('2026-11-23T12:00:00.000Z')
    const ws = await workspaceIn('UTC')
    const updated = ok(await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, { timezone: KIRITIMATI }, { token: ws.owner.token }))
    expect(updated.timezone).toBe(KIRITIMATI)
    const [entry] = await t.app.db.pragma(
      `SELECT old_values, new_values FROM audit_logs WHERE workspace_id = ${ws.id} AND entity_type = 'workspace' AND action = 'updated' ORDER BY id DESC LIMIT 1`,
    )
    expect(JSON.parse(String(entry!.old_values))).toEqual({ timezone: 'UTC' })
    expect(JSON.parse(String(entry!.new_values))).toEqual({ timezone: KIRITIMATI })
    // The cached caller picks up the new zone: attendance "today" moves with it.
    const field = await t.app.member(ws, 'user')
    ok(await t.app.post('/app/v1/attendances/clock-in', { latitude: 1, longitude: 1 }, { token: field.token }), 201)
    expect(ok(await t.app.get('/app/v1/attendances/today', { token: field.token })).date).toBe('2026-11-24')
    expectError(await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, { timezone: 'Moon/Base' }, { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
  })
})

describe('"today" is the local day', () => {
  test('attendance: clock-in just before and just after local midnight in UTC+14 and UTC−11', async () => {
    const cases = [
      { zone: KIRITIMATI, at: '2026-11-23T09:59:00.000Z', date: '2026-11-23' },
      { zone: KIRITIMATI, at: '2026-11-23T10:01:00.000Z', date: '2026-11-24' },
      { zone: PAGO_PAGO, at: '2026-11-24T10:59:00.000Z', date: '2026-11-23' },
      { zone: PAGO_PAGO, at: '2026-11-24T11:01:00.000Z', date: '2026-11-24' },
      { zone: 'Asia/Jakarta', at: '2026-11-23T23:30:00.000Z', date: '2026-11-24' },
    ]
    for (const { zone, at, date } of cases) {
      clock().set(at)
      const ws = await workspaceIn(zone)
      const field = await t.app.member(ws, 'user')
      const attendance = ok(await t.app.post('/app/v1/attendances/clock-in', { latitude: 1, longitude: 1 }, { token: field.token }), 201)
      expect({ zone, at, date: attendance.date }).toEqual({ zone, at, date })
      expect(ok(await t.app.get('/app/v1/attendances/today', { token: field.token })).id).toBe(attendance.id)
    }
  })

  test('a self-visit without a date is planned for the local today', async () => {
    clock().set('2026-11-24T05:00:00.000Z') // 18:00 on the 23rd in Pago Pago
    const ws = await workspaceIn(PAGO_PAGO)
    const field = await t.app.member(ws, 'user')
    const outlet = await newOutlet(t.app, ws.owner.token)
    const project = await newProject(t.app, ws.owner.token)
    const visit = ok(await t.app.post('/app/v1/visits/self', { outlet_id: outlet.id, project_id: project.id }, { token: field.token }), 201)
    expect(visit.visit_date).toBe('2026-11-23')
  })

  test('the dashboard counts pings of the local day', async () => {
    clock().set('2026-11-23T12:00:00.000Z') // 02:00 on the 24th in Kiritimati
    const ws = await workspaceIn(KIRITIMATI)
    const field = await t.app.member(ws, 'user')
    const pings = ['2026-11-23T09:59:00.000Z', '2026-11-23T10:00:00.000Z', '2026-11-23T11:30:00.000Z'].map((recorded_at) => ({
      lat: 1,
      lng: 1,
      is_mock: false,
      recorded_at,
    }))
    ok(await t.app.post('/app/v1/locations/batch', { pings }, { token: field.token, idempotencyKey: unique('k') }), 201)
    const today = ok(await t.app.get('/office/v1/dashboard/metrics?date_from=2026-11-24&date_to=2026-11-24', { token: ws.owner.token }))
    expect(today.pings_received).toBe(2)
    const byDefault = ok(await t.app.get('/office/v1/dashboard/metrics', { token: ws.owner.token }))
    expect(byDefault.range.date_to).toBe('2026-11-24')
    const yesterday = ok(await t.app.get('/office/v1/dashboard/metrics?date_from=2026-11-23&date_to=2026-11-23', { token: ws.owner.token }))
    expect(yesterday.pings_received).toBe(1)
  })
})

describe('date filters are local days', () => {
  test('location history: date_from/date_to as dates cover the local day', async () => {
    clock().set('2026-11-25T00:00:00.000Z')
    const ws = await workspaceIn(PAGO_PAGO)
    const field = await t.app.member(ws, 'user')
    const times = ['2026-11-23T10:59:00.000Z', '2026-11-23T11:00:00.000Z', '2026-11-24T10:59:00.000Z', '2026-11-24T11:00:00.000Z']
    const pings = times.map((recorded_at) => ({ lat: 1, lng: 1, is_mock: false, recorded_at }))
    ok(await t.app.post('/app/v1/locations/batch', { pings }, { token: field.token, idempotencyKey: unique('k') }), 201)
    const day = ok(await t.app.get('/office/v1/locations?date_from=2026-11-23&date_to=2026-11-23&sort_order=asc', { token: ws.owner.token }))
    expect(day.map((p: { recorded_at: string }) => p.recorded_at)).toEqual([times[1], times[2]])
  })

  test('audit log: date_to as a date includes the whole local day and nothing after', async () => {
    clock().set('2026-11-23T09:55:00.000Z') // 23:55 on the 23rd
    const ws = await workspaceIn(KIRITIMATI)
    ok(await t.app.post('/office/v1/outlets/sub-areas', { name: unique('Before midnight') }, { token: ws.owner.token }), 201)
    clock().set('2026-11-23T10:05:00.000Z') // 00:05 on the 24th
    ok(await t.app.post('/office/v1/outlets/sub-areas', { name: unique('After midnight') }, { token: ws.owner.token }), 201)
    const query = 'entity_type=sub_area&date_from=2026-11-23&date_to=2026-11-23'
    const listed = ok(await t.app.get(`/office/v1/audit-logs?${query}`, { token: ws.owner.token }))
    expect(listed.data.map((entry: { created_at: string }) => entry.created_at)).toEqual(['2026-11-23T09:55:00.000Z'])
  })
})
