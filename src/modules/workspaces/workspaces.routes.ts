import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { WorkspaceBody, WorkspaceQuery, WorkspaceSchema, WorkspaceSettingsBody } from './workspaces.schemas'
import { createWorkspace, listAccessibleWorkspaces, updateWorkspaceSettings } from './workspaces.service'

export const workspaceRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/workspaces', tags: ['Workspaces'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listAccessibleWorkspaces(ctx, query)), {
      auth: true,
      query: WorkspaceQuery,
      response: responses({ 200: ListEnvelope(WorkspaceSchema) }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED']),
      detail: { summary: 'Workspaces you can access, with your role in each' },
    })
    .post('', async ({ ctx, body }) => created(await createWorkspace(ctx, body), 'WORKSPACE_CREATED', 'workspace created'), {
      auth: 'workspace.manage',
      body: WorkspaceBody,
      response: responses({ 201: Envelope(WorkspaceSchema) }, [...AUTHED_ERRORS]),
      detail: { summary: 'Create a workspace (super_admin); you become its super_admin' },
    })
    .put(
      '/:id/settings',
      async ({ ctx, params, body }) => ok(await updateWorkspaceSettings(ctx, params.id, body), 'WORKSPACE_UPDATED', 'workspace settings updated'),
      {
        auth: 'workspace.manage',
        params: IdParams,
        body: WorkspaceSettingsBody,
        response: responses({ 200: Envelope(WorkspaceSchema) }, [...AUTHED_ERRORS, 'WORKSPACE_NOT_FOUND']),
        detail: { summary: 'Change the settings of your current workspace (super_admin)' },
      },
    )
