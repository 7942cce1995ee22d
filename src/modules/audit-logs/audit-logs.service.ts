/**
 * Reading the audit log (docs/API.md §Audit log, §Roles and permissions). There are no write routes: entries are
 * written only by withTransaction, and the table refuses UPDATE and DELETE.
 *
 * Who sees what:
 * - super_admin: every workspace in which they are, today, an active member whose role there holds
 *   `audit_log.view` for the whole workspace (a workspace where they were demoted to `user` or
 *   `manager`, or deactivated, is not covered), optionally one of them via `workspace_id`;
 * - manager: their own workspace, and only entries whose actor is the manager or a member (or the
 *   leader) of a team the manager leads or belongs to;
 * - anyone else holding audit_log.view: their own workspace; `workspace_id` is ignored.
 */
import { and, asc, count, desc, eq, gte, inArray, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { preparedShapes, preparedVariants, type ListShape } from '../../db/prepared'
import { auditLogs, memberships, roles, teamMembers, teams } from '../../db/schema'
import { acrossWorkspaces, workspaceScoped } from '../../platform/data/scope'
import { permissionsOf } from '../../platform/actor'
import type { AuthedContext } from '../../platform/context'
import { dateBound } from '../../lib/dates'
import { NotFound } from '../../lib/errors'
import { foldText, pageMeta, paging, updatedSinceAt, updatedSinceOf, type ListLimits } from '../../platform/data/pagination'
import { can } from '../../platform/permissions'
import { teamScope } from '../teams'
import type { AuditLogQuery } from './audit-logs.schemas'

export const AUDIT_LOG_LIST: ListLimits = { defaultLimit: 50, maxLimit: 100 }

/**
 * What the caller may read at all, as a shape (which condition) and its values. A super_admin's
 * workspaces are bound one placeholder each (the shape knows how many): `workspace_id IN (?, ?)`
 * keeps the (workspace, …, created_at) index order for the page, where `IN (SELECT … json_each)`
 * made SQLite sort every matching entry. A manager's
 * team, a longer list used as a filter only, goes in as one JSON parameter.
 */
/** A workspace's audit log (append-only). */
const auditLogScope = workspaceScoped(auditLogs)

type Visibility =
  | { kind: 'own'; workspaceId: number }
  | { kind: 'team'; workspaceId: number; actorIds: number[] }
  | { kind: 'workspaces'; workspaceIds: number[] }

/**
 * The workspaces whose whole audit log the user may read today: active memberships whose role holds
 * `audit_log.view` on the web. A manager's view is limited to their teams in their own workspace, so
 * a workspace where the user is a manager is not covered from another one. Read fresh on every call,
 * so a demotion or deactivation takes effect on the next request.
 */
async function auditableWorkspaceIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db
    .select({ workspaceId: memberships.workspace_id, role: roles.slug, isBuiltin: roles.is_builtin, grants: sql<string>`${roles.permissions}` })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(and(eq(memberships.user_id, userId), isNull(memberships.deleted_at), eq(memberships.is_active, true)))
  return rows.filter((row) => row.role !== 'manager' && can(permissionsOf(row), 'audit_log.view', 'web', 'view')).map((row) => row.workspaceId)
}

/**
 * The users whose actions a manager may read in the audit log: the manager, and everyone in a team
 * the manager leads or belongs to (members and leaders).
 */
export async function teamScopeOf(db: Db, workspaceId: number, userId: number): Promise<number[]> {
  const related = await db
    .select({ id: teams.id, leader: teams.leader_id })
    .from(teams)
    .where(
      teamScope.where(
        workspaceId,
        or(eq(teams.leader_id, userId), sql`${teams.id} in (select ${teamMembers.team_id} from ${teamMembers} where ${teamMembers.user_id} = ${userId})`),
      ),
    )
  const ids = new Set<number>([userId])
  for (const team of related) if (team.leader !== null) ids.add(team.leader)
  if (related.length > 0) {
    const members = await db
      .select({ id: teamMembers.user_id })
      .from(teamMembers)
      .where(
        inArray(
          teamMembers.team_id,
          related.map((team) => team.id),
        ),
      )
    for (const member of members) ids.add(member.id)
  }
  return [...ids]
}

async function visibilityOf(ctx: AuthedContext, requestedWorkspace?: number): Promise<Visibility> {
  const { actor } = ctx
  if (actor.role === 'super_admin') {
    const accessible = await auditableWorkspaceIds(ctx.deps.db.read, actor.userId)
    return { kind: 'workspaces', workspaceIds: requestedWorkspace === undefined ? accessible : accessible.filter((id) => id === requestedWorkspace) }
  }
  if (actor.role === 'manager') {
    return { kind: 'team', workspaceId: actor.workspaceId, actorIds: await teamScopeOf(ctx.deps.db.read, actor.workspaceId, actor.userId) }
  }
  return { kind: 'own', workspaceId: actor.workspaceId }
}

/** The shape key of a visibility: its kind, and for workspaces how many. */
const visibilityShape = (visibility: Visibility) => (visibility.kind === 'workspaces' ? `workspaces:${visibility.workspaceIds.length}` : visibility.kind)

function visibilityCondition(shape: string): SQL {
  if (shape.startsWith('workspaces:')) {
    const count = Number(shape.slice('workspaces:'.length))
    if (count === 0) return sql`0`
    return acrossWorkspaces(auditLogs, "a super_admin's audit list covers every workspace they may audit").in(
      Array.from({ length: count }, (_, i) => sql.placeholder(`workspace${i}`)),
    )
  }
  const own = auditLogScope.where(sql.placeholder('workspaceId'))
  return shape === 'team' ? and(own, sql`${auditLogs.actor_id} in (select value from json_each(${sql.placeholder('actorIds')}))`)! : own
}

