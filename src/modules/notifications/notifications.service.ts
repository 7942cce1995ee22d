/**
 * Notifications: one function every feature calls to tell users something (assigned a visit, sent
 * to the field, a submission reviewed). Rows are written in the caller's transaction, so a rolled
 * back action notifies nobody; after commit each is pushed to the user's sockets as
 * `notification.created`. In the same transaction each is queued for push (one `push_deliveries` row
 * per registered token of a configured platform), and after commit the push worker is woken to send
 * them (./push.worker.ts; nothing of the network runs here).
 */
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { memberships, notifications, pushDeliveries, pushTokens, roles } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'
import type { AuthedContext, RequestContext } from '../../platform/context'
import { NotFound, ValidationFailed } from '../../lib/errors'
import type { ListLimits } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import type { NotificationListQuery, PushTokenInput } from './notifications.schemas'
import { withTransaction, type TxScope } from '../../platform/data/transaction'
import { topics } from '../../platform/realtime/hub'
import { checkEndpoint, EndpointRefused, parseWebSubscription } from './push.endpoint'

/** A user's notifications and phones, and the workspace's admins (users.service.ts owns memberships; importing it would make a cycle). */
const notificationScope = workspaceScoped(notifications)
const pushTokenScope = workspaceScoped(pushTokens)
const membershipScope = workspaceScoped(memberships)

export type NotificationRow = typeof notifications.$inferSelect

export interface Notice {
  userIds: number[]
  workspaceId: number
  type: 'visit.assigned' | 'visit.sent_to_field' | 'visit.flagged' | 'visit.missed' | 'submission.approved' | 'submission.rejected'
  title: string
  body: string
  data: Record<string, unknown>
}

/**
 * One notification, prepared once per connection: a flagged check-in notifies a few users, and building
 * and preparing a multi-row insert for each cost more than running this once per recipient.
 */
const insertNotification = prepared((db) =>
  db
    .insert(notifications)
    .values({
      workspace_id: sql.placeholder('workspace_id'),
      user_id: sql.placeholder('user_id'),
      type: sql.placeholder('type'),
      title: sql.placeholder('title'),
      body: sql.placeholder('body'),
      data: sql.placeholder('data'),
      created_at: sql.placeholder('created_at'),
    })
    .returning()
    .prepare(),
)

export async function notify(scope: TxScope, ctx: RequestContext, notice: Notice): Promise<void> {
  const userIds = [...new Set(notice.userIds)]
  if (userIds.length === 0) return
  const now = ctx.deps.clock.now().toISOString()
  const insert = insertNotification(scope.tx)
  const rows: NotificationRow[] = []
  for (const userId of userIds) {
    const values = {
      workspace_id: notice.workspaceId,
      user_id: userId,
      type: notice.type,
      title: notice.title,
      body: notice.body,
      data: notice.data,
      created_at: now,
    }
    rows.push(...((await insert.all(values)) as NotificationRow[]))
  }
  const queued = await queuePush(scope, ctx, rows, now)
  scope.afterCommit(() => {
    for (const row of rows) ctx.deps.hub.publish(topics.user(row.workspace_id, row.user_id), { type: 'notification.created', data: row })
    if (queued) ctx.deps.push.wake()
  })
}

const OUTBOX_INSERT_ROWS = 500

/**
 * The push outbox rows of new notifications, in their transaction: one per notification and token of
 * its user on a configured platform (tokens of the others are stored only). One read for all of them
 * (they share a workspace). Returns how many were queued.
 */
