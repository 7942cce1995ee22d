/**
 * Roles: the four built-ins of every workspace (their grants live in code and cannot be changed)
 * and custom roles holding any catalogue key except the super-admin-only ones.
 *
 * No privilege beyond your own: a caller may create or update a role only with grants they hold
 * themselves, may not touch a role holding grants they lack, and may not change the permissions of
 * the role they hold. `assertHoldsGrants` is the one place that decides "the caller holds every
 * permission of that role"; the users service asks it too before giving anyone a role.
 */
import { and, count, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { memberships, roles } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { pageMeta, paging, type ListLimits, type Page } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import {
  compileGrants,
  grantsBeyond,
  grantsOfRole,
  isBuiltinRoleSlug,
  PERMISSION_KEYS,
  PERMISSIONS,
  slugify,
  SUPER_ADMIN_ONLY_KEYS,
  type Grant,
  type PermissionInfo,
  type PermissionSet,
} from '../../platform/permissions'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import type { PermissionListQuery, RoleInput, RoleListQuery, RoleUpdateInput } from './roles.schemas'

export const roleScope = workspaceScoped(roles)
export const ROLE_LIST: ListLimits = { defaultLimit: 100, maxLimit: 100 }

type RoleRow = typeof roles.$inferSelect

export function presentRole(role: RoleRow) {
  const { deleted_at: _deleted, workspace_id: _workspace, ...rest } = role
  return { ...rest, permissions: grantsOfRole(role) }
}
export type PresentedRole = ReturnType<typeof presentRole>

/** The live roles among `ids`, as their detail answers them (the change feeds' loader). */
export async function rolesByIds(db: Db, workspaceId: number, ids: number[]) {
  return (
    await db
      .select()
      .from(roles)
      .where(roleScope.where(workspaceId, inArray(roles.id, ids)))
  ).map(presentRole)
}

const roleList = defineList({
  scope: roleScope,
  search: { columns: [sql`lower(${roles.name})`] },
  sort: { created_at: roles.created_at, updated_at: roles.updated_at, name: roles.name, id: roles.id },
  defaultSort: { sort_by: 'id', sort_order: 'asc' },
  limits: ROLE_LIST,
})

export async function listRoles(ctx: AuthedContext, query: RoleListQuery): Promise<Page<PresentedRole>> {
  const result = await roleList(ctx, query)
  return { rows: result.rows.map(presentRole), meta: result.meta }
}

export async function getRole(ctx: AuthedContext, id: number) {
  const role = await roleScope.find(ctx.deps.db.read, ctx.actor.workspaceId, id)
  if (!role) throw new NotFound('ROLE')
  return presentRole(role)
}

/** Checks keys against the catalogue and collapses duplicates (the widest access wins). */
function normalizeGrants(grants: Grant[]): Grant[] {
  const errors: Record<string, string[]> = {}
  const merged = new Map<string, Grant>()
  grants.forEach((grant, index) => {
    if (!PERMISSION_KEYS.has(grant.key)) errors[`permissions.${index}.key`] = ['is not a known permission']
    else if (SUPER_ADMIN_ONLY_KEYS.has(grant.key)) errors[`permissions.${index}.key`] = ['is reserved to super_admin']
    const slot = `${grant.platform}|${grant.key}`
    const existing = merged.get(slot)
    if (!existing || grant.access === 'full') merged.set(slot, { key: grant.key, platform: grant.platform, access: grant.access })
  })
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
  return [...merged.values()]
}

async function assertSlugFree(db: Db, workspaceId: number, slug: string, exceptId?: number) {
  const taken = await roleScope.count(db, workspaceId, eq(roles.slug, slug), exceptId ? ne(roles.id, exceptId) : undefined)
  if (taken > 0 || isBuiltinRoleSlug(slug)) throw new AlreadyExists('ROLE', 'name', 'a role with this name already exists')
}

/** A user's live memberships, each with the grants of its role, as `db` sees them now. */
export async function membershipRoles(db: Db, userId: number) {
  const rows = await db
    .select({ workspaceId: memberships.workspace_id, isActive: memberships.is_active, role: roles })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(and(eq(memberships.user_id, userId), isNull(memberships.deleted_at)))
  return rows.map(({ workspaceId, isActive, role }) => ({ workspaceId, isActive, roleId: role.id, slug: role.slug, grants: grantsOfRole(role) }))
}

export interface HeldPermissions {
  roleId: number
  permissions: PermissionSet
}

/**
 * What the caller holds in the token's workspace, read through `db`. Inside a write transaction
 * this is the role as of that transaction (writers are serialised), so a decision cannot rest on a
 * role changed since the request authenticated.
 */
export async function callerPermissions(ctx: AuthedContext, db: Db): Promise<HeldPermissions> {
  const own = (await membershipRoles(db, ctx.actor.userId)).find((held) => held.workspaceId === ctx.actor.workspaceId && held.isActive)
  if (!own) throw new AppError('FORBIDDEN')
  return { roleId: own.roleId, permissions: compileGrants(own.grants) }
}

/**
 * The privilege rule, in one place: 403 FORBIDDEN naming `field` unless `held` includes every one
 * of `grants` (super_admin holds every permission). Used for the grants of a new or updated role,
 * the role being edited, and any role given to a user.
 */
export function assertHoldsGrants(held: PermissionSet, grants: readonly Grant[], field: string, message: string) {
  const missing = grantsBeyond(held, grants)
  if (missing.length === 0) return
  const listed = missing.map((grant) => `${grant.key} (${grant.platform}, ${grant.access})`).join(', ')
  throw new AppError('FORBIDDEN', message, { [field]: [`you do not hold: ${listed}`] })
}

const grantKey = (grant: Grant) => `${grant.platform}|${grant.key}|${grant.access}`
const sameGrants = (a: readonly Grant[], b: readonly Grant[]) => a.length === b.length && a.map(grantKey).sort().join() === b.map(grantKey).sort().join()

/** A custom role of the workspace that the caller may change: not built-in, and not above the caller. */
async function findEditableRole(ctx: AuthedContext, db: Db, id: number) {
  const role = await roleScope.find(db, ctx.actor.workspaceId, id)
  if (!role) throw new NotFound('ROLE')
  if (role.is_builtin) throw new AppError('ROLE_LOCKED', 'built-in roles cannot be changed or deleted')
  const held = await callerPermissions(ctx, db)
  assertHoldsGrants(held.permissions, role.permissions, 'permissions', 'this role holds permissions you do not hold')
  return { role, held }
}

export function createRole(ctx: AuthedContext, input: RoleInput) {
  const permissions = normalizeGrants(input.permissions)
  const slug = slugify(input.name)
  return withTransaction(ctx, async ({ tx, audit }) => {
    const held = await callerPermissions(ctx, tx)
    assertHoldsGrants(held.permissions, permissions, 'permissions', 'a role cannot hold permissions you do not hold')
    await assertSlugFree(tx, ctx.actor.workspaceId, slug)
    const now = ctx.deps.clock.now().toISOString()
    const role = await roleScope.insert(tx, ctx.actor.workspaceId, {
      slug,
      name: input.name,
      is_builtin: false,
      permissions,
      created_at: now,
      updated_at: now,
    })
    const result = presentRole(role)
    await audit({ entityType: 'role', entityId: role.id, entityName: role.name, action: 'created', newValues: result })
    return result
  })
}

export function updateRole(ctx: AuthedContext, id: number, input: RoleUpdateInput) {
  const permissions = input.permissions && normalizeGrants(input.permissions)
  return withTransaction(ctx, async ({ tx, audit, afterCommit }) => {
    afterCommit(() => ctx.deps.hub.revalidateRole(id))
    const { role: before, held } = await findEditableRole(ctx, tx, id)
    if (permissions && !sameGrants(permissions, before.permissions)) {
      if (held.roleId === id) {
        throw new AppError('FORBIDDEN', 'you cannot change the permissions of your own role', {
          permissions: ['is the role you hold; another holder of role.manage must change it'],
        })
      }
      assertHoldsGrants(held.permissions, permissions, 'permissions', 'a role cannot hold permissions you do not hold')
    }
    const changes: Partial<RoleRow> = {}
    if (input.name !== undefined && input.name !== before.name) {
      const slug = slugify(input.name)
      if (slug !== before.slug) await assertSlugFree(tx, ctx.actor.workspaceId, slug, id)
      Object.assign(changes, { name: input.name, slug })
    }
    if (permissions) changes.permissions = permissions
    const after =
      Object.keys(changes).length > 0
        ? (await roleScope.update(tx, ctx.actor.workspaceId, id, { ...changes, updated_at: ctx.deps.clock.now().toISOString() }))!
        : before
    await audit({ entityType: 'role', entityId: id, entityName: after.name, action: 'updated', before: presentRole(before), after: presentRole(after) })
    return presentRole(after)
  })
}

export function deleteRole(ctx: AuthedContext, id: number) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const { role: before } = await findEditableRole(ctx, tx, id)
    const [{ users }] = await tx
      .select({ users: count() })
      .from(memberships)
      .where(and(eq(memberships.role_id, id), isNull(memberships.deleted_at)))
    if (users > 0) throw new AppError('ROLE_IN_USE', 'role is still assigned to users', { user_count: users })
    const deleted = (await roleScope.softDelete(tx, ctx.actor.workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'role', entityId: id, entityName: before.name, action: 'deleted', oldValues: presentRole(before) })
    return { ...presentRole(deleted), deleted_at: deleted.deleted_at }
  })
}

export function listPermissions(query: PermissionListQuery): Page<PermissionInfo> {
  const page = paging(query, { defaultLimit: 100, maxLimit: 100 })
  const keyword = query.keyword?.trim().toLowerCase()
  const matching = keyword
    ? PERMISSIONS.filter((p) => p.key.includes(keyword) || p.description.toLowerCase().includes(keyword) || p.group.includes(keyword))
    : [...PERMISSIONS]
  if (query.sort_by) {
    const column = query.sort_by
    const sign = query.sort_order === 'desc' ? -1 : 1
    matching.sort((a, b) => sign * (a[column].localeCompare(b[column]) || a.key.localeCompare(b.key)))
  } else if (query.sort_order === 'desc') matching.reverse()
  return { rows: matching.slice(page.offset, page.offset + page.limit), meta: pageMeta(page, matching.length) }
}
