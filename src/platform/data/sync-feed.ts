/**
 * The change log's triggers, generated from the modules' `syncFeed` declarations (./manifest.ts).
 * The log (table `changes`, docs/API.md §Sync and change feed) is written by triggers, so every
 * writer is covered: the services, seeds, direct SQL, on both drivers. One row per entity (and, for
 * tombstones addressed to an assignee taken off a visit, per entity and user): a change deletes the
 * entity's older row and appends a new one, so seq order is commit order.
 *
 * `syncTriggers` is a pure function: declarations → `CREATE TRIGGER` statements, worded exactly as
 * SQLite keeps them in `sqlite_master`, so the installer (src/db/derived.ts) can tell an unchanged
 * trigger from a changed one by comparing the text. The statements are those migrations 0015 and
 * 0018 wrote by hand; tests/derived.test.ts holds the two sets equal.
 */
import type { Db } from '../../db/client'
import type { DerivedObject } from '../../db/derived'

/**
 * Loads the live rows among `ids` as the entity's detail route answers them (one query per entity per
 * page), so a feed's `upsert.data` is exactly that detail. `assignee` is the phone caller for entities
 * that reach assignees only (only theirs), null on the office feed; other entities ignore it.
 */
export type FeedLoader = (db: Db, workspaceId: number, ids: number[], assignee: number | null) => Promise<{ id: number }[]>

export type RowEvent = 'insert' | 'update' | 'delete'
/** The trigger's row: `NEW` on insert and update, `OLD` on delete. */
export type RowRef = 'NEW' | 'OLD'

/** A SELECT of the rows to refresh, with columns `ws, id, op, visit_id`; `r` is the trigger's row. */
export type RowsOf = (r: RowRef, event: RowEvent) => string

/** Another entity a write changes: one row addressed by id (`id`, `op`, `visit` are SQL), or a set of rows. */
export type Refresh =
  | { entity: string; events?: readonly RowEvent[]; id: (r: RowRef) => string; op: (r: RowRef, event: RowEvent) => string; visit: (r: RowRef) => string }
  | { entity: string; events?: readonly RowEvent[]; rows: RowsOf }

/** An entity whose rows show columns of another table: when those change, the entity's rows change too. */
export interface Shows {
  /** The other table (its trigger is `<table>_changes_<name>`, default `to_<this table>`). */
  table: string
  /** The columns shown: a change of any is a change of the showing rows. */
  columns: readonly string[]
  /**
   * The showing rows: by the foreign key `via` (live rows of the same workspace), or an explicit SELECT
   * (`ws, id, op, visit_id`, and `owner_id` for an entity that reaches its owner).
   */
  via?: string
  rows?: (r: RowRef) => string
  name?: string
}

export interface SyncFeed {
  /** The table whose writes are changes. */
  table: string
  /**
   * The entity each row is (GET /app/v1/sync's and GET /office/v1/changes's `entity`), with:
   * - `reach` — how its rows reach a phone: `workspace`, every phone of the workspace whose holder may
   *   view it (master data); `assignees`, only the assignees of the row's visit (`visit` names the
   *   column holding the visit's id), who also get a tombstone when taken off the visit; `owner`, only
   *   the phone of the user the `owner` column names (a sales order: its creator; the owner never changes);
   * - `deletes` — what a delete looks like: `soft`, `deleted_at` set (a tombstone; clearing it is an
   *   upsert again) or the row deleted; `hard`, the row deleted (every other write is an upsert);
   * - `webKey` — the office permission whose view lets GET /office/v1/changes carry it; `mobileKey` —
   *   the one a phone needs (null: office feed only).
   * Absent: a link table or a log whose writes change other entities only (`refreshes`).
   */
  entity?: {
    name: string
    reach: 'workspace' | 'assignees' | 'owner'
    visit?: 'id' | 'visit_id'
    /** With `reach: 'owner'`: the row's column holding its owner's user id. */
    owner?: string
    deletes: 'soft' | 'hard'
    webKey: string
    mobileKey: string | null
    /** The rows a write changes when the entity is not the row itself (a user is their membership of the workspace). */
    rows?: RowsOf
    /** Its rows as the feeds carry them: the owning module's "detail as answered" over a page of ids. */
    load: FeedLoader
  }
  /** Which writes are changes (default all three). */
  events?: readonly RowEvent[]
  /** Other entities the same writes change (after the row's own change). */
  refreshes?: readonly Refresh[]
  /** Columns of other tables this entity's rows show. */
  shows?: readonly Shows[]
  /** Other triggers on this table (e.g. `users_changes_names`): name suffix, the columns whose change fires it, the entities refreshed. */
  cascades?: readonly { name: string; columns: readonly string[]; refreshes: readonly Refresh[] }[]
  /**
   * This table assigns visits to users (`visit`, `user` name its columns): an assignee added gets the
   * visit and its submissions again, past every cursor; one taken off gets a tombstone of the visit and
   * of every submission of it their phone may hold — the live ones, and the deleted ones whose
   * tombstones are still in the log (a tombstone gone by retention needs no copy: every cursor from
   * before it is refused).
   */
  assigns?: { visit: string; user: string }
}

