/**
 * Push that reaches the phone (docs/API.md §Push notifications): notifications queued for push in their
 * own transaction, delivered after commit by the worker to a fake FCM, OAuth endpoint and Web Push
 * service on loopback (tests/support/push-fake.ts), with retries, pruning, the endpoint checks, tokens
 * that follow people, and the admins' view of a notification's deliveries.
 *
 * The worker is driven with `deps.push.runDue()` (every due row sent, resolved when done) and time moves
 * on the ManualClock, so nothing here waits on a timer; the one test of the running loop asserts by order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createECDH } from 'node:crypto'
// @ts-expect-error http_ece ships no types; it is web-push's own RFC 8188/8291 implementation.
import ece from 'http_ece'
import { ManualClock } from '../src/lib/clock'
import { fcmErrorCodes, type HostResolver, parseRetryAfter, PushWorker, readBounded, retryDelay } from '../src/modules/notifications'
import { createTestApp, expectError, type Session, type TestApp, unique, type Workspace } from './harness'
import { data, type Kit, kit, manualClock, planVisit, type Row } from './factories'
import { PushFake } from './support/push-fake'

/** A resolver whose answers the test sets (host → addresses), standing in for DNS. */
function controlledResolver() {
  const answers = new Map<string, string[]>()
  const resolve: HostResolver = async (host) => {
    const found = answers.get(host)
    if (!found) throw new Error(`ENOTFOUND ${host}`)
    return found
  }
  return { answers, resolve }
}

