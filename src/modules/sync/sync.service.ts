/**
 * Phone sync and the office change feed over one change log (the `changes` table, written by the
 * triggers the modules' `syncFeed` declarations generate, src/platform/sync-feed.ts; docs/API.md §Sync
 * and change feed).
 *
 * Why following the cursor never misses a change committed before the request:
 * - Writers are serialised (one writer connection, or SQLite's write lock on libSQL), so `seq`
 *   (AUTOINCREMENT) is handed out in commit order. A group commit (src/db/group-commit.ts) makes
 *   several transactions one COMMIT; their rows are numbered in order inside it, and a reader sees
 *   the whole group or none of it. A rolled-back savepoint may free numbers again, but nobody saw them.
 * - So in any snapshot, every change numbered at or below the highest number visible is committed
 *   and visible: there are no holes that fill in later.
 * - A page first reads that highest number (`upto`, one snapshot), then reads the rows in
 *   (cursor, upto] (a later snapshot holds them all). A row that moved past `upto` in between (its
 *   entity changed again: the older row goes, a newer one comes) is found on a later page.
 * - The returned cursor is the last row read, or `upto` when the page took everything up to it.
 *
 * An entity's answer is its current state (the owning module's detail), so a page may show a
 * newer state than the change that listed it; the later change then shows the row again. A page
 * shows each (entity, id) once: an entity that is gone (or, on the phone, a visit no longer
 * assigned to the caller) is `delete`.
 *
 * A sync from scratch sends no tombstones for rows it never sent: its first page fixes the head
 * (`end`), carried in the cursor; up to it only live rows are read, and a row missing by the time it
 * is loaded is skipped. Every change made after the sync began is numbered past the head, so a row
 * sent on one page and deleted before a later one has its tombstone there, sent as usual.
 *
 * A cursor is sealed and carries the caller's grants version (./sync.cursor.ts, ./sync.grants.ts):
 * it cannot be read or forged, and one issued under other grants is refused (GRANTS_CHANGED).
 */
import { and, eq, gt, isNull, lte, max, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared, preparedEach, selectValues } from '../../db/prepared'
import { changeHorizons, changes, visitAssignees } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'
import type { AuthedContext } from '../../platform/context'
import type { PermissionSet } from '../../platform/permissions'
import { AppError, ValidationFailed } from '../../lib/errors'
import { decodeCursor, encodeCursor, type Cursor } from './sync.cursor'
import type { FeedEntity } from '../../platform/data/feed-entities'
import { grantsVersion, officeEntities, phoneEntities } from './sync.grants'
import { type ChangesQuery, type FeedChange, type FeedPage, type FeedQuery, SYNC_LIMIT } from './sync.schemas'

type Awaitable<T> = T | Promise<T>

/** Tombstones older than this are removed; a cursor from before them must start over (./sync.retention.ts). */
export const TOMBSTONE_RETENTION_DAYS = 30

/** A workspace's change log and how far back it still reaches. */
const changeScope = workspaceScoped(changes)
const changeHorizonScope = workspaceScoped(changeHorizons)
const visitAssigneeScope = workspaceScoped(visitAssignees)

const EXPIRED = 'this cursor is older than the change log keeps deletions (30 days): drop the local copy and sync again without a cursor'
/** A stable reason (docs/API.md §Sync and change feed): what the caller may view changed since the cursor was issued. */
export const GRANTS_CHANGED = 'your permissions changed since this cursor was issued: drop the local copy and sync again without a cursor'

const uptoOf = prepared((db) =>
  db
    .select({ upto: max(changes.seq) })
    .from(changes)
    .where(changeScope.where(sql.placeholder('workspaceId')))
    .prepare(),
)
const horizonOf = prepared((db) =>
  db
    .select({ seq: changeHorizons.seq })
    .from(changeHorizons)
    .where(changeHorizonScope.where(sql.placeholder('workspaceId')))
    .prepare(),
)
/** The highest seq ever handed out (SQLite's AUTOINCREMENT counter; never goes back, unlike max(seq)). */
const issuedUpTo = async (db: Db) =>
  (await selectValues(db, "select seq from sqlite_sequence where name = 'changes'", [])).map((row) => ({ seq: Number(row[0]) }))

/**
 * Rows in (after, upto]; up to `head` (a sync from scratch, until it reaches the head it started
 * from) only live ones: a row deleted before the sync began was never sent, so it needs no tombstone.
 */
const window = () =>
  changeScope.where(
    sql.placeholder('workspaceId'),
    gt(changes.seq, sql.placeholder('after')),
    lte(changes.seq, sql.placeholder('upto')),
    or(gt(changes.seq, sql.placeholder('head')), eq(changes.op, 'upsert')),
  )
