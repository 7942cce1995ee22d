/**
 * The plans of the hot shapes of the visit lists (office, my visits) and the audit log, as declared with
 * defineList (src/platform/data/list.ts): each prepared statement (page and total) is an index search of
 * its table, never a SCAN of visits or audit_logs, and the page needs no sort of its own where an index
 * gives its order. `bun scripts/plans.ts` prints every shape's SQL and plan (docs/PERFORMANCE.md).
 */
import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { auditLogList } from '../src/modules/audit-logs'
import { visitList } from '../src/modules/visits'
import type { AuthedContext } from '../src/platform/context'
import { useTestApp } from './harness'

const t = useTestApp()

/** A caller of workspace 1, as the kernel hands it to a service (only what a list reads of it matters). */
const caller = () =>
  ({
    deps: t.app.deps,
    actor: {
      userId: 7,
      workspaceId: 1,
      name: 'Caller',
      email: 'caller@example.com',
      roleId: 1,
      role: 'super_admin',
      permissions: new Map(),
      timeZone: 'Asia/Jakarta',
    },
    meta: { requestId: 'plans', ip: null, userAgent: null, timestamp: '2026-11-20T03:00:00.000Z' },
    idempotency: null,
  }) as unknown as AuthedContext

/** EXPLAIN QUERY PLAN of a statement's text, its parameters unbound. */
async function planOf(text: string): Promise<string> {
  const rows = (await t.app.db.read.all(sql.raw(`EXPLAIN QUERY PLAN ${text}`))) as { detail: string }[]
  return rows.map((row) => row.detail).join('\n')
}
async function plansOf(statements: Promise<{ rows: string; total: string }>) {
  const { rows, total } = await statements
  return { rows: await planOf(rows), total: await planOf(total) }
}
const month = { date_from: '2026-11-01', date_to: '2026-11-30' }

describe('visit lists', () => {
  test('office, a status of one team within dates: a range of the (workspace, team, date) index, in its order', async () => {
    const plans = await plansOf(visitList.sqlOf(caller(), { access: { mine: false }, status: 'completed', team_id: 3, ...month }))
    expect(plans.rows).toContain('SEARCH visits USING INDEX visits_workspace_team_date_live (workspace_id=? AND team_id=? AND visit_date>? AND visit_date<?)')
    expect(plans.rows).not.toContain('TEMP B-TREE')
    expect(plans.total).toMatch(/SEARCH visits USING (COVERING )?INDEX visits_workspace_\w+ \(workspace_id=\? AND/)
    for (const plan of [plans.rows, plans.total]) expect(plan).not.toMatch(/SCAN visits\b/)
  })

  test('office, no filter: a range of the (workspace, date) index', async () => {
    const plans = await plansOf(visitList.sqlOf(caller(), { access: { mine: false } }))
    expect(plans.rows).toContain('SEARCH visits USING INDEX visits_workspace_date_live (workspace_id=?)')
    for (const plan of [plans.rows, plans.total]) expect(plan).not.toMatch(/SCAN visits\b/)
  })

  test("my visits of a day, by date or in route order (the phone's default): the caller's assignments by the (workspace, user, date) index, the visits by date", async () => {
    const day = { access: { mine: true }, date_from: '2026-11-20', date_to: '2026-11-20' }
    const byDate = await plansOf(visitList.sqlOf(caller(), day))
    const byRoute = await plansOf(visitList.sqlOf(caller(), { ...day, sort_by: 'route', sort_order: 'desc' }))
    for (const plan of [byDate.rows, byDate.total, byRoute.rows, byRoute.total]) {
      expect(plan).toContain(
        'SEARCH visit_assignees USING COVERING INDEX visit_assignees_workspace_user_date (workspace_id=? AND user_id=? AND visit_date>? AND visit_date<?)',
      )
      expect(plan).toMatch(/SEARCH visits USING (COVERING )?INDEX visits_workspace_date_live \(workspace_id=\? AND visit_date>\? AND visit_date<\?\)/)
      expect(plan).not.toMatch(/SCAN visits\b/)
    }
  })
})

describe('audit log', () => {
  const visibilities = [
    { kind: 'workspaces' as const, workspaceIds: [1] },
    { kind: 'own' as const, workspaceId: 1 },
    { kind: 'team' as const, workspaceId: 1, actorIds: [7, 8] },
  ]

  test('entries of one entity type and action within dates, for every caller: a range of the (workspace, type, action, created) index', async () => {
    for (const visibility of visibilities) {
      const plans = await plansOf(auditLogList.sqlOf(caller(), { visibility, entity_type: 'visit', action: 'updated', ...month }))
      expect(plans.rows).toContain(
        'SEARCH audit_logs USING INDEX audit_logs_workspace_type_action_created (workspace_id=? AND entity_type=? AND action=? AND created_at>? AND created_at<?)',
      )
      expect(plans.rows).not.toContain('TEMP B-TREE')
      expect(plans.total).toContain(
        'audit_logs_workspace_type_action_created (workspace_id=? AND entity_type=? AND action=? AND created_at>? AND created_at<?)',
      )
      for (const plan of [plans.rows, plans.total]) expect(plan).not.toMatch(/SCAN audit_logs\b/)
    }
  })

  test("a super_admin's workspaces, no filter: each workspace's (workspace, created) range; one workspace's in the index's order", async () => {
    for (const workspaceIds of [[1], [1, 2]]) {
      const plans = await plansOf(auditLogList.sqlOf(caller(), { visibility: { kind: 'workspaces', workspaceIds } }))
      expect(plans.rows).toContain('SEARCH audit_logs USING INDEX audit_logs_workspace_created (workspace_id=?)')
      if (workspaceIds.length === 1) expect(plans.rows).not.toContain('TEMP B-TREE')
      for (const plan of [plans.rows, plans.total]) expect(plan).not.toMatch(/SCAN audit_logs\b/)
    }
  })
})
