import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { DeletedRoleSchema, PermissionQuery, PermissionSchema, RoleBody, RoleQuery, RoleSchema, RoleUpdateBody } from './roles.schemas'
import { createRole, deleteRole, getRole, listPermissions, listRoles, updateRole } from './roles.service'

export const roleRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1', tags: ['Roles'] })
    .use(platform)
    .get('/roles', async ({ ctx, query }) => listed(await listRoles(ctx, query)), {
      auth: 'role.view',
      query: RoleQuery,
      response: responses({ 200: ListEnvelope(RoleSchema) }),
      detail: { summary: 'List roles (built-in and custom)' },
    })
    .get('/roles/:id', async ({ ctx, params }) => ok(await getRole(ctx, params.id)), {
      auth: 'role.view',
      params: IdParams,
      response: responses({ 200: Envelope(RoleSchema) }, [...AUTHED_ERRORS, 'ROLE_LOCKED', 'ROLE_NOT_FOUND']),
      detail: { summary: 'Get a role' },
    })
    .post('/roles', async ({ ctx, body }) => created(await createRole(ctx, body), 'ROLE_CREATED', 'role created'), {
      auth: 'role.manage',
      body: RoleBody,
      response: responses({ 201: Envelope(RoleSchema) }, [...AUTHED_ERRORS, 'ROLE_LOCKED', 'ROLE_ALREADY_EXISTS', 'ROLE_IN_USE']),
      detail: { summary: 'Create a custom role; its slug is its name in lower snake case' },
    })
    .put('/roles/:id', async ({ ctx, params, body }) => ok(await updateRole(ctx, params.id, body), 'ROLE_UPDATED', 'role updated'), {
      auth: 'role.manage',
      params: IdParams,
      body: RoleUpdateBody,
      response: responses({ 200: Envelope(RoleSchema) }, [...AUTHED_ERRORS, 'ROLE_LOCKED', 'ROLE_NOT_FOUND', 'ROLE_ALREADY_EXISTS', 'ROLE_IN_USE']),
      detail: { summary: 'Update a custom role (built-in roles are locked)' },
    })
    .delete('/roles/:id', async ({ ctx, params }) => ok(await deleteRole(ctx, params.id), 'ROLE_DELETED', 'role deleted'), {
      auth: 'role.manage',
      params: IdParams,
      response: responses({ 200: Envelope(DeletedRoleSchema) }, [...AUTHED_ERRORS, 'ROLE_LOCKED', 'ROLE_NOT_FOUND', 'ROLE_ALREADY_EXISTS', 'ROLE_IN_USE']),
      detail: { summary: 'Delete a custom role no user holds' },
    })
    .get('/permissions', ({ query }) => listed(listPermissions(query)), {
      auth: 'role.view',
      query: PermissionQuery,
      response: responses({ 200: ListEnvelope(PermissionSchema) }),
      detail: { summary: 'Every permission key a role can hold' },
    })