async function queuePush(scope: TxScope, ctx: RequestContext, rows: NotificationRow[], now: string): Promise<number> {
  const platforms = ctx.deps.push.platforms
  if (platforms.length === 0) return 0
  const tokens = await scope.tx
    .select({ user_id: pushTokens.user_id, token: pushTokens.token, platform: pushTokens.platform })
    .from(pushTokens)
    .where(
      pushTokenScope.where(
        rows[0].workspace_id,
        inArray(pushTokens.user_id, [...new Set(rows.map((row) => row.user_id))]),
        inArray(pushTokens.platform, platforms),
      ),
    )
  const deliveries = rows.flatMap((row) =>
    tokens
      .filter((token) => token.user_id === row.user_id)
      .map((token) => ({
        workspace_id: row.workspace_id,
        notification_id: row.id,
        user_id: row.user_id,
        token: token.token,
        platform: token.platform,
        status: 'pending' as const,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })),
  )
  // In parts: a bulk assignment (hundreds of notifications, up to 10 tokens each) stays under SQLite's bound-parameter limit.
  for (let i = 0; i < deliveries.length; i += OUTBOX_INSERT_ROWS) {
    await scope.tx
      .insert(pushDeliveries)
      .values(deliveries.slice(i, i + OUTBOX_INSERT_ROWS))
      .onConflictDoNothing()
  }
  return deliveries.length
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

/** The most tokens one user keeps in a workspace; registering another drops the least recently registered. */
export const PUSH_TOKENS_PER_USER = 10

/**
 * A token belongs to the last user who registered it (a phone changes hands; also across workspaces).
 * A `web` token is a browser subscription whose endpoint is checked before the transaction (a DNS
 * lookup, bounded: ./push.endpoint.ts). Registration and removal are not audited (docs/API.md §Audit log).
 */
export async function registerPushToken(ctx: AuthedContext, input: PushTokenInput) {
  if (input.platform === 'web') {
    const subscription = parseWebSubscription(input.token)
    if (typeof subscription === 'string') throw ValidationFailed.field('token', subscription)
    try {
      await checkEndpoint(subscription.endpoint, { allowPrivate: ctx.deps.config.PUSH_ALLOW_PRIVATE_ENDPOINTS, resolve: ctx.deps.pushResolver })
    } catch (error) {
      if (error instanceof EndpointRefused) throw ValidationFailed.field('token', error.message)
      throw error
    }
  }
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
      // Beyond the cap, the caller's oldest registrations go (a phone that reinstalls gets a new token each time).
      const own = await tx
        .select({ id: pushTokens.id })
        .from(pushTokens)
        .where(pushTokenScope.where(ctx.actor.workspaceId, eq(pushTokens.user_id, ctx.actor.userId)))
        .orderBy(desc(pushTokens.updated_at), desc(pushTokens.id))
      const surplus = own.slice(PUSH_TOKENS_PER_USER).map((token) => token.id)
      if (surplus.length) await tx.delete(pushTokens).where(pushTokenScope.where(ctx.actor.workspaceId, inArray(pushTokens.id, surplus)))
      const { workspace_id: _w, ...token } = row
      return token
    },
    { audit: 'none' },
  )
}

/** Removes one of the caller's tokens (logout of that device); someone else's or an unknown token → 404 PUSH_TOKEN_NOT_FOUND. */
export function deletePushToken(ctx: AuthedContext, token: string) {
  return withTransaction(
    ctx,
    async ({ tx }) => {
      const [removed] = await tx
        .delete(pushTokens)
        .where(pushTokenScope.where(ctx.actor.workspaceId, eq(pushTokens.token, token), eq(pushTokens.user_id, ctx.actor.userId)))
        .returning()
      if (!removed) throw new NotFound('PUSH_TOKEN')
      const { workspace_id: _w, ...row } = removed
      return row
    },
    { audit: 'none' },
  )
}

const deliveryScope = workspaceScoped(pushDeliveries)

/** What an admin sees of a token: its last 8 characters (a web token: the endpoint's host and its last 8), never the whole credential. */
export function tokenHint(token: string, platform: string): string {
  if (platform === 'web') {
    const subscription = parseWebSubscription(token)
    if (typeof subscription !== 'string') {
      try {
        return `${new URL(subscription.endpoint).host} …${subscription.endpoint.slice(-8)}`
      } catch {
        // fall through to the plain hint
      }
    }
  }
  return `…${token.slice(-8)}`
}

/** A notification of the caller's workspace, delivery per token (another workspace's id → 404 NOTIFICATION_NOT_FOUND). */
export async function listDeliveries(ctx: AuthedContext, notificationId: number) {
  const [notification] = await ctx.deps.db.read
    .select({ id: notifications.id })
    .from(notifications)
    .where(notificationScope.where(ctx.actor.workspaceId, eq(notifications.id, notificationId)))
    .limit(1)
  if (!notification) throw new NotFound('NOTIFICATION')
  const rows = await ctx.deps.db.read
    .select()
    .from(pushDeliveries)
    .where(deliveryScope.where(ctx.actor.workspaceId, eq(pushDeliveries.notification_id, notificationId)))
    .orderBy(asc(pushDeliveries.id))
  return rows.map(({ workspace_id: _w, token, ...row }) => ({ ...row, token_hint: tokenHint(token, row.platform) }))
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
