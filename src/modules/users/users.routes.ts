import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { CreateUserBody, DeletedUserSchema, UpdateUserBody, UserQuery, UserSchema } from './users.schemas'
import { createUser, deleteUser, getUser, listUsers, updateUser } from './users.service'

export const userRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/users', tags: ['Users'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listUsers(ctx, query)), {
      auth: 'user.view',
      query: UserQuery,
      response: responses({ 200: ListEnvelope(UserSchema) }),
      detail: { summary: 'List users of the workspace' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getUser(ctx, params.id)), {
      auth: 'user.view',
      params: IdParams,
      response: responses({ 200: Envelope(UserSchema) }, [...AUTHED_ERRORS, 'USER_NOT_FOUND']),
      detail: { summary: 'Get a user' },
    })
    .post('', async ({ ctx, body }) => created(await createUser(ctx, body), 'USER_CREATED', 'user created'), {
      auth: 'user.manage',
      body: CreateUserBody,
      response: responses({ 201: Envelope(UserSchema) }, [...AUTHED_ERRORS, 'USER_ALREADY_EXISTS', 'CANNOT_MODIFY_SELF', 'RATE_LIMITED']),
      detail: { summary: 'Create a user in the workspace' },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await updateUser(ctx, params.id, body), 'USER_UPDATED', 'user updated'), {
      auth: 'user.manage',
      params: IdParams,
      body: UpdateUserBody,
      response: responses({ 200: Envelope(UserSchema) }, [...AUTHED_ERRORS, 'USER_NOT_FOUND', 'USER_ALREADY_EXISTS', 'CANNOT_MODIFY_SELF', 'RATE_LIMITED']),
      detail: { summary: 'Update a user; is_active:false ends their access at once' },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await deleteUser(ctx, params.id), 'USER_DELETED', 'user deleted'), {
      auth: 'user.manage',
      params: IdParams,
      response: responses({ 200: Envelope(DeletedUserSchema) }, [...AUTHED_ERRORS, 'USER_NOT_FOUND', 'USER_ALREADY_EXISTS', 'CANNOT_MODIFY_SELF']),
      detail: { summary: 'Remove a user from the workspace' },
    })
