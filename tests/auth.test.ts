/**
 * Authentication (docs/API.md §Authentication, §Errors): registration, login and its failed-login limit, refresh-token
 * rotation with reuse detection, access-token verification, logout, password reset by mail and
 * switching workspace.
 *
 * The harness clock is a ManualClock shared by the whole file and only ever moves forward, so every
 * test builds its own workspace and sessions instead of reusing tokens another test may have aged.
 */
import { describe, expect, test } from 'bun:test'
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose'
import { ConfigError, loadConfig } from '../src/config/env'
import type { ManualClock } from '../src/lib/clock'
import { sha256Hex } from '../src/lib/crypto'
import { createTestApp, expectError, unique, useTestApp, type Reply, type Session, type TestApp } from './harness'

const t = useTestApp()

const PASSWORD = 'password123'
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const clock = () => t.app.clock as ManualClock

const newEmail = (prefix = 'person') => `${unique(prefix)}@example.com`

function registerBody(overrides: Record<string, unknown> = {}) {
  return { name: 'Ada Owner', email: newEmail('owner'), password: PASSWORD, workspace_name: unique('Workspace'), ...overrides }
}

/** Registers a workspace; returns the owner's session and credentials. */
async function registerOwner(overrides: Record<string, unknown> = {}) {
  const body = registerBody(overrides)
  const reply = await t.app.post('/auth/register', body)
  expect(reply.status).toBe(201)
  return { email: String(body.email).trim().toLowerCase(), session: reply.body.data as Session & { expires_in: number } }
}

/** A workspace plus one member with `role`, created by its owner; the member has not logged in. */
async function workspaceWithMember(role = 'user') {
  const ws = await t.app.workspace()
  const email = newEmail(role)
  const created = await t.app.post(
    '/office/v1/users',
    { name: `Member ${email}`, email, password: PASSWORD, role_id: ws.roles[role] },
    { token: ws.owner.token },
  )
  expect(created.status).toBe(201)
  return { ws, email, userId: created.body.data.id as number }
}

const login = (email: string, password = PASSWORD) => t.app.post('/auth/login', { email, password })

/** A request any signed-in super_admin may make; used to probe whether a token is accepted. */
const probe = (token: string) => t.app.get('/office/v1/roles', { token })

function expectSessionShape(reply: Reply) {
  const data = reply.body.data
  expect(reply.body.success).toBe(true)
  expect(Object.keys(data).sort()).toEqual(['expires_in', 'refresh_token', 'token', 'user'])
  expect(typeof data.token).toBe('string')
  expect(data.token.split('.')).toHaveLength(3)
  expect(typeof data.refresh_token).toBe('string')
  expect(data.refresh_token.length).toBeGreaterThan(20)
  expect(data.expires_in).toBe(15 * 60)
  expect(Object.keys(data.user).sort()).toEqual(['email', 'grants_version', 'id', 'name', 'role', 'timezone', 'workspace_id'])
  expect(Number.isInteger(data.user.id)).toBe(true)
  expect(Number.isInteger(data.user.workspace_id)).toBe(true)
}

const auditCount = (where: string) => t.app.count('audit_logs', where)