const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
const COLUMNS = '(workspace_id, entity, entity_id, op, user_id, visit_id, created_at)'
const OWNED_COLUMNS = '(workspace_id, entity, entity_id, op, user_id, visit_id, owner_id, created_at)'
const rowOf = (event: RowEvent): RowRef => (event === 'delete' ? 'OLD' : 'NEW')

/** The op of a row of `table` looked up by id: its `deleted_at` decides. */
export const liveOp = (table: string, id: string) =>
  `(SELECT CASE WHEN ${table}.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM ${table} WHERE ${table}.id = ${id})`

const oneRow = (r: RowRef, entity: string, id: string, op: string, visit: string, owner?: string) => [
  `  DELETE FROM changes WHERE workspace_id = ${r}.workspace_id AND entity = '${entity}' AND entity_id = ${id} AND user_id IS NULL;`,
  owner === undefined
    ? `  INSERT INTO changes ${COLUMNS} VALUES (${r}.workspace_id, '${entity}', ${id}, ${op}, NULL, ${visit}, ${NOW});`
    : `  INSERT INTO changes ${OWNED_COLUMNS} VALUES (${r}.workspace_id, '${entity}', ${id}, ${op}, NULL, ${visit}, ${owner}, ${NOW});`,
]

/** `rows` of an entity that reaches its owner (`owned`) select `owner_id` too. */
const manyRows = (entity: string, rows: string, owned = false) => [
  `  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (${rows}) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = '${entity}' AND c.entity_id = r.id AND c.user_id IS NULL);`,
  owned
    ? `  INSERT INTO changes ${OWNED_COLUMNS} SELECT ws, '${entity}', id, op, NULL, visit_id, owner_id, ${NOW} FROM (${rows}) ORDER BY id;`
    : `  INSERT INTO changes ${COLUMNS} SELECT ws, '${entity}', id, op, NULL, visit_id, ${NOW} FROM (${rows}) ORDER BY id;`,
]

const refreshLines = (refresh: Refresh, event: RowEvent) => {
  const r = rowOf(event)
  return 'rows' in refresh ? manyRows(refresh.entity, refresh.rows(r, event)) : oneRow(r, refresh.entity, refresh.id(r), refresh.op(r, event), refresh.visit(r))
}

const trigger = (name: string, event: RowEvent, table: string, when: string | null, lines: readonly string[]): DerivedObject => ({
  kind: 'trigger',
  name,
  table,
  sql: `CREATE TRIGGER \`${name}\` AFTER ${event.toUpperCase()} ON \`${table}\`${when ? ` WHEN ${when}` : ''}\nBEGIN\n${lines.join('\n')}\nEND`,
})

const changed = (columns: readonly string[]) => columns.map((column) => `NEW.${column} IS NOT OLD.${column}`).join(' OR ')

/** The assignment rule (see `SyncFeed.assigns`). */
const assignmentLines = (feed: SyncFeed, event: RowEvent): string[] => {
  const { visit, user } = feed.assigns as { visit: string; user: string }
  const r = rowOf(event)
  if (event === 'insert') {
    return [
      `  DELETE FROM changes WHERE visit_id = ${r}.${visit} AND user_id = ${r}.${user};`,
      ...oneRow(r, 'visit', `${r}.${visit}`, liveOp('visits', `${r}.${visit}`), `${r}.${visit}`),
      ...manyRows(
        'submission',
        `SELECT workspace_id AS ws, id, 'upsert' AS op, visit_id FROM submissions WHERE visit_id = ${r}.${visit} AND deleted_at IS NULL`,
      ),
    ]
  }
  return [
    ...oneRow(r, 'visit', `${r}.${visit}`, `coalesce(${liveOp('visits', `${r}.${visit}`)}, 'delete')`, `${r}.${visit}`),
    `  DELETE FROM changes WHERE visit_id = ${r}.${visit} AND user_id = ${r}.${user};`,
    `  INSERT INTO changes ${COLUMNS} VALUES (${r}.workspace_id, 'visit', ${r}.${visit}, 'delete', ${r}.${user}, ${r}.${visit}, ${NOW});`,
    `  INSERT INTO changes ${COLUMNS}`,
    `    SELECT ${r}.workspace_id, 'submission', id, 'delete', ${r}.${user}, ${r}.${visit}, ${NOW}`,
    '    FROM (',
    `      SELECT id FROM submissions WHERE visit_id = ${r}.${visit} AND deleted_at IS NULL`,
    '      UNION',
    `      SELECT entity_id FROM changes WHERE visit_id = ${r}.${visit} AND entity = 'submission' AND op = 'delete' AND user_id IS NULL`,
    '    )',
    '    ORDER BY id;',
  ]
}

