import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { TimeZoneString } from '../../platform/dates'
import { Envelope, IdParams, ListEnvelope, RequiredText, responses, Timestamp } from '../../platform/schema'
import { createWorkspace, GEOFENCE_RADIUS_MAX, GEOFENCE_RADIUS_MIN, listAccessibleWorkspaces, updateWorkspaceSettings } from './workspaces.service'

const GeofenceMode = Type.Union([Type.Literal('off'), Type.Literal('warn'), Type.Literal('block')], {
  description: 'Check-in/out outside the radius: off (ignored), warn (allowed and flagged) or block (refused)',
})

export const WorkspaceSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  location_retention_days: Type.Integer(),
  timezone: Type.String({ description: 'IANA time zone: "today" and every calendar date are its local days' }),
  geofence_mode: GeofenceMode,
  geofence_radius_m: Type.Integer({ description: 'Metres around an outlet (an outlet may set its own)' }),
  role: Type.String({ description: 'Your role slug in this workspace' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

export const workspaceRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/workspaces', tags: ['Workspaces'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listAccessibleWorkspaces(ctx, query)), {
      auth: true,
      query: listQuery(),
      response: responses({ 200: ListEnvelope(WorkspaceSchema) }, [400, 401]),
      detail: { summary: 'Workspaces you can access, with your role in each' },
    })
    .post('', async ({ ctx, body }) => created(await createWorkspace(ctx, body), 'WORKSPACE_CREATED', 'workspace created'), {
      auth: 'workspace.manage',
      body: Type.Object({ name: RequiredText(255), timezone: Type.Optional(TimeZoneString({ description: 'Default: the server’s DEFAULT_TIMEZONE' })) }),
      response: responses({ 201: Envelope(WorkspaceSchema) }, [400, 401, 403]),
      detail: { summary: 'Create a workspace (super_admin); you become its super_admin' },
    })
    .put(
      '/:id/settings',
      async ({ ctx, params, body }) => ok(await updateWorkspaceSettings(ctx, params.id, body), 'WORKSPACE_UPDATED', 'workspace settings updated'),
      {
        auth: 'workspace.manage',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(RequiredText(255)),
            location_retention_days: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 3650, description: 'Pings older than this are removed daily (default 90)' }),
            ),
            timezone: Type.Optional(TimeZoneString()),
            geofence_mode: Type.Optional(GeofenceMode),
            geofence_radius_m: Type.Optional(Type.Integer({ minimum: GEOFENCE_RADIUS_MIN, maximum: GEOFENCE_RADIUS_MAX, description: 'Default 200' })),
          },
          { minProperties: 1 },
        ),
        response: responses({ 200: Envelope(WorkspaceSchema) }, [400, 401, 403, 404]),
        detail: { summary: 'Change the settings of your current workspace (super_admin)' },
      },
    )
