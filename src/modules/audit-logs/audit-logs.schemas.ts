import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES } from '../../platform/data/audit'
import { KEYWORD_MAX, MAX_PAGE, UpdatedSinceParam } from '../../platform/data/pagination'
import { named, OneOf, Opaque, PageMeta, Timestamp, QueryId } from '../../platform/http/schema'

/** What the service wrote (platform/data/audit.ts); opaque to the response normaliser (`Opaque`). */
const JsonObject = Opaque(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]))

export const AuditLogSchema = named(
  'AuditLog',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    actor_id: Type.Union([Type.Integer(), Type.Null()]),
    actor_name: Type.String(),
    actor_role: Type.String(),
    entity_type: Type.String(),
    entity_id: Type.String(),
    entity_name: Type.String(),
    action: Type.String(),
    old_values: JsonObject,
    new_values: JsonObject,
    metadata: Opaque(
      Type.Object(
        {
          ip: Type.Union([Type.String(), Type.Null()]),
          user_agent: Type.Union([Type.String(), Type.Null()]),
          request_id: Type.String(),
          timestamp: Timestamp(),
        },
        {
          // Extras an entry may carry beside the four request fields (e.g. `notified_user_ids`); a typed
          // `additionalProperties` keeps the response normaliser from dropping them.
          additionalProperties: Type.Unknown(),
        },
      ),
    ),
    created_at: Timestamp(),
  }),
)

// Built with the routes: the entity types are the modules' own, registered by createApp first.
export const auditLogQuery = () =>
  t.Object({
    page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
    limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 50, clamped at 100' })),
    keyword: t.Optional(t.String({ maxLength: KEYWORD_MAX, description: 'Searches actor, entity name and type, action, role, entity id' })),
    entity_type: t.Optional(OneOf(AUDIT_ENTITY_TYPES)),
    entity_id: t.Optional(t.String({ maxLength: 64 })),
    action: t.Optional(OneOf(AUDIT_ACTIONS)),
    actor_id: QueryId(),
    date_from: t.Optional(t.String({ maxLength: 40, description: 'ISO 8601 date or date-time (inclusive)' })),
    date_to: t.Optional(t.String({ maxLength: 40, description: 'ISO 8601 date-time (inclusive) or date (the whole day)' })),
    workspace_id: QueryId('super_admin only: one accessible workspace'),
    sort_by: t.Optional(OneOf(['created_at', 'id'])),
    sort_order: t.Optional(OneOf(['asc', 'desc'])),
    updated_since: UpdatedSinceParam,
  })
export type AuditLogQuery = Static<ReturnType<typeof auditLogQuery>>

export const AuditLogPage = Type.Object({ data: Type.Array(AuditLogSchema), meta: PageMeta })
