/**
 * The replay log: the events the hub pushed lately, kept per workspace, so that a client reconnecting
 * with `?since=<id>` gets exactly what it missed (docs/API.md §Real-time socket).
 *
 * Ids. Every event gets an id from its workspace's counter: the larger of (the previous id + 1) and
 * (the clock in milliseconds × 1000). Ids therefore increase within a workspace for the life of the
 * process — also when the clock steps back — and keep increasing across a restart without writing
 * anything to the database, as long as the clock does not step back across the restart and a
 * workspace publishes fewer than 1,000 events per millisecond. Ids are not consecutive: a client must
 * not read a jump as a lost event. Two processes on one database number their events independently
 * (each knows only the events it published itself).
 *
 * What is kept. Each event is stored once, as the serialised message every socket receives, with the
 * topics that may see it. Per workspace there are two streams with bounds of their own, so that a
 * flood of small events (the live map's `location.created`) never pushes out a field user's
 * notifications:
 *   bulk   the event types modules declare bulk (./hub.ts SocketChannel)  at most REPLAY_BOUNDS.bulk
 *   other  every other type                                                 at most REPLAY_BOUNDS.other
 * Each stream keeps the events of the last `windowMs` (10 minutes) that fit its bounds, and all
 * streams of all workspaces together at most `maxTotalBytes`. Past a bound the oldest events go first:
 * past a stream's own bound, that stream's oldest; past the total, those of the stream holding the
 * oldest event of the process (a megabyte at a time). An event counts as its message's length plus
 * ENTRY_OVERHEAD_BYTES.
 *
 * A flood. A stream whose bound holds less than `flood.spanMs` (a minute) of its events — a
 * workspace sending over ~1,100 pings a second — keeps none: what it could keep would cover seconds
 * at most, and at the ingest benchmark's rate milliseconds, shorter than any reconnect, while every
 * kept message is a string the collector must carry (keeping the newest 2,500 cost the ingest ~8%,
 * docs/PERFORMANCE.md §Replay log). Its events are numbered and sent as always; each is the stream's
 * new floor at once, so a replay across it resyncs. The stream keeps events again once, over a window
 * of FLOOD_RATE_WINDOW_MS, its rate would fit a minute into its bound.
 * A flood is told before the bound is full: once a stream holds FLOOD_PROBE_SHARE of its bound and its
 * events span at least FLOOD_RATE_WINDOW_MS (a burst shorter than that, a phone's backlog, is kept while
 * it fits), every FLOOD_PROBE_EVERY events it projects its rate so far onto the whole bound, and a
 * bound that would hold less than the flood span is a flood at once. Otherwise a flood filled the whole bound first —
 * 32 MiB of strings, at the ingest benchmark's rate in under 3 s — only to drop it: the largest part
 * of the process's peak under ingest with the live map open (docs/PERFORMANCE.md "Memory budget").
 *
 * The floor. A stream's `floor` is the id of the newest event it no longer holds (at first, the id
 * its workspace started from). A client that saw `since` missed nothing of that stream if
 * `since >= floor`: every later event is still there. Below the floor it may have missed an evicted
 * event, and is told to resync. Events nobody could ask for are not stored at all (`skip`): the
 * skipped event takes an id and is the new floor at once.
 */

/** Bounds of one stream of one workspace. */
export interface StreamBounds {
  maxEvents: number
  maxBytes: number
}

export interface ReplayBounds {
  /** Events younger than this are kept (within the other bounds). */
  windowMs: number
  bulk: StreamBounds
  other: StreamBounds
  /** A stream whose own bound holds less than `spanMs` of its events keeps none (see the top of this file). */
  flood: { spanMs: number }
  /** All streams of all workspaces together. */
  maxTotalBytes: number
}

const MiB = 1024 * 1024

/** docs/API.md §Real-time socket and README.md state these numbers; change them together. */
export const REPLAY_BOUNDS: ReplayBounds = {
  windowMs: 10 * 60_000,
  bulk: { maxEvents: 100_000, maxBytes: 32 * MiB },
  other: { maxEvents: 20_000, maxBytes: 8 * MiB },
  flood: { spanMs: 60_000 },
  maxTotalBytes: 128 * MiB,
}

/**
 * What an event costs beyond its message's characters: the entry object, its slot in the array and
 * the string's header (docs/PERFORMANCE.md §Replay log has the measurement).
 */
export const ENTRY_OVERHEAD_BYTES = 104

/** Past the total, this much more is freed at once, so that the streams are not scanned per event. */
const TOTAL_SLACK_BYTES = MiB

/** How long a flooded stream counts its events before it decides whether the flood is over. */
export const FLOOD_RATE_WINDOW_MS = 1000

/** From this share of its bound on, a stream checks whether its rate makes it a flood (see the top of this file). */
export const FLOOD_PROBE_SHARE = 1 / 8
/** How often (in events) such a stream checks. */
export const FLOOD_PROBE_EVERY = 256

