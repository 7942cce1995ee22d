/**
 * What the journey-plans module declares to the kernel (../../platform/manifest.ts). Plans and holidays
 * are in the office change feed (GET /office/v1/changes); phones do not get them: a phone receives the
 * visits a plan generates (ordinary visits, already in its sync), which is all the field app needs.
 */
import { plansByIds } from './journey-plans.service'
import { holidaysByIds } from './holidays.service'
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'

export const journeyPlansManifest = {
  permissions: [
    { key: 'journey_plan.view', group: 'journey plans', description: 'List and read journey plans and holidays' },
    {
      key: 'journey_plan.manage',
      group: 'journey plans',
      description: 'Create, update and delete journey plans and holidays, import stops, generate visits',
      grants: { manager: 'full' },
    },
  ],
  auditEntityTypes: ['journey_plan', 'holiday'],
  syncFeed: [
    {
      ...workspaceFeed('journey_plans', 'journey_plan', 'journey_plan.view', plansByIds, false),
      // A plan lists its stops' outlet names.
      shows: [
        {
          table: 'outlets',
          columns: ['name'],
          rows: (r) =>
            `SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM journey_plans WHERE id IN (SELECT plan_id FROM journey_plan_stops WHERE outlet_id = ${r}.id) AND deleted_at IS NULL`,
        },
      ],
    },
    // Replacing the stops changes the plan (its detail lists them).
    {
      table: 'journey_plan_stops',
      events: ['insert', 'delete'],
      refreshes: [
        {
          entity: 'journey_plan',
          rows: (r) =>
            `SELECT workspace_id AS ws, id, CASE WHEN journey_plans.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM journey_plans WHERE id = ${r}.plan_id`,
        },
      ],
    },
    {
      table: 'holidays',
      entity: { name: 'holiday', reach: 'workspace', deletes: 'hard', webKey: 'journey_plan.view', mobileKey: null, load: holidaysByIds },
    },
  ],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'journey_plan' | 'holiday', true> {}
}
