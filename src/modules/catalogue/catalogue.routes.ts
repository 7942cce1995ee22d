import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { PrincipalInput, PrincipalQuery, PrincipalSchema, PrincipalUpdate, ProductInput, ProductQuery, ProductSchema, ProductUpdate } from './catalogue.schemas'
import {
  createPrincipal,
  createProduct,
  deletePrincipal,
  deleteProduct,
  getPrincipal,
  getProduct,
  listPrincipals,
  listProducts,
  updatePrincipal,
  updateProduct,
} from './catalogue.service'

/** Principals and products: office CRUD, mobile read-only (field users look products up). */
export function catalogueRoutes(platform: PlatformPlugin) {
  const app = new Elysia({ tags: ['Catalogue'] }).use(platform)
  for (const [prefix, name] of [
    ['/office/v1', 'web'],
    ['/app/v1', 'mobile'],
  ] as const) {
    app
      .get(`${prefix}/principals`, async ({ ctx, query }) => listed(await listPrincipals(ctx, query)), {
        auth: 'principal.view',
        query: PrincipalQuery,
        response: responses({ 200: ListEnvelope(PrincipalSchema) }),
        detail: { summary: `List principals (${name})` },
      })
      .get(`${prefix}/principals/:id`, async ({ ctx, params }) => ok(await getPrincipal(ctx, params.id)), {
        auth: 'principal.view',
        params: IdParams,
        response: responses({ 200: Envelope(PrincipalSchema) }, [...AUTHED_ERRORS, 'PRINCIPAL_NOT_FOUND']),
        detail: { summary: `Get a principal (${name})` },
      })
      .get(`${prefix}/products`, async ({ ctx, query }) => listed(await listProducts(ctx, query)), {
        auth: 'product.view',
        query: ProductQuery,
        response: responses({ 200: ListEnvelope(ProductSchema) }),
        detail: { summary: `List products (${name}); keyword matches name, SKU and barcode` },
      })
      .get(`${prefix}/products/:id`, async ({ ctx, params }) => ok(await getProduct(ctx, params.id)), {
        auth: 'product.view',
        params: IdParams,
        response: responses({ 200: Envelope(ProductSchema) }, [...AUTHED_ERRORS, 'PRODUCT_NOT_FOUND']),
        detail: { summary: `Get a product (${name})` },
      })
  }
  return app
    .post('/office/v1/principals', async ({ ctx, body }) => created(await createPrincipal(ctx, body), 'PRINCIPAL_CREATED', 'principal created'), {
      auth: 'principal.manage',
      body: PrincipalInput,
      response: responses({ 201: Envelope(PrincipalSchema) }, [...AUTHED_ERRORS, 'PRINCIPAL_ALREADY_EXISTS']),
      detail: { summary: 'Create a principal' },
    })
    .put(
      '/office/v1/principals/:id',
      async ({ ctx, params, body }) => ok(await updatePrincipal(ctx, params.id, body), 'PRINCIPAL_UPDATED', 'principal updated'),
      {
        auth: 'principal.manage',
        params: IdParams,
        body: PrincipalUpdate,
        response: responses({ 200: Envelope(PrincipalSchema) }, [...AUTHED_ERRORS, 'PRINCIPAL_NOT_FOUND', 'PRINCIPAL_ALREADY_EXISTS']),
        detail: { summary: 'Update a principal' },
      },
    )
    .delete('/office/v1/principals/:id', async ({ ctx, params }) => ok(await deletePrincipal(ctx, params.id), 'PRINCIPAL_DELETED', 'principal deleted'), {
      auth: 'principal.manage',
      params: IdParams,
      response: responses({ 200: Envelope(PrincipalSchema) }, [...AUTHED_ERRORS, 'PRINCIPAL_NOT_FOUND', 'PRINCIPAL_IN_USE']),
      detail: { summary: 'Delete a principal without products or projects (soft)' },
    })
    .post('/office/v1/products', async ({ ctx, body }) => created(await createProduct(ctx, body), 'PRODUCT_CREATED', 'product created'), {
      auth: 'product.manage',
      body: ProductInput,
      response: responses({ 201: Envelope(ProductSchema) }, [...AUTHED_ERRORS, 'PRODUCT_ALREADY_EXISTS']),
      detail: { summary: 'Create a product' },
    })
    .put('/office/v1/products/:id', async ({ ctx, params, body }) => ok(await updateProduct(ctx, params.id, body), 'PRODUCT_UPDATED', 'product updated'), {
      auth: 'product.manage',
      params: IdParams,
      body: ProductUpdate,
      response: responses({ 200: Envelope(ProductSchema) }, [...AUTHED_ERRORS, 'PRODUCT_NOT_FOUND', 'PRODUCT_ALREADY_EXISTS']),
      detail: { summary: 'Update a product' },
    })
    .delete('/office/v1/products/:id', async ({ ctx, params }) => ok(await deleteProduct(ctx, params.id), 'PRODUCT_DELETED', 'product deleted'), {
      auth: 'product.manage',
      params: IdParams,
      response: responses({ 200: Envelope(ProductSchema) }, [...AUTHED_ERRORS, 'PRODUCT_NOT_FOUND']),
      detail: { summary: 'Delete a product (soft)' },
    })
}
