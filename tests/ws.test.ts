/**
 * The real-time socket at ws://HOST:PORT/ws?token=… (docs/API.md §Location tracking, §Real-time socket), over a real server:
 * authentication at the upgrade, ping/pong, and who gets which push — location.created to the
 * workspace's live-map viewers, visit.updated to the office and the visit's assignees, and
 * notification.created to its user — always after commit, exactly once, never across workspaces.
 *
 * "Nothing arrived" is checked without sleeping: events are published before the HTTP answer is
 * sent, so once the answer is in, a ping sent on the socket is answered after anything already
 * published to it. No event before that pong means none was sent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { eq } from 'drizzle-orm'
import { locationPings, notifications } from '../src/db/schema'
import { ManualClock as TestClock, type ManualClock } from '../src/lib/clock'
import { compileGrants } from '../src/platform/permissions'
import { bulkTypesOf, Hub, topics, type SocketAccess } from '../src/platform/realtime/hub'
import { ENTRY_OVERHEAD_BYTES, REPLAY_BOUNDS, ReplayLog } from '../src/platform/realtime/replay-log'
import { SOCKET_CHANNELS } from '../src/app'
import { livemapTopic } from '../src/modules/locations'
import { visitTopics } from '../src/modules/visits'
import { data, HERE as SITE, newProject, newVisit, visitSite } from './factories'
import { createTestApp, expectError, unique, type Session, type TestApp, type Workspace } from './harness'

/** The event types the modules declare bulk (the live map's pings), for logs built without a hub. */
const BULK = bulkTypesOf(SOCKET_CHANNELS)

let h: TestApp
let port: number

const UPGRADE_HEADERS = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' }
const WAIT_MS = 3000

interface Message {
  type: string
  data?: any
  /** For pushes of stored rows: whether the row was visible to a reader connection when the push arrived. */
  committed?: Promise<boolean>
}

/**
 * A client socket that records every message but pongs and can wait for some: the machinery of the
 * hub tests' Client and the replay tests' Feed.
 */
class RecordingSocket<M extends { type: string }> {
  readonly messages: M[] = []
  private listeners = new Set<() => void>()
  private pongs = 0

  protected constructor(
    readonly socket: WebSocket,
    record: (message: M) => void = () => {},
  ) {
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as M
      if (message.type === 'pong') this.pongs += 1
      else {
        record(message)
        this.messages.push(message)
      }
      for (const listener of this.listeners) listener()
    }
  }

  /** Resolves once the socket is open; rejects when it fails, or is not open within WAIT_MS. */
  protected opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket did not open')), WAIT_MS)
      this.socket.onopen = () => {
        clearTimeout(timer)
        resolve()
      }
      this.socket.onerror = () => {
        clearTimeout(timer)
        reject(new Error('socket failed to open'))
      }
    })
  }

  until(done: () => boolean, what: string, waitMs = WAIT_MS): Promise<void> {
    if (done()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const listener = () => {
        if (!done()) return
        clearTimeout(timer)
        this.listeners.delete(listener)
        resolve()
      }
      const timer = setTimeout(() => {
        this.listeners.delete(listener)
        const types = JSON.stringify(this.messages.map((m) => m.type)).slice(0, 400)
        reject(
          new Error(
            `timed out waiting for ${what}; got ${this.messages.length} messages ${types}, last ${JSON.stringify(this.messages.at(-1))?.slice(0, 200)}`,
          ),
        )
      }, waitMs)
      this.listeners.add(listener)
    })
  }

  /** Round trip: everything published to this socket before the call (a replay included) has arrived when it resolves. */
  async barrier(): Promise<void> {
    const wanted = this.pongs + 1
    this.socket.send(JSON.stringify({ type: 'ping' }))
    await this.until(() => this.pongs >= wanted, 'pong')
  }
}

/** A client socket of the hub tests: checks at once whether a pushed row is committed. */
class Client extends RecordingSocket<Message> {
  /** The close the server sent (or the client made), with the time it arrived. */
  readonly closed: Promise<{ code: number; reason: string; at: number }>

  private constructor(socket: WebSocket) {
    super(socket, (message) => {
      // Checked at once, while the publisher may still be running: only committed rows are visible here.
      if (message.type === 'location.created') message.committed = visible('location_pings', message.data?.id)
      else if (message.type === 'notification.created') message.committed = visible('notifications', message.data?.id)
    })
    this.closed = new Promise((resolve) => {
      socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason, at: performance.now() }))
    })
  }

  static async open(token: string, atPort = port): Promise<Client> {
    const client = new Client(new WebSocket(`ws://127.0.0.1:${atPort}/ws?token=${encodeURIComponent(token)}`))
    await client.opened()
    return client
  }

  /** Index to read messages from (those that arrive after this call). */
  mark(): number {
    return this.messages.length
  }

  /** A mark taken once everything already published to this socket has arrived. */
  async settled(): Promise<number> {
    await this.barrier()
    return this.mark()
  }

  since(mark: number, type?: string): Message[] {
    return this.messages.slice(mark).filter((m) => type === undefined || m.type === type)
  }

  /** Waits until `count` messages of `type` arrived after `mark`, then returns them. */
  async waitFor(mark: number, type: string, count = 1): Promise<Message[]> {
    await this.until(() => this.since(mark, type).length >= count, `${count} × ${type}`)
    return this.since(mark, type)
  }

  close() {
    this.socket.close()
  }
}

/** Whether a row is visible to the reader connection (committed). */
async function visible(table: 'location_pings' | 'notifications', id: unknown): Promise<boolean> {
  if (typeof id !== 'number') return false
  const source = table === 'location_pings' ? locationPings : notifications
  const rows = await h.deps.db.read.select({ id: source.id }).from(source).where(eq(source.id, id))
  return rows.length === 1
}

/** Settled marks of several sockets. */
async function settle(list: Client[]): Promise<[Client, number][]> {
  return Promise.all(list.map(async (client): Promise<[Client, number]> => [client, await client.settled()]))
}

/** Asserts that, after everything already published, `clients` got nothing since their marks. */
async function expectNothing(entries: [Client, number][], type?: string) {
  for (const [client] of entries) await client.barrier()
  for (const [client, mark] of entries) expect(client.since(mark, type)).toEqual([])
}

async function upgrade(query: string) {
  const abort = new AbortController()
  const response = await fetch(`http://127.0.0.1:${port}/ws${query}`, { headers: UPGRADE_HEADERS, signal: abort.signal })
  if (response.status === 101) {
    // The connection now speaks WebSocket: there is no HTTP body to read.
    abort.abort()
    return { status: 101, body: null }
  }
  const text = await response.text()
  let body: any = null
  try {
    body = JSON.parse(text)
  } catch {
    body = null
  }
  return { status: response.status, body }
}

