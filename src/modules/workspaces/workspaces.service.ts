/**
 * Workspaces: the tenant boundary. A workspace is born with its four built-in roles; a super_admin
 * may create more workspaces and reach them with /auth/switch-workspace (docs/API.md §Roles and permissions).
 */
import { and, count, eq, isNull, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { memberships, roles, workspaces } from '../../db/schema'
import { acrossWorkspaces } from '../../platform/data/scope'
import type { AuthedContext } from '../../platform/context'
import { DEFAULT_LIST, type Page } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { BUILTIN_ROLE_NAMES, BUILTIN_ROLE_SLUGS, type BuiltinRoleSlug } from '../../platform/permissions'
import { NotFound } from '../../lib/errors'
import { canonicalTimeZone } from '../../lib/time-zones'
import { withTransaction } from '../../platform/data/transaction'
import type { WorkspaceInput, WorkspaceListQuery, WorkspaceSettingsInput } from './workspaces.schemas'

export type WorkspaceRow = typeof workspaces.$inferSelect

/** Validation limits of the settings; outlets validate their own radius against the same ones. */
export { GEOFENCE_RADIUS_MAX, GEOFENCE_RADIUS_MIN } from './workspaces.schemas'

/** Inserts a workspace (in `timeZone`, any spelling Intl accepts) and its built-in roles; returns both. */
export async function insertWorkspace(tx: Db, name: string, now: string, timeZone: string) {
  const [workspace] = await tx
    .insert(workspaces)
    .values({ name, timezone: canonicalTimeZone(timeZone), created_at: now, updated_at: now })
    .returning()
  const inserted = await tx
    .insert(roles)
    .values(
      BUILTIN_ROLE_SLUGS.map((slug) => ({
        workspace_id: workspace.id,
        slug,
        name: BUILTIN_ROLE_NAMES[slug],
        is_builtin: true,
        permissions: [],
        created_at: now,
        updated_at: now,
      })),
    )
    .returning()
  const bySlug = Object.fromEntries(inserted.map((role) => [role.slug, role])) as Record<BuiltinRoleSlug, typeof roles.$inferSelect>
  return { workspace, roles: bySlug }
}

export function presentWorkspace(workspace: WorkspaceRow, role: string) {
  return { ...workspace, role }
}

/** A user lists the workspaces they belong to: their memberships in every workspace. */
const userWorkspaces = acrossWorkspaces(memberships, 'a user lists the workspaces they belong to')

/** Workspaces the caller is an active member of, with their role in each. */
const workspaceList = defineList({
  scope: {
    table: memberships,
    whereFor: (ctx, ...conditions) =>
      and(eq(memberships.user_id, ctx.actor.userId), isNull(memberships.deleted_at), eq(memberships.is_active, true), ...conditions)!,
  },
  select: (db: Db, where: SQL) =>
    db
      .select({ workspace: workspaces, role: roles.slug })
      .from(memberships)
      .innerJoin(workspaces, userWorkspaces.of(workspaces.id))
      .innerJoin(roles, eq(roles.id, memberships.role_id))
      .where(where),
  count: (db: Db, where: SQL) => db.select({ total: count() }).from(memberships).innerJoin(workspaces, userWorkspaces.of(workspaces.id)).where(where),
  search: { columns: [sql`lower(${workspaces.name})`] },
  sort: { created_at: workspaces.created_at, updated_at: workspaces.updated_at, name: workspaces.name, id: workspaces.id },
  defaultSort: { sort_by: 'id', sort_order: 'asc' },
  tieBreaker: workspaces.id,
  updatedSince: [workspaces.updated_at],
  limits: DEFAULT_LIST,
})

export async function listAccessibleWorkspaces(ctx: AuthedContext, query: WorkspaceListQuery): Promise<Page<ReturnType<typeof presentWorkspace>>> {
  const result = await workspaceList(ctx, query)
  return { rows: result.rows.map((row) => presentWorkspace(row.workspace, row.role)), meta: result.meta }
}

/** Ids of the workspaces where the user is an active member (optionally with one role only). */
export async function accessibleWorkspaceIds(db: Db, userId: number, roleSlug?: string): Promise<number[]> {
  const rows = await db
    .select({ id: memberships.workspace_id })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(
      and(eq(memberships.user_id, userId), isNull(memberships.deleted_at), eq(memberships.is_active, true), roleSlug ? eq(roles.slug, roleSlug) : undefined),
    )
  return rows.map((row) => row.id)
}

export function createWorkspace(ctx: AuthedContext, input: WorkspaceInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const now = ctx.deps.clock.now().toISOString()
    const { workspace, roles: created } = await insertWorkspace(tx, input.name, now, input.timezone ?? ctx.deps.config.DEFAULT_TIMEZONE)
    await tx.insert(memberships).values({
      workspace_id: workspace.id,
      user_id: ctx.actor.userId,
      role_id: created.super_admin.id,
      is_active: true,
      created_at: now,
      updated_at: now,
    })
    const result = presentWorkspace(workspace, 'super_admin')
    // Recorded in the new workspace, where the creator acts as its super_admin.
    await audit({
      entityType: 'workspace',
      entityId: workspace.id,
      entityName: workspace.name,
      action: 'created',
      newValues: workspace,
      actor: { id: ctx.actor.userId, name: ctx.actor.name, role: 'super_admin', workspaceId: workspace.id },
    })
    return result
  })
}

/**
 * PUT /office/v1/workspaces/:id/settings: settings of the caller's current workspace (another id,
 * even an accessible one, is a 404: switch to it first).
 */
export function updateWorkspaceSettings(ctx: AuthedContext, id: number, input: WorkspaceSettingsInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    if (id !== ctx.actor.workspaceId) throw new NotFound('WORKSPACE')
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, id))
    if (!before) throw new NotFound('WORKSPACE')
    const [after] = await tx
      .update(workspaces)
      .set({
        ...input,
        ...(input.timezone !== undefined ? { timezone: canonicalTimeZone(input.timezone) } : {}),
        updated_at: ctx.deps.clock.now().toISOString(),
      })
      .where(eq(workspaces.id, id))
      .returning()
    await audit({ entityType: 'workspace', entityId: id, entityName: after.name, action: 'updated', before, after })
    return presentWorkspace(after, ctx.actor.role)
  })
}
