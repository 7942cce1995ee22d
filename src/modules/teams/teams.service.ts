/**
 * Teams: a named group of field users with an optional leader. Names are unique per workspace
 * (case-insensitive, live rows). Members and the leader must be users of the workspace. Teams also
 * decide what a manager sees of the audit log (docs/API.md §Roles and permissions): that rule is the
 * audit log's (`teamScopeOf`, modules/audit-logs/audit-logs.service.ts); a user's teams are set by
 * the users module (`setUserTeams`).
 */
import { asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { memberships, teamMembers, teams, users } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, NotFound, ValidationFailed } from '../../lib/errors'
import { DEFAULT_LIST, foldText, type Page } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import type { TeamInput, TeamListQuery, TeamUpdateInput } from './teams.schemas'

export const teamScope = workspaceScoped(teams)
/** Team memberships (no soft delete: leaving a team deletes the row). */
export const teamMemberScope = workspaceScoped(teamMembers)
/** The workspace's memberships, for checks made here (users.service.ts owns them; importing it would make a cycle). */
const membershipScope = workspaceScoped(memberships)

/** Users of the workspace among `ids` (live membership). */
export async function workspaceUserIds(db: Db, workspaceId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .select({ id: memberships.user_id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(membershipScope.where(workspaceId, isNull(users.deleted_at), inArray(memberships.user_id, ids)))
  return new Set(rows.map((row) => row.id))
}

/** 400 naming `field` unless every id is a user of the workspace. */
export async function assertWorkspaceUsers(db: Db, workspaceId: number, ids: number[], field: string) {
  const known = await workspaceUserIds(db, workspaceId, ids)
  const unknown = [...new Set(ids)].filter((id) => !known.has(id))
  if (unknown.length > 0) throw ValidationFailed.field(field, `unknown user${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`)
}

/** Live teams of the workspace among `ids`. */
export async function assertWorkspaceTeams(db: Db, workspaceId: number, ids: number[], field: string) {
  if (ids.length === 0) return
  const rows = await db
    .select({ id: teams.id })
    .from(teams)
    .where(teamScope.where(workspaceId, inArray(teams.id, ids)))
  const known = new Set(rows.map((row) => row.id))
  const unknown = [...new Set(ids)].filter((id) => !known.has(id))
  if (unknown.length > 0) throw ValidationFailed.field(field, `unknown team${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`)
}

async function present(db: Db, rows: (typeof teams.$inferSelect)[]) {
  if (rows.length === 0) return []
  const ids = rows.map((row) => row.id)
  const members = await db
    .select({ team_id: teamMembers.team_id, user_id: users.id, name: users.name })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.user_id))
    .where(inArray(teamMembers.team_id, ids))
    .orderBy(asc(users.name), asc(users.id))
  const leaderIds = rows.map((row) => row.leader_id).filter((id): id is number => id !== null)
  const leaders = leaderIds.length ? await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, leaderIds)) : []
  return rows.map(({ name_key: _key, ...team }) => ({
    ...team,
    leader: leaders.find((leader) => leader.id === team.leader_id) ?? null,
    members: members.filter((member) => member.team_id === team.id).map(({ user_id, name }) => ({ user_id, name })),
  }))
}
export type PresentedTeam = Awaited<ReturnType<typeof present>>[number]

async function findTeam(db: Db, workspaceId: number, id: number) {
  const team = await teamScope.find(db, workspaceId, id)
  if (!team) throw new NotFound('TEAM')
  return team
}

const teamList = defineList({
  scope: teamScope,
  search: { columns: [teams.name_key] },
  filters: {
    leader_id: (id: number) => eq(teams.leader_id, id),
    user_id: (id: number) => sql`${teams.id} in (select ${teamMembers.team_id} from ${teamMembers} where ${teamMembers.user_id} = ${id})`,
  },
  sort: { created_at: teams.created_at, updated_at: teams.updated_at, name: teams.name_key, id: teams.id },
  limits: DEFAULT_LIST,
})

