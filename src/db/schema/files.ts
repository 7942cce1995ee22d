import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { createdAt } from '../columns'
import { users } from './identity'
import { workspaces } from './workspaces'

/** Uploaded photos (check-in/out, photo and signature answers); bytes live under UPLOAD_DIR. */
export const files = sqliteTable(
  'files',
  {
    /** Random UUID: file URLs must not be guessable. */
    id: text('id').primaryKey(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    mime_type: text('mime_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    /** Path relative to UPLOAD_DIR. */
    path: text('path').notNull(),
    created_by: integer('created_by').references(() => users.id),
    created_at: createdAt(),
  },
  (t) => [index('files_workspace').on(t.workspace_id)],
)
