/**
 * Users of a workspace. A user is a person (name, email, password, phone) with a membership per
 * workspace holding the role and the active flag; the users of a workspace are its live memberships.
 * Deactivating or deleting a user ends their access at once: every request reloads the membership.
 *
 * Escalation guards:
 * - No privilege beyond your own: a caller may give a user (create or update) only a role whose every
 *   permission the caller holds, and may change or delete only users whose role they hold every
 *   permission of (so only a super_admin manages a super_admin). The check is the roles service's
 *   `assertHoldsGrants`.
 * - A person belongs to no single workspace: another user's person fields (PERSON_FIELDS: name, email,
 *   phone, password — stored on the person, seen by every workspace) change only when the caller may
 *   manage that user in every workspace the user belongs to. Membership fields (role, active flag,
 *   teams of this workspace) stay this workspace's admins' to change.
 *   Nobody changes their own password here (it needs the current one: PUT /app/v1/profile/password).
 * - Nobody can lock themselves out (deactivate, delete or change the role of their own account).
 * Each guard is decided inside the write transaction, on what it reads; updates and creates also
 * ask once before hashing a password, so a refused request costs no hash.
 */
import { and, count, eq, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { memberships, passwordResets, refreshTokens, roles, teamMembers, teams, users } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { DEFAULT_LIST, type Page } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { searchIndex } from '../../platform/data/search'
import { withTransaction } from '../../platform/data/transaction'
import { hashPassword } from '../../platform/passwords'
import { can, compileGrants, grantsBeyond, grantsOfRole, type PermissionSet } from '../../platform/permissions'
import { assertHoldsGrants, callerPermissions, membershipRoles, roleScope } from '../roles'
import { assertWorkspaceTeams, teamMemberScope, teamScope } from '../teams'
import type { CreateUserInput, UpdateUserInput, UserListQuery } from './users.schemas'

export const membershipScope = workspaceScoped(memberships)
/** Sessions: a refresh token belongs to one workspace (no soft delete: revoked, then pruned). */
const refreshTokenScope = workspaceScoped(refreshTokens)

/**
 * A new password (by reset, by the user, or set by an administrator) voids every outstanding reset
 * token of the user, the one just used included; callers also revoke the user's refresh tokens.
 * Runs in the caller's transaction.
 */
export async function voidPasswordResets(tx: Db, userId: number, now: string) {
  await tx
    .update(passwordResets)
    .set({ used_at: now })
    .where(and(eq(passwordResets.user_id, userId), isNull(passwordResets.used_at)))
}

/** Sets the teams of a user within the workspace (users.team_ids). */
export async function setUserTeams(tx: Db, workspaceId: number, userId: number, teamIds: number[], now: string) {
  const current = await tx
    .select({ team_id: teamMembers.team_id })
    .from(teamMembers)
    .where(teamMemberScope.where(workspaceId, eq(teamMembers.user_id, userId)))
  const wanted = new Set(teamIds)
  const remove = current.map((row) => row.team_id).filter((id) => !wanted.has(id))
  const have = new Set(current.map((row) => row.team_id))
  const add = [...wanted].filter((id) => !have.has(id))
  if (remove.length > 0) await tx.delete(teamMembers).where(and(eq(teamMembers.user_id, userId), inArray(teamMembers.team_id, remove)))
  if (add.length > 0) await tx.insert(teamMembers).values(add.map((team_id) => ({ team_id, user_id: userId, workspace_id: workspaceId, created_at: now })))
}
const userSearch = searchIndex('users_search', users.id)

const columns = {
  id: users.id,
  name: users.name,
  email: users.email,
  phone: users.phone,
  role_id: memberships.role_id,
  role_slug: roles.slug,
  role_name: roles.name,
  is_active: memberships.is_active,
  last_login_at: users.last_login_at,
  /** Live teams of the user in this workspace, as a comma list (split in `present`). */
  team_ids: sql<
    string | null
  >`(select group_concat(${teamMembers.team_id}) from ${teamMembers} join ${teams} on ${teams.id} = ${teamMembers.team_id} and ${teams.deleted_at} is null where ${teamMembers.user_id} = ${users.id} and ${teamMemberScope.where(memberships.workspace_id)})`,
  created_at: users.created_at,
  updated_at: users.updated_at,
}

function present(row: UserRow) {
  const { role_slug, role_name, team_ids, ...user } = row
  return {
    ...user,
    role: { id: row.role_id, slug: role_slug, name: role_name },
    team_ids: team_ids
      ? team_ids
          .split(',')
          .map(Number)
          .sort((a, b) => a - b)
      : [],
  }
}
export type PresentedUser = ReturnType<typeof present>

function selectUsers(db: Db, workspaceId: number, ...conditions: (SQL | undefined)[]) {
  return db
    .select(columns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(membershipScope.where(workspaceId, isNull(users.deleted_at), ...conditions))
}

type UserRow = Awaited<ReturnType<typeof selectUsers>>[number]

async function findUser(db: Db, workspaceId: number, id: number): Promise<UserRow> {
  const [row] = await selectUsers(db, workspaceId, eq(users.id, id)).limit(1)
  if (!row) throw new NotFound('USER')
  return row
}

const userList = defineList({
  scope: membershipScope,
  visibleTo: () => isNull(users.deleted_at),
  select: (db, where) =>
    db.select(columns).from(memberships).innerJoin(users, eq(users.id, memberships.user_id)).innerJoin(roles, eq(roles.id, memberships.role_id)).where(where),
  count: (db, where) => db.select({ total: count() }).from(memberships).innerJoin(users, eq(users.id, memberships.user_id)).where(where),
  search: { columns: [sql`lower(${users.name})`, users.email], index: userSearch },
  filters: {
    role_id: (id: number) => eq(memberships.role_id, id),
    is_active: (active: boolean) => eq(memberships.is_active, active),
    team_id: (id: number, ctx) =>
      sql`${users.id} in (select ${teamMembers.user_id} from ${teamMembers} where ${teamMemberScope.where(ctx.actor.workspaceId, eq(teamMembers.team_id, id))})`,
  },
  sort: { created_at: users.created_at, updated_at: users.updated_at, name: users.name, id: users.id, email: users.email },
  tieBreaker: users.id,
  limits: DEFAULT_LIST,
  // A user's answer comes from the person and from their membership here (role, active flag).
  updatedSince: [users.updated_at, memberships.updated_at],
})

export async function listUsers(ctx: AuthedContext, query: UserListQuery): Promise<Page<PresentedUser>> {
  const result = await userList(ctx, query)
  return { rows: result.rows.map(present), meta: result.meta }
}

/** A user of the workspace as answered, read through `db` (a transaction sees its own writes). */
export const userById = async (db: Db, workspaceId: number, id: number) => present(await findUser(db, workspaceId, id))

/** Live users of the workspace among `ids`, as the detail answers them. */
export async function usersByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return (await selectUsers(db, workspaceId, inArray(users.id, ids))).map(present)
}

export const getUser = (ctx: AuthedContext, id: number) => userById(ctx.deps.db.read, ctx.actor.workspaceId, id)

/** A role of the workspace that the caller may give: they hold every permission it holds. */
async function assignableRole(ctx: AuthedContext, db: Db, held: PermissionSet, roleId: number) {
  const role = await roleScope.find(db, ctx.actor.workspaceId, roleId)
  if (!role) throw ValidationFailed.field('role_id', `role ${roleId} does not exist`)
  assertHoldsGrants(held, grantsOfRole(role), 'role_id', 'you cannot give a role holding permissions you do not hold')
  return role
}

async function assertEmailFree(db: Db, email: string, exceptUserId?: number) {
  const [taken] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, email), isNull(users.deleted_at), exceptUserId ? ne(users.id, exceptUserId) : undefined))
    .limit(1)
  if (taken) throw new AlreadyExists('USER', 'email', 'a user with this email already exists')
}

