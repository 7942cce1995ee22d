/**
 * Password hashing is no public CPU sink (docs/API.md §Limits, src/platform/passwords.ts):
 * - reset-password checks its token before hashing: an unknown token costs no hash;
 * - failed password checks (wrong logins, unknown reset tokens) are limited per client IP whatever
 *   the email (PASSWORD_FAILURES_PER_IP, 30 per 15 minutes), deciding and counting in one step;
 * - every hash and verification of the process passes one gate: at most 2 at once, at most 32
 *   waiting, beyond that 429 at once.
 * The per-IP limit is on in this file (the harness turns it off elsewhere); TRUST_PROXY=true lets the
 * test speak from several client addresses through X-Forwarded-For.
 */
import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../src/config/env'
import { hashPassword, PASSWORD_WORK_CONCURRENCY, PASSWORD_WORK_QUEUE, passwordWork } from '../src/platform/passwords'
import type { ManualClock } from '../src/lib/clock'
import { AppError } from '../src/lib/errors'
import { expectError, unique, useTestApp, type Reply } from './harness'

const LIMIT = 30
const t = useTestApp({ env: { TRUST_PROXY: 'true', PASSWORD_FAILURES_PER_IP: String(LIMIT) } })

const PASSWORD = 'password123'
let ipSequence = 0
/** A client address no other test uses (the limits of one test never reach into another). */
const freshIp = () => `198.51.${Math.floor(++ipSequence / 250)}.${(ipSequence % 250) + 1}`
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } })
const login = (email: string, password: string, ip: string) => t.app.post('/auth/login', { email, password }, from(ip))
const reset = (token: string, ip: string, password = 'brand-new-pass-1') => t.app.post('/auth/reset-password', { token, password }, from(ip))
const nobody = () => `${unique('nobody')}@example.com`

const tally = (replies: Reply[]) => {
  const byStatus: Record<number, number> = {}
  for (const reply of replies) byStatus[reply.status] = (byStatus[reply.status] ?? 0) + 1
  return byStatus
}

/** A member who can log in, and a mailed reset token of theirs. */
async function memberWithResetToken() {
  const ws = await t.app.workspace()
  const member = await t.app.member(ws, 'user')
  await t.app.post('/auth/forgot-password', { email: member.user.email }, from(freshIp()))
  const [mail] = await t.app.db.pragma(`SELECT body FROM outbox WHERE to_address = '${member.user.email}' ORDER BY id DESC LIMIT 1`)
  const token = /reset-password: (\S+)/.exec(String(mail.body))![1]
  return { member, token }
}

describe('reset-password checks the token before it hashes the new password', () => {
  test('an unknown, a used or an expired token answers 400 errors.token without a single hash; a valid one hashes once', async () => {
    const { member, token } = await memberWithResetToken()
    const ip = freshIp()
    const before = passwordWork.stats.started
    for (const bogus of ['not-a-token', 'x'.repeat(43), `${token}x`]) expect(expectError(await reset(bogus, ip), 400, 'VALIDATION_ERROR').token).toBeArray()
    expect(passwordWork.stats.started).toBe(before)

    expect((await reset(token, ip)).status).toBe(200)
    expect(passwordWork.stats.started).toBe(before + 1)
    // Used now: refused, again without hashing.
    expectError(await reset(token, ip), 400, 'VALIDATION_ERROR')
    expect(passwordWork.stats.started).toBe(before + 1)
    expect((await login(member.user.email, 'brand-new-pass-1', ip)).status).toBe(200)

    const second = await memberWithResetToken()
    ;(t.app.clock as ManualClock).advance(61 * 60_000)
    const beforeExpired = passwordWork.stats.started
    expectError(await reset(second.token, freshIp()), 400, 'VALIDATION_ERROR')
    expect(passwordWork.stats.started).toBe(beforeExpired)
  })
})

