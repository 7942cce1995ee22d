/**
 * The retail-execution figures (src/modules/reports/retail-execution.ts): checked against numbers worked out by
 * hand from the rows below, including the latest-audit rule, half-up rounding and signed deviations.
 */
import { describe, expect, test } from 'bun:test'
import { type AuditedRow, latestRows, ratio, retailFigures } from '../src/modules/reports/retail-execution'

let submission = 0
const row = (outlet_id: number, product_id: number, submitted_at: string, cells: Record<string, unknown>): AuditedRow => ({
  outlet_id,
  product_id,
  submission_id: ++submission,
  submitted_at,
  cells,
})

describe('retail-execution figures', () => {
  test('per product: audited outlets, availability, out of stock, facings, shelf price and deviation, by hand', () => {
    const rows = [
      // Product 1 at four outlets.
      row(1, 1, '2026-11-20T02:00:00.000Z', { available: true, facings: 4, shelf_price: 3_100 }),
      row(2, 1, '2026-11-20T03:00:00.000Z', { available: true, facings: 3, shelf_price: 3_300 }),
      row(3, 1, '2026-11-20T04:00:00.000Z', { available: false, facings: 0 }),
      row(4, 1, '2026-11-20T05:00:00.000Z', { facings: 2 }),
      // Product 2 at one outlet, cheaper than its list price.
      row(1, 2, '2026-11-20T02:00:00.000Z', { available: true, facings: 1, shelf_price: 9_000 }),
    ]
    const [p1, p2, p3] = retailFigures(rows, [
      { id: 1, price: 3_000 },
      { id: 2, price: 10_000 },
      { id: 3, price: null },
    ])
    // Product 1: 4 audited; available answered at 3 (2 true, 1 false) → 66.7 %; facings (4+3+0+2)/4 = 2.25 → 2.3;
    // shelf (3100+3300)/2 = 3200; deviation (3200 − 3000)/3000 = 6.666…% → 6.7.
    expect(p1).toEqual({
      product_id: 1,
      outlets_audited: 4,
      availability_pct: 66.7,
      out_of_stock_outlets: 1,
      avg_facings: 2.3,
      avg_shelf_price: 3_200,
      list_price: 3_000,
      price_deviation_pct: 6.7,
    })
    // Product 2: (9000 − 10000)/10000 = −10 %.
    expect(p2).toMatchObject({
      outlets_audited: 1,
      availability_pct: 100,
      out_of_stock_outlets: 0,
      avg_facings: 1,
      avg_shelf_price: 9_000,
      price_deviation_pct: -10,
    })
    // Product 3: never audited.
    expect(p3).toEqual({
      product_id: 3,
      outlets_audited: 0,
      availability_pct: null,
      out_of_stock_outlets: 0,
      avg_facings: null,
      avg_shelf_price: null,
      list_price: null,
      price_deviation_pct: null,
    })
  })

  test('the latest completed audit of an outlet and product counts; a tie of times goes to the later submission', () => {
    const older = row(1, 1, '2026-11-20T02:00:00.000Z', { available: false })
    const newer = row(1, 1, '2026-11-21T02:00:00.000Z', { available: true, shelf_price: 1_000 })
    const sameTimeFirst = row(2, 1, '2026-11-21T02:00:00.000Z', { available: false })
    const sameTimeSecond = row(2, 1, '2026-11-21T02:00:00.000Z', { available: true })
    expect(latestRows([newer, older, sameTimeSecond, sameTimeFirst])).toEqual([newer, sameTimeSecond])
    const [figures] = retailFigures([newer, older, sameTimeSecond, sameTimeFirst], [{ id: 1, price: 1_000 }])
    expect(figures).toMatchObject({ outlets_audited: 2, availability_pct: 100, out_of_stock_outlets: 0, price_deviation_pct: 0 })
  })

  test('rounding is half up (away from zero when negative), in integers', () => {
    expect(ratio(1n, 8n, 1000n)).toBe(125) // 12.5 %
    expect(ratio(2n, 3n, 1000n)).toBe(667) // 66.666… → 66.7
    expect(ratio(1n, 3n, 1000n)).toBe(333)
    expect(ratio(5n, 2n, 1n)).toBe(3) // 2.5 → 3
    expect(ratio(-5n, 2n, 1n)).toBe(-3) // −2.5 → −3
    expect(ratio(-1n, 3n, 1000n)).toBe(-333)
    // A shelf price mean of 3,100 and 3,101 is 3,100.5 → 3,101.
    const [figures] = retailFigures(
      [row(1, 9, '2026-11-20T02:00:00.000Z', { shelf_price: 3_100 }), row(2, 9, '2026-11-20T02:00:00.000Z', { shelf_price: 3_101 })],
      [{ id: 9, price: 0 }],
    )
    expect(figures).toMatchObject({ avg_shelf_price: 3_101, price_deviation_pct: null, availability_pct: null })
  })
})
