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

export const PushTokenBody = Type.Object({ token: Type.String({ minLength: 8, maxLength: 4096, pattern: '\\S' }), platform: OneOf(['android', 'ios', 'web']) })
export type PushTokenInput = Static<typeof PushTokenBody>