export async function listTeams(ctx: AuthedContext, query: TeamListQuery): Promise<Page<PresentedTeam>> {
  const result = await teamList(ctx, query)
  return { rows: await present(ctx.deps.db.read, result.rows), meta: result.meta }
}

/** Live teams of the workspace among `ids`, as the detail answers them. */
export async function teamsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return present(
    db,
    await db
      .select()
      .from(teams)
      .where(teamScope.where(workspaceId, inArray(teams.id, ids))),
  )
}

export async function getTeam(ctx: AuthedContext, id: number) {
  const db = ctx.deps.db.read
  return (await present(db, [await findTeam(db, ctx.actor.workspaceId, id)]))[0]
}

async function assertNameFree(db: Db, workspaceId: number, nameKey: string, exceptId?: number) {
  if ((await teamScope.count(db, workspaceId, eq(teams.name_key, nameKey), exceptId ? ne(teams.id, exceptId) : undefined)) > 0) {
    throw new AlreadyExists('TEAM', 'name', 'a team with this name already exists')
  }
}

async function setMembers(tx: Db, workspaceId: number, teamId: number, userIds: number[], now: string) {
  await tx.delete(teamMembers).where(eq(teamMembers.team_id, teamId))
  const unique = [...new Set(userIds)]
  if (unique.length > 0) {
    await tx.insert(teamMembers).values(unique.map((user_id) => ({ team_id: teamId, user_id, workspace_id: workspaceId, created_at: now })))
  }
}

export function createTeam(ctx: AuthedContext, input: TeamInput) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const nameKey = foldText(input.name)
    await assertNameFree(tx, workspaceId, nameKey)
    if (input.leader_id != null) await assertWorkspaceUsers(tx, workspaceId, [input.leader_id], 'leader_id')
    if (input.user_ids) await assertWorkspaceUsers(tx, workspaceId, input.user_ids, 'user_ids')
    const now = ctx.deps.clock.now().toISOString()
    const team = await teamScope.insert(tx, workspaceId, {
      name: input.name,
      name_key: nameKey,
      description: input.description ?? null,
      leader_id: input.leader_id ?? null,
      created_at: now,
      updated_at: now,
    })
    await setMembers(tx, workspaceId, team.id, input.user_ids ?? [], now)
    const [result] = await present(tx, [team])
    await audit({ entityType: 'team', entityId: team.id, entityName: team.name, action: 'created', newValues: result })
    return result
  })
}

export function updateTeam(ctx: AuthedContext, id: number, input: TeamUpdateInput) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const beforeRow = await findTeam(tx, workspaceId, id)
    const [before] = await present(tx, [beforeRow])
    const changes: Partial<typeof teams.$inferInsert> = {}
    if (input.name !== undefined && input.name !== beforeRow.name) {
      const nameKey = foldText(input.name)
      await assertNameFree(tx, workspaceId, nameKey, id)
      Object.assign(changes, { name: input.name, name_key: nameKey })
    }
    if (input.description !== undefined) changes.description = input.description
    if (input.leader_id !== undefined) {
      if (input.leader_id !== null) await assertWorkspaceUsers(tx, workspaceId, [input.leader_id], 'leader_id')
      changes.leader_id = input.leader_id
    }
    const now = ctx.deps.clock.now().toISOString()
    if (input.user_ids) {
      await assertWorkspaceUsers(tx, workspaceId, input.user_ids, 'user_ids')
      await setMembers(tx, workspaceId, id, input.user_ids, now)
    }
    const touched = Object.keys(changes).length > 0 || input.user_ids !== undefined
    const afterRow = touched ? (await teamScope.update(tx, workspaceId, id, { ...changes, updated_at: now }))! : beforeRow
    const [after] = await present(tx, [afterRow])
    await audit({ entityType: 'team', entityId: id, entityName: after.name, action: 'updated', before, after })
    return after
  })
}

export function deleteTeam(ctx: AuthedContext, id: number) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const [before] = await present(tx, [await findTeam(tx, workspaceId, id)])
    const deleted = (await teamScope.softDelete(tx, workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'team', entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
    return { ...before, deleted_at: deleted.deleted_at, updated_at: deleted.updated_at }
  })
}