/** A refused `new WebSocket`: it never opens, and reports an error or a close. */
function refusedSocket(token: string): Promise<string[]> {
  return new Promise((resolve) => {
    const events: string[] = []
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`)
    const timer = setTimeout(() => resolve(events), WAIT_MS)
    socket.onopen = () => {
      events.push('open')
      socket.close()
    }
    socket.onerror = () => events.push('error')
    socket.onclose = () => {
      events.push('close')
      clearTimeout(timer)
      resolve(events)
    }
  })
}

const clients: Client[] = []
async function open(session: Session | string) {
  const client = await Client.open(typeof session === 'string' ? session : session.token)
  clients.push(client)
  return client
}

const ping = (extra: Record<string, unknown> = {}) => ({ lat: -6.2, lng: 106.8, is_mock: false, ...extra })
const batch = (token: string, pings: unknown[], key = unique('batch')) => h.post('/app/v1/locations/batch', { pings }, { token, idempotencyKey: key })
const ago = (ms: number) => new Date((h.clock as ManualClock).now().getTime() - ms).toISOString()

let a: Workspace
let b: Workspace
let aAdmin: Session
let aManager: Session
let aField: Session
let aField2: Session
let bField: Session
let kit: { project: number; outlet: number }

beforeAll(async () => {
  h = await createTestApp()
  h.app.listen({ port: 0, hostname: '127.0.0.1' })
  port = h.app.server!.port!
  a = await h.workspace()
  b = await h.workspace()
  aAdmin = await h.member(a, 'admin')
  aManager = await h.member(a, 'manager')
  aField = await h.member(a, 'user')
  aField2 = await h.member(a, 'user')
  bField = await h.member(b, 'user')
  const token = a.owner.token
  const { project, outlet } = await visitSite(h, token)
  kit = { project: project.id, outlet: outlet.id }
})

afterAll(async () => {
  for (const client of clients) client.close()
  await h?.app.stop(true)
  await h?.close()
})

/** A scheduled visit of workspace A (no forms), planned by A's admin. */
async function planVisit(userIds: number[], key?: string) {
  const body = { outlet_id: kit.outlet, project_id: kit.project, visit_date: '2026-11-22', user_ids: userIds, submissions: [] }
  return h.post('/office/v1/visits', body, { token: aAdmin.token, idempotencyKey: key })
}

// ---------------------------------------------------------------------------------------------

describe('the upgrade: authentication', () => {
  test('with a valid token the upgrade succeeds (101) and the socket opens', async () => {
    expect((await upgrade(`?token=${encodeURIComponent(aField.token)}`)).status).toBe(101)
    const client = await open(aField)
    expect(client.socket.readyState).toBe(WebSocket.OPEN)
  })

  test('without a token → 401 UNAUTHORIZED, no socket', async () => {
    const reply = await upgrade('')
    expect(reply.status).toBe(401)
    expect(reply.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' })
    expect(await refusedSocket('')).not.toContain('open')
  })

  test('with a garbage or tampered token → 401, no socket', async () => {
    for (const token of ['garbage', `${aField.token}x`]) {
      const reply = await upgrade(`?token=${encodeURIComponent(token)}`)
      expect({ token: token.slice(-8), status: reply.status, code: reply.body?.code }).toEqual({ token: token.slice(-8), status: 401, code: 'UNAUTHORIZED' })
      const events = await refusedSocket(token)
      expect(events).not.toContain('open')
      expect(events.length).toBeGreaterThan(0)
    }
  })

  test('with an expired token → 401, no socket', async () => {
    const clock = h.clock as ManualClock
    clock.advance(-60 * 60_000)
    let expired: string
    try {
      expired = await h.deps.tokens.signAccessToken({ userId: aField.user.id, workspaceId: a.id, role: 'user' })
    } finally {
      clock.advance(60 * 60_000)
    }
    expect((await h.get('/app/v1/visits/me', { token: expired })).status).toBe(401)
    const reply = await upgrade(`?token=${encodeURIComponent(expired)}`)
    expect(reply.status).toBe(401)
    expect(['UNAUTHORIZED', 'TOKEN_EXPIRED']).toContain(reply.body?.code)
    expect(await refusedSocket(expired)).not.toContain('open')
  })

  test('a deactivated user’s token → 401, no socket; a deleted user’s too', async () => {
    const [paused, gone] = [await h.member(a, 'user'), await h.member(a, 'user')]
    expect((await upgrade(`?token=${encodeURIComponent(paused.token)}`)).status).toBe(101)
    data(await h.put(`/office/v1/users/${paused.user.id}`, { is_active: false }, { token: a.owner.token }), 200, 'deactivating')
    data(await h.delete(`/office/v1/users/${gone.user.id}`, { token: a.owner.token }), 200, 'deleting')
    for (const session of [paused, gone]) {
      const reply = await upgrade(`?token=${encodeURIComponent(session.token)}`)
      expect({ user: session.user.id, status: reply.status, code: reply.body?.code }).toEqual({ user: session.user.id, status: 401, code: 'UNAUTHORIZED' })
      expect(await refusedSocket(session.token)).not.toContain('open')
    }
  })
})

describe('messages', () => {
  test('{type:"ping"} → {type:"pong"}', async () => {
    const client = await open(aField2)
    const raw: string[] = []
    const received = new Promise<void>((resolve) => {
      client.socket.addEventListener('message', (event) => {
        raw.push(String(event.data))
        resolve()
      })
    })
    client.socket.send(JSON.stringify({ type: 'ping' }))
    await received
    expect(raw.map((text) => JSON.parse(text))).toEqual([{ type: 'pong' }])
  })

  test('an unknown message or non-JSON text gets no answer and does not close the socket', async () => {
    const client = await open(aField2)
    const mark = client.mark()
    client.socket.send(JSON.stringify({ type: 'subscribe', topic: `w:${b.id}:livemap` }))
    client.socket.send('not json')
    await client.barrier()
    expect(client.since(mark)).toEqual([])
    expect(client.socket.readyState).toBe(WebSocket.OPEN)
  })
})

describe('location.created: to the workspace’s livemap:view (web) sockets, after commit', () => {
  let owner: Client
  let admin: Client
  let manager: Client
  let field: Client
  let foreign: Client
  beforeAll(async () => {
    ;[owner, admin, manager, field, foreign] = await Promise.all([open(a.owner), open(aAdmin), open(aManager), open(aField), open(b.owner)])
  })

  test('a batch of 3 → 3 messages, one per saved ping with its data, at the owner, admin and manager sockets', async () => {
    const marks = [await owner.settled(), await admin.settled(), await manager.settled()]
    const pings = [
      ping({ recorded_at: ago(3000), lat: 1 }),
      ping({ recorded_at: ago(2000), lat: 2, visit_id: null, source: 'gps' }),
      ping({ lat: 3, battery_level: 0.5 }),
    ]
    data(await batch(aField.token, pings), 201, 'the batch')
    const history = await h.get(`/office/v1/locations?user_id=${aField.user.id}&limit=3&sort_order=asc`, { token: a.owner.token })
    const stored = [...history.body.data].sort((x: { id: number }, y: { id: number }) => x.id - y.id)
    expect(stored.map((p: { lat: number }) => p.lat)).toEqual([1, 2, 3])
    for (const [index, client] of [owner, admin, manager].entries()) {
      const got = await client.waitFor(marks[index], 'location.created', 3)
      expect(got.map((m) => ({ type: m.type, data: m.data }))).toEqual(stored.map((p: unknown) => ({ type: 'location.created', data: p })))
      expect(await Promise.all(got.map((m) => m.committed))).toEqual([true, true, true])
    }
    for (const client of [owner, admin, manager]) await client.barrier()
    expect(owner.since(marks[0], 'location.created')).toHaveLength(3)
  })

  test('a field user’s socket (no livemap:view) gets none, nor another workspace’s admin socket', async () => {
    const marks = await settle([field, foreign])
    const adminMark = await admin.settled()
    data(await batch(aField.token, [ping({ lat: 4 })]), 201, 'the batch')
    await admin.waitFor(adminMark, 'location.created', 1)
    await expectNothing(marks)
  })

  test('pings of another workspace reach its admin, never this workspace’s sockets', async () => {
    const marks = await settle([owner, admin, manager, field])
    const foreignMark = await foreign.settled()
    data(await batch(bField.token, [ping({ lat: 5 })]), 201, 'the batch')
    const [got] = await foreign.waitFor(foreignMark, 'location.created', 1)
    expect(got.data).toMatchObject({ user_id: bField.user.id, workspace_id: b.id, lat: 5 })
    await expectNothing(marks)
  })

  test('nothing is pushed for a refused batch, a 204 replay, or a backlog of duplicates (count 0)', async () => {
    const key = unique('batch')
    const pings = [ping({ recorded_at: ago(60_000), lat: 6 })]
    const first = await admin.settled()
    data(await batch(aField.token, pings, key), 201, 'the batch')
    await admin.waitFor(first, 'location.created', 1)
    const marks = await settle([owner, admin, manager, field])
    expect((await batch(aField.token, pings, key)).status).toBe(204)
    expect((await batch(aField.token, pings)).body.data).toEqual({ count: 0 })
    expectError(await batch(aField.token, [ping(), ping({ lat: 91 })]), 400, 'VALIDATION_ERROR')
    expectError(await batch(aField.token, [ping({ visit_id: 99_999_999 })]), 400, 'VALIDATION_ERROR')
    await expectNothing(marks)
  })

  test('only the new pings of a partly duplicated backlog are pushed', async () => {
    const [t1, t2] = [ago(50_000), ago(40_000)]
    const first = await admin.settled()
    data(await batch(aField.token, [ping({ recorded_at: t1 })]), 201, 'the batch')
    await admin.waitFor(first, 'location.created', 1)
    const mark = await admin.settled()
    expect((await batch(aField.token, [ping({ recorded_at: t1 }), ping({ recorded_at: t2 })])).body.data).toEqual({ count: 1 })
    await admin.barrier()
    expect(admin.since(mark, 'location.created').map((m) => m.data.recorded_at)).toEqual([t2])
  })

  test('every pushed ping carries the id it was stored under: after a backlog whose duplicates come last, and in the next batch', async () => {
    // Skipped rows still use up ids (AUTOINCREMENT), so the batch after such a backlog does not start
    // where the ids of saved rows left off: the ids pushed must be the stored ones all the same.
    const [t1, t2, t3, t4] = [ago(90_000), ago(80_000), ago(70_000), ago(60_000)]
    const user = await h.member(a, 'user')
    data(await batch(user.token, [ping({ recorded_at: t1, lat: 11 }), ping({ recorded_at: t2, lat: 12 })]), 201, 'the first batch')
    const mark = await admin.settled()
    const backlog = [ping({ recorded_at: t3, lat: 13 }), ping({ recorded_at: t1, lat: 11 }), ping({ recorded_at: t2, lat: 12 })]
    expect((await batch(user.token, backlog)).body.data).toEqual({ count: 1 })
    expect((await batch(user.token, [ping({ recorded_at: t4, lat: 14 }), ping({ lat: 15 })])).body.data).toEqual({ count: 2 })
    const pushed = await admin.waitFor(mark, 'location.created', 3)
    const history = await h.get(`/office/v1/locations?user_id=${user.user.id}&limit=10`, { token: a.owner.token })
    const storedId = new Map(history.body.data.map((p: { lat: number; id: number }) => [p.lat, p.id]))
    expect(pushed.map((m) => [m.data.lat, m.data.id])).toEqual([13, 14, 15].map((lat) => [lat, storedId.get(lat)]))
    expect(history.body.data).toHaveLength(5)
  })

  test('batches of several users arriving together (one commit group, some with duplicates) push the ids they were stored under', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => h.member(a, 'user')))
    const at = (n: number) => ago(100_000 - n)
    // The second user's first batch is stored before, so its batch below skips two rows.
    data(await batch(users[1].token, [ping({ recorded_at: at(1), lat: 21.1 }), ping({ recorded_at: at(2), lat: 21.2 })]), 201, 'the earlier batch')
    const mark = await admin.settled()
    const replies = await Promise.all(
      users.map((user, u) =>
        batch(
          user.token,
          [0, 1, 2, 3].map((i) => ping({ recorded_at: at(i), lat: 30 + u + i / 10 })),
        ),
      ),
    )
    expect(replies.map((reply) => reply.body.data.count)).toEqual([4, 2, 4, 4])
    const pushed = await admin.waitFor(mark, 'location.created', 14)
    const stored = new Map<number, number>()
    for (const user of users) {
      const history = await h.get(`/office/v1/locations?user_id=${user.user.id}&limit=10`, { token: a.owner.token })
      for (const p of history.body.data as { lat: number; id: number }[]) stored.set(p.lat, p.id)
    }
    expect(pushed).toHaveLength(14)
    for (const message of pushed) expect(message.data.id).toBe(stored.get(message.data.lat))
    expect(new Set(pushed.map((message) => message.data.id)).size).toBe(14)
  })

  test('a socket that never reads does not slow ingest: 100 batches of 50 are all saved promptly', async () => {
    // A raw client that completes the handshake and then stops reading: the server's buffers fill up.
    const stalled = connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve, reject) => {
      stalled.once('error', reject)
      stalled.once('connect', () => resolve())
    })
    stalled.write(
      `GET /ws?token=${encodeURIComponent(a.owner.token)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${UPGRADE_HEADERS['sec-websocket-key']}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
    await new Promise<void>((resolve) => stalled.once('data', () => resolve()))
    stalled.pause()
    stalled.on('error', () => {})
    try {
      const user = await h.member(a, 'user')
      const mark = await admin.settled()
      const started = performance.now()
      let slowest = 0
      for (let i = 0; i < 100; i++) {
        const before = performance.now()
        const reply = await batch(
          user.token,
          Array.from({ length: 50 }, () => ping({ lat: -6.2 + i / 1000 })),
        )
        slowest = Math.max(slowest, performance.now() - before)
        expect(reply.status).toBe(201)
      }
      const elapsed = performance.now() - started
      expect(await h.count('location_pings', `user_id = ${user.user.id}`)).toBe(5000)
      // Generous bounds: publishing never waits for a socket, so no single batch stalls.
      expect(slowest).toBeLessThan(2000)
      expect(elapsed).toBeLessThan(15_000)
      // A socket that does read still gets every ping.
      expect(await admin.waitFor(mark, 'location.created', 5000)).toHaveLength(5000)
    } finally {
      stalled.destroy()
    }
  })
})