describe('failed password checks per client IP: 30 per 15 minutes whatever the email, then 429 RATE_LIMITED', () => {
  test('PASSWORD_FAILURES_PER_IP defaults to 30; 0 turns it off (the harness default)', () => {
    expect(loadConfig({}).PASSWORD_FAILURES_PER_IP).toBe(30)
    expect(loadConfig({ PASSWORD_FAILURES_PER_IP: '0' }).PASSWORD_FAILURES_PER_IP).toBe(0)
    expect(t.app.deps.config.PASSWORD_FAILURES_PER_IP).toBe(LIMIT)
  })

  test('200 distinct emails from one IP: 30 answer 401 (30 hashes), the other 170 429 with Retry-After and no hash; another IP logs in', async () => {
    const ws = await t.app.workspace()
    const ip = freshIp()
    const before = passwordWork.stats.started
    const replies: Reply[] = []
    for (let i = 0; i < 200; i++) replies.push(await login(nobody(), 'wrong-password', ip))
    expect(replies.slice(0, LIMIT).every((reply) => reply.status === 401 && reply.body.code === 'INVALID_CREDENTIALS')).toBe(true)
    for (const reply of replies.slice(LIMIT)) {
      expectError(reply, 429, 'RATE_LIMITED')
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect(passwordWork.stats.started - before).toBe(LIMIT)
    // That address is refused even with the right password; another address is not.
    expectError(await login(ws.owner.user.email, PASSWORD, ip), 429, 'RATE_LIMITED')
    expect((await login(ws.owner.user.email, PASSWORD, freshIp())).status).toBe(200)
  })

  test('30 + 10 simultaneous wrong logins from one IP: exactly 30 are checked (401), 10 answer 429; the gate never ran more than 2 at once', async () => {
    const ip = freshIp()
    const before = passwordWork.stats.started
    const replies = await Promise.all(Array.from({ length: LIMIT + 10 }, () => login(nobody(), 'wrong-password', ip)))
    expect(tally(replies)).toEqual({ 401: LIMIT, 429: 10 })
    expect(passwordWork.stats.started - before).toBe(LIMIT)
    expect(passwordWork.stats.maxRunning).toBeLessThanOrEqual(PASSWORD_WORK_CONCURRENCY)
  })

  test('a success from that IP clears nothing (a sprayer’s own account does not reset the count)', async () => {
    const ws = await t.app.workspace()
    const ip = freshIp()
    for (let i = 0; i < LIMIT - 1; i++) expect((await login(nobody(), 'wrong-password', ip)).status).toBe(401)
    expect((await login(ws.owner.user.email, PASSWORD, ip)).status).toBe(200)
    expect((await login(nobody(), 'wrong-password', ip)).status).toBe(401)
    expectError(await login(nobody(), 'wrong-password', ip), 429, 'RATE_LIMITED')
  })

  test('unknown reset tokens count as failures of the IP too: after 30 even a valid token is 429 there, and works from elsewhere', async () => {
    const { token } = await memberWithResetToken()
    const ip = freshIp()
    const replies = await Promise.all(Array.from({ length: LIMIT + 5 }, (_, i) => reset(`guess-${i}`, ip)))
    expect(tally(replies)).toEqual({ 400: LIMIT, 429: 5 })
    expectError(await reset(token, ip), 429, 'RATE_LIMITED')
    expect((await reset(token, freshIp())).status).toBe(200)
  })

  test('the limit lifts when the 15-minute window has passed', async () => {
    const ip = freshIp()
    for (let i = 0; i < LIMIT; i++) await login(nobody(), 'wrong-password', ip)
    expectError(await login(nobody(), 'wrong-password', ip), 429, 'RATE_LIMITED')
    ;(t.app.clock as ManualClock).advance(15 * 60_000)
    expectError(await login(nobody(), 'wrong-password', ip), 401, 'INVALID_CREDENTIALS')
  })
})

describe('the hashing gate: at most 2 hashes or verifications at once, at most 32 waiting, then 429 at once', () => {
  test('work passed through the gate never overlaps more than 2 deep, and runs in arrival order', async () => {
    let running = 0
    let deepest = 0
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        passwordWork.run(async () => {
          running += 1
          deepest = Math.max(deepest, running)
          order.push(i)
          // Yield a few turns of the event loop while "hashing".
          for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve))
          running -= 1
        }),
      ),
    )
    expect(deepest).toBe(PASSWORD_WORK_CONCURRENCY)
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i))
    expect(passwordWork.inFlight).toEqual({ running: 0, waiting: 0 })
  })

  test('60 hashes asked for at once: 2 run, 32 wait, 26 are refused at once with 429 RATE_LIMITED and Retry-After: 1', async () => {
    const refusedBefore = passwordWork.stats.refused
    const outcomes = await Promise.allSettled(Array.from({ length: 60 }, () => hashPassword('burst-password-1')))
    const hashed = outcomes.filter((outcome) => outcome.status === 'fulfilled')
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []))
    expect(hashed).toHaveLength(PASSWORD_WORK_CONCURRENCY + PASSWORD_WORK_QUEUE)
    expect(refused).toHaveLength(60 - PASSWORD_WORK_CONCURRENCY - PASSWORD_WORK_QUEUE)
    for (const error of refused) {
      expect(error).toBeInstanceOf(AppError)
      expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '1' } })
    }
    expect(passwordWork.stats.refused - refusedBefore).toBe(refused.length)
    expect(passwordWork.stats.maxRunning).toBeLessThanOrEqual(PASSWORD_WORK_CONCURRENCY)
  })
})
