import { type Static, Type } from '@sinclair/typebox'
import { CurrencyCode } from '../../lib/currency'
import { TimeZoneString } from '../../lib/dates'
import { listQuery } from '../../platform/data/pagination'
import { named, RequiredText, Timestamp } from '../../platform/http/schema'

export const GEOFENCE_RADIUS_MIN = 10
export const GEOFENCE_RADIUS_MAX = 5_000
export const JOURNEY_PLAN_HORIZON_MIN = 1
export const JOURNEY_PLAN_HORIZON_MAX = 31

const GeofenceMode = Type.Union([Type.Literal('off'), Type.Literal('warn'), Type.Literal('block')], {
  description: 'Check-in/out outside the radius: off (ignored), warn (allowed and flagged) or block (refused)',
})

export const WorkspaceSchema = named(
  'Workspace',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    location_retention_days: Type.Integer(),
    timezone: Type.String({ description: 'IANA time zone: "today" and every calendar date are its local days' }),
    geofence_mode: GeofenceMode,
    geofence_radius_m: Type.Integer({ description: 'Metres around an outlet (an outlet may set its own)' }),
    currency: Type.String({ description: 'ISO 4217 code of every amount of the workspace (prices, orders); amounts are integers in its smallest unit' }),
    journey_plan_horizon_days: Type.Integer({ description: 'Journey plans generate the visits of this many local days ahead, today included' }),
    role: Type.String({ description: 'Your role slug in this workspace' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

export const WorkspaceQuery = listQuery({})
export type WorkspaceListQuery = Static<typeof WorkspaceQuery>

export const WorkspaceBody = Type.Object({
  name: RequiredText(255),
  timezone: Type.Optional(TimeZoneString({ description: 'Default: the server’s DEFAULT_TIMEZONE' })),
})
export type WorkspaceInput = Static<typeof WorkspaceBody>

export const WorkspaceSettingsBody = Type.Object(
  {
    name: Type.Optional(RequiredText(255)),
    location_retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Pings older than this are removed daily (default 90)' })),
    timezone: Type.Optional(TimeZoneString()),
    geofence_mode: Type.Optional(GeofenceMode),
    geofence_radius_m: Type.Optional(Type.Integer({ minimum: GEOFENCE_RADIUS_MIN, maximum: GEOFENCE_RADIUS_MAX, description: 'Default 200' })),
    currency: Type.Optional(CurrencyCode({ description: 'ISO 4217, upper case (default IDR); `idr` and unknown codes are refused' })),
    journey_plan_horizon_days: Type.Optional(
      Type.Integer({
        minimum: JOURNEY_PLAN_HORIZON_MIN,
        maximum: JOURNEY_PLAN_HORIZON_MAX,
        description: 'Local days ahead that journey plans generate visits for (default 7)',
      }),
    ),
  },
  { minProperties: 1 },
)
export type WorkspaceSettingsInput = Static<typeof WorkspaceSettingsBody>