describe('visit.updated {id, status}: to the office (visit:view web) and the assignees, once per socket', () => {
  let office: Client
  let managerSocket: Client
  let assignee: Client
  let bystander: Client
  let foreign: Client
  let foreignField: Client
  beforeAll(async () => {
    ;[office, managerSocket, assignee, bystander, foreign, foreignField] = await Promise.all([
      open(aAdmin),
      open(aManager),
      open(aField),
      open(aField2),
      open(b.owner),
      open(bField),
    ])
  })

  const all = () => [office, managerSocket, assignee, bystander, foreign, foreignField]
  const marksOf = async () => new Map(await settle(all()))

  /** After `act`, each of `receivers` got exactly `expected` (and nothing else of its kind); everyone else none. */
  async function expectPushed(act: () => Promise<void>, receivers: Client[], expected: { id: number; status: string }) {
    const marks = await marksOf()
    await act()
    for (const client of receivers) await client.waitFor(marks.get(client)!, 'visit.updated', 1)
    for (const client of all()) await client.barrier()
    for (const client of all()) {
      const got = client.since(marks.get(client)!, 'visit.updated').map((m) => ({ type: m.type, data: m.data }))
      const wanted = receivers.includes(client) ? [{ type: 'visit.updated', data: expected }] : []
      expect({ socket: all().indexOf(client), got }).toEqual({ socket: all().indexOf(client), got: wanted })
    }
  }

  test('check-in → in_progress, check-out → completed: at the office sockets and the assignee’s, not a bystander’s nor another workspace’s', async () => {
    const visit = data(await planVisit([aField.user.id]), 201, 'planning')
    await expectPushed(
      async () => {
        data(await h.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: aField.token }), 200, 'check-in')
      },
      [office, managerSocket, assignee],
      { id: visit.id, status: 'in_progress' },
    )
    await expectPushed(
      async () => {
        data(await h.post(`/app/v1/visits/${visit.id}/check-out`, SITE, { token: aField.token }), 200, 'check-out')
      },
      [office, managerSocket, assignee],
      { id: visit.id, status: 'completed' },
    )
  })

  test('cancel (office) → cancelled, at the office sockets and the assignee’s', async () => {
    const visit = data(await planVisit([aField.user.id]), 201, 'planning')
    await expectPushed(
      async () => {
        data(await h.put(`/office/v1/visits/${visit.id}/cancel`, { reason: 'Shop closed' }, { token: aAdmin.token }), 200, 'cancel')
      },
      [office, managerSocket, assignee],
      { id: visit.id, status: 'cancelled' },
    )
  })

  test('force-close → force_closed, at the office sockets and the assignee’s', async () => {
    const visit = data(await planVisit([aField.user.id]), 201, 'planning')
    data(await h.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: aField.token }), 200, 'check-in')
    await expectPushed(
      async () => {
        data(await h.put(`/office/v1/visits/${visit.id}/force-close`, { reason: 'Stuck' }, { token: aAdmin.token }), 200, 'force-close')
      },
      [office, managerSocket, assignee],
      { id: visit.id, status: 'force_closed' },
    )
  })

  test('a manager who is also the assignee gets it once; a visit without the field user does not reach them', async () => {
    const visit = data(await planVisit([aManager.user.id]), 201, 'planning')
    await expectPushed(
      async () => {
        data(await h.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: aManager.token }), 200, 'check-in')
      },
      [office, managerSocket],
      { id: visit.id, status: 'in_progress' },
    )
    await expectPushed(
      async () => {
        data(await h.post(`/app/v1/visits/${visit.id}/check-out`, SITE, { token: aManager.token }), 200, 'check-out')
      },
      [office, managerSocket],
      { id: visit.id, status: 'completed' },
    )
  })

  test('two assignees each get it once on their own sockets', async () => {
    const visit = data(await planVisit([aField.user.id, aField2.user.id]), 201, 'planning')
    await expectPushed(
      async () => {
        data(await h.put(`/office/v1/visits/${visit.id}/cancel`, { reason: 'Rain' }, { token: aAdmin.token }), 200, 'cancel')
      },
      [office, managerSocket, assignee, bystander],
      { id: visit.id, status: 'cancelled' },
    )
  })

  test('a refused transition (check-out before check-in, cancel of a cancelled visit) pushes nothing', async () => {
    const visit = data(await planVisit([aField.user.id]), 201, 'planning')
    const beforeCheckOut = await settle(all())
    expectError(await h.post(`/app/v1/visits/${visit.id}/check-out`, SITE, { token: aField.token }), 409, 'VISIT_NOT_STARTED')
    await expectNothing(beforeCheckOut, 'visit.updated')
    data(await h.put(`/office/v1/visits/${visit.id}/cancel`, { reason: 'Closed' }, { token: aAdmin.token }), 200, 'cancel')
    const beforeCancel = await settle(all())
    expectError(await h.put(`/office/v1/visits/${visit.id}/cancel`, { reason: 'Again' }, { token: aAdmin.token }), 409, 'INVALID_VISIT_STATUS')
    await expectNothing(beforeCancel, 'visit.updated')
  })
})