describe('register', () => {
  test('register answers 201 REGISTERED with a login-shaped session of a new super_admin', async () => {
    const body = registerBody({ name: 'Grace Hopper' })
    const before = await t.app.count('workspaces')
    const reply = await t.app.post('/auth/register', body)
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('REGISTERED')
    expectSessionShape(reply)
    const { user } = reply.body.data
    expect(user).toMatchObject({ email: body.email, name: 'Grace Hopper', role: 'super_admin' })
    expect(await t.app.count('workspaces')).toBe(before + 1)
    expect(await t.app.count('workspaces', `id = ${user.workspace_id} AND name = '${body.workspace_name}'`)).toBe(1)
    expect(await t.app.count('users', `id = ${user.id} AND email = '${body.email}'`)).toBe(1)
    // The token it returns is a working access token.
    expect((await probe(reply.body.data.token)).status).toBe(200)
  })

  test('register stores the email trimmed and lower-case, and login accepts it in any case', async () => {
    const local = unique('Mixed.Case')
    const reply = await t.app.post('/auth/register', registerBody({ email: `  ${local}@Example.COM  ` }))
    expect(reply.status).toBe(201)
    const stored = `${local.toLowerCase()}@example.com`
    expect(reply.body.data.user.email).toBe(stored)
    const [row] = await t.app.db.pragma(`SELECT email FROM users WHERE id = ${reply.body.data.user.id}`)
    expect(row.email).toBe(stored)
    expect((await login(`${local.toUpperCase()}@EXAMPLE.com`)).status).toBe(200)
  })

  test('a taken email answers 409 USER_ALREADY_EXISTS, case-insensitively, and creates nothing', async () => {
    const { email } = await registerOwner()
    const users = await t.app.count('users')
    const workspaces = await t.app.count('workspaces')
    expectError(await t.app.post('/auth/register', registerBody({ email })), 409, 'USER_ALREADY_EXISTS')
    expectError(await t.app.post('/auth/register', registerBody({ email: email.toUpperCase() })), 409, 'USER_ALREADY_EXISTS')
    expect(await t.app.count('users')).toBe(users)
    expect(await t.app.count('workspaces')).toBe(workspaces)
  })

  test('a password must have 8 to 128 characters: otherwise 400 VALIDATION_ERROR with errors.password', async () => {
    const users = await t.app.count('users')
    for (const password of ['1234567', 'x'.repeat(129), '']) {
      const errors = expectError(await t.app.post('/auth/register', registerBody({ password })), 400, 'VALIDATION_ERROR')
      expect(errors.password).toBeArray()
    }
    expect(await t.app.count('users')).toBe(users)
    // The bounds themselves are accepted.
    for (const password of ['12345678', 'y'.repeat(128)]) {
      const reply = await t.app.post('/auth/register', registerBody({ password }))
      expect(reply.status).toBe(201)
      expect((await login(reply.body.data.user.email, password)).status).toBe(200)
    }
  })

  test('register without name, email or workspace_name answers 400 naming each missing field', async () => {
    const errors = expectError(await t.app.post('/auth/register', { password: PASSWORD }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(expect.arrayContaining(['name', 'email', 'workspace_name']))
  })

  test('a new workspace has the four built-in roles super_admin, admin, manager and user', async () => {
    const { session } = await registerOwner()
    const reply = await t.app.get('/office/v1/roles', { token: session.token })
    expect(reply.status).toBe(200)
    const slugs = reply.body.data.map((role: { slug: string }) => role.slug).sort()
    expect(slugs).toEqual(['admin', 'manager', 'super_admin', 'user'])
    for (const role of reply.body.data) {
      expect(Number.isInteger(role.id)).toBe(true)
      expect(typeof role.name).toBe('string')
      expect(role.permissions).toBeArray()
    }
    expect(await t.app.count('roles', `workspace_id = ${session.user.workspace_id}`)).toBe(4)
  })

  test('with REGISTRATION_ENABLED=false register answers 403 REGISTRATION_DISABLED and creates nothing', async () => {
    const closed = await createTestApp({ env: { REGISTRATION_ENABLED: 'false' } })
    try {
      const reply = await closed.post('/auth/register', registerBody())
      expectError(reply, 403, 'REGISTRATION_DISABLED')
      expect(await closed.count('users')).toBe(0)
      expect(await closed.count('workspaces')).toBe(0)
    } finally {
      await closed.close()
    }
  })
})

describe('login', () => {
  test('login answers 200 LOGIN_SUCCESS with the session and writes a `login` audit entry for the user', async () => {
    const { ws, email, userId } = await workspaceWithMember('manager')
    expect(await auditCount(`action = 'login' AND entity_id = '${userId}'`)).toBe(0)
    const reply = await login(email)
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LOGIN_SUCCESS')
    expectSessionShape(reply)
    expect(reply.body.data.user).toEqual({
      id: userId,
      email,
      name: `Member ${email}`,
      role: 'manager',
      workspace_id: ws.id,
      timezone: 'UTC',
      grants_version: expect.any(String),
    })
    const entries = await t.app.db.pragma(`SELECT * FROM audit_logs WHERE action = 'login' AND entity_id = '${userId}'`)
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({
      workspace_id: ws.id,
      entity_type: 'user',
      actor_id: userId,
      actor_role: 'manager',
      entity_name: `Member ${email}`,
    })
  })

  test('a wrong password and an unknown email get the identical 401 INVALID_CREDENTIALS answer', async () => {
    const { email } = await registerOwner()
    const audits = await auditCount('1 = 1')
    const wrongPassword = await login(email, 'not-the-password')
    const unknownEmail = await login(newEmail('nobody'), 'not-the-password')
    expectError(wrongPassword, 401, 'INVALID_CREDENTIALS')
    expectError(unknownEmail, 401, 'INVALID_CREDENTIALS')
    expect(unknownEmail.text).toBe(wrongPassword.text)
    // Failed requests are not audited.
    expect(await auditCount('1 = 1')).toBe(audits)
  })

  test('a deactivated user with the right password gets 403 ACCOUNT_DISABLED, which does not count as a failure', async () => {
    const { ws, email, userId } = await workspaceWithMember('user')
    const deactivated = await t.app.put(`/office/v1/users/${userId}`, { is_active: false }, { token: ws.owner.token })
    expect(deactivated.status).toBe(200)
    // 9 failures, then several ACCOUNT_DISABLED answers: if those counted, the limit would trip here.
    for (let i = 0; i < 9; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    for (let i = 0; i < 3; i++) expectError(await login(email), 403, 'ACCOUNT_DISABLED')
    expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS') // the 10th failure
    expectError(await login(email), 429, 'RATE_LIMITED')
    expect(await auditCount(`action = 'login' AND entity_id = '${userId}'`)).toBe(0)
  })

  test('a deleted user cannot log in: 401 INVALID_CREDENTIALS', async () => {
    const { ws, email, userId } = await workspaceWithMember('user')
    expect((await t.app.delete(`/office/v1/users/${userId}`, { token: ws.owner.token })).status).toBe(200)
    expectError(await login(email), 401, 'INVALID_CREDENTIALS')
  })

  test('login without email or password answers 400 VALIDATION_ERROR', async () => {
    const errors = expectError(await t.app.post('/auth/login', {}), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(expect.arrayContaining(['email', 'password']))
  })
})

describe('failed-login rate limit', () => {
  test('the first 10 failures for one email answer 401, the 11th 429 RATE_LIMITED with Retry-After, even with the right password', async () => {
    const { email, session } = await registerOwner()
    for (let i = 0; i < 10; i++) expectError(await login(email, `wrong-${i}`), 401, 'INVALID_CREDENTIALS')
    const limited = await login(email)
    expectError(limited, 429, 'RATE_LIMITED')
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(15 * 60)
    expectError(await login(email, 'wrong-again'), 429, 'RATE_LIMITED')
    expect(await auditCount(`action = 'login' AND entity_id = '${session.user.id}'`)).toBe(0)
  })

  test('the limit counts per email: failures for one email do not block another', async () => {
    const blocked = await registerOwner()
    const other = await registerOwner()
    for (let i = 0; i < 10; i++) await login(blocked.email, 'wrong-password')
    expectError(await login(blocked.email), 429, 'RATE_LIMITED')
    expect((await login(other.email)).status).toBe(200)
  })

  test('a successful login before the limit resets the count', async () => {
    const { email } = await registerOwner()
    for (let i = 0; i < 9; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    expect((await login(email)).status).toBe(200)
    // Without the reset the 2nd failure below would be the 11th and answer 429.
    for (let i = 0; i < 10; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    expectError(await login(email), 429, 'RATE_LIMITED')
  })

  test('the limit lifts when the 15-minute window has passed', async () => {
    const { email } = await registerOwner()
    for (let i = 0; i < 10; i++) await login(email, 'wrong-password')
    expectError(await login(email), 429, 'RATE_LIMITED')
    clock().advance(10 * MINUTE)
    const stillLimited = await login(email)
    expectError(stillLimited, 429, 'RATE_LIMITED')
    expect(Number(stillLimited.headers.get('retry-after'))).toBeLessThanOrEqual(5 * 60)
    clock().advance(5 * MINUTE)
    const reply = await login(email)
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LOGIN_SUCCESS')
  })
})

describe('limits hold under concurrency: each limiter decides and counts in one step', () => {
  /** Fires `count` requests at once (Promise.all over app.handle) and tallies the answers by status. */
  async function burst(count: number, request: (i: number) => Promise<Reply>) {
    const replies = await Promise.all(Array.from({ length: count }, (_, i) => request(i)))
    const byStatus: Record<number, number> = {}
    for (const reply of replies) byStatus[reply.status] = (byStatus[reply.status] ?? 0) + 1
    return { replies, byStatus }
  }

  function expectRateLimited(reply: Reply) {
    expectError(reply, 429, 'RATE_LIMITED')
    const retryAfter = Number(reply.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true)
  }

  test('30 simultaneous wrong-password logins for one email+IP: at most 10 answer 401, the rest 429 with Retry-After; the right password afterwards is 429 too', async () => {
    const { email, session } = await registerOwner()
    const { replies, byStatus } = await burst(30, (i) => login(email, `wrong-${i}`))
    expect(byStatus[401] ?? 0).toBeLessThanOrEqual(10)
    expect((byStatus[401] ?? 0) + (byStatus[429] ?? 0)).toBe(30)
    for (const reply of replies) {
      if (reply.status === 401) expectError(reply, 401, 'INVALID_CREDENTIALS')
      else expectRateLimited(reply)
    }
    expectRateLimited(await login(email))
    expect(await auditCount(`action = 'login' AND entity_id = '${session.user.id}'`)).toBe(0)
  })

  test('30 simultaneous logins after 9 failures: exactly one more can fail; then even the right password is 429', async () => {
    const { email } = await registerOwner()
    for (let i = 0; i < 9; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    const { byStatus } = await burst(30, () => login(email, 'wrong-password'))
    expect(byStatus).toEqual({ 401: 1, 429: 29 })
    expectRateLimited(await login(email))
  })

  test('attempts in progress hold the free slots and the next ones wait for them: after 9 failures, 30 simultaneous right-password logins all succeed', async () => {
    const { email } = await registerOwner()
    for (let i = 0; i < 9; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    const { byStatus } = await burst(30, () => login(email))
    expect(byStatus).toEqual({ 200: 30 })
    // The successes cleared the count: 10 failures again before the limit.
    for (let i = 0; i < 10; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    expectRateLimited(await login(email))
  })

  test('an ACCOUNT_DISABLED answer gives its slot back: 30 at once for a deactivated user are all 403, and 10 failures still answer 401 afterwards', async () => {
    const { ws, email, userId } = await workspaceWithMember('user')
    expect((await t.app.put(`/office/v1/users/${userId}`, { is_active: false }, { token: ws.owner.token })).status).toBe(200)
    const { byStatus } = await burst(30, () => login(email))
    expect(byStatus).toEqual({ 403: 30 })
    for (let i = 0; i < 10; i++) expectError(await login(email, 'wrong-password'), 401, 'INVALID_CREDENTIALS')
    expectRateLimited(await login(email))
  })

  describe('register: REGISTER_LIMIT_PER_HOUR per IP per hour', () => {
    test('with the limit at 10, 30 simultaneous registrations from one IP create 10 workspaces; the other 20 answer 429 with Retry-After; an hour later registering works again', async () => {
      const limited = await createTestApp({ env: { REGISTER_LIMIT_PER_HOUR: '10' } })
      try {
        const workspaces = await limited.count('workspaces')
        const { replies, byStatus } = await burst(30, () => limited.post('/auth/register', registerBody()))
        expect(byStatus).toEqual({ 201: 10, 429: 20 })
        for (const reply of replies) if (reply.status === 429) expectRateLimited(reply)
        expect(await limited.count('workspaces')).toBe(workspaces + 10)
        expectRateLimited(await limited.post('/auth/register', registerBody()))
        ;(limited.clock as ManualClock).advance(60 * MINUTE)
        expect((await limited.post('/auth/register', registerBody())).status).toBe(201)
      } finally {
        await limited.close()
      }
    })

    test('REGISTER_LIMIT_PER_HOUR defaults to 10; 0 turns the limit off (the harness default), so 12 registrations from one IP all succeed', async () => {
      expect(loadConfig({}).REGISTER_LIMIT_PER_HOUR).toBe(10)
      expect(loadConfig({ REGISTER_LIMIT_PER_HOUR: '0' }).REGISTER_LIMIT_PER_HOUR).toBe(0)
      expect(() => loadConfig({ REGISTER_LIMIT_PER_HOUR: '-1' })).toThrow(ConfigError)
      expect(() => loadConfig({ REGISTER_LIMIT_PER_HOUR: 'many' })).toThrow(ConfigError)
      expect(t.app.deps.config.REGISTER_LIMIT_PER_HOUR).toBe(0)
      for (let i = 0; i < 12; i++) expect((await t.app.post('/auth/register', registerBody())).status).toBe(201)
    })
  })

  describe('forgot-password: 3 per email and 20 per IP per hour; over the limit still 200 RESET_REQUESTED, but no mail', () => {
    // TRUST_PROXY lets the test speak from several client addresses through X-Forwarded-For.
    const limits = { forgotPasswordLimits: true, env: { TRUST_PROXY: 'true' } }
    const mails = (app: TestApp, email: string) => app.count('outbox', `to_address = '${email}'`)
    const forgot = (app: TestApp, email: string, ip = '203.0.113.1') => app.post('/auth/forgot-password', { email }, { headers: { 'x-forwarded-for': ip } })

    test('30 simultaneous requests for one email all answer the same 200, and exactly 3 mails go out', async () => {
      const limited = await createTestApp(limits)
      try {
        const ws = await limited.workspace()
        const email = ws.owner.user.email
        const { replies, byStatus } = await burst(30, (i) => forgot(limited, email, `198.51.100.${i + 1}`))
        expect(byStatus).toEqual({ 200: 30 })
        expect(new Set(replies.map((reply) => reply.text)).size).toBe(1)
        expect(replies[0].body.code).toBe('RESET_REQUESTED')
        expect(await mails(limited, email)).toBe(3)
        expect(await limited.count('password_resets', `user_id = ${ws.owner.user.id}`)).toBe(3)
        ;(limited.clock as ManualClock).advance(60 * MINUTE)
        expect((await forgot(limited, email)).status).toBe(200)
        expect(await mails(limited, email)).toBe(4)
      } finally {
        await limited.close()
      }
    })

    test('30 simultaneous requests from one IP: 20 count; after them that IP gets no mail even for a fresh email, another IP does', async () => {
      const limited = await createTestApp(limits)
      try {
        const ws = await limited.workspace()
        const email = ws.owner.user.email
        const { byStatus } = await burst(30, (i) => forgot(limited, `nobody-${i}@example.com`, '203.0.113.7'))
        expect(byStatus).toEqual({ 200: 30 })
        const blocked = await forgot(limited, email, '203.0.113.7')
        expect(blocked.status).toBe(200)
        expect(blocked.body.code).toBe('RESET_REQUESTED')
        expect(await mails(limited, email)).toBe(0)
        expect((await forgot(limited, email, '203.0.113.8')).status).toBe(200)
        expect(await mails(limited, email)).toBe(1)
      } finally {
        await limited.close()
      }
    })
  })
})

describe('refresh tokens', () => {
  test('refresh answers 200 TOKEN_REFRESHED with a new session and a new refresh token', async () => {
    const { email, userId, ws } = await workspaceWithMember('admin')
    const first = (await login(email)).body.data
    const reply = await t.app.post('/auth/refresh', { refresh_token: first.refresh_token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('TOKEN_REFRESHED')
    expectSessionShape(reply)
    expect(reply.body.data.refresh_token).not.toBe(first.refresh_token)
    expect(reply.body.data.user).toMatchObject({ id: userId, email, role: 'admin', workspace_id: ws.id })
    expect((await probe(reply.body.data.token)).status).toBe(200)
  })

  test('refresh tokens are stored hashed, never as given', async () => {
    const { email } = await registerOwner()
    const { refresh_token } = (await login(email)).body.data
    const rows = await t.app.db.pragma('SELECT * FROM refresh_tokens')
    expect(JSON.stringify(rows)).not.toContain(refresh_token)
  })

  test('reusing a used refresh token answers 401 UNAUTHORIZED and revokes its family, so the newer token fails too', async () => {
    const { email, userId } = await workspaceWithMember('user')
    const first = (await login(email)).body.data.refresh_token
    const second = (await t.app.post('/auth/refresh', { refresh_token: first })).body.data.refresh_token
    expect(typeof second).toBe('string')
    clock().advance(31_000) // past the retry window (see "refresh retries")
    expectError(await t.app.post('/auth/refresh', { refresh_token: first }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/refresh', { refresh_token: second }), 401, 'UNAUTHORIZED')
    expect(await t.app.count('refresh_tokens', `user_id = ${userId} AND revoked_at IS NULL AND used_at IS NULL`)).toBe(0)
  })

  test('revoking one family leaves the user’s other sessions working', async () => {
    const { email } = await workspaceWithMember('user')
    const stolen = (await login(email)).body.data.refresh_token
    const otherDevice = (await login(email)).body.data.refresh_token
    await t.app.post('/auth/refresh', { refresh_token: stolen })
    clock().advance(31_000) // past the retry window (see "refresh retries")
    expectError(await t.app.post('/auth/refresh', { refresh_token: stolen }), 401, 'UNAUTHORIZED')
    expect((await t.app.post('/auth/refresh', { refresh_token: otherDevice })).status).toBe(200)
  })

  test('an unknown refresh token answers 401 UNAUTHORIZED', async () => {
    expectError(await t.app.post('/auth/refresh', { refresh_token: 'definitely-not-a-token' }), 401, 'UNAUTHORIZED')
  })

  test('a refresh is not audited', async () => {
    const { email } = await registerOwner()
    const { refresh_token } = (await login(email)).body.data
    const before = await auditCount('1 = 1')
    expect((await t.app.post('/auth/refresh', { refresh_token })).status).toBe(200)
    expect(await auditCount('1 = 1')).toBe(before)
  })

  test('a refresh token expires after 30 days: 401 UNAUTHORIZED', async () => {
    const { email } = await registerOwner()
    const early = (await login(email)).body.data.refresh_token
    const late = (await login(email)).body.data.refresh_token
    clock().advance(29 * DAY)
    expect((await t.app.post('/auth/refresh', { refresh_token: early })).status).toBe(200)
    clock().advance(DAY + MINUTE)
    expectError(await t.app.post('/auth/refresh', { refresh_token: late }), 401, 'UNAUTHORIZED')
  })
})

describe('access tokens', () => {
  async function jwtSecret() {
    const [row] = await t.app.db.pragma("SELECT value FROM app_settings WHERE key = 'jwt_secret'")
    return String(row.value)
  }

  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

  function claimsFor(session: Session, overrides: Record<string, unknown> = {}) {
    const now = Math.floor(clock().now().getTime() / 1000)
    return {
      sub: String(session.user.id),
      wid: session.user.workspace_id,
      role: session.user.role,
      jti: crypto.randomUUID(),
      iat: now,
      exp: now + 900,
      // The session the service issued the token for: a token without a live session is refused.
      sid: decodeJwt(session.token).sid,
      ...overrides,
    }
  }

  const sign = (claims: Record<string, unknown>, secret: string, alg = 'HS256') =>
    new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret))

  test('the access token is an HS256 JWT with sub, wid, role, exp, iat and jti, valid for 15 minutes', async () => {
    const { session } = await registerOwner()
    expect(decodeProtectedHeader(session.token).alg).toBe('HS256')
    const claims = decodeJwt(session.token)
    expect(claims.sub).toBe(String(session.user.id))
    expect(claims.wid).toBe(session.user.workspace_id)
    expect(claims.role).toBe('super_admin')
    expect(typeof claims.jti).toBe('string')
    expect(typeof claims.iat).toBe('number')
    const now = Math.floor(clock().now().getTime() / 1000)
    expect(Math.abs(claims.exp! - (now + 900))).toBeLessThanOrEqual(2)
  })

  test('an access token expires after 15 minutes: 401 TOKEN_EXPIRED', async () => {
    const { session } = await registerOwner()
    clock().advance(14 * MINUTE)
    expect((await probe(session.token)).status).toBe(200)
    clock().advance(2 * MINUTE)
    expectError(await probe(session.token), 401, 'TOKEN_EXPIRED')
    // The refresh token still gets a fresh access token.
    const refreshed = await t.app.post('/auth/refresh', { refresh_token: session.refresh_token })
    expect(refreshed.status).toBe(200)
    expect((await probe(refreshed.body.data.token)).status).toBe(200)
  })

  test('once a token has been accepted, a copy with a changed signature or payload is still refused (verification is not by claims)', async () => {
    const { session } = await registerOwner()
    expect((await probe(session.token)).status).toBe(200)
    const [header, payload, signature] = session.token.split('.')
    const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`
    expectError(await probe(`${header}.${payload}.${flipped}`), 401, 'UNAUTHORIZED')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    const longer = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url')
    expectError(await probe(`${header}.${longer}.${signature}`), 401, 'UNAUTHORIZED')
    expect((await probe(session.token)).status).toBe(200)
  })

  test('a token built with the service’s own secret and HS256 is accepted (control for the forgeries below)', async () => {
    const { session } = await registerOwner()
    expect((await probe(await sign(claimsFor(session), await jwtSecret()))).status).toBe(200)
  })

  test('a token signed with another secret answers 401 UNAUTHORIZED', async () => {
    const { session } = await registerOwner()
    const forged = await sign(claimsFor(session), 'another-secret-that-is-long-enough-to-use-0123456789')
    expectError(await probe(forged), 401, 'UNAUTHORIZED')
  })

  test('an expired token with a bad signature is UNAUTHORIZED, not TOKEN_EXPIRED', async () => {
    const { session } = await registerOwner()
    const now = Math.floor(clock().now().getTime() / 1000)
    const forged = await sign(claimsFor(session, { iat: now - 3600, exp: now - 1800 }), 'another-secret-that-is-long-enough-to-use-0123456789')
    expectError(await probe(forged), 401, 'UNAUTHORIZED')
  })

  test('a token with a tampered payload answers 401 UNAUTHORIZED', async () => {
    const owner = await registerOwner()
    const { email } = await workspaceWithMember('user')
    const member = (await login(email)).body.data as Session
    const [header, payload, signature] = member.token.split('.')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const escalated = `${header}.${b64({ ...claims, sub: String(owner.session.user.id), wid: owner.session.user.workspace_id, role: 'super_admin' })}.${signature}`
    expectError(await probe(escalated), 401, 'UNAUTHORIZED')
  })

  test('a token with alg "none" answers 401 UNAUTHORIZED', async () => {
    const { session } = await registerOwner()
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsFor(session))}.`
    expectError(await probe(unsigned), 401, 'UNAUTHORIZED')
  })

  test('an HS512 token signed with the right secret answers 401 UNAUTHORIZED (only HS256 is accepted)', async () => {
    const { session } = await registerOwner()
    const hs512 = await sign(claimsFor(session), await jwtSecret(), 'HS512')
    expectError(await probe(hs512), 401, 'UNAUTHORIZED')
  })

  test('a well-signed token for a workspace the user is not a member of answers 401 UNAUTHORIZED', async () => {
    const { session } = await registerOwner()
    const other = await registerOwner()
    const token = await sign(claimsFor(session, { wid: other.session.user.workspace_id }), await jwtSecret())
    expectError(await probe(token), 401, 'UNAUTHORIZED')
  })

  test('a missing or malformed Authorization header answers 401 UNAUTHORIZED', async () => {
    const { session } = await registerOwner()
    expectError(await t.app.get('/office/v1/roles'), 401, 'UNAUTHORIZED')
    const malformed = [
      '',
      'Bearer',
      'Bearer ',
      session.token,
      `Basic ${btoa('user:password')}`,
      `Token ${session.token}`,
      `Bearer ${session.token} extra`,
      'Bearer not-a-jwt',
      'Bearer a.b.c',
      `Bearer ${session.token.slice(0, -4)}`,
    ]
    for (const authorization of malformed) {
      const reply = await t.app.get('/office/v1/roles', { headers: { authorization } })
      if (reply.status !== 401 || reply.body?.code !== 'UNAUTHORIZED') {
        throw new Error(`Authorization "${authorization}" answered ${reply.status} ${reply.text}`)
      }
    }
  })
})

describe('who is calling is read fresh on every request (docs/API.md §Roles and permissions), whoever changed it', () => {
  // The service keeps members between requests only while the database's auth epoch is unchanged;
  // these changes are made with plain SQL, as another process or an operator would, not the API.
  const sqlNow = () => new Date().toISOString()

  test('a member deactivated by a direct database write is refused on the next request', async () => {
    const { ws, email, userId } = await workspaceWithMember('admin')
    const token = (await login(email)).body.data.token
    expect((await probe(token)).status).toBe(200)
    expect((await probe(token)).status).toBe(200)
    await t.app.db.pragma(`UPDATE memberships SET is_active = 0 WHERE user_id = ${userId} AND workspace_id = ${ws.id}`)
    expectError(await probe(token), 401, 'UNAUTHORIZED')
    await t.app.db.pragma(`UPDATE memberships SET is_active = 1 WHERE user_id = ${userId} AND workspace_id = ${ws.id}`)
    expect((await probe(token)).status).toBe(200)
  })

  test('a user deleted by a direct database write is refused on the next request', async () => {
    const { email, userId } = await workspaceWithMember('admin')
    const token = (await login(email)).body.data.token
    expect((await probe(token)).status).toBe(200)
    await t.app.db.pragma(`UPDATE users SET deleted_at = '${sqlNow()}' WHERE id = ${userId}`)
    expectError(await probe(token), 401, 'UNAUTHORIZED')
  })

  test("a role's grants edited in the database apply on the next request, and a member moved to another role gets that role's grants", async () => {
    const ws = await t.app.workspace()
    const reader = await t.app.memberWithGrants(ws, [{ key: 'channel_group.manage', platform: 'web', access: 'view' }])
    const list = () => t.app.get('/office/v1/outlets/channel-groups', { token: reader.token })
    expect((await list()).status).toBe(200)
    const [membership] = await t.app.db.pragma(`SELECT role_id FROM memberships WHERE user_id = ${reader.user.id} AND workspace_id = ${ws.id}`)
    await t.app.db.pragma(`UPDATE roles SET permissions = '[]' WHERE id = ${membership!.role_id}`)
    expectError(await list(), 403, 'FORBIDDEN')
    await t.app.db.pragma(`UPDATE memberships SET role_id = ${ws.roles.admin} WHERE user_id = ${reader.user.id} AND workspace_id = ${ws.id}`)
    expect((await list()).status).toBe(200)
  })

  test('a renamed user is named by their new name in the next audit entry', async () => {
    const { ws, email, userId } = await workspaceWithMember('admin')
    const token = (await login(email)).body.data.token
    expect((await t.app.post('/office/v1/outlets/channel-groups', { name: unique('Before') }, { token })).status).toBe(201)
    await t.app.db.pragma(`UPDATE users SET name = 'Renamed Directly' WHERE id = ${userId}`)
    expect((await t.app.post('/office/v1/outlets/channel-groups', { name: unique('After') }, { token })).status).toBe(201)
    const [entry] = await t.app.db.pragma(`SELECT actor_name FROM audit_logs WHERE workspace_id = ${ws.id} AND actor_id = ${userId} ORDER BY id DESC LIMIT 1`)
    expect(entry!.actor_name).toBe('Renamed Directly')
  })
})

describe('logout', () => {
  test('logout answers 200 LOGGED_OUT, writes a `logout` audit entry, and the refresh token no longer refreshes', async () => {
    const { email, userId, ws } = await workspaceWithMember('user')
    const session = (await login(email)).body.data as Session
    const reply = await t.app.post('/auth/logout', { refresh_token: session.refresh_token }, { token: session.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'LOGGED_OUT' })
    const entries = await t.app.db.pragma(`SELECT * FROM audit_logs WHERE action = 'logout' AND entity_id = '${userId}'`)
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ entity_type: 'user', actor_id: userId, workspace_id: ws.id, entity_name: `Member ${email}` })
    expectError(await t.app.post('/auth/refresh', { refresh_token: session.refresh_token }), 401, 'UNAUTHORIZED')
  })

  test('logout without a bearer token answers 401 and leaves the session working', async () => {
    const { email } = await registerOwner()
    const session = (await login(email)).body.data as Session
    expectError(await t.app.post('/auth/logout', { refresh_token: session.refresh_token }), 401, 'UNAUTHORIZED')
    expect((await t.app.post('/auth/refresh', { refresh_token: session.refresh_token })).status).toBe(200)
  })

  test('a user cannot log out someone else’s session', async () => {
    const victim = await registerOwner()
    const attacker = await registerOwner()
    const reply = await t.app.post('/auth/logout', { refresh_token: victim.session.refresh_token }, { token: attacker.session.token })
    expect(reply.status).toBeLessThan(500)
    expect((await t.app.post('/auth/refresh', { refresh_token: victim.session.refresh_token })).status).toBe(200)
  })
})

describe('forgot-password and reset-password', () => {
  /** The newest outbox mail to `email`, and the reset token it carries. */
  async function resetMail(email: string) {
    const rows = await t.app.db.pragma(`SELECT * FROM outbox WHERE to_address = '${email}' ORDER BY id DESC`)
    if (rows.length === 0) return null
    const body = String(rows[0].body)
    const match = /token[=:]\s*([A-Za-z0-9._~%-]{16,})/.exec(body)
    return { count: rows.length, body, token: match ? decodeURIComponent(match[1]) : null }
  }

  async function requestReset(email: string) {
    const reply = await t.app.post('/auth/forgot-password', { email })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('RESET_REQUESTED')
    const mail = await resetMail(email)
    expect(mail?.token).toBeString()
    return mail!.token!
  }

  test('forgot-password answers 200 RESET_REQUESTED for an unknown email and queues no mail', async () => {
    const outbox = await t.app.count('outbox')
    const reply = await t.app.post('/auth/forgot-password', { email: newEmail('ghost') })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'RESET_REQUESTED' })
    expect(await t.app.count('outbox')).toBe(outbox)
  })

  test('for a known email the answer is the same, and one mail carrying the reset token is queued; nothing is audited', async () => {
    const { email } = await registerOwner()
    const audits = await auditCount('1 = 1')
    const unknown = await t.app.post('/auth/forgot-password', { email: newEmail('ghost') })
    const known = await t.app.post('/auth/forgot-password', { email: email.toUpperCase() })
    expect(known.status).toBe(200)
    expect(known.text).toBe(unknown.text)
    const mail = await resetMail(email)
    expect(mail?.count).toBe(1)
    expect(mail?.token).toBeString()
    expect(await auditCount('1 = 1')).toBe(audits)
    // The token is stored hashed, not as mailed.
    expect(JSON.stringify(await t.app.db.pragma('SELECT * FROM password_resets'))).not.toContain(mail!.token!)
  })

  test('reset-password answers 200 PASSWORD_RESET; the new password logs in and the old one does not', async () => {
    const { email } = await registerOwner()
    const token = await requestReset(email)
    const reply = await t.app.post('/auth/reset-password', { token, password: 'brand-new-password' })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'PASSWORD_RESET' })
    expect((await login(email, 'brand-new-password')).status).toBe(200)
    expectError(await login(email, PASSWORD), 401, 'INVALID_CREDENTIALS')
  })

  test('a reset token works once: the second use answers 400 VALIDATION_ERROR with errors.token', async () => {
    const { email } = await registerOwner()
    const token = await requestReset(email)
    expect((await t.app.post('/auth/reset-password', { token, password: 'first-new-password' })).status).toBe(200)
    const errors = expectError(await t.app.post('/auth/reset-password', { token, password: 'second-new-password' }), 400, 'VALIDATION_ERROR')
    expect(errors.token).toBeArray()
    expect((await login(email, 'first-new-password')).status).toBe(200)
    expectError(await login(email, 'second-new-password'), 401, 'INVALID_CREDENTIALS')
  })

  test('an unknown reset token answers 400 VALIDATION_ERROR with errors.token', async () => {
    const errors = expectError(await t.app.post('/auth/reset-password', { token: 'no-such-token', password: 'whatever-password' }), 400, 'VALIDATION_ERROR')
    expect(errors.token).toBeArray()
  })

  test('a new password shorter than 8 characters answers 400 errors.password and keeps the token usable', async () => {
    const { email } = await registerOwner()
    const token = await requestReset(email)
    const errors = expectError(await t.app.post('/auth/reset-password', { token, password: 'short' }), 400, 'VALIDATION_ERROR')
    expect(errors.password).toBeArray()
    expect((await t.app.post('/auth/reset-password', { token, password: 'long-enough-now' })).status).toBe(200)
  })

  test('a reset revokes every refresh token of the user', async () => {
    const { email, session } = await registerOwner()
    const other = (await login(email)).body.data.refresh_token
    const token = await requestReset(email)
    expect((await t.app.post('/auth/reset-password', { token, password: 'brand-new-password' })).status).toBe(200)
    expectError(await t.app.post('/auth/refresh', { refresh_token: session.refresh_token }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/refresh', { refresh_token: other }), 401, 'UNAUTHORIZED')
    expect(await t.app.count('refresh_tokens', `user_id = ${session.user.id} AND revoked_at IS NULL`)).toBe(0)
  })

  describe('a new password voids every other outstanding reset token of the user, and all refresh tokens', () => {
    test('two reset tokens requested; using one refuses the other (400 errors.token)', async () => {
      const { email, session } = await registerOwner()
      const first = await requestReset(email)
      const second = await requestReset(email)
      expect(second).not.toBe(first)
      expect((await t.app.post('/auth/reset-password', { token: second, password: 'brand-new-password' })).status).toBe(200)
      const errors = expectError(await t.app.post('/auth/reset-password', { token: first, password: 'attacker-password' }), 400, 'VALIDATION_ERROR')
      expect(errors.token).toBeArray()
      expect((await login(email, 'brand-new-password')).status).toBe(200)
      expectError(await t.app.post('/auth/refresh', { refresh_token: session.refresh_token }), 401, 'UNAUTHORIZED')
      expect(await t.app.count('password_resets', `user_id = ${session.user.id} AND used_at IS NULL`)).toBe(0)
    })

    test('a password change on the profile refuses a reset token requested before it', async () => {
      const { email, userId } = await workspaceWithMember('user')
      const member = (await login(email)).body.data
      const other = (await login(email)).body.data
      const token = await requestReset(email)
      const changed = await t.app.put('/app/v1/profile/password', { current_password: PASSWORD, new_password: 'changed-password-1' }, { token: member.token })
      expect(changed.status).toBe(200)
      expectError(await t.app.post('/auth/reset-password', { token, password: 'attacker-password' }), 400, 'VALIDATION_ERROR')
      expect((await login(email, 'changed-password-1')).status).toBe(200)
      expectError(await t.app.post('/auth/refresh', { refresh_token: other.refresh_token }), 401, 'UNAUTHORIZED')
      expect(await t.app.count('password_resets', `user_id = ${userId} AND used_at IS NULL`)).toBe(0)
    })

    test('an administrator setting the password refuses a reset token requested before it', async () => {
      const { ws, email, userId } = await workspaceWithMember('user')
      const member = (await login(email)).body.data
      const token = await requestReset(email)
      expect((await t.app.put(`/office/v1/users/${userId}`, { password: 'set-by-admin-1' }, { token: ws.owner.token })).status).toBe(200)
      expectError(await t.app.post('/auth/reset-password', { token, password: 'attacker-password' }), 400, 'VALIDATION_ERROR')
      expect((await login(email, 'set-by-admin-1')).status).toBe(200)
      expectError(await t.app.post('/auth/refresh', { refresh_token: member.refresh_token }), 401, 'UNAUTHORIZED')
    })
  })

  test('a reset token expires after one hour: 400 VALIDATION_ERROR with errors.token, the old password still works', async () => {
    const { email } = await registerOwner()
    const token = await requestReset(email)
    clock().advance(61 * MINUTE)
    const errors = expectError(await t.app.post('/auth/reset-password', { token, password: 'too-late-password' }), 400, 'VALIDATION_ERROR')
    expect(errors.token).toBeArray()
    expect((await login(email, PASSWORD)).status).toBe(200)
  })
})

describe('switch workspace', () => {
  async function ownerWithSecondWorkspace() {
    const owner = await registerOwner()
    const created = await t.app.post('/office/v1/workspaces', { name: unique('Second') }, { token: owner.session.token })
    expect(created.status).toBe(201)
    expect(created.body.code).toBe('WORKSPACE_CREATED')
    return { ...owner, secondId: created.body.data.id as number }
  }

  test('a super_admin switches to a workspace they created: 200 with a session scoped to it, role super_admin', async () => {
    const { session, secondId } = await ownerWithSecondWorkspace()
    expect(secondId).not.toBe(session.user.workspace_id)
    const reply = await t.app.post('/auth/switch-workspace', { workspace_id: secondId }, { token: session.token })
    expect(reply.status).toBe(200)
    expect(reply.body.success).toBe(true)
    expectSessionShape(reply)
    expect(reply.body.data.user).toMatchObject({ id: session.user.id, workspace_id: secondId, role: 'super_admin' })
    expect(decodeJwt(reply.body.data.token).wid).toBe(secondId)
    // Everything else is scoped to the new token's workspace.
    const roles = await t.app.get('/office/v1/roles', { token: reply.body.data.token })
    expect(roles.status).toBe(200)
    const ids = roles.body.data.map((role: { id: number }) => role.id).join(',')
    expect(await t.app.count('roles', `id IN (${ids}) AND workspace_id = ${secondId}`)).toBe(4)
    // Its refresh token stays in that workspace.
    const refreshed = await t.app.post('/auth/refresh', { refresh_token: reply.body.data.refresh_token })
    expect(refreshed.body.data.user.workspace_id).toBe(secondId)
  })

  test('switching to a workspace you are not a member of answers 404 WORKSPACE_NOT_FOUND', async () => {
    const { session, email } = await registerOwner()
    const stranger = await registerOwner()
    expectError(
      await t.app.post('/auth/switch-workspace', { workspace_id: stranger.session.user.workspace_id }, { token: session.token }),
      404,
      'WORKSPACE_NOT_FOUND',
    )
    expectError(await t.app.post('/auth/switch-workspace', { workspace_id: 987654321 }, { token: session.token }), 404, 'WORKSPACE_NOT_FOUND')
    // Nothing moved: a plain login still lands in the own workspace.
    expect((await login(email)).body.data.user.workspace_id).toBe(session.user.workspace_id)
  })

  test('a plain login afterwards lands in the last switched-to workspace', async () => {
    const { session, email, secondId } = await ownerWithSecondWorkspace()
    await t.app.post('/auth/switch-workspace', { workspace_id: secondId }, { token: session.token })
    const first = await login(email)
    expect(first.body.data.user).toMatchObject({ workspace_id: secondId, role: 'super_admin' })
    // And back again.
    await t.app.post('/auth/switch-workspace', { workspace_id: session.user.workspace_id }, { token: first.body.data.token })
    expect((await login(email)).body.data.user.workspace_id).toBe(session.user.workspace_id)
  })

  test('switch-workspace needs a bearer token', async () => {
    expectError(await t.app.post('/auth/switch-workspace', { workspace_id: 1 }), 401, 'UNAUTHORIZED')
  })
})

describe('refresh retries: a phone that lost the answer may present the rotated token again', () => {
  const refresh = (token: string) => t.app.post('/auth/refresh', { refresh_token: token })
  const SECOND = 1000

  /** A fresh session; returns its first refresh token and the family's id. */
  async function family() {
    const { email, userId } = await workspaceWithMember('user')
    const first = (await login(email)).body.data.refresh_token as string
    const [row] = await t.app.db.pragma(`SELECT family_id FROM refresh_tokens WHERE token_hash = '${sha256Hex(first)}'`)
    return { first, familyId: row.family_id as string, userId }
  }
  const live = (familyId: string) =>
    t.app.db.pragma(`SELECT token_hash FROM refresh_tokens WHERE family_id = '${familyId}' AND used_at IS NULL AND revoked_at IS NULL`)
  const revokedFamily = async (familyId: string) => (await live(familyId)).length === 0

  /** T1 rotated into T2, whose answer the phone never got. */
  async function rotated() {
    const session = await family()
    const lost = await refresh(session.first)
    expect(lost.status).toBe(200)
    return { ...session, lost: lost.body.data.refresh_token as string }
  }

  test('within 30 s, the successor unused: 200 TOKEN_REFRESHED with a fresh pair; the unused successor is revoked, the new pair works', async () => {
    const { first, lost, familyId, userId } = await rotated()
    clock().advance(10 * SECOND)
    const retry = await refresh(first)
    expect(retry.status).toBe(200)
    expect(retry.body.code).toBe('TOKEN_REFRESHED')
    expectSessionShape(retry)
    expect(retry.body.data.user.id).toBe(userId)
    const fresh = retry.body.data.refresh_token as string
    expect(fresh).not.toBe(lost)
    expect(await live(familyId)).toEqual([{ token_hash: sha256Hex(fresh) }])
    expect((await t.app.get('/app/v1/profile', { token: retry.body.data.token })).status).toBe(200)
    expect((await refresh(fresh)).status).toBe(200)
  })

  test('exactly 30 s after the rotation is still a retry', async () => {
    const { first } = await rotated()
    clock().advance(30 * SECOND)
    expect((await refresh(first)).status).toBe(200)
  })

  test('30 s and 1 ms after the rotation: reuse — 401 UNAUTHORIZED and the whole family revoked (the unused successor too)', async () => {
    const { first, lost, familyId } = await rotated()
    clock().advance(30 * SECOND + 1)
    expectError(await refresh(first), 401, 'UNAUTHORIZED')
    expect(await revokedFamily(familyId)).toBe(true)
    expectError(await refresh(lost), 401, 'UNAUTHORIZED')
  })

  test('the window runs from the first rotation: retries do not extend it', async () => {
    const { first, familyId } = await rotated()
    clock().advance(20 * SECOND)
    expect((await refresh(first)).status).toBe(200)
    clock().advance(11 * SECOND)
    expectError(await refresh(first), 401, 'UNAUTHORIZED')
    expect(await revokedFamily(familyId)).toBe(true)
  })

  test('the successor revoked by a retry, presented later: reuse — 401 and the newest pair is revoked too', async () => {
    const { first, lost, familyId } = await rotated()
    const fresh = (await refresh(first)).body.data.refresh_token
    expectError(await refresh(lost), 401, 'UNAUTHORIZED')
    expect(await revokedFamily(familyId)).toBe(true)
    expectError(await refresh(fresh), 401, 'UNAUTHORIZED')
  })

  test('a retry after the successor was used: reuse — 401 and the family revoked', async () => {
    const { first, lost, familyId } = await rotated()
    const third = (await refresh(lost)).body.data.refresh_token
    clock().advance(SECOND)
    expectError(await refresh(first), 401, 'UNAUTHORIZED')
    expect(await revokedFamily(familyId)).toBe(true)
    expectError(await refresh(third), 401, 'UNAUTHORIZED')
  })

  test('a retry after logout: 401, nothing revived', async () => {
    const { first, lost, familyId } = await rotated()
    const access = (await refresh(first)).body.data
    expect((await t.app.post('/auth/logout', { refresh_token: access.refresh_token }, { token: access.token })).status).toBe(200)
    expectError(await refresh(first), 401, 'UNAUTHORIZED')
    expectError(await refresh(lost), 401, 'UNAUTHORIZED')
    expect(await revokedFamily(familyId)).toBe(true)
  })

  test('a retry is not audited, like any refresh', async () => {
    const { first } = await rotated()
    const before = await auditCount('1 = 1')
    expect((await refresh(first)).status).toBe(200)
    expect(await auditCount('1 = 1')).toBe(before)
  })

  /**
   * Presentations at once are decided one after another in the write transaction: every one is
   * answered 200, each revokes the successor the one before issued, and the family ends with exactly
   * one live refresh token — one of the answers. Any other answer's token, presented later, is reuse.
   */
  async function concurrently(count: number, token: string, familyId: string) {
    const replies = await Promise.all(Array.from({ length: count }, () => refresh(token)))
    expect(replies.map((reply) => reply.status)).toEqual(Array(count).fill(200))
    const tokens = replies.map((reply) => reply.body.data.refresh_token as string)
    expect(new Set(tokens).size).toBe(count)
    const alive = await live(familyId)
    expect(alive).toHaveLength(1)
    const newest = tokens.find((candidate) => sha256Hex(candidate) === alive[0].token_hash)
    expect(newest).toBeString()
    return { tokens, newest: newest! }
  }

  for (const count of [2, 30]) {
    test(`${count} retries at once with the same rotated token: all 200, exactly one answer's refresh token stays live`, async () => {
      const { first, lost, familyId } = await rotated()
      const { newest } = await concurrently(count, first, familyId)
      expectError(await refresh(lost), 401, 'UNAUTHORIZED')
      expect(await revokedFamily(familyId)).toBe(true)
      // The reuse above revoked everything, the newest included.
      expectError(await refresh(newest), 401, 'UNAUTHORIZED')
    })
  }

  test('30 refreshes at once with a never-used token (one rotation, 29 retries): all 200; the live one refreshes, a stale one then is reuse', async () => {
    const { first, familyId } = await family()
    const { tokens, newest } = await concurrently(30, first, familyId)
    const next = await refresh(newest)
    expect(next.status).toBe(200)
    const stale = tokens.find((candidate) => candidate !== newest)!
    expectError(await refresh(stale), 401, 'UNAUTHORIZED')
    expect(await revokedFamily(familyId)).toBe(true)
    expectError(await refresh(next.body.data.refresh_token), 401, 'UNAUTHORIZED')
  })

  test('over a real socket: the retry answers 200 and the lost successor is refused afterwards', async () => {
    const { first, lost } = await rotated()
    const server = t.app.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const url = `http://127.0.0.1:${server.server!.port}/api/auth/refresh`
      const post = (token: string) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: token }) })
      const retry = await post(first)
      expect(retry.status).toBe(200)
      expect((await retry.json()).code).toBe('TOKEN_REFRESHED')
      const reused = await post(lost)
      expect(reused.status).toBe(401)
      expect((await reused.json()).code).toBe('UNAUTHORIZED')
    } finally {
      await t.app.app.stop(true)
    }
  })
})
