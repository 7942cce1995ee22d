import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { FormInput, FormQuery, FormSchema, FormUpdate } from './forms.schemas'
import { createForm, deleteForm, getForm, listForms, updateForm } from './forms.service'

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
      response: responses({ 200: Envelope(FormSchema) }, [...AUTHED_ERRORS, 'FORM_NOT_FOUND']),
      detail: { summary: `Get a form with its fields (${name})` },
    })

export const formRoutes = (platform: PlatformPlugin) =>
  new Elysia()
    .use(
      readRoutes(platform, '/office/v1', 'web')
        .post('', async ({ ctx, body }) => created(await createForm(ctx, body), 'FORM_CREATED', 'form created'), {
          auth: 'form.manage',
          body: FormInput,
          response: responses({ 201: Envelope(FormSchema) }, [...AUTHED_ERRORS]),
          detail: { summary: 'Create a form' },
        })
        .put('/:id', async ({ ctx, params, body }) => ok(await updateForm(ctx, params.id, body), 'FORM_UPDATED', 'form updated'), {
          auth: 'form.manage',
          params: IdParams,
          body: FormUpdate,
          response: responses({ 200: Envelope(FormSchema) }, [...AUTHED_ERRORS, 'FORM_NOT_FOUND']),
          detail: { summary: 'Update a form; new answers are checked against the new fields' },
        })
        .delete('/:id', async ({ ctx, params }) => ok(await deleteForm(ctx, params.id), 'FORM_DELETED', 'form deleted'), {
          auth: 'form.manage',
          params: IdParams,
          response: responses({ 200: Envelope(FormSchema) }, [...AUTHED_ERRORS, 'FORM_NOT_FOUND', 'FORM_IN_USE']),
          detail: { summary: 'Delete a form no live project uses (soft)' },
        }),
    )
    .use(readRoutes(platform, '/app/v1', 'mobile'))
