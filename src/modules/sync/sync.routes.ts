/**
 * GET /app/v1/sync (any signed-in user, on the phone) and GET /office/v1/changes (`audit_log.view`):
 * one change feed, two views (docs/API.md §Sync and change feed).
 */
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { ok } from '../../platform/reply'
import { Envelope, OneOf, responses } from '../../platform/schema'
import { FEED_ENTITY_NAMES } from './sync.entities'
import { officeChanges, SYNC_LIMIT, syncForPhone } from './sync.service'

const Change = Type.Object({
  entity: Type.String({ description: `One of: ${FEED_ENTITY_NAMES.join(', ')}` }),
  id: Type.Integer(),
  op: Type.String({ description: '`upsert` (with `data`) or `delete`' }),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'upsert only: the object the entity’s detail route answers' })),
})
const Feed = Envelope(
  Type.Object({
    changes: Type.Array(Change),
    cursor: Type.String({ description: 'Opaque; send it back as `cursor` for what changed after this page' }),
    has_more: Type.Boolean({ description: 'true: ask again at once with `cursor`' }),
  }),
)
const feedQuery = {
  cursor: t.Optional(t.String({ maxLength: 200, description: 'From the previous answer; absent: everything (a first sync)' })),
  limit: t.Optional(t.Integer({ minimum: 1, description: `Change rows per page; default ${SYNC_LIMIT.defaultLimit}, clamped at ${SYNC_LIMIT.maxLimit}` })),
}

export const syncRoutes = (platform: PlatformPlugin) =>
  new Elysia({ tags: ['Sync'] })
    .use(platform)
    .get('/app/v1/sync', async ({ ctx, query }) => ok(await syncForPhone(ctx, query), 'SYNC_OK', 'Success'), {
      auth: true,
      query: t.Object(feedQuery),
      response: responses({ 200: Feed }, [400, 401]),
      detail: { summary: 'What changed for me since `cursor`: master data, outlets, forms, projects, catalogue, my visits and their submissions' },
    })
    .get('/office/v1/changes', async ({ ctx, query }) => ok(await officeChanges(ctx, query), 'SYNC_OK', 'Success'), {
      auth: 'audit_log.view',
      query: t.Object({ ...feedQuery, entity: t.Optional(OneOf(FEED_ENTITY_NAMES, { description: 'Only this entity type' })) }),
      response: responses({ 200: Feed }),
      detail: { summary: 'Change feed of every business entity of the workspace, for integrations that poll' },
    })
