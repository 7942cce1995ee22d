/**
 * Notifications and push tokens (docs/API.md §Other areas, §Real-time socket): who is told what when
 * visits are assigned and reviewed, read marks (push delivery itself: tests/push.test.ts, tests/push.outbox.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, expectError, type TestApp, unique, type Session, type Workspace } from './harness'
import { type Row, manualClock, data, parseJson, ids, sorted, type Kit, kit, planVisit, review, walkVisit } from './factories'

const NOW = '2026-03-10T10:00:00.000Z'

describe('Notifications', () => {
  let t: TestApp
  let ws: Workspace
  let other: Workspace
  let k: Kit
  let f1: Session
  let f2: Session
  let manager: Session
  const admin = () => ws.owner.token

  beforeAll(async () => {
    t = await createTestApp()
    manualClock(t).set(NOW)
    ws = await t.workspace()
    other = await t.workspace()
    k = await kit(t, ws.owner.token)
    f1 = await t.member(ws, 'user')
    f2 = await t.member(ws, 'user')
    manager = await t.member(ws, 'manager')
  })
  afterAll(async () => {
    await t?.close()
  })

  const notificationsOf = async (userId: number) =>
    (await t.db.pragma(`SELECT * FROM notifications WHERE user_id = ${userId} ORDER BY id`)).map((row) => ({ ...row, data: parseJson(row.data) })) as Row[]

  test('assigning a visit notifies each new assignee (visit.assigned with the visit id); re-assigning notifies only the added user', async () => {
    const f3 = await t.member(ws, 'user')
    const before = [(await notificationsOf(f1.user.id)).length, (await notificationsOf(f2.user.id)).length]
    const visit = await planVisit(t, admin(), k, { user_ids: [f1.user.id, f2.user.id] })
    const mine = await notificationsOf(f1.user.id)
    expect(mine).toHaveLength(before[0] + 1)
    expect(mine.at(-1)).toMatchObject({ type: 'visit.assigned', workspace_id: ws.id, read_at: null, data: { visit_id: visit.id } })
    expect((await notificationsOf(f2.user.id)).at(-1)).toMatchObject({ type: 'visit.assigned', data: { visit_id: visit.id } })

    const assigned = await t.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [f1.user.id, f2.user.id, f3.user.id] }, { token: admin() })
    expect(assigned.status).toBe(200)
    expect(await notificationsOf(f1.user.id)).toHaveLength(before[0] + 1)
    expect(await notificationsOf(f2.user.id)).toHaveLength(before[1] + 1)
    const third = await notificationsOf(f3.user.id)
    expect(third.map((row) => [row.type, row.data.visit_id])).toEqual([['visit.assigned', visit.id]])
  })

  test("send-to-field notifies the visit's assignees (visit.sent_to_field)", async () => {
    const visit = await planVisit(t, admin(), k, { user_ids: [f2.user.id] })
    const sent = await t.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id] }, { token: admin() })
    expect(sent.status).toBe(200)
    expect((await notificationsOf(f2.user.id)).at(-1)).toMatchObject({ type: 'visit.sent_to_field', data: { visit_id: visit.id } })
    expect((await notificationsOf(f1.user.id)).some((row) => row.type === 'visit.sent_to_field' && row.data.visit_id === visit.id)).toBe(false)
  })

  test('approving or rejecting a submission notifies its submitter (submission.approved / submission.rejected)', async () => {
    const submitter = await t.member(ws, 'user')
    const first = await walkVisit(t, admin(), k, submitter)
    await review(t, admin(), first, 'approve', 'nice')
    const second = await walkVisit(t, admin(), k, submitter)
    await review(t, admin(), second, 'reject', 'blurry photo')
    const rows = await notificationsOf(submitter.user.id)
    expect(rows.map((row) => row.type)).toEqual(['visit.assigned', 'submission.approved', 'visit.assigned', 'submission.rejected'])
    expect(rows[1].data).toEqual({ submission_id: first.submissions[0].id, visit_id: first.id })
    expect(rows[3].data).toEqual({ submission_id: second.submissions[0].id, visit_id: second.id })
    expect(rows[3].body).toContain('blurry photo')
  })

  test("lists on both platforms show only the caller's own notifications, newest first, 10 by default; another user's and another workspace's never", async () => {
    const busy = await t.member(ws, 'user')
    for (let i = 0; i < 12; i++) {
      manualClock(t).advance(1_000)
      await planVisit(t, admin(), k, { user_ids: [busy.user.id, f1.user.id] })
    }
    const mobile = await t.get('/app/v1/notifications', { token: busy.token })
    expect(mobile.status).toBe(200)
    expect(mobile.body.code).toBe('LIST_OK')
    expect(mobile.body.meta).toEqual({ page: 1, limit: 10, total: 12, total_pages: 2 })
    expect(mobile.body.data).toHaveLength(10)
    expect(mobile.body.data.every((row: Row) => row.user_id === busy.user.id)).toBe(true)
    const stamps = mobile.body.data.map((row: Row) => row.created_at as string)
    expect(stamps).toEqual([...stamps].sort().reverse())
    expect(new Set(stamps).size).toBe(10)
    const all = (await t.get('/app/v1/notifications?limit=100', { token: busy.token })).body.data as Row[]
    expect(ids(all)).toEqual(sorted(ids(all)).reverse())
    expect(sorted(ids(all))).toEqual(ids(await notificationsOf(busy.user.id)))
    const page2 = await t.get('/app/v1/notifications?page=2', { token: busy.token })
    expect(ids(page2.body.data)).toEqual(ids(all).slice(10))
    expect((await t.get('/app/v1/notifications?limit=1000', { token: busy.token })).body.meta.limit).toBe(100)

    // The manager on the office list: only the manager's own.
    const visit = await planVisit(t, admin(), k, { user_ids: [manager.user.id] })
    const office = await t.get('/office/v1/notifications', { token: manager.token })
    expect(office.status).toBe(200)
    expect(office.body.data.map((row: Row) => [row.user_id, row.data.visit_id])).toEqual([[manager.user.id, visit.id]])
    // The owner's list holds only flagged check-ins of earlier tests (admins are told of those), none of the manager's.
    const ownersOwn = (await t.get('/office/v1/notifications?limit=100', { token: admin() })).body.data as Row[]
    expect(ownersOwn.filter((row) => row.type !== 'visit.flagged')).toEqual([])

    // The owner assigned in a second workspace: that notification shows only there.
    const second = data(await t.post('/office/v1/workspaces', { name: unique('Second') }, { token: admin() }))
    const switched = data(await t.post('/auth/switch-workspace', { workspace_id: second.id }, { token: admin() }), 200)
    const secondKit = await kit(t, switched.token)
    const there = await planVisit(t, switched.token, secondKit, { user_ids: [ws.owner.user.id] })
    const thereRows = (await notificationsOf(ws.owner.user.id)).filter((row) => row.type !== 'visit.flagged')
    expect(thereRows.map((row) => [row.workspace_id, row.data.visit_id])).toEqual([[second.id, there.id]])
    // In the first workspace the owner still has only the flagged check-ins admins are told of.
    const ownersAfter = (await t.get('/office/v1/notifications?limit=100', { token: admin() })).body.data as Row[]
    expect(ownersAfter.filter((row) => row.type !== 'visit.flagged')).toEqual([])
    expect(data(await t.get('/office/v1/notifications/unread-count', { token: admin() }), 200)).toEqual({ count: ownersAfter.length })
    expect(ids((await t.get('/office/v1/notifications', { token: switched.token })).body.data)).toEqual([thereRows[0].id])
    expectError(await t.put(`/office/v1/notifications/${thereRows[0].id}/read`, undefined, { token: admin() }), 404, 'NOTIFICATION_NOT_FOUND')

    // A user of another workspace sees none of these.
    const stranger = await t.member(other, 'user')
    expect((await t.get('/app/v1/notifications', { token: stranger.token })).body.meta.total).toBe(0)
  })

  test("unread=true lists only unread ones; unread-count answers {count}; PUT :id/read marks one (another user's id → 404 NOTIFICATION_NOT_FOUND); read-all answers how many it marked", async () => {
    const reader = await t.member(ws, 'user')
    const visits = []
    for (let i = 0; i < 3; i++) visits.push(await planVisit(t, admin(), k, { user_ids: [reader.user.id, f2.user.id] }))
    const rows = await notificationsOf(reader.user.id)
    expect(rows).toHaveLength(3)

    const count = await t.get('/app/v1/notifications/unread-count', { token: reader.token })
    expect(count.status).toBe(200)
    expect(count.body).toMatchObject({ code: 'SUCCESS', data: { count: 3 } })

    const readAt = t.clock.now().toISOString()
    const read = await t.put(`/app/v1/notifications/${rows[0].id}/read`, undefined, { token: reader.token })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ code: 'NOTIFICATION_READ', data: { id: rows[0].id, read_at: readAt } })
    expect((await notificationsOf(reader.user.id))[0].read_at).toBe(readAt)

    const unread = await t.get('/app/v1/notifications?unread=true', { token: reader.token })
    expect(ids(unread.body.data)).toEqual([rows[2].id, rows[1].id])
    expect(unread.body.meta.total).toBe(2)
    expect(ids((await t.get('/office/v1/notifications?unread=false', { token: reader.token })).body.data)).toEqual([rows[0].id])
    expect(data(await t.get('/office/v1/notifications/unread-count', { token: reader.token }), 200)).toEqual({ count: 2 })

    // Someone else's notification: 404 on both platforms, and it stays unread.
    const theirs = (await notificationsOf(f2.user.id)).at(-1)!
    expectError(await t.put(`/app/v1/notifications/${theirs.id}/read`, undefined, { token: reader.token }), 404, 'NOTIFICATION_NOT_FOUND')
    expectError(await t.put(`/office/v1/notifications/${theirs.id}/read`, undefined, { token: reader.token }), 404, 'NOTIFICATION_NOT_FOUND')
    expect((await notificationsOf(f2.user.id)).at(-1)!.read_at).toBeNull()

    const f2Unread = await t.count('notifications', `user_id = ${f2.user.id} AND read_at IS NULL`)
    const all = await t.put('/office/v1/notifications/read-all', undefined, { token: reader.token })
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ code: 'NOTIFICATIONS_READ', data: { count: 2 } })
    expect(await t.count('notifications', `user_id = ${reader.user.id} AND read_at IS NULL`)).toBe(0)
    expect(await t.count('notifications', `user_id = ${f2.user.id} AND read_at IS NULL`)).toBe(f2Unread)
    expect(data(await t.put('/app/v1/notifications/read-all', undefined, { token: reader.token }), 200)).toEqual({ count: 0 })
    expect(data(await t.get('/app/v1/notifications/unread-count', { token: reader.token }), 200)).toEqual({ count: 0 })
  })

  test('read marks, read-all and push-token registration write no audit entry', async () => {
    const quiet = await t.member(ws, 'user')
    await planVisit(t, admin(), k, { user_ids: [quiet.user.id] })
    await planVisit(t, admin(), k, { user_ids: [quiet.user.id] })
    const [first] = await notificationsOf(quiet.user.id)
    const before = await t.count('audit_logs')
    expect((await t.put(`/app/v1/notifications/${first.id}/read`, undefined, { token: quiet.token })).status).toBe(200)
    expect((await t.put('/app/v1/notifications/read-all', undefined, { token: quiet.token })).status).toBe(200)
    expect((await t.post('/app/v1/notifications/tokens', { token: unique('quiet-token'), platform: 'ios' }, { token: quiet.token })).status).toBe(201)
    expect(await t.count('audit_logs')).toBe(before)
  })

  test('POST /app/v1/notifications/tokens → 201; the same token again (also by another user) keeps one row and moves to the last user; invalid platform → 400', async () => {
    const token = unique('fcm-shared-token')
    const first = await t.post('/app/v1/notifications/tokens', { token, platform: 'android' }, { token: f1.token })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ code: 'PUSH_TOKEN_REGISTERED', data: { user_id: f1.user.id, token, platform: 'android' } })
    const again = data(await t.post('/app/v1/notifications/tokens', { token, platform: 'android' }, { token: f1.token }))
    expect(again.id).toBe(first.body.data.id)
    expect(await t.count('push_tokens', `token = '${token}'`)).toBe(1)

    const moved = data(await t.post('/app/v1/notifications/tokens', { token, platform: 'ios' }, { token: f2.token }))
    expect(moved).toMatchObject({ id: first.body.data.id, user_id: f2.user.id, platform: 'ios' })
    const stored = await t.db.pragma(`SELECT user_id, platform, workspace_id FROM push_tokens WHERE token = '${token}'`)
    expect(stored).toEqual([{ user_id: f2.user.id, platform: 'ios', workspace_id: ws.id }])

    const before = await t.count('push_tokens')
    const errors = expectError(
      await t.post('/app/v1/notifications/tokens', { token: unique('tok'), platform: 'windows' }, { token: f1.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toContain('platform')
    expectError(await t.post('/app/v1/notifications/tokens', { platform: 'android' }, { token: f1.token }), 400, 'VALIDATION_ERROR')
    expect(await t.count('push_tokens')).toBe(before)
  })
})
