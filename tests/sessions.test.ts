/**
 * A session ends everywhere at once (docs/API.md §Authentication, §Real-time socket): an access token
 * carries its session (`sid`, the refresh-token family). When the session's refresh tokens are all
 * revoked — a logout, a password change or reset (by anyone), a deactivation — its access tokens
 * answer 401 on HTTP before their `exp`, a WebSocket upgrade with them is refused (401), and its open
 * sockets close with 4401 UNAUTHORIZED; on a second instance of the same database too. Other
 * sessions of the same user live on.
 *
 * Sockets are real (a free port of 127.0.0.1); a close is awaited as an event, never timed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createApp, type App } from '../src/app'
import { openDatabase, type Database } from '../src/db/client'
import { createTestApp, expectError, type TestApp, type Workspace } from './harness'

const UPGRADE_HEADERS = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' }
/** Only a guard against a hang: a socket that is not closed by then fails the test. */
const GIVE_UP_MS = 10_000

const portOf = (app: App) => app.server!.port!

/** The status of a WebSocket upgrade with `token` (101 when accepted). */
async function upgradeStatus(port: number, token: string) {
  const abort = new AbortController()
  const response = await fetch(`http://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`, { headers: UPGRADE_HEADERS, signal: abort.signal })
  if (response.status === 101) abort.abort()
  else await response.text()
  return response.status
}

interface OpenSocket {
  socket: WebSocket
  /** Resolves with the close code and reason once the server closes it. */
  closed: Promise<{ code: number; reason: string }>
  /** Resolves once a pong came back: the socket is open and served. */
  ping(): Promise<void>
}

