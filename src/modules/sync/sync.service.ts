/**
 * Phone sync and the office change feed over one change log (the `changes` table, written by the
 * triggers of migration 0015; docs/API.md §Sync and change feed).
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
 */
import { and, eq, gt, isNull, lte, max, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared, preparedVariants } from '../../db/prepared'
import { changeHorizons, changes, visitAssignees } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { ValidationFailed } from '../../platform/errors'
import { can } from '../../platform/permissions'
import { decodeCursor, encodeCursor, type Cursor } from './sync.cursor'
import { FEED_ENTITIES, feedEntity, type FeedEntity } from './sync.entities'
import { type ChangesQuery, type FeedChange, type FeedPage, type FeedQuery, SYNC_LIMIT } from './sync.schemas'

type Awaitable<T> = T | Promise<T>

/** Tombstones older than this are removed; a cursor from before them must start over (./sync.retention.ts). */
export const TOMBSTONE_RETENTION_DAYS = 30

const EXPIRED = 'this cursor is older than the change log keeps deletions (30 days): drop the local copy and sync again without a cursor'

const uptoOf = prepared((db) =>
  db
    .select({ upto: max(changes.seq) })
    .from(changes)
    .where(eq(changes.workspace_id, sql.placeholder('workspaceId')))
    .prepare(),
)
const horizonOf = prepared((db) =>
  db
    .select({ seq: changeHorizons.seq })
    .from(changeHorizons)
    .where(eq(changeHorizons.workspace_id, sql.placeholder('workspaceId')))
    .prepare(),
)
/** The highest seq ever handed out (SQLite's AUTOINCREMENT counter; never goes back, unlike max(seq)). */
const issuedUpTo = (db: Db) => db.all<{ seq: number }>(sql`select seq from sqlite_sequence where name = 'changes'`)

const window = () =>
  and(eq(changes.workspace_id, sql.placeholder('workspaceId')), gt(changes.seq, sql.placeholder('after')), lte(changes.seq, sql.placeholder('upto')))
const columns = { seq: changes.seq, entity: changes.entity, entity_id: changes.entity_id }

/**
 * The phone's rows: shared entities it may see (as a JSON list), and visits and submissions of
 * visits assigned to the caller now, plus tombstones addressed to the caller.
 */
