/** What the teams module declares to the kernel (../../platform/manifest.ts). */
import { teamsByIds } from './teams.service'
import type { ModuleManifest } from '../../platform/manifest'
import { membershipRows, workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const teamsManifest = {
  permissions: entityPermissions('team', 'teams', 'teams'),
  auditEntityTypes: ['team'],
  syncFeed: [
    workspaceFeed('teams', 'team', 'team.view', teamsByIds, false),
    // A member added or removed changes the team and the user (a user lists the ids of their live teams).
    {
      table: 'team_members',
      events: ['insert', 'delete'],
      refreshes: [
        {
          entity: 'team',
          rows: (r) =>
            `SELECT workspace_id AS ws, id, CASE WHEN teams.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM teams WHERE id = ${r}.team_id`,
        },
        {
          entity: 'user',
          rows: (r) => membershipRows('memberships', 'm.deleted_at IS NULL', ` WHERE m.user_id = ${r}.user_id AND m.workspace_id = ${r}.workspace_id`),
        },
      ],
    },
  ],
  notSearched: { teams: 'name_key is scanned (instr): a workspace holds few teams' },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'team', true> {}
}
