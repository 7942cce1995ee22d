/**
 * Exact money for sales orders (src/modules/orders/README.md; docs/API.md §Orders).
 *
 * Amounts are integers in the currency's smallest unit (IDR: whole rupiah). They travel as `number` in JSON
 * and SQLite INTEGER columns, but every product and sum is computed with BigInt: 1,000,000 × Rp 9,999,999 is
 * already past 2^53 once multiplied by a discount factor, and a float would round it silently.
 *
 * A discount is a percentage with at most 2 decimals, held as integer basis points (hundredths of a percent:
 * 12.5 % = 1250). It is never multiplied as a float: `discountBasisPoints` turns the input into its exact
 * integer hundredths or refuses it.
 *
 *   line_total     = round_half_up(quantity × unit_price × (10000 − discount_bp) / 10000)
 *   subtotal       = Σ quantity × unit_price
 *   total          = Σ line_total
 *   discount_total = subtotal − total
 *
 * Invariant: every amount handed back is a safe integer (≤ Number.MAX_SAFE_INTEGER). An order whose
 * subtotal (and hence any amount of it, all of which are ≤ the subtotal) would exceed it is refused with
 * the field of the line that pushed it over (`lines.<i>.quantity`), for a 400 VALIDATION_ERROR.
 */

/** 100 % in basis points. */
export const FULL_DISCOUNT_BP = 10_000
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const BP = BigInt(FULL_DISCOUNT_BP)

/**
 * The discount as integer hundredths of a percent (0–10000), or null when it is not a number from 0 to
 * 100 with at most 2 decimals. Accepts a number (`12.5`) or its decimal text (`"12.5"`); a missing
 * discount is 0.
 */
export function discountBasisPoints(pct: number | string | null | undefined): number | null {
  if (pct === null || pct === undefined) return 0
  if (typeof pct === 'string') {
    // Parsed from its digits, so "12.345" cannot be rounded into acceptance.
    const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(pct)
    if (!match) return null
    const bp = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'))
    return bp <= FULL_DISCOUNT_BP ? bp : null
  }
  if (!Number.isFinite(pct) || pct < 0 || pct > 100) return null
  // 12.5 × 100 is exactly 1250; 0.29 × 100 is 28.999999999999996, within 1e-9 of 29; 12.345 × 100 is
  // 1234.4999999999998, half a unit from any integer: refused. The integer hundredths are used from here on.
  const scaled = pct * 100
  const hundredths = Math.round(scaled)
  if (!Number.isInteger(hundredths) || Math.abs(scaled - hundredths) >= 1e-9) return null
  return hundredths
}

/** The discount in basis points as the percentage number the API shows (1250 → 12.5). Exact for 2 decimals. */
export const basisPointsToPct = (bp: number): number => Number(`${Math.trunc(bp / 100)}.${String(bp % 100).padStart(2, '0')}`)

/** A line's amounts, exact, before the safe-integer check. */
function lineAmounts(quantity: number, unitPrice: number, bp: number): { gross: bigint; net: bigint } {
  if (!Number.isSafeInteger(quantity) || quantity < 1) throw new RangeError(`quantity must be an integer ≥ 1, got ${quantity}`)
  if (!Number.isSafeInteger(unitPrice) || unitPrice < 0) throw new RangeError(`unit price must be an integer ≥ 0, got ${unitPrice}`)
  if (!Number.isInteger(bp) || bp < 0 || bp > FULL_DISCOUNT_BP) throw new RangeError(`discount must be 0–10000 basis points, got ${bp}`)
  const gross = BigInt(quantity) * BigInt(unitPrice)
  const scaled = gross * (BP - BigInt(bp))
  // Half up on a non-negative value: add half the divisor, then truncate.
  const net = (scaled + BP / 2n) / BP
  return { gross, net }
}

/**
 * `round_half_up(quantity × unit_price × (100 − discount_pct) / 100)`, exact. Throws a RangeError on a bad
 * input (a quantity below 1, a negative or fractional price, a discount that is not 0–100 with at most 2
 * decimals) or when the line's gross amount is not a safe integer; request validation refuses those first.
 */
export function lineTotal(quantity: number, unitPrice: number, discountPct: number | string = 0): number {
  const bp = discountBasisPoints(discountPct)
  if (bp === null) throw new RangeError(`discount must be 0–100 with at most 2 decimals, got ${discountPct}`)
  const { gross, net } = lineAmounts(quantity, unitPrice, bp)
  if (gross > MAX_SAFE) throw new RangeError(`quantity × unit price is past ${Number.MAX_SAFE_INTEGER}`)
  return Number(net)
}

export interface OrderLineInput {
  quantity: number
  unit_price: number
  /** Hundredths of a percent, 0–10000 (see discountBasisPoints). */
  discount_bp: number
}

export interface OrderTotals {
  /** Each line's total, in the order of the input. */
  line_totals: number[]
  subtotal: number
  discount_total: number
  total: number
}

export type OrderTotalsResult = ({ ok: true } & OrderTotals) | { ok: false; errors: Record<string, string> }

export const AMOUNT_TOO_LARGE = 'the order amount is too large; order a smaller quantity'

/**
 * The order's amounts (docs/API.md §Orders). Refused, naming `lines.<i>.quantity` of the line at which the
 * running subtotal first exceeds Number.MAX_SAFE_INTEGER, when the order cannot be shown as JSON-safe integers.
 */
export function orderTotals(lines: readonly OrderLineInput[]): OrderTotalsResult {
  let subtotal = 0n
  let total = 0n
  const line_totals: number[] = []
  for (const [i, line] of lines.entries()) {
    const { gross, net } = lineAmounts(line.quantity, line.unit_price, line.discount_bp)
    subtotal += gross
    total += net
    if (subtotal > MAX_SAFE) return { ok: false, errors: { [`lines.${i}.quantity`]: AMOUNT_TOO_LARGE } }
    line_totals.push(Number(net))
  }
  return { ok: true, line_totals, subtotal: Number(subtotal), discount_total: Number(subtotal - total), total: Number(total) }
}
