import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { PING_SOURCES, SIGNAL_QUALITIES } from '../../db/schema'
import { IDEMPOTENCY_CHECK_IN_TRANSACTION, type PlatformPlugin } from '../../platform/http'
import { IDEMPOTENCY_KEY_MAX } from '../../platform/idempotency'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/pagination'
import { compiledBody } from '../../platform/validation'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, Id, ListEnvelope, MAX_ID, Nullable, OneOf, responses, Timestamp } from '../../platform/schema'
import { PING_FLAG_BITS } from './geometry'
import { ingestPings, latestPings, listPings, PINGS_PER_BATCH } from './locations.service'

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
  recorded_at: Optional(
    Type.String({ format: 'iso-date-time', maxLength: 40, description: 'Device time (ISO 8601); at most 5 minutes in the future' }),
  ),
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
    description: 'Computed by the server: mock (the phone said so), impossible_speed (over 70 m/s from the previous ping by device time), teleport (over 5 km within 60 s)',
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

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
      headers: t.Object({
        'x-idempotency-key': t.String({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, description: 'Required here: a UUID per batch, reused on retry' }),
      }),
      response: responses({ 201: Envelope(Type.Object({ count: Type.Integer({ description: 'Pings saved (backlog duplicates are not)' }) })) }, [400, 401, 403, 409, 422]),
      detail: {
        summary: 'Upload a batch of 1–50 GPS pings (all or nothing)',
        requestBody: { required: true, content: { 'application/json': { schema: BatchBody as never } } },
        // The service refuses nothing before its transaction, which checks the key first (hot path).
        'x-idempotency-check': IDEMPOTENCY_CHECK_IN_TRANSACTION,
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