export interface LoggedEvent {
  id: number
  /** When it was published (ms since the epoch, by the hub's clock). */
  at: number
  /** The topics that may see it; a socket sees it when it listens on one of them. */
  topics: readonly string[]
  /** The message as sent: `{"type":…,"id":…,"data":…}`. */
  payload: string
  size: number
}

export type StreamName = 'bulk' | 'other'

/** One stream: a queue of events in id order, oldest at `head`. */
class Stream {
  private entries: (LoggedEvent | undefined)[] = []
  private head = 0
  bytes = 0
  /** Keeping nothing (see the top of this file); while it is, the events and bytes seen since `windowStart`. */
  flooded = false
  windowStart = 0
  windowEvents = 0
  windowBytes = 0

  constructor(
    readonly bounds: () => StreamBounds,
    public floor: number,
  ) {}

  get size(): number {
    return this.entries.length - this.head
  }

  get oldest(): LoggedEvent | undefined {
    return this.entries[this.head]
  }

  push(event: LoggedEvent) {
    this.entries.push(event)
    this.bytes += event.size
  }

  /** Drops the oldest event; returns its size. */
  shift(): number {
    const event = this.entries[this.head]!
    this.entries[this.head] = undefined
    this.head += 1
    this.bytes -= event.size
    this.floor = event.id
    // Compact once the dropped slots are the larger half: amortised O(1) per event.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
    return event.size
  }

  /** The position of the first event with an id above `after` (binary search: ids increase). */
  positionAfter(after: number): number {
    let low = this.head
    let high = this.entries.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.entries[middle]!.id <= after) low = middle + 1
      else high = middle
    }
    return low
  }

  at(position: number): LoggedEvent | undefined {
    return position < this.entries.length ? this.entries[position] : undefined
  }

  clear() {
    this.entries = []
    this.head = 0
    this.bytes = 0
  }
}

class WorkspaceLog {
  readonly streams: Record<StreamName, Stream>

  constructor(
    public lastId: number,
    bounds: () => ReplayBounds,
  ) {
    this.streams = {
      bulk: new Stream(() => bounds().bulk, lastId),
      other: new Stream(() => bounds().other, lastId),
    }
  }
}

export class ReplayLog {
  private readonly logs = new Map<number, WorkspaceLog>()
  private total = 0

  private readonly bulkTypes: ReadonlySet<string>

  /** `bulkTypes`: the event types kept in the bulk stream. */
  constructor(
    public bounds: ReplayBounds = REPLAY_BOUNDS,
    bulkTypes: Iterable<string> = [],
  ) {
    this.bulkTypes = new Set(bulkTypes)
  }

  streamOf(type: string): StreamName {
    return this.bulkTypes.has(type) ? 'bulk' : 'other'
  }

  /** Bytes held by all streams (messages plus ENTRY_OVERHEAD_BYTES each). */
  get bytes(): number {
    return this.total
  }

  /** Events held by all streams. */
  get events(): number {
    let count = 0
    for (const log of this.logs.values()) count += log.streams.bulk.size + log.streams.other.size
    return count
  }

  /** The newest id of the workspace (its starting point if it has published nothing). */
  lastId(workspaceId: number, now: number): number {
    return this.log(workspaceId, now).lastId
  }

  /**
   * Numbers, serialises and stores one event; returns the message to send. All `topics` belong to
   * `workspaceId`; the caller may share one `topics` array between events.
   */
  record(workspaceId: number, topics: readonly string[], type: string, data: unknown, now: number): string {
    const log = this.log(workspaceId, now)
    const id = Math.max(log.lastId + 1, now * 1000)
    log.lastId = id
    const payload = JSON.stringify({ type, id, data })
    const size = payload.length + ENTRY_OVERHEAD_BYTES
    const stream = log.streams[this.streamOf(type)]
    if (stream.flooded && this.stillFlooded(stream, size, now)) {
      stream.floor = id
      return payload
    }
    stream.push({ id, at: now, topics, payload, size })
    this.total += size
    this.trim(stream, now)
    if (this.total > this.bounds.maxTotalBytes) this.trimTotal()
    return payload
  }

  /** An event of `type` that nobody could ask for was not stored: replays across it resync. */
  skip(workspaceId: number, type: string, now: number) {
    const log = this.log(workspaceId, now)
    log.lastId += 1
    const stream = log.streams[this.streamOf(type)]
    while (stream.size > 0) this.total -= stream.shift()
    stream.floor = log.lastId
  }

  /**
   * Whether a client that saw `since` can be given everything after it on the `streams` it sees:
   * `since` is an id this workspace issued (not above its newest) and not below those streams' floors.
   */
  covers(workspaceId: number, since: number, streams: readonly StreamName[], now: number): boolean {
    const log = this.log(workspaceId, now)
    for (const name of streams) this.trim(log.streams[name], now)
    return since <= log.lastId && streams.every((name) => since >= log.streams[name].floor)
  }

