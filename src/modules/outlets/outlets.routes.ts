import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import {
  Envelope,
  Id,
  IdParams,
  ListEnvelope,
  MAX_ID,
  Nullable,
  NullableTimestamp,
  OptionalText,
  RequiredText,
  responses,
  Timestamp,
} from '../../platform/schema'
import { GEOFENCE_RADIUS_MAX, GEOFENCE_RADIUS_MIN } from '../workspaces/workspaces.service'
import { createOutlet, deleteOutlet, getOutlet, listOutlets, updateOutlet } from './outlets.service'

const NullableInt = Nullable(Type.Integer())

export const OutletSchema = Type.Object({
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
})

const OptionalRef = (description: string) => Type.Optional(Type.Union([Id({ description }), Type.Null()]))
const fields = {
  name: RequiredText(255),
  code: OptionalText(64, { description: 'Unique per workspace (case-insensitive)' }),
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
  contact_name: OptionalText(255),
  contact_phone: OptionalText(32),
  is_active: Type.Optional(Type.Boolean()),
}

const OutletQuery = listQuery(
  {
    account_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
    channel_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
    sub_area_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
    city_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
    is_active: t.Optional(t.Boolean()),
  },
  ['created_at', 'updated_at', 'name', 'id', 'code'],
)

const readRoutes = (platform: PlatformPlugin, prefix: string, name: string) =>
  new Elysia({ prefix: `${prefix}/outlets`, tags: ['Outlets'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listOutlets(ctx, query)), {
      auth: 'outlet.view',
      query: OutletQuery,
      response: responses({ 200: ListEnvelope(OutletSchema) }),
      detail: { summary: `List outlets (${name}); keyword matches name and code` },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getOutlet(ctx, params.id)), {
      auth: 'outlet.view',
      params: IdParams,
      response: responses({ 200: Envelope(OutletSchema) }, [400, 401, 403, 404]),
      detail: { summary: `Get an outlet (${name})` },
    })

export const outletRoutes = (platform: PlatformPlugin) =>
  new Elysia()
    .use(
      readRoutes(platform, '/office/v1', 'web')
        .post('', async ({ ctx, body }) => created(await createOutlet(ctx, body), 'OUTLET_CREATED', 'outlet created'), {
          auth: 'outlet.manage',
          body: Type.Object(fields),
          response: responses({ 201: Envelope(OutletSchema) }, [400, 401, 403, 409]),
          detail: { summary: 'Create an outlet' },
        })
        .put('/:id', async ({ ctx, params, body }) => ok(await updateOutlet(ctx, params.id, body), 'OUTLET_UPDATED', 'outlet updated'), {
          auth: 'outlet.manage',
          params: IdParams,
          body: Type.Object({ ...fields, name: Type.Optional(fields.name) }, { minProperties: 1 }),
          response: responses({ 200: Envelope(OutletSchema) }, [400, 401, 403, 404, 409]),
          detail: { summary: 'Update an outlet' },
        })
        .delete('/:id', async ({ ctx, params }) => ok(await deleteOutlet(ctx, params.id), 'OUTLET_DELETED', 'outlet deleted'), {
          auth: 'outlet.manage',
          params: IdParams,
          response: responses({ 200: Envelope(OutletSchema) }, [400, 401, 403, 404, 409]),
          detail: { summary: 'Delete an outlet without open visits (soft)' },
        }),
    )
    .use(readRoutes(platform, '/app/v1', 'mobile'))
