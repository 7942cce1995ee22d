/**
 * Sales orders over HTTP (docs/API.md §Orders): taken at a visit in progress with prices resolved and frozen,
 * exact money, readable numbers, the decisions of the office and the creator, the effective call, audit, the
 * change feeds and the creator's socket. The concurrency rules run on both drivers (the last describe).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { COUNTING_STATUSES } from '../src/modules/orders'
import { createTestApp, expectError, type Session, type TestApp, unique, useRealSocket, useTestApp, type Workspace } from './harness'
import { data, grant, HERE, newAccount, newChannel, newOutlet, newProduct, newProject, newVisit, OFFICE, ok, type Row, startVisit } from './factories'

const h = useTestApp()
const t = () => h.app

interface Fixture {
  ws: Workspace
  rep: Session
  outlet: Row
  project: Row
  products: Row[]
}

/** A workspace with a field user, an outlet of an account of a channel, a project and three products. */
async function fixture(app: TestApp = t(), prices: number[] = [10_000, 25_000, 7_500]): Promise<Fixture> {
  const ws = await app.workspace()
  const token = ws.owner.token
  const rep = await app.member(ws, 'user')
  const channel = await newChannel(app, token)
  const account = await newAccount(app, token, { channel_id: channel.id })
  const outlet = await newOutlet(app, token, { ...HERE, account_id: account.id })
  const project = await newProject(app, token)
  const products = []
  for (const price of prices) products.push(await newProduct(app, token, { price, unit: 'pcs' }))
  return { ws, rep, outlet, project, products }
}

const visitFor = (f: Fixture, app: TestApp = t(), who: Session = f.rep) =>
  startVisit(app, f.ws.owner.token, who, { outlet_id: f.outlet.id, project_id: f.project.id })

const order = (app: TestApp, visitId: number, who: Session, body: unknown, key: string | null = unique('order')) =>
  app.post(`/app/v1/visits/${visitId}/sales-orders`, body, { token: who.token, ...(key !== null && { idempotencyKey: key }) })

const lines = (f: Fixture, ...quantities: number[]) => quantities.map((quantity, i) => ({ product_id: f.products[i].id, quantity }))

/** Inserts a price list straight into the database (the price-list routes have their own tests). */
async function priceList(app: TestApp, workspaceId: number, list: Row, items: { product_id: number; price: number; min_qty?: number }[]) {
  const now = new Date().toISOString()
  return app.db.transaction(async (tx) => {
    const [row] = (await tx.all(
      sql`insert into price_lists (workspace_id, name, channel_id, account_id, valid_from, valid_to, created_at, updated_at)
          values (${workspaceId}, ${unique('List')}, ${list.channel_id ?? null}, ${list.account_id ?? null}, ${list.valid_from ?? null}, ${list.valid_to ?? null}, ${now}, ${now})
          returning id`,
    )) as { id: number }[]
    for (const item of items)
      await tx.run(
        sql`insert into price_list_items (price_list_id, product_id, price, min_qty) values (${row.id}, ${item.product_id}, ${item.price}, ${item.min_qty ?? 1})`,
      )
    return row.id
  })
}

const count = async (app: TestApp, query: ReturnType<typeof sql>) => ((await app.db.read.all(query)) as { n: number }[])[0].n

