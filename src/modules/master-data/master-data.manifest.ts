/** What the master-data module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const masterDataManifest = {
  permissions: [
    ...entityPermissions('channel_group', 'channel groups', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('channel', 'channels', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('account', 'accounts', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('sub_area', 'sub-areas', 'master_data', { fieldUser: 'view' }),
  ],
  auditEntityTypes: ['channel_group', 'channel', 'account', 'sub_area'],
  syncFeed: [
    workspaceFeed('channel_groups', 'channel_group', 'channel_group.view'),
    // A channel shows its group {id, name}; an account its channel {id, name, created_at, updated_at}.
    { ...workspaceFeed('channels', 'channel', 'channel.view'), shows: [{ table: 'channel_groups', columns: ['name'], via: 'channel_group_id' }] },
    { ...workspaceFeed('accounts', 'account', 'account.view'), shows: [{ table: 'channels', columns: ['name', 'updated_at'], via: 'channel_id' }] },
    workspaceFeed('sub_areas', 'sub_area', 'sub_area.view'),
  ],
  searchIndex: [
    { table: 'channel_groups', columns: ['name_key'] },
    { table: 'channels', columns: ['name_key'] },
    { table: 'accounts', columns: ['name_key'] },
    { table: 'sub_areas', columns: ['name_key'] },
  ],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'channel_group' | 'channel' | 'account' | 'sub_area', true> {}
}
