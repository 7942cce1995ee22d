/** What the master-data module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { accountDefinition, channelDefinition, channelGroupDefinition, subAreaDefinition } from './master-data.entities'
import { masterDataService } from './master-data.resource'
import type { MasterDataDefinition, MasterTable } from './master-data.types'
import { type FeedLoader, workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

/** A table's live rows among `ids` as its detail answers them (the change feeds' loader). */
const byIds = <T extends MasterTable, C extends MasterTable>(definition: MasterDataDefinition<T, C>): FeedLoader => {
  const service = masterDataService(definition)
  return (db, workspaceId, ids) => service.byIds(db, workspaceId, ids)
}

export const masterDataManifest = {
  permissions: [
    ...entityPermissions('channel_group', 'channel groups', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('channel', 'channels', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('account', 'accounts', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('sub_area', 'sub-areas', 'master_data', { fieldUser: 'view' }),
  ],
  auditEntityTypes: ['channel_group', 'channel', 'account', 'sub_area'],
  syncFeed: [
    workspaceFeed('channel_groups', 'channel_group', 'channel_group.view', byIds(channelGroupDefinition)),
    // A channel shows its group {id, name}; an account its channel {id, name, created_at, updated_at}.
    {
      ...workspaceFeed('channels', 'channel', 'channel.view', byIds(channelDefinition)),
      shows: [{ table: 'channel_groups', columns: ['name'], via: 'channel_group_id' }],
    },
    {
      ...workspaceFeed('accounts', 'account', 'account.view', byIds(accountDefinition)),
      shows: [{ table: 'channels', columns: ['name', 'updated_at'], via: 'channel_id' }],
    },
    workspaceFeed('sub_areas', 'sub_area', 'sub_area.view', byIds(subAreaDefinition)),
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
