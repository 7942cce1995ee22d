/** What the users module declares to the kernel (../../platform/manifest.ts). */
import { usersByIds } from './users.service'
import type { ModuleManifest } from '../../platform/manifest'
import { membershipRows, type SyncFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

const user = { name: 'user', reach: 'workspace', deletes: 'soft', webKey: 'user.view', mobileKey: null, load: usersByIds } satisfies NonNullable<
  SyncFeed['entity']
>

export const usersManifest = {
  permissions: entityPermissions('user', 'users', 'administration'),
  auditEntityTypes: ['user'],
  syncFeed: [
    {
      // A user of the workspace is their membership of it: live while both are.
      table: 'users',
      entity: { ...user, rows: (r) => membershipRows('memberships', 'm.deleted_at IS NULL', ` WHERE m.user_id = ${r}.id`) },
      events: ['update'],
      shows: [
        // A user shows their role {id, slug, name} and lists the ids of their live teams.
        {
          table: 'roles',
          columns: ['name', 'slug'],
          rows: (r) =>
            `SELECT workspace_id AS ws, user_id AS id, 'upsert' AS op, NULL AS visit_id FROM memberships WHERE role_id = ${r}.id AND deleted_at IS NULL`,
        },
        {
          table: 'teams',
          columns: ['deleted_at'],
          rows: (r) => `SELECT workspace_id AS ws, user_id AS id, 'upsert' AS op, NULL AS visit_id FROM team_members WHERE team_id = ${r}.id`,
        },
      ],
      // Names and e-mails of people appear inside visits (assignees), submissions (submitter, reviewer), attendances and teams.
      cascades: [
        {
          name: 'names',
          columns: ['name', 'email'],
          refreshes: [
            {
              entity: 'visit',
              rows: (r) =>
                `SELECT v.workspace_id AS ws, v.id, 'upsert' AS op, v.id AS visit_id FROM visits v WHERE v.deleted_at IS NULL AND (v.id IN (SELECT visit_id FROM visit_assignees WHERE user_id = ${r}.id) OR v.id IN (SELECT visit_id FROM submissions WHERE submitted_by = ${r}.id OR reviewed_by = ${r}.id))`,
            },
            {
              entity: 'submission',
              rows: (r) =>
                `SELECT workspace_id AS ws, id, 'upsert' AS op, visit_id FROM submissions WHERE deleted_at IS NULL AND (submitted_by = ${r}.id OR reviewed_by = ${r}.id)`,
            },
            { entity: 'attendance', rows: (r) => `SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM attendances WHERE user_id = ${r}.id` },
            {
              entity: 'team',
              rows: (r) =>
                `SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM teams WHERE deleted_at IS NULL AND (leader_id = ${r}.id OR id IN (SELECT team_id FROM team_members WHERE user_id = ${r}.id))`,
            },
          ],
        },
      ],
    },
    {
      table: 'memberships',
      entity: {
        ...user,
        rows: (r, event) =>
          membershipRows(
            `(SELECT ${r}.workspace_id AS workspace_id, ${r}.user_id AS user_id, ${r}.deleted_at AS deleted_at)`,
            event === 'delete' ? '1 = 0' : 'm.deleted_at IS NULL',
          ),
      },
    },
  ],
  searchIndex: [{ table: 'users', columns: [{ column: 'name', lower: true }, 'email'] }],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'user', true> {}
}
