/**
 * Hostile input for Catalogue: principals and products (src/modules/catalogue): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  deleted,
  failsWith,
  type FieldSpec,
  foreign,
  mailbox,
  MB,
  missing,
  mutation,
  type Mutation,
  nullable,
  okData,
  optionalText,
  parentId,
  post201,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  SQLISH,
  t,
  trimmed,
  uniqueCode,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Catalogue: principals and products (docs/API.md §Other areas) ------------------------------------------------

/** An optional contact email: null clears it; only well-formed addresses of at most 254 characters. */
function optionalEmail(): Mutation[] {
  return [
    missing,
    mutation('null', 'valid', null),
    ...wrongTypes('string').filter((m) => m.label !== 'null'),
    mutation('not an email address', 'invalid', 'not-an-email'),
    mutation('two @ signs', 'invalid', 'a@b@example.com'),
    mutation('255 characters (limit 254)', 'invalid', mailbox('a'.repeat(243))),
    mutation('exactly 254 characters', 'valid', () => mailbox(unique('max').padEnd(242, 'a'))),
    mutation('1 MB string', 'invalid', mailbox(MB)),
    // Blank means "none" (stored as null) or is refused; either way nothing malformed is stored.
    mutation('empty string', 'maybe', '', { stored: () => null }),
    mutation('whitespace only', 'maybe', '   ', { stored: () => null }),
    mutation('surrounded by spaces', 'maybe', '  sales@example.com  ', { stored: trimmed }),
    ...SQLISH.map((s) => mutation(`SQL-ish ${JSON.stringify(s)}`, 'invalid', s)),
    mutation(`SQL-ish but well-formed "o'brien'--@example.com"`, 'valid', `o'brien'--@example.com`),
    mutation('unicode: a lone surrogate', 'safe', 'half\ud800@example.com'),
  ]
}

/** A price: a JSON integer from 0 to 2^53 − 1 (the smallest currency unit), or null. */
function price(): Mutation[] {
  return [
    missing,
    mutation('null', 'valid', null),
    mutation('string "12500"', 'invalid', '12500'),
    mutation('boolean true', 'invalid', true),
    mutation('array', 'invalid', [12_500]),
    mutation('object', 'invalid', { amount: 12_500 }),
    mutation('negative -1', 'invalid', -1),
    mutation('a fraction 1.5', 'invalid', 1.5),
    mutation('two decimals 12345.67', 'invalid', 12_345.67),
    mutation('2^53 (beyond the safe integers)', 'invalid', 2 ** 53),
    mutation('huge 1e308', 'invalid', 1e308),
    mutation('zero', 'valid', 0),
    mutation('exactly 2^53 − 1', 'valid', Number.MAX_SAFE_INTEGER),
    mutation('an integer', 'valid', 15_000),
  ]
}

async function newPrincipal(token: string, extra: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
  return post201('/office/v1/principals', { name: unique('Principal'), code: unique('PRN'), ...extra }, token, 'a principal')
}

const principalFields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  code: {
    mutations: uniqueCode(
      'PRINCIPAL_ALREADY_EXISTS',
      (rc) => rc.takenCode,
      () => foreign.principal_code,
    ),
    required: false,
  },
  contact_name: { mutations: optionalText(255), required: false },
  contact_phone: { mutations: optionalText(32), required: false },
  contact_email: { mutations: optionalEmail(), required: false },
})
const principalSetup = async (rc: RouteCtx) => {
  rc.takenCode = (await newPrincipal(rc.token, { code: unique('TAKEN').toUpperCase() })).code
}
const principalBody = () => ({
  name: unique('Principal'),
  code: unique('PRN'),
  contact_name: 'Siti',
  contact_phone: '+62 812 0000 0000',
  contact_email: 'sales@example.com',
})
const principalReadBack = async (rc: RouteCtx, id: number) =>
  okData(await t.app.get(`/office/v1/principals/${id}`, { token: rc.token }), 'reading the principal')

SPECS['POST /api/office/v1/principals'] = {
  family: 'catalogue',
  setup: principalSetup,
  baseline: async (rc) => ({ path: '/office/v1/principals', body: principalBody(), token: rc.token }),
  fields: principalFields(true),
  readBack: (rc, reply) => principalReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/principals/:id'] = {
  family: 'catalogue',
  setup: async (rc) => {
    await principalSetup(rc)
    rc.target = (await newPrincipal(rc.token)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/principals/${rc.target}`, body: principalBody(), token: rc.token }),
  fields: principalFields(false),
  readBack: (rc) => principalReadBack(rc, rc.target),
}

const productFields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  sku: {
    mutations: [
      ...requiredText(64),
      mutation('the SKU of another product, in lower case', 'invalid', (_: unknown, rc: RouteCtx) => rc.takenSku.toLowerCase(), {
        outcome: failsWith([409], ['PRODUCT_ALREADY_EXISTS'], 'sku'),
      }),
      mutation('the SKU of a product in another workspace', 'valid', () => foreign.product_sku),
    ],
    required: create,
  },
  principal_id: { mutations: nullable(parentId({ foreign: () => foreign.principal_id, deleted: (rc) => rc.deletedPrincipal })), required: false },
  price: { mutations: price(), required: false },
  unit: { mutations: optionalText(32), required: false },
  barcode: { mutations: optionalText(64), required: false },
})
const productSetup = async (rc: RouteCtx) => {
  rc.principal = (await newPrincipal(rc.token)).id
  rc.deletedPrincipal = await deleted('principals', (await newPrincipal(rc.token)).id, rc.token)
  rc.takenSku = (await post201('/office/v1/products', { name: unique('Taken'), sku: unique('TAKEN').toUpperCase() }, rc.token, 'a product')).sku
}
const productBody = (rc: RouteCtx) => ({
  name: unique('Product'),
  sku: unique('SKU'),
  principal_id: rc.principal,
  price: 12_500,
  unit: 'pcs',
  barcode: '8991234567890',
})
const productReadBack = async (rc: RouteCtx, id: number) => okData(await t.app.get(`/office/v1/products/${id}`, { token: rc.token }), 'reading the product')

SPECS['POST /api/office/v1/products'] = {
  family: 'catalogue',
  setup: productSetup,
  baseline: async (rc) => ({ path: '/office/v1/products', body: productBody(rc), token: rc.token }),
  fields: productFields(true),
  readBack: (rc, reply) => productReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/products/:id'] = {
  family: 'catalogue',
  setup: async (rc) => {
    await productSetup(rc)
    rc.target = (await post201('/office/v1/products', { name: unique('Target'), sku: unique('SKU') }, rc.token, 'a product')).id
  },
  baseline: async (rc) => ({ path: `/office/v1/products/${rc.target}`, body: productBody(rc), token: rc.token }),
  fields: productFields(false),
  readBack: (rc) => productReadBack(rc, rc.target),
}

badInputTests('catalogue', { specs: SPECS })