function visibilityParams(visibility: Visibility): Record<string, unknown> {
  if (visibility.kind === 'workspaces') return Object.fromEntries(visibility.workspaceIds.map((id, i) => [`workspace${i}`, id]))
  if (visibility.kind === 'team') return { workspaceId: visibility.workspaceId, actorIds: JSON.stringify(visibility.actorIds) }
  return { workspaceId: visibility.workspaceId }
}

/** The list's filters as they reach SQL (absent ones left out); `to` is exclusive for a calendar date. */
type Filters = {
  entity_type?: string
  entity_id?: string
  action?: string
  actor_id?: number
  from?: string
  to?: string
  to_exclusive?: string
  keyword?: string
  updated_since?: string
}

/** Built in a fixed order: its keys are part of a prepared statement's shape. */
function filtersOf(query: AuditLogQuery, timeZone: string): Filters {
  const filters: Filters = {}
  if (query.entity_type) filters.entity_type = query.entity_type
  if (query.entity_id) filters.entity_id = query.entity_id
  if (query.action) filters.action = query.action
  if (query.actor_id !== undefined) filters.actor_id = query.actor_id
  if (query.date_from) filters.from = dateBound(query.date_from, 'date_from', timeZone).at
  if (query.date_to) {
    const to = dateBound(query.date_to, 'date_to', timeZone)
    if (to.inclusive) filters.to = to.at
    else filters.to_exclusive = to.at
  }
  const keyword = query.keyword?.trim() ? foldText(query.keyword.trim()) : undefined
  if (keyword) filters.keyword = keyword
  const updatedSince = updatedSinceOf(query)
  if (updatedSince) filters.updated_since = updatedSince
  return filters
}

/** The page and count statements of one shape, prepared once per connection; 64 shapes kept. */
const listStatements = preparedShapes(
  (db, shape: ListShape) => {
    const has = new Set(shape.filters)
    const value = (name: keyof Filters) => sql.placeholder(name)
    const where = and(
      visibilityCondition(shape.scope),
      has.has('entity_type') ? eq(auditLogs.entity_type, value('entity_type')) : undefined,
      has.has('entity_id') ? eq(auditLogs.entity_id, value('entity_id')) : undefined,
      has.has('action') ? eq(auditLogs.action, value('action')) : undefined,
      has.has('actor_id') ? eq(auditLogs.actor_id, value('actor_id')) : undefined,
      has.has('from') ? gte(auditLogs.created_at, value('from')) : undefined,
      has.has('to') ? lte(auditLogs.created_at, value('to')) : undefined,
      has.has('to_exclusive') ? lt(auditLogs.created_at, value('to_exclusive')) : undefined,
      // Entries are never updated: an entry's last change is its creation.
      has.has('updated_since') ? updatedSinceAt(value('updated_since'), auditLogs.created_at) : undefined,
      has.has('keyword')
        ? or(
            sql`instr(lower(${auditLogs.actor_name}), ${value('keyword')}) > 0`,
            sql`instr(lower(${auditLogs.entity_name}), ${value('keyword')}) > 0`,
            sql`instr(${auditLogs.entity_type}, ${value('keyword')}) > 0`,
            sql`instr(${auditLogs.action}, ${value('keyword')}) > 0`,
            sql`instr(lower(${auditLogs.actor_role}), ${value('keyword')}) > 0`,
            eq(auditLogs.entity_id, value('keyword')),
          )
        : undefined,
    )
    const direction = shape.sortOrder === 'asc' ? asc : desc
    const sortColumn = shape.sortBy === 'id' ? auditLogs.id : auditLogs.created_at
    return {
      page: db
        .select()
        .from(auditLogs)
        .where(where)
        .orderBy(direction(sortColumn), direction(auditLogs.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
      count: db.select({ total: count() }).from(auditLogs).where(where).prepare(),
    }
  },
  { max: 64 },
)

export async function listAuditLogs(ctx: AuthedContext, query: AuditLogQuery) {
  const page = paging(query, AUDIT_LOG_LIST)
  const filters = filtersOf(query, ctx.actor.timeZone)
  const visibility = await visibilityOf(ctx, query.workspace_id)
  const statements = listStatements(ctx.deps.db.read, {
    scope: visibilityShape(visibility),
    sortBy: query.sort_by ?? 'created_at',
    sortOrder: query.sort_order ?? 'desc',
    filters: Object.keys(filters),
  })
  const params = { ...filters, ...visibilityParams(visibility), limit: page.limit, offset: page.offset }
  const rows = await statements.page.all(params)
  const [counted] = await statements.count.all(params)
  return { data: rows, meta: pageMeta(page, counted?.total ?? 0) }
}

const entryStatement = preparedVariants(
  (db, shape: string) =>
    db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.id, sql.placeholder('id')), visibilityCondition(shape)))
      .limit(1)
      .prepare(),
  { max: 64 },
)

export async function getAuditLog(ctx: AuthedContext, id: number) {
  const visibility = await visibilityOf(ctx)
  const [row] = await entryStatement(ctx.deps.db.read, visibilityShape(visibility)).all({ id, ...visibilityParams(visibility) })
  if (!row) throw new NotFound('AUDIT_LOG')
  return row
}
