/**
 * Hostile input for Sales orders (src/modules/orders): the baseline bodies of the module's POST and PUT routes.
 * What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 *
 * An order is taken by the field user at their visit in progress (one per route's workspace, started in
 * `setup` and kept in progress: a visit takes any number of orders), with a new X-Idempotency-Key per
 * request (the route requires one). The decisions (cancel, approve, reject, deliver) use up their order:
 * a new one is taken (`fresh`) after each accepted request (`usedUp`).
 */
import { type Reply, unique } from '../harness'
import {
  badInputTests,
  deleted,
  foreign,
  fresh,
  missing,
  mutation,
  type Mutation,
  okData,
  optionalText,
  post201,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  startedVisit,
  t,
  usedUp,
  visitKit,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

/** docs/API.md §Orders: 1–200 lines, each product once, quantity 1–1,000,000,000, discount 0–100 % with 2 decimals. */
const LINES_MAX = 200
const QUANTITY_MAX = 1_000_000_000
/** Products of the route's workspace, by price: the lines name them by index. */
const PRICES = [10_000, 25_000, 7_500]
/** A price at which the quantity limit is past 2^53 − 1 rupiah: 1e9 × 1e7 = 1e16. */
const DEAR = 10_000_000

async function newProduct(rc: RouteCtx, price: number | null): Promise<number> {
  return (await post201('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), price, unit: 'pcs' }, rc.token, 'a product')).id
}

/**
 * What an order needs: the visit kit (a field user, an outlet, a project), priced products, the products
 * an order cannot use (no price anywhere, soft-deleted), and the field user's visit in progress. With
 * `many`, LINES_MAX products more (for the largest order).
 */
async function orderKit(rc: RouteCtx) {
  await visitKit(rc)
  rc.products = []
  for (const price of PRICES) rc.products.push(await newProduct(rc, price))
  rc.dear = await newProduct(rc, DEAR)
  rc.unpriced = await newProduct(rc, null)
  rc.deletedProduct = await deleted('products', await newProduct(rc, 1_000), rc.token)
  rc.visit = (await startedVisit(rc)).id
}

async function orderKitForLines(rc: RouteCtx) {
  await orderKit(rc)
  rc.many = []
  for (let i = 0; i < LINES_MAX; i++) rc.many.push(await newProduct(rc, 100 + i))
}

const key = () => ({ 'x-idempotency-key': unique('order') })

/** A submitted order taken by the route's field user at their visit in progress. */
async function takeOrder(rc: RouteCtx): Promise<{ id: number }> {
  const body = { lines: [{ product_id: rc.products[0], quantity: 2 }], notes: 'Deliver before noon' }
  const reply = await t.app.post(`/app/v1/visits/${rc.visit}/sales-orders`, body, { token: rc.field.token, headers: key() })
  if (reply.status !== 201) throw new Error(`taking an order failed: ${reply.status} ${reply.text.slice(0, 500)}`)
  return reply.body.data
}

/** An order the office approved (the state delivery needs). */
async function approvedOrder(rc: RouteCtx): Promise<{ id: number }> {
  const order = await takeOrder(rc)
  return okData(await t.app.put(`/office/v1/sales-orders/${order.id}/approve`, undefined, { token: rc.token }), 'approving the order')
}

type Line = { product_id: unknown; quantity?: unknown; discount_pct?: unknown; [key: string]: unknown }

/** A line as an order keeps it: the discount is 0 unless given; any other property is dropped. */
const lineAsStored = (line: Line) => ({ product_id: line.product_id, quantity: line.quantity, discount_pct: line.discount_pct ?? 0 })
const linesAsStored = (sent: Line[]) => sent.map(lineAsStored)

/** An order in the terms of the bodies that write it. */
const orderInBodyTerms = (order: any) => ({ lines: order.lines.map(lineAsStored), notes: order.notes, reason: order.reason })
const orderBack = async (rc: RouteCtx, reply: Reply) =>
  orderInBodyTerms(okData(await t.app.get(`/office/v1/sales-orders/${reply.body.data.id}`, { token: rc.token }), 'reading the order'))
const orderAnswered = (_rc: RouteCtx, reply: Reply) => orderInBodyTerms(reply.body.data)

/** `lines` of an order and its edit; errors are keyed `lines.N.<property>`. */
function orderLines(): Mutation[] {
  const line = (rc: RouteCtx, i = 0, extra: Record<string, unknown> = {}): Line => ({ product_id: rc.products[i], quantity: 3, ...extra })
  const lines =
    (...make: ((rc: RouteCtx) => Line)[]) =>
    (_: unknown, rc: RouteCtx) =>
      make.map((f) => f(rc))
  const bad = (label: string, at: string, ...make: ((rc: RouteCtx) => Line)[]) => mutation(label, 'invalid', lines(...make), { path: at })
  const good = (label: string, ...make: ((rc: RouteCtx) => Line)[]) => mutation(label, 'valid', lines(...make), { stored: linesAsStored })
  const first = (extra: Record<string, unknown>) => (rc: RouteCtx) => line(rc, 0, extra)
  const product = (id: (rc: RouteCtx) => number) => (rc: RouteCtx) => ({ product_id: id(rc), quantity: 3 })
  const without = (property: string) => (rc: RouteCtx) => {
    const { [property]: _gone, ...rest } = line(rc, 0, { discount_pct: 5 })
    return rest as Line
  }
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single line instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => line(rc)),
    mutation('empty list', 'invalid', []),
    mutation(`${LINES_MAX + 1} lines (limit ${LINES_MAX})`, 'invalid', (_: unknown, rc: RouteCtx) =>
      Array.from({ length: LINES_MAX + 1 }, (_, i) => ({ product_id: rc.many?.[i] ?? rc.products[0], quantity: 1 })),
    ),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation('a line that is a number', 'invalid', [42], { path: '0' }),
    mutation('a line that is a string', 'invalid', ['SKU-1 x 3'], { path: '0' }),
    bad('a line without product_id', '0.product_id', without('product_id')),
    bad('product_id as a string', '0.product_id', (rc) => line(rc, 0, { product_id: String(rc.products[0]) })),
    bad('product_id null', '0.product_id', first({ product_id: null })),
    bad('product_id 0', '0.product_id', first({ product_id: 0 })),
    bad('product_id -1', '0.product_id', first({ product_id: -1 })),
    bad('product_id 1.5', '0.product_id', first({ product_id: 1.5 })),
    bad('product_id 2^53', '0.product_id', first({ product_id: 2 ** 53 })),
    bad('an SQL-ish product_id', '0.product_id', first({ product_id: '1 OR 1=1' })),
    bad(
      'a product that does not exist',
      '0.product_id',
      product(() => 99_999_999),
    ),
    bad(
      'a product of another workspace',
      '0.product_id',
      product(() => foreign.product_id),
    ),
    bad(
      'a soft-deleted product',
      '0.product_id',
      product((rc) => rc.deletedProduct),
    ),
    bad(
      'a product with no price anywhere',
      '0.product_id',
      product((rc) => rc.unpriced),
    ),
    bad('the same product twice', '1.product_id', first({}), first({ quantity: 1 })),
    bad('a line without quantity', '0.quantity', without('quantity')),
    bad('quantity 0', '0.quantity', first({ quantity: 0 })),
    bad('quantity -1', '0.quantity', first({ quantity: -1 })),
    bad('quantity 1.5', '0.quantity', first({ quantity: 1.5 })),
    bad('quantity as a string "3"', '0.quantity', first({ quantity: '3' })),
    bad('quantity null', '0.quantity', first({ quantity: null })),
    bad('quantity true', '0.quantity', first({ quantity: true })),
    bad(`quantity ${QUANTITY_MAX + 1} (limit ${QUANTITY_MAX})`, '0.quantity', first({ quantity: QUANTITY_MAX + 1 })),
    bad('quantity 1e308', '0.quantity', first({ quantity: 1e308 })),
    bad(`quantity ${QUANTITY_MAX} at Rp ${DEAR}: the total passes 2^53 − 1`, '0.quantity', (rc) => ({ product_id: rc.dear, quantity: QUANTITY_MAX })),
    bad('discount_pct -0.01', '0.discount_pct', first({ discount_pct: -0.01 })),
    bad('discount_pct 100.01', '0.discount_pct', first({ discount_pct: 100.01 })),
    bad('discount_pct 12.345 (3 decimals)', '0.discount_pct', first({ discount_pct: 12.345 })),
    bad('discount_pct as a string "10"', '0.discount_pct', first({ discount_pct: '10' })),
    bad('discount_pct null', '0.discount_pct', first({ discount_pct: null })),
    bad('discount_pct true', '0.discount_pct', first({ discount_pct: true })),
    bad('a good line, then one with quantity 0 (nothing is saved)', '1.quantity', first({}), (rc) => line(rc, 1, { quantity: 0 })),
    bad(
      'a good line, then a product of another workspace (nothing is saved)',
      '1.product_id',
      first({}),
      product(() => foreign.product_id),
    ),
    good('one line without a discount', first({})),
    good(
      'three lines',
      first({ discount_pct: 10 }),
      (rc) => line(rc, 1, { quantity: 1 }),
      (rc) => line(rc, 2, { quantity: 12, discount_pct: 0.5 }),
    ),
    good('discount 0 and 100 (a free line)', first({ discount_pct: 0 }), (rc) => line(rc, 1, { discount_pct: 100 })),
    good('discount with 2 decimals (33.33)', first({ discount_pct: 33.33 })),
    good(`quantity ${QUANTITY_MAX} (the limit)`, first({ quantity: QUANTITY_MAX })),
    good('quantity 1', first({ quantity: 1 })),
    mutation('a line with an unknown extra property (dropped)', 'valid', lines(first({ colour: 'red', unit_price: 1 })), { stored: linesAsStored }),
    mutation(`exactly ${LINES_MAX} lines`, 'valid', (_: unknown, rc: RouteCtx) => (rc.many as number[]).map((product_id) => ({ product_id, quantity: 1 })), {
      stored: linesAsStored,
    }),
  ]
}

const orderFields = () => ({
  lines: { mutations: orderLines(), required: true },
  notes: { mutations: optionalText(2000), required: false },
})

const orderBody = (rc: RouteCtx) => ({
  lines: [
    { product_id: rc.products[0], quantity: 3, discount_pct: 12.5 },
    { product_id: rc.products[1], quantity: 2 },
  ],
  notes: 'Deliver before noon',
})

// Taking and editing an order (the field user) --------------------------------------------------------

SPECS['POST /api/app/v1/visits/:id/sales-orders'] = {
  family: 'orders: taking and editing',
  setup: orderKitForLines,
  // Sent by the field user at their visit in progress, with the key the route requires (a new one per request).
  baseline: async (rc) => ({ path: `/app/v1/visits/${rc.visit}/sales-orders`, body: orderBody(rc), token: rc.field.token, headers: key() }),
  fields: orderFields(),
  readBack: orderBack,
  answered: orderAnswered,
}

SPECS['PUT /api/app/v1/sales-orders/:id'] = {
  family: 'orders: taking and editing',
  setup: async (rc) => {
    await orderKitForLines(rc)
    rc.order = (await takeOrder(rc)).id
  },
  // An edit leaves the order submitted: the same order takes every edit.
  baseline: async (rc) => ({ path: `/app/v1/sales-orders/${rc.order}`, body: orderBody(rc), token: rc.field.token }),
  fields: orderFields(),
  readBack: orderBack,
  answered: orderAnswered,
}

SPECS['PUT /api/app/v1/sales-orders/:id/cancel'] = {
  family: 'orders: decisions',
  setup: orderKit,
  baseline: async (rc) => ({
    path: `/app/v1/sales-orders/${(await fresh(rc, takeOrder)).id}/cancel`,
    body: { reason: 'The customer changed their mind' },
    token: rc.field.token,
  }),
  fields: { reason: { mutations: requiredText(1000), required: true } },
  readBack: orderBack,
  answered: orderAnswered,
  cleanup: usedUp,
}

// The office's decisions ----------------------------------------------------------------------------------

for (const [action, prepare] of [
  ['reject', takeOrder],
  ['cancel', takeOrder],
] as const) {
  SPECS[`PUT /api/office/v1/sales-orders/:id/${action}`] = {
    family: 'orders: decisions',
    setup: orderKit,
    baseline: async (rc) => ({
      path: `/office/v1/sales-orders/${(await fresh(rc, prepare)).id}/${action}`,
      body: { reason: 'Prices agreed by phone differ' },
      token: rc.token,
    }),
    fields: { reason: { mutations: requiredText(1000), required: true } },
    readBack: orderBack,
    answered: orderAnswered,
    cleanup: usedUp,
  }
}

// Approve and deliver take no body: only unknown fields (ignored) and the path id (below) are tried.
for (const [action, prepare] of [
  ['approve', takeOrder],
  ['deliver', approvedOrder],
] as const) {
  SPECS[`PUT /api/office/v1/sales-orders/:id/${action}`] = {
    family: 'orders: decisions',
    setup: orderKit,
    baseline: async (rc) => ({ path: `/office/v1/sales-orders/${(await fresh(rc, prepare)).id}/${action}`, body: {}, token: rc.token }),
    fields: {},
    cleanup: usedUp,
  }
}

badInputTests('orders', { specs: SPECS })
