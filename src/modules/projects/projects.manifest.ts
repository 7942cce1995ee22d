/** What the projects module declares to the kernel (../../platform/manifest.ts). */
import { projectsByIds } from './projects.service'
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const projectsManifest = {
  permissions: entityPermissions('project', 'projects', 'projects', { fieldUser: 'view' }),
  auditEntityTypes: ['project'],
  syncFeed: [
    {
      ...workspaceFeed('projects', 'project', 'project.view', projectsByIds),
      // A project lists its forms with their titles.
      shows: [
        {
          table: 'forms',
          columns: ['title'],
          rows: (r) =>
            `SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM projects WHERE id IN (SELECT project_id FROM project_forms WHERE form_id = ${r}.id) AND deleted_at IS NULL`,
        },
      ],
    },
    // Linking or unlinking a form changes the project.
    {
      table: 'project_forms',
      refreshes: [
        {
          entity: 'project',
          rows: (r) =>
            `SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = ${r}.project_id`,
        },
      ],
    },
  ],
  searchIndex: [{ table: 'projects', columns: ['name_key', 'code_key'] }],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'project', true> {}
}
