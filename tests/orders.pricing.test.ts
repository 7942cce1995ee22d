/**
 * Price resolution of sales orders (src/modules/orders/pricing.ts; docs/API.md §Orders): account list, then
 * channel list, then default list, then the product's price, per product; validity by inclusive local dates;
 * the later start wins within a level; tier prices by quantity. Each rule has a case that fails if it breaks.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { type PriceList, type PricedOutlet, resolvePrice, tierFor, tiersFor, winningLists } from '../src/modules/orders'

const DAY = '2026-11-25'
const OUTLET: PricedOutlet = { account_id: 10, channel_id: 20 }
const PRODUCT = { id: 1, price: 1_000 }
const OTHER = { id: 2, price: 2_000 }

let nextId = 100
function list(overrides: Partial<PriceList> & { items?: PriceList['items'] } = {}): PriceList {
  return { id: nextId++, account_id: null, channel_id: null, valid_from: null, valid_to: null, items: [{ product_id: PRODUCT.id, price: 900 }], ...overrides }
}
const accountList = (o: Partial<PriceList> = {}) => list({ account_id: OUTLET.account_id, ...o })
const channelList = (o: Partial<PriceList> = {}) => list({ channel_id: OUTLET.channel_id, ...o })
const defaultList = (o: Partial<PriceList> = {}) => list(o)
const priceOf = (lists: PriceList[], quantity = 1, outlet = OUTLET, product = PRODUCT, day = DAY) =>
  resolvePrice(outlet, day, lists, product, quantity)?.price ?? null

describe('levels: account, else channel, else default, else the product price', () => {
  const account = accountList({ items: [{ product_id: 1, price: 700 }] })
  const channel = channelList({ items: [{ product_id: 1, price: 800 }] })
  const fallback = defaultList({ items: [{ product_id: 1, price: 900 }] })

  test("the outlet's account list wins over channel and default, whatever the order given", () => {
    expect(priceOf([fallback, channel, account])).toBe(700)
    expect(priceOf([account, channel, fallback])).toBe(700)
    expect(resolvePrice(OUTLET, DAY, [fallback, channel, account], PRODUCT, 1)).toEqual({ price: 700, level: 'account', price_list_id: account.id, min_qty: 1 })
  })

  test("without an account list, the channel list of the account's channel wins over default", () => {
    expect(priceOf([fallback, channel])).toBe(800)
  })

  test('without account and channel lists, the default list applies', () => {
    expect(priceOf([fallback])).toBe(900)
  })

  test("without any list, the product's own price applies", () => {
    expect(resolvePrice(OUTLET, DAY, [], PRODUCT, 1)).toEqual({ price: 1_000, level: 'product', price_list_id: null, min_qty: 1 })
  })

  test("another account's or another channel's list never applies", () => {
    const otherAccount = list({ account_id: 11, items: [{ product_id: 1, price: 1 }] })
    const otherChannel = list({ channel_id: 21, items: [{ product_id: 1, price: 2 }] })
    expect(priceOf([otherAccount, otherChannel, fallback])).toBe(900)
    expect(priceOf([otherAccount, otherChannel])).toBe(1_000)
  })

  test('an outlet without an account gets the default list (account and channel lists never match a missing id)', () => {
    const noAccount = { account_id: null, channel_id: null }
    expect(priceOf([account, channel, fallback], 1, noAccount)).toBe(900)
    expect(priceOf([account, channel], 1, noAccount)).toBe(1_000)
  })

  test('a product with no list item and no price of its own has no price', () => {
    expect(resolvePrice(OUTLET, DAY, [fallback], { id: 3, price: null }, 1)).toBeNull()
    expect(resolvePrice(OUTLET, DAY, [], { id: 3, price: 12.5 }, 1)).toBeNull()
  })
})

describe('resolution is per product: a list lacking the product passes it on', () => {
  test('account list without the product → channel list', () => {
    const account = accountList({ items: [{ product_id: OTHER.id, price: 1 }] })
    expect(priceOf([account, channelList({ items: [{ product_id: 1, price: 800 }] }), defaultList()])).toBe(800)
  })

  test('account and channel lists without the product → default list', () => {
    const other = [{ product_id: OTHER.id, price: 1 }]
    expect(priceOf([accountList({ items: other }), channelList({ items: other }), defaultList({ items: [{ product_id: 1, price: 900 }] })])).toBe(900)
  })

  test("no list with the product → the product's price, while the same lists still price the other product", () => {
    const lists = [accountList({ items: [{ product_id: OTHER.id, price: 5 }] }), defaultList({ items: [{ product_id: OTHER.id, price: 6 }] })]
    expect(priceOf(lists)).toBe(1_000)
    expect(priceOf(lists, 1, OUTLET, OTHER)).toBe(5)
  })

  test('the winner of a level that lacks the product passes it to the next level, not to the runner-up of its level', () => {
    const older = accountList({ valid_from: '2026-01-01', items: [{ product_id: 1, price: 600 }] })
    const newer = accountList({ valid_from: '2026-11-01', items: [{ product_id: OTHER.id, price: 5 }] })
    expect(priceOf([older, newer, channelList({ items: [{ product_id: 1, price: 800 }] })])).toBe(800)
  })
})

describe('validity: inclusive local dates, open when missing', () => {
  test('valid on its first and last day, not the day before or after', () => {
    const window = defaultList({ valid_from: '2026-11-25', valid_to: '2026-11-30', items: [{ product_id: 1, price: 900 }] })
    expect(priceOf([window], 1, OUTLET, PRODUCT, '2026-11-24')).toBe(1_000)
    expect(priceOf([window], 1, OUTLET, PRODUCT, '2026-11-25')).toBe(900)
    expect(priceOf([window], 1, OUTLET, PRODUCT, '2026-11-30')).toBe(900)
    expect(priceOf([window], 1, OUTLET, PRODUCT, '2026-12-01')).toBe(1_000)
  })

  test('a missing start or end is open', () => {
    expect(priceOf([defaultList({ valid_to: '2026-11-25' })], 1, OUTLET, PRODUCT, '2000-01-01')).toBe(900)
    expect(priceOf([defaultList({ valid_from: '2026-11-25' })], 1, OUTLET, PRODUCT, '2099-12-31')).toBe(900)
  })

  test('an expired account list gives way to a valid channel list', () => {
    const expired = accountList({ valid_to: '2026-11-24', items: [{ product_id: 1, price: 700 }] })
    expect(priceOf([expired, channelList({ items: [{ product_id: 1, price: 800 }] })])).toBe(800)
  })

  test('a deleted list never applies', () => {
    expect(priceOf([accountList({ deleted_at: '2026-11-01T00:00:00.000Z', items: [{ product_id: 1, price: 700 }] })])).toBe(1_000)
  })
})

describe('two valid lists at the same level: the later valid_from wins, then the higher id', () => {
  test('the later start wins even with the lower id', () => {
    const later = accountList({ id: 1, valid_from: '2026-11-20', items: [{ product_id: 1, price: 750 }] })
    const earlier = accountList({ id: 2, valid_from: '2026-11-01', items: [{ product_id: 1, price: 700 }] })
    expect(priceOf([earlier, later])).toBe(750)
    expect(priceOf([later, earlier])).toBe(750)
  })

  test('a dated start beats an open start', () => {
    const open = defaultList({ id: 9, valid_from: null, items: [{ product_id: 1, price: 900 }] })
    const dated = defaultList({ id: 8, valid_from: '2026-01-01', items: [{ product_id: 1, price: 950 }] })
    expect(priceOf([open, dated])).toBe(950)
  })

  test('the same start: the higher id wins', () => {
    const low = channelList({ id: 3, valid_from: '2026-11-01', items: [{ product_id: 1, price: 810 }] })
    const high = channelList({ id: 4, valid_from: '2026-11-01', items: [{ product_id: 1, price: 820 }] })
    expect(priceOf([high, low])).toBe(820)
    expect(priceOf([low, high])).toBe(820)
    expect(winningLists(OUTLET, DAY, [low, high]).map((l) => l.id)).toEqual([4])
  })

  test('a later list not yet valid does not win', () => {
    const current = accountList({ valid_from: '2026-11-01', items: [{ product_id: 1, price: 700 }] })
    const future = accountList({ valid_from: '2026-12-01', items: [{ product_id: 1, price: 1 }] })
    expect(priceOf([current, future])).toBe(700)
  })
})

describe('tiers: the highest min_qty not above the quantity', () => {
  const tiered = defaultList({
    items: [
      { product_id: 1, price: 850, min_qty: 12 },
      { product_id: 1, price: 900, min_qty: 6 },
      { product_id: 1, price: 800, min_qty: 48 },
    ],
  })

  test('each quantity takes the tier it reaches, boundaries included', () => {
    expect(priceOf([tiered], 6)).toBe(900)
    expect(priceOf([tiered], 11)).toBe(900)
    expect(priceOf([tiered], 12)).toBe(850)
    expect(priceOf([tiered], 47)).toBe(850)
    expect(priceOf([tiered], 48)).toBe(800)
    expect(priceOf([tiered], 10_000)).toBe(800)
    expect(resolvePrice(OUTLET, DAY, [tiered], PRODUCT, 20)).toEqual({ price: 850, level: 'default', price_list_id: tiered.id, min_qty: 12 })
  })

  test("a quantity below every tier takes the lowest tier's price (not the product's own price)", () => {
    expect(priceOf([tiered], 1)).toBe(900)
    expect(priceOf([tiered], 5)).toBe(900)
  })

  test('an item without min_qty is the tier from 1', () => {
    const withBase = defaultList({
      items: [
        { product_id: 1, price: 990 },
        { product_id: 1, price: 950, min_qty: 10 },
      ],
    })
    expect(priceOf([withBase], 1)).toBe(990)
    expect(priceOf([withBase], 9)).toBe(990)
    expect(priceOf([withBase], 10)).toBe(950)
  })

  test('tierFor on tiers given lowest first', () => {
    const tiers = [
      { min_qty: 3, price: 30 },
      { min_qty: 5, price: 20 },
    ]
    expect([1, 3, 4, 5, 9].map((q) => tierFor(tiers, q).price)).toEqual([30, 30, 30, 20, 20])
  })
})

describe("the phone's price sheet (tiersFor)", () => {
  test("per product: the winning list's tiers lowest first, else the product's price as one tier, else none", () => {
    const account = accountList({
      items: [
        { product_id: 1, price: 650, min_qty: 24 },
        { product_id: 1, price: 700 },
      ],
    })
    const fallback = defaultList({
      items: [
        { product_id: 2, price: 1_900 },
        { product_id: 1, price: 1 },
      ],
    })
    const sheet = tiersFor(OUTLET, DAY, [fallback, account], [PRODUCT, OTHER, { id: 3, price: 3_000 }, { id: 4, price: null }])
    expect(sheet).toEqual([
      {
        product_id: 1,
        tiers: [
          { min_qty: 1, price: 700 },
          { min_qty: 24, price: 650 },
        ],
      },
      { product_id: 2, tiers: [{ min_qty: 1, price: 1_900 }] },
      { product_id: 3, tiers: [{ min_qty: 1, price: 3_000 }] },
      { product_id: 4, tiers: [] },
    ])
  })

  test('the sheet of another day follows that day’s lists', () => {
    const december = defaultList({ valid_from: '2026-12-01', items: [{ product_id: 1, price: 500 }] })
    expect(tiersFor(OUTLET, '2026-11-30', [december], [PRODUCT])).toEqual([{ product_id: 1, tiers: [{ min_qty: 1, price: 1_000 }] }])
    expect(tiersFor(OUTLET, '2026-12-01', [december], [PRODUCT])).toEqual([{ product_id: 1, tiers: [{ min_qty: 1, price: 500 }] }])
  })

  test('property: the price the phone reads off its sheet is the price the order charges', () => {
    const day = fc.constantFrom('2026-11-01', '2026-11-15', '2026-11-30')
    const maybeDay = fc.option(day, { nil: null })
    const item = fc.record({
      product_id: fc.integer({ min: 1, max: 4 }),
      price: fc.integer({ min: 0, max: 100_000 }),
      min_qty: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    })
    const priceList = fc.record({
      id: fc.integer({ min: 1, max: 1_000 }),
      account_id: fc.constantFrom(null, 10, 11),
      channel_id: fc.constantFrom(null, 20, 21),
      valid_from: maybeDay,
      valid_to: maybeDay,
      items: fc.uniqueArray(item, { maxLength: 8, selector: (i) => `${i.product_id}:${i.min_qty ?? 1}` }),
    })
    const products = [1, 2, 3, 4].map((id) => ({ id, price: id === 4 ? null : id * 1_000 }))
    fc.assert(
      fc.property(fc.array(priceList, { maxLength: 6 }), day, fc.integer({ min: 1, max: 60 }), (lists, on, quantity) => {
        const sheet = tiersFor(OUTLET, on, lists, products)
        for (const product of products) {
          const tiers = sheet.find((row) => row.product_id === product.id)?.tiers ?? []
          const resolved = resolvePrice(OUTLET, on, lists, product, quantity)
          expect(resolved?.price ?? null).toBe(tiers.length ? tierFor(tiers, quantity).price : null)
        }
      }),
      { numRuns: 500, seed: 20261125 },
    )
  })
})
