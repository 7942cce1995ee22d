/** What the users module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const usersManifest = {
  permissions: entityPermissions('user', 'users', 'administration'),
  auditEntityTypes: ['user'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'user', true> {}
}
