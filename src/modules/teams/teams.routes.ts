import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, Id, IdParams, ListEnvelope, MAX_ID, NullableTimestamp, OptionalText, RequiredText, responses, Timestamp } from '../../platform/schema'
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from './teams.service'

const Person = Type.Object({ id: Type.Integer(), name: Type.String() })
export const TeamSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  leader_id: Type.Union([Type.Integer(), Type.Null()]),
  leader: Type.Union([Person, Type.Null()]),
  members: Type.Array(Type.Object({ user_id: Type.Integer(), name: Type.String() })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  deleted_at: NullableTimestamp(),
})

const fields = {
  name: RequiredText(255),
  description: OptionalText(2000),
  leader_id: Type.Optional(Type.Union([Id(), Type.Null()])),
  user_ids: Type.Optional(Type.Array(Id(), { maxItems: 1000, description: 'Members (replaces the list on update)' })),
}

export const teamRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/teams', tags: ['Teams'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listTeams(ctx, query)), {
      auth: 'team.view',
      query: listQuery({
        leader_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
        user_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID, description: 'Teams this user belongs to' })),
      }),
      response: responses({ 200: ListEnvelope(TeamSchema) }),
      detail: { summary: 'List teams' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getTeam(ctx, params.id)), {
      auth: 'team.view',
      params: IdParams,
      response: responses({ 200: Envelope(TeamSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Get a team with its members' },
    })
    .post('', async ({ ctx, body }) => created(await createTeam(ctx, body), 'TEAM_CREATED', 'team created'), {
      auth: 'team.manage',
      body: Type.Object(fields),
      response: responses({ 201: Envelope(TeamSchema) }, [400, 401, 403, 409]),
      detail: { summary: 'Create a team' },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await updateTeam(ctx, params.id, body), 'TEAM_UPDATED', 'team updated'), {
      auth: 'team.manage',
      params: IdParams,
      body: Type.Object({ ...fields, name: Type.Optional(fields.name) }, { minProperties: 1 }),
      response: responses({ 200: Envelope(TeamSchema) }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Update a team; user_ids replaces the members' },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await deleteTeam(ctx, params.id), 'TEAM_DELETED', 'team deleted'), {
      auth: 'team.manage',
      params: IdParams,
      response: responses({ 200: Envelope(TeamSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Delete a team (soft)' },
    })
