/**
 * Attendance (docs/API.md §Other areas, "Mobile extras"): clock-in and clock-out from the app, manual
 * entries in the office, lists and their audit entries.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'
import { type Row, PNG, HERE, manualClock, data, auditRows, ids } from './factories'

const FILE_URL = /^\/api\/files\/[0-9a-f-]{36}$/
const NOW = '2026-03-10T10:00:00.000Z'
const TODAY = '2026-03-10'

describe('Attendance', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  const admin = () => ws.owner.token

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
  })

  const clockIn = (who: Session, body: Row = HERE) => t.app.post('/app/v1/attendances/clock-in', body, { token: who.token })
  const clockOut = (who: Session, body: Row = HERE) => t.app.post('/app/v1/attendances/clock-out', body, { token: who.token })
  const countFor = (userId: number) => t.app.count('attendances', `user_id = ${userId}`)
  const manual = (body: Row, token = admin()) => t.app.post('/office/v1/attendances', body, { token })

  test('clock-in without latitude or longitude → 400 LOCATION_REQUIRED naming the missing field; nothing stored', async () => {
    const field = await t.app.member(ws, 'user')
    const none = expectError(await clockIn(field, {}), 400, 'LOCATION_REQUIRED')
    expect(Object.keys(none).sort()).toEqual(['latitude', 'longitude'])
    expect(Object.keys(expectError(await clockIn(field, { latitude: -6.2 }), 400, 'LOCATION_REQUIRED'))).toEqual(['longitude'])
    expect(Object.keys(expectError(await clockIn(field, { latitude: -6.2, longitude: null }), 400, 'LOCATION_REQUIRED'))).toEqual(['longitude'])
    expect(await countFor(field.user.id)).toBe(0)
    expect(await t.app.count('audit_logs', `entity_type = 'attendance' AND actor_id = ${field.user.id}`)).toBe(0)
  })

  test('GET /app/v1/attendances/today is null before clocking in; clock-in → 201 ATTENDANCE_CLOCKED_IN (photo stored as an /api/files URL); today then returns the row; a second clock-in → 409 ATTENDANCE_ALREADY_OPEN', async () => {
    const field = await t.app.member(ws, 'user', { name: 'Clock Person' })
    const before = await t.app.get('/app/v1/attendances/today', { token: field.token })
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({ code: 'SUCCESS', data: null })

    const filesBefore = await t.app.count('files')
    const reply = await clockIn(field, { ...HERE, photo: PNG, notes: 'morning' })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({
      code: 'ATTENDANCE_CLOCKED_IN',
      data: {
        user_id: field.user.id,
        user: { id: field.user.id, name: 'Clock Person' },
        date: TODAY,
        check_in_at: NOW,
        check_in_location: HERE,
        check_out_at: null,
        worked_minutes: null,
        source: 'mobile',
        notes: 'morning',
      },
    })
    const attendance = reply.body.data
    expect(attendance.check_in_photo_url).toMatch(FILE_URL)
    expect(await t.app.count('files')).toBe(filesBefore + 1)
    const photo = await t.app.get(attendance.check_in_photo_url.replace(/^\/api/, ''), { token: admin() })
    expect(photo.status).toBe(200)
    expect(photo.headers.get('content-type')).toBe('image/png')

    const today = await t.app.get('/app/v1/attendances/today', { token: field.token })
    expect(today.body.data).toMatchObject({ id: attendance.id, check_out_at: null })

    const again = expectError(await clockIn(field), 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(again).toEqual({ attendance_id: attendance.id })
    expect(await countFor(field.user.id)).toBe(1)
  })

  test('clock-out without an open attendance → 409 ATTENDANCE_NOT_OPEN; nothing stored', async () => {
    const field = await t.app.member(ws, 'user')
    expectError(await clockOut(field), 409, 'ATTENDANCE_NOT_OPEN')
    expect(await countFor(field.user.id)).toBe(0)
    // Location is still checked first.
    expectError(await clockOut(field, {}), 400, 'LOCATION_REQUIRED')
  })

  test('two concurrent clock-ins of the same user → one 201 and one 409 ATTENDANCE_ALREADY_OPEN; one open row', async () => {
    const field = await t.app.member(ws, 'user')
    const replies = await Promise.all([clockIn(field), clockIn(field)])
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409])
    expectError(replies.find((reply) => reply.status === 409)!, 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(await countFor(field.user.id)).toBe(1)
    expect(await t.app.count('attendances', `user_id = ${field.user.id} AND check_out_at IS NULL`)).toBe(1)
  })

  test('manual POST /office/v1/attendances → 201 ATTENDANCE_CREATED (source manual, worked_minutes); check_out_at not after check_in_at → 400; a foreign user → 400 errors.user_id', async () => {
    const field = await t.app.member(ws, 'user')
    const foreign = await t.app.member(other, 'user')
    const reply = await manual({
      user_id: field.user.id,
      date: '2026-03-09',
      check_in_at: '2026-03-09T08:00:00.000Z',
      check_out_at: '2026-03-09T16:30:00.000Z',
      notes: 'forgot phone',
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({
      code: 'ATTENDANCE_CREATED',
      data: {
        user_id: field.user.id,
        date: '2026-03-09',
        check_in_at: '2026-03-09T08:00:00.000Z',
        check_out_at: '2026-03-09T16:30:00.000Z',
        worked_minutes: 510,
        source: 'manual',
        notes: 'forgot phone',
        check_in_location: null,
      },
    })

    const before = await t.app.count('attendances')
    const backwards = expectError(
      await manual({ user_id: field.user.id, date: '2026-03-08', check_in_at: '2026-03-08T16:00:00.000Z', check_out_at: '2026-03-08T08:00:00.000Z' }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(backwards)).toEqual(['check_out_at'])
    expectError(
      await manual({ user_id: field.user.id, date: '2026-03-08', check_in_at: '2026-03-08T08:00:00.000Z', check_out_at: '2026-03-08T08:00:00.000Z' }),
      400,
      'VALIDATION_ERROR',
    )
    const foreignErrors = expectError(
      await manual({ user_id: foreign.user.id, date: '2026-03-08', check_in_at: '2026-03-08T08:00:00.000Z' }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(foreignErrors)).toEqual(['user_id'])
    expectError(await manual({ user_id: 999_999, date: '2026-03-08', check_in_at: '2026-03-08T08:00:00.000Z' }), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('attendances')).toBe(before)
    expect(await t.app.count('attendances', `user_id = ${foreign.user.id}`)).toBe(0)
  })

  test('an open manual entry conflicts with an open clock-in (both ways) → 409 ATTENDANCE_ALREADY_OPEN; a closed manual entry does not', async () => {
    const clocked = await t.app.member(ws, 'user')
    expect((await clockIn(clocked)).status).toBe(201)
    expectError(await manual({ user_id: clocked.user.id, date: TODAY, check_in_at: '2026-03-10T07:00:00.000Z' }), 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(await countFor(clocked.user.id)).toBe(1)
    expect(
      (await manual({ user_id: clocked.user.id, date: '2026-03-07', check_in_at: '2026-03-07T08:00:00.000Z', check_out_at: '2026-03-07T17:00:00.000Z' }))
        .status,
    ).toBe(201)
    expect(await countFor(clocked.user.id)).toBe(2)

    const entered = await t.app.member(ws, 'user')
    expect((await manual({ user_id: entered.user.id, date: TODAY, check_in_at: '2026-03-10T07:00:00.000Z' })).status).toBe(201)
    expectError(await clockIn(entered), 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(await countFor(entered.user.id)).toBe(1)
  })

  test('office list filters user_id, team_id, date_from, date_to (inclusive) with meta; another workspace never shows', async () => {
    const a = await t.app.member(ws, 'user')
    const b = await t.app.member(ws, 'user')
    const team = data(await t.app.post('/office/v1/teams', { name: unique('Team'), user_ids: [a.user.id] }, { token: admin() }))
    const entry = async (who: Session, date: string, token = admin()) =>
      data(await manual({ user_id: who.user.id, date, check_in_at: `${date}T08:00:00.000Z`, check_out_at: `${date}T17:00:00.000Z` }, token))
    const a1 = await entry(a, '2026-03-01')
    const a3 = await entry(a, '2026-03-03')
    const b2 = await entry(b, '2026-03-02')
    const foreigner = await t.app.member(other, 'user')
    await entry(foreigner, '2026-03-02', other.owner.token)

    const list = async (query: string) => {
      const reply = await t.app.get(`/office/v1/attendances?${query}`, { token: admin() })
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe('LIST_OK')
      return reply.body
    }
    const byUser = await list(`user_id=${a.user.id}`)
    expect(ids(byUser.data)).toEqual([a3.id, a1.id])
    expect(byUser.meta).toEqual({ page: 1, limit: 10, total: 2, total_pages: 1 })
    expect(ids((await list(`team_id=${team.id}`)).data)).toEqual([a3.id, a1.id])
    const range = await list('date_from=2026-03-02&date_to=2026-03-03')
    expect(ids(range.data)).toEqual([a3.id, b2.id])
    expect(range.meta.total).toBe(2)
    expect(ids((await list(`date_from=2026-03-02&date_to=2026-03-02`)).data)).toEqual([b2.id])
    expect(ids((await list(`user_id=${a.user.id}&date_to=2026-03-02`)).data)).toEqual([a1.id])
    const paged = await list(`user_id=${a.user.id}&limit=1&page=2`)
    expect(ids(paged.data)).toEqual([a1.id])
    expect(paged.meta).toEqual({ page: 2, limit: 1, total: 2, total_pages: 2 })
    expect(ids((await list(`user_id=${foreigner.user.id}`)).data)).toEqual([])
    expect((await list('limit=100')).data.every((row: Row) => row.workspace_id === ws.id)).toBe(true)
    expectError(await t.app.get('/office/v1/attendances?date_from=2026-02-30', { token: admin() }), 400, 'VALIDATION_ERROR')
  })

  test("detail: 200 SUCCESS for the workspace's attendance; another workspace's id → 404 ATTENDANCE_NOT_FOUND", async () => {
    const mine = data(await manual({ user_id: (await t.app.member(ws, 'user')).user.id, date: '2026-03-04', check_in_at: '2026-03-04T08:00:00.000Z' }))
    const foreignUser = await t.app.member(other, 'user')
    const theirs = data(await manual({ user_id: foreignUser.user.id, date: '2026-03-04', check_in_at: '2026-03-04T08:00:00.000Z' }, other.owner.token))
    const detail = await t.app.get(`/office/v1/attendances/${mine.id}`, { token: admin() })
    expect(detail.status).toBe(200)
    expect(detail.body).toMatchObject({ code: 'SUCCESS', data: { id: mine.id, date: '2026-03-04' } })
    expectError(await t.app.get(`/office/v1/attendances/${theirs.id}`, { token: admin() }), 404, 'ATTENDANCE_NOT_FOUND')
    expectError(await t.app.get('/office/v1/attendances/999999', { token: admin() }), 404, 'ATTENDANCE_NOT_FOUND')
  })

  test('permissions: the field user gets 403 on office routes; a manager reads but cannot create; an admin may clock in; a custom role without attendance:clock gets 403 on clock-in/out/today', async () => {
    const field = await t.app.member(ws, 'user')
    const manager = await t.app.member(ws, 'manager')
    const someone = data(
      await manual({ user_id: field.user.id, date: '2026-03-05', check_in_at: '2026-03-05T08:00:00.000Z', check_out_at: '2026-03-05T09:00:00.000Z' }),
    )
    const before = await t.app.count('attendances')
    expectError(await t.app.get('/office/v1/attendances', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`/office/v1/attendances/${someone.id}`, { token: field.token }), 403, 'FORBIDDEN')
    expectError(await manual({ user_id: field.user.id, date: '2026-03-05', check_in_at: '2026-03-05T10:00:00.000Z' }, field.token), 403, 'FORBIDDEN')
    expect((await t.app.get('/office/v1/attendances', { token: manager.token })).status).toBe(200)
    expectError(await manual({ user_id: field.user.id, date: '2026-03-05', check_in_at: '2026-03-05T10:00:00.000Z' }, manager.token), 403, 'FORBIDDEN')

    const noClock = await t.app.memberWithGrants(ws, [{ key: 'outlet.view', platform: 'mobile', access: 'view' }])
    expectError(await clockIn(noClock), 403, 'FORBIDDEN')
    expectError(await clockOut(noClock), 403, 'FORBIDDEN')
    expectError(await t.app.get('/app/v1/attendances/today', { token: noClock.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('attendances')).toBe(before)

    const adminUser = await t.app.member(ws, 'admin')
    const adminClock = await clockIn(adminUser)
    expect(adminClock.status).toBe(201)
    expect(adminClock.body.code).toBe('ATTENDANCE_CLOCKED_IN')
  })

  // Last in this block: moves the clock (and so expires the tokens issued before).
  test('clock-out → 200 ATTENDANCE_CLOCKED_OUT with worked_minutes from clock-in to clock-out; today still shows it; audit created then updated', async () => {
    const field = await t.app.member(ws, 'user', { name: 'Worker Bee' })
    const opened = data(await clockIn(field))
    manualClock(t.app).advance(95 * 60_000 + 30_000)
    const again = await t.app.login(field.user.email)
    const reply = await clockOut(again, { latitude: -6.3, longitude: 106.9, photo: PNG })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      code: 'ATTENDANCE_CLOCKED_OUT',
      data: {
        id: opened.id,
        check_in_at: NOW,
        check_out_at: '2026-03-10T11:35:30.000Z',
        check_out_location: { latitude: -6.3, longitude: 106.9 },
        worked_minutes: 95,
      },
    })
    expect(reply.body.data.check_out_photo_url).toMatch(FILE_URL)
    const [stored] = await t.app.db.pragma(`SELECT check_out_at FROM attendances WHERE id = ${opened.id}`)
    expect(stored.check_out_at).toBe('2026-03-10T11:35:30.000Z')
    expect((await t.app.get('/app/v1/attendances/today', { token: again.token })).body.data).toMatchObject({ id: opened.id, worked_minutes: 95 })
    expectError(await clockOut(again), 409, 'ATTENDANCE_NOT_OPEN')

    const log = await auditRows(t.app, 'attendance', opened.id)
    expect(log.map((row) => row.action)).toEqual(['created', 'updated'])
    expect(log[0]).toMatchObject({ actor_id: field.user.id, old_values: null, new_values: { id: opened.id, check_in_at: NOW, check_out_at: null } })
    expect(log[1]).toMatchObject({
      actor_id: field.user.id,
      old_values: { check_out_at: null, worked_minutes: null },
      new_values: { check_out_at: '2026-03-10T11:35:30.000Z', worked_minutes: 95 },
    })
    expect(Object.keys(log[1].new_values)).not.toContain('check_in_at')
    expect(Object.keys(log[1].new_values)).not.toContain('updated_at')

    // A manual entry is audited as created by the office user.
    ws.owner = await t.app.login(ws.owner.user.email)
    const entered = data(
      await manual({ user_id: field.user.id, date: '2026-03-02', check_in_at: '2026-03-02T08:00:00.000Z', check_out_at: '2026-03-02T12:00:00.000Z' }),
    )
    const manualLog = await auditRows(t.app, 'attendance', entered.id)
    expect(manualLog).toHaveLength(1)
    expect(manualLog[0]).toMatchObject({
      action: 'created',
      actor_id: ws.owner.user.id,
      entity_name: 'Worker Bee · 2026-03-02',
      new_values: { source: 'manual', worked_minutes: 240 },
    })
  })
})