describe('notification.created: to its user, after commit', () => {
  let assignee: Client
  let bystander: Client
  let office: Client
  let foreign: Client
  beforeAll(async () => {
    ;[assignee, bystander, office, foreign] = await Promise.all([open(aField), open(aField2), open(aAdmin), open(bField)])
  })

  test('a visit created with the user as assignee → notification.created with the stored row, on their socket only', async () => {
    const marks = await settle([bystander, office, foreign])
    const mark = await assignee.settled()
    const visit = data(await planVisit([aField.user.id]), 201, 'planning')
    const [got] = await assignee.waitFor(mark, 'notification.created', 1)
    expect(await got.committed).toBe(true)
    const [row] = await h.db.pragma(`SELECT * FROM notifications WHERE id = ${Number(got.data.id)}`)
    expect(row).toMatchObject({ user_id: aField.user.id, workspace_id: a.id, type: 'visit.assigned' })
    expect(got.data).toMatchObject({ id: row.id, user_id: aField.user.id, workspace_id: a.id, type: 'visit.assigned', data: { visit_id: visit.id } })
    await assignee.barrier()
    expect(assignee.since(mark, 'notification.created')).toHaveLength(1)
    await expectNothing(marks, 'notification.created')
  })

  test('a refused create (a project of another workspace) and a 204 replay notify nobody and store nothing', async () => {
    const key = unique('plan')
    const first = await assignee.settled()
    data(await planVisit([aField.user.id], key), 201, 'planning')
    await assignee.waitFor(first, 'notification.created', 1)
    const before = await h.count('notifications')
    const marks = await settle([assignee, bystander, office])
    expect((await planVisit([aField.user.id], key)).status).toBe(204)
    const foreignProject = await newProject(h, b.owner.token)
    const refused = await h.post(
      '/office/v1/visits',
      { outlet_id: kit.outlet, project_id: foreignProject.id, visit_date: '2026-11-22', user_ids: [aField.user.id] },
      { token: aAdmin.token },
    )
    expectError(refused, 400, 'VALIDATION_ERROR')
    await expectNothing(marks, 'notification.created')
    expect(await h.count('notifications')).toBe(before)
  })

  test('assigning users to an existing visit notifies only the added ones', async () => {
    const visit = data(await planVisit([aField.user.id]), 201, 'planning')
    const marks = { assignee: await assignee.settled(), bystander: await bystander.settled() }
    data(await h.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [aField.user.id, aField2.user.id] }, { token: aAdmin.token }), 200, 'assign')
    const [got] = await bystander.waitFor(marks.bystander, 'notification.created', 1)
    expect(got.data).toMatchObject({ user_id: aField2.user.id, data: { visit_id: visit.id } })
    await expectNothing([[assignee, marks.assignee]], 'notification.created')
  })
})

/** The close the server sent, or an error after WAIT_MS. */
function closeOf(client: Client) {
  return Promise.race([client.closed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the server did not close the socket')), WAIT_MS))])
}

describe('a socket lives no longer than its user’s access (docs/API.md §Real-time socket)', () => {
  // An app of its own: these tests move its clock past token expiry.
  let life: TestApp
  let lifePort: number
  let w: Workspace
  let owner: Session
  let observer: Client
  const clock = () => life.clock as ManualClock
  const TTL_MS = 15 * 60_000
  const CLOSE_WITHIN_MS = 1000

  beforeAll(async () => {
    life = await createTestApp()
    life.app.listen({ port: 0, hostname: '127.0.0.1' })
    lifePort = life.app.server!.port!
    w = await life.workspace()
    owner = w.owner
  })

  afterAll(async () => {
    await life?.app.stop(true)
    await life?.close()
  })

  const openHere = async (session: Session) => {
    const client = await Client.open(session.token, lifePort)
    clients.push(client)
    return client
  }

  /** A fresh login (its token expires TTL after the clock's now). */
  const relogin = (session: Session) => life.login(session.user.email)

  async function newMember(role: string | number) {
    const created = await life.post(
      '/office/v1/users',
      { name: unique('Watcher'), email: `${unique('watcher')}@example.com`, password: 'password123', role_id: typeof role === 'number' ? role : w.roles[role] },
      { token: owner.token },
    )
    const user = data(created, 201, 'creating a user')
    return life.login(user.email)
  }

  /** One ping of a fresh field user: every livemap:view socket of the workspace should get it. */
  async function pushPing(lat: number) {
    const field = await newMember('user')
    const reply = await life.post('/app/v1/locations/batch', { pings: [ping({ lat })] }, { token: field.token, idempotencyKey: unique('batch') })
    data(reply, 201, 'the batch')
  }

  /** A live-map socket of a new admin, and the owner's socket as the observer that must keep getting pings. */
  async function watching(role: string | number = 'admin') {
    const session = await newMember(role)
    const client = await openHere(session)
    observer = await openHere(owner)
    const mark = await client.settled()
    await pushPing(1)
    await client.waitFor(mark, 'location.created', 1)
    return { session, client }
  }

  /**
   * `act` ends the access; a ping pushed right after its answer must not reach the socket, which is
   * closed with `code`/`reason` within a second, while the observer still gets the ping.
   */
  async function expectCut(client: Client, act: () => Promise<void>, code: number, reason: string) {
    const mark = client.mark()
    const observed = await observer.settled()
    const started = performance.now()
    await act()
    await pushPing(2)
    const closed = await closeOf(client)
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code, reason })
    expect(closed.at - started).toBeLessThan(CLOSE_WITHIN_MS)
    await observer.waitFor(observed, 'location.created', 1)
    expect(client.since(mark, 'location.created')).toEqual([])
  }

  test('deactivating the user closes their socket: 4401 UNAUTHORIZED, no ping after it', async () => {
    const { session, client } = await watching()
    await expectCut(
      client,
      async () => {
        data(await life.put(`/office/v1/users/${session.user.id}`, { is_active: false }, { token: owner.token }), 200, 'deactivating')
      },
      4401,
      'UNAUTHORIZED',
    )
  })

  test('deleting the user closes their socket: 4401 UNAUTHORIZED', async () => {
    const { session, client } = await watching()
    await expectCut(
      client,
      async () => {
        data(await life.delete(`/office/v1/users/${session.user.id}`, { token: owner.token }), 200, 'deleting')
      },
      4401,
      'UNAUTHORIZED',
    )
  })

  test('a role change to one without livemap:view closes the socket: 4403 FORBIDDEN', async () => {
    const { session, client } = await watching()
    await expectCut(
      client,
      async () => {
        data(await life.put(`/office/v1/users/${session.user.id}`, { role_id: w.roles.user }, { token: owner.token }), 200, 'demoting')
      },
      4403,
      'FORBIDDEN',
    )
  })

  test('removing livemap:view from the role closes its holders’ sockets (4403); a role edit that keeps it closes nothing', async () => {
    const grants = (extra: { key: string; platform: 'web'; access: 'view' }[]) => ({
      permissions: [{ key: 'visit:view', platform: 'web', access: 'view' }, ...extra],
    })
    const livemap = { key: 'livemap:view', platform: 'web' as const, access: 'view' as const }
    const role = data(await life.post('/office/v1/roles', { name: unique('Watchers'), ...grants([livemap]) }, { token: owner.token }), 201, 'a role')
    const { client } = await watching(role.id)
    // Renaming the role keeps its permissions: the socket stays and keeps getting pings.
    data(await life.put(`/office/v1/roles/${role.id}`, { name: unique('Renamed') }, { token: owner.token }), 200, 'renaming')
    const kept = await client.settled()
    await pushPing(3)
    await client.waitFor(kept, 'location.created', 1)
    await expectCut(
      client,
      async () => {
        data(await life.put(`/office/v1/roles/${role.id}`, grants([]), { token: owner.token }), 200, 'removing livemap:view')
      },
      4403,
      'FORBIDDEN',
    )
  })

  test('logging out closes the session’s socket: 4401 UNAUTHORIZED; the user’s other session keeps its socket', async () => {
    const { session, client } = await watching()
    const other = await openHere(await relogin(session))
    await expectCut(
      client,
      async () => {
        data(await life.post('/auth/logout', { refresh_token: session.refresh_token }, { token: session.token }), 200, 'logout')
      },
      4401,
      'UNAUTHORIZED',
    )
    const mark = await other.settled()
    await pushPing(4)
    await other.waitFor(mark, 'location.created', 1)
  })

  test('a change nobody reported (a direct write to memberships) still closes the socket within a second', async () => {
    const { session, client } = await watching()
    const started = performance.now()
    await life.db.pragma(`UPDATE memberships SET is_active = 0 WHERE user_id = ${session.user.id} AND workspace_id = ${w.id}`)
    const closed = await closeOf(client)
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'UNAUTHORIZED' })
    expect(closed.at - started).toBeLessThan(CLOSE_WITHIN_MS)
  })

  test('{type:"auth"} with another user’s token or a bad token → close 4401 UNAUTHORIZED', async () => {
    const [first, second] = await Promise.all([newMember('admin'), newMember('admin')])
    const victims = [await openHere(first), await openHere(first)]
    victims[0].socket.send(JSON.stringify({ type: 'auth', token: second.token }))
    victims[1].socket.send(JSON.stringify({ type: 'auth', token: `${first.token}x` }))
    for (const victim of victims) {
      const closed = await closeOf(victim)
      expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'UNAUTHORIZED' })
    }
  })

  // The clock moves from here on: sessions are logged in again before use.
  test('the token’s exp passing closes the socket: 4401 TOKEN_EXPIRED within a second, no ping after it', async () => {
    const { client } = await watching()
    const mark = client.mark()
    clock().advance(TTL_MS + 1000)
    owner = await relogin(owner)
    const started = performance.now()
    // The clock is past exp before this ping is published: it is never sent to the expired socket.
    await pushPing(5)
    const closed = await closeOf(client)
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'TOKEN_EXPIRED' })
    expect(closed.at - started).toBeLessThan(CLOSE_WITHIN_MS)
    expect(client.since(mark, 'location.created')).toEqual([])
  })

  test('an expired socket with no traffic is closed by the sweep within a second', async () => {
    const session = await newMember('user')
    const client = await openHere(session)
    clock().advance(TTL_MS + 1000)
    const started = performance.now()
    const closed = await closeOf(client)
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'TOKEN_EXPIRED' })
    expect(closed.at - started).toBeLessThan(CLOSE_WITHIN_MS)
    owner = await relogin(owner)
  })

  test('{type:"auth"} with a newer token of the same user before exp → auth.ok, and the socket lives past the old exp', async () => {
    const { session, client } = await watching()
    clock().advance(TTL_MS - 60_000)
    owner = await relogin(owner)
    const renewed = await relogin(session)
    const mark = client.mark()
    client.socket.send(JSON.stringify({ type: 'auth', token: renewed.token }))
    await client.waitFor(mark, 'auth.ok', 1)
    // Past the first token's exp, before the second's.
    clock().advance(2 * 60_000)
    owner = await relogin(owner)
    const alive = client.mark()
    await pushPing(6)
    await client.waitFor(alive, 'location.created', 1)
    await client.barrier()
    expect(client.socket.readyState).toBe(WebSocket.OPEN)
    // And the new exp is enforced in turn.
    clock().advance(TTL_MS)
    const closed = await closeOf(client)
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'TOKEN_EXPIRED' })
    owner = await relogin(owner)
  })
})

