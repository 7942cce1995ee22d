/**
 * Exact money of sales orders (src/modules/orders/money.ts; docs/API.md §Orders): integer amounts, discounts
 * as integer hundredths of a percent, half-up rounding, and a refusal of amounts past 2^53 − 1.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AMOUNT_TOO_LARGE, basisPointsToPct, discountBasisPoints, lineTotal, orderTotals } from '../src/modules/orders'

/** The reference: exact rational arithmetic with an explicit remainder test, independent of the code's trick. */
function referenceLineTotal(quantity: bigint, unitPrice: bigint, bp: bigint): bigint {
  const numerator = quantity * unitPrice * (10_000n - bp)
  const quotient = numerator / 10_000n
  const remainder = numerator % 10_000n
  return remainder * 2n >= 10_000n ? quotient + 1n : quotient
}

describe('discounts are exact hundredths of a percent', () => {
  test('numbers and decimal text with up to 2 decimals become basis points', () => {
    expect(discountBasisPoints(12.5)).toBe(1250)
    expect(discountBasisPoints('12.5')).toBe(1250)
    expect(discountBasisPoints('12.50')).toBe(1250)
    expect(discountBasisPoints(0.29)).toBe(29) // 0.29 × 100 is 28.999999999999996 as a float
    expect(discountBasisPoints(33.33)).toBe(3333)
    expect(discountBasisPoints(0)).toBe(0)
    expect(discountBasisPoints(100)).toBe(10_000)
    expect(discountBasisPoints(undefined)).toBe(0)
    expect(discountBasisPoints(null)).toBe(0)
  })

  test('three decimals, negatives, above 100 and non-numbers are refused', () => {
    for (const bad of [12.345, '12.345', 0.001, -1, '-1', 100.01, '100.01', 101, Number.NaN, Number.POSITIVE_INFINITY, '', '1e1', ' 5', '5.', '.5']) {
      expect(discountBasisPoints(bad)).toBeNull()
    }
    expect(() => lineTotal(1, 1000, 12.345)).toThrow(RangeError)
  })

  test('basis points read back as the percentage given', () => {
    expect(basisPointsToPct(1250)).toBe(12.5)
    expect(basisPointsToPct(5)).toBe(0.05)
    expect(basisPointsToPct(10_000)).toBe(100)
    expect(basisPointsToPct(0)).toBe(0)
  })

  test('every 2-decimal percentage round-trips through its number and its text', () => {
    for (let bp = 0; bp <= 10_000; bp++) {
      const pct = basisPointsToPct(bp)
      expect(discountBasisPoints(pct)).toBe(bp)
      expect(discountBasisPoints(String(pct))).toBe(bp)
    }
  })
})

describe('line totals are exact and round half up', () => {
  test('1,000,000 × Rp 9,999,999 at 12.5 % is exact (the float product is past 2^53)', () => {
    const expected = (1_000_000n * 9_999_999n * (10_000n - 1250n) + 5_000n) / 10_000n
    expect(expected).toBe(8_749_999_125_000n)
    expect(lineTotal(1_000_000, 9_999_999, 12.5)).toBe(Number(expected))
    expect(lineTotal(1_000_000, 9_999_999, '12.5')).toBe(8_749_999_125_000)
  })

  test('exactly .5 rounds up, just below .5 rounds down', () => {
    // 1 × 1 × 50 % = 0.5 → 1; 3 × 1 × 50 % = 1.5 → 2; 1 × 5 × 90 % = 0.5 → 1
    expect(lineTotal(1, 1, 50)).toBe(1)
    expect(lineTotal(3, 1, 50)).toBe(2)
    expect(lineTotal(1, 5, 90)).toBe(1)
    // 1 × 10001 × 0.01 % off = 10001 × 9999 / 10000 = 9999.9999 → 10000
    expect(lineTotal(1, 10_001, 0.01)).toBe(10_000)
    // 1 × 149 × 1 % off = 147.51 → 148; 1 × 150 × 1 % off = 148.5 → 149; 1 × 151 × 1 % off = 149.49 → 149
    expect(lineTotal(1, 149, 1)).toBe(148)
    expect(lineTotal(1, 150, 1)).toBe(149)
    expect(lineTotal(1, 151, 1)).toBe(149)
  })

  test('0 % is quantity × price, 100 % is nothing', () => {
    expect(lineTotal(7, 12_345, 0)).toBe(86_415)
    expect(lineTotal(7, 12_345)).toBe(86_415)
    expect(lineTotal(7, 12_345, 100)).toBe(0)
  })

  test('a quantity below 1, a fractional quantity or a negative or fractional price is refused', () => {
    expect(() => lineTotal(0, 100)).toThrow(RangeError)
    expect(() => lineTotal(1.5, 100)).toThrow(RangeError)
    expect(() => lineTotal(1, -1)).toThrow(RangeError)
    expect(() => lineTotal(1, 0.5)).toThrow(RangeError)
  })

  test('a line whose quantity × price is past 2^53 − 1 is refused', () => {
    expect(() => lineTotal(Number.MAX_SAFE_INTEGER, 2)).toThrow(RangeError)
    expect(lineTotal(Number.MAX_SAFE_INTEGER, 1)).toBe(Number.MAX_SAFE_INTEGER)
  })

  test('property: equals the BigInt reference for any quantity, price and 2-decimal discount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 900_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (quantity, unitPrice, bp) => {
          fc.pre(BigInt(quantity) * BigInt(unitPrice) <= BigInt(Number.MAX_SAFE_INTEGER))
          const expected = referenceLineTotal(BigInt(quantity), BigInt(unitPrice), BigInt(bp))
          expect(lineTotal(quantity, unitPrice, basisPointsToPct(bp))).toBe(Number(expected))
          expect(lineTotal(quantity, unitPrice, String(basisPointsToPct(bp)))).toBe(Number(expected))
        },
      ),
      { numRuns: 2000, seed: 20261125 },
    )
  })
})

