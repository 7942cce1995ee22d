import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { PING_SOURCES, SIGNAL_QUALITIES } from '../../db/schema'
import type { PlatformPlugin } from '../../platform/http'
import { IDEMPOTENCY_KEY_MAX } from '../../platform/idempotency'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/pagination'
import { compiledBody } from '../../platform/validation'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, Id, ListEnvelope, MAX_ID, Nullable, OneOf, responses, Timestamp } from '../../platform/schema'
import { PING_FLAG_BITS } from './geometry'
import { ingestPings, latestPings, listPings, PINGS_PER_BATCH } from './locations.service'
import { loadRouteOfDay, routeGeoJson, routeGpx } from './route.service'

const Optional = <T extends import('@sinclair/typebox').TSchema>(schema: T) => Type.Optional(Nullable(schema))

const PingBody = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  is_mock: Type.Boolean({ description: 'The phone reported a spoofed location' }),
  visit_id: Optional(Id({ description: 'A visit of your workspace' })),
  accuracy_m: Optional(Type.Number({ minimum: 0 })),
  speed_mps: Optional(Type.Number({ minimum: 0 })),
  source: Optional(OneOf(PING_SOURCES)),
  battery_level: Optional(Type.Number({ minimum: 0, maximum: 1 })),
  signal_quality: Optional(OneOf(SIGNAL_QUALITIES)),
  recorded_at: Optional(Type.String({ format: 'iso-date-time', maxLength: 40, description: 'Device time (ISO 8601); at most 5 minutes in the future' })),
})

const BatchBody = Type.Object({ pings: Type.Array(PingBody, { minItems: 1, maxItems: PINGS_PER_BATCH }) })
const checkBatch = compiledBody(BatchBody)

const PingSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  user_id: Type.Integer(),
  visit_id: Nullable(Type.Integer()),
  lat: Type.Number(),
  lng: Type.Number(),
  accuracy_m: Nullable(Type.Number()),
  speed_mps: Nullable(Type.Number()),
  source: Nullable(Type.String()),
  battery_level: Nullable(Type.Number()),
  is_mock: Type.Boolean(),
  signal_quality: Nullable(Type.String()),
  recorded_at: Timestamp({ description: 'Device time, or the server’s receive time when the phone sent none' }),
  flags: Type.Array(Type.String({ enum: Object.keys(PING_FLAG_BITS) }), {
    description:
      'Computed by the server: mock (the phone said so), impossible_speed (over 70 m/s from the previous ping by device time), teleport (over 5 km within 60 s)',
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

const RouteQuery = t.Object({
  user_id: t.Integer({ minimum: 1, maximum: MAX_ID, description: 'A member of your workspace' }),
  date: t.String({ format: 'calendar-date', maxLength: 10, description: 'A local day of the workspace’s time zone (YYYY-MM-DD)' }),
  format: t.Optional(OneOf(['geojson', 'gpx'], { description: 'geojson or gpx; default geojson' })),
})

const Instant = Type.String({ format: 'date-time' })
const RouteFeature = Type.Object({
  type: Type.Literal('Feature'),
  geometry: Type.Object({
    type: Type.String({ description: 'LineString or Point' }),
    coordinates: Type.Array(Type.Any(), { description: '[lng, lat] (a LineString: a list of them)' }),
  }),
  properties: Type.Object(
    { kind: Type.String({ description: 'segment, stop or visit' }) },
    {
      additionalProperties: true,
      description:
        'segment: started_at, ended_at, pings · stop: started_at, ended_at, duration_s, visit_id (the visit in progress, or null) · ' +
        'visit: visit_id, outlet_id, outlet_name, status, flags, checked_in_at, checked_out_at',
    },
  ),
})
const RouteCollection = Type.Object({
  type: Type.Literal('FeatureCollection'),
  properties: Type.Object({
    user_id: Type.Integer(),
    user_name: Type.String(),
    date: Type.String({ format: 'date' }),
    time_zone: Type.String(),
    distance_m: Type.Number({ description: 'Sum of the segments (jumps left out), metres' }),
    moving_s: Type.Integer(),
    stopped_s: Type.Integer(),
    gaps: Type.Array(Type.Object({ from: Instant, to: Instant }), { description: 'Every interval over 15 minutes without a kept ping' }),
    first_ping_at: Nullable(Instant),
    last_ping_at: Nullable(Instant),
    pings: Type.Integer({ description: 'Pings of the day' }),
    excluded_pings: Type.Integer({ description: 'Of them, flagged impossible_speed or teleport: not on the line' }),
  }),
  features: Type.Array(RouteFeature),
})
const errorDoc = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } })

const HistoryQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 100, clamped at 1000' })),
  user_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
  visit_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
  date_from: t.Optional(t.String({ maxLength: 40, description: 'recorded_at from: ISO date or date-time' })),
  date_to: t.Optional(t.String({ maxLength: 40, description: 'recorded_at to: ISO date-time, or a date for the whole day' })),
  updated_since: UpdatedSinceParam,
  sort_order: t.Optional(OneOf(['asc', 'desc'], { description: 'By recorded_at; default desc (newest first)' })),
})

export const locationRoutes = (platform: PlatformPlugin) =>
  new Elysia({ tags: ['Locations'] })
    .use(platform)
    // The hottest route: its body is checked by a compiled TypeBox check with Elysia's own errors,
    // minus the normalisation pass (the service reads each declared field; nothing else is copied).
    .post('/app/v1/locations/batch', async ({ ctx, body }) => created(await ingestPings(ctx, checkBatch(body).pings), 'CREATED', 'Locations Saved'), {
      auth: 'location:create',
      // The service refuses nothing before its transaction, which checks the key first (hot path).
      idempotency: 'in-transaction',
      headers: t.Object({
        'x-idempotency-key': t.String({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, description: 'Required here: a UUID per batch, reused on retry' }),
      }),
      response: responses(
        { 201: Envelope(Type.Object({ count: Type.Integer({ description: 'Pings saved (backlog duplicates are not)' }) })) },
        [400, 401, 403, 409, 422],
      ),
      detail: {
        summary: 'Upload a batch of 1–50 GPS pings (all or nothing)',
        requestBody: { required: true, content: { 'application/json': { schema: BatchBody as never } } },
      },
    })
    .get('/office/v1/locations', async ({ ctx, query }) => listed(await listPings(ctx, query)), {
      auth: 'livemap:view',
      query: HistoryQuery,
      response: responses({ 200: ListEnvelope(PingSchema) }),
      detail: { summary: 'Location history, newest device time first' },
    })
    .get('/office/v1/locations/latest', async ({ ctx }) => ok(await latestPings(ctx)), {
      auth: 'livemap:view',
      response: responses({ 200: Envelope(Type.Array(Type.Object({ ...PingSchema.properties, user_name: Type.String() }))) }),
      detail: { summary: 'The newest ping of each user (a plain array, no meta)' },
    })
    .get(
      '/office/v1/locations/route',
      async ({ ctx, query }) => {
        const route = await loadRouteOfDay(ctx, query.user_id, query.date)
        return query.format === 'gpx'
          ? new Response(routeGpx(route), { headers: { 'content-type': 'application/gpx+xml; charset=utf-8' } })
          : new Response(JSON.stringify(routeGeoJson(route)), { headers: { 'content-type': 'application/geo+json; charset=utf-8' } })
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
                'application/geo+json': { schema: RouteCollection as never },
                'application/gpx+xml': { schema: { type: 'string' } },
              },
            },
            400: errorDoc('VALIDATION_ERROR: user_id or date missing or malformed'),
            401: errorDoc('UNAUTHORIZED or TOKEN_EXPIRED'),
            403: errorDoc('FORBIDDEN: missing permission, platform or access level'),
            404: errorDoc('USER_NOT_FOUND: not a member of your workspace'),
          },
        },
      },
    )
