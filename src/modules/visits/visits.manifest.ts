/** What the visits module declares to the kernel (../../platform/manifest.ts). */
import { topics } from '../../platform/realtime/hub'
import type { ModuleManifest } from '../../platform/manifest'
import { can } from '../../platform/permissions'

/**
 * Where `visit.updated` goes: the workspace's topic for visit:view holders (web), and each assignee's
 * own. A socket joins one of the two, so an assignee who also reads all visits gets each update once.
 */
export const visitTopics = {
  all: (workspaceId: number) => topics.workspace(workspaceId, 'visits'),
  assignedTo: (workspaceId: number, userId: number) => topics.ofUser(workspaceId, userId, 'visits'),
}

export const visitsManifest = {
  permissions: [
    { key: 'visit:view', group: 'visits', description: 'Read visits and their submissions', grants: { fieldUser: 'view', manager: 'view' } },
    { key: 'visit:create', group: 'visits', description: 'Plan, assign, cancel and close visits', grants: { fieldUser: 'full', manager: 'full' } },
    { key: 'visit:execute', group: 'visits', description: 'Check in, submit forms and check out of own visits', grants: { fieldUser: 'full' } },
    { key: 'submission:approve', group: 'visits', description: 'Approve or reject submissions', grants: { manager: 'full' } },
  ],
  auditEntityTypes: ['visit', 'submission'],
  socketChannels: [
    {
      topics: ({ permissions, workspaceId, userId }) => [
        can(permissions, 'visit:view', 'web', 'view') ? visitTopics.all(workspaceId) : visitTopics.assignedTo(workspaceId, userId),
      ],
    },
  ],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'visit' | 'submission', true> {}
}
