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
import { and, eq, gte, inArray, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { auditLogs, memberships, roles, teamMembers, teams } from '../../db/schema'
import { acrossWorkspaces, workspaceScoped } from '../../platform/data/scope'
import { currentAuthEpoch, permissionsOf } from '../../platform/actor'
import type { AuthedContext } from '../../platform/context'
import { dateBound } from '../../lib/dates'
import { NotFound } from '../../lib/errors'
import type { ListLimits } from '../../platform/data/pagination'
import { type Bound, type CallerVariants, defineList, type Variant } from '../../platform/data/list'
import { can } from '../../platform/permissions'
import { teamScope } from '../teams'
import type { AuditLogQuery } from './audit-logs.schemas'

export const AUDIT_LOG_LIST: ListLimits = { defaultLimit: 50, maxLimit: 100 }

/** A workspace's audit log (append-only). */
const auditLogScope = workspaceScoped(auditLogs)

type Visibility =
  | { kind: 'own'; workspaceId: number }
  | { kind: 'team'; workspaceId: number; actorIds: number[] }
  | { kind: 'workspaces'; workspaceIds: number[] }

/**
 * The workspaces whose whole audit log the user may read today: active memberships whose role holds
 * `audit_log.view` on the web. A manager's view is limited to their teams in their own workspace, so
 * a workspace where the user is a manager is not covered from another one. Fresh on every call, so a
 * demotion or deactivation takes effect on the next request: the answer is kept per user with the
 * auth epoch it was read at, which every write to users, memberships and roles changes (as the
 * authenticated member is, platform/actor.ts), and read again when the epoch moved.
 */
async function auditableWorkspaceIds(db: Db, userId: number): Promise<number[]> {
  let known = auditable.get(db)
  if (!known) {
    known = new Map()
    auditable.set(db, known)
  }
  // The epoch first: the rows read after it are at least as new as the epoch they are kept under.
  const epoch = await currentAuthEpoch(db)
  const hit = known.get(userId)
  if (hit && hit.epoch === epoch) return hit.ids
  const rows = await auditRoles(db).all({ userId })
  const ids = rows.filter((row) => row.role !== 'manager' && can(permissionsOf(row), 'audit_log.view', 'web', 'view')).map((row) => row.workspaceId)
  if (known.size >= AUDITABLE_KEPT && !known.has(userId)) known.delete(known.keys().next().value!)
  known.set(userId, { epoch, ids })
  return ids
}

/** A user's memberships with their roles' grants, prepared once per connection. */
const auditRoles = prepared((db) =>
  db
    .select({ workspaceId: memberships.workspace_id, role: roles.slug, isBuiltin: roles.is_builtin, grants: sql<string>`${roles.permissions}` })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(and(eq(memberships.user_id, sql.placeholder('userId')), isNull(memberships.deleted_at), eq(memberships.is_active, true)))
    .prepare(),
)
/** Per database handle (ids only mean something within one database): user → auditable workspaces at an epoch. */
const auditable = new WeakMap<Db, Map<number, { epoch: number; ids: number[] }>>()
const AUDITABLE_KEPT = 10_000

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

/** An audit log request: the query, what the caller may read, and the date bounds as instants (derived). */
type AuditLogRequest = AuditLogQuery & { visibility: Visibility; from?: string; to?: string; to_exclusive?: string }

/**
 * What the caller may read, as a variant of the list: its kind (and for workspaces how many) and its
 * values. A super_admin's workspaces are bound one placeholder each (the key knows how many):
 * `workspace_id IN (?, ?)` keeps the (workspace, …, created_at) index order for the page, where
 * `IN (SELECT … json_each)` made SQLite sort every matching entry. A manager's team, a longer list used
 * as a filter only, goes in as one JSON parameter.
 */
const visibleEntries: CallerVariants<typeof auditLogs, AuditLogRequest> = {
  table: auditLogs,
  variantOf: (_, { visibility }): Variant => {
    if (visibility.kind === 'workspaces') {
      return { key: `workspaces:${visibility.workspaceIds.length}`, values: Object.fromEntries(visibility.workspaceIds.map((id, i) => [`workspace${i}`, id])) }
    }
    if (visibility.kind === 'team') return { key: 'team', values: { workspaceId: visibility.workspaceId, actorIds: JSON.stringify(visibility.actorIds) } }
    return { key: 'own', values: { workspaceId: visibility.workspaceId } }
  },
  where: (key, bound, ...conditions) => and(visibilityCondition(key, bound), ...conditions)!,
}

function visibilityCondition(key: string, bound: Bound): SQL {
  if (key.startsWith('workspaces:')) {
    const count = Number(key.slice('workspaces:'.length))
    if (count === 0) return sql`0`
    return acrossWorkspaces(auditLogs, "a super_admin's audit list covers every workspace they may audit").in(
      Array.from({ length: count }, (_, i) => bound.value<number>(`workspace${i}`)!),
    )
  }
  const own = auditLogScope.where(bound.value<number>('workspaceId')!)
  return key === 'team' ? and(own, sql`${auditLogs.actor_id} in (select value from json_each(${bound.value('actorIds')}))`)! : own
}

/** `date_from`/`date_to` as instants of the caller's time zone; `to` is exclusive for a calendar date (the whole day). */
function instantsOf(ctx: AuthedContext, query: AuditLogRequest): Pick<AuditLogRequest, 'from' | 'to' | 'to_exclusive'> {
  const to = query.date_to ? dateBound(query.date_to, 'date_to', ctx.actor.timeZone) : undefined
  return {
    from: query.date_from ? dateBound(query.date_from, 'date_from', ctx.actor.timeZone).at : undefined,
    to: to?.inclusive ? to.at : undefined,
    to_exclusive: to && !to.inclusive ? to.at : undefined,
  }
}

/** The audit log list: page and count prepared once per shape (whose entries, order, filters present). */
export const auditLogList = defineList({
  scope: visibleEntries,
  derive: instantsOf,
  search: {
    columns: [
      sql`lower(${auditLogs.actor_name})`,
      sql`lower(${auditLogs.entity_name})`,
      auditLogs.entity_type,
      auditLogs.action,
      sql`lower(${auditLogs.actor_role})`,
    ],
    exact: [auditLogs.entity_id],
    exactFolded: true,
  },
  filters: {
    entity_type: (type: string) => eq(auditLogs.entity_type, type),
    entity_id: (id: string) => eq(auditLogs.entity_id, id),
    action: (action: string) => eq(auditLogs.action, action),
    actor_id: (id: number) => eq(auditLogs.actor_id, id),
    from: (at: string) => gte(auditLogs.created_at, at),
    to: (at: string) => lte(auditLogs.created_at, at),
    to_exclusive: (at: string) => lt(auditLogs.created_at, at),
  },
  sort: { created_at: auditLogs.created_at, id: auditLogs.id },
  // Entries are never updated: an entry's last change is its creation.
  updatedSince: [auditLogs.created_at],
  limits: AUDIT_LOG_LIST,
  prepared: {},
})

export async function listAuditLogs(ctx: AuthedContext, query: AuditLogQuery) {
  const visibility = await visibilityOf(ctx, query.workspace_id)
  const { rows, meta } = await auditLogList(ctx, { ...query, visibility })
  return { data: rows, meta }
}

export async function getAuditLog(ctx: AuthedContext, id: number) {
  const visibility = await visibilityOf(ctx)
  const [row] = await ctx.deps.db.read
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.id, id), auditLogList.where(ctx, { visibility })))
    .limit(1)
  if (!row) throw new NotFound('AUDIT_LOG')
  return row
}
