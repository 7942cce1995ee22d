/**
 * The push outbox's write path, on both drivers (docs/API.md §Push notifications): a notification and its
 * outbox rows (one per token of its user) commit together, a refused request writes neither, and the
 * rows are keyed by notification and token; and the nightly removal of finished rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, expectError, type Session, type TestApp, unique, type Workspace } from './harness'
import { data, type Kit, kit, planVisit, type Row } from './factories'
import { eq } from 'drizzle-orm'
import { pushDeliveries } from '../src/db/schema'
import { JOBS } from '../src/jobs'
import { ManualClock } from '../src/lib/clock'
import { PUSH_DELIVERY_RETENTION_DAYS, purgeOldPushDeliveries } from '../src/modules/notifications'
import { PushFake } from './support/push-fake'

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`push outbox (${driver})`, () => {
    let t: TestApp
    let fake: PushFake
    let ws: Workspace
    let k: Kit
    let phone: Session
    let bystander: Session
    const android = unique('fcm-outbox-a')
    const ios = unique('fcm-outbox-i')

    beforeAll(async () => {
      const clock = new ManualClock(new Date())
      fake = new PushFake(clock)
      t = await createTestApp({ driver, clock, env: fake.env() })
      ws = await t.workspace()
      k = await kit(t, ws.owner.token)
      phone = await t.member(ws, 'user')
      bystander = await t.member(ws, 'user')
      for (const [token, platform] of [
        [android, 'android'],
        [ios, 'ios'],
      ] as const) {
        data(await t.post('/app/v1/notifications/tokens', { token, platform }, { token: phone.token }))
      }
    }, 60_000)
    afterAll(async () => {
      await t?.close()
      await fake?.stop()
    })

    test('a notification and one outbox row per token of its user commit together; a user without tokens gets no row', async () => {
      const visit = await planVisit(t, ws.owner.token, k, { user_ids: [phone.user.id, bystander.user.id] })
      const [mine] = (await t.db.pragma(`SELECT id FROM notifications WHERE user_id = ${phone.user.id} ORDER BY id DESC LIMIT 1`)) as Row[]
      const rows = (await t.db.pragma(
        `SELECT notification_id, user_id, token, platform, status, attempts FROM push_deliveries WHERE notification_id IN (SELECT id FROM notifications WHERE data LIKE '%"visit_id":${visit.id}%') ORDER BY token`,
      )) as Row[]
      expect(rows).toEqual(
        [
          { notification_id: mine.id, user_id: phone.user.id, token: android, platform: 'android', status: 'pending', attempts: 0 },
          { notification_id: mine.id, user_id: phone.user.id, token: ios, platform: 'ios', status: 'pending', attempts: 0 },
        ].sort((a, b) => a.token.localeCompare(b.token)),
      )
      // Delivered after commit, each once.
      expect(await t.deps.push.runDue()).toBe(2)
      expect(fake.pushesTo(android).map((push) => push.data.notification_id)).toEqual([String(mine.id)])
      expect(fake.pushesTo(ios).map((push) => push.data.notification_id)).toEqual([String(mine.id)])
      expect(await t.deps.push.runDue()).toBe(0)
    })

    test('a refused request (rolled back) leaves neither notification nor outbox row', async () => {
      const notifications = await t.count('notifications')
      const deliveries = await t.count('push_deliveries')
      expectError(
        await t.post(
          '/office/v1/visits',
          { outlet_id: k.outlet.id, project_id: k.project.id, visit_date: '2026-12-01', user_ids: [phone.user.id, 999_999] },
          { token: ws.owner.token },
        ),
        400,
        'VALIDATION_ERROR',
      )
      expect(await t.count('notifications')).toBe(notifications)
      expect(await t.count('push_deliveries')).toBe(deliveries)
    })

    test('rows left `sending` by a crash are pending again at resume, and sent once more (at least once)', async () => {
      await planVisit(t, ws.owner.token, k, { user_ids: [phone.user.id] })
      const [row] = (await t.db.pragma(`SELECT id, notification_id FROM push_deliveries WHERE status = 'pending' AND token = '${android}'`)) as Row[]
      // What a kill -9 between the claim and the outcome leaves behind.
      await t.db.transaction((tx) => tx.update(pushDeliveries).set({ status: 'sending', attempts: 1 }).where(eq(pushDeliveries.id, row.id)))
      expect(await t.deps.push.runDue()).toBe(1) // the ios row only
      expect(await t.deps.push.resume()).toBe(1)
      expect(await t.deps.push.runDue()).toBe(1)
      const [after] = (await t.db.pragma(`SELECT status, attempts FROM push_deliveries WHERE id = ${row.id}`)) as Row[]
      expect(after).toEqual({ status: 'sent', attempts: 2 })
      expect(fake.pushesTo(android).filter((push) => push.data.notification_id === String(row.notification_id))).toHaveLength(1)
    })
  })
}

describe('push delivery retention', () => {
  test('finished deliveries older than 30 days are removed nightly; recent ones and pending ones stay', async () => {
    const clock = new ManualClock(new Date())
    const fake = new PushFake(clock)
    const t = await createTestApp({ clock, env: fake.env() })
    try {
      const ws = await t.workspace()
      const k = await kit(t, ws.owner.token)
      const phone = await t.member(ws, 'user')
      const sent = unique('fcm-old-sent')
      const waiting = unique('fcm-old-waiting')
      for (const token of [sent, waiting]) data(await t.post('/app/v1/notifications/tokens', { token, platform: 'android' }, { token: phone.token }))
      fake.answer(waiting, { status: 503 })
      await planVisit(t, ws.owner.token, k, { user_ids: [phone.user.id] })
      await t.deps.push.runDue()
      const status = async () => (await t.db.pragma('SELECT token, status FROM push_deliveries ORDER BY token')) as Row[]
      expect((await status()).map((row) => row.status).sort()).toEqual(['pending', 'sent'])

      clock.advance(PUSH_DELIVERY_RETENTION_DAYS * 86_400_000 - 1)
      expect(await purgeOldPushDeliveries(t.deps)).toEqual({ removed: 0 })
      clock.advance(2)
      expect(await purgeOldPushDeliveries(t.deps)).toEqual({ removed: 1 })
      expect(await status()).toEqual([{ token: waiting, status: 'pending' }])
      expect(JOBS.find((job) => job.name === 'push-deliveries-retention')?.run).toBe(purgeOldPushDeliveries)
    } finally {
      await t.close()
      await fake.stop()
    }
  }, 60_000)
})