describe('taking an order at a visit', () => {
  let f: Fixture
  let visit: Row
  beforeAll(async () => {
    f = await fixture()
    visit = await visitFor(f)
  })

  test('201 with the order: prices frozen, totals by the formula, a readable number, the visit an effective call', async () => {
    const reply = await order(t(), visit.id, f.rep, {
      lines: [
        { product_id: f.products[0].id, quantity: 3 },
        { product_id: f.products[1].id, quantity: 2, discount_pct: 12.5 },
      ],
      notes: 'deliver before noon',
    })
    const created = data(reply, 201, 'order')
    expect(reply.body.code).toBe('SALES_ORDER_CREATED')
    const today = t().clock.now().toISOString().slice(0, 10)
    expect(created.number).toMatch(new RegExp(`^SO-${today.replaceAll('-', '')}-\\d+$`))
    expect(created).toMatchObject({
      status: 'submitted',
      visit_id: visit.id,
      outlet: { id: f.outlet.id, name: f.outlet.name },
      user: { id: f.rep.user.id },
      currency: 'IDR',
      subtotal: 80_000,
      total: 73_750,
      discount_total: 6_250,
      notes: 'deliver before noon',
      reason: null,
    })
    expect(created.lines).toEqual([
      {
        product_id: f.products[0].id,
        sku: f.products[0].sku,
        name: f.products[0].name,
        unit: 'pcs',
        quantity: 3,
        unit_price: 10_000,
        discount_pct: 0,
        line_total: 30_000,
      },
      {
        product_id: f.products[1].id,
        sku: f.products[1].sku,
        name: f.products[1].name,
        unit: 'pcs',
        quantity: 2,
        unit_price: 25_000,
        discount_pct: 12.5,
        line_total: 43_750,
      },
    ])
    const detail = ok(await t().get(`/office/v1/visits/${visit.id}`, { token: f.ws.owner.token }))
    expect(detail.effective).toBe(true)
    // The detail route answers the same order.
    expect(ok(await t().get(`/app/v1/sales-orders/${created.id}`, { token: f.rep.token }))).toEqual(created)
    expect(ok(await t().get(`${OFFICE}/sales-orders/${created.id}`, { token: f.ws.owner.token }))).toEqual(created)
  })

  test('money is exact: 1,000,000 × Rp 9,999,999 at 12.5 % is 8,749,999,125,000 to the rupiah', async () => {
    const g = await fixture(t(), [9_999_999])
    const v = await visitFor(g)
    const created = data(await order(t(), v.id, g.rep, { lines: [{ product_id: g.products[0].id, quantity: 1_000_000, discount_pct: 12.5 }] }))
    expect(created.subtotal).toBe(9_999_999_000_000)
    expect(created.total).toBe(8_749_999_125_000)
    expect(created.discount_total).toBe(1_249_999_875_000)
    expect(Number.isSafeInteger(created.total)).toBe(true)
  })

  test('half up per line: 3 × 333 at 33.33 % is 666.0033 → 666; 1 × 5 at 10 % is 4.5 → 5', async () => {
    const g = await fixture(t(), [333, 5])
    const v = await visitFor(g)
    const created = data(
      await order(t(), v.id, g.rep, {
        lines: [
          { product_id: g.products[0].id, quantity: 3, discount_pct: 33.33 },
          { product_id: g.products[1].id, quantity: 1, discount_pct: 10 },
        ],
      }),
    )
    expect(created.lines.map((line: Row) => line.line_total)).toEqual([666, 5])
    expect(created.total).toBe(671)
    expect(created.subtotal - created.total).toBe(created.discount_total)
  })

  test('prices resolve by account, then channel, then the default list, then the product; tiers by quantity; validity by the local day', async () => {
    const g = await fixture(t(), [1_000, 2_000, 3_000, 4_000])
    const v = await visitFor(g)
    const outlet = ok(await t().get(`${OFFICE}/outlets/${g.outlet.id}`, { token: g.ws.owner.token }))
    const [p0, p1, p2, p3] = g.products
    const today = t().clock.now().toISOString().slice(0, 10)
    await priceList(t(), g.ws.id, { account_id: outlet.account_id }, [
      { product_id: p0.id, price: 900 },
      { product_id: p0.id, price: 800, min_qty: 10 },
    ])
    await priceList(t(), g.ws.id, { channel_id: outlet.account.channel_id }, [
      { product_id: p0.id, price: 950 },
      { product_id: p1.id, price: 1_900 },
    ])
    await priceList(t(), g.ws.id, {}, [
      { product_id: p1.id, price: 1_950 },
      { product_id: p2.id, price: 2_900 },
    ])
    // Expired yesterday: no longer prices anything.
    await priceList(t(), g.ws.id, { account_id: outlet.account_id, valid_to: '2000-01-01' }, [{ product_id: p3.id, price: 1 }])
    const created = data(await order(t(), v.id, g.rep, { lines: [...lines(g, 12, 1, 1, 1)] }))
    expect(created.lines.map((line: Row) => line.unit_price)).toEqual([800, 1_900, 2_900, 4_000])
    expect(today).toBeTruthy()
    // A deleted account counts as none, as on the phone's price sheet: its list prices nothing, the channel's is
    // not reached through it either, so the default list and the product price apply.
    await t().db.transaction(async (tx) => {
      await tx.run(sql`update accounts set deleted_at = ${new Date().toISOString()} where id = ${outlet.account_id}`)
    })
    const after = data(await order(t(), v.id, g.rep, { lines: [...lines(g, 12, 1, 1, 1)] }))
    expect(after.lines.map((line: Row) => line.unit_price)).toEqual([1_000, 1_950, 2_900, 4_000])
    const sheet = ok(await t().get(`/app/v1/outlets/${g.outlet.id}/prices`, { token: g.rep.token }))
    expect(sheet.find((entry: Row) => entry.product_id === p0.id).tiers).toEqual([{ min_qty: 1, price: 1_000 }])
  })

  test('the create answers, and audits, exactly the order the detail reads back: every field and its order, a line without a unit, tiers, discounts, no notes', async () => {
    const g = await fixture(t(), [1_000, 2_000, 3_000])
    const unitless = await newProduct(t(), g.ws.owner.token, { price: 4_250 })
    const v = await visitFor(g)
    const outlet = ok(await t().get(`${OFFICE}/outlets/${g.outlet.id}`, { token: g.ws.owner.token }))
    await priceList(t(), g.ws.id, { account_id: outlet.account_id }, [
      { product_id: g.products[0].id, price: 900 },
      { product_id: g.products[0].id, price: 850, min_qty: 5 },
    ])
    await priceList(t(), g.ws.id, {}, [{ product_id: g.products[2].id, price: 2_750 }])
    const reply = await order(t(), v.id, g.rep, {
      lines: [
        { product_id: g.products[0].id, quantity: 6, discount_pct: 12.5 },
        { product_id: unitless.id, quantity: 2 },
        { product_id: g.products[2].id, quantity: 1, discount_pct: 0.01 },
        { product_id: g.products[1].id, quantity: 3 },
      ],
    })
    const created = data(reply, 201, 'order')
    expect(created.lines.map((line: Row) => [line.unit, line.unit_price])).toEqual([
      ['pcs', 850],
      [null, 4_250],
      ['pcs', 2_750],
      ['pcs', 2_000],
    ])
    expect(created.notes).toBeNull()
    expect(created.user.name).toBe(g.rep.user.name)
    const detail = await t().get(`/app/v1/sales-orders/${created.id}`, { token: g.rep.token })
    // The same bytes, key order included.
    expect(JSON.stringify(detail.body.data)).toBe(JSON.stringify(created))
    const [entry] = ok(await t().get(`${OFFICE}/audit-logs?entity_type=sales_order&entity_id=${created.id}`, { token: g.ws.owner.token })).data
    expect(entry.new_values).toEqual(created)
  })

  test('without X-Idempotency-Key: 400 IDEMPOTENCY_KEY_REQUIRED and nothing written; a replayed key creates nothing more', async () => {
    const before = await count(t(), sql`select count(*) as n from sales_orders where workspace_id = ${f.ws.id}`)
    expectError(await order(t(), visit.id, f.rep, { lines: lines(f, 1) }, null), 400, 'IDEMPOTENCY_KEY_REQUIRED')
    expect(await count(t(), sql`select count(*) as n from sales_orders where workspace_id = ${f.ws.id}`)).toBe(before)
    const key = unique('replay')
    const first = await order(t(), visit.id, f.rep, { lines: lines(f, 1) }, key)
    expect(first.status).toBe(201)
    const again = await order(t(), visit.id, f.rep, { lines: lines(f, 1) }, key)
    expect(again.status).toBe(204)
    expect(again.headers.get('location')).toBe(`/api/app/v1/sales-orders/${first.body.data.id}`)
    expect(await count(t(), sql`select count(*) as n from sales_orders where workspace_id = ${f.ws.id}`)).toBe(before + 1)
  })

  test('every bad line is named at once, and nothing is written', async () => {
    const other = await fixture()
    const gone = await newProduct(t(), f.ws.owner.token, { price: 1 })
    expect((await t().delete(`${OFFICE}/products/${gone.id}`, { token: f.ws.owner.token })).status).toBe(200)
    const unpriced = await newProduct(t(), f.ws.owner.token, {})
    const before = await count(t(), sql`select count(*) as n from sales_orders`)
    const counter = await count(t(), sql`select coalesce(max(last), 0) as n from order_counters where workspace_id = ${f.ws.id}`)
    const errors = expectError(
      await order(t(), visit.id, f.rep, {
        lines: [
          { product_id: f.products[0].id, quantity: 1 },
          { product_id: f.products[0].id, quantity: 2 },
          { product_id: 99_999_999, quantity: 1 },
          { product_id: other.products[0].id, quantity: 1 },
          { product_id: gone.id, quantity: 1 },
          { product_id: unpriced.id, quantity: 1 },
          { product_id: f.products[1].id, quantity: 1, discount_pct: 12.345 },
        ],
      }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors).sort()).toEqual(
      ['lines.1.product_id', 'lines.2.product_id', 'lines.3.product_id', 'lines.4.product_id', 'lines.5.product_id', 'lines.6.discount_pct'].sort(),
    )
    expect(await count(t(), sql`select count(*) as n from sales_orders`)).toBe(before)
    // A refused order gives its number back: the counter did not move.
    expect(await count(t(), sql`select coalesce(max(last), 0) as n from order_counters where workspace_id = ${f.ws.id}`)).toBe(counter)
  })

  test('the body is checked: quantity 0, discount over 100, 201 lines, no lines, a string quantity, extra fields', async () => {
    const p = f.products[0].id
    const cases: [unknown, string][] = [
      [{ lines: [{ product_id: p, quantity: 0 }] }, 'lines.0.quantity'],
      [{ lines: [{ product_id: p, quantity: 1, discount_pct: 100.5 }] }, 'lines.0.discount_pct'],
      [{ lines: [{ product_id: p, quantity: 1, discount_pct: -1 }] }, 'lines.0.discount_pct'],
      [{ lines: Array.from({ length: 201 }, (_, i) => ({ product_id: i + 1, quantity: 1 })) }, 'lines'],
      [{ lines: [] }, 'lines'],
      [{ lines: [{ product_id: p, quantity: '2' }] }, 'lines.0.quantity'],
      [{ lines: [{ product_id: p, quantity: 1.5 }] }, 'lines.0.quantity'],
      [{ lines: [{ product_id: p, quantity: 1_000_000_001 }] }, 'lines.0.quantity'],
      [{ lines: [{ quantity: 1 }] }, 'lines.0.product_id'],
      [{ lines: [{ product_id: '1; drop table sales_orders', quantity: 1 }] }, 'lines.0.product_id'],
      [{ notes: 'x'.repeat(2001), lines: [{ product_id: p, quantity: 1 }] }, 'notes'],
    ]
    for (const [body, field] of cases) {
      const errors = expectError(await order(t(), visit.id, f.rep, body), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toContain(field)
    }
  })

  test('a visit not in progress is 409 INVALID_VISIT_STATUS; another user’s visit, or one of another workspace, is 404', async () => {
    const planned = await newVisit(t(), f.ws.owner.token, { outlet_id: f.outlet.id, project_id: f.project.id, user_ids: [f.rep.user.id] })
    expectError(await order(t(), planned.id, f.rep, { lines: lines(f, 1) }), 409, 'INVALID_VISIT_STATUS')
    const colleague = await t().member(f.ws, 'user')
    expectError(await order(t(), visit.id, colleague, { lines: lines(f, 1) }), 404, 'VISIT_NOT_FOUND')
    const other = await fixture()
    const otherVisit = await visitFor(other)
    expectError(await order(t(), otherVisit.id, f.rep, { lines: lines(f, 1) }), 404, 'VISIT_NOT_FOUND')
  })
})

describe('decisions', () => {
  let f: Fixture
  let visit: Row
  const take = async () => data(await order(t(), visit.id, f.rep, { lines: lines(f, 2, 1) }))
  const decide = (id: number, action: string, body?: unknown, token = f.ws.owner.token) => t().put(`${OFFICE}/sales-orders/${id}/${action}`, body, { token })
  beforeAll(async () => {
    f = await fixture()
    visit = await visitFor(f)
  })

  test('approve → deliver; every other step is 409 INVALID_ORDER_STATUS with the status', async () => {
    const o = await take()
    expect(ok(await decide(o.id, 'approve')).status).toBe('approved')
    expect(expectError(await decide(o.id, 'approve'), 409, 'INVALID_ORDER_STATUS')).toEqual({ status: ['approved'] })
    expectError(await decide(o.id, 'reject', { reason: 'late' }), 409, 'INVALID_ORDER_STATUS')
    expect(ok(await decide(o.id, 'deliver')).status).toBe('delivered')
    const refused = await decide(o.id, 'cancel', { reason: 'x' })
    expectError(refused, 409, 'INVALID_ORDER_STATUS')
    expect(refused.body.message).toBe('a delivered order cannot be cancelled')
    expect((await decide(o.id, 'deliver')).body.message).toBe('a delivered order cannot be delivered')
  })

  test('reject and cancel need a reason (400 before the status is looked at); a cancel after an approve is allowed', async () => {
    const o = await take()
    expectError(await decide(o.id, 'reject', {}), 400, 'VALIDATION_ERROR')
    expectError(await decide(o.id, 'reject', { reason: '   ' }), 400, 'VALIDATION_ERROR')
    const rejected = ok(await decide(o.id, 'reject', { reason: 'out of credit' }))
    expect(rejected).toMatchObject({ status: 'rejected', reason: 'out of credit' })
    const p = await take()
    ok(await decide(p.id, 'approve'))
    expect(ok(await decide(p.id, 'cancel', { reason: 'outlet closed' }))).toMatchObject({ status: 'cancelled', reason: 'outlet closed' })
  })

  test('the creator edits while submitted: unchanged lines keep their frozen price, changed ones are priced again', async () => {
    const o = await take()
    await t().put(`${OFFICE}/products/${f.products[0].id}`, { price: 99_999 }, { token: f.ws.owner.token })
    await t().put(`${OFFICE}/products/${f.products[1].id}`, { price: 30_000 }, { token: f.ws.owner.token })
    const edited = ok(
      await t().put(
        `/app/v1/sales-orders/${o.id}`,
        {
          lines: [
            { product_id: f.products[0].id, quantity: 2, discount_pct: 5 },
            { product_id: f.products[1].id, quantity: 4 },
          ],
        },
        { token: f.rep.token },
      ),
    )
    expect(edited.lines.map((line: Row) => [line.unit_price, line.line_total])).toEqual([
      [10_000, 19_000],
      [30_000, 120_000],
    ])
    expect(edited.number).toBe(o.number)
    await t().put(`${OFFICE}/products/${f.products[0].id}`, { price: 10_000 }, { token: f.ws.owner.token })
    await t().put(`${OFFICE}/products/${f.products[1].id}`, { price: 25_000 }, { token: f.ws.owner.token })
    ok(await decide(o.id, 'approve'))
    expectError(await t().put(`/app/v1/sales-orders/${o.id}`, { lines: lines(f, 1) }, { token: f.rep.token }), 409, 'INVALID_ORDER_STATUS')
  })

  test('the creator cancels only their own submitted order; a colleague sees none of it; a field user cannot decide', async () => {
    const o = await take()
    const colleague = await t().member(f.ws, 'user')
    expectError(await t().put(`/app/v1/sales-orders/${o.id}/cancel`, { reason: 'x' }, { token: colleague.token }), 404, 'SALES_ORDER_NOT_FOUND')
    expectError(await t().get(`/app/v1/sales-orders/${o.id}`, { token: colleague.token }), 404, 'SALES_ORDER_NOT_FOUND')
    expectError(await decide(o.id, 'approve', undefined, f.rep.token), 403, 'FORBIDDEN')
    expect(ok(await t().put(`/app/v1/sales-orders/${o.id}/cancel`, { reason: 'changed my mind' }, { token: f.rep.token })).status).toBe('cancelled')
    const p = await take()
    ok(await decide(p.id, 'approve'))
    expectError(await t().put(`/app/v1/sales-orders/${p.id}/cancel`, { reason: 'x' }, { token: f.rep.token }), 409, 'INVALID_ORDER_STATUS')
  })

  test('every change is audited with exact values: created, then updated with the status and reason', async () => {
    const o = await take()
    ok(await decide(o.id, 'reject', { reason: 'duplicate' }))
    const logs = ok(await t().get(`${OFFICE}/audit-logs?entity_type=sales_order&entity_id=${o.id}&sort_by=id&sort_order=asc`, { token: f.ws.owner.token })).data
    expect(logs.map((log: Row) => log.action)).toEqual(['created', 'updated'])
    expect(logs[0].new_values).toMatchObject({ number: o.number, total: o.total, subtotal: o.subtotal, status: 'submitted' })
    expect(logs[1].old_values).toEqual({ status: 'submitted', reason: null })
    expect(logs[1].new_values).toEqual({ status: 'rejected', reason: 'duplicate' })
  })

  test('the effective call follows the orders that count (cancelled and rejected ones do not), on the visit and as a list filter', async () => {
    const rep = await t().member(f.ws, 'user')
    const v = await visitFor(f, t(), rep)
    const effective = async () => ok(await t().get(`/office/v1/visits/${v.id}`, { token: f.ws.owner.token })).effective
    expect(await effective()).toBe(false)
    const a = data(await order(t(), v.id, rep, { lines: lines(f, 1) }))
    const b = data(await order(t(), v.id, rep, { lines: lines(f, 1) }))
    expect(await effective()).toBe(true)
    ok(await decide(a.id, 'reject', { reason: 'x' }))
    expect(await effective()).toBe(true)
    const listed = async (query: string, token = f.ws.owner.token, path = `${OFFICE}/visits`) =>
      ok(await t().get(`${path}?${query}`, { token })).map((visit: Row) => visit.id)
    expect(await listed('effective=true')).toContain(v.id)
    expect(await listed('effective=false')).not.toContain(v.id)
    expect(await listed('effective=true', rep.token, '/app/v1/visits/me')).toEqual([v.id])
    expectError(await t().get(`${OFFICE}/visits?effective=maybe`, { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')
    ok(await decide(b.id, 'cancel', { reason: 'x' }))
    expect(await effective()).toBe(false)
    expect(await listed('effective=true')).not.toContain(v.id)
    expect(await listed('effective=false')).toContain(v.id)
    expect(await listed('effective=true', rep.token, '/app/v1/visits/me')).toEqual([])
    // The statuses the database's triggers count are the module's.
    expect([...COUNTING_STATUSES].sort()).toEqual(['approved', 'delivered', 'submitted'])
  })
})

describe('lists', () => {
  let f: Fixture
  let mine: Row[]
  beforeAll(async () => {
    f = await fixture()
    const v = await visitFor(f)
    mine = []
    for (let i = 0; i < 3; i++) mine.push(data(await order(t(), v.id, f.rep, { lines: lines(f, i + 1) })))
    const colleague = await t().member(f.ws, 'user')
    const w = await visitFor(f, t(), colleague)
    data(await order(t(), w.id, colleague, { lines: lines(f, 1) }))
    ok(await t().put(`${OFFICE}/sales-orders/${mine[0].id}/approve`, undefined, { token: f.ws.owner.token }))
  })

  test('the phone lists its own orders only; the office every order, filtered', async () => {
    const phone = await t().get('/app/v1/sales-orders', { token: f.rep.token })
    expect(
      ok(phone)
        .map((o: Row) => o.id)
        .sort(),
    ).toEqual(mine.map((o) => o.id).sort())
    expect(phone.body.meta.total).toBe(3)
    const office = (query: string) => t().get(`${OFFICE}/sales-orders?${query}`, { token: f.ws.owner.token })
    expect(ok(await office('')).length).toBe(4)
    expect(ok(await office('status=approved')).map((o: Row) => o.id)).toEqual([mine[0].id])
    expect(ok(await office(`user_id=${f.rep.user.id}`)).length).toBe(3)
    expect(ok(await office(`keyword=${mine[1].number.toLowerCase()}`)).map((o: Row) => o.id)).toEqual([mine[1].id])
    expect(ok(await office(`keyword=${encodeURIComponent(f.outlet.name)}`)).length).toBe(4)
    const today = t().clock.now().toISOString().slice(0, 10)
    expect(ok(await office(`date_from=${today}&date_to=${today}&status=submitted`)).length).toBe(3)
    expect(ok(await office('date_from=2000-01-01&date_to=2000-01-02')).length).toBe(0)
    expect(ok(await office('sort_by=total&sort_order=desc'))[0].line_count).toBe(1)
    expectError(await office('status=shipped'), 400, 'VALIDATION_ERROR')
    expect(ok(await office(`keyword=${encodeURIComponent("' or 1=1 --")}`))).toEqual([])
  })
})

describe('the day’s figures and the export', () => {
  let f: Fixture
  let taken: Row[]
  beforeAll(async () => {
    f = await fixture()
    const v = await visitFor(f)
    const colleague = await t().member(f.ws, 'user')
    const w = await visitFor(f, t(), colleague)
    taken = [
      data(await order(t(), v.id, f.rep, { lines: lines(f, 2, 1) })),
      data(await order(t(), v.id, f.rep, { lines: [{ product_id: f.products[2].id, quantity: 4, discount_pct: 10 }], notes: '=HYPERLINK("x")' })),
      data(await order(t(), w.id, colleague, { lines: lines(f, 1) })),
      data(await order(t(), w.id, colleague, { lines: lines(f, 5) })),
    ]
    ok(await t().put(`${OFFICE}/sales-orders/${taken[3].id}/cancel`, { reason: 'wrong outlet' }, { token: f.ws.owner.token }))
  })

  test('the dashboard summary counts today’s orders that count: effective calls, orders and their value', async () => {
    const summary = ok(await t().get(`${OFFICE}/dashboard/summary`, { token: f.ws.owner.token }))
    expect(summary).toMatchObject({
      effective_calls_today: 2,
      orders_today: 3,
      order_value_today: taken[0].total + taken[1].total + taken[2].total,
    })
    // A team without those visits sees none of them.
    const team = data(await t().post(`${OFFICE}/teams`, { name: unique('Team') }, { token: f.ws.owner.token }))
    expect(ok(await t().get(`${OFFICE}/dashboard/summary?team_id=${team.id}`, { token: f.ws.owner.token }))).toMatchObject({
      effective_calls_today: 0,
      orders_today: 0,
      order_value_today: 0,
    })
  })

  test('the CSV export has one row per line, exact integers, the formula guard, and the list’s filters', async () => {
    const job = data(await t().get(`${OFFICE}/export/sales-orders/csv?user_id=${f.rep.user.id}`, { token: f.ws.owner.token }), 202, 'export')
    await t().deps.exports.idle()
    expect(ok(await t().get(`${OFFICE}/export/jobs/${job.id}`, { token: f.ws.owner.token }))).toMatchObject({
      status: 'done',
      kind: 'sales_orders',
      row_count: 3,
    })
    const response = await t().app.handle(
      new Request(`http://localhost/api/office/v1/export/jobs/${job.id}/download`, { headers: { authorization: `Bearer ${f.ws.owner.token}` } }),
    )
    expect(response.headers.get('content-disposition')).toContain(`sales-orders-${job.id}.csv`)
    const [header, ...rows] = (await response.text()).trim().split('\n')
    expect(header).toBe(
      'order_number,order_date,status,visit_id,outlet_code,outlet_name,user_name,currency,sku,product_name,unit,quantity,unit_price,discount_pct,line_total,order_subtotal,order_discount_total,order_total,notes,reason,created_at',
    )
    expect(rows).toHaveLength(3)
    expect(rows.filter((row) => row.startsWith(`${taken[0].number},`))).toHaveLength(2)
    const discounted = rows.find((row) => row.startsWith(`${taken[1].number},`))!
    expect(discounted).toContain(',4,7500,10,27000,30000,3000,27000,')
    expect(discounted).toContain(`"'=HYPERLINK(""x"")"`)
    // Without a filter: every line of this workspace's orders (the cancelled one too), none of the other workspaces' orders.
    const all = data(await t().get(`${OFFICE}/export/sales-orders/csv`, { token: f.ws.owner.token }), 202, 'export')
    await t().deps.exports.idle()
    expect(ok(await t().get(`${OFFICE}/export/jobs/${all.id}`, { token: f.ws.owner.token })).row_count).toBe(5)
    expectError(await t().get(`${OFFICE}/export/sales-orders/pdf`, { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')
    // Without the orders' view permission, no export of them.
    const exporter = await t().memberWithGrants(f.ws, [grant('export.view', 'view')])
    expectError(await t().get(`${OFFICE}/export/sales-orders/csv`, { token: exporter.token }), 403, 'FORBIDDEN')
  })

  test('a requester who lost sales_order:view since cannot download the orders export they made before (403, as the request and the run)', async () => {
    const grants = [grant('export.view', 'view'), grant('sales_order:view', 'view')]
    const role = data(await t().post(`${OFFICE}/roles`, { name: unique('Exporter'), permissions: grants }, { token: f.ws.owner.token }))
    const exporter = await t().member(f.ws, role.id)
    const job = data(await t().get(`${OFFICE}/export/sales-orders/csv`, { token: exporter.token }), 202, 'export')
    await t().deps.exports.idle()
    expect(ok(await t().get(`${OFFICE}/export/jobs/${job.id}`, { token: exporter.token })).status).toBe('done')
    const download = () =>
      t().app.handle(new Request(`http://localhost/api/office/v1/export/jobs/${job.id}/download`, { headers: { authorization: `Bearer ${exporter.token}` } }))
    expect((await download()).status).toBe(200)
    ok(await t().put(`${OFFICE}/roles/${role.id}`, { permissions: [grant('export.view', 'view')] }, { token: f.ws.owner.token }))
    const refused = await download()
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ success: false, code: 'FORBIDDEN' })
  })
})

describe('what reaches whom: the creator’s phone, the office feed, the creator’s socket', () => {
  const socket = useRealSocket(h)
  let f: Fixture
  let visit: Row
  beforeAll(async () => {
    f = await fixture()
    visit = await visitFor(f)
  })

  const feed = async (who: Session, path = '/app/v1/sync') => {
    const changes: Row[] = []
    let cursor = ''
    for (;;) {
      const page = ok(await t().get(`${path}?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: who.token }))
      changes.push(...page.changes)
      cursor = page.cursor
      if (!page.has_more) return { changes, cursor }
    }
  }

  test('the creator’s sync carries their orders as the detail answers them; a colleague’s carries none; the office feed carries all', async () => {
    const colleague = await t().member(f.ws, 'user')
    const { cursor } = await feed(f.rep)
    const o = data(await order(t(), visit.id, f.rep, { lines: lines(f, 2) }))
    const after = ok(await t().get(`/app/v1/sync?cursor=${encodeURIComponent(cursor)}`, { token: f.rep.token }))
    expect(after.changes.filter((c: Row) => c.entity === 'sales_order')).toEqual([{ entity: 'sales_order', id: o.id, op: 'upsert', data: o }])
    // The visit became an effective call: it comes again too.
    expect(after.changes.find((c: Row) => c.entity === 'visit' && c.id === visit.id)?.data.effective).toBe(true)
    expect((await feed(colleague)).changes.filter((c: Row) => c.entity === 'sales_order')).toEqual([])
    const office = await feed(f.ws.owner, '/office/v1/changes')
    expect(office.changes.filter((c: Row) => c.entity === 'sales_order').map((c: Row) => c.id)).toEqual([o.id])
    // A decision, and a rename of the outlet and of the creator it shows, reach the creator again.
    ok(await t().put(`${OFFICE}/sales-orders/${o.id}/approve`, undefined, { token: f.ws.owner.token }))
    await t().put(`${OFFICE}/outlets/${f.outlet.id}`, { name: unique('Renamed') }, { token: f.ws.owner.token })
    const later = ok(await t().get(`/app/v1/sync?cursor=${encodeURIComponent(after.cursor)}`, { token: f.rep.token }))
    const again = later.changes.filter((c: Row) => c.entity === 'sales_order')
    expect(again).toHaveLength(1)
    expect(again[0].data).toEqual(ok(await t().get(`/app/v1/sales-orders/${o.id}`, { token: f.rep.token })))
    expect(again[0].data.status).toBe('approved')
    // Renaming the creator alone changes the order's answer (`user.name`): the order comes again on its own.
    const renamed = unique('Rep')
    ok(await t().put(`${OFFICE}/users/${f.rep.user.id}`, { name: renamed }, { token: f.ws.owner.token }))
    const last = ok(await t().get(`/app/v1/sync?cursor=${encodeURIComponent(later.cursor)}`, { token: f.rep.token }))
    expect(last.changes.filter((c: Row) => c.entity === 'sales_order').map((c: Row) => [c.id, c.data.user.name])).toEqual([[o.id, renamed]])
  })

  test('sales_order.updated reaches the creator’s socket when the office decides (a real socket)', async () => {
    const o = data(await order(t(), visit.id, f.rep, { lines: lines(f, 1) }))
    const ws = new WebSocket(`${socket.base.replace('http', 'ws').replace(/\/api$/, '')}/ws?token=${encodeURIComponent(f.rep.token)}`)
    const messages: Row[] = []
    ws.onmessage = (event) => messages.push(JSON.parse(String(event.data)))
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve()
      ws.onerror = () => reject(new Error('socket refused'))
    })
    ok(await t().put(`${OFFICE}/sales-orders/${o.id}/reject`, { reason: 'no stock' }, { token: f.ws.owner.token }))
    for (let i = 0; i < 500 && !messages.some((m) => m.type === 'sales_order.updated'); i++) await Bun.sleep(10)
    ws.close()
    expect(messages.filter((m) => m.type === 'sales_order.updated').map((m) => m.data)).toEqual([
      { id: o.id, number: o.number, status: 'rejected', visit_id: visit.id },
    ])
  })
})

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`${driver}: concurrent orders and decisions`, () => {
    let app: TestApp
    let f: Fixture
    let visit: Row
    beforeAll(async () => {
      app = await createTestApp({ driver })
      f = await fixture(app)
      visit = await visitFor(f, app)
    })
    afterAll(async () => {
      await app.close()
    })

    test('30 creates at once get 30 distinct consecutive numbers; 30 replays of one key create one order', async () => {
      const replies = await Promise.all(Array.from({ length: 30 }, () => order(app, visit.id, f.rep, { lines: lines(f, 1) })))
      expect(replies.map((r) => r.status)).toEqual(Array(30).fill(201))
      const ns = replies.map((r) => Number(r.body.data.number.split('-')[2])).sort((a, b) => a - b)
      expect(ns).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
      const key = unique('same')
      const same = await Promise.all(Array.from({ length: 30 }, () => order(app, visit.id, f.rep, { lines: lines(f, 2) }, key)))
      expect(same.filter((r) => r.status === 201)).toHaveLength(1)
      expect(same.every((r) => [201, 204, 409].includes(r.status))).toBe(true)
      expect(await count(app, sql`select count(*) as n from sales_orders where workspace_id = ${f.ws.id}`)).toBe(31)
    })

    test('prices come from the account, channel and default lists with their tiers, and the answer is the detail', async () => {
      const g = await fixture(app, [1_000, 2_000, 3_000, 4_000])
      const v = await visitFor(g, app)
      const outlet = ok(await app.get(`${OFFICE}/outlets/${g.outlet.id}`, { token: g.ws.owner.token }))
      const [p0, p1, p2] = g.products
      await priceList(app, g.ws.id, { account_id: outlet.account_id }, [
        { product_id: p0.id, price: 900 },
        { product_id: p0.id, price: 800, min_qty: 10 },
      ])
      await priceList(app, g.ws.id, { channel_id: outlet.account.channel_id }, [{ product_id: p1.id, price: 1_900 }])
      await priceList(app, g.ws.id, {}, [
        { product_id: p1.id, price: 1_950 },
        { product_id: p2.id, price: 2_900 },
      ])
      const created = data(await order(app, v.id, g.rep, { lines: lines(g, 12, 1, 1, 1) }))
      expect(created.lines.map((line: Row) => line.unit_price)).toEqual([800, 1_900, 2_900, 4_000])
      expect(ok(await app.get(`/app/v1/sales-orders/${created.id}`, { token: g.rep.token }))).toEqual(created)
    })

    test('30 approves and rejects at once: exactly one wins, the rest are 409; one audit entry of the decision', async () => {
      const o = data(await order(app, visit.id, f.rep, { lines: lines(f, 1) }))
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          app.put(`${OFFICE}/sales-orders/${o.id}/${i % 2 ? 'approve' : 'reject'}`, i % 2 ? undefined : { reason: 'no' }, { token: f.ws.owner.token }),
        ),
      )
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1)
      expect(replies.filter((r) => r.status === 409).every((r) => r.body.code === 'INVALID_ORDER_STATUS')).toBe(true)
      expect(replies.filter((r) => r.status === 409)).toHaveLength(29)
      expect(
        await count(app, sql`select count(*) as n from audit_logs where entity_type = 'sales_order' and entity_id = ${String(o.id)} and action = 'updated'`),
      ).toBe(1)
    })
  })
}
