/**
 * Price lists and the phone's price sheet (docs/API.md §Price lists and the phone's price sheet): office CRUD
 * with its validation and audit entries, on both drivers (the write path), with 30 concurrent creates under one
 * idempotency key; tenant isolation; the phone's sync carrying `price_list` and its tombstones; the price sheet
 * choosing account > channel > default > the product's own price, with tiers, on the workspace's local day
 * (a UTC+14 workspace just after its midnight); and the routes over a real socket.
 */
import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { ManualClock } from '../src/lib/clock'
import { data, newAccount, newChannel, newOutlet, newProduct } from './factories'
import { expectError, type Session, type TestApp, unique, useRealSocket, useTestApp, type Workspace } from './harness'

const LISTS = '/office/v1/price-lists'

/** A workspace with two products, a channel and an account in it. */
async function catalogue(app: TestApp, ws: Workspace) {
  const token = ws.owner.token
  const channel = await newChannel(app, token)
  const account = await newAccount(app, token, { channel_id: channel.id })
  const soap = await newProduct(app, token, { price: 1_000 })
  const rice = await newProduct(app, token, { price: 2_000 })
  return { channel: channel.id as number, account: account.id as number, soap: soap.id as number, rice: rice.id as number }
}

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`price lists on ${driver}: create, read, update, delete`, () => {
    const t = useTestApp({ driver })

    test('CRUD: 201 PRICE_LIST_CREATED with its items (min_qty 1 when not given), 200 detail and list, PUT replaces the items, DELETE hides it', async () => {
      const ws = await t.app.workspace()
      const token = ws.owner.token
      const c = await catalogue(t.app, ws)
      const body = {
        name: '  Modern trade  ',
        channel_id: c.channel,
        valid_from: '2026-12-01',
        valid_to: '2026-12-31',
        items: [
          { product_id: c.soap, price: 900 },
          { product_id: c.soap, price: 800, min_qty: 12 },
          { product_id: c.rice, price: 1_900 },
        ],
      }
      const createdReply = await t.app.post(LISTS, body, { token })
      expect(createdReply.status).toBe(201)
      const list = createdReply.body.data
      expect(createdReply.body.code).toBe('PRICE_LIST_CREATED')
      expect(list).toMatchObject({
        workspace_id: ws.id,
        name: 'Modern trade',
        level: 'channel',
        channel_id: c.channel,
        account_id: null,
        valid_from: '2026-12-01',
        valid_to: '2026-12-31',
        deleted_at: null,
      })
      const sorted = [
        { product_id: c.soap, price: 900, min_qty: 1 },
        { product_id: c.soap, price: 800, min_qty: 12 },
        { product_id: c.rice, price: 1_900, min_qty: 1 },
      ].sort((a, b) => a.product_id - b.product_id || a.min_qty - b.min_qty)
      expect(list.items).toEqual(sorted)
      expect(data(await t.app.get(`${LISTS}/${list.id}`, { token }), 200)).toEqual(list)

      const page = await t.app.get(`${LISTS}?channel_id=${c.channel}`, { token })
      expect(page.status).toBe(200)
      expect(page.body.data.map((row: { id: number; item_count: number }) => [row.id, row.item_count])).toEqual([[list.id, 3]])
      expect((await t.app.get(`${LISTS}?keyword=MODERN`, { token })).body.data.map((row: { id: number }) => row.id)).toEqual([list.id])
      expect((await t.app.get(`${LISTS}?account_id=${c.account}`, { token })).body.data).toEqual([])

      // Items given replace the items; the level given replaces the level (the channel goes with account_id).
      const updated = await t.app.put(`${LISTS}/${list.id}`, { account_id: c.account, items: [{ product_id: c.rice, price: 1_800, min_qty: 1 }] }, { token })
      expect(updated.status).toBe(200)
      expect(updated.body).toMatchObject({
        code: 'PRICE_LIST_UPDATED',
        data: { level: 'account', account_id: c.account, channel_id: null, name: 'Modern trade', valid_from: '2026-12-01' },
      })
      expect(updated.body.data.items).toEqual([{ product_id: c.rice, price: 1_800, min_qty: 1 }])
      expect(await t.app.count('price_list_items', `price_list_id = ${list.id}`)).toBe(1)
      // Without items, the items stay; null dates open the validity.
      const renamed = data(await t.app.put(`${LISTS}/${list.id}`, { name: 'Key account', valid_from: null, valid_to: null }, { token }), 200)
      expect(renamed).toMatchObject({ name: 'Key account', valid_from: null, valid_to: null, items: [{ product_id: c.rice, price: 1_800, min_qty: 1 }] })

      const deleted = await t.app.delete(`${LISTS}/${list.id}`, { token })
      expect(deleted.status).toBe(200)
      expect(deleted.body.code).toBe('PRICE_LIST_DELETED')
      expect(typeof deleted.body.data.deleted_at).toBe('string')
      expectError(await t.app.get(`${LISTS}/${list.id}`, { token }), 404, 'PRICE_LIST_NOT_FOUND')
      expectError(await t.app.put(`${LISTS}/${list.id}`, { name: 'Again' }, { token }), 404, 'PRICE_LIST_NOT_FOUND')
      expectError(await t.app.delete(`${LISTS}/${list.id}`, { token }), 404, 'PRICE_LIST_NOT_FOUND')
      expect((await t.app.get(LISTS, { token })).body.data).toEqual([])
    })

    test('bad bodies → 400 VALIDATION_ERROR naming the field, nothing written', async () => {
      const ws = await t.app.workspace()
      const token = ws.owner.token
      const c = await catalogue(t.app, ws)
      const other = await t.app.workspace()
      const theirs = await catalogue(t.app, other)
      const gone = await newProduct(t.app, token, { price: 5 })
      data(await t.app.delete(`/office/v1/products/${gone.id}`, { token }), 200)
      const item = { product_id: c.soap, price: 900 }
      const cases: [string, Record<string, unknown>, string[]][] = [
        ['both a channel and an account', { channel_id: c.channel, account_id: c.account }, ['account_id', 'channel_id']],
        ['a channel of another workspace', { channel_id: theirs.channel }, ['channel_id']],
        ['an account of another workspace', { account_id: theirs.account }, ['account_id']],
        ['a product of another workspace', { items: [item, { product_id: theirs.soap, price: 1 }] }, ['items.1.product_id']],
        ['a deleted product', { items: [{ product_id: gone.id, price: 1 }] }, ['items.0.product_id']],
        ['a product and min_qty twice (min_qty 1 given once, implied once)', { items: [item, { ...item, price: 850, min_qty: 1 }] }, ['items.1.product_id']],
        ['a fractional price', { items: [{ ...item, price: 1.5 }] }, ['items.0.price']],
        ['a negative price', { items: [{ ...item, price: -1 }] }, ['items.0.price']],
        ['a price past 2^53 − 1', { items: [{ ...item, price: 2 ** 53 }] }, ['items.0.price']],
        ['min_qty 0', { items: [{ ...item, min_qty: 0 }] }, ['items.0.min_qty']],
        ['min_qty 2.5', { items: [{ ...item, min_qty: 2.5 }] }, ['items.0.min_qty']],
        ['valid_from after valid_to', { valid_from: '2026-12-02', valid_to: '2026-12-01' }, ['valid_to']],
        ['no such day', { valid_from: '2026-02-30' }, ['valid_from']],
        ['a date-time for a date', { valid_to: '2026-12-01T00:00:00Z' }, ['valid_to']],
        ['2001 items (limit 2000)', { items: Array.from({ length: 2_001 }, (_, i) => ({ ...item, min_qty: i + 1 })) }, ['items']],
        ['no items', { items: undefined }, ['items']],
        ['a blank name', { name: '   ' }, ['name']],
      ]
      const before = { lists: await t.app.rows('price_lists'), items: await t.app.count('price_list_items') }
      for (const [label, change, fields] of cases) {
        const reply = await t.app.post(LISTS, { name: unique('List'), items: [item], ...change }, { token })
        const errors = expectError(reply, 400, 'VALIDATION_ERROR')
        expect({ label, fields: Object.keys(errors).sort() }).toEqual({ label, fields })
      }
      // The update checks the list as it would be: a valid_to before the stored valid_from is refused.
      const list = data(await t.app.post(LISTS, { name: unique('List'), valid_from: '2026-12-10', items: [item] }, { token }))
      const stored = { lists: await t.app.rows('price_lists'), items: await t.app.count('price_list_items') }
      expect(Object.keys(expectError(await t.app.put(`${LISTS}/${list.id}`, { valid_to: '2026-12-09' }, { token }), 400, 'VALIDATION_ERROR'))).toEqual([
        'valid_to',
      ])
      expect(Object.keys(expectError(await t.app.put(`${LISTS}/${list.id}`, {}, { token }), 400, 'VALIDATION_ERROR'))).toEqual(['body'])
      expect({ lists: await t.app.rows('price_lists'), items: await t.app.count('price_list_items') }).toEqual(stored)
      expect(stored.lists.length).toBe(before.lists.length + 1)
    })

    test('2000 items (the limit) are accepted; a PUT of the same 2000 rewrites none of them, one of new prices updates them in place', async () => {
      const ws = await t.app.workspace()
      const token = ws.owner.token
      const c = await catalogue(t.app, ws)
      const items = Array.from({ length: 2_000 }, (_, i) => ({ product_id: i % 2 ? c.soap : c.rice, price: 10_000 - i, min_qty: i + 1 }))
      const list = data(await t.app.post(LISTS, { name: unique('Big'), items }, { token }))
      expect(list.items).toHaveLength(2_000)
      const ids = await t.app.db.pragma(`SELECT id FROM price_list_items WHERE price_list_id = ${list.id} ORDER BY id`)
      data(await t.app.put(`${LISTS}/${list.id}`, { items: [...items].reverse() }, { token }), 200)
      expect(await t.app.db.pragma(`SELECT id FROM price_list_items WHERE price_list_id = ${list.id} ORDER BY id`)).toEqual(ids)
      const repriced = items.map((item, i) => (i % 3 === 0 ? { ...item, price: item.price + 1 } : item))
      const after = data(await t.app.put(`${LISTS}/${list.id}`, { items: repriced }, { token }), 200)
      expect(after.items).toEqual(
        repriced.map(({ product_id, price, min_qty }) => ({ product_id, price, min_qty })).sort((a, b) => a.product_id - b.product_id || a.min_qty - b.min_qty),
      )
      expect(await t.app.db.pragma(`SELECT id FROM price_list_items WHERE price_list_id = ${list.id} ORDER BY id`)).toEqual(ids)
    })

    test('30 concurrent identical POSTs with one X-Idempotency-Key create one list (one 201; the rest 204 replays or 409 in progress)', async () => {
      const ws = await t.app.workspace()
      const token = ws.owner.token
      const c = await catalogue(t.app, ws)
      const name = unique('Once')
      const body = { name, items: [{ product_id: c.soap, price: 900 }] }
      const key = unique('key')
      const replies = await Promise.all(Array.from({ length: 30 }, () => t.app.post(LISTS, body, { token, idempotencyKey: key })))
      const statuses = replies.map((reply) => reply.status)
      expect(statuses.filter((status) => status === 201)).toHaveLength(1)
      expect(statuses.every((status) => [201, 204, 409].includes(status))).toBe(true)
      expect(await t.app.count('price_lists', `name = '${name}'`)).toBe(1)
      expect(await t.app.count('audit_logs', `entity_type = 'price_list' AND entity_name = '${name}'`)).toBe(1)
      // Afterwards the key replays: 204 with the list's path, nothing written.
      const replay = await t.app.post(LISTS, body, { token, idempotencyKey: key })
      expect(replay.status).toBe(204)
      const created = replies.find((reply) => reply.status === 201)!.body.data
      expect(replay.headers.get('location')).toBe(`/api/office/v1/price-lists/${created.id}`)
    })
  })
}

