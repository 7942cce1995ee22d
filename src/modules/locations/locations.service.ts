/**
 * Location pings (docs/API.md §Location tracking): the hot write path of the service.
 *
 * A batch of 1–50 pings is all or nothing and is written as ONE multi-row prepared INSERT in one
 * transaction. Phones resend their backlog (at-least-once): a ping whose device time the user already
 * stored is skipped by the unique index, so `count` is what was actually saved. Each user's newest
 * ping by device time is kept in `latest_locations`, moved only forward, so the live map is one
 * indexed read and a late backlog never drags a user back. After commit, each saved ping goes to
 * the workspace's live-map sockets.
 */
import { desc, eq, gte, lte, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared, runPositional } from '../../db/prepared'
import { latestLocations, locationPings, users, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { dateBound, parseDateTime } from '../../lib/dates'
import { ValidationFailed } from '../../lib/errors'
import type { ListLimits } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import type { PingTrail, TrailPoint } from './ping-trail'
import { livemapTopic, PINGS_INGESTED } from './locations.manifest'
import { JUMP_BITS, jumpFlags, PING_FLAG_BITS, pingFlagBits, pingFlagMask, pingFlagNames, type PingFlag, type TrackPoint } from '../../lib/geo'
import { type HistoryQuery, type Ping, type PingInput, PINGS_PER_BATCH } from './locations.schemas'

export const FUTURE_TOLERANCE_MS = 5 * 60 * 1000
export const HISTORY_LIST: ListLimits = { defaultLimit: 100, maxLimit: 1000 }
/** A user's pings (append-only: no soft delete; the retention job removes old ones). */
export const pingScope = workspaceScoped(locationPings)
/** The newest ping of each user of a workspace. */
export const latestLocationScope = workspaceScoped(latestLocations)
/** Visits named by a batch's pings (visits.queries.ts owns their scope; importing it would make a cycle). */
const visitScope = workspaceScoped(visits)

const COLUMNS = [
  'workspace_id',
  'user_id',
  'visit_id',
  'lat',
  'lng',
  'accuracy_m',
  'speed_mps',
  'source',
  'battery_level',
  'is_mock',
  'signal_quality',
  'recorded_at',
  'device_time',
  'flags',
  'created_at',
  'updated_at',
] as const

/** A saved ping as the API shows it; in code, its flags are names. */
type SavedPing = Omit<Ping, 'flags'> & { flags: PingFlag[] }

/** A batch of `rows` pings as one multi-row INSERT; duplicates of device time are skipped. */
const insertText = (rows: number) =>
  `insert into location_pings (${COLUMNS.join(', ')}) values ${Array(rows)
    .fill(`(${COLUMNS.map(() => '?').join(', ')})`)
    .join(', ')}
   on conflict do nothing`
const INSERT_TEXT = Array.from({ length: PINGS_PER_BATCH + 1 }, (_, rows) => (rows ? insertText(rows) : ''))

/** One ping as the batch insert binds it: the saved ping's fields of the request, plus `device_time` and the flag bits. */
export type PingRow = Omit<SavedPing, 'id' | 'workspace_id' | 'user_id' | 'updated_at' | 'flags'> & { device_time: boolean; flag_bits: number }

/** A saved ping: the row sent, its id, and who sent it. Spelled out: object spreads per ping are a measurable share of a batch's CPU. */
function savedPing(row: PingRow, id: number, workspaceId: number, userId: number): SavedPing {
  return {
    id,
    workspace_id: workspaceId,
    user_id: userId,
    visit_id: row.visit_id,
    lat: row.lat,
    lng: row.lng,
    accuracy_m: row.accuracy_m,
    speed_mps: row.speed_mps,
    source: row.source,
    battery_level: row.battery_level,
    is_mock: row.is_mock,
    signal_quality: row.signal_quality,
    recorded_at: row.recorded_at,
    flags: pingFlagNames(row.flag_bits),
    created_at: row.created_at,
    updated_at: row.created_at,
  }
}

/**
 * The saved pings of a batch some of whose rows were skipped, from its rows and the rows the insert
 * added (`id, recorded_at, device_time`: the rest is what was sent). Rowids grow in VALUES order, so
 * the added rows sorted by id are the inserted rows in batch order; a row is skipped exactly when it
 * repeats a device time that is stored already or came earlier in the batch, so matching in order
 * pairs each id with its row.
 */
export function savedPings(
  rows: PingRow[],
  stored: { id: number; recorded_at: string; device_time: number | boolean }[],
  workspaceId: number,
  userId: number,
): SavedPing[] {
  const ids = [...stored].sort((a, b) => a.id - b.id)
  const saved: SavedPing[] = []
  let next = 0
  for (const row of rows) {
    const candidate = ids[next]
    if (!candidate || candidate.recorded_at !== row.recorded_at || Boolean(candidate.device_time) !== row.device_time) continue
    next++
    saved.push(savedPing(row, candidate.id, workspaceId, userId))
  }
  if (next !== ids.length) throw new Error(`batch insert added ${ids.length} rows, matched ${next}`)
  return saved
}

/** The largest ping id so far: every row a batch inserts after this read gets a larger one. */
const lastPingId = prepared((db) =>
  db
    .select({ id: sql<number | null>`max(${locationPings.id})` })
    .from(locationPings)
    .prepare(),
)

/**
 * The pings of the user added after `after` (the rows of this transaction's insert): a range of
 * rowids. The unary `+` keeps SQLite off the (workspace, user, time) index, which it would otherwise
 * pick and walk through the user's whole history.
 */
const pingsAddedAfter = prepared((db) =>
  db
    .select({ id: locationPings.id, recorded_at: locationPings.recorded_at, device_time: locationPings.device_time })
    .from(locationPings)
    .where(
      sql`${locationPings.id} > ${sql.placeholder('after')}
        and ${pingScope.whereUnindexed(sql.placeholder('workspaceId'))}
        and +${locationPings.user_id} = ${sql.placeholder('userId')}`,
    )
    .prepare(),
)

/** Moves a user's latest ping forward only (device time), never back. */
const upsertLatest = prepared((db) =>
  db
    .insert(latestLocations)
    .values(Object.fromEntries(['ping_id', ...COLUMNS.filter((c) => c !== 'device_time')].map((column) => [column, sql.placeholder(column)])) as never)
    .onConflictDoUpdate({
      target: [latestLocations.workspace_id, latestLocations.user_id],
      set: Object.fromEntries(
        ['ping_id', ...COLUMNS.filter((c) => c !== 'device_time' && c !== 'workspace_id' && c !== 'user_id')].map((column) => [
          column,
          sql.raw(`excluded.${column}`),
        ]),
      ),
      setWhere: sql`excluded.recorded_at > ${latestLocations.recorded_at} or (excluded.recorded_at = ${latestLocations.recorded_at} and excluded.ping_id > ${latestLocations.ping_id})`,
    })
    .prepare(),
)

/**
 * The user's pings with device time around a batch: the last KEPT one (no jump flag) before `from`
 * and every one in [from, to] with its flags, oldest first: what the jump flags of the batch's pings
 * are measured against.
 */
const pingsAround = prepared((db) =>
  db
    .select({ lat: locationPings.lat, lng: locationPings.lng, recorded_at: locationPings.recorded_at, flags: locationPings.flags })
    .from(locationPings)
    .where(
      sql`${pingScope.where(sql.placeholder('workspaceId'))} and ${locationPings.user_id} = ${sql.placeholder('userId')}
        and ${locationPings.device_time} = 1 and ${locationPings.recorded_at} <= ${sql.placeholder('to')}
        and ${locationPings.recorded_at} >= coalesce((
          select p.recorded_at from location_pings p
          where ${pingScope.as('p').where(sql.placeholder('workspaceId'))} and p.user_id = ${sql.placeholder('userId')} and p.device_time = 1
            and p.recorded_at < ${sql.placeholder('from')} and p.flags & ${sql.raw(String(JUMP_BITS))} = 0
          order by p.recorded_at desc limit 1), ${sql.placeholder('from')})`,
    )
    .orderBy(locationPings.recorded_at)
    .prepare(),
)

/** The user's newest stored KEPT ping (device time, no jump flag): what ./ping-trail.ts keeps once read. */
const newestKeptPing = prepared((db) =>
  db
    .select({ lat: locationPings.lat, lng: locationPings.lng, recorded_at: locationPings.recorded_at })
    .from(locationPings)
    .where(
      sql`${pingScope.where(sql.placeholder('workspaceId'))} and ${locationPings.user_id} = ${sql.placeholder('userId')} and ${locationPings.device_time} = 1
        and ${locationPings.flags} & ${sql.raw(String(JUMP_BITS))} = 0`,
    )
    .orderBy(desc(locationPings.recorded_at))
    .limit(1)
    .prepare(),
)

async function newestKept(tx: Db, trail: PingTrail, workspaceId: number, userId: number): Promise<TrailPoint | null> {
  const known = trail.get(workspaceId, userId)
  if (known !== undefined) return known
  const row = await newestKeptPing(tx).get({ workspaceId, userId })
  return row ? { lat: row.lat, lng: row.lng, at: Date.parse(row.recorded_at) } : null
}

/**
 * Sets each row's jump flags (docs/API.md §Field integrity) against the last KEPT ping before it by
 * device time — the last one not itself flagged as a jump — among the stored pings and the batch
 * itself. So one glitch flags one ping: the true ping after it is judged against the true ping before
 * it, not against the glitch (a real move far away is accepted again once the time since the last kept
 * ping makes it possible: 20 km after about 5 minutes at 70 m/s). Pings without device time carry the
 * server's receive time, which says nothing about how fast the phone moved: they are neither flagged
 * nor compared with.
 *
 * The trail holds the newest kept ping; every stored ping after it is a jump, so a batch recorded after
 * it needs only that one (no read). A late backlog reaching back before it reads the stored pings around
 * it; flags already stored are never rewritten, so a backlog filling a hole judges only its own pings.
 * Returns the newest kept device-time ping once the batch is in, for the trail.
 */
async function flagJumps(tx: Db, trail: PingTrail, rows: PingRow[], times: (number | null)[], workspaceId: number, userId: number) {
  const timeline: (TrackPoint & { row: PingRow | null })[] = []
  let from = Infinity
  let to = -Infinity
  rows.forEach((row, index) => {
    const at = times[index]
    if (at == null) return
    timeline.push({ lat: row.lat, lng: row.lng, at, row })
    if (at < from) from = at
    if (at > to) to = at
  })
  const newest = await newestKept(tx, trail, workspaceId, userId)
  if (!timeline.length) return newest
  if (newest === null || newest.at < from) {
    if (newest) timeline.push({ ...newest, row: null })
  } else {
    const stored = await pingsAround(tx).all({ workspaceId, userId, from: new Date(from).toISOString(), to: new Date(to).toISOString() })
    // A stored jump is never a predecessor, so it is left out of the timeline altogether.
    for (const ping of stored) if ((ping.flags & JUMP_BITS) === 0) timeline.push({ lat: ping.lat, lng: ping.lng, at: Date.parse(ping.recorded_at), row: null })
  }
  // Stable: of two pings with one device time, the stored one (pushed last) stays after the batch's,
  // and of the batch's own, the first sent — the one the de-duplicating insert keeps.
  timeline.sort((a, b) => a.at - b.at)
  let previous: TrackPoint | null = null
  let last: TrailPoint | null = newest
  for (const point of timeline) {
    if (point.row) {
      point.row.flag_bits |= pingFlagMask(false, jumpFlags(previous, point))
      if (point.row.flag_bits & JUMP_BITS) continue
    }
    previous = point
    if (point.row && (last === null || point.at > last.at)) last = { lat: point.lat, lng: point.lng, at: point.at }
  }
  return last
}

/** Visit ids of the workspace among a JSON list: one prepared statement for any number of ids. */
const knownVisits = prepared((db) =>
  db
    .select({ id: visits.id })
    .from(visits)
    .where(visitScope.whereIncludingDeleted(sql.placeholder('workspaceId'), sql`${visits.id} in (select value from json_each(${sql.placeholder('ids')}))`))
    .prepare(),
)

/**
 * Writes a batch's rows with one statement and answers the pings saved, with their ids. Without
 * RETURNING (a large share of the insert's cost): when every row went in, their ids are the consecutive
 * rowids ending at the last one; when duplicates were skipped, the rows added after the largest id
 * read before the insert are read back and paired with the rows sent.
 */
async function insertPings(tx: Db, rows: PingRow[], workspaceId: number, userId: number): Promise<SavedPing[]> {
  const params: (string | number | null)[] = []
  for (const row of rows) {
    params.push(workspaceId, userId, row.visit_id, row.lat, row.lng, row.accuracy_m, row.speed_mps, row.source, row.battery_level)
    params.push(row.is_mock ? 1 : 0, row.signal_quality, row.recorded_at, row.device_time ? 1 : 0, row.flag_bits, row.created_at, row.created_at)
  }
  const [{ id: before }] = await lastPingId(tx).all()
  const { changes, lastInsertRowid } = await runPositional(tx, INSERT_TEXT[rows.length], params)
  if (changes === 0) return []
  const first = lastInsertRowid - rows.length + 1
  if (changes === rows.length && first > (before ?? 0)) return rows.map((row, index) => savedPing(row, first + index, workspaceId, userId))
  return savedPings(rows, await pingsAddedAfter(tx).all({ after: before ?? 0, workspaceId, userId }), workspaceId, userId)
}

/**
 * The rows a batch inserts, with each ping's device time (null: none sent, the receive time stands
 * in) and the errors found without the database (a device time too far in the future).
 */
function batchRows(pings: PingInput[], now: Date) {
  const nowIso = now.toISOString()
  const errors: Record<string, string[]> = {}
  const deviceTimes: (number | null)[] = []
  const rows = pings.map((ping, index): PingRow => {
    let recordedAt = nowIso
    let deviceTime: number | null = null
    if (ping.recorded_at != null) {
      deviceTime = parseDateTime(ping.recorded_at)!
      if (deviceTime > now.getTime() + FUTURE_TOLERANCE_MS) errors[`pings.${index}.recorded_at`] = ['must not be more than 5 minutes in the future']
      recordedAt = new Date(deviceTime).toISOString()
    }
    deviceTimes.push(deviceTime)
    return {
      visit_id: ping.visit_id ?? null,
      lat: ping.lat,
      lng: ping.lng,
      accuracy_m: ping.accuracy_m ?? null,
      speed_mps: ping.speed_mps ?? null,
      source: ping.source ?? null,
      battery_level: ping.battery_level ?? null,
      is_mock: ping.is_mock,
      signal_quality: ping.signal_quality ?? null,
      recorded_at: recordedAt,
      device_time: ping.recorded_at != null,
      flag_bits: ping.is_mock ? PING_FLAG_BITS.mock : 0,
      created_at: nowIso,
    }
  })
  return { rows, deviceTimes, errors }
}

/** Refuses the batch (400, errors.pings.N.visit_id) when a row names a visit the workspace does not have. */
async function assertVisitsKnown(tx: Db, rows: PingRow[], workspaceId: number, errors: Record<string, string[]>) {
  const visitIds = [...new Set(rows.map((row) => row.visit_id).filter((id): id is number => id !== null))]
  if (!visitIds.length) return
  const known = new Set((await knownVisits(tx).all({ workspaceId, ids: JSON.stringify(visitIds) })).map((row) => row.id))
  rows.forEach((row, index) => {
    if (row.visit_id !== null && !known.has(row.visit_id)) errors[`pings.${index}.visit_id`] = [`visit ${row.visit_id} does not exist`]
  })
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
}

/** Moves the user's latest ping to the newest saved one (device time, then id), if it is newer. */
async function moveLatest(tx: Db, inserted: SavedPing[]) {
  const newest = inserted.reduce<SavedPing | null>(
    (best, ping) => (!best || ping.recorded_at > best.recorded_at || (ping.recorded_at === best.recorded_at && ping.id > best.id) ? ping : best),
    null,
  )
  if (!newest) return
  const { id, flags, ...latest } = newest
  await upsertLatest(tx).run({ ...latest, flags: pingFlagBits(flags), ping_id: id })
}

export async function ingestPings(ctx: AuthedContext, pings: PingInput[]): Promise<{ count: number }> {
  const { workspaceId, userId } = ctx.actor
  const { rows, deviceTimes, errors } = batchRows(pings, ctx.deps.clock.now())
  const trail = ctx.deps.pingTrail
  let saved: SavedPing[]
  try {
    saved = await withTransaction(
      ctx,
      async ({ tx }) => {
        // Refused only here, after the idempotency key was checked: a retry of a saved batch is a 204
        // even if the clock has stepped back since (the route skips the check before the handler).
        if (Object.keys(errors).length) throw new ValidationFailed(errors)
        await assertVisitsKnown(tx, rows, workspaceId, errors)
        const newest = await flagJumps(tx, trail, rows, deviceTimes, workspaceId, userId)
        const inserted = await insertPings(tx, rows, workspaceId, userId)
        await moveLatest(tx, inserted)
        trail.set(workspaceId, userId, newest)
        return inserted
      },
      // Pings are themselves an immutable record; docs/API.md §Audit log leaves batches unaudited.
      { audit: 'none' },
    )
  } catch (error) {
    // The transaction may have set the entry before it failed to commit (./ping-trail.ts).
    trail.forget(workspaceId, userId)
    throw error
  }

  ctx.deps.metrics.add(PINGS_INGESTED, saved.length)
  ctx.deps.hub.publishEach(livemapTopic(workspaceId), 'location.created', saved)
  return { count: saved.length }
}

/** The columns a stored ping and a user's latest ping share, after `id, workspace_id, user_id` (in answer order). */
const pingFields = (table: typeof locationPings | typeof latestLocations) => ({
  visit_id: table.visit_id,
  lat: table.lat,
  lng: table.lng,
  accuracy_m: table.accuracy_m,
  speed_mps: table.speed_mps,
  source: table.source,
  battery_level: table.battery_level,
  is_mock: table.is_mock,
  signal_quality: table.signal_quality,
  recorded_at: table.recorded_at,
  flags: table.flags,
  created_at: table.created_at,
  updated_at: table.updated_at,
})

const pingColumns = { id: locationPings.id, workspace_id: locationPings.workspace_id, user_id: locationPings.user_id, ...pingFields(locationPings) }

const latestColumns = {
  id: latestLocations.ping_id,
  workspace_id: latestLocations.workspace_id,
  user_id: latestLocations.user_id,
  user_name: users.name,
  ...pingFields(latestLocations),
}

/** A stored ping as the API shows it: flag bits as names. */
const withFlagNames = <T extends { flags: number }>(row: T) => ({ ...row, flags: pingFlagNames(row.flags) })

const pingList = defineList({
  scope: pingScope,
  select: (db, where) => db.select(pingColumns).from(locationPings).where(where),
  filters: {
    user_id: (id: number) => eq(locationPings.user_id, id),
    visit_id: (id: number) => eq(locationPings.visit_id, id),
    date_from: (date: string, ctx) => gte(locationPings.recorded_at, dateBound(date, 'date_from', ctx.actor.timeZone).at),
    date_to: (date: string, ctx) => {
      const to = dateBound(date, 'date_to', ctx.actor.timeZone)
      return to.inclusive ? lte(locationPings.recorded_at, to.at) : sql`${locationPings.recorded_at} < ${to.at}`
    },
  },
  sort: { recorded_at: locationPings.recorded_at },
  defaultSort: { sort_by: 'recorded_at', sort_order: 'desc' },
  limits: HISTORY_LIST,
})

/** History, newest first by device time (ties by id); date filters apply to recorded_at. */
export async function listPings(ctx: AuthedContext, query: HistoryQuery) {
  const result = await pingList(ctx, query)
  return { rows: result.rows.map(withFlagNames), meta: result.meta }
}

/** The newest ping of every user of the workspace, newest first. */
export async function latestPings(ctx: AuthedContext) {
  return ctx.deps.db.read
    .select(latestColumns)
    .from(latestLocations)
    .innerJoin(users, eq(users.id, latestLocations.user_id))
    .where(latestLocationScope.where(ctx.actor.workspaceId))
    .orderBy(desc(latestLocations.recorded_at))
    .then((rows) => rows.map(withFlagNames))
}
