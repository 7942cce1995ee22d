import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, IdParams, ListEnvelope, RequiredText, responses, Timestamp } from '../../platform/schema'
import { createWorkspace, listAccessibleWorkspaces, updateWorkspaceSettings } from './workspaces.service'

export const WorkspaceSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  location_retention_days: Type.Integer(),
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
      body: Type.Object({ name: RequiredText(255) }),
      response: responses({ 201: Envelope(WorkspaceSchema) }, [400, 401, 403]),
      detail: { summary: 'Create a workspace (super_admin); you become its super_admin' },
    })
    .put('/:id/settings', async ({ ctx, params, body }) => ok(await updateWorkspaceSettings(ctx, params.id, body), 'WORKSPACE_UPDATED', 'workspace settings updated'), {
      auth: 'workspace.manage',
      params: IdParams,
      body: Type.Object(
        {
          name: Type.Optional(RequiredText(255)),
          location_retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Pings older than this are removed daily (default 90)' })),
        },
        { minProperties: 1 },
      ),
      response: responses({ 200: Envelope(WorkspaceSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Change the settings of your current workspace (super_admin)' },
    })
