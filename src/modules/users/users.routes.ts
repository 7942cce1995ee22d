import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, Id, IdParams, ListEnvelope, MAX_ID, NullableTimestamp, OptionalText, RequiredText, responses, Timestamp } from '../../platform/schema'
import { Email, Password } from '../auth/auth.schemas'
import { createUser, deleteUser, getUser, listUsers, updateUser } from './users.service'

export const UserSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  phone: Type.Union([Type.String(), Type.Null()]),
  role_id: Type.Integer(),
  role: Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String() }),
  is_active: Type.Boolean(),
  team_ids: Type.Array(Type.Integer()),
  last_login_at: NullableTimestamp(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})
const DeletedUserSchema = Type.Object({ ...UserSchema.properties, deleted_at: NullableTimestamp() })

const Phone = OptionalText(32, { description: 'Phone number' })
const TeamIds = Type.Array(Id(), { maxItems: 100, description: 'Teams of the user (replaces the list on update)' })

export const userRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/users', tags: ['Users'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listUsers(ctx, query)), {
      auth: 'user.view',
      query: listQuery(
        {
          role_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
          is_active: t.Optional(t.Boolean()),
          team_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
        },
        ['created_at', 'updated_at', 'name', 'id', 'email'],
      ),
      response: responses({ 200: ListEnvelope(UserSchema) }),
      detail: { summary: 'List users of the workspace' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getUser(ctx, params.id)), {
      auth: 'user.view',
      params: IdParams,
      response: responses({ 200: Envelope(UserSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Get a user' },
    })
    .post('', async ({ ctx, body }) => created(await createUser(ctx, body), 'USER_CREATED', 'user created'), {
      auth: 'user.manage',
      body: Type.Object({
        name: RequiredText(255),
        email: Email,
        password: Password,
        role_id: Id(),
        phone: Phone,
        team_ids: Type.Optional(TeamIds),
      }),
      response: responses({ 201: Envelope(UserSchema) }, [400, 401, 403, 409]),
      detail: { summary: 'Create a user in the workspace' },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await updateUser(ctx, params.id, body), 'USER_UPDATED', 'user updated'), {
      auth: 'user.manage',
      params: IdParams,
      body: Type.Object(
        {
          name: Type.Optional(RequiredText(255)),
          email: Type.Optional(Email),
          password: Type.Optional(Password),
          role_id: Type.Optional(Id()),
          phone: Phone,
          is_active: Type.Optional(Type.Boolean()),
          team_ids: Type.Optional(TeamIds),
        },
        { minProperties: 1 },
      ),
      response: responses({ 200: Envelope(UserSchema) }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Update a user; is_active:false ends their access at once' },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await deleteUser(ctx, params.id), 'USER_DELETED', 'user deleted'), {
      auth: 'user.manage',
      params: IdParams,
      response: responses({ 200: Envelope(DeletedUserSchema) }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Remove a user from the workspace' },
    })
