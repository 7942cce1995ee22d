import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { createdAt, id, json } from '../columns'
import { workspaces } from './workspaces'

/**
 * Append-only: the migration adds triggers that refuse UPDATE and DELETE, so not even a bug in the
 * service can rewrite history.
 */
export const auditLogs = sqliteTable(
  'audit_logs',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    actor_id: integer('actor_id'),
    actor_name: text('actor_name').notNull(),
    actor_role: text('actor_role').notNull(),
    entity_type: text('entity_type').notNull(),
    entity_id: text('entity_id').notNull(),
    entity_name: text('entity_name').notNull(),
    action: text('action').notNull(),
    old_values: json<Record<string, unknown> | null>('old_values'),
    new_values: json<Record<string, unknown> | null>('new_values'),
    metadata: json<AuditMetadata>('metadata').notNull(),
    created_at: createdAt(),
  },
  (t) => [
    index('audit_logs_workspace_created').on(t.workspace_id, t.created_at),
    index('audit_logs_workspace_entity').on(t.workspace_id, t.entity_type, t.entity_id),
    // The audit list filtered by entity type and action over a date range, counted per page.
    index('audit_logs_workspace_type_action_created').on(t.workspace_id, t.entity_type, t.action, t.created_at),
    index('audit_logs_workspace_actor').on(t.workspace_id, t.actor_id, t.created_at),
  ],
)

export interface AuditMetadata {
  ip: string | null
  user_agent: string | null
  request_id: string
  timestamp: string
}

export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    key: text('key').notNull(),
    /** SHA-256 over user id, method, path with query and the SHA-256 of the raw body. */
    fingerprint: text('fingerprint').notNull(),
    response_status: integer('response_status').notNull().default(200),
    /** Path of the resource the first run created (`/api/office/v1/outlets/45`), sent as Location on a replay. */
    location: text('location'),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('idempotency_keys_workspace_key').on(t.workspace_id, t.key), index('idempotency_keys_created').on(t.created_at)],
)
