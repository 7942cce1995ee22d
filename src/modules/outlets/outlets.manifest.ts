/** What the outlets module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const outletsManifest = {
  permissions: entityPermissions('outlet', 'outlets', 'outlets', { fieldUser: 'view' }),
  auditEntityTypes: ['outlet'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'outlet', true> {}
}
