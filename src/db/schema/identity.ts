import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { bool, createdAt, deletedAt, id, json, timestamp, updatedAt } from '../columns'
import { workspaces } from './workspaces'

/** Where a route is called from: `/office/v1/*` is `web`, `/app/v1/*` is `mobile`. */
export type Platform = 'web' | 'mobile'
/** `full` includes `view`. */
export type Access = 'full' | 'view'

/** One permission of a role, as stored in roles.permissions (the rules: src/platform/permissions.ts). */
export interface Grant {
  key: string
  platform: Platform
  access: Access
}

/** Built-in roles carry no grants here: theirs come from code (platform/permissions.ts). */
export const roles = sqliteTable(
  'roles',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    is_builtin: bool('is_builtin').notNull().default(false),
    permissions: json<Grant[]>('permissions').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [uniqueIndex('roles_workspace_slug_live').on(t.workspace_id, t.slug).where(sql`deleted_at is null`)],
)

/** A person. Email is unique across the service among live users and stored lower-case. */
export const users = sqliteTable(
  'users',
  {
    id: id(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    phone: text('phone'),
    password_hash: text('password_hash').notNull(),
    last_login_at: timestamp('last_login_at'),
    /** Workspace a plain login lands in (the last one switched to). */
    last_workspace_id: integer('last_workspace_id'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [uniqueIndex('users_email_live').on(t.email).where(sql`deleted_at is null`)],
)

/** A user's place in a workspace: role and active flag are per workspace. */
export const memberships = sqliteTable(
  'memberships',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    role_id: integer('role_id')
      .notNull()
      .references(() => roles.id),
    is_active: bool('is_active').notNull().default(true),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('memberships_workspace_user_live').on(t.workspace_id, t.user_id).where(sql`deleted_at is null`),
    index('memberships_user').on(t.user_id),
    index('memberships_role').on(t.role_id),
    index('memberships_workspace_created').on(t.workspace_id, t.created_at),
  ],
)

/** Opaque refresh tokens, stored as SHA-256 hashes; single use, rotated within a family. */
export const refreshTokens = sqliteTable(
  'refresh_tokens',
  {
    id: id(),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    family_id: text('family_id').notNull(),
    token_hash: text('token_hash').notNull().unique(),
    expires_at: text('expires_at').notNull(),
    /** When the token was rotated (its first use); a retry within 30 s of it is answered again. */
    used_at: timestamp('used_at'),
    revoked_at: timestamp('revoked_at'),
    /** The token this one was rotated into (the newest, after a retry); null while unused. */
    replaced_by_id: integer('replaced_by_id'),
    created_at: createdAt(),
  },
  (t) => [index('refresh_tokens_family').on(t.family_id), index('refresh_tokens_user').on(t.user_id)],
)

export const passwordResets = sqliteTable(
  'password_resets',
  {
    id: id(),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    token_hash: text('token_hash').notNull().unique(),
    expires_at: text('expires_at').notNull(),
    used_at: timestamp('used_at'),
    created_at: createdAt(),
  },
  (t) => [index('password_resets_user').on(t.user_id)],
)

/** Outgoing mail. Without SMTP_URL this table is the mailbox; with it, a record of what was sent. */
export const outbox = sqliteTable('outbox', {
  id: id(),
  to_address: text('to_address').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  created_at: createdAt(),
  sent_at: timestamp('sent_at'),
  error: text('error'),
})

/**
 * One row whose `value` changes whenever anything an access check reads changes: triggers on users,
 * memberships and roles bump it (migration 0008). The actor cache (src/platform/actor.ts) keeps a
 * caller's membership only while this value is unchanged, so a deactivation or a role edit made by
 * any process on this database takes effect on the very next request.
 */
export const authEpoch = sqliteTable('auth_epoch', {
  id: integer('id').primaryKey(),
  value: integer('value').notNull(),
})
