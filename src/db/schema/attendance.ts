/** A field user's working day: clock-in and clock-out with place and optional photo. */
import { sql } from 'drizzle-orm'
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { createdAt, id, timestamp, updatedAt } from '../columns'
import { users } from './identity'
import { workspaces } from './workspaces'

export const attendances = sqliteTable(
  'attendances',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** The working day (UTC date of the clock-in). */
    date: text('date').notNull(),
    check_in_at: text('check_in_at').notNull(),
    check_in_latitude: real('check_in_latitude'),
    check_in_longitude: real('check_in_longitude'),
    check_in_photo_url: text('check_in_photo_url'),
    check_out_at: timestamp('check_out_at'),
    check_out_latitude: real('check_out_latitude'),
    check_out_longitude: real('check_out_longitude'),
    check_out_photo_url: text('check_out_photo_url'),
    notes: text('notes'),
    /** `mobile` (clocked) or `manual` (entered in the office). */
    source: text('source').$type<'mobile' | 'manual'>().notNull(),
    created_by: integer('created_by').references(() => users.id),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [
    index('attendances_workspace_date').on(t.workspace_id, t.date),
    index('attendances_workspace_user_date').on(t.workspace_id, t.user_id, t.date),
    // At most one open attendance per user: the clock-in race is settled by the database too.
    uniqueIndex('attendances_one_open').on(t.workspace_id, t.user_id).where(sql`check_out_at is null`),
  ],
)