/** Bun's pub/sub in miniature, for the hub tests below: each socket records what it got (the event's data, or its type) and how it closed. */
class FakeSocket {
  readonly topics = new Set<string>()
  readonly received: string[] = []
  closedWith: [number, string] | null = null
  subscribe = (topic: string) => this.topics.add(topic)
  unsubscribe = (topic: string) => this.topics.delete(topic)
  close = (code: number, reason: string) => {
    this.closedWith = [code, reason]
  }
  send = (payload: string) => {
    this.received.push(JSON.parse(payload).data ?? JSON.parse(payload).type)
    return payload.length
  }
}
const viewer = compileGrants([{ key: 'livemap:view', platform: 'web', access: 'view' }])

describe('the hub never sends to a socket whose access was lost before the publish', () => {
  function fakeServer(sockets: FakeSocket[]) {
    return {
      publish: (topic: string, payload: string) => {
        for (const socket of sockets) if (socket.topics.has(topic) && !socket.closedWith) socket.received.push(JSON.parse(payload).data)
        return 0
      },
      subscriberCount: (topic: string) => sockets.filter((socket) => socket.topics.has(topic)).length,
    }
  }
  const access = (userId: number, overrides: Partial<SocketAccess> = {}): SocketAccess => ({
    userId,
    workspaceId: 1,
    roleId: 10,
    sessionId: `s${userId}`,
    expiresAt: Date.parse('2026-11-21T09:00:00Z'),
    permissions: viewer,
    ...overrides,
  })

  test('a publish made while a re-check runs is held; the re-check closes the socket that lost access, the rest get it in order', async () => {
    const clock = new TestClock('2026-11-21T08:00:00Z')
    const pending = new Map<number, (value: { roleId: number; permissions: typeof viewer } | null) => void>()
    const hub = new Hub({ channels: SOCKET_CHANNELS })
    hub.watchAccess({
      clock,
      loadAccess: (userId) => new Promise((resolve) => pending.set(userId, resolve)),
      readEpoch: async () => 0,
      liveSessions: async (ids) => new Set(ids),
    })
    const [demoted, kept, other] = [new FakeSocket(), new FakeSocket(), new FakeSocket()]
    hub.attach(fakeServer([demoted, kept, other]))
    hub.register(demoted, access(1))
    hub.register(kept, access(2))
    hub.register(other, access(3, { roleId: 11 }))
    const livemap = livemapTopic(1)

    hub.publish(livemap, { type: 'location.created', data: 'before' })
    hub.revalidateRole(10)
    expect(hub.hasListeners(livemap)).toBe(true)
    hub.publish(livemap, { type: 'location.created', data: 'during-1' })
    hub.publish(livemap, { type: 'location.created', data: 'during-2' })
    // Held for everyone until the re-check is done, so order is kept for the sockets that stay.
    expect([demoted.received, kept.received, other.received]).toEqual([['before'], ['before'], ['before']])

    pending.get(1)!({ roleId: 10, permissions: compileGrants([]) })
    pending.get(2)!({ roleId: 10, permissions: viewer })
    await Bun.sleep(0)
    expect(demoted.closedWith).toEqual([4403, 'FORBIDDEN'])
    expect(demoted.received).toEqual(['before'])
    expect(kept.received).toEqual(['before', 'during-1', 'during-2'])
    expect(other.received).toEqual(['before', 'during-1', 'during-2'])
    expect(hub.connections).toBe(2)
    hub.detach()
  })

  test('module channels: a promoted field user moves from their own visits topic to the workspace’s and stays; losing the workspace’s closes 4403', async () => {
    const clock = new TestClock('2026-11-21T08:00:00Z')
    const field = compileGrants([{ key: 'visit:view', platform: 'mobile', access: 'view' }])
    const manager = compileGrants([
      { key: 'visit:view', platform: 'web', access: 'view' },
      { key: 'livemap:view', platform: 'web', access: 'view' },
    ])
    let current = manager
    const hub = new Hub({ channels: SOCKET_CHANNELS })
    hub.watchAccess({
      clock,
      loadAccess: async () => ({ roleId: 10, permissions: current }),
      readEpoch: async () => 0,
      liveSessions: async (ids) => new Set(ids),
    })
    const socket = new FakeSocket()
    hub.attach(fakeServer([socket]))
    hub.register(socket, access(7, { permissions: field }))
    // Its own topic and its own visits topic (visits module), no live map (locations module).
    expect([...socket.topics].sort()).toEqual([topics.user(1, 7), visitTopics.assignedTo(1, 7)].sort())

    hub.revalidateUser(7)
    await Bun.sleep(0)
    expect(socket.closedWith).toBeNull()
    expect([...socket.topics].sort()).toEqual([topics.user(1, 7), visitTopics.all(1), livemapTopic(1)].sort())

    current = field
    hub.revalidateUser(7)
    await Bun.sleep(0)
    expect(socket.closedWith).toEqual([4403, 'FORBIDDEN'])
    hub.detach()
  })

  test('a member no longer active → 4401 UNAUTHORIZED; a past exp is closed before the next publish reaches it', async () => {
    const clock = new TestClock('2026-11-21T08:00:00Z')
    const hub = new Hub({ channels: SOCKET_CHANNELS })
    hub.watchAccess({ clock, loadAccess: async () => null, readEpoch: async () => 0, liveSessions: async (ids) => new Set(ids) })
    const [gone, expiring, fresh] = [new FakeSocket(), new FakeSocket(), new FakeSocket()]
    hub.attach(fakeServer([gone, expiring, fresh]))
    hub.register(gone, access(1))
    hub.register(expiring, access(2, { expiresAt: Date.parse('2026-11-21T08:10:00Z') }))
    hub.register(fresh, access(3, { expiresAt: Date.parse('2026-11-21T08:30:00Z') }))
    hub.revalidateUser(1)
    hub.publish(livemapTopic(1), { type: 'location.created', data: 'after-deactivation' })
    await Bun.sleep(0)
    expect(gone.closedWith).toEqual([4401, 'UNAUTHORIZED'])
    expect(gone.received).toEqual([])
    clock.set('2026-11-21T08:10:00Z')
    hub.publish(livemapTopic(1), { type: 'location.created', data: 'after-exp' })
    expect(expiring.closedWith).toEqual([4401, 'TOKEN_EXPIRED'])
    expect(expiring.received).toEqual(['after-deactivation'])
    expect(fresh.received).toEqual(['after-deactivation', 'after-exp'])
    hub.detach()
  })
})

// ---------------------------------------------------------------------------------------------
// Event ids and replay after `?since=` (docs/API.md §Real-time socket, docs/API.md §Real-time socket)

interface Pushed {
  type: string
  id?: number
  data?: any
}

/** A bare socket for the replay tests: records every message but pongs, from before the open on. */
class Feed extends RecordingSocket<Pushed> {
  readonly closed: Promise<number>

  private constructor(socket: WebSocket) {
    super(socket)
    this.closed = new Promise((resolve) => socket.addEventListener('close', (event) => resolve(event.code)))
  }

  /** Starts the upgrade; `opened` resolves once the socket is open. */
  static connect(token: string, atPort: number, since?: number | string): { feed: Feed; opened: Promise<Feed> } {
    const query = `token=${encodeURIComponent(token)}${since === undefined ? '' : `&since=${since}`}`
    const feed = new Feed(new WebSocket(`ws://127.0.0.1:${atPort}/ws?${query}`))
    return { feed, opened: feed.opened().then(() => feed) }
  }

  static open(token: string, atPort: number, since?: number | string): Promise<Feed> {
    return Feed.connect(token, atPort, since).opened
  }

  /** Ids of the events received (in arrival order). */
  get ids(): number[] {
    return this.messages.filter((m) => m.id !== undefined).map((m) => m.id!)
  }

  get lastId(): number {
    return this.ids.at(-1)!
  }

  /** Waits for the event with id `id` (or a later one). */
  reach(id: number, waitMs = WAIT_MS): Promise<void> {
    return this.until(() => this.ids.some((seen) => seen >= id), `event ${id}`, waitMs)
  }

