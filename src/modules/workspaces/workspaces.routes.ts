import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import { WorkspaceBody, WorkspaceQuery, WorkspaceSchema, WorkspaceSettingsBody } from './workspaces.schemas'
import { createWorkspace, listAccessibleWorkspaces, updateWorkspaceSettings } from './workspaces.service'

export const workspaceRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/workspaces', tags: ['Workspaces'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listAccessibleWorkspaces(ctx, query)), {
      auth: true,
      query: WorkspaceQuery,
      response: responses({ 200: ListEnvelope(WorkspaceSchema) }, [400, 401]),
      detail: { summary: 'Workspaces you can access, with your role in each' },
    })
    .post('', async ({ ctx, body }) => created(await createWorkspace(ctx, body), 'WORKSPACE_CREATED', 'workspace created'), {
      auth: 'workspace.manage',
      body: WorkspaceBody,
      response: responses({ 201: Envelope(WorkspaceSchema) }, [400, 401, 403]),
      detail: { summary: 'Create a workspace (super_admin); you become its super_admin' },
    })
    .put(
      '/:id/settings',
      async ({ ctx, params, body }) => ok(await updateWorkspaceSettings(ctx, params.id, body), 'WORKSPACE_UPDATED', 'workspace settings updated'),
      {
        auth: 'workspace.manage',
        params: IdParams,
        body: WorkspaceSettingsBody,
        response: responses({ 200: Envelope(WorkspaceSchema) }, [400, 401, 403, 404]),
        detail: { summary: 'Change the settings of your current workspace (super_admin)' },
      },
    )