describe('audit entries: created, updated and deleted with the exact values, items included', () => {
  const t = useTestApp()
  test('each mutation writes one entry in its transaction', async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const c = await catalogue(t.app, ws)
    const list = data(await t.app.post(LISTS, { name: 'Audited', items: [{ product_id: c.soap, price: 900 }] }, { token }))
    const after = data(await t.app.put(`${LISTS}/${list.id}`, { items: [{ product_id: c.soap, price: 850 }] }, { token }), 200)
    const gone = data(await t.app.delete(`${LISTS}/${list.id}`, { token }), 200)
    const entries = (await t.app.get(`/office/v1/audit-logs?entity_type=price_list&sort_order=asc&limit=10`, { token })).body.data.data
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual(['created', 'updated', 'deleted'])
    expect(entries[0]).toMatchObject({ entity_id: String(list.id), entity_name: 'Audited', old_values: null, new_values: list })
    expect(entries[1].old_values).toMatchObject({ items: [{ product_id: c.soap, price: 900, min_qty: 1 }] })
    expect(entries[1].new_values).toMatchObject({ items: [{ product_id: c.soap, price: 850, min_qty: 1 }] })
    expect(Object.keys(entries[1].new_values)).toEqual(['items'])
    expect(entries[2]).toMatchObject({ old_values: after, new_values: null })
    expect(gone.items).toEqual(after.items)
  })
})

