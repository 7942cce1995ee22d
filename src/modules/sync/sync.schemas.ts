import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { named, OneOf, Opaque } from '../../platform/http/schema'

export const SYNC_LIMIT = { defaultLimit: 500, maxLimit: 1000 }

/** One change row; `entity` is a closed vocabulary: the entities the modules declare (their `syncFeed`). */
const feedChange = (entities: readonly string[]) =>
  Type.Object({
    entity: Type.String({ enum: [...entities], description: 'The entity type of the row' }),
    id: Type.Integer(),
    op: Type.String({ enum: ['upsert', 'delete'], description: '`upsert` (with `data`) or `delete`' }),
    // The entity as its module's detail answers it (already its schema's shape): opaque to the normaliser.
    data: Type.Optional(Opaque(Type.Record(Type.String(), Type.Unknown(), { description: 'upsert only: the object the entity’s detail route answers' }))),
  })
export type FeedChange = Static<ReturnType<typeof feedChange>>

const feedPage = (change: ReturnType<typeof feedChange>) =>
  Type.Object({
    changes: Type.Array(change),
    cursor: Type.String({ description: 'Opaque; send it back as `cursor` for what changed after this page' }),
    has_more: Type.Boolean({ description: 'true: ask again at once with `cursor`' }),
  })
export type FeedPage = Static<ReturnType<typeof feedPage>>

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

const changesQuery = (entities: readonly string[]) =>
  t.Object({
    ...feedQuery,
    entity: t.Optional(OneOf(entities, { description: 'Only this entity type; 403 when you may not view it (its list’s view permission)' })),
  })
/** GET /office/v1/changes */
export type ChangesQuery = Static<ReturnType<typeof changesQuery>>

/**
 * The feed's schemas over the registered entities (the manifests are registered before routes are
 * built, so the route plugin builds these: the document's enum is the registry, never a copy of it).
 */
export function feedSchemas(entities: readonly string[]) {
  const FeedChange = named('FeedChange', feedChange(entities))
  return { FeedChange, FeedPage: named('FeedPage', feedPage(FeedChange)), ChangesQuery: changesQuery(entities) }
}
