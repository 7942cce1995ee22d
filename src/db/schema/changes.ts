/**
 * The change log of sync and the change feed (docs/API.md §Sync and change feed). Written only by
 * triggers, never by the service: every writer (requests, seeds, direct SQL) is covered on both drivers.
 * The triggers are generated from the modules' `syncFeed` declarations (src/platform/sync-feed.ts) and
 * installed at start (src/db/derived.ts); migrations 0015 and 0018 created the first set.
 *
 * One row per entity: a change deletes the entity's older row and appends a new one, so `seq`
 * (AUTOINCREMENT, never reused once committed) orders changes as they committed, and the log holds
 * one row per live entity plus tombstones. `user_id` is set only on tombstones addressed to one
 * field user (taken off a visit); `visit_id` names the visit whose assignees may see a visit or
 * submission row.
 */
import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const CHANGE_OPS = ['upsert', 'delete'] as const
export type ChangeOp = (typeof CHANGE_OPS)[number]

export const changes = sqliteTable(
  'changes',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    workspace_id: integer('workspace_id').notNull(),
    entity: text('entity').notNull(),
    entity_id: integer('entity_id').notNull(),
    op: text('op').$type<ChangeOp>().notNull(),
    user_id: integer('user_id'),
    visit_id: integer('visit_id'),
    /** For an entity that reaches its owner only (a sales order, its creator): the one user whose phone gets the row. */
    owner_id: integer('owner_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('changes_workspace_seq').on(t.workspace_id, t.seq),
    index('changes_workspace_entity').on(t.workspace_id, t.entity, t.entity_id, t.user_id),
    index('changes_addressed').on(t.visit_id, t.user_id).where(sql`user_id is not null`),
    // A visit's submission tombstones, for the ones addressed to an assignee taken off it (migration 0018).
    index('changes_submission_tombstones').on(t.visit_id).where(sql`entity = 'submission' AND op = 'delete' AND user_id IS NULL`),
  ],
)

/** Per workspace: tombstones up to this seq were removed (retention); an older cursor must start over. */
export const changeHorizons = sqliteTable('change_horizons', {
  workspace_id: integer('workspace_id').primaryKey(),
  seq: integer('seq').notNull(),
})