  /** Closes and waits for the server to have seen it go. */
  async leave(): Promise<void> {
    this.socket.close()
    await this.closed
  }
}

/** The messages of `feed` with ids above `after`, as `{type, id, data}`. */
const after = (feed: Feed, id: number) => feed.messages.filter((m) => m.id !== undefined && m.id > id)

const strictlyIncreasing = (ids: number[]) => ids.every((id, index) => index === 0 || id > ids[index - 1])

describe('event ids: every pushed event carries an id, increasing per workspace', () => {
  test('location.created, visit.updated and notification.created carry integer ids, increasing in the order sent', async () => {
    const feed = await Feed.open(a.owner.token, port)
    // The owner plans a visit for A's field user and for themself (a notification to the owner),
    // the field user checks in (visit.updated to the office), then sends two pings (the live map).
    const visit = data(await planVisit([aField.user.id, a.owner.user.id]), 201, 'planning')
    data(await h.post(`/app/v1/visits/${visit.id}/check-in`, SITE, { token: aField.token }), 200, 'check-in')
    data(await batch(aField.token, [ping(), ping({ lat: -6.21 })]), 201, 'a batch')
    await feed.barrier()
    // (The check-in may also tell the owner it was flagged: a second notification.)
    const types = feed.messages.map((m) => m.type)
    expect(new Set(types)).toEqual(new Set(['notification.created', 'visit.updated', 'location.created']))
    expect(types.slice(-2)).toEqual(['location.created', 'location.created'])
    expect(feed.messages.every((m) => Number.isSafeInteger(m.id) && m.id! > 0)).toBe(true)
    expect(strictlyIncreasing(feed.ids)).toBe(true)
    // The event id sits beside the data; the data keeps its own `id` (the visit's, the ping's).
    const updated = feed.messages.find((m) => m.type === 'visit.updated')!
    expect(updated).toEqual({ type: 'visit.updated', id: updated.id, data: { id: visit.id, status: 'in_progress' } })
    await feed.leave()
  })

  test('each workspace counts on its own: events of B take no id of A’s', async () => {
    const [inA, inB] = await Promise.all([Feed.open(a.owner.token, port), Feed.open(b.owner.token, port)])
    data(await batch(aField.token, [ping()]), 201, 'a batch in A')
    await inA.barrier()
    const lastOfA = inA.lastId
    data(await batch(bField.token, [ping(), ping({ lat: -6.22 }), ping({ lat: -6.23 })]), 201, 'a batch in B')
    await inB.barrier()
    expect(inB.messages.map((m) => m.type)).toEqual(['location.created', 'location.created', 'location.created'])
    expect(strictlyIncreasing(inB.ids)).toBe(true)
    data(await batch(aField.token, [ping()]), 201, 'a batch in A')
    await inA.barrier()
    // The clock did not move: A's next id is the one after its last, whatever B published.
    expect(inA.ids).toEqual([lastOfA, lastOfA + 1])
    expect(inA.messages.every((m) => m.data.workspace_id === a.id)).toBe(true)
    expect(inB.messages.every((m) => m.data.workspace_id === b.id)).toBe(true)
    await Promise.all([inA.leave(), inB.leave()])
  })
})

