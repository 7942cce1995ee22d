/** What the catalogue module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const catalogueManifest = {
  permissions: [
    ...entityPermissions('principal', 'principals', 'catalogue', { fieldUser: 'view' }),
    ...entityPermissions('product', 'products', 'catalogue', { fieldUser: 'view' }),
  ],
  auditEntityTypes: ['principal', 'product'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'principal' | 'product', true> {}
}