describe('who may do what; another workspace is another world', () => {
  const t = useTestApp()
  test('a manager views but does not manage; a field user has no office access; another workspace’s list is a 404 and unchanged', async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const c = await catalogue(t.app, ws)
    const list = data(await t.app.post(LISTS, { name: 'Mine', items: [{ product_id: c.soap, price: 900 }] }, { token }))
    const manager = await t.app.member(ws, 'manager')
    expect((await t.app.get(`${LISTS}/${list.id}`, { token: manager.token })).status).toBe(200)
    expectError(await t.app.post(LISTS, { name: 'No', items: [] }, { token: manager.token }), 403, 'FORBIDDEN')
    const field = await t.app.member(ws, 'user')
    expectError(await t.app.get(LISTS, { token: field.token }), 403, 'FORBIDDEN')

    const other = await t.app.workspace()
    const before = await t.app.rows('price_lists')
    expectError(await t.app.get(`${LISTS}/${list.id}`, { token: other.owner.token }), 404, 'PRICE_LIST_NOT_FOUND')
    expectError(await t.app.put(`${LISTS}/${list.id}`, { name: 'Hijacked' }, { token: other.owner.token }), 404, 'PRICE_LIST_NOT_FOUND')
    expectError(await t.app.delete(`${LISTS}/${list.id}`, { token: other.owner.token }), 404, 'PRICE_LIST_NOT_FOUND')
    expect((await t.app.get(LISTS, { token: other.owner.token })).body.data).toEqual([])
    expect(await t.app.rows('price_lists')).toEqual(before)
  })
})

