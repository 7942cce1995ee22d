import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { ProjectBody, ProjectQuery, ProjectSchema, ProjectUpdateBody } from './projects.schemas'
import { createProject, deleteProject, getProject, listProjects, updateProject } from './projects.service'

const readRoutes = (platform: PlatformPlugin, prefix: string, name: string) =>
  new Elysia({ prefix: `${prefix}/projects`, tags: ['Projects'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listProjects(ctx, query)), {
      auth: 'project.view',
      query: ProjectQuery,
      response: responses({ 200: ListEnvelope(ProjectSchema) }),
      detail: { summary: `List projects (${name})` },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getProject(ctx, params.id)), {
      auth: 'project.view',
      params: IdParams,
      response: responses({ 200: Envelope(ProjectSchema) }, [...AUTHED_ERRORS, 'PROJECT_NOT_FOUND']),
      detail: { summary: `Get a project with its forms (${name})` },
    })

export const projectRoutes = (platform: PlatformPlugin) =>
  new Elysia()
    .use(
      readRoutes(platform, '/office/v1', 'web')
        .post('', async ({ ctx, body }) => created(await createProject(ctx, body), 'PROJECT_CREATED', 'project created'), {
          auth: 'project.manage',
          body: ProjectBody,
          response: responses({ 201: Envelope(ProjectSchema) }, [...AUTHED_ERRORS, 'PROJECT_ALREADY_EXISTS', 'PROJECT_HAS_ACTIVE_VISITS']),
          detail: { summary: 'Create a project' },
        })
        .put('/:id', async ({ ctx, params, body }) => ok(await updateProject(ctx, params.id, body), 'PROJECT_UPDATED', 'project updated'), {
          auth: 'project.manage',
          params: IdParams,
          body: ProjectUpdateBody,
          response: responses({ 200: Envelope(ProjectSchema) }, [...AUTHED_ERRORS, 'PROJECT_NOT_FOUND', 'PROJECT_ALREADY_EXISTS', 'PROJECT_HAS_ACTIVE_VISITS']),
          detail: { summary: 'Update a project' },
        })
        .delete('/:id', async ({ ctx, params }) => ok(await deleteProject(ctx, params.id), 'PROJECT_DELETED', 'project deleted'), {
          auth: 'project.manage',
          params: IdParams,
          response: responses({ 200: Envelope(ProjectSchema) }, [...AUTHED_ERRORS, 'PROJECT_NOT_FOUND', 'PROJECT_ALREADY_EXISTS', 'PROJECT_HAS_ACTIVE_VISITS']),
          detail: { summary: 'Delete a project without open visits (soft)' },
        }),
    )
    .use(readRoutes(platform, '/app/v1', 'mobile'))
