import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { createdAt, id, json, timestamp, updatedAt } from '../columns'
import { users } from './identity'
import { workspaces } from './workspaces'

/** A message for one user (assigned a visit, sent to the field, submission reviewed). */
export const notifications = sqliteTable(
  'notifications',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    type: text('type').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    data: json<Record<string, unknown>>('data').notNull(),
    read_at: timestamp('read_at'),
    created_at: createdAt(),
  },
  (t) => [index('notifications_user').on(t.workspace_id, t.user_id, t.created_at)],
)

/** Phones and browsers to push to; a token belongs to the last user who registered it. */
export const pushTokens = sqliteTable(
  'push_tokens',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    token: text('token').notNull(),
    platform: text('platform').$type<'android' | 'ios' | 'web'>().notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('push_tokens_token').on(t.token), index('push_tokens_user').on(t.workspace_id, t.user_id)],
)