describe('the phone receives price lists by sync, and their deletion as a tombstone', () => {
  const t = useTestApp()
  /** Follows the phone's sync from `cursor` to the end; the changes of price lists, and the last cursor. */
  async function syncPriceLists(field: Session, cursor?: string) {
    const changes: { entity: string; id: number; op: string; data?: Record<string, unknown> }[] = []
    let next = cursor
    for (;;) {
      const reply = await t.app.get(`/app/v1/sync${next ? `?cursor=${next}` : ''}`, { token: field.token })
      expect(reply.status).toBe(200)
      changes.push(...reply.body.data.changes.filter((change: { entity: string }) => change.entity === 'price_list'))
      next = reply.body.data.cursor
      if (!reply.body.data.has_more) return { changes, cursor: next }
    }
  }

  test('upserts carry the detail; an item written by SQL refreshes its list; a delete is a tombstone; the office feed has them too', async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const c = await catalogue(t.app, ws)
    const field = await t.app.member(ws, 'user')
    const list = data(await t.app.post(LISTS, { name: 'Phone', items: [{ product_id: c.soap, price: 900 }] }, { token }))
    const first = await syncPriceLists(field)
    expect(first.changes).toEqual([{ entity: 'price_list', id: list.id, op: 'upsert', data: list }])

    const updated = data(await t.app.put(`${LISTS}/${list.id}`, { items: [{ product_id: c.rice, price: 1_900, min_qty: 6 }] }, { token }), 200)
    const second = await syncPriceLists(field, first.cursor)
    expect(second.changes).toEqual([{ entity: 'price_list', id: list.id, op: 'upsert', data: updated }])

    // Any writer of items changes the list (the change-log trigger of price_list_items).
    await t.app.db.transaction(async (tx) => {
      await tx.run(sql.raw(`INSERT INTO price_list_items (price_list_id, product_id, price, min_qty) VALUES (${list.id}, ${c.soap}, 700, 1)`))
    })
    const third = await syncPriceLists(field, second.cursor)
    expect(third.changes.map((change) => [change.id, change.op, (change.data?.items as unknown[] | undefined)?.length])).toEqual([[list.id, 'upsert', 2]])

    // The office feed (integrations) carries them too; followed to its end before the delete.
    const office = async (cursor?: string) => (await t.app.get(`/office/v1/changes?entity=price_list${cursor ? `&cursor=${cursor}` : ''}`, { token })).body.data
    const before = await office()
    expect(before.changes.map((change: { id: number; op: string }) => [change.id, change.op])).toEqual([[list.id, 'upsert']])

    data(await t.app.delete(`${LISTS}/${list.id}`, { token }), 200)
    const fourth = await syncPriceLists(field, third.cursor)
    expect(fourth.changes).toEqual([{ entity: 'price_list', id: list.id, op: 'delete' }])
    expect((await office(before.cursor)).changes).toEqual([{ entity: 'price_list', id: list.id, op: 'delete' }])
    // A phone of another workspace never sees them.
    const stranger = await t.app.member(await t.app.workspace(), 'user')
    expect((await syncPriceLists(stranger)).changes).toEqual([])
  })
})

