import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { PING_SOURCES, SIGNAL_QUALITIES } from '../../db/schema'
import { IDEMPOTENCY_KEY_MAX } from '../../platform/data/idempotency'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/data/pagination'
import { Id, MAX_ID, named, Nullable, OneOf, Timestamp, QueryId } from '../../platform/http/schema'
import { PING_FLAG_BITS } from '../../lib/geo'

export const PINGS_PER_BATCH = 50

const Optional = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema))

/** One ping as the phone sends it. */
export const PingInput = Type.Object({
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
export type PingInput = Static<typeof PingInput>

export const PingBatch = Type.Object({ pings: Type.Array(PingInput, { minItems: 1, maxItems: PINGS_PER_BATCH }) })

export const BatchHeaders = t.Object({
  'x-idempotency-key': t.String({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, description: 'Required here: a UUID per batch, reused on retry' }),
})

export const BatchSaved = Type.Object({ count: Type.Integer({ description: 'Pings saved (backlog duplicates are not)' }) })

/** A stored ping as the API shows it (history, live-map events). */
export const Ping = named(
  'LocationPing',
  Type.Object({
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
  }),
)
export type Ping = Static<typeof Ping>

/** The newest ping of a user, with the user's name (GET /office/v1/locations/latest). */
export const LatestPing = named('LatestLocationPing', Type.Object({ ...Ping.properties, user_name: Type.String() }))
export const LatestPings = Type.Array(LatestPing)

export const HistoryQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 100, clamped at 1000' })),
  user_id: QueryId(),
  visit_id: QueryId(),
  date_from: t.Optional(t.String({ maxLength: 40, description: 'recorded_at from: ISO date or date-time' })),
  date_to: t.Optional(t.String({ maxLength: 40, description: 'recorded_at to: ISO date-time, or a date for the whole day' })),
  updated_since: UpdatedSinceParam,
  sort_order: t.Optional(OneOf(['asc', 'desc'], { description: 'By recorded_at; default desc (newest first)' })),
})
export type HistoryQuery = Static<typeof HistoryQuery>

export const RouteQuery = t.Object({
  user_id: t.Integer({ minimum: 1, maximum: MAX_ID, description: 'A member of your workspace' }),
  date: t.String({ format: 'calendar-date', maxLength: 10, description: 'A local day of the workspace’s time zone (YYYY-MM-DD)' }),
  format: t.Optional(OneOf(['geojson', 'gpx'], { description: 'geojson or gpx; default geojson' })),
})
export type RouteQuery = Static<typeof RouteQuery>

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
export const RouteCollection = named(
  'RouteCollection',
  Type.Object({
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
  }),
)
