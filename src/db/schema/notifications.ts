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

/**
 * The push outbox: one row per notification and token it is to be pushed to, written in the
 * notification's own transaction, delivered after commit by the push worker
 * (src/modules/notifications/push.worker.ts). `token` and `platform` are copied from the registration,
 * so the row outlives a token pruned or moved later. States: pending → sending → sent | failed |
 * pruned | skipped; a row left `sending` by a crash is pending again at the next start (at least once).
 */
export const pushDeliveries = sqliteTable(
  'push_deliveries',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    notification_id: integer('notification_id')
      .notNull()
      .references(() => notifications.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    token: text('token').notNull(),
    platform: text('platform').$type<'android' | 'ios' | 'web'>().notNull(),
    status: text('status').$type<'pending' | 'sending' | 'sent' | 'failed' | 'pruned' | 'skipped'>().notNull(),
    /** Sends tried so far (at most 6). */
    attempts: integer('attempts').notNull().default(0),
    /** When the next try is due (pending rows). */
    next_attempt_at: text('next_attempt_at').notNull(),
    /** The push service's HTTP status of the last try (null: none yet, or a network error). */
    last_status: integer('last_status'),
    last_error: text('last_error'),
    sent_at: timestamp('sent_at'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('push_deliveries_notification_token').on(t.notification_id, t.token), index('push_deliveries_due').on(t.status, t.next_attempt_at)],
)