describe('?since=<id>: the events missed, then the live ones, nothing lost or twice', () => {
  // An app of its own: these tests move its clock, shrink its replay bounds and flood its sockets.
  let r: TestApp
  let rPort: number
  let w: Workspace
  let admin: Session
  let field: Session
  let field2: Session
  const clock = () => r.clock as ManualClock
  const fresh = (session: Session) => r.login(session.user.email)
  const rBatch = (session: Session, pings: unknown[]) => r.post('/app/v1/locations/batch', { pings }, { token: session.token, idempotencyKey: unique('batch') })

  beforeAll(async () => {
    r = await createTestApp()
    r.app.listen({ port: 0, hostname: '127.0.0.1' })
    rPort = r.app.server!.port!
    w = await r.workspace()
    admin = await r.member(w, 'admin')
    field = await r.member(w, 'user')
    field2 = await r.member(w, 'user')
  })

  afterAll(async () => {
    await r?.app.stop(true)
    await r?.close()
  })

  test('reconnecting with the last id seen gets exactly the events missed, in order, then live ones', async () => {
    const observer = await Feed.open(admin.token, rPort)
    const leaving = await Feed.open(admin.token, rPort)
    data(await rBatch(field, [ping()]), 201, 'a batch')
    await leaving.barrier()
    const lastSeen = leaving.lastId
    await leaving.leave()

    // Missed: three pings and a cancelled visit (visit.updated to the office).
    data(await rBatch(field, [ping({ lat: 1 }), ping({ lat: 2 }), ping({ lat: 3 })]), 201, 'a batch')
    const { outlet, project } = await visitSite(r, w.owner.token)
    const visit = await newVisit(r, admin.token, {
      outlet_id: outlet.id,
      project_id: project.id,
      visit_date: '2026-11-22',
      user_ids: [field.user.id],
      submissions: [],
    })
    data(await r.put(`/office/v1/visits/${visit.id}/cancel`, { reason: 'Rain' }, { token: admin.token }), 200, 'cancel')
    await observer.barrier()
    const missed = after(observer, lastSeen)
    expect(missed.map((m) => m.type)).toEqual(['location.created', 'location.created', 'location.created', 'visit.updated'])

    const back = await Feed.open(admin.token, rPort, lastSeen)
    await back.barrier()
    expect(back.messages).toEqual(missed)
    data(await rBatch(field, [ping({ lat: 4 })]), 201, 'a live batch')
    await Promise.all([back.barrier(), observer.barrier()])
    expect(back.messages).toEqual(after(observer, lastSeen))
    expect(back.messages.at(-1)).toMatchObject({ type: 'location.created', data: { lat: 4 } })
    // Reconnecting with the newest id replays nothing.
    const current = await Feed.open(admin.token, rPort, back.lastId)
    await current.barrier()
    expect(current.messages).toEqual([])
    await Promise.all([observer.leave(), back.leave(), current.leave()])
  })

  test('events published while a long replay is sent (it waits for the socket to drain) arrive once each, in order, after it', async () => {
    const hub = r.deps.hub
    const livemap = livemapTopic(w.id)
    const observer = await Feed.open(admin.token, rPort)
    const leaving = await Feed.open(admin.token, rPort)
    data(await rBatch(field, [ping()]), 201, 'a batch')
    await leaving.barrier()
    const lastSeen = leaving.lastId
    await leaving.leave()

    // 8,000 events of ~2 KB while away: far more than one socket write takes, so the replay has to
    // wait for drains. Published in slices the observer reads as they come (it is live, not replaying).
    const blob = 'x'.repeat(2000)
    for (let slice = 0; slice < 160; slice++) {
      hub.publishEach(
        livemap,
        'location.created',
        Array.from({ length: 50 }, (_, n) => ({ n: slice * 50 + n, blob })),
      )
      await observer.barrier()
    }

    const { feed: back, opened } = Feed.connect(admin.token, rPort, lastSeen)
    // Meanwhile: events from the hub and real batches over HTTP, published on turns of the event loop.
    let publishedDuringReplay = 0
    const publishing = (async () => {
      await opened
      for (let turn = 0; turn < 60; turn++) {
        if (hub.replays > 0) publishedDuringReplay += 1
        if (turn % 10 === 0) data(await rBatch(field, [ping({ lat: turn })]), 201, 'a batch during the replay')
        else hub.publishEach(livemap, 'location.created', [{ turn }])
        await Bun.sleep(0)
      }
    })()
    await publishing
    await observer.barrier()
    const expected = after(observer, lastSeen)
    await back.reach(observer.lastId, 20_000)
    await back.barrier()
    expect(publishedDuringReplay).toBeGreaterThan(0)
    expect(back.ids.length).toBe(expected.length)
    expect(back.ids).toEqual(expected.map((m) => m.id!))
    expect(strictlyIncreasing(back.ids)).toBe(true)
    expect(back.messages.slice(-5)).toEqual(expected.slice(-5))
    expect(hub.replays).toBe(0)
    await Promise.all([observer.leave(), back.leave()])
  })

  test('a replay shows only what the socket may see: no location events without livemap:view, no one else’s notifications, no other workspace', async () => {
    const other = await r.workspace()
    const otherField = await r.member(other, 'user')
    const officeOnly = await r.memberWithGrants(w, [{ key: 'visit:view', platform: 'web', access: 'view' }])
    const observer = await Feed.open(w.owner.token, rPort)
    data(await rBatch(field, [ping()]), 201, 'a batch')
    await observer.barrier()
    const lastSeen = observer.lastId

    // While everyone else is away: pings in both workspaces, a visit for `field2` (a notification to
    // them) that is then cancelled (visit.updated to the office and to field2).
    data(await rBatch(field, [ping({ lat: 5 }), ping({ lat: 6 })]), 201, 'a batch')
    data(await r.post('/app/v1/locations/batch', { pings: [ping()] }, { token: otherField.token, idempotencyKey: unique('batch') }), 201, 'a batch of B')
    const { outlet, project } = await visitSite(r, w.owner.token)
    const visit = await newVisit(r, admin.token, {
      outlet_id: outlet.id,
      project_id: project.id,
      visit_date: '2026-11-22',
      user_ids: [field2.user.id],
      submissions: [],
    })
    data(await r.put(`/office/v1/visits/${visit.id}/cancel`, { reason: 'Rain' }, { token: admin.token }), 200, 'cancel')
    await observer.barrier()
    expect(after(observer, lastSeen).map((m) => m.type)).toEqual(['location.created', 'location.created', 'visit.updated'])

    const replayed = async (session: Session, since = lastSeen) => {
      const feed = await Feed.open(session.token, rPort, since)
      await feed.barrier()
      await feed.leave()
      return feed.messages.map((m) => ({ type: m.type, user: m.data?.user_id, workspace: m.data?.workspace_id, status: m.data?.status }))
    }
    // The office-only member (visit:view, no livemap:view): the visit, not the pings.
    expect(await replayed(officeOnly)).toEqual([{ type: 'visit.updated', user: undefined, workspace: undefined, status: 'cancelled' }])
    // field2: their notification and their visit, nothing else.
    expect(await replayed(field2)).toEqual([
      { type: 'notification.created', user: field2.user.id, workspace: w.id, status: undefined },
      { type: 'visit.updated', user: undefined, workspace: undefined, status: 'cancelled' },
    ])
    // field: none of it (not their notification, not their visit, no live map).
    expect(await replayed(field)).toEqual([])
    // Another workspace's socket with this workspace's id: a resync, or its own events; never ours.
    const foreign = await replayed(otherField)
    expect(foreign.every((m) => m.type === 'resync' || m.workspace === other.id)).toBe(true)
    await observer.leave()
  })

  test('a since older than the kept window (10 minutes) → the first message is {"type":"resync"}, then live events', async () => {
    admin = await fresh(admin)
    field = await fresh(field)
    const observer = await Feed.open(admin.token, rPort)
    data(await rBatch(field, [ping()]), 201, 'a batch')
    await observer.barrier()
    const lastSeen = observer.lastId
    data(await rBatch(field, [ping({ lat: 7 })]), 201, 'the batch to miss')
    await observer.barrier()
    await observer.leave()

    // Just inside the window: replayed.
    clock().advance(10 * 60_000 - 1)
    const inside = await Feed.open(admin.token, rPort, lastSeen)
    await inside.barrier()
    expect(inside.messages.map((m) => [m.type, m.data?.lat])).toEqual([['location.created', 7]])
    await inside.leave()

    // Past it: resync first, then the live events.
    clock().advance(2)
    const late = await Feed.open(admin.token, rPort, lastSeen)
    await late.barrier()
    expect(late.messages).toEqual([{ type: 'resync' }])
    data(await rBatch(field, [ping({ lat: 8 })]), 201, 'a live batch')
    await late.barrier()
    expect(late.messages.map((m) => [m.type, m.data?.lat])).toEqual([
      ['resync', undefined],
      ['location.created', 8],
    ])
    await late.leave()
  })

  test('a since this process never issued (from before a restart, or ahead of the newest id) → resync', async () => {
    admin = await fresh(admin)
    const observer = await Feed.open(admin.token, rPort)
    field = await fresh(field)
    data(await rBatch(field, [ping()]), 201, 'a batch')
    await observer.barrier()
    for (const since of [0, 1_000, observer.lastId + 1]) {
      const feed = await Feed.open(admin.token, rPort, since)
      await feed.barrier()
      expect({ since, got: feed.messages }).toEqual({ since, got: [{ type: 'resync' }] })
      await feed.leave()
    }
    await observer.leave()
  })

  test('past the per-workspace bound the oldest events are evicted: a since before them → resync, from the newest evicted one → the rest', async () => {
    const hub = r.deps.hub
    const bounds = hub.replay.bounds
    // No flood span: the 30 events of one batch would otherwise count as a flood and be kept not at all.
    hub.replay.bounds = { ...bounds, bulk: { maxEvents: 20, maxBytes: bounds.bulk.maxBytes }, flood: { spanMs: 0 } }
    try {
      admin = await fresh(admin)
      field = await fresh(field)
      field2 = await fresh(field2)
      const observer = await Feed.open(admin.token, rPort)
      const fieldFeed = await Feed.open(field2.token, rPort)
      data(await rBatch(field, [ping()]), 201, 'a batch')
      await observer.barrier()
      const lastSeen = observer.lastId
      // field2 sees a notification before the flood.
      const { outlet, project } = await visitSite(r, w.owner.token)
      await fieldFeed.barrier()
      const fieldSince = lastSeen
      await fieldFeed.leave()
      await newVisit(r, admin.token, { outlet_id: outlet.id, project_id: project.id, visit_date: '2026-11-22', user_ids: [field2.user.id], submissions: [] })

      // 30 location events: more than the 20 the bound keeps.
      data(
        await rBatch(
          field,
          Array.from({ length: 30 }, (_, n) => ping({ lat: n / 10 })),
        ),
        201,
        'a batch of 30',
      )
      await observer.barrier()
      const flood = after(observer, lastSeen).filter((m) => m.type === 'location.created')
      expect(flood).toHaveLength(30)

      const tooOld = await Feed.open(admin.token, rPort, lastSeen)
      await tooOld.barrier()
      expect(tooOld.messages).toEqual([{ type: 'resync' }])
      await tooOld.leave()
      // From the newest evicted event (the 10th), the 20 kept ones and the visit plan's events.
      const fromFloor = await Feed.open(admin.token, rPort, flood[9].id!)
      await fromFloor.barrier()
      expect(fromFloor.messages).toEqual(after(observer, flood[9].id!))
      expect(fromFloor.messages.filter((m) => m.type === 'location.created')).toEqual(flood.slice(10))
      await fromFloor.leave()
      // The flood of location events evicts none of the other events: field2 still gets its notification.
      const fieldBack = await Feed.open(field2.token, rPort, fieldSince)
      await fieldBack.barrier()
      expect(fieldBack.messages.map((m) => m.type)).toEqual(['notification.created'])
      await Promise.all([fieldBack.leave(), observer.leave()])
    } finally {
      hub.replay.bounds = bounds
    }
  })

  test('location events nobody listened for within the window are not kept: a live-map replay across them → resync; others replay', async () => {
    const quiet = await r.workspace()
    const quietAdmin = await r.member(quiet, 'admin')
    const quietField = await r.member(quiet, 'user')
    // The field user's socket sees an event (a notification), then leaves; no live-map socket is open.
    const feed = await Feed.open(quietField.token, rPort)
    const { outlet, project } = await visitSite(r, quiet.owner.token)
    const plan = () =>
      r.post(
        '/office/v1/visits',
        { outlet_id: outlet.id, project_id: project.id, visit_date: '2026-11-22', user_ids: [quietField.user.id], submissions: [] },
        { token: quiet.owner.token },
      )
    data(await plan(), 201, 'planning')
    await feed.barrier()
    const seen = feed.lastId
    await feed.leave()
    data(
      await r.post('/app/v1/locations/batch', { pings: [ping()] }, { token: quietField.token, idempotencyKey: unique('batch') }),
      201,
      'a batch nobody watches',
    )
    data(await plan(), 201, 'planning')

    const map = await Feed.open(quietAdmin.token, rPort, seen)
    await map.barrier()
    expect(map.messages).toEqual([{ type: 'resync' }])
    await map.leave()
    const back = await Feed.open(quietField.token, rPort, seen)
    await back.barrier()
    expect(back.messages.map((m) => m.type)).toEqual(['notification.created'])
    await back.leave()
  })
})

