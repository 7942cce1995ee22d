import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import { Type } from '@sinclair/typebox'
import {
  NotificationQuery,
  NotificationSchema,
  PushDeliverySchema,
  PushTokenBody,
  PushTokenParams,
  PushTokenSchema,
  ReadAllSchema,
  UnreadCountSchema,
} from './notifications.schemas'
import { deletePushToken, listDeliveries, listNotifications, markAllRead, markRead, registerPushToken, unreadCount } from './notifications.service'

/** Your own notifications, on both platforms (no permission beyond being signed in). */
export function notificationRoutes(platform: PlatformPlugin) {
  const app = new Elysia({ tags: ['Notifications'] }).use(platform)
  for (const prefix of ['/office/v1/notifications', '/app/v1/notifications']) {
    app
      .get(prefix, async ({ ctx, query }) => listed(await listNotifications(ctx, query)), {
        auth: true,
        query: NotificationQuery,
        response: responses({ 200: ListEnvelope(NotificationSchema) }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED']),
        detail: { summary: 'Your notifications, newest first' },
      })
      .put(`${prefix}/:id/read`, async ({ ctx, params }) => ok(await markRead(ctx, params.id), 'NOTIFICATION_READ', 'notification marked as read'), {
        auth: true,
        params: IdParams,
        response: responses({ 200: Envelope(NotificationSchema) }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED', 'NOTIFICATION_NOT_FOUND']),
        detail: { summary: 'Mark one of your notifications as read' },
      })
  }
  for (const prefix of ['/office/v1/notifications', '/app/v1/notifications']) {
    app
      .get(`${prefix}/unread-count`, async ({ ctx }) => ok(await unreadCount(ctx)), {
        auth: true,
        response: responses({ 200: Envelope(UnreadCountSchema) }, ['UNAUTHORIZED', 'TOKEN_EXPIRED']),
        detail: { summary: 'How many of your notifications are unread' },
      })
      .put(`${prefix}/read-all`, async ({ ctx }) => ok(await markAllRead(ctx), 'NOTIFICATIONS_READ', 'all notifications marked as read'), {
        auth: true,
        response: responses({ 200: Envelope(ReadAllSchema) }, ['UNAUTHORIZED', 'TOKEN_EXPIRED']),
        detail: { summary: 'Mark all your notifications as read' },
      })
  }
  return app
}

/**
 * Push (docs/API.md §Push notifications): your devices' tokens, and, for admins (`user.manage`), how a
 * notification of the workspace was pushed to each token.
 */
export function pushRoutes(platform: PlatformPlugin) {
  return new Elysia({ tags: ['Notifications'] })
    .use(platform)
    .post(
      '/app/v1/notifications/tokens',
      async ({ ctx, body }) => created(await registerPushToken(ctx, body), 'PUSH_TOKEN_REGISTERED', 'push token registered'),
      {
        auth: true,
        body: PushTokenBody,
        response: responses({ 201: Envelope(PushTokenSchema) }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED']),
        detail: { summary: 'Register this device’s push token (de-duplicated; a token registered by someone else moves to you)' },
      },
    )
    .delete(
      '/app/v1/notifications/tokens/:token',
      async ({ ctx, params }) => ok(await deletePushToken(ctx, params.token), 'PUSH_TOKEN_DELETED', 'push token removed'),
      {
        auth: true,
        params: PushTokenParams,
        response: responses({ 200: Envelope(PushTokenSchema) }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED', 'PUSH_TOKEN_NOT_FOUND']),
        detail: { summary: 'Remove one of your push tokens (this device signs out); the token URL-encoded' },
      },
    )
    .get('/office/v1/notifications/:id/deliveries', async ({ ctx, params }) => ok(await listDeliveries(ctx, params.id)), {
      auth: 'user.manage',
      params: IdParams,
      response: responses({ 200: Envelope(Type.Array(PushDeliverySchema)) }, [
        'VALIDATION_ERROR',
        'UNAUTHORIZED',
        'TOKEN_EXPIRED',
        'FORBIDDEN',
        'NOTIFICATION_NOT_FOUND',
      ]),
      detail: { summary: 'How a notification of this workspace was pushed, per token (admins: user.manage)' },
    })
}