const columns = { seq: changes.seq, entity: changes.entity, entity_id: changes.entity_id }

/**
 * The caller is among the assignees of the row's visit: one probe per visit row. Most visit rows a phone's
 * feed reads are other users' (ten outlets changed list their ~100 visits), so the probe reads the caller's
 * own range of the (workspace, user, visit) index, a few pages for thousands of visits (migration 0028).
 * Named, because the planner ranks the unique primary key (visit_id, user_id) first: it finds one row
 * too, but there one user's visits lie across the whole index, a leaf page per probe once a write has
 * emptied the reader's page cache (docs/PERFORMANCE.md "Seventh pass").
 */
const assignedToCaller = sql`exists (select 1 from ${visitAssignees} indexed by ${sql.identifier('visit_assignees_workspace_user_visit')}
  where ${visitAssigneeScope.where(sql.placeholder('workspaceId'), eq(visitAssignees.user_id, sql.placeholder('userId')), eq(visitAssignees.visit_id, changes.visit_id))})`

/**
 * The phone's rows: shared entities it may see (a JSON list), entities of visits assigned to the caller
 * now (`assigned`: visits and submissions), entities the caller owns (`owned`: their sales orders), plus
 * tombstones addressed to the caller.
 */
export const phoneRows = prepared((db) =>
  db
    .select(columns)
    .from(changes)
    .where(
      and(
        window(),
        or(
          and(isNull(changes.user_id), sql`${changes.entity} in (select value from json_each(${sql.placeholder('shared')}))`),
          and(
            isNull(changes.user_id),
            eq(changes.owner_id, sql.placeholder('userId')),
            sql`${changes.entity} in (select value from json_each(${sql.placeholder('owned')}))`,
          ),
          and(
            sql`${changes.entity} in (select value from json_each(${sql.placeholder('assigned')}))`,
            or(eq(changes.user_id, sql.placeholder('userId')), and(isNull(changes.user_id), assignedToCaller)),
          ),
        ),
      ),
    )
    .orderBy(changes.seq)
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** The office feed's rows: the entities the caller may view (a JSON list), or one of them (`filtered`). */
const officeRows = preparedEach(['one', 'all'], (db, filtered) =>
  db
    .select(columns)
    .from(changes)
    .where(
      and(
        window(),
        isNull(changes.user_id),
        filtered === 'one'
          ? eq(changes.entity, sql.placeholder('entity'))
          : sql`${changes.entity} in (select value from json_each(${sql.placeholder('entities')}))`,
      ),
    )
    .orderBy(changes.seq)
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** Checks a cursor against the caller's feed; absent: from the start. */
async function startOf(
  db: Db,
  ctx: AuthedContext,
  text: string | undefined,
  expected: Omit<Cursor, 'seq' | 'head'>,
  horizon: number,
): Promise<{ after: number; head: number }> {
  if (text === undefined || text === '') return { after: 0, head: 0 }
  const cursor = decodeCursor(ctx.deps.sealer, text)
  if (!cursor) throw ValidationFailed.field('cursor', 'is not a cursor this service issued')
  if (cursor.workspaceId !== expected.workspaceId || cursor.userId !== expected.userId) {
    throw ValidationFailed.field('cursor', 'belongs to another workspace, user or feed: sync again without a cursor')
  }
  if (cursor.grants !== expected.grants) throw ValidationFailed.field('cursor', GRANTS_CHANGED)
  // Sealed, so only a database that lost its log (restored from an older backup) can fail this.
  const [issued] = await issuedUpTo(db)
  if (cursor.seq > (issued?.seq ?? 0)) throw ValidationFailed.field('cursor', 'is not a cursor this service issued')
  if (cursor.seq < horizon) throw ValidationFailed.field('cursor', EXPIRED)
  return { after: cursor.seq, head: cursor.head }
}

/** One page of a feed: rows in (after, upto], de-duplicated, with their current state. */
async function readPage(
  db: Db,
  ctx: AuthedContext,
  feed: { userId: number; entities: readonly FeedEntity[]; assignee: number | null; grants: string },
  request: FeedQuery,
  rowsOf: (params: {
    workspaceId: number
    after: number
    upto: number
    head: number
    limit: number
  }) => Awaitable<{ seq: number; entity: string; entity_id: number }[]>,
): Promise<FeedPage> {
  const workspaceId = ctx.actor.workspaceId
  const [horizon] = await horizonOf(db).all({ workspaceId })
  const start = await startOf(db, ctx, request.cursor, { workspaceId, userId: feed.userId, grants: feed.grants }, horizon?.seq ?? 0)
  const after = start.after
  const limit = Math.min(request.limit ?? SYNC_LIMIT.defaultLimit, SYNC_LIMIT.maxLimit)
  const [{ upto }] = await uptoOf(db).all({ workspaceId })
  // Past the horizon too: the removed tombstones up to it are nothing a replica needs.
  const end = Math.max(upto ?? 0, after, horizon?.seq ?? 0)
  // A sync from scratch: everything up to here is sent only if live, on this page and the next ones
  // until they reach it. A row sent on an earlier page and deleted since has its tombstone past it.
  const head = after === 0 ? end : start.head
  const rows = end > after ? await rowsOf({ workspaceId, after, upto: end, head, limit: limit + 1 }) : []
  const hasMore = rows.length > limit
  const taken = hasMore ? rows.slice(0, limit) : rows
  const seq = hasMore ? taken[taken.length - 1].seq : end
  const cursor = encodeCursor(ctx.deps.sealer, { workspaceId, userId: feed.userId, seq, grants: feed.grants, head })

  // One entry per (entity, id), in the order of its latest row.
  const latest = new Map<string, { entity: string; id: number; seq: number }>()
  for (const row of taken) {
    const key = `${row.entity}:${row.entity_id}`
    latest.delete(key)
    latest.set(key, { entity: row.entity, id: row.entity_id, seq: row.seq })
  }
  const idsByEntity = new Map<string, number[]>()
  for (const { entity, id } of latest.values()) {
    const ids = idsByEntity.get(entity)
    if (ids) ids.push(id)
    else idsByEntity.set(entity, [id])
  }
  const found = new Map<string, Record<string, unknown>>()
  for (const [name, ids] of idsByEntity) {
    const entity = feed.entities.find((candidate) => candidate.name === name)
    if (!entity) continue
    for (const item of await entity.load(db, workspaceId, ids, entity.reach === 'workspace' ? null : feed.assignee)) found.set(`${name}:${item.id}`, item)
  }
  const result: FeedChange[] = []
  for (const [key, { entity, id, seq: at }] of latest) {
    const data = found.get(key)
    if (data !== undefined) result.push({ entity, id, op: 'upsert', data })
    // Up to a first sync's head nothing was sent before, so a row gone since needs no tombstone
    // (its deletion, if any, comes after the head and is sent there).
    else if (at > head) result.push({ entity, id, op: 'delete' })
  }
  return { changes: result, cursor, has_more: hasMore }
}

/** What a phone feed of these permissions holds: its entities, grants version and entity lists by reach. */
function phoneFeedOf(permissions: PermissionSet) {
  const entities = phoneEntities(permissions)
  const names = (reach: FeedEntity['reach']) => JSON.stringify(entities.filter((entity) => entity.reach === reach).map((entity) => entity.name))
  return { entities, grants: grantsVersion('phone', entities), reaches: { shared: names('workspace'), assigned: names('assignees'), owned: names('owner') } }
}
/**
 * Worked out once per permission set: the authenticated member (platform/actor.ts) keeps its set
 * until users, memberships or roles change, so each sync of the same member reuses it.
 */
const phoneFeeds = new WeakMap<PermissionSet, ReturnType<typeof phoneFeedOf>>()

/** GET /app/v1/sync: what changed for the calling field user since `cursor`. */
export function syncForPhone(ctx: AuthedContext, request: FeedQuery): Promise<FeedPage> {
  const db = ctx.deps.db.read
  const { permissions } = ctx.actor
  let phone = phoneFeeds.get(permissions)
  if (!phone) {
    phone = phoneFeedOf(permissions)
    phoneFeeds.set(permissions, phone)
  }
  const { entities, grants, reaches } = phone
  const userId = ctx.actor.userId
  const feed = { userId, entities, assignee: userId, grants }
  return readPage(db, ctx, feed, request, (params) => phoneRows(db).all({ ...params, userId, ...reaches }))
}

/**
 * GET /office/v1/changes: the business entities of the workspace the caller may view (each needs
 * the web view permission of its own list), or one type (403 when the caller may not view it).
 */
export function officeChanges(ctx: AuthedContext, request: ChangesQuery): Promise<FeedPage> {
  const db = ctx.deps.db.read
  const allowed = officeEntities(ctx.actor.permissions)
  const grants = grantsVersion('office', allowed)
  if (request.entity) {
    const one = allowed.filter((entity) => entity.name === request.entity)
    if (one.length === 0) throw new AppError('FORBIDDEN', `you may not view ${request.entity} (its list needs its view permission)`)
    return readPage(db, ctx, { userId: 0, entities: one, assignee: null, grants }, request, (params) =>
      officeRows(db, 'one').all({ ...params, entity: request.entity }),
    )
  }
  const names = JSON.stringify(allowed.map((entity) => entity.name))
  return readPage(db, ctx, { userId: 0, entities: allowed, assignee: null, grants }, request, (params) =>
    officeRows(db, 'all').all({ ...params, entities: names }),
  )
}