  /**
   * The events after `after` on `streams`, merged in id order. Read it without publishing in between
   * (the caller may stop early and read again from the last id it took); `intact` tells whether an
   * event after `after` has been evicted since.
   */
  *after(workspaceId: number, after: number, streams: readonly StreamName[]): Generator<LoggedEvent, void, undefined> {
    const log = this.logs.get(workspaceId)
    if (!log) return
    const chosen = streams.map((name) => log.streams[name])
    const positions = chosen.map((stream) => stream.positionAfter(after))
    for (;;) {
      let pick = -1
      for (let i = 0; i < chosen.length; i++) {
        const candidate = chosen[i].at(positions[i])
        if (candidate && (pick < 0 || candidate.id < chosen[pick].at(positions[pick])!.id)) pick = i
      }
      if (pick < 0) return
      yield chosen[pick].at(positions[pick])!
      positions[pick] += 1
    }
  }

  /** Whether every event after `after` on `streams` is still held. */
  intact(workspaceId: number, after: number, streams: readonly StreamName[]): boolean {
    const log = this.logs.get(workspaceId)
    return !log || streams.every((name) => after >= log.streams[name].floor)
  }

  /** Drops what is older than the window in every workspace (the rest is trimmed as events arrive). */
  prune(now: number) {
    for (const log of this.logs.values()) for (const stream of Object.values(log.streams)) this.trim(stream, now)
  }

  clear() {
    this.logs.clear()
    this.total = 0
  }

  private log(workspaceId: number, now: number): WorkspaceLog {
    let log = this.logs.get(workspaceId)
    if (!log) {
      log = new WorkspaceLog(now * 1000, () => this.bounds)
      this.logs.set(workspaceId, log)
    }
    return log
  }

  /** The stream's own bounds and the window; a bound that holds less than the flood span starts a flood. */
  private trim(stream: Stream, now: number) {
    const { maxEvents, maxBytes } = stream.bounds()
    if (stream.size % FLOOD_PROBE_EVERY === 0 && this.projectedFlood(stream, now, maxEvents, maxBytes)) return this.startFlood(stream, now)
    const expired = now - this.bounds.windowMs
    for (;;) {
      const oldest = stream.oldest
      if (!oldest) return
      const overBound = stream.size > maxEvents || stream.bytes > maxBytes
      if (oldest.at > expired && !overBound) return
      if (overBound && now - oldest.at < this.bounds.flood.spanMs) return this.startFlood(stream, now)
      this.total -= stream.shift()
    }
  }

  /**
   * Whether a stream holding at least FLOOD_PROBE_SHARE of its bound, over at least FLOOD_RATE_WINDOW_MS,
   * fills it at the rate of the events it holds in less than the flood span.
   */
  private projectedFlood(stream: Stream, now: number, maxEvents: number, maxBytes: number): boolean {
    const oldest = stream.oldest
    if (!oldest) return false
    const filled = Math.max(stream.size / maxEvents, stream.bytes / maxBytes)
    const span = now - oldest.at
    return filled >= FLOOD_PROBE_SHARE && span >= FLOOD_RATE_WINDOW_MS && span < this.bounds.flood.spanMs * filled
  }

  /** Drops everything the stream holds: its newest event becomes its floor. */
  private startFlood(stream: Stream, now: number) {
    while (stream.size > 0) this.total -= stream.shift()
    stream.flooded = true
    stream.windowStart = now
    stream.windowEvents = 0
    stream.windowBytes = 0
  }

  /**
   * Counts one more event of a flooded stream; once a window has passed, the flood ends if at the
   * window's rate the stream's bound would hold a flood span of events. A clock that stepped back
   * starts the window again.
   */
  private stillFlooded(stream: Stream, size: number, now: number): boolean {
    const elapsed = now - stream.windowStart
    if (elapsed < 0) stream.windowStart = now
    else if (elapsed >= FLOOD_RATE_WINDOW_MS) {
      const { maxEvents, maxBytes } = stream.bounds()
      const perSpan = this.bounds.flood.spanMs / elapsed
      // The event being recorded counts: after a quiet window it alone decides.
      if ((stream.windowEvents + 1) * perSpan <= maxEvents && (stream.windowBytes + size) * perSpan <= maxBytes) {
        stream.flooded = false
        return false
      }
      stream.windowStart = now
      stream.windowEvents = 0
      stream.windowBytes = 0
    }
    stream.windowEvents += 1
    stream.windowBytes += size
    return true
  }

  /**
   * Past the total: the stream holding the oldest event of the process gives up its oldest events,
   * down to TOTAL_SLACK_BYTES under the total (or until it is empty, then the next such stream).
   */
  private trimTotal() {
    const target = Math.max(0, this.bounds.maxTotalBytes - TOTAL_SLACK_BYTES)
    while (this.total > target) {
      let oldest: Stream | null = null
      for (const log of this.logs.values()) {
        for (const stream of Object.values(log.streams)) {
          const first = stream.oldest
          if (first && (!oldest || first.at < oldest.oldest!.at)) oldest = stream
        }
      }
      if (!oldest) return
      while (this.total > target && oldest.size > 0) this.total -= oldest.shift()
    }
  }
}
