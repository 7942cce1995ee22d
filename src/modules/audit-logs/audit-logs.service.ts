/**
 * Reading the audit log (SPEC "Audit logs", CONTRACT §4, §6). There are no write routes: entries are
 * written only by withTransaction, and the table refuses UPDATE and DELETE.
 *
 * Who sees what:
 * - super_admin: every workspace they can access (active membership), optionally one of them via
 *   `workspace_id`;
 * - manager: their own workspace, and only entries whose actor is the manager or a member (or the
 *   leader) of a team the manager leads or belongs to;
 * - anyone else holding audit_log.view: their own workspace; `workspace_id` is ignored.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm'
import { auditLogs } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { dateBound } from '../../platform/dates'
import { NotFound } from '../../platform/errors'
import { foldText, pageMeta, paging, type ListLimits } from '../../platform/pagination'
import { teamScopeOf } from '../teams/teams.service'
import { accessibleWorkspaceIds } from '../workspaces/workspaces.service'

export const AUDIT_LOG_LIST: ListLimits = { defaultLimit: 50, maxLimit: 100 }

export interface AuditLogQuery {
  page?: number
  limit?: number
  keyword?: string
  entity_type?: string
  entity_id?: string
  action?: string
  actor_id?: number
  date_from?: string
  date_to?: string
  workspace_id?: number
  sort_by?: 'created_at' | 'id'
  sort_order?: 'asc' | 'desc'
}

/** The conditions limiting what the caller may read at all. */
async function visibility(ctx: AuthedContext, requestedWorkspace?: number): Promise<SQL> {
  const { actor } = ctx
  if (actor.role === 'super_admin') {
    const accessible = await accessibleWorkspaceIds(ctx.deps.db.read, actor.userId)
    const ids = requestedWorkspace === undefined ? accessible : accessible.filter((id) => id === requestedWorkspace)
    return ids.length > 0 ? inArray(auditLogs.workspace_id, ids) : sql`0`
  }
  const own = eq(auditLogs.workspace_id, actor.workspaceId)
  if (actor.role === 'manager') {
    return and(own, inArray(auditLogs.actor_id, await teamScopeOf(ctx.deps.db.read, actor.workspaceId, actor.userId)))!
  }
  return own
}

export async function listAuditLogs(ctx: AuthedContext, query: AuditLogQuery) {
  const page = paging(query, AUDIT_LOG_LIST)
  const from = query.date_from ? dateBound(query.date_from, 'date_from') : null
  const to = query.date_to ? dateBound(query.date_to, 'date_to') : null
  const keyword = query.keyword?.trim() ? foldText(query.keyword.trim()) : null
  const where = and(
    await visibility(ctx, query.workspace_id),
    query.entity_type ? eq(auditLogs.entity_type, query.entity_type) : undefined,
    query.entity_id ? eq(auditLogs.entity_id, query.entity_id) : undefined,
    query.action ? eq(auditLogs.action, query.action) : undefined,
    query.actor_id !== undefined ? eq(auditLogs.actor_id, query.actor_id) : undefined,
    from ? gte(auditLogs.created_at, from.at) : undefined,
    to ? (to.inclusive ? lte(auditLogs.created_at, to.at) : lt(auditLogs.created_at, to.at)) : undefined,
    keyword
      ? or(
          sql`instr(lower(${auditLogs.actor_name}), ${keyword}) > 0`,
          sql`instr(lower(${auditLogs.entity_name}), ${keyword}) > 0`,
          sql`instr(${auditLogs.entity_type}, ${keyword}) > 0`,
          sql`instr(${auditLogs.action}, ${keyword}) > 0`,
          sql`instr(lower(${auditLogs.actor_role}), ${keyword}) > 0`,
          eq(auditLogs.entity_id, keyword),
        )
      : undefined,
  )
  const direction = query.sort_order === 'asc' ? asc : desc
  const sortColumn = query.sort_by === 'id' ? auditLogs.id : auditLogs.created_at
  const db = ctx.deps.db.read
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(auditLogs).where(where).orderBy(direction(sortColumn), direction(auditLogs.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(auditLogs).where(where),
  ])
  return { data: rows, meta: pageMeta(page, total) }
}

export async function getAuditLog(ctx: AuthedContext, id: number) {
  const [row] = await ctx.deps.db.read
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.id, id), await visibility(ctx)))
    .limit(1)
  if (!row) throw new NotFound('AUDIT_LOG')
  return row
}
