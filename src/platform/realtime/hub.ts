/**
 * The per-workspace hub: how the service pushes events to connected clients (docs/API.md §Real-time socket) over
 * Bun's native WebSocket pub/sub. Every topic carries the workspace id, so nothing crosses workspaces:
 *
 *   w:<wid>:u:<uid>          the user's own topic: every socket of that user in that workspace joins it
 *   w:<wid>:u:<uid>:<name>   a module's topic for one user (e.g. the visits assigned to them)
 *   w:<wid>:<name>           a module's workspace-wide topic (e.g. the live map)
 *
 * Which topics a socket joins is up to the modules: each declares its SocketChannels in its manifest
 * (the live map in modules/locations, visit updates in modules/visits) and the composition root hands
 * them to the hub. A topic under the user's own prefix comes with being a member; any other is a
 * permission, and losing it closes the socket. Events are published after the transaction commits; a
 * slow or dead socket is Bun's to drop (backpressure limit, idle timeout), never the publisher's to
 * wait for.
 *
 * A socket lives no longer than its user's access. The hub keeps, per socket, the access it was
 * opened (or re-authenticated) with — user, workspace, role, session, token expiry, permissions —
 * so the publish path reads nothing from the database. The socket is closed, with the code string
 * as the close reason:
 *   - 4401 `TOKEN_EXPIRED` once the token's `exp` passes (checked before every publish, and by a
 *     sweep every SWEEP_INTERVAL_MS);
 *   - 4401 `UNAUTHORIZED` when the user is no longer an active member (deactivated, deleted) or
 *     their session ended (logged out; every refresh token revoked by a password change or reset,
 *     a deactivation, a detected reuse);
 *   - 4403 `FORBIDDEN` when the user lost the permission one of the socket's topics needs (a role
 *     change, a role's permissions edited); a gained permission only adds topics.
 * Who changes access tells the hub after the commit (`revalidateUser`, `revalidateRole`,
 * `endSessions`). While such a re-check runs, every publish is held back and sent, in order, once
 * it is done: an event published after an access change never reaches a socket that lost the
 * access. As a safety net for changes nobody reported (another process on the same database, or
 * any other write to users, memberships or roles, or a revoked refresh token), the sweep reads the
 * auth epoch — a number those writes bump through database triggers — and re-checks every socket
 * when it moved: so a logout served by another instance closes this one's sockets of that session
 * within a sweep or two.
 *
 * Every event carries an `id`, increasing per workspace, and is kept for a while in the replay log
 * (./replay-log.ts: what is kept, for how long, within which bounds). A socket opened with
 * `?since=<id>` first gets the events after `id` that it may see — the same rule as live delivery:
 * the topics its access allows now — then the live ones, none lost and none twice:
 *   1. If the log no longer covers `since` (older than what is kept, or not an id this process issued
 *      for the workspace), the first message is {"type":"resync"} and the socket goes live at once.
 *   2. Otherwise the socket stays off its topics while it replays: whatever is published meanwhile
 *      lands in the log, which the replay reads to its end. It sends until Bun reports backpressure,
 *      then waits for `drained`, and is paused like every publish while an access re-check runs.
 *   3. In the same synchronous step in which it sent the newest event of the log, it subscribes: no
 *      publish can fall in between, and nothing it replayed reaches it again from the topic.
 * A replay that reads slower than its workspace's events are evicted gets {"type":"resync"} there
 * and goes live. Events of `publishEach` for a topic nobody has listened on within the replay window
 * are not even serialised: the log records the skip, and a replay across it is a resync.
 *
 * All of this is per-process state: each instance knows only its own sockets and its own events.
 */
import type { Server } from 'bun'
import { systemClock, type Clock } from '../../lib/clock'
import type { PermissionSet } from '../permissions'
import { REPLAY_BOUNDS, ReplayLog, type ReplayBounds, type StreamName } from './replay-log'

export interface HubEvent {
  /** `location.created`, `visit.updated`, `notification.created`, … (docs/API.md §Real-time socket). */
  type: string
  data: unknown
}

/** The message telling a client that what it missed is no longer kept: reload over HTTP. */
export const RESYNC_MESSAGE = JSON.stringify({ type: 'resync' })

/** How often events older than the replay window are dropped in workspaces that publish nothing. */
const PRUNE_INTERVAL_MS = 30_000

/** Every topic names its workspace first: `w:<workspaceId>:…`. */
const workspaceOf = (topic: string) => Number(topic.slice(2, topic.indexOf(':', 2)))