/** The row's own change, on `event`. */
const ownLines = (feed: SyncFeed, event: RowEvent): string[] => {
  const entity = feed.entity
  if (!entity) return []
  const r = rowOf(event)
  if (entity.rows) return manyRows(entity.name, entity.rows(r, event))
  const op = event === 'delete' ? "'delete'" : entity.deletes === 'soft' ? `CASE WHEN ${r}.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END` : "'upsert'"
  const owner = entity.reach === 'owner' ? `${r}.${entity.owner ?? 'user_id'}` : undefined
  return oneRow(r, entity.name, `${r}.id`, op, entity.visit ? `${r}.${entity.visit}` : 'NULL', owner)
}

/** The rows of `feed` that show `shows.table`'s row NEW (an owner-reach entity's with their `owner_id`). */
const showingRows = (feed: SyncFeed, shows: Shows) => {
  if (shows.rows) return shows.rows('NEW')
  const visit = feed.entity?.visit === 'id' ? 'id' : 'NULL'
  const owner = feed.entity?.reach === 'owner' ? `, ${feed.entity.owner ?? 'user_id'} AS owner_id` : ''
  const live = feed.entity?.deletes === 'hard' ? '' : ' AND deleted_at IS NULL'
  return `SELECT workspace_id AS ws, id, 'upsert' AS op, ${visit} AS visit_id${owner} FROM ${feed.table} WHERE workspace_id = NEW.workspace_id AND ${shows.via} = NEW.id${live}`
}

/**
 * The `user` rows of the change log: a user of a workspace is their membership of it (identity tables,
 * as in ./actor.ts). The membership rows of `source` (alias m) joined to the user: an upsert while
 * `live` holds and the user is not deleted. Used by the feeds that change users (users, memberships,
 * team members).
 */
export const membershipRows = (source: string, live: string, where = '') =>
  `SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN ${live} AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM ${source} m JOIN users u ON u.id = m.user_id${where}`

/** A table of master data: every phone of the workspace whose holder may view it gets it (the same key on both faces). */
export const workspaceFeed = (table: string, entity: string, key: string, load: FeedLoader, mobile = true): SyncFeed => ({
  table,
  entity: { name: entity, reach: 'workspace', deletes: 'soft', webKey: key, mobileKey: mobile ? key : null, load },
})

/** The change-log triggers of every declared feed, in declaration order. */
export function syncTriggers(feeds: readonly SyncFeed[]): DerivedObject[] {
  const objects: DerivedObject[] = []
  for (const feed of feeds) {
    for (const event of feed.events ?? (['insert', 'update', 'delete'] as const)) {
      const lines = feed.assigns
        ? assignmentLines(feed, event)
        : [
            ...ownLines(feed, event),
            ...(feed.refreshes ?? []).filter((refresh) => !refresh.events || refresh.events.includes(event)).flatMap((refresh) => refreshLines(refresh, event)),
          ]
      objects.push(trigger(`${feed.table}_changes_${event}`, event, feed.table, null, lines))
    }
  }
  // Then the triggers of other tables: what the feeds' rows show, and the declared cascades.
  for (const feed of feeds) {
    for (const cascade of feed.cascades ?? []) {
      const lines = cascade.refreshes.flatMap((refresh) => refreshLines(refresh, 'update'))
      objects.push(trigger(`${feed.table}_changes_${cascade.name}`, 'update', feed.table, changed(cascade.columns), lines))
    }
    for (const shows of feed.shows ?? []) {
      const entity = feed.entity?.name ?? feed.table
      const name = `${shows.table}_changes_${shows.name ?? `to_${feed.table}`}`
      objects.push(trigger(name, 'update', shows.table, changed(shows.columns), manyRows(entity, showingRows(feed, shows), feed.entity?.reach === 'owner')))
    }
  }
  return objects
}
