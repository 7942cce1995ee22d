import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/data/pagination'
import { named, NullableTimestamp, OneOf, Timestamp } from '../../platform/http/schema'

export const NotificationSchema = named(
  'Notification',
  Type.Object({
    id: Type.Integer(),
    user_id: Type.Integer(),
    type: Type.String({ description: 'visit.assigned, visit.sent_to_field, submission.approved, submission.rejected' }),
    title: Type.String(),
    body: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
    read_at: NullableTimestamp(),
    created_at: Timestamp(),
  }),
)

export const UnreadCountSchema = Type.Object({ count: Type.Integer() })

export const ReadAllSchema = Type.Object({ count: Type.Integer({ description: 'How many were unread' }) })

export const PushTokenSchema = named(
  'PushToken',
  Type.Object({
    id: Type.Integer(),
    user_id: Type.Integer(),
    token: Type.String(),
    platform: Type.String(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

/** Not a `listQuery`: the list has one order (newest first) and no keyword. */
export const NotificationQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 10, clamped at 100' })),
  unread: t.Optional(t.Boolean({ description: 'true: unread only; false: read only' })),
  updated_since: UpdatedSinceParam,
})
export type NotificationListQuery = Static<typeof NotificationQuery>

export const PushTokenBody = Type.Object({
  token: Type.String({
    minLength: 8,
    maxLength: 4096,
    pattern: '\\S',
    description:
      'android/ios: the FCM registration token. web: the browser’s PushSubscription as JSON text {"endpoint":"https://…","keys":{"p256dh":"…","auth":"…"}}; the endpoint must be https: on a public address',
  }),
  platform: OneOf(['android', 'ios', 'web']),
})
export type PushTokenInput = Static<typeof PushTokenBody>

/** A token in the path (URL-encoded: a web token is JSON text). */
export const PushTokenParams = t.Object({ token: t.String({ minLength: 8, maxLength: 4096 }) })

export const PushDeliverySchema = named(
  'PushDelivery',
  Type.Object({
    id: Type.Integer(),
    notification_id: Type.Integer(),
    user_id: Type.Integer(),
    platform: Type.String({ description: 'android, ios or web' }),
    token_hint: Type.String({ description: 'The token’s last 8 characters (web: the endpoint’s host and its last 8), never the whole token' }),
    status: Type.String({
      description:
        'pending (queued or waiting for a retry), sending, sent, failed (given up or refused), pruned (the push service no longer knows the token: deleted), skipped (not sent: the user was deactivated or the token removed or moved)',
    }),
    attempts: Type.Integer({ description: 'Sends tried so far (at most 6)' }),
    next_attempt_at: Timestamp({ description: 'When the next try is due (pending)' }),
    last_status: Type.Union([Type.Integer(), Type.Null()], { description: 'The push service’s HTTP status at the last try' }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    sent_at: NullableTimestamp(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)