export const topics = {
  /** The user's own topic (notifications): every socket of the user in the workspace. */
  user: (workspaceId: number, userId: number) => `w:${workspaceId}:u:${userId}`,
  /** A module's topic `name` for one user: theirs by membership, not by a permission. */
  ofUser: (workspaceId: number, userId: number, name: string) => `w:${workspaceId}:u:${userId}:${name}`,
  /** A module's workspace-wide topic `name`. */
  workspace: (workspaceId: number, name: string) => `w:${workspaceId}:${name}`,
}

/** Whether `topic` lies under the user's own prefix (`w:<wid>:u:<uid>`): joined by right, not by permission. */
const ownTopic = (topic: string, access: Pick<SocketAccess, 'userId' | 'workspaceId'>) => {
  const own = topics.user(access.workspaceId, access.userId)
  return topic === own || topic.startsWith(`${own}:`)
}

/** What a socket may see, as of its last check. */
export interface SocketAccess {
  userId: number
  workspaceId: number
  roleId: number
  /** The refresh-token family of the token's session; logging that session out closes the socket. */
  sessionId: string | null
  /** The token's `exp`, in milliseconds since the epoch. */
  expiresAt: number
  permissions: PermissionSet
}

/** Close codes of sockets whose access ended; the reason sent is the key itself. */
export const CLOSE_CODES = { TOKEN_EXPIRED: 4401, UNAUTHORIZED: 4401, FORBIDDEN: 4403 } as const
export type AccessEnded = keyof typeof CLOSE_CODES

/** How often expired tokens are closed and the auth epoch is compared (the contract allows 1 s). */
export const SWEEP_INTERVAL_MS = 250

/** How the hub re-reads access; supplied by the WebSocket route, which owns the database side. */
export interface AccessSource {
  clock: Clock
  /** The member's current role and permissions in the workspace; null when not an active member. */
  loadAccess(userId: number, workspaceId: number): Promise<Pick<SocketAccess, 'roleId' | 'permissions'> | null>
  /** Which of these sessions (refresh-token families) still have a refresh token that is not revoked. */
  liveSessions(sessionIds: readonly string[]): Promise<Set<string>>
  /** A number that changes with every write to users, memberships or roles, by any process. */
  readEpoch(): Promise<number>
}

/** What a socket may listen to. */
export type ChannelAccess = Pick<SocketAccess, 'userId' | 'workspaceId' | 'permissions'>

/**
 * A kind of pushed event a module offers, declared in its manifest: the topics of it a socket joins
 * for its access (none when the access does not allow it), and which of its event types come in floods
 * of small messages (`bulk`: the replay log keeps them apart, ./replay-log.ts).
 */
export interface SocketChannel {
  topics(access: ChannelAccess): readonly string[]
  bulk?: readonly string[]
}

/** The event types the replay log keeps in its bulk stream: every channel's `bulk`. */
export const bulkTypesOf = (channels: readonly SocketChannel[]) => channels.flatMap((channel) => channel.bulk ?? [])

interface Joined {
  topics: string[]
  /** Whether one of the topics is a bulk channel's: the socket's replay reads the bulk stream too. */
  bulk: boolean
}

/** The part of a Bun ServerWebSocket the hub uses. */
interface Socket {
  subscribe(topic: string): unknown
  unsubscribe(topic: string): unknown
  close(code?: number, reason?: string): unknown
  /** Bun's send status: bytes sent, -1 queued under backpressure (`drained` follows), 0 dropped. */
  send(payload: string): number
}

interface Connection {
  socket: Socket
  access: SocketAccess
  topics: string[]
  bulk: boolean
  /** While the socket replays: the id of the last event of the log it has read; null once live. */
  replayedTo: number | null
}

export class Hub {
  private server: Pick<Server<unknown>, 'publish' | 'subscriberCount'> | null = null
  private readonly open = new Map<Socket, Connection>()
  private source: AccessSource | null = null
  private clock: Clock = systemClock
  private sweep: ReturnType<typeof setInterval> | null = null
  /** The auth epoch the sockets were last checked against; null: not read since sockets opened. */
  private epoch: number | null = null
  private readingEpoch = false
  /** The earliest token expiry among open sockets (a lower bound: closed sockets may have held it). */
  private nextExpiry = Infinity
  /** Access re-checks running; while any does, publishes wait in `held`. */
  private rechecks = 0
  private held: [topic: string, payload: string][] = []
  /** Recent events of every workspace, for `?since=` (./replay-log.ts). */
  readonly replay: ReplayLog
  /** Sockets replaying: not yet subscribed to their topics. */
  private readonly replaying = new Set<Connection>()
  /** When the last socket left each topic (ms): until the window has passed, someone may ask for it. */
  private readonly left = new Map<string, number>()
  private pruner: ReturnType<typeof setInterval> | null = null

