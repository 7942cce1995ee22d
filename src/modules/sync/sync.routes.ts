/**
 * GET /app/v1/sync (any signed-in user, on the phone) and GET /office/v1/changes (`audit_log.view`, and
 * each entity only with its own view permission): one change feed, two views (docs/API.md §Sync and change feed).
 */
import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { ok } from '../../platform/http/reply'
import { Envelope, responses } from '../../platform/http/schema'
import { feedEntities } from '../../platform/data/feed-entities'
import { FeedQuery, feedSchemas } from './sync.schemas'
import { officeChanges, syncForPhone } from './sync.service'

export const syncRoutes = (platform: PlatformPlugin) => {
  const { FeedPage, ChangesQuery } = feedSchemas(feedEntities().map((entity) => entity.name))
  const Feed = Envelope(FeedPage)
  return new Elysia({ tags: ['Sync'] })
    .use(platform)
    .get('/app/v1/sync', async ({ ctx, query }) => ok(await syncForPhone(ctx, query), 'SYNC_OK', 'Success'), {
      auth: true,
      query: FeedQuery,
      response: responses({ 200: Feed }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED']),
      detail: { summary: 'What changed for me since `cursor`: master data, outlets, forms, projects, catalogue, my visits and their submissions' },
    })
    .get('/office/v1/changes', async ({ ctx, query }) => ok(await officeChanges(ctx, query), 'SYNC_OK', 'Success'), {
      auth: 'audit_log.view',
      query: ChangesQuery,
      response: responses({ 200: Feed }),
      detail: {
        summary: 'Change feed of the business entities of the workspace you may view (each needs its list’s view permission), for integrations that poll',
      },
    })
}