const phoneRows = prepared((db) =>
  db
    .select(columns)
    .from(changes)
    .where(
      and(
        window(),
        or(
          and(isNull(changes.user_id), sql`${changes.entity} in (select value from json_each(${sql.placeholder('shared')}))`),
          and(
            sql`${sql.placeholder('visits')} = 1`,
            sql`${changes.entity} in ('visit', 'submission')`,
            or(
              eq(changes.user_id, sql.placeholder('userId')),
              and(
                isNull(changes.user_id),
                sql`exists (select 1 from ${visitAssignees} where ${visitAssignees.visit_id} = ${changes.visit_id} and ${visitAssignees.user_id} = ${sql.placeholder('userId')})`,
              ),
            ),
          ),
        ),
      ),
    )
    .orderBy(changes.seq)
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** The office feed's rows: every entity of the workspace, or one (`filtered`). */
const officeRows = preparedVariants((db, filtered: 'one' | 'all') =>
  db
    .select(columns)
    .from(changes)
    .where(and(window(), isNull(changes.user_id), filtered === 'one' ? eq(changes.entity, sql.placeholder('entity')) : undefined))
    .orderBy(changes.seq)
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** Checks a cursor against the caller's feed; absent: from the start. */
async function startOf(db: Db, text: string | undefined, expected: Omit<Cursor, 'seq'>, horizon: number): Promise<number> {
  if (text === undefined || text === '') return 0
  const cursor = decodeCursor(text)
  if (!cursor) throw ValidationFailed.field('cursor', 'is not a cursor this service issued')
  if (cursor.workspaceId !== expected.workspaceId || cursor.userId !== expected.userId) {
    throw ValidationFailed.field('cursor', 'belongs to another workspace, user or feed: sync again without a cursor')
  }
  const [issued] = await issuedUpTo(db)
  if (cursor.seq > (issued?.seq ?? 0)) throw ValidationFailed.field('cursor', 'is not a cursor this service issued')
  if (cursor.seq < horizon) throw ValidationFailed.field('cursor', EXPIRED)
  return cursor.seq
}

/** One page of a feed: rows in (after, upto], de-duplicated, with their current state. */
async function readPage(
  db: Db,
  ctx: AuthedContext,
  feed: { userId: number; entities: readonly FeedEntity[]; assignee: number | null },
  request: FeedQuery,
  rowsOf: (params: { workspaceId: number; after: number; upto: number; limit: number }) => Awaitable<{ seq: number; entity: string; entity_id: number }[]>,
): Promise<FeedPage> {
  const workspaceId = ctx.actor.workspaceId
  const [horizon] = await horizonOf(db).all({ workspaceId })
  const after = await startOf(db, request.cursor, { workspaceId, userId: feed.userId }, horizon?.seq ?? 0)
  const limit = Math.min(request.limit ?? SYNC_LIMIT.defaultLimit, SYNC_LIMIT.maxLimit)
  const [{ upto }] = await uptoOf(db).all({ workspaceId })
  // Past the horizon too: the removed tombstones up to it are nothing a replica needs.
  const end = Math.max(upto ?? 0, after, horizon?.seq ?? 0)
  const rows = end > after ? await rowsOf({ workspaceId, after, upto: end, limit: limit + 1 }) : []
  const hasMore = rows.length > limit
  const taken = hasMore ? rows.slice(0, limit) : rows
  const cursor = encodeCursor({ workspaceId, userId: feed.userId, seq: hasMore ? taken[taken.length - 1].seq : end })

  // One entry per (entity, id), in the order of its latest row.
  const latest = new Map<string, { entity: string; id: number }>()
  for (const row of taken) {
    const key = `${row.entity}:${row.entity_id}`
    latest.delete(key)
    latest.set(key, { entity: row.entity, id: row.entity_id })
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
    for (const item of await entity.load(db, workspaceId, ids, entity.assigned ? feed.assignee : null)) found.set(`${name}:${item.id}`, item)
  }
  const fromScratch = after === 0
  const result: FeedChange[] = []
  for (const [key, { entity, id }] of latest) {
    const data = found.get(key)
    if (data !== undefined) result.push({ entity, id, op: 'upsert', data })
    // A first sync has nothing to delete: tombstones are left out of it.
    else if (!fromScratch) result.push({ entity, id, op: 'delete' })
  }
  return { changes: result, cursor, has_more: hasMore }
}

/** GET /app/v1/sync: what changed for the calling field user since `cursor`. */
export function syncForPhone(ctx: AuthedContext, request: FeedQuery): Promise<FeedPage> {
  const db = ctx.deps.db.read
  const entities = FEED_ENTITIES.filter((entity) => entity.mobileKey !== null && can(ctx.actor.permissions, entity.mobileKey, 'mobile', 'view'))
  const shared = JSON.stringify(entities.filter((entity) => !entity.assigned).map((entity) => entity.name))
  const visits = entities.some((entity) => entity.assigned) ? 1 : 0
  const userId = ctx.actor.userId
  return readPage(db, ctx, { userId, entities, assignee: userId }, request, (params) => phoneRows(db).all({ ...params, userId, shared, visits }))
}

/** GET /office/v1/changes: every business entity of the workspace (or one type) since `cursor`. */
export function officeChanges(ctx: AuthedContext, request: ChangesQuery): Promise<FeedPage> {
  const db = ctx.deps.db.read
  const entities = request.entity ? [feedEntity(request.entity)] : FEED_ENTITIES
  return readPage(db, ctx, { userId: 0, entities, assignee: null }, request, (params) =>
    request.entity ? officeRows(db, 'one').all({ ...params, entity: request.entity }) : officeRows(db, 'all').all(params),
  )
}
