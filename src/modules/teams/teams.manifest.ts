/** What the teams module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const teamsManifest = {
  permissions: entityPermissions('team', 'teams', 'teams'),
  auditEntityTypes: ['team'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'team', true> {}
}
