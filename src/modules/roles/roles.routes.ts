import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, IdParams, ListEnvelope, NullableTimestamp, RequiredText, responses, Timestamp } from '../../platform/schema'
import { createRole, deleteRole, getRole, listPermissions, listRoles, updateRole } from './roles.service'

const GrantSchema = Type.Object({
  key: Type.String({ maxLength: 100, examples: ['channel_group.manage'] }),
  platform: Type.Union([Type.Literal('web'), Type.Literal('mobile')]),
  access: Type.Union([Type.Literal('full'), Type.Literal('view')]),
})

const RoleSchema = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  is_builtin: Type.Boolean(),
  permissions: Type.Array(GrantSchema),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

const DeletedRoleSchema = Type.Object({ ...RoleSchema.properties, deleted_at: NullableTimestamp() })

const PermissionSchema = Type.Object({ key: Type.String(), group: Type.String(), description: Type.String() })

const Grants = Type.Array(GrantSchema, { maxItems: 200 })

export const roleRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1', tags: ['Roles'] })
    .use(platform)
    .get('/roles', async ({ ctx, query }) => listed(await listRoles(ctx, query)), {
      auth: 'role.view',
      query: listQuery(),
      response: responses({ 200: ListEnvelope(RoleSchema) }),
      detail: { summary: 'List roles (built-in and custom)' },
    })
    .get('/roles/:id', async ({ ctx, params }) => ok(await getRole(ctx, params.id)), {
      auth: 'role.view',
      params: IdParams,
      response: responses({ 200: Envelope(RoleSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Get a role' },
    })
    .post('/roles', async ({ ctx, body }) => created(await createRole(ctx, body), 'ROLE_CREATED', 'role created'), {
      auth: 'role.manage',
      body: Type.Object({ name: RequiredText(100), permissions: Grants }),
      response: responses({ 201: Envelope(RoleSchema) }, [400, 401, 403, 409]),
      detail: { summary: 'Create a custom role; its slug is its name in lower snake case' },
    })
    .put('/roles/:id', async ({ ctx, params, body }) => ok(await updateRole(ctx, params.id, body), 'ROLE_UPDATED', 'role updated'), {
      auth: 'role.manage',
      params: IdParams,
      body: Type.Object({ name: Type.Optional(RequiredText(100)), permissions: Type.Optional(Grants) }, { minProperties: 1 }),
      response: responses({ 200: Envelope(RoleSchema) }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Update a custom role (built-in roles are locked)' },
    })
    .delete('/roles/:id', async ({ ctx, params }) => ok(await deleteRole(ctx, params.id), 'ROLE_DELETED', 'role deleted'), {
      auth: 'role.manage',
      params: IdParams,
      response: responses({ 200: Envelope(DeletedRoleSchema) }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Delete a custom role no user holds' },
    })
    .get('/permissions', ({ query }) => listed(listPermissions(query)), {
      auth: 'role.view',
      query: listQuery({}, ['key', 'group']),
      response: responses({ 200: ListEnvelope(PermissionSchema) }),
      detail: { summary: 'Every permission key a role can hold' },
    })
