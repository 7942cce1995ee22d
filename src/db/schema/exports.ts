/** Background export jobs and their files (removed after 7 days). */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { createdAt, id, json, timestamp } from '../columns'
import { users } from './identity'
import { workspaces } from './workspaces'

export const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const
export type ExportStatus = (typeof EXPORT_STATUSES)[number]

export const exportJobs = sqliteTable(
  'export_jobs',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** What is exported: `submissions` (csv, pdf) or `sales_orders` (csv, one row per line). */
    kind: text('kind').$type<'submissions' | 'sales_orders'>().notNull(),
    format: text('format').$type<'csv' | 'pdf'>().notNull(),
    filters: json<Record<string, unknown>>('filters').notNull(),
    status: text('status').$type<ExportStatus>().notNull(),
    row_count: integer('row_count'),
    error: text('error'),
    /** Relative to the export directory. */
    path: text('path'),
    created_at: createdAt(),
    started_at: timestamp('started_at'),
    finished_at: timestamp('finished_at'),
  },
  (t) => [index('export_jobs_workspace_user').on(t.workspace_id, t.user_id, t.created_at), index('export_jobs_status').on(t.status)],
)