export async function createUser(ctx: AuthedContext, input: CreateUserInput) {
  const read = ctx.deps.db.read
  await assignableRole(ctx, read, (await callerPermissions(ctx, read)).permissions, input.role_id)
  const passwordHash = await hashPassword(input.password)
  return withTransaction(ctx, async ({ tx, audit }) => {
    await assignableRole(ctx, tx, (await callerPermissions(ctx, tx)).permissions, input.role_id)
    await assertEmailFree(tx, input.email)
    const now = ctx.deps.clock.now().toISOString()
    const [user] = await tx
      .insert(users)
      .values({
        email: input.email,
        name: input.name,
        phone: input.phone ?? null,
        password_hash: passwordHash,
        last_workspace_id: ctx.actor.workspaceId,
        created_at: now,
        updated_at: now,
      })
      .returning()
    await membershipScope.insert(tx, ctx.actor.workspaceId, { user_id: user.id, role_id: input.role_id, created_at: now, updated_at: now })
    if (input.team_ids) {
      await assertWorkspaceTeams(tx, ctx.actor.workspaceId, input.team_ids, 'team_ids')
      await setUserTeams(tx, ctx.actor.workspaceId, user.id, input.team_ids, now)
    }
    const result = present(await findUser(tx, ctx.actor.workspaceId, user.id))
    await audit({ entityType: 'user', entityId: user.id, entityName: user.name, action: 'created', newValues: result })
    return result
  })
}

