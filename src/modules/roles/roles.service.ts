/**
 * Roles: the four built-ins of every workspace (their grants live in code and cannot be changed)
 * and custom roles holding any catalogue key except the super-admin-only ones.
 */
import { and, asc, count, desc, eq, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { memberships, roles } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, Conflict, Forbidden, NotFound, ValidationFailed } from '../../platform/errors'
import { foldText, pageMeta, paging, type ListLimits, type Page } from '../../platform/pagination'
import {
  BUILTIN_GRANTS,
  isBuiltinRoleSlug,
  PERMISSION_KEYS,
  PERMISSIONS,
  slugify,
  SUPER_ADMIN_ONLY_KEYS,
  type Grant,
  type PermissionInfo,
} from '../../platform/permissions'
import { workspaceScoped } from '../../platform/scope'
import { withTransaction } from '../../platform/transaction'

export const roleScope = workspaceScoped(roles)
export const ROLE_LIST: ListLimits = { defaultLimit: 100, maxLimit: 100 }

type RoleRow = typeof roles.$inferSelect

export function presentRole(role: RoleRow) {
  const { deleted_at: _deleted, workspace_id: _workspace, ...rest } = role
  return {
    ...rest,
    permissions: role.is_builtin && isBuiltinRoleSlug(role.slug) ? BUILTIN_GRANTS[role.slug] : role.permissions,
  }
}
export type PresentedRole = ReturnType<typeof presentRole>

export async function listRoles(
  ctx: AuthedContext,
  query: { page?: number; limit?: number; keyword?: string; sort_by?: string; sort_order?: 'asc' | 'desc' },
): Promise<Page<PresentedRole>> {
  const page = paging(query, ROLE_LIST)
  const keyword = query.keyword?.trim() ? foldText(query.keyword.trim()) : null
  const where = roleScope.where(ctx.actor.workspaceId, keyword ? sql`instr(lower(${roles.name}), ${keyword}) > 0` : undefined)
  const direction = query.sort_order === 'desc' ? desc : asc
  const column = { created_at: roles.created_at, updated_at: roles.updated_at, name: roles.name, id: roles.id }[query.sort_by ?? 'id'] ?? roles.id
  const db = ctx.deps.db.read
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(roles).where(where).orderBy(direction(column), direction(roles.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(roles).where(where),
  ])
  return { rows: rows.map(presentRole), meta: pageMeta(page, total) }
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

async function findEditableRole(db: Db, workspaceId: number, id: number) {
  const role = await roleScope.find(db, workspaceId, id)
  if (!role) throw new NotFound('ROLE')
  if (role.is_builtin) throw new Forbidden('ROLE_LOCKED', 'built-in roles cannot be changed or deleted')
  return role
}

export function createRole(ctx: AuthedContext, input: { name: string; permissions: Grant[] }) {
  const permissions = normalizeGrants(input.permissions)
  const slug = slugify(input.name)
  return withTransaction(ctx, async ({ tx, audit }) => {
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

export function updateRole(ctx: AuthedContext, id: number, input: { name?: string; permissions?: Grant[] }) {
  const permissions = input.permissions && normalizeGrants(input.permissions)
  return withTransaction(ctx, async ({ tx, audit, afterCommit }) => {
    afterCommit(() => ctx.deps.hub.revalidateRole(id))
    const before = await findEditableRole(tx, ctx.actor.workspaceId, id)
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
    const before = await findEditableRole(tx, ctx.actor.workspaceId, id)
    const [{ users }] = await tx
      .select({ users: count() })
      .from(memberships)
      .where(and(eq(memberships.role_id, id), isNull(memberships.deleted_at)))
    if (users > 0) throw new Conflict('ROLE_IN_USE', 'role is still assigned to users', { user_count: users })
    const deleted = (await roleScope.softDelete(tx, ctx.actor.workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'role', entityId: id, entityName: before.name, action: 'deleted', oldValues: presentRole(before) })
    return { ...presentRole(deleted), deleted_at: deleted.deleted_at }
  })
}

export function listPermissions(query: {
  page?: number
  limit?: number
  keyword?: string
  sort_by?: 'key' | 'group'
  sort_order?: 'asc' | 'desc'
}): Page<PermissionInfo> {
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
