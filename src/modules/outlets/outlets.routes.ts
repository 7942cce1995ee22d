import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { CreateOutletBody, OutletListQuerySchema, OutletSchema, UpdateOutletBody } from './outlets.schemas'
import { createOutlet, deleteOutlet, getOutlet, listOutlets, updateOutlet } from './outlets.service'

const readRoutes = (platform: PlatformPlugin, prefix: string, name: string) =>
  new Elysia({ prefix: `${prefix}/outlets`, tags: ['Outlets'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listOutlets(ctx, query)), {
      auth: 'outlet.view',
      query: OutletListQuerySchema,
      response: responses({ 200: ListEnvelope(OutletSchema) }),
      detail: { summary: `List outlets (${name}); keyword matches name and code` },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getOutlet(ctx, params.id)), {
      auth: 'outlet.view',
      params: IdParams,
      response: responses({ 200: Envelope(OutletSchema) }, [...AUTHED_ERRORS, 'OUTLET_NOT_FOUND']),
      detail: { summary: `Get an outlet (${name})` },
    })

export const outletRoutes = (platform: PlatformPlugin) =>
  new Elysia()
    .use(
      readRoutes(platform, '/office/v1', 'web')
        .post('', async ({ ctx, body }) => created(await createOutlet(ctx, body), 'OUTLET_CREATED', 'outlet created'), {
          auth: 'outlet.manage',
          body: CreateOutletBody,
          response: responses({ 201: Envelope(OutletSchema) }, [...AUTHED_ERRORS, 'OUTLET_ALREADY_EXISTS', 'OUTLET_HAS_ACTIVE_VISITS', 'CONFLICT']),
          detail: { summary: 'Create an outlet' },
        })
        .put('/:id', async ({ ctx, params, body }) => ok(await updateOutlet(ctx, params.id, body), 'OUTLET_UPDATED', 'outlet updated'), {
          auth: 'outlet.manage',
          params: IdParams,
          body: UpdateOutletBody,
          response: responses({ 200: Envelope(OutletSchema) }, [
            ...AUTHED_ERRORS,
            'OUTLET_NOT_FOUND',
            'OUTLET_ALREADY_EXISTS',
            'OUTLET_HAS_ACTIVE_VISITS',
            'CONFLICT',
          ]),
          detail: { summary: 'Update an outlet' },
        })
        .delete('/:id', async ({ ctx, params }) => ok(await deleteOutlet(ctx, params.id), 'OUTLET_DELETED', 'outlet deleted'), {
          auth: 'outlet.manage',
          params: IdParams,
          response: responses({ 200: Envelope(OutletSchema) }, [
            ...AUTHED_ERRORS,
            'OUTLET_NOT_FOUND',
            'OUTLET_ALREADY_EXISTS',
            'OUTLET_HAS_ACTIVE_VISITS',
            'CONFLICT',
          ]),
          detail: { summary: 'Delete an outlet without open visits (soft)' },
        }),
    )
    .use(readRoutes(platform, '/app/v1', 'mobile'))