  private readonly channels: readonly SocketChannel[]

  /** `channels`: every module's (src/app.ts gathers them from the manifests). */
  constructor(options: { replay?: ReplayBounds; channels?: readonly SocketChannel[] } = {}) {
    this.channels = options.channels ?? []
    this.replay = new ReplayLog(options.replay ?? REPLAY_BOUNDS, bulkTypesOf(this.channels))
  }

  /** The topics `access` joins: the user's own, then every channel's. */
  topicsFor(access: ChannelAccess): Joined {
    const joined: Joined = { topics: [topics.user(access.workspaceId, access.userId)], bulk: false }
    for (const channel of this.channels) {
      const some = channel.topics(access)
      joined.topics.push(...some)
      if (some.length > 0 && channel.bulk?.length) joined.bulk = true
    }
    return joined
  }

  /** Open sockets (for the metrics page). */
  get connections(): number {
    return this.open.size
  }

  /** Sockets still replaying what they missed. */
  get replays(): number {
    return this.replaying.size
  }

  attach(server: Pick<Server<unknown>, 'publish' | 'subscriberCount'>) {
    this.server = server
    this.pruner ??= setInterval(() => this.prune(), PRUNE_INTERVAL_MS)
    this.pruner.unref?.()
  }

  detach() {
    this.server = null
    this.open.clear()
    this.held = []
    this.replaying.clear()
    this.left.clear()
    this.replay.clear()
    this.stopSweep()
    if (this.pruner) clearInterval(this.pruner)
    this.pruner = null
  }

  watchAccess(source: AccessSource) {
    this.source = source
    this.clock = source.clock
  }

  /**
   * Whether any socket listens on `topic`, replays it, or left it within the replay window (and so
   * may come back with `?since=`).
   */
  hasListeners(topic: string, now = this.now()): boolean {
    if (!this.server) return false
    if (this.rechecks > 0 || this.server.subscriberCount(topic) > 0) return true
    for (const connection of this.replaying) if (connection.topics.includes(topic)) return true
    const left = this.left.get(topic)
    return left !== undefined && now - left < this.replay.bounds.windowMs
  }

  /**
   * Numbers one event, keeps it for replay and sends it to every socket subscribed to one of `to` (all
   * of one workspace; a socket listens on at most one of them). A no-op while no server is listening.
   */
  publish(to: string | readonly string[], event: HubEvent) {
    if (!this.server) return
    const list = typeof to === 'string' ? [to] : to
    if (list.length === 0) return
    const payload = this.replay.record(workspaceOf(list[0]), list, event.type, event.data, this.now())
    if (this.rechecks > 0) {
      for (const topic of list) this.held.push([topic, payload])
      return
    }
    this.closeExpired()
    for (const topic of list) this.server.publish(topic, payload)
  }

  /**
   * One event of `type` per item, all to `topic` (the ingest path: one clock read per batch). A batch
   * nobody listens on, nor could ask to replay (`hasListeners`), is not even serialised.
   */
  publishEach(topic: string, type: string, items: readonly unknown[]) {
    if (!this.server || items.length === 0) return
    const workspaceId = workspaceOf(topic)
    const now = this.now()
    if (!this.hasListeners(topic, now)) return this.replay.skip(workspaceId, type, now)
    const list = [topic]
    const holding = this.rechecks > 0
    if (!holding) this.closeExpired()
    for (const item of items) {
      const payload = this.replay.record(workspaceId, list, type, item, now)
      if (holding) this.held.push([topic, payload])
      else this.server.publish(topic, payload)
    }
  }

  /**
   * A socket opened with `access`: it joins the topics its permissions allow — at once, or with
   * `since` (a client's last seen event id) after replaying what it missed, or after {"type":"resync"}.
   */
  register(socket: Socket, access: SocketAccess, since?: number) {
    const connection: Connection = { socket, access, ...this.topicsFor(access), replayedTo: null }
    this.open.set(socket, connection)
    this.nextExpiry = Math.min(this.nextExpiry, access.expiresAt)
    this.startSweep()
    if (since === undefined) return this.goLive(connection)
    if (!this.replay.covers(access.workspaceId, since, this.streamsOf(connection), this.now())) {
      socket.send(RESYNC_MESSAGE)
      return this.goLive(connection)
    }
    connection.replayedTo = since
    this.replaying.add(connection)
    this.pump(connection)
  }

  /** Bun drained the socket's send buffer: its replay goes on. */
  drained(socket: Socket) {
    const connection = this.open.get(socket)
    if (connection && connection.replayedTo !== null) this.pump(connection)
  }

