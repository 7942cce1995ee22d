/** What the workspaces module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const workspacesManifest = {
  permissions: [{ key: 'workspace.manage', group: 'administration', description: 'Create workspaces and change their settings', superAdminOnly: true }],
  auditEntityTypes: ['workspace'],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'workspace', true> {}
}
