import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { named, OneOf } from '../../platform/http/schema'
import { FEED_ENTITY_NAMES } from './sync.entities'

export const SYNC_LIMIT = { defaultLimit: 500, maxLimit: 1000 }

export const FeedChange = named(
  'FeedChange',
  Type.Object({
    entity: Type.String({ enum: [...FEED_ENTITY_NAMES], description: 'The entity type of the row' }),
    id: Type.Integer(),
    op: Type.String({ enum: ['upsert', 'delete'], description: '`upsert` (with `data`) or `delete`' }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'upsert only: the object the entity’s detail route answers' })),
  }),
)
export type FeedChange = Static<typeof FeedChange>

export const FeedPage = named(
  'FeedPage',
  Type.Object({
    changes: Type.Array(FeedChange),
    cursor: Type.String({ description: 'Opaque; send it back as `cursor` for what changed after this page' }),
    has_more: Type.Boolean({ description: 'true: ask again at once with `cursor`' }),
  }),
)
export type FeedPage = Static<typeof FeedPage>

const feedQuery = {
  cursor: t.Optional(
    t.String({
      maxLength: 200,
      description:
        'From the previous answer (sealed: not readable, not forgeable); absent: everything (a first sync). Refused with 400 errors.cursor when altered, too old, or issued before your permissions changed: sync again without it',
    }),
  ),
  limit: t.Optional(t.Integer({ minimum: 1, description: `Change rows per page; default ${SYNC_LIMIT.defaultLimit}, clamped at ${SYNC_LIMIT.maxLimit}` })),
}

/** GET /app/v1/sync */
export const FeedQuery = t.Object(feedQuery)
export type FeedQuery = Static<typeof FeedQuery>

/** GET /office/v1/changes */
export const ChangesQuery = t.Object({
  ...feedQuery,
  entity: t.Optional(OneOf(FEED_ENTITY_NAMES, { description: 'Only this entity type; 403 when you may not view it (its list’s view permission)' })),
})
export type ChangesQuery = Static<typeof ChangesQuery>