describe('push delivery', () => {
  let t: TestApp
  let fake: PushFake
  let ws: Workspace
  let other: Workspace
  let k: Kit
  const admin = () => ws.owner.token
  const deliver = () => t.deps.push.runDue()
  const deliveriesOf = async (notificationId: number) =>
    (await t.db.pragma(`SELECT * FROM push_deliveries WHERE notification_id = ${notificationId} ORDER BY id`)) as Row[]
  const latestNotification = async (userId: number) =>
    (await t.db.pragma(`SELECT * FROM notifications WHERE user_id = ${userId} ORDER BY id DESC LIMIT 1`))[0] as Row
  const register = async (who: Session, token: string, platform: 'android' | 'ios' | 'web') =>
    data(await t.post('/app/v1/notifications/tokens', { token, platform }, { token: who.token }))
  /** Assigns a new visit to `who` (a visit.assigned notification); returns that notification. */
  const notifyOf = async (who: Session) => {
    await planVisit(t, admin(), k, { user_ids: [who.user.id] })
    return latestNotification(who.user.id)
  }
  const metric = async (result: string) => {
    const text = (await t.get('/metrics')).text
    const line = text.split('\n').find((l) => l.startsWith(`ffos_push_deliveries_total{result="${result}"}`))
    return line === undefined ? undefined : Number(line.split(' ')[1])
  }

  beforeAll(async () => {
    const clock = new ManualClock(new Date())
    fake = new PushFake(clock)
    t = await createTestApp({ clock, env: fake.env() })
    ws = await t.workspace()
    other = await t.workspace()
    k = await kit(t, ws.owner.token)
  }, 60_000)
  afterAll(async () => {
    await t?.deps.push.stop()
    await t?.close()
    await fake?.stop()
  })
  const noRejections = () => expect(fake.rejected).toEqual([])
  /** Moves the clock; the owners sign in again (their access tokens live 15 minutes). */
  const advance = async (ms: number) => {
    manualClock(t).advance(ms)
    ws.owner = { ...ws.owner, ...(await t.login(ws.owner.user.email)) }
    other.owner = { ...other.owner, ...(await t.login(other.owner.user.email)) }
  }

  test('the four delivery counters are on /api/metrics at 0 from the start', async () => {
    for (const result of ['sent', 'retried', 'failed', 'pruned']) expect(await metric(result)).toBe(0)
  })

  test('an android token: queued in the notification’s transaction, sent after commit through FCM with data {notification_id, type}; metrics count it', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-token')
    await register(phone, token, 'android')
    const notification = await notifyOf(phone)
    // Committed with the notification, not yet sent: the request did no network work.
    expect((await deliveriesOf(notification.id)).map((row) => [row.token, row.platform, row.status, row.attempts])).toEqual([[token, 'android', 'pending', 0]])
    expect(fake.pushesTo(token)).toEqual([])

    expect(await deliver()).toBe(1)
    const [push] = fake.pushesTo(token)
    expect(push).toMatchObject({ kind: 'fcm', data: { notification_id: String(notification.id), type: 'visit.assigned' }, title: notification.title })
    const [row] = await deliveriesOf(notification.id)
    expect(row).toMatchObject({ status: 'sent', attempts: 1, last_status: 200, sent_at: t.clock.now().toISOString() })
    expect(await metric('sent')).toBe(1)
    noRejections()
  })

  test('a web token: the payload is encrypted for the subscription (the fake decrypts it) with VAPID, and carries data.notification_id', async () => {
    const browser = await t.member(ws, 'user')
    const subscription = fake.subscription()
    await register(browser, subscription.token, 'web')
    const notification = await notifyOf(browser)
    await deliver()
    expect(fake.pushesTo(subscription.id).map((push) => push.data)).toEqual([{ notification_id: String(notification.id), type: 'visit.assigned' }])
    expect((await deliveriesOf(notification.id))[0]).toMatchObject({ status: 'sent', platform: 'web', last_status: 201 })
    noRejections()
  })

  test('404, 410, UNREGISTERED and INVALID_ARGUMENT prune: the delivery is pruned and the token deleted (no longer used)', async () => {
    const phone = await t.member(ws, 'user')
    const unregistered = unique('fcm-unregistered')
    const invalid = unique('fcm-invalid')
    const gone = fake.subscription()
    const missing = fake.subscription()
    await register(phone, unregistered, 'android')
    await register(phone, invalid, 'ios')
    await register(phone, gone.token, 'web')
    await register(phone, missing.token, 'web')
    fake.answer(unregistered, 'unregistered')
    fake.answer(invalid, 'invalid-argument')
    fake.answer(gone.id, { status: 410 })
    fake.answer(missing.id, { status: 404 })
    const pruned = (await metric('pruned'))!
    const notification = await notifyOf(phone)
    expect(await deliveriesOf(notification.id)).toHaveLength(4)
    await deliver()
    expect((await deliveriesOf(notification.id)).map((row) => row.status)).toEqual(['pruned', 'pruned', 'pruned', 'pruned'])
    expect(await t.count('push_tokens', `user_id = ${phone.user.id}`)).toBe(0)
    expect(await metric('pruned')).toBe(pruned + 4)
    // The next notification queues nothing for them.
    expect(await deliveriesOf((await notifyOf(phone)).id)).toEqual([])
    noRejections()
  })

  test('429 with Retry-After: retried when it says, then sent; the first retry without one comes within 30 s', async () => {
    const phone = await t.member(ws, 'user')
    const busy = unique('fcm-busy')
    const failing = unique('fcm-500')
    await register(phone, busy, 'android')
    await register(phone, failing, 'android')
    fake.answer(busy, { status: 429, headers: { 'retry-after': '20' } })
    fake.answer(failing, { status: 503 })
    const retried = (await metric('retried'))!
    const notification = await notifyOf(phone)
    const start = t.clock.now().getTime()
    await deliver()
    const rows = await deliveriesOf(notification.id)
    const byToken = (token: string) => rows.find((row) => row.token === token)!
    expect(byToken(busy)).toMatchObject({ status: 'pending', attempts: 1, last_status: 429 })
    expect(Date.parse(byToken(busy).next_attempt_at as string) - start).toBe(20_000)
    expect(byToken(failing)).toMatchObject({ status: 'pending', attempts: 1, last_status: 503 })
    const firstRetry = Date.parse(byToken(failing).next_attempt_at as string) - start
    expect(firstRetry).toBeGreaterThan(0)
    expect(firstRetry).toBeLessThanOrEqual(30_000)
    expect(await metric('retried')).toBe(retried + 2)

    // Not due yet: nothing is sent.
    await advance(19_000)
    expect(await deliver()).toBe(0)
    await advance(11_000)
    expect(await deliver()).toBe(2)
    expect((await deliveriesOf(notification.id)).map((row) => [row.status, row.attempts])).toEqual([
      ['sent', 2],
      ['sent', 2],
    ])
    expect(fake.pushesTo(busy).map((push) => push.answered)).toEqual([429, 200])
    noRejections()
  })

  test('a Retry-After longer than 60 s is cut to 60 s for the first retry', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-slow')
    await register(phone, token, 'android')
    fake.answer(token, { status: 429, headers: { 'retry-after': '3600' } })
    const notification = await notifyOf(phone)
    const start = t.clock.now().getTime()
    await deliver()
    const [row] = await deliveriesOf(notification.id)
    expect(Date.parse(row.next_attempt_at as string) - start).toBe(60_000)
    await advance(60_000)
    await deliver()
    expect((await deliveriesOf(notification.id))[0].status).toBe('sent')
  })

  test('six failed tries → failed, the last error kept; no seventh request', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-down')
    await register(phone, token, 'android')
    fake.answer(token, ...Array.from({ length: 7 }, () => ({ status: 500 })))
    const failed = (await metric('failed'))!
    const notification = await notifyOf(phone)
    for (let i = 0; i < 8; i++) {
      await deliver()
      await advance(10 * 60_000)
    }
    const [row] = await deliveriesOf(notification.id)
    expect(row).toMatchObject({ status: 'failed', attempts: 6, last_status: 500 })
    expect(row.last_error).toContain('gave up after 6 tries')
    expect(fake.pushesTo(token)).toHaveLength(6)
    expect(await metric('failed')).toBe(failed + 1)
  })

  test('a push service that does not answer in time is retried (the request is cut by its timeout)', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-timeout')
    await register(phone, token, 'android')
    fake.answer(token, 'hang')
    const notification = await notifyOf(phone)
    // A worker of its own with a short timeout, on the same database: the claim keeps the two apart.
    const quick = new PushWorker({ ...t.deps, timeoutMs: 50 })
    expect(await quick.runDue()).toBe(1)
    const [row] = await deliveriesOf(notification.id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: null })
    expect(row.last_error).toContain('did not answer in time')
    fake.release()
  })

  test('an OAuth token endpoint that does not answer delays only the sends waiting for it: they are retried', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-no-oauth')
    await register(phone, token, 'android')
    const notification = await notifyOf(phone)
    fake.holdTokenRequests = true
    try {
      // A worker of its own (no cached access token yet) with a short timeout.
      const quick = new PushWorker({ ...t.deps, timeoutMs: 50 })
      expect(await quick.runDue()).toBe(1)
      const [row] = await deliveriesOf(notification.id)
      expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: null })
      expect(row.last_error).toContain('did not answer in time')
      expect(fake.pushesTo(token)).toEqual([])
    } finally {
      fake.holdTokenRequests = false
      fake.release()
    }
  })

  test('the OAuth access token is fetched once for many messages, again after it expires, and again when FCM refuses it', async () => {
    const phone = await t.member(ws, 'user')
    const tokens = [unique('fcm-a'), unique('fcm-b'), unique('fcm-c')]
    for (const token of tokens) await register(phone, token, 'android')
    // Expire whatever earlier tests cached.
    await advance(3_600_000)
    const before = fake.tokenRequests
    await notifyOf(phone)
    await notifyOf(phone)
    await deliver()
    expect(fake.tokenRequests).toBe(before + 1)
    expect(tokens.every((token) => fake.pushesTo(token).length >= 2)).toBe(true)

    // Google's tokens live an hour (3599 s here); one is renewed a minute before it ends.
    await advance(3_599_000 - 60_000 - 1)
    await notifyOf(phone)
    await deliver()
    expect(fake.tokenRequests).toBe(before + 1)
    await advance(2)
    await notifyOf(phone)
    await deliver()
    expect(fake.tokenRequests).toBe(before + 2)

    // A revoked token: FCM answers 401, the worker drops it and the retry fetches a new one.
    fake.revokeAccessTokens()
    const notification = await notifyOf(phone)
    await deliver()
    expect((await deliveriesOf(notification.id)).every((row) => row.status === 'pending' && row.last_status === 401)).toBe(true)
    await advance(30_000)
    await deliver()
    expect((await deliveriesOf(notification.id)).map((row) => row.status)).toEqual(['sent', 'sent', 'sent'])
    expect(fake.tokenRequests).toBe(before + 3)
    noRejections()
  })

  test('registering a token someone else holds (another workspace too) moves it: the earlier owner’s pending delivery is skipped, not sent to the new owner', async () => {
    const first = await t.member(ws, 'user')
    const stranger = await t.member(other, 'user')
    const token = unique('fcm-shared-phone')
    await register(first, token, 'android')
    const earlier = await notifyOf(first)
    const moved = await register(stranger, token, 'android')
    expect(moved.user_id).toBe(stranger.user.id)
    expect(await t.db.pragma(`SELECT user_id, workspace_id FROM push_tokens WHERE token = '${token}'`)).toEqual([
      { user_id: stranger.user.id, workspace_id: other.id },
    ])
    await deliver()
    expect((await deliveriesOf(earlier.id))[0]).toMatchObject({ status: 'skipped', last_error: 'the token is no longer registered to this user' })
    expect(fake.pushesTo(token)).toEqual([])
    // The first user's next notification queues nothing for that phone.
    expect(await deliveriesOf((await notifyOf(first)).id)).toEqual([])
  })

  test('DELETE /app/v1/notifications/tokens/:token removes the caller’s token; someone else’s or an unknown one → 404 PUSH_TOKEN_NOT_FOUND, kept', async () => {
    const owner = await t.member(ws, 'user')
    const otherUser = await t.member(ws, 'user')
    const subscription = fake.subscription()
    await register(owner, subscription.token, 'web')
    const path = `/app/v1/notifications/tokens/${encodeURIComponent(subscription.token)}`
    expectError(await t.delete(path, { token: otherUser.token }), 404, 'PUSH_TOKEN_NOT_FOUND')
    expect(await t.count('push_tokens', `user_id = ${owner.user.id}`)).toBe(1)
    expectError(await t.delete(`/app/v1/notifications/tokens/${unique('nobodys-token')}`, { token: owner.token }), 404, 'PUSH_TOKEN_NOT_FOUND')
    const removed = await t.delete(path, { token: owner.token })
    expect(removed.status).toBe(200)
    expect(removed.body).toMatchObject({ code: 'PUSH_TOKEN_DELETED', data: { token: subscription.token, user_id: owner.user.id } })
    expect(await t.count('push_tokens', `user_id = ${owner.user.id}`)).toBe(0)
    expect(await deliveriesOf((await notifyOf(owner)).id)).toEqual([])
    expectError(await t.delete(path, { token: owner.token }), 404, 'PUSH_TOKEN_NOT_FOUND')
  })

  test('a deactivated user gets nothing: deliveries queued before are skipped at send', async () => {
    const leaving = await t.member(ws, 'user')
    const token = unique('fcm-leaving')
    await register(leaving, token, 'android')
    const notification = await notifyOf(leaving)
    expect((await t.put(`/office/v1/users/${leaving.user.id}`, { is_active: false }, { token: admin() })).status).toBe(200)
    await deliver()
    expect((await deliveriesOf(notification.id))[0]).toMatchObject({ status: 'skipped', last_error: 'the user is deactivated or no longer a member' })
    expect(fake.pushesTo(token)).toEqual([])
  })

  test('a user keeps at most 10 tokens: an 11th registration drops the least recently registered', async () => {
    const collector = await t.member(ws, 'user')
    const tokens = Array.from({ length: 11 }, () => unique('fcm-many'))
    for (const token of tokens) {
      await register(collector, token, 'android')
      manualClock(t).advance(1)
    }
    const kept = (await t.db.pragma(`SELECT token FROM push_tokens WHERE user_id = ${collector.user.id} ORDER BY id`)).map((row) => row.token)
    expect(kept).toEqual(tokens.slice(1))
  })

  test('a hung push service delays no request: requests are answered while it holds the send, and stopping leaves the row pending', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-hang')
    await register(phone, token, 'android')
    fake.answer(token, 'hang')
    t.deps.push.start()
    try {
      const notification = await notifyOf(phone)
      // Woken by the commit: the send reaches the fake, which holds it.
      for (let i = 0; i < 4000 && fake.holding === 0; i++) await Bun.sleep(5)
      expect(fake.holding).toBe(1)
      // Meanwhile requests, including ones that queue more pushes, are answered.
      expect((await t.get('/app/v1/notifications', { token: phone.token })).status).toBe(200)
      const more = await notifyOf(phone)
      expect(fake.holding).toBe(1)
      expect((await deliveriesOf(notification.id))[0].status).toBe('sending')
      expect(more.id).toBeGreaterThan(notification.id)
      await t.deps.push.stop()
      // Aborted by the stop: pending again, for the next start.
      expect((await deliveriesOf(notification.id))[0]).toMatchObject({ status: 'pending', attempts: 1 })
    } finally {
      await t.deps.push.stop()
      fake.release()
    }
  })

  test('GET /office/v1/notifications/:id/deliveries: admins see each token’s state (hints, never whole tokens); another workspace’s id → 404; others → 403', async () => {
    const phone = await t.member(ws, 'user')
    const token = unique('fcm-seen-by-admin')
    const subscription = fake.subscription()
    await register(phone, token, 'ios')
    await register(phone, subscription.token, 'web')
    fake.answer(subscription.id, { status: 410 })
    const notification = await notifyOf(phone)
    await deliver()
    const reply = await t.get(`/office/v1/notifications/${notification.id}/deliveries`, { token: admin() })
    expect(reply.status).toBe(200)
    const rows = reply.body.data as Row[]
    expect(rows.map((row) => [row.platform, row.status, row.token_hint])).toEqual([
      ['ios', 'sent', `…${token.slice(-8)}`],
      ['web', 'pruned', `127.0.0.1:${fake.server.port} …${subscription.endpoint.slice(-8)}`],
    ])
    expect(rows[0]).toMatchObject({ notification_id: notification.id, user_id: phone.user.id, attempts: 1, last_status: 200 })
    expect(JSON.stringify(reply.body)).not.toContain(token)
    expect(rows[0]).not.toHaveProperty('token')
    expect(rows[0]).not.toHaveProperty('workspace_id')

    const manager = await t.member(ws, 'manager')
    expectError(await t.get(`/office/v1/notifications/${notification.id}/deliveries`, { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.get(`/office/v1/notifications/${notification.id}/deliveries`, { token: phone.token }), 403, 'FORBIDDEN')
    expectError(await t.get(`/office/v1/notifications/${notification.id}/deliveries`, { token: other.owner.token }), 404, 'NOTIFICATION_NOT_FOUND')
    expectError(await t.get('/office/v1/notifications/999999999/deliveries', { token: admin() }), 404, 'NOTIFICATION_NOT_FOUND')
  })

  test('platforms without a configured channel are stored only: nothing is queued for them', async () => {
    const { resolve } = controlledResolver()
    const webOnly = await createTestApp({ env: { ...fake.env(), FCM_SERVICE_ACCOUNT: '' }, services: { pushResolver: resolve } })
    try {
      expect(webOnly.deps.push.platforms).toEqual(['web'])
      expect(webOnly.deps.push.describe().message).toBe('push: FCM off (FCM_SERVICE_ACCOUNT unset: android/ios tokens stored only); Web Push on')
      const w = await webOnly.workspace()
      const phone = await webOnly.member(w, 'user')
      const subscription = fake.subscription()
      expect((await webOnly.post('/app/v1/notifications/tokens', { token: unique('fcm-stored'), platform: 'android' }, { token: phone.token })).status).toBe(
        201,
      )
      expect((await webOnly.post('/app/v1/notifications/tokens', { token: subscription.token, platform: 'web' }, { token: phone.token })).status).toBe(201)
      const wk = await kit(webOnly, w.owner.token)
      await planVisit(webOnly, w.owner.token, wk, { user_ids: [phone.user.id] })
      expect((await webOnly.db.pragma('SELECT platform FROM push_deliveries')).map((row) => row.platform)).toEqual(['web'])
    } finally {
      await webOnly.close()
    }
  })
})

