/** What the roles module declares to the kernel (../../platform/manifest.ts). */
import { rolesByIds } from './roles.service'
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const rolesManifest = {
  permissions: entityPermissions('role', 'roles', 'administration'),
  auditEntityTypes: ['role', 'permission'],
  syncFeed: [workspaceFeed('roles', 'role', 'role.view', rolesByIds, false)],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'role' | 'permission', true> {}
}