async function openSocket(port: number, token: string): Promise<OpenSocket> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`)
  const pongs: (() => void)[] = []
  socket.onmessage = (event) => {
    if (JSON.parse(String(event.data)).type === 'pong') pongs.shift()?.()
  }
  const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the socket was not closed')), GIVE_UP_MS)
    socket.addEventListener('close', (event) => {
      clearTimeout(timer)
      resolve({ code: event.code, reason: event.reason })
    })
  })
  closed.catch(() => undefined)
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve())
    socket.addEventListener('error', () => reject(new Error('socket failed to open')))
  })
  const ping = () =>
    new Promise<void>((resolve) => {
      pongs.push(resolve)
      socket.send(JSON.stringify({ type: 'ping' }))
    })
  await ping()
  return { socket, closed, ping }
}

/** A request any member may make, to probe whether a token is accepted. */
const probe = (app: TestApp, token: string) => app.get('/app/v1/profile', { token })

describe.each(['bun-sqlite', 'libsql'] as const)('HTTP after the session ended (%s)', (driver) => {
  let t: TestApp
  let ws: Workspace
  beforeAll(async () => {
    t = await createTestApp({ driver })
    ws = await t.workspace()
  }, 60_000)
  afterAll(async () => {
    await t.close()
  })

  test('after logout the same access token answers 401 UNAUTHORIZED; the user’s other session keeps working', async () => {
    const member = await t.member(ws, 'user')
    const other = await t.login(member.user.email)
    expect((await probe(t, member.token)).status).toBe(200)
    expect((await t.post('/auth/logout', { refresh_token: member.refresh_token }, { token: member.token })).status).toBe(200)
    expectError(await probe(t, member.token), 401, 'UNAUTHORIZED')
    expectError(await t.post('/auth/logout', { refresh_token: member.refresh_token }, { token: member.token }), 401, 'UNAUTHORIZED')
    expect((await probe(t, other.token)).status).toBe(200)
    expect((await t.post('/auth/refresh', { refresh_token: other.refresh_token })).status).toBe(200)
  })

  test('logout ends the session of the refresh token sent: an unknown one ends nothing; another session’s of the caller ends that one', async () => {
    const member = await t.member(ws, 'user')
    const other = await t.login(member.user.email)
    expect((await t.post('/auth/logout', { refresh_token: 'not-a-refresh-token-at-all' }, { token: member.token })).status).toBe(200)
    expect((await probe(t, member.token)).status).toBe(200)
    expect((await t.post('/auth/logout', { refresh_token: other.refresh_token }, { token: member.token })).status).toBe(200)
    expectError(await probe(t, other.token), 401, 'UNAUTHORIZED')
    expect((await probe(t, member.token)).status).toBe(200)
  })

  test('an admin’s password change of U ends every session of U: U’s access tokens answer 401; the admin’s own session lives on', async () => {
    const member = await t.member(ws, 'user')
    const second = await t.login(member.user.email)
    expect((await t.put(`/office/v1/users/${member.user.id}`, { password: 'set-by-the-admin-1' }, { token: ws.owner.token })).status).toBe(200)
    for (const session of [member, second]) expectError(await probe(t, session.token), 401, 'UNAUTHORIZED')
    expect((await probe(t, ws.owner.token)).status).toBe(200)
    // A new login with the new password works.
    expect((await probe(t, (await t.login(member.user.email, 'set-by-the-admin-1')).token)).status).toBe(200)
  })

  test('a password reset by mail ends every session: the access tokens answer 401', async () => {
    const member = await t.member(ws, 'user')
    await t.post('/auth/forgot-password', { email: member.user.email })
    const [mail] = await t.db.pragma(`SELECT body FROM outbox WHERE to_address = '${member.user.email}' ORDER BY id DESC LIMIT 1`)
    const token = /reset-password: (\S+)/.exec(String(mail.body))![1]
    expect((await t.post('/auth/reset-password', { token, password: 'reset-by-mail-1' })).status).toBe(200)
    expectError(await probe(t, member.token), 401, 'UNAUTHORIZED')
  })

  test('a token without a session (`sid`) is refused: it could never be signed out', async () => {
    const member = await t.member(ws, 'user')
    const bare = await t.deps.tokens.signAccessToken({ userId: member.user.id, workspaceId: ws.id, role: 'user' })
    expectError(await probe(t, bare), 401, 'UNAUTHORIZED')
  })
})

describe('sockets of an ended session (real sockets)', () => {
  let t: TestApp
  let ws: Workspace
  let port: number
  beforeAll(async () => {
    t = await createTestApp()
    t.app.listen({ port: 0, hostname: '127.0.0.1' })
    port = portOf(t.app)
    ws = await t.workspace()
  }, 60_000)
  afterAll(async () => {
    await t.app.stop(true)
    await t.close()
  })

  test('logout closes the session’s open socket with 4401 UNAUTHORIZED and refuses a new one (401); another session’s socket stays open', async () => {
    const member = await t.member(ws, 'user')
    const other = await t.login(member.user.email)
    const mine = await openSocket(port, member.token)
    const theirs = await openSocket(port, other.token)
    expect((await t.post('/auth/logout', { refresh_token: member.refresh_token }, { token: member.token })).status).toBe(200)
    expect(await mine.closed).toEqual({ code: 4401, reason: 'UNAUTHORIZED' })
    expect(await upgradeStatus(port, member.token)).toBe(401)
    // The other session is untouched: its socket still answers, a new one opens.
    await theirs.ping()
    expect(theirs.socket.readyState).toBe(WebSocket.OPEN)
    expect(await upgradeStatus(port, other.token)).toBe(101)
    theirs.socket.close()
  })

  test('an admin’s password change of U closes U’s open socket with 4401 and U’s token answers 401 (HTTP and upgrade)', async () => {
    const member = await t.member(ws, 'user')
    const socket = await openSocket(port, member.token)
    const owners = await openSocket(port, ws.owner.token)
    expect((await t.put(`/office/v1/users/${member.user.id}`, { password: 'set-by-the-admin-2' }, { token: ws.owner.token })).status).toBe(200)
    expect(await socket.closed).toEqual({ code: 4401, reason: 'UNAUTHORIZED' })
    expectError(await probe(t, member.token), 401, 'UNAUTHORIZED')
    expect(await upgradeStatus(port, member.token)).toBe(401)
    await owners.ping()
    expect(owners.socket.readyState).toBe(WebSocket.OPEN)
    owners.socket.close()
  })

  test('{type:"auth"} with a token of an ended session closes the socket 4401', async () => {
    const member = await t.member(ws, 'user')
    const ended = await t.login(member.user.email)
    await t.post('/auth/logout', { refresh_token: ended.refresh_token }, { token: ended.token })
    const socket = await openSocket(port, member.token)
    socket.socket.send(JSON.stringify({ type: 'auth', token: ended.token }))
    expect(await socket.closed).toEqual({ code: 4401, reason: 'UNAUTHORIZED' })
  })
})

describe('a second instance on the same database learns of the logout through the database', () => {
  let t: TestApp
  let ws: Workspace
  let second: { app: App; db: Database }
  beforeAll(async () => {
    t = await createTestApp()
    ws = await t.workspace()
    const db = await openDatabase(t.deps.config)
    const { app } = await createApp({ db, config: t.deps.config, clock: t.clock })
    app.listen({ port: 0, hostname: '127.0.0.1' })
    second = { app, db }
  }, 60_000)
  afterAll(async () => {
    await second.app.stop(true)
    await second.db.close()
    await t.close()
  })

  test('logout served by one instance: the other answers 401 for that token, refuses its upgrade, and closes its open socket with 4401', async () => {
    const member = await t.member(ws, 'user')
    const other = await t.login(member.user.email)
    const onSecond = (token: string) => second.app.handle(new Request('http://localhost/api/app/v1/profile', { headers: { authorization: `Bearer ${token}` } }))
    expect((await onSecond(member.token)).status).toBe(200)
    const port = portOf(second.app)
    const socket = await openSocket(port, member.token)
    const kept = await openSocket(port, other.token)

    expect((await t.post('/auth/logout', { refresh_token: member.refresh_token }, { token: member.token })).status).toBe(200)
    expect(await socket.closed).toEqual({ code: 4401, reason: 'UNAUTHORIZED' })
    expect((await onSecond(member.token)).status).toBe(401)
    expect(await upgradeStatus(port, member.token)).toBe(401)
    await kept.ping()
    expect(kept.socket.readyState).toBe(WebSocket.OPEN)
    expect((await onSecond(other.token)).status).toBe(200)
    kept.socket.close()
  })
})