describe('Web Push endpoints are checked at registration and again at send', () => {
  let t: TestApp
  let fake: PushFake
  let ws: Workspace
  let phone: Session
  const dns = controlledResolver()

  beforeAll(async () => {
    fake = new PushFake(new ManualClock(new Date()))
    // The real rules: PUSH_ALLOW_PRIVATE_ENDPOINTS unset.
    t = await createTestApp({ env: { ...fake.env(), PUSH_ALLOW_PRIVATE_ENDPOINTS: 'false' }, services: { pushResolver: dns.resolve } })
    ws = await t.workspace()
    phone = await t.member(ws, 'user')
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await fake?.stop()
  })

  const keys = () => {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: Buffer.alloc(16, 7).toString('base64url') }
  }
  const webToken = (endpoint: string) => JSON.stringify({ endpoint, keys: keys() })
  const registerWeb = (token: string) => t.post('/app/v1/notifications/tokens', { token, platform: 'web' }, { token: phone.token })

  test('refused with 400 errors.token: http:, loopback, private, link-local, metadata, CGNAT, IPv4-mapped and other spellings, a name resolving privately, an unresolvable one', async () => {
    dns.answers.set('rebind.example.test', ['93.184.216.34', '10.1.2.3'])
    dns.answers.set('metadata.example.test', ['169.254.169.254'])
    dns.answers.set('ula.example.test', ['fd00:ec2::254'])
    const before = await t.count('push_tokens')
    for (const endpoint of [
      'http://push.example.com/send/1',
      'https://127.0.0.1/push/1',
      'https://2130706433/push/1',
      'https://0x7f.1/push/1',
      'https://10.0.0.8/push/1',
      'https://192.168.1.1/push/1',
      'https://100.64.0.1/push/1',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/push/1',
      'https://[::ffff:127.0.0.1]/push/1',
      'https://[fd00:ec2::254]/push/1',
      'https://[fe80::1]/push/1',
      'https://localhost/push/1',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://rebind.example.test/push/1',
      'https://metadata.example.test/push/1',
      'https://ula.example.test/push/1',
      'https://nowhere.example.test/push/1',
      'https://user:pass@push.example.com/push/1',
      'ftp://push.example.com/x',
      'not a url',
    ]) {
      const errors = expectError(await registerWeb(webToken(endpoint)), 400, 'VALIDATION_ERROR')
      expect({ endpoint, field: Object.keys(errors) }).toEqual({ endpoint, field: ['token'] })
    }
    expect(await t.count('push_tokens')).toBe(before)
  })

  test('a subscription that is not one → 400 errors.token (not JSON, no endpoint, bad keys)', async () => {
    const endpoint = 'https://8.8.8.8/push/1'
    for (const token of [
      'not-json-at-all',
      JSON.stringify({ keys: keys() }),
      JSON.stringify({ endpoint }),
      JSON.stringify({ endpoint, keys: { p256dh: 'short', auth: keys().auth } }),
      JSON.stringify({ endpoint, keys: { p256dh: keys().p256dh, auth: 'dG9vLXNob3J0' } }),
      JSON.stringify({ endpoint, keys: { p256dh: Buffer.alloc(65, 1).toString('base64url'), auth: keys().auth } }),
    ]) {
      const errors = expectError(await registerWeb(token), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['token'])
    }
  })

  test('an https endpoint on a public address (a literal, or a name resolving only publicly) is accepted', async () => {
    dns.answers.set('push.example.test', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
    expect((await registerWeb(webToken('https://push.example.test/send/abc'))).status).toBe(201)
    expect((await registerWeb(webToken('https://8.8.8.8/send/abc'))).status).toBe(201)
  })

  test('at send the host is resolved again: a name that now resolves privately (DNS rebinding) is refused, no request made', async () => {
    const rebinder = await t.member(ws, 'user')
    dns.answers.set('rebinding.example.test', ['93.184.216.34'])
    const token = webToken('https://rebinding.example.test/send/xyz')
    expect((await t.post('/app/v1/notifications/tokens', { token, platform: 'web' }, { token: rebinder.token })).status).toBe(201)
    const k = await kit(t, ws.owner.token)
    dns.answers.set('rebinding.example.test', ['127.0.0.1'])
    await planVisit(t, ws.owner.token, k, { user_ids: [rebinder.user.id] })
    expect(await t.deps.push.runDue()).toBe(1)
    const [row] = (await t.db.pragma(`SELECT * FROM push_deliveries WHERE user_id = ${rebinder.user.id}`)) as Row[]
    expect(row).toMatchObject({ status: 'failed', last_status: null })
    expect(row.last_error).toContain('endpoint refused at send')
    expect(fake.received).toEqual([])
  })
})