/**
 * Every guard of an update, decided on what `db` reads; returns the user as they are. Run once on
 * the read connection before hashing, and again inside the transaction, where it decides.
 */
async function authorizeUpdate(ctx: AuthedContext, db: Db, id: number, input: UpdateUserInput) {
  const before = await findUser(db, ctx.actor.workspaceId, id)
  const held = (await callerPermissions(ctx, db)).permissions
  await assertMayManage(ctx, db, held, before)
  const isSelf = id === ctx.actor.userId
  if (input.password !== undefined && isSelf) {
    throw forbiddenField('password', 'change your own password with PUT /app/v1/profile/password', 'needs your current password')
  }
  if (input.role_id !== undefined && input.role_id !== before.role_id) {
    if (isSelf) throw selfLockout()
    await assignableRole(ctx, db, held, input.role_id)
  }
  if (input.is_active === false && isSelf) throw selfLockout()
  if (!isSelf) {
    const changed = personFieldsChanged(input, before)
    if (changed.length > 0) await assertManagesEverywhere(ctx, db, id, changed)
  }
  return before
}

/**
 * The fields of an update stored on the person (table `users`), not on this workspace's membership:
 * every workspace the person belongs to sees them. A value sent unchanged is no change.
 */
export const PERSON_FIELDS = ['name', 'email', 'phone', 'password'] as const
type PersonField = (typeof PERSON_FIELDS)[number]

function personFieldsChanged(input: UpdateUserInput, before: UserRow): PersonField[] {
  return PERSON_FIELDS.filter((field) => {
    if (input[field] === undefined) return false
    // A password is never compared (the hash is not read here): sending one is a change.
    return field === 'password' || input[field] !== before[field]
  })
}

export async function updateUser(ctx: AuthedContext, id: number, input: UpdateUserInput) {
  // Refused before the hash (tens of milliseconds of CPU); the transaction decides again.
  await authorizeUpdate(ctx, ctx.deps.db.read, id, input)
  const passwordHash = input.password ? await hashPassword(input.password) : null
  return withTransaction(ctx, async ({ tx, audit, afterCommit }) => {
    afterCommit(() => ctx.deps.hub.revalidateUser(id))
    const before = await authorizeUpdate(ctx, tx, id, input)
    const now = ctx.deps.clock.now().toISOString()
    if (input.email !== undefined && input.email !== before.email) await assertEmailFree(tx, input.email, id)
    if (input.team_ids) {
      await assertWorkspaceTeams(tx, ctx.actor.workspaceId, input.team_ids, 'team_ids')
      await setUserTeams(tx, ctx.actor.workspaceId, id, input.team_ids, now)
    }
    await writeUserChanges(tx, ctx.actor.workspaceId, id, input, passwordHash, now)
    // A new password or a deactivation ends the user's sessions.
    if (passwordHash || input.is_active === false) await revokeSessions(tx, id, now, passwordHash ? undefined : ctx.actor.workspaceId)
    if (passwordHash) await voidPasswordResets(tx, id, now)

    const after = await findUser(tx, ctx.actor.workspaceId, id)
    await audit({
      entityType: 'user',
      entityId: id,
      entityName: after.name,
      action: 'updated',
      before: present(before),
      after: present(after),
      // The password is no field of the entity (and never recorded): its change is noted beside the values.
      metadata: passwordHash ? { credentials: 'changed by an administrator' } : undefined,
    })
    return present(after)
  })
}

/** The person's fields (every workspace sees them) and this workspace's membership (role, active flag). */
async function writeUserChanges(tx: Db, workspaceId: number, id: number, input: UpdateUserInput, passwordHash: string | null, now: string) {
  const person: Partial<typeof users.$inferInsert> = {}
  if (input.name !== undefined) person.name = input.name
  if (input.email !== undefined) person.email = input.email
  if (input.phone !== undefined) person.phone = input.phone
  if (passwordHash) person.password_hash = passwordHash
  if (Object.keys(person).length > 0)
    await tx
      .update(users)
      .set({ ...person, updated_at: now })
      .where(eq(users.id, id))

  const membership: Partial<typeof memberships.$inferInsert> = {}
  if (input.role_id !== undefined) membership.role_id = input.role_id
  if (input.is_active !== undefined) membership.is_active = input.is_active
  if (Object.keys(membership).length > 0) {
    await tx
      .update(memberships)
      .set({ ...membership, updated_at: now })
      .where(membershipScope.where(workspaceId, eq(memberships.user_id, id)))
  }
}