describe('?since=: a malformed value refuses the upgrade', () => {
  test('not a whole number of at most 16 digits → 400 VALIDATION_ERROR with errors.since, no socket', async () => {
    for (const since of ['abc', '-1', '1.5', '1e6', '', '%20', '12345678901234567', '9007199254740993']) {
      const reply = await upgrade(`?token=${encodeURIComponent(aField.token)}&since=${since}`)
      expect({ since, status: reply.status, code: reply.body?.code, success: reply.body?.success }).toEqual({
        since,
        status: 400,
        code: 'VALIDATION_ERROR',
        success: false,
      })
      expect(reply.body.errors.since).toBeArray()
    }
    const events = await new Promise<string[]>((resolve) => {
      const seen: string[] = []
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(aField.token)}&since=abc`)
      const timer = setTimeout(() => resolve(seen), WAIT_MS)
      socket.onopen = () => seen.push('open')
      socket.onerror = () => seen.push('error')
      socket.onclose = () => {
        clearTimeout(timer)
        resolve([...seen, 'close'])
      }
    })
    expect(events).not.toContain('open')
  })

  test('a bad token with a bad since is still a 401; a good since with a good token opens', async () => {
    const reply = await upgrade(`?token=garbage&since=abc`)
    expect(reply.status).toBe(401)
    expect((await upgrade(`?token=${encodeURIComponent(aField.token)}&since=0`)).status).toBe(101)
  })
})

describe('the replay log: ids across a restart, byte bounds', () => {
  test('a new process numbers above the old one and answers its ids with resync', () => {
    const first = new ReplayLog(REPLAY_BOUNDS, BULK)
    const t0 = Date.parse('2026-11-21T08:00:00Z')
    for (let n = 0; n < 500; n++) first.record(1, ['w:1:livemap'], 'location.created', { n }, t0)
    const lastOfFirst = first.lastId(1, t0)
    // Restarted a second later (the log is in memory only).
    const second = new ReplayLog(REPLAY_BOUNDS, BULK)
    second.record(1, ['w:1:livemap'], 'location.created', { n: 0 }, t0 + 1000)
    expect(second.lastId(1, t0 + 1000)).toBeGreaterThan(lastOfFirst)
    expect(second.covers(1, lastOfFirst, ['other', 'bulk'], t0 + 1000)).toBe(false)
    expect(second.covers(1, second.lastId(1, t0 + 1000), ['other', 'bulk'], t0 + 1000)).toBe(true)
  })

  test('ids increase even when the clock steps back', () => {
    const log = new ReplayLog(REPLAY_BOUNDS, BULK)
    const t0 = Date.parse('2026-11-21T08:00:00Z')
    const ids = [t0, t0 + 5, t0 - 60_000, t0 - 60_000].map((now) => JSON.parse(log.record(1, ['w:1:u:2'], 'notification.created', {}, now)).id)
    expect(strictlyIncreasing(ids)).toBe(true)
  })

  test('a stream past its byte bound drops its oldest; past the total, the oldest events of the process go first', () => {
    const t0 = Date.parse('2026-11-21T08:00:00Z')
    const blob = 'x'.repeat(1000)
    const eventBytes = JSON.stringify({ type: 'location.created', id: t0 * 1000 + 1, data: { blob } }).length + ENTRY_OVERHEAD_BYTES
    // No flood span: 25 events at one instant would otherwise be a flood (tested apart below).
    const log = new ReplayLog({ ...REPLAY_BOUNDS, bulk: { maxEvents: 1_000_000, maxBytes: 10 * eventBytes }, flood: { spanMs: 0 } }, BULK)
    for (let n = 0; n < 25; n++) log.record(1, ['w:1:livemap'], 'location.created', { blob }, t0)
    expect(log.events).toBe(10)
    expect(log.bytes).toBeLessThanOrEqual(10 * eventBytes)
    // 15 evicted: a since before the 15th is not covered, from the 15th on it is.
    const first = t0 * 1000 + 1
    expect(log.covers(1, first + 13, ['bulk'], t0)).toBe(false)
    expect(log.covers(1, first + 14, ['bulk'], t0)).toBe(true)
    expect([...log.after(1, first + 14, ['bulk'])].map((event) => event.id)).toEqual(Array.from({ length: 10 }, (_, n) => first + 15 + n))

    // The total: 3 MiB over all workspaces; workspace 1 published first, so it gives way first.
    const total = new ReplayLog({ ...REPLAY_BOUNDS, maxTotalBytes: 3 * 1024 * 1024 }, BULK)
    for (let n = 0; n < 2000; n++) total.record(1, ['w:1:livemap'], 'location.created', { blob }, t0 + n)
    for (let n = 0; n < 2000; n++) total.record(2, ['w:2:livemap'], 'location.created', { blob }, t0 + 2000 + n)
    expect(total.bytes).toBeLessThanOrEqual(3 * 1024 * 1024)
    // Each workspace's log starts from its first event's clock × 1000: workspace 2 still has all of its
    // events, workspace 1 has lost its oldest.
    expect(total.covers(2, (t0 + 2000) * 1000, ['bulk'], t0 + 4000)).toBe(true)
    expect(total.covers(1, t0 * 1000, ['bulk'], t0 + 4000)).toBe(false)
    expect(total.events).toBeLessThan(4000)
  })
})

describe('a replay waits for an access re-check like every publish', () => {
  const access = (userId: number): SocketAccess => ({
    userId,
    workspaceId: 1,
    roleId: 10,
    sessionId: `s${userId}`,
    expiresAt: Date.parse('2026-11-21T09:00:00Z'),
    permissions: viewer,
  })

  test('a socket replaying during a re-check gets the missed and the held events once each, in order; one that lost access gets none', async () => {
    const clock = new TestClock('2026-11-21T08:00:00Z')
    const pending = new Map<number, (value: { roleId: number; permissions: typeof viewer } | null) => void>()
    const hub = new Hub({ channels: SOCKET_CHANNELS })
    hub.watchAccess({
      clock,
      loadAccess: (userId) => new Promise((resolve) => pending.set(userId, resolve)),
      readEpoch: async () => 0,
      liveSessions: async (ids) => new Set(ids),
    })
    const [live, late, demoted] = [new FakeSocket(), new FakeSocket(), new FakeSocket()]
    const sockets = [live, late, demoted]
    hub.attach({
      publish: (topic: string, payload: string) => {
        for (const socket of sockets) if (socket.topics.has(topic) && !socket.closedWith) socket.received.push(JSON.parse(payload).data)
        return 0
      },
      subscriberCount: (topic: string) => sockets.filter((socket) => socket.topics.has(topic)).length,
    })
    const livemap = livemapTopic(1)
    hub.register(live, access(1))
    hub.publish(livemap, { type: 'location.created', data: 'e1' })
    const since = hub.replay.lastId(1, clock.now().getTime())
    hub.publish(livemap, { type: 'location.created', data: 'e2' })

    hub.revalidateUser(1)
    hub.register(late, access(2), since)
    hub.register(demoted, access(3), since)
    hub.revalidateUser(3)
    hub.publish(livemap, { type: 'location.created', data: 'e3' })
    // Nothing moves while the re-checks run.
    expect([live.received, late.received, demoted.received]).toEqual([['e1', 'e2'], [], []])
    expect(hub.replays).toBe(2)

    pending.get(3)!({ roleId: 10, permissions: compileGrants([]) })
    await Bun.sleep(0)
    expect(demoted.closedWith).toEqual([4403, 'FORBIDDEN'])
    pending.get(1)!({ roleId: 10, permissions: viewer })
    await Bun.sleep(0)
    expect(hub.replays).toBe(0)
    hub.publish(livemap, { type: 'location.created', data: 'e4' })
    expect(live.received).toEqual(['e1', 'e2', 'e3', 'e4'])
    expect(late.received).toEqual(['e2', 'e3', 'e4'])
    expect(demoted.received).toEqual([])
    hub.detach()
  })
})

describe('the replay log in a flood', () => {
  test('a stream whose bound holds less than a minute keeps nothing until its rate would fit a minute again', () => {
    const t0 = Date.parse('2026-11-21T08:00:00Z')
    const log = new ReplayLog({ ...REPLAY_BOUNDS, bulk: { maxEvents: 100, maxBytes: 1024 * 1024 }, flood: { spanMs: 60_000 } }, BULK)
    const topic = ['w:1:livemap']
    const idOf = (payload: string): number => JSON.parse(payload).id
    // 150 events within a second: the 101st puts the stream over its bound with 100 events spanning
    // less than a minute, so it drops them all and keeps none of the rest.
    const ids: number[] = []
    for (let n = 0; n < 150; n++) ids.push(idOf(log.record(1, topic, 'location.created', { n }, t0 + Math.floor((n / 150) * 1000))))
    expect(log.events).toBe(0)
    expect(log.bytes).toBe(0)
    // A client that saw an event before the newest missed one that is gone: resync. One that saw the
    // newest missed nothing.
    expect(log.covers(1, ids[148], ['bulk'], t0 + 1000)).toBe(false)
    expect(log.covers(1, ids[149], ['bulk'], t0 + 1000)).toBe(true)
    // The other stream is not flooded by it.
    for (let n = 0; n < 50; n++) log.record(1, ['w:1:u:2'], 'notification.created', { n }, t0 + 1000)
    expect(log.events).toBe(50)
    // Then one event every 7 s. The first closes the window the flood opened (49 more events in
    // ~7.3 s: ~400 a minute, over the bound of 100), the second closes a window of one event in 7 s
    // (~17 a minute): the flood is over, and it and every later event are kept.
    let now = t0 + 1000
    for (let n = 0; n < 30; n++) {
      now += 7000
      log.record(1, topic, 'location.created', { n }, now)
    }
    expect(log.events).toBe(50 + 29)
  })

  test('a flood measured in bytes starts and ends like one in events', () => {
    const t0 = Date.parse('2026-11-21T08:00:00Z')
    const blob = 'x'.repeat(1000)
    const log = new ReplayLog({ ...REPLAY_BOUNDS, bulk: { maxEvents: 1_000_000, maxBytes: 20 * 1024 }, flood: { spanMs: 60_000 } }, BULK)
    // ~1.1 KB events, 40 in a second: 20 KiB would hold half a second of them.
    for (let n = 0; n < 40; n++) log.record(1, ['w:1:livemap'], 'location.created', { blob }, t0 + n * 25)
    expect(log.events).toBe(0)
    // At one event every 10 s, 20 KiB holds 3 minutes: kept again from the second such event on.
    for (let n = 1; n <= 5; n++) log.record(1, ['w:1:livemap'], 'location.created', { blob }, t0 + n * 10_000)
    expect(log.events).toBe(4)
  })
})