describe('the RFC 8291 encryption Web Push uses', () => {
  test('Appendix A: the fixed sender key and salt give the RFC’s ciphertext byte for byte', () => {
    const sender = createECDH('prime256v1')
    sender.setPrivateKey(Buffer.from('yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw', 'base64url'))
    expect(sender.getPublicKey().toString('base64url')).toBe('BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8')
    const body: Buffer = ece.encrypt(Buffer.from('When I grow up, I want to be a watermelon'), {
      version: 'aes128gcm',
      privateKey: sender,
      dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
      salt: 'DGv6ra1nlYgDCS1FRnbzlw',
      authSecret: 'BTBZMqHH6r4Tts7J_aSIgg',
    })
    expect(body.toString('base64url')).toBe(
      'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
    )
    // And the receiver's private key reads it back.
    const receiver = createECDH('prime256v1')
    receiver.setPrivateKey(Buffer.from('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94', 'base64url'))
    const plain: Buffer = ece.decrypt(body, { version: 'aes128gcm', privateKey: receiver, authSecret: 'BTBZMqHH6r4Tts7J_aSIgg' })
    expect(plain.toString()).toBe('When I grow up, I want to be a watermelon')
  })
})

describe('retry schedule and push service answers (pure rules)', () => {
  test('backoff: the first retry within 30 s (24–30 s jittered), then doubling; no seventh try; none past the hour', () => {
    expect([retryDelay(1, undefined, 0, 0), retryDelay(1, undefined, 0, 0.999999)]).toEqual([24_000, 30_000])
    expect([2, 3, 4, 5].map((attempts) => retryDelay(attempts, undefined, 0, 0.999999))).toEqual([60_000, 120_000, 240_000, 480_000])
    expect(retryDelay(6, undefined, 0)).toBeNull()
    expect(retryDelay(5, undefined, 3_600_000 - 480_000, 0.999999)).toBe(480_000)
    expect(retryDelay(5, undefined, 3_600_000 - 479_999, 0.999999)).toBeNull()
  })

  test('Retry-After is honoured: at most 60 s for the first retry, 15 minutes later; shorter ones as given', () => {
    expect(retryDelay(1, 5_000, 0)).toBe(5_000)
    expect(retryDelay(1, 3_600_000, 0)).toBe(60_000)
    expect(retryDelay(2, 3_600_000, 0)).toBe(15 * 60_000)
    expect(retryDelay(3, 0, 0)).toBe(0)
  })

  test('Retry-After in seconds or as an HTTP date; anything else is ignored', () => {
    const now = new Date('2026-11-26T10:00:00.000Z')
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter('Thu, 26 Nov 2026 10:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Thu, 26 Nov 2026 09:00:00 GMT', now)).toBe(0)
    expect([parseRetryAfter(null, now), parseRetryAfter('soon', now), parseRetryAfter('', now)]).toEqual([undefined, undefined, undefined])
  })

  test('a push service’s answer is read only up to a bound: an endless body neither hangs the send nor fills the memory', async () => {
    const chunk = new Uint8Array(1024).fill(120)
    let served = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        served++
        controller.enqueue(chunk)
      },
    })
    const text = await readBounded(new Response(endless, { status: 500 }), 16_384)
    expect(text.length).toBe(16_384)
    expect(served).toBeLessThan(64)
    expect(await readBounded(new Response('short'), 16_384)).toBe('short')
    expect(await readBounded(new Response(null, { status: 204 }), 16_384)).toBe('')
  })

  test("FCM's error codes are read from error.details; a body without them gives none", () => {
    const body = (details: unknown) => JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', details } })
    expect(fcmErrorCodes(body([{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }]))).toEqual(['UNREGISTERED'])
    expect(fcmErrorCodes(body([{ '@type': 'x', reason: 'y' }, { errorCode: 'INVALID_ARGUMENT' }]))).toEqual(['INVALID_ARGUMENT'])
    expect([fcmErrorCodes(body(undefined)), fcmErrorCodes('<html>502</html>'), fcmErrorCodes('')]).toEqual([[], [], []])
  })
})
