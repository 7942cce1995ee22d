/** What the visits module declares to the kernel (../../platform/manifest.ts). */
import { submissionsByIds, visitDetailsByIds } from './visits.queries'
import { topics } from '../../platform/realtime/hub'
import type { ModuleManifest } from '../../platform/manifest'
import { can } from '../../platform/permissions'
import { liveOp, type Refresh } from '../../platform/data/sync-feed'

/**
 * Where `visit.updated` goes: the workspace's topic for visit:view holders (web), and each assignee's
 * own. A socket joins one of the two, so an assignee who also reads all visits gets each update once.
 */
export const visitTopics = {
  all: (workspaceId: number) => topics.workspace(workspaceId, 'visits'),
  assignedTo: (workspaceId: number, userId: number) => topics.ofUser(workspaceId, userId, 'visits'),
}

/** A write of a visit's row (a submission, a log entry) changes the visit. */
const theVisit: Refresh = { entity: 'visit', id: (r) => `${r}.visit_id`, op: (r) => liveOp('visits', `${r}.visit_id`), visit: (r) => `${r}.visit_id` }
const visitEntity = { reach: 'assignees', deletes: 'soft', webKey: 'visit:view', mobileKey: 'visit:view' } as const

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
  syncFeed: [
    {
      table: 'visits',
      entity: { name: 'visit', visit: 'id', ...visitEntity, load: visitDetailsByIds },
      // A visit shows its outlet {id, name, address}, its project {id, name} and its team {id, name}.
      shows: [
        { table: 'outlets', columns: ['name', 'address'], via: 'outlet_id' },
        { table: 'projects', columns: ['name'], via: 'project_id' },
        { table: 'teams', columns: ['name'], via: 'team_id' },
      ],
    },
    { table: 'submissions', entity: { name: 'submission', visit: 'visit_id', ...visitEntity, load: submissionsByIds }, refreshes: [theVisit] },
    { table: 'visit_logs', events: ['insert'], refreshes: [theVisit] },
    { table: 'visit_assignees', events: ['insert', 'delete'], assigns: { visit: 'visit_id', user: 'user_id' } },
  ],
  notSynced: { visit_dispatches: 'who sent which visit to whom: read on the visit’s own routes; the phone learns of a dispatch by the visit itself' },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'visit' | 'submission', true> {}
}