  /** The socket closed (by either side). */
  unregister(socket: Socket) {
    const connection = this.open.get(socket)
    if (connection) this.forget(connection)
    this.open.delete(socket)
  }

  /**
   * The socket presented a newer token: it lives on with that token's expiry and the access just
   * loaded. A token of another user or workspace closes it (4401). Returns whether it is still open.
   */
  reauthorize(socket: Socket, access: SocketAccess): boolean {
    const connection = this.open.get(socket)
    if (!connection) return false
    if (access.userId !== connection.access.userId || access.workspaceId !== connection.access.workspaceId) {
      this.end(connection, 'UNAUTHORIZED')
      return false
    }
    if (!this.apply(connection, access)) return false
    this.nextExpiry = Math.min(this.nextExpiry, access.expiresAt)
    return true
  }

  /** Closes one socket because its access ended. */
  close(socket: Socket, reason: AccessEnded) {
    const connection = this.open.get(socket)
    if (connection) this.end(connection, reason)
  }

  /** After a commit that changed the user (active flag, membership, role): re-checks their sockets. */
  revalidateUser(userId: number) {
    this.recheck((connection) => connection.access.userId === userId)
  }

  /** After a commit that changed a role's permissions: re-checks the sockets of its holders. */
  revalidateRole(roleId: number) {
    this.recheck((connection) => connection.access.roleId === roleId)
  }

  /** After a logout: the user's sockets of those sessions close at once (4401 UNAUTHORIZED). */
  endSessions(userId: number, sessionIds: (string | null | undefined)[]) {
    const ended = new Set(sessionIds.filter((id): id is string => typeof id === 'string'))
    for (const connection of [...this.open.values()]) {
      const { access } = connection
      if (access.userId === userId && access.sessionId !== null && ended.has(access.sessionId)) this.end(connection, 'UNAUTHORIZED')
    }
  }

  /** Shutdown: every socket is closed with `code` (1001 going away). */
  closeAll(code: number, reason: string) {
    for (const connection of [...this.open.values()]) this.end(connection, null, code, reason)
    this.stopSweep()
  }

  private end(connection: Connection, reason: AccessEnded | null, code = reason ? CLOSE_CODES[reason] : 1000, text = reason ?? '') {
    this.open.delete(connection.socket)
    this.forget(connection)
    try {
      // Unsubscribed first: nothing published from here on reaches it, whatever the close does.
      for (const topic of connection.topics) connection.socket.unsubscribe(topic)
      connection.socket.close(code, text)
    } catch {
      // Already closed by the client.
    }
  }

  /** Moves the socket to the topics `access` allows; a lost topic that is not its own closes it (4403). */
  private apply(connection: Connection, access: SocketAccess): boolean {
    const { topics: joined, bulk } = this.topicsFor(access)
    if (connection.topics.some((topic) => !ownTopic(topic, access) && !joined.includes(topic))) {
      this.end(connection, 'FORBIDDEN')
      return false
    }
    // A replaying socket subscribes when it goes live, to the topics it holds then.
    if (connection.replayedTo === null) {
      for (const topic of joined) if (!connection.topics.includes(topic)) connection.socket.subscribe(topic)
      for (const topic of connection.topics) if (!joined.includes(topic)) connection.socket.unsubscribe(topic)
    }
    const now = this.now()
    for (const topic of connection.topics) if (!joined.includes(topic)) this.left.set(topic, now)
    connection.topics = joined
    connection.bulk = bulk
    connection.access = access
    return true
  }

  private recheck(affected: (connection: Connection) => boolean) {
    const source = this.source
    if (!source) return
    const targets = [...this.open.values()].filter(affected)
    if (targets.length === 0) return
    this.rechecks += 1
    void this.revalidate(source, targets).finally(() => {
      this.rechecks -= 1
      if (this.rechecks === 0) this.releaseHeld()
    })
  }

