import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, documentedSchema, Envelope, errorResponses, ListEnvelope, responses } from '../../platform/http/schema'
import { compiledBody } from '../../platform/http/validation'
import { BatchHeaders, BatchSaved, HistoryQuery, LatestPings, Ping, PingBatch, RouteCollection, RouteQuery } from './locations.schemas'
import { ingestPings, latestPings, listPings } from './locations.service'
import { routeReplay } from './route.service'

const checkBatch = compiledBody(PingBatch)

export const locationRoutes = (platform: PlatformPlugin) =>
  new Elysia({ tags: ['Locations'] })
    .use(platform)
    // The hottest route: its body is checked by a compiled TypeBox check with Elysia's own errors,
    // minus the normalisation pass (the service reads each declared field; nothing else is copied).
    .post('/app/v1/locations/batch', async ({ ctx, body }) => created(await ingestPings(ctx, checkBatch(body).pings), 'CREATED', 'Locations Saved'), {
      auth: 'location:create',
      // The service refuses nothing before its transaction, which checks the key first (hot path).
      idempotency: 'in-transaction',
      headers: BatchHeaders,
      response: responses({ 201: Envelope(BatchSaved) }, [...AUTHED_ERRORS, 'IDEMPOTENCY_KEY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED']),
      detail: {
        summary: 'Upload a batch of 1–50 GPS pings (all or nothing)',
        requestBody: { required: true, content: { 'application/json': { schema: documentedSchema(PingBatch) } } },
      },
    })
    .get('/office/v1/locations', async ({ ctx, query }) => listed(await listPings(ctx, query)), {
      auth: 'livemap:view',
      query: HistoryQuery,
      response: responses({ 200: ListEnvelope(Ping) }),
      detail: { summary: 'Location history, newest device time first' },
    })
    .get('/office/v1/locations/latest', async ({ ctx }) => ok(await latestPings(ctx)), {
      auth: 'livemap:view',
      response: responses({ 200: Envelope(LatestPings) }),
      detail: { summary: 'The newest ping of each user (a plain array, no meta)' },
    })
    .get(
      '/office/v1/locations/route',
      async ({ ctx, query }) => {
        const route = await routeReplay(ctx, query)
        return new Response(route.body, { headers: { 'content-type': route.contentType } })
      },
      {
        auth: 'livemap:view',
        query: RouteQuery,
        // GeoJSON or GPX, not the JSON envelope: documented here rather than validated as a response schema.
        detail: {
          summary: 'Route replay: a user’s local day as GeoJSON (segments, stops, visits) or GPX 1.1',
          responses: {
            200: {
              description: 'application/geo+json: a FeatureCollection; with format=gpx, application/gpx+xml (GPX 1.1)',
              content: {
                'application/geo+json': { schema: documentedSchema(RouteCollection) },
                'application/gpx+xml': { schema: { type: 'string' } },
              },
            },
            // USER_NOT_FOUND: not a member of your workspace.
            ...errorResponses([...AUTHED_ERRORS, 'USER_NOT_FOUND']),
          },
        },
      },
    )