describe('GET /app/v1/outlets/:id/prices: account > channel > default > product price, tiers, the local day', () => {
  // Just after midnight in a UTC+14 workspace: its "today" is 2026-11-26 while UTC is still on the 25th.
  const clock = new ManualClock('2026-11-25T10:30:00.000Z')
  const t = useTestApp({ clock })

  test('per product, the tiers of the list that wins for it on the local day; products without a price are left out', async () => {
    const ws = await t.app.workspace(unique('Kiritimati'), { timezone: 'Pacific/Kiritimati' })
    const token = ws.owner.token
    const channel = (await newChannel(t.app, token)).id
    const account = (await newAccount(t.app, token, { channel_id: channel })).id
    const sister = (await newAccount(t.app, token, { channel_id: channel })).id
    const product = async (name: string, price: number | null) =>
      (await newProduct(t.app, token, { name, price, unit: 'pcs' })) as { id: number; sku: string; name: string }
    const p1 = await product('A Soap', 1_000)
    const p2 = await product('B Rice', 2_000)
    const p3 = await product('C Oil', 3_000)
    const p4 = await product('D Salt', null)
    const p5 = await product('E Nothing', null)
    const list = async (body: Record<string, unknown>) => data(await t.app.post(LISTS, { name: unique('List'), ...body }, { token }))
    await list({
      items: [
        { product_id: p1.id, price: 900 },
        { product_id: p2.id, price: 1_900 },
        { product_id: p4.id, price: 500 },
      ],
    })
    await list({ valid_from: '2026-11-27', items: [{ product_id: p1.id, price: 850 }] })
    await list({
      channel_id: channel,
      valid_from: '2026-11-26',
      valid_to: '2026-11-30',
      items: [
        { product_id: p1.id, price: 700, min_qty: 10 },
        { product_id: p1.id, price: 800 },
      ],
    })
    await list({ account_id: account, items: [{ product_id: p2.id, price: 1_500 }] })
    // A deleted account list does not apply.
    const gone = await list({ account_id: account, valid_from: '2026-11-01', items: [{ product_id: p3.id, price: 1 }] })
    data(await t.app.delete(`${LISTS}/${gone.id}`, { token }), 200)

    const outlet = (await newOutlet(t.app, token, { account_id: account })).id
    const chained = (await newOutlet(t.app, token, { account_id: sister })).id
    const plain = (await newOutlet(t.app, token)).id
    const field = await t.app.member(ws, 'user')
    const sheet = async (outletId: number, date?: string) => {
      const reply = await t.app.get(`/app/v1/outlets/${outletId}/prices${date ? `?date=${date}` : ''}`, { token: field.token })
      expect(reply.status).toBe(200)
      return Object.fromEntries(reply.body.data.map((row: { product_id: number; tiers: unknown }) => [row.product_id, row.tiers]))
    }
    const one = (price: number) => [{ min_qty: 1, price }]

    // Today (local 2026-11-26): the channel list has begun; the account list speaks for p2 only.
    const today = await t.app.get(`/app/v1/outlets/${outlet}/prices`, { token: field.token })
    expect(today.body.code).toBe('SUCCESS')
    expect(today.body.data[0]).toEqual({
      product_id: p1.id,
      sku: p1.sku,
      name: 'A Soap',
      unit: 'pcs',
      tiers: [
        { min_qty: 1, price: 800 },
        { min_qty: 10, price: 700 },
      ],
    })
    expect(today.body.data.map((row: { name: string }) => row.name)).toEqual(['A Soap', 'B Rice', 'C Oil', 'D Salt'])
    expect(await sheet(outlet)).toEqual({
      [p1.id]: [
        { min_qty: 1, price: 800 },
        { min_qty: 10, price: 700 },
      ],
      [p2.id]: one(1_500),
      [p3.id]: one(3_000),
      [p4.id]: one(500),
    })
    expect(await sheet(outlet, '2026-11-26')).toEqual(await sheet(outlet))
    // The UTC date (the 25th) is before the channel list: the default list prices p1.
    expect((await sheet(outlet, '2026-11-25'))[p1.id]).toEqual(one(900))
    // An outlet of another account in the same channel: the channel list, not the account's.
    expect(await sheet(chained)).toMatchObject({
      [p1.id]: [
        { min_qty: 1, price: 800 },
        { min_qty: 10, price: 700 },
      ],
      [p2.id]: one(1_900),
    })
    // No account: the default list; on the 27th the later default list wins and speaks alone for its level.
    expect(await sheet(plain)).toEqual({ [p1.id]: one(900), [p2.id]: one(1_900), [p3.id]: one(3_000), [p4.id]: one(500) })
    expect(await sheet(plain, '2026-11-27')).toEqual({ [p1.id]: one(850), [p2.id]: one(2_000), [p3.id]: one(3_000) })
    expect(Object.keys(await sheet(plain))).not.toContain(String(p5.id))

    // Bad input and other workspaces.
    expect(
      Object.keys(expectError(await t.app.get(`/app/v1/outlets/${outlet}/prices?date=2026-02-30`, { token: field.token }), 400, 'VALIDATION_ERROR')),
    ).toEqual(['date'])
    const stranger = await t.app.member(await t.app.workspace(), 'user')
    expectError(await t.app.get(`/app/v1/outlets/${outlet}/prices`, { token: stranger.token }), 404, 'OUTLET_NOT_FOUND')
    data(await t.app.delete(`/office/v1/outlets/${plain}`, { token }), 200)
    expectError(await t.app.get(`/app/v1/outlets/${plain}/prices`, { token: field.token }), 404, 'OUTLET_NOT_FOUND')
  })
})

describe('over a real socket', () => {
  const t = useTestApp()
  const socket = useRealSocket(t)
  test('create a list and read the price sheet over HTTP', async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const c = await catalogue(t.app, ws)
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const posted = await fetch(`${socket.base}${LISTS}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Socket', items: [{ product_id: c.soap, price: 950 }] }),
    })
    expect(posted.status).toBe(201)
    const outlet = (await newOutlet(t.app, token)).id
    const field = await t.app.member(ws, 'user')
    const sheet = await fetch(`${socket.base}/app/v1/outlets/${outlet}/prices`, { headers: { authorization: `Bearer ${field.token}` } })
    expect(sheet.status).toBe(200)
    const body = (await sheet.json()) as { data: { product_id: number; tiers: unknown }[] }
    expect(Object.fromEntries(body.data.map((row) => [row.product_id, row.tiers]))).toEqual({
      [c.soap]: [{ min_qty: 1, price: 950 }],
      [c.rice]: [{ min_qty: 1, price: 2_000 }],
    })
  })
})
