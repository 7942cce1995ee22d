/** What the forms module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const formsManifest = {
  permissions: entityPermissions('form', 'forms', 'forms', { fieldUser: 'view' }),
  auditEntityTypes: ['form'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'form', true> {}
}
