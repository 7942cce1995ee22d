/** What the roles module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const rolesManifest = {
  permissions: entityPermissions('role', 'roles', 'administration'),
  auditEntityTypes: ['role', 'permission'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'role' | 'permission', true> {}
}
