import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { TeamBody, TeamQuery, TeamSchema, TeamUpdateBody } from './teams.schemas'
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from './teams.service'

export const teamRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/teams', tags: ['Teams'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listTeams(ctx, query)), {
      auth: 'team.view',
      query: TeamQuery,
      response: responses({ 200: ListEnvelope(TeamSchema) }),
      detail: { summary: 'List teams' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getTeam(ctx, params.id)), {
      auth: 'team.view',
      params: IdParams,
      response: responses({ 200: Envelope(TeamSchema) }, [...AUTHED_ERRORS, 'TEAM_NOT_FOUND']),
      detail: { summary: 'Get a team with its members' },
    })
    .post('', async ({ ctx, body }) => created(await createTeam(ctx, body), 'TEAM_CREATED', 'team created'), {
      auth: 'team.manage',
      body: TeamBody,
      response: responses({ 201: Envelope(TeamSchema) }, [...AUTHED_ERRORS, 'TEAM_ALREADY_EXISTS']),
      detail: { summary: 'Create a team' },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await updateTeam(ctx, params.id, body), 'TEAM_UPDATED', 'team updated'), {
      auth: 'team.manage',
      params: IdParams,
      body: TeamUpdateBody,
      response: responses({ 200: Envelope(TeamSchema) }, [...AUTHED_ERRORS, 'TEAM_NOT_FOUND', 'TEAM_ALREADY_EXISTS']),
      detail: { summary: 'Update a team; user_ids replaces the members' },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await deleteTeam(ctx, params.id), 'TEAM_DELETED', 'team deleted'), {
      auth: 'team.manage',
      params: IdParams,
      response: responses({ 200: Envelope(TeamSchema) }, [...AUTHED_ERRORS, 'TEAM_NOT_FOUND']),
      detail: { summary: 'Delete a team (soft)' },
    })
