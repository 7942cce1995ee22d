import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { FORM_FIELD_TYPES } from '../../db/schema'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, IdParams, ListEnvelope, NullableTimestamp, OneOf, OptionalText, RequiredText, responses, Timestamp } from '../../platform/schema'
import { createForm, deleteForm, getForm, listForms, updateForm } from './forms.service'

const FieldSchema = Type.Object({
  key: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$', description: 'Answer key: lower snake case, unique in the form' }),
  label: RequiredText(255),
  type: OneOf(FORM_FIELD_TYPES),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(RequiredText(255), { minItems: 1, maxItems: 200, description: 'select and multiselect only' })),
  min: Type.Optional(Type.Number({ description: 'Lower bound: value, length or number of options' })),
  max: Type.Optional(Type.Number({ description: 'Upper bound: value, length or number of options' })),
})

export const FormSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  fields: Type.Array(
    Type.Object({
      key: Type.String(),
      label: Type.String(),
      type: Type.String(),
      required: Type.Boolean(),
      options: Type.Optional(Type.Array(Type.String())),
      min: Type.Optional(Type.Number()),
      max: Type.Optional(Type.Number()),
    }),
  ),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  deleted_at: NullableTimestamp(),
})

const fields = {
  title: RequiredText(255),
  description: OptionalText(2000),
  fields: Type.Array(FieldSchema, { minItems: 1, maxItems: 200 }),
}
const FormQuery = listQuery({}, ['created_at', 'updated_at', 'title', 'id'])

const readRoutes = (platform: PlatformPlugin, prefix: string, name: string) =>
  new Elysia({ prefix: `${prefix}/forms`, tags: ['Forms'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listForms(ctx, query)), {
      auth: 'form.view',
      query: FormQuery,
      response: responses({ 200: ListEnvelope(FormSchema) }),
      detail: { summary: `List forms (${name})` },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getForm(ctx, params.id)), {
      auth: 'form.view',
      params: IdParams,
      response: responses({ 200: Envelope(FormSchema) }, [400, 401, 403, 404]),
      detail: { summary: `Get a form with its fields (${name})` },
    })

export const formRoutes = (platform: PlatformPlugin) =>
  new Elysia()
    .use(
      readRoutes(platform, '/office/v1', 'web')
        .post('', async ({ ctx, body }) => created(await createForm(ctx, body), 'FORM_CREATED', 'form created'), {
          auth: 'form.manage',
          body: Type.Object(fields),
          response: responses({ 201: Envelope(FormSchema) }, [400, 401, 403]),
          detail: { summary: 'Create a form' },
        })
        .put('/:id', async ({ ctx, params, body }) => ok(await updateForm(ctx, params.id, body), 'FORM_UPDATED', 'form updated'), {
          auth: 'form.manage',
          params: IdParams,
          body: Type.Object(
            { title: Type.Optional(fields.title), description: fields.description, fields: Type.Optional(fields.fields) },
            { minProperties: 1 },
          ),
          response: responses({ 200: Envelope(FormSchema) }, [400, 401, 403, 404]),
          detail: { summary: 'Update a form; new answers are checked against the new fields' },
        })
        .delete('/:id', async ({ ctx, params }) => ok(await deleteForm(ctx, params.id), 'FORM_DELETED', 'form deleted'), {
          auth: 'form.manage',
          params: IdParams,
          response: responses({ 200: Envelope(FormSchema) }, [400, 401, 403, 404, 409]),
          detail: { summary: 'Delete a form no live project uses (soft)' },
        }),
    )
    .use(readRoutes(platform, '/app/v1', 'mobile'))
