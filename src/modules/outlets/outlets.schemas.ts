/**
 * Request and response shapes of the outlet routes (docs/API.md §Other areas, §Lists); the service's input types
 * are derived from them, so what the routes validate is what the service is typed to receive.
 */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, NullableTimestamp, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'
import { GEOFENCE_RADIUS_MAX, GEOFENCE_RADIUS_MIN } from '../workspaces'

const NullableInt = Nullable(Type.Integer())

export const OutletSchema = named(
  'Outlet',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
    code: Nullable(Type.String()),
    address: Nullable(Type.String()),
    latitude: Nullable(Type.Number()),
    longitude: Nullable(Type.Number()),
    geofence_radius_m: Nullable(Type.Integer({ description: 'This outlet’s geofence radius in metres; null: the workspace’s' })),
    account_id: NullableInt,
    account: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), channel_id: NullableInt })),
    sub_area_id: NullableInt,
    sub_area: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })),
    province_id: NullableInt,
    city_id: NullableInt,
    district_id: NullableInt,
    village_id: NullableInt,
    contact_name: Nullable(Type.String()),
    contact_phone: Nullable(Type.String()),
    is_active: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)

const OptionalRef = (description: string) => Type.Optional(Type.Union([Id({ description }), Type.Null()]))
const fields = {
  name: RequiredText(255),
  code: OptionalText(64, { multiline: false, description: 'Unique per workspace (case-insensitive)' }),
  address: OptionalText(1000),
  latitude: Type.Optional(Type.Union([Type.Number({ minimum: -90, maximum: 90 }), Type.Null()])),
  longitude: Type.Optional(Type.Union([Type.Number({ minimum: -180, maximum: 180 }), Type.Null()])),
  geofence_radius_m: Type.Optional(
    Type.Union([
      Type.Integer({ minimum: GEOFENCE_RADIUS_MIN, maximum: GEOFENCE_RADIUS_MAX, description: 'Overrides the workspace’s geofence radius (metres)' }),
      Type.Null(),
    ]),
  ),
  account_id: OptionalRef('A live account of your workspace'),
  sub_area_id: OptionalRef('A live sub-area of your workspace'),
  province_id: OptionalRef('Regional province id'),
  city_id: OptionalRef('Regional city id'),
  district_id: OptionalRef('Regional district id'),
  village_id: OptionalRef('Regional village id'),
  contact_name: OptionalText(255, { multiline: false }),
  contact_phone: OptionalText(32, { multiline: false }),
  is_active: Type.Optional(Type.Boolean()),
}

/** POST /office/v1/outlets */
export const CreateOutletBody = Type.Object(fields)
/** PUT /office/v1/outlets/:id: any of the fields, at least one. */
export const UpdateOutletBody = Type.Object({ ...fields, name: Type.Optional(fields.name) }, { minProperties: 1 })

/** GET …/outlets: the list query (docs/API.md §Lists) and the outlet filters. */
export const OutletListQuerySchema = listQuery(
  {
    account_id: QueryId(),
    channel_id: QueryId(),
    sub_area_id: QueryId(),
    city_id: QueryId(),
    is_active: t.Optional(t.Boolean()),
  },
  ['created_at', 'updated_at', 'name', 'id', 'code'],
)

export type OutletInput = Static<typeof CreateOutletBody>
export type OutletUpdate = Static<typeof UpdateOutletBody>
export type OutletListQuery = Static<typeof OutletListQuerySchema>