  /** One read of the sockets' sessions and one access read per member, then each socket kept, moved, or closed. */
  private async revalidate(source: AccessSource, targets: Connection[]) {
    // Read alongside the members' access (both are started before anything is awaited).
    const sessionsRead = source.liveSessions(targets.flatMap((connection) => (connection.access.sessionId ? [connection.access.sessionId] : [])))
    sessionsRead.catch(() => undefined)
    const byMember = new Map<string, Connection[]>()
    for (const connection of targets) {
      const key = `${connection.access.userId}:${connection.access.workspaceId}`
      byMember.set(key, [...(byMember.get(key) ?? []), connection])
    }
    await Promise.all(
      [...byMember.values()].map(async (connections) => {
        const { userId, workspaceId } = connections[0].access
        let current: Awaited<ReturnType<AccessSource['loadAccess']>>
        let live: Set<string>
        try {
          current = await source.loadAccess(userId, workspaceId)
          live = await sessionsRead
        } catch {
          // Access that cannot be confirmed is not assumed: the client reconnects and is checked afresh.
          for (const connection of connections) if (this.open.get(connection.socket) === connection) this.end(connection, null, 1011, 'internal error')
          return
        }
        for (const connection of connections) {
          if (this.open.get(connection.socket) !== connection) continue
          const { sessionId } = connection.access
          // Its session ended (signed out, every refresh token revoked), or it is no active member.
          if (!current || sessionId === null || !live.has(sessionId)) this.end(connection, 'UNAUTHORIZED')
          else this.apply(connection, { ...connection.access, ...current })
        }
      }),
    )
  }

  private releaseHeld() {
    const held = this.held
    this.held = []
    if (!this.server) return
    if (held.length > 0) {
      this.closeExpired()
      for (const [topic, payload] of held) this.server.publish(topic, payload)
    }
    // Replays paused during the re-check go on, with the access it left them.
    for (const connection of [...this.replaying]) this.pump(connection)
  }

  /** The log streams a socket's topics see: the bulk stream only with a bulk channel's topic. */
  private streamsOf(connection: Connection): StreamName[] {
    return connection.bulk ? ['other', 'bulk'] : ['other']
  }

  /**
   * Sends the socket the log's events after `replayedTo` that its topics see, until Bun reports
   * backpressure (then `drained` calls again) or the log's end (then it goes live). Paused while an
   * access re-check runs, like every publish.
   */
  private pump(connection: Connection) {
    if (this.rechecks > 0 || connection.replayedTo === null) return
    this.closeExpired()
    if (this.open.get(connection.socket) !== connection) return
    const { workspaceId } = connection.access
    const streams = this.streamsOf(connection)
    if (!this.replay.intact(workspaceId, connection.replayedTo, streams)) {
      // Evicted while this socket read slower than its workspace published: what it missed is gone.
      connection.socket.send(RESYNC_MESSAGE)
      return this.goLive(connection)
    }
    const visible = connection.topics
    for (const event of this.replay.after(workspaceId, connection.replayedTo, streams)) {
      connection.replayedTo = event.id
      if (!event.topics.some((topic) => visible.includes(topic))) continue
      const status = connection.socket.send(event.payload)
      if (status === -1) return
      if (status === 0) {
        // Dropped: the socket is gone or over its backpressure limit; the client reconnects with since.
        this.end(connection, null, 1011, 'replay interrupted')
        return
      }
    }
    this.goLive(connection)
  }

  /** Subscribes the socket to its topics; from here on it gets events as they are published. */
  private goLive(connection: Connection) {
    connection.replayedTo = null
    this.replaying.delete(connection)
    for (const topic of connection.topics) connection.socket.subscribe(topic)
  }

  /** The socket no longer listens: its topics count as left now. */
  private forget(connection: Connection) {
    this.replaying.delete(connection)
    const now = this.now()
    for (const topic of connection.topics) this.left.set(topic, now)
  }

  private prune() {
    const now = this.now()
    this.replay.prune(now)
    for (const [topic, at] of this.left) if (now - at >= this.replay.bounds.windowMs) this.left.delete(topic)
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /** Closes the sockets whose token expired; one comparison when none has. */
  private closeExpired() {
    const now = this.now()
    if (now < this.nextExpiry) return
    let next = Infinity
    for (const connection of [...this.open.values()]) {
      if (connection.access.expiresAt <= now) this.end(connection, 'TOKEN_EXPIRED')
      else next = Math.min(next, connection.access.expiresAt)
    }
    this.nextExpiry = next
  }

  private startSweep() {
    if (this.sweep) return
    this.sweep = setInterval(() => void this.tick(), SWEEP_INTERVAL_MS)
    this.sweep.unref?.()
  }

  private stopSweep() {
    if (this.sweep) clearInterval(this.sweep)
    this.sweep = null
    this.epoch = null
    this.nextExpiry = Infinity
  }

  private async tick() {
    if (this.open.size === 0) return this.stopSweep()
    this.closeExpired()
    if (!this.source || this.readingEpoch) return
    this.readingEpoch = true
    try {
      const epoch = await this.source.readEpoch()
      if (epoch !== this.epoch) {
        this.epoch = epoch
        this.recheck(() => true)
      }
    } catch {
      // Read again on the next tick.
    } finally {
      this.readingEpoch = false
    }
  }
}
