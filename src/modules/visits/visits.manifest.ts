/** What the visits module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const visitsManifest = {
  permissions: [
    { key: 'visit:view', group: 'visits', description: 'Read visits and their submissions', grants: { fieldUser: 'view', manager: 'view' } },
    { key: 'visit:create', group: 'visits', description: 'Plan, assign, cancel and close visits', grants: { fieldUser: 'full', manager: 'full' } },
    { key: 'visit:execute', group: 'visits', description: 'Check in, submit forms and check out of own visits', grants: { fieldUser: 'full' } },
    { key: 'submission:approve', group: 'visits', description: 'Approve or reject submissions', grants: { manager: 'full' } },
  ],
  auditEntityTypes: ['visit', 'submission'],
} satisfies ModuleManifest

declare module '../../platform/audit' {
  interface AuditEntityTypes extends Record<'visit' | 'submission', true> {}
}
