/**
 * Notifications: one function every feature calls to tell users something (assigned a visit, sent
 * to the field, a submission reviewed). Rows are written in the caller's transaction, so a rolled
 * back action notifies nobody; after commit each is pushed to the user's sockets as
 * `notification.created`.
 */
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { memberships, notifications, pushTokens, roles } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'
import type { AuthedContext, RequestContext } from '../../platform/context'
import { NotFound } from '../../lib/errors'
import type { ListLimits } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import type { NotificationListQuery, PushTokenInput } from './notifications.schemas'
import { withTransaction, type TxScope } from '../../platform/data/transaction'
import { topics } from '../../platform/realtime/hub'

/** A user's notifications and phones, and the workspace's admins (users.service.ts owns memberships; importing it would make a cycle). */
const notificationScope = workspaceScoped(notifications)
const pushTokenScope = workspaceScoped(pushTokens)
const membershipScope = workspaceScoped(memberships)

export type NotificationRow = typeof notifications.$inferSelect

/**
 * Delivery beyond the socket (FCM, APNs, web push) plugs in here. The default stores only: the
 * notification rows and the socket push are the delivery; a sender for a push service receives each
 * new notification with its user's registered tokens.
 */
export interface PushSender {
  send(notification: NotificationRow, tokens: { token: string; platform: string }[]): Promise<void>
}

export const storeOnlySender: PushSender = { send: async () => {} }

export interface Notice {
  userIds: number[]
  workspaceId: number
  type: 'visit.assigned' | 'visit.sent_to_field' | 'visit.flagged' | 'visit.missed' | 'submission.approved' | 'submission.rejected'
  title: string
  body: string
  data: Record<string, unknown>
}

export async function notify(scope: TxScope, ctx: RequestContext, notice: Notice): Promise<void> {
  const userIds = [...new Set(notice.userIds)]
  if (userIds.length === 0) return
  const now = ctx.deps.clock.now().toISOString()
  const rows = await scope.tx
    .insert(notifications)
    .values(
      userIds.map((userId) => ({
        workspace_id: notice.workspaceId,
        user_id: userId,
        type: notice.type,
        title: notice.title,
        body: notice.body,
        data: notice.data,
        created_at: now,
      })),
    )
    .returning()
  scope.afterCommit(() => {
    for (const row of rows) ctx.deps.hub.publish(topics.user(row.workspace_id, row.user_id), { type: 'notification.created', data: row })
    void deliver(ctx, rows)
  })
}

/** Hands each new notification to the push sender with its user's tokens: one read for all of them (they share a workspace). */
async function deliver(ctx: RequestContext, rows: NotificationRow[]) {
  try {
    const tokens = await ctx.deps.db.read
      .select({ user_id: pushTokens.user_id, token: pushTokens.token, platform: pushTokens.platform })
      .from(pushTokens)
      .where(pushTokenScope.where(rows[0].workspace_id, inArray(pushTokens.user_id, [...new Set(rows.map((row) => row.user_id))])))
    for (const row of rows) {
      const own = tokens.filter((token) => token.user_id === row.user_id).map(({ token, platform }) => ({ token, platform }))
      await ctx.deps.push.send(row, own)
    }
  } catch (error) {
    ctx.deps.logger.error('push delivery failed', { error: String(error) })
  }
}

const present = ({ workspace_id: _w, ...row }: NotificationRow) => row

export const NOTIFICATION_LIST: ListLimits = { defaultLimit: 10, maxLimit: 100 }

const mine = (ctx: AuthedContext) => notificationScope.where(ctx.actor.workspaceId, eq(notifications.user_id, ctx.actor.userId))

const notificationList = defineList({
  scope: notificationScope,
  visibleTo: (ctx) => eq(notifications.user_id, ctx.actor.userId),
  filters: {
    unread: (unread: boolean) => (unread ? isNull(notifications.read_at) : sql`${notifications.read_at} is not null`),
  },
  sort: { created_at: notifications.created_at },
  limits: NOTIFICATION_LIST,
  // A notification changes when it is created and when it is read.
  updatedSince: [notifications.created_at, notifications.read_at],
})

export async function listNotifications(ctx: AuthedContext, query: NotificationListQuery) {
  const result = await notificationList(ctx, query)
  return { rows: result.rows.map(present), meta: result.meta }
}

export async function unreadCount(ctx: AuthedContext) {
  const [{ total }] = await ctx.deps.db.read
    .select({ total: count() })
    .from(notifications)
    .where(and(mine(ctx), isNull(notifications.read_at)))
  return { count: total }
}

/** Read marks are not audited (docs/API.md §Audit log). */
export function markRead(ctx: AuthedContext, id: number) {
  return withTransaction(
    ctx,
    async ({ tx }) => {
      const [row] = await tx
        .select()
        .from(notifications)
        .where(and(mine(ctx), eq(notifications.id, id)))
        .limit(1)
      if (!row) throw new NotFound('NOTIFICATION')
      if (row.read_at) return present(row)
      const [updated] = await tx.update(notifications).set({ read_at: ctx.deps.clock.now().toISOString() }).where(eq(notifications.id, id)).returning()
      return present(updated)
    },
    { audit: 'none' },
  )
}

export function markAllRead(ctx: AuthedContext) {
  return withTransaction(
    ctx,
    async ({ tx }) => {
      const updated = await tx
        .update(notifications)
        .set({ read_at: ctx.deps.clock.now().toISOString() })
        .where(and(mine(ctx), isNull(notifications.read_at)))
        .returning({ id: notifications.id })
      return { count: updated.length }
    },
    { audit: 'none' },
  )
}

/** A token belongs to the last user who registered it (a shared phone); registration is not audited. */
export function registerPushToken(ctx: AuthedContext, input: PushTokenInput) {
  return withTransaction(
    ctx,
    async ({ tx }) => {
      const now = ctx.deps.clock.now().toISOString()
      const [row] = await tx
        .insert(pushTokens)
        .values({
          workspace_id: ctx.actor.workspaceId,
          user_id: ctx.actor.userId,
          token: input.token,
          platform: input.platform,
          created_at: now,
          updated_at: now,
        })
        .onConflictDoUpdate({
          target: pushTokens.token,
          set: { workspace_id: ctx.actor.workspaceId, user_id: ctx.actor.userId, platform: input.platform, updated_at: now },
        })
        .returning()
      const { workspace_id: _w, ...token } = row
      return token
    },
    { audit: 'none' },
  )
}

/** Admins of a workspace who are told of what needs a person's eye (flagged check-ins, missed visits): its active super_admins and admins. */
const activeAdmins = prepared((db) =>
  db
    .select({ id: memberships.user_id })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(membershipScope.where(sql.placeholder('workspaceId'), eq(memberships.is_active, true), inArray(roles.slug, ['super_admin', 'admin'])))
    .prepare(),
)

export async function workspaceAdminIds(db: Db, workspaceId: number): Promise<number[]> {
  return (await activeAdmins(db).all({ workspaceId })).map((row) => row.id)
}
