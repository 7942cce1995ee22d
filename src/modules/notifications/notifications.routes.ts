import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, IdParams, ListEnvelope, NullableTimestamp, OneOf, responses, Timestamp } from '../../platform/schema'
import { listNotifications, markAllRead, markRead, registerPushToken, unreadCount } from './notifications.service'

const NotificationSchema = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  type: Type.String({ description: 'visit.assigned, visit.sent_to_field, submission.approved, submission.rejected' }),
  title: Type.String(),
  body: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  read_at: NullableTimestamp(),
  created_at: Timestamp(),
})
const Query = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 10, clamped at 100' })),
  unread: t.Optional(t.Boolean({ description: 'true: unread only; false: read only' })),
  updated_since: UpdatedSinceParam,
})

/** Your own notifications, on both platforms (no permission beyond being signed in). */
export function notificationRoutes(platform: PlatformPlugin) {
  const app = new Elysia({ tags: ['Notifications'] }).use(platform)
  for (const prefix of ['/office/v1/notifications', '/app/v1/notifications']) {
    app
      .get(prefix, async ({ ctx, query }) => listed(await listNotifications(ctx, query)), {
        auth: true,
        query: Query,
        response: responses({ 200: ListEnvelope(NotificationSchema) }, [400, 401]),
        detail: { summary: 'Your notifications, newest first' },
      })
      .put(`${prefix}/:id/read`, async ({ ctx, params }) => ok(await markRead(ctx, params.id), 'NOTIFICATION_READ', 'notification marked as read'), {
        auth: true,
        params: IdParams,
        response: responses({ 200: Envelope(NotificationSchema) }, [400, 401, 404]),
        detail: { summary: 'Mark one of your notifications as read' },
      })
  }
  for (const prefix of ['/office/v1/notifications', '/app/v1/notifications']) {
    app
      .get(`${prefix}/unread-count`, async ({ ctx }) => ok(await unreadCount(ctx)), {
        auth: true,
        response: responses({ 200: Envelope(Type.Object({ count: Type.Integer() })) }, [401]),
        detail: { summary: 'How many of your notifications are unread' },
      })
      .put(`${prefix}/read-all`, async ({ ctx }) => ok(await markAllRead(ctx), 'NOTIFICATIONS_READ', 'all notifications marked as read'), {
        auth: true,
        response: responses({ 200: Envelope(Type.Object({ count: Type.Integer({ description: 'How many were unread' }) })) }, [401]),
        detail: { summary: 'Mark all your notifications as read' },
      })
  }
  return app.post(
    '/app/v1/notifications/tokens',
    async ({ ctx, body }) => created(await registerPushToken(ctx, body), 'PUSH_TOKEN_REGISTERED', 'push token registered'),
    {
      auth: true,
      body: Type.Object({ token: Type.String({ minLength: 8, maxLength: 4096, pattern: '\\S' }), platform: OneOf(['android', 'ios', 'web']) }),
      response: responses(
        {
          201: Envelope(
            Type.Object({
              id: Type.Integer(),
              user_id: Type.Integer(),
              token: Type.String(),
              platform: Type.String(),
              created_at: Timestamp(),
              updated_at: Timestamp(),
            }),
          ),
        },
        [400, 401],
      ),
      detail: { summary: 'Register this device’s push token (de-duplicated)' },
    },
  )
}
