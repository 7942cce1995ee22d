import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import { Type } from '@sinclair/typebox'
import {
  PriceListInput,
  PriceListQuery,
  PriceListSchema,
  PriceListSummarySchema,
  PriceListUpdate,
  PriceSheetQuery,
  PriceSheetSchema,
} from './price-lists.schemas'
import { createPriceList, deletePriceList, getPriceList, listPriceLists, priceSheet, updatePriceList } from './price-lists.service'

/** Price lists: office CRUD (`price_list` view/manage); the phone reads its outlet's price sheet (and gets the lists by sync). */
export const priceListRoutes = (platform: PlatformPlugin) =>
  new Elysia({ tags: ['Price lists'] })
    .use(platform)
    .get('/office/v1/price-lists', async ({ ctx, query }) => listed(await listPriceLists(ctx, query)), {
      auth: 'price_list.view',
      query: PriceListQuery,
      response: responses({ 200: ListEnvelope(PriceListSummarySchema) }),
      detail: { summary: 'List price lists (web); keyword matches the name; items are counted, the detail lists them' },
    })
    .get('/office/v1/price-lists/:id', async ({ ctx, params }) => ok(await getPriceList(ctx, params.id)), {
      auth: 'price_list.view',
      params: IdParams,
      response: responses({ 200: Envelope(PriceListSchema) }, [...AUTHED_ERRORS, 'PRICE_LIST_NOT_FOUND']),
      detail: { summary: 'Get a price list with its items' },
    })
    .post('/office/v1/price-lists', async ({ ctx, body }) => created(await createPriceList(ctx, body), 'PRICE_LIST_CREATED', 'price list created'), {
      auth: 'price_list.manage',
      body: PriceListInput,
      response: responses({ 201: Envelope(PriceListSchema) }),
      detail: { summary: 'Create a price list: the workspace default, a channel’s or an account’s, with its tiers' },
    })
    .put(
      '/office/v1/price-lists/:id',
      async ({ ctx, params, body }) => ok(await updatePriceList(ctx, params.id, body), 'PRICE_LIST_UPDATED', 'price list updated'),
      {
        auth: 'price_list.manage',
        params: IdParams,
        body: PriceListUpdate,
        response: responses({ 200: Envelope(PriceListSchema) }, [...AUTHED_ERRORS, 'PRICE_LIST_NOT_FOUND']),
        detail: { summary: 'Update a price list; items, when given, replace its items' },
      },
    )
    .delete('/office/v1/price-lists/:id', async ({ ctx, params }) => ok(await deletePriceList(ctx, params.id), 'PRICE_LIST_DELETED', 'price list deleted'), {
      auth: 'price_list.manage',
      params: IdParams,
      response: responses({ 200: Envelope(PriceListSchema) }, [...AUTHED_ERRORS, 'PRICE_LIST_NOT_FOUND']),
      detail: { summary: 'Delete a price list (soft): it stops applying at once' },
    })
    .get('/app/v1/outlets/:id/prices', async ({ ctx, params, query }) => ok(await priceSheet(ctx, params.id, query)), {
      auth: 'outlet.view',
      params: IdParams,
      query: PriceSheetQuery,
      response: responses({ 200: Envelope(Type.Array(PriceSheetSchema)) }, [...AUTHED_ERRORS, 'OUTLET_NOT_FOUND']),
      detail: { summary: "The outlet's price sheet for a local day (mobile): per product with a price, the tiers an order will charge" },
    })