export function deleteUser(ctx: AuthedContext, id: number) {
  return withTransaction(ctx, async ({ tx, audit, afterCommit }) => {
    afterCommit(() => ctx.deps.hub.revalidateUser(id))
    const before = await findUser(tx, ctx.actor.workspaceId, id)
    await assertMayManage(ctx, tx, (await callerPermissions(ctx, tx)).permissions, before)
    if (id === ctx.actor.userId) throw selfLockout()
    const now = ctx.deps.clock.now().toISOString()
    await membershipScope.update(tx, ctx.actor.workspaceId, (await membershipOf(tx, ctx.actor.workspaceId, id)).id, { deleted_at: now, updated_at: now })
    // A person without any workspace left is deleted too, which frees the email for reuse.
    const [{ remaining }] = await tx
      .select({ remaining: count() })
      .from(memberships)
      .where(and(eq(memberships.user_id, id), isNull(memberships.deleted_at)))
    if (remaining === 0) await tx.update(users).set({ deleted_at: now, updated_at: now }).where(eq(users.id, id))
    // Gone from the workspace means gone from its teams, as member and as leader.
    await tx.delete(teamMembers).where(teamMemberScope.where(ctx.actor.workspaceId, eq(teamMembers.user_id, id)))
    await tx
      .update(teams)
      .set({ leader_id: null, updated_at: now })
      .where(teamScope.whereIncludingDeleted(ctx.actor.workspaceId, eq(teams.leader_id, id)))
    await revokeSessions(tx, id, now, remaining === 0 ? undefined : ctx.actor.workspaceId)
    const result = { ...present(before), deleted_at: now }
    await audit({ entityType: 'user', entityId: id, entityName: before.name, action: 'deleted', oldValues: present(before) })
    return result
  })
}

async function membershipOf(db: Db, workspaceId: number, userId: number) {
  const [membership] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .where(membershipScope.where(workspaceId, eq(memberships.user_id, userId)))
    .limit(1)
  if (!membership) throw new NotFound('USER')
  return membership
}

const forbiddenField = (field: string, message: string, detail: string) => new AppError('FORBIDDEN', message, { [field]: [detail] })

/** The caller may change or delete `target` only when they hold every permission of the target's role here. */
async function assertMayManage(ctx: AuthedContext, db: Db, held: PermissionSet, target: UserRow) {
  const role = await roleScope.find(db, ctx.actor.workspaceId, target.role_id)
  if (!role) throw new NotFound('USER')
  assertHoldsGrants(held, grantsOfRole(role), 'role_id', 'you cannot manage a user whose role holds permissions you do not hold')
}

/**
 * A person's fields are theirs in every workspace, so the caller may change another user's only when,
 * in every workspace the user belongs to (active or not), the caller is an active member holding
 * user.manage and every permission of the user's role there. Otherwise a co-admin of one shared
 * workspace could take over the person's other workspaces by logging in as them (password, email), or
 * rename and re-phone them in workspaces the co-admin has no say in (name, phone).
 */
async function assertManagesEverywhere(ctx: AuthedContext, db: Db, userId: number, fields: PersonField[]) {
  const [targetRoles, callerRoles] = await Promise.all([membershipRoles(db, userId), membershipRoles(db, ctx.actor.userId)])
  for (const target of targetRoles) {
    const caller = callerRoles.find((membership) => membership.workspaceId === target.workspaceId && membership.isActive)
    const held = caller && compileGrants(caller.grants)
    if (!held || !can(held, 'user.manage', 'web', 'full') || grantsBeyond(held, target.grants).length > 0) {
      throw new AppError(
        'FORBIDDEN',
        `you cannot change this user's ${fields.join(', ')}: they belong to a workspace where you cannot manage them`,
        Object.fromEntries(fields.map((field) => [field, ['belongs to the person in every workspace they are a member of']])),
      )
    }
  }
}

const selfLockout = () => new AppError('CANNOT_MODIFY_SELF', 'you cannot deactivate, delete or change the role of your own account')

async function revokeSessions(tx: Db, userId: number, now: string, workspaceId?: number) {
  await tx
    .update(refreshTokens)
    .set({ revoked_at: now })
    .where(
      workspaceId
        ? refreshTokenScope.where(workspaceId, eq(refreshTokens.user_id, userId), isNull(refreshTokens.revoked_at))
        : // Gone from every workspace: every session of the person ends, whichever workspace it was in.
          and(eq(refreshTokens.user_id, userId), isNull(refreshTokens.revoked_at)),
    )
}
