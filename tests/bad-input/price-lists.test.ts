/**
 * Hostile input for price lists (src/modules/orders, price-lists.*): the baseline bodies of the POST and PUT routes
 * of /office/v1/price-lists. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  calendarDate,
  deleted,
  type FieldSpec,
  foreign,
  invalid,
  missing,
  mutation,
  type Mutation,
  nullable,
  okData,
  parentId,
  post201,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  t,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

type Item = { product_id: number; price: number; min_qty?: number; [key: string]: unknown }
/** Items as the list answers them: `min_qty` 1 when not given, by product then min_qty, nothing else. */
const storedItems = (sent: Item[]) =>
  sent
    .map(({ product_id, price, min_qty }) => ({ product_id, price, min_qty: min_qty ?? 1 }))
    .sort((a, b) => a.product_id - b.product_id || a.min_qty - b.min_qty)

/** `items`: tiers `{product_id, price, min_qty?}` of live products of the workspace, a product and min_qty once, at most 2000. */
function priceItems(): Mutation[] {
  const item = (rc: RouteCtx, extra: Partial<Item> = {}): Item => ({ product_id: rc.product, price: 900, ...extra })
  const at = (path: string) => ({ path })
  const unusable = (label: string, productId: (rc: RouteCtx) => number) =>
    mutation(label, 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { product_id: productId(rc) })], { outcome: invalid('items.0.product_id') })
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single item instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => item(rc)),
    mutation('empty list', 'valid', [], { stored: storedItems }),
    mutation('[null]', 'invalid', [null], at('0')),
    mutation('an item without product_id', 'invalid', [{ price: 900 }], at('0.product_id')),
    mutation('product_id as a string', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { product_id: String(rc.product) as never })], at('0.product_id')),
    mutation('product_id 0', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { product_id: 0 })], at('0.product_id')),
    unusable('a product that does not exist', () => 99_999_999),
    unusable('a product of another workspace', (rc) => rc.foreignProduct),
    unusable('a soft-deleted product', (rc) => rc.deletedProduct),
    mutation('an item without price', 'invalid', (_: unknown, rc: RouteCtx) => [{ product_id: rc.product }], at('0.price')),
    mutation('price 1.5 (not an integer amount)', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { price: 1.5 })], at('0.price')),
    mutation('price -1', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { price: -1 })], at('0.price')),
    mutation('price "900"', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { price: '900' as never })], at('0.price')),
    mutation('price 2^53', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { price: 2 ** 53 })], at('0.price')),
    mutation('min_qty 0', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { min_qty: 0 })], at('0.min_qty')),
    mutation('min_qty 2.5', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { min_qty: 2.5 })], at('0.min_qty')),
    mutation('min_qty "12"', 'invalid', (_: unknown, rc: RouteCtx) => [item(rc, { min_qty: '12' as never })], at('0.min_qty')),
    mutation(
      'a product and min_qty twice (1 given, 1 implied)',
      'invalid',
      (_: unknown, rc: RouteCtx) => [item(rc, { min_qty: 1 }), item(rc, { price: 800 })],
      {
        outcome: invalid('items.1.product_id'),
      },
    ),
    mutation('2001 items (limit 2000)', 'invalid', (_: unknown, rc: RouteCtx) => Array.from({ length: 2_001 }, (_, i) => item(rc, { min_qty: i + 1 }))),
    mutation(
      'two tiers of one product and another product',
      'valid',
      (_: unknown, rc: RouteCtx) => [item(rc, { min_qty: 12, price: 800 }), item(rc, { product_id: rc.product2, price: 1_900 }), item(rc)],
      { stored: storedItems },
    ),
    mutation(
      'price 0 and price 2^53 − 1',
      'valid',
      (_: unknown, rc: RouteCtx) => [item(rc, { price: 0 }), item(rc, { price: Number.MAX_SAFE_INTEGER, min_qty: 2 })],
      {
        stored: storedItems,
      },
    ),
    mutation('an item with an unknown extra field', 'valid', (_: unknown, rc: RouteCtx) => [item(rc, { colour: 'red' })], { stored: storedItems }),
  ]
}

const fields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  channel_id: { mutations: nullable(parentId({ foreign: () => foreign.channel_id, deleted: (rc) => rc.deletedChannel })), required: false },
  account_id: { mutations: nullable(parentId({ foreign: () => foreign.account_id, deleted: (rc) => rc.deletedAccount })), required: false },
  valid_from: { mutations: calendarDate({ nullable: true, valid: ['2026-12-01', '2024-02-29'] }), required: false },
  valid_to: { mutations: calendarDate({ nullable: true, valid: ['2026-12-31', '2028-02-29'] }), required: false },
  items: { mutations: priceItems(), required: create },
})

async function setup(rc: RouteCtx) {
  const token = rc.token
  const group = await post201('/office/v1/outlets/channel-groups', { name: unique('Group') }, token, 'a channel group')
  rc.channel = (await post201('/office/v1/outlets/channels', { name: unique('Channel'), channel_group_id: group.id }, token, 'a channel')).id
  rc.deletedChannel = await deleted(
    'outlets/channels',
    (await post201('/office/v1/outlets/channels', { name: unique('Channel'), channel_group_id: group.id }, token, 'a channel')).id,
    token,
  )
  rc.deletedAccount = await deleted(
    'outlets/accounts',
    (await post201('/office/v1/outlets/accounts', { name: unique('Account'), channel_id: rc.channel }, token, 'an account')).id,
    token,
  )
  const product = async () => (await post201('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), price: 1_000 }, token, 'a product')).id
  rc.product = await product()
  rc.product2 = await product()
  rc.deletedProduct = await deleted('products', await product(), token)
  const [row] = await t.app.db.pragma(`SELECT id FROM products WHERE sku = '${foreign.product_sku}'`)
  rc.foreignProduct = Number(row.id)
}

const body = (rc: RouteCtx) => ({
  name: unique('List'),
  channel_id: rc.channel,
  account_id: null,
  valid_from: '2026-12-01',
  valid_to: '2026-12-31',
  items: [
    { product_id: rc.product, price: 900 },
    { product_id: rc.product, price: 800, min_qty: 12 },
  ],
})
const readBack = async (rc: RouteCtx, id: number) => okData(await t.app.get(`/office/v1/price-lists/${id}`, { token: rc.token }), 'reading the price list')

SPECS['POST /api/office/v1/price-lists'] = {
  family: 'price lists',
  setup,
  baseline: async (rc) => ({ path: '/office/v1/price-lists', body: body(rc), token: rc.token }),
  fields: fields(true),
  readBack: (rc, reply) => readBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/price-lists/:id'] = {
  family: 'price lists',
  setup: async (rc) => {
    await setup(rc)
    rc.target = (await post201('/office/v1/price-lists', { name: unique('Target'), items: [] }, rc.token, 'a price list')).id
  },
  baseline: async (rc) => ({ path: `/office/v1/price-lists/${rc.target}`, body: body(rc), token: rc.token }),
  fields: fields(false),
  readBack: (rc) => readBack(rc, rc.target),
}

badInputTests('price-lists', { specs: SPECS })
