import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { createdAt, deletedAt, id, updatedAt } from '../columns'
import { workspaces } from './workspaces'

/**
 * Outlet classification: ChannelGroup → Channel → Account, and the independent SubArea list.
 * `name_key` is the name folded for comparison (NFKC, lower case); it carries the case-insensitive
 * uniqueness among live rows and the keyword search, and never leaves the service.
 */
const live = sql`deleted_at is null`

export const channelGroups = sqliteTable(
  'channel_groups',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('channel_groups_workspace_name_live').on(t.workspace_id, t.name_key).where(live),
    index('channel_groups_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
  ],
)

export const channels = sqliteTable(
  'channels',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    channel_group_id: integer('channel_group_id')
      .notNull()
      .references(() => channelGroups.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    index('channels_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
    index('channels_workspace_group_live').on(t.workspace_id, t.channel_group_id).where(live),
  ],
)

export const accounts = sqliteTable(
  'accounts',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    channel_id: integer('channel_id')
      .notNull()
      .references(() => channels.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    index('accounts_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
    index('accounts_workspace_channel_live').on(t.workspace_id, t.channel_id).where(live),
  ],
)

export const subAreas = sqliteTable(
  'sub_areas',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('sub_areas_workspace_name_live').on(t.workspace_id, t.name_key).where(live),
    index('sub_areas_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
  ],
)
