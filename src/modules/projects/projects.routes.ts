import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { PROJECT_STATUSES } from '../../db/schema'
import { DateString } from '../../platform/dates'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import {
  Envelope,
  Id,
  IdParams,
  ListEnvelope,
  MAX_ID,
  Nullable,
  NullableTimestamp,
  OneOf,
  OptionalText,
  RequiredText,
  responses,
  Timestamp,
} from '../../platform/schema'
import { createProject, deleteProject, getProject, listProjects, updateProject } from './projects.service'

export const ProjectSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  name: Type.String(),
  code: Nullable(Type.String()),
  principal_id: Nullable(Type.Integer()),
  start_date: Nullable(Type.String()),
  end_date: Nullable(Type.String()),
  status: Type.String(),
  forms: Type.Array(Type.Object({ form_id: Type.Integer(), title: Type.String(), is_required: Type.Boolean(), order: Type.Integer() })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  deleted_at: NullableTimestamp(),
})

const fields = {
  name: RequiredText(255),
  code: OptionalText(64, { description: 'Unique per workspace (case-insensitive)' }),
  principal_id: Type.Optional(Nullable(Id())),
  start_date: Type.Optional(Nullable(DateString())),
  end_date: Type.Optional(Nullable(DateString({ description: 'Not before start_date' }))),
  status: Type.Optional(OneOf(PROJECT_STATUSES, { description: 'Default active' })),
  forms: Type.Optional(
    Type.Array(Type.Object({ form_id: Id(), is_required: Type.Boolean(), order: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })) }), {
      maxItems: 100,
      description: 'Forms filled on this project’s visits (replaces the list on update)',
    }),
  ),
}

const ProjectQuery = listQuery(
  {
    status: t.Optional(OneOf(PROJECT_STATUSES)),
    principal_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
  },
  ['created_at', 'updated_at', 'name', 'id', 'start_date'],
)

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
      response: responses({ 200: Envelope(ProjectSchema) }, [400, 401, 403, 404]),
      detail: { summary: `Get a project with its forms (${name})` },
    })

export const projectRoutes = (platform: PlatformPlugin) =>
  new Elysia()
    .use(
      readRoutes(platform, '/office/v1', 'web')
        .post('', async ({ ctx, body }) => created(await createProject(ctx, body), 'PROJECT_CREATED', 'project created'), {
          auth: 'project.manage',
          body: Type.Object(fields),
          response: responses({ 201: Envelope(ProjectSchema) }, [400, 401, 403, 409]),
          detail: { summary: 'Create a project' },
        })
        .put('/:id', async ({ ctx, params, body }) => ok(await updateProject(ctx, params.id, body), 'PROJECT_UPDATED', 'project updated'), {
          auth: 'project.manage',
          params: IdParams,
          body: Type.Object({ ...fields, name: Type.Optional(fields.name) }, { minProperties: 1 }),
          response: responses({ 200: Envelope(ProjectSchema) }, [400, 401, 403, 404, 409]),
          detail: { summary: 'Update a project' },
        })
        .delete('/:id', async ({ ctx, params }) => ok(await deleteProject(ctx, params.id), 'PROJECT_DELETED', 'project deleted'), {
          auth: 'project.manage',
          params: IdParams,
          response: responses({ 200: Envelope(ProjectSchema) }, [400, 401, 403, 404, 409]),
          detail: { summary: 'Delete a project without open visits (soft)' },
        }),
    )
    .use(readRoutes(platform, '/app/v1', 'mobile'))
