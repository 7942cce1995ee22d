/** What the projects module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const projectsManifest = {
  permissions: entityPermissions('project', 'projects', 'projects', { fieldUser: 'view' }),
  auditEntityTypes: ['project'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'project', true> {}
}
