/** What the outlets module declares to the kernel (../../platform/manifest.ts). */
import { outletsByIds } from './outlets.service'
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const outletsManifest = {
  permissions: entityPermissions('outlet', 'outlets', 'outlets', { fieldUser: 'view' }),
  auditEntityTypes: ['outlet'],
  syncFeed: [
    {
      ...workspaceFeed('outlets', 'outlet', 'outlet.view', outletsByIds),
      // An outlet shows its account {id, name, channel_id} and its sub-area {id, name}.
      shows: [
        { table: 'accounts', columns: ['name', 'channel_id'], via: 'account_id' },
        { table: 'sub_areas', columns: ['name'], via: 'sub_area_id' },
      ],
    },
  ],
  searchIndex: [{ table: 'outlets', columns: ['name_key', 'code_key'] }],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'outlet', true> {}
}
