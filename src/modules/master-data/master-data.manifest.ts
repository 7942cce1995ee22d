/** What the master-data module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const masterDataManifest = {
  permissions: [
    ...entityPermissions('channel_group', 'channel groups', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('channel', 'channels', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('account', 'accounts', 'master_data', { fieldUser: 'view' }),
    ...entityPermissions('sub_area', 'sub-areas', 'master_data', { fieldUser: 'view' }),
  ],
  auditEntityTypes: ['channel_group', 'channel', 'account', 'sub_area'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'channel_group' | 'channel' | 'account' | 'sub_area', true> {}
}