describe('order totals', () => {
  test('subtotal is Σ quantity × price, total Σ line totals, discount the difference', () => {
    const result = orderTotals([
      { quantity: 3, unit_price: 10_000, discount_bp: 0 },
      { quantity: 2, unit_price: 15_000, discount_bp: 1250 },
      { quantity: 1, unit_price: 150, discount_bp: 100 },
    ])
    expect(result).toEqual({ ok: true, line_totals: [30_000, 26_250, 149], subtotal: 60_150, total: 56_399, discount_total: 3_751 })
  })

  test('an order past 2^53 − 1 is refused at the line that pushed it over, as lines.<i>.quantity', () => {
    const half = Math.floor(Number.MAX_SAFE_INTEGER / 2)
    const result = orderTotals([
      { quantity: 1, unit_price: 100, discount_bp: 0 },
      { quantity: half, unit_price: 1, discount_bp: 0 },
      { quantity: half, unit_price: 1, discount_bp: 0 },
      { quantity: 1, unit_price: 1, discount_bp: 0 },
    ])
    expect(result).toEqual({ ok: false, errors: { 'lines.2.quantity': AMOUNT_TOO_LARGE } })
  })

  test('an order whose subtotal is exactly 2^53 − 1 is accepted', () => {
    const result = orderTotals([
      { quantity: Number.MAX_SAFE_INTEGER - 1, unit_price: 1, discount_bp: 0 },
      { quantity: 1, unit_price: 1, discount_bp: 10_000 },
    ])
    expect(result).toEqual({
      ok: true,
      line_totals: [Number.MAX_SAFE_INTEGER - 1, 0],
      subtotal: Number.MAX_SAFE_INTEGER,
      total: Number.MAX_SAFE_INTEGER - 1,
      discount_total: 1,
    })
  })

  test('property: 200 lines sum like the BigInt reference and never lose a unit', () => {
    const line = fc.record({
      quantity: fc.integer({ min: 1, max: 1_000_000 }),
      unit_price: fc.integer({ min: 0, max: 10_000_000 }),
      discount_bp: fc.integer({ min: 0, max: 10_000 }),
    })
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 200 }), (lines) => {
        const expectedLines = lines.map((l) => referenceLineTotal(BigInt(l.quantity), BigInt(l.unit_price), BigInt(l.discount_bp)))
        const subtotal = lines.reduce((sum, l) => sum + BigInt(l.quantity) * BigInt(l.unit_price), 0n)
        const total = expectedLines.reduce((sum, t) => sum + t, 0n)
        const result = orderTotals(lines)
        if (subtotal > BigInt(Number.MAX_SAFE_INTEGER)) {
          expect(result.ok).toBe(false)
          return
        }
        expect(result).toEqual({
          ok: true,
          line_totals: expectedLines.map(Number),
          subtotal: Number(subtotal),
          total: Number(total),
          discount_total: Number(subtotal - total),
        })
        if (result.ok) expect(result.discount_total).toBeGreaterThanOrEqual(0)
      }),
      { numRuns: 300, seed: 20261125 },
    )
  })
})
