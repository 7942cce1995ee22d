/**
 * The retail-execution figures (the report of shelf audits; its route and its docs/API.md section come with the
 * product-matrix field of forms): per product, what the shelf audits of a
 * period say — how many outlets were audited, how many had it, how many facings, at what shelf price against the
 * list price. Pure: over the product-matrix rows the caller read (completed submissions in the period, already
 * narrowed to the team, principal and form asked for), no database, no clock.
 *
 * The rules, where the contract leaves room:
 * - One row per (outlet, product) counts: the one of the latest completed submission (by `submitted_at`, then
 *   submission id) in which that product's row is answered (every `required` column has a value). An older audit
 *   of the same shelf says nothing about it once a newer one exists.
 * - `outlets_audited`: outlets with such a row. `availability_pct`: of those whose `available` cell is answered,
 *   the share with `available: true`, in percent to one decimal (null when none answered it);
 *   `out_of_stock_outlets`: those with `available: false`.
 * - `avg_facings`: mean of the answered `facings` cells, one decimal (null when none). `avg_shelf_price`: mean of
 *   the answered `shelf_price` cells, an integer amount rounded half up (null when none).
 * - `price_deviation_pct`: (avg shelf price − list price) ÷ list price, in percent to one decimal, signed; null
 *   without a shelf price or a positive list price.
 * All divisions are integer arithmetic rounded half up (away from zero for a negative deviation), so the figures
 * are the same on every machine.
 */

/** One answered product row of one product-matrix answer. */
export interface AuditedRow {
  outlet_id: number
  product_id: number
  submission_id: number
  /** ISO 8601 UTC: when the submission was completed. */
  submitted_at: string
  /** The row's cells by column key (`available`, `facings`, `shelf_price`, …); a missing key is unanswered. */
  cells: Readonly<Record<string, unknown>>
}

export interface ProductFigures {
  product_id: number
  outlets_audited: number
  availability_pct: number | null
  out_of_stock_outlets: number
  avg_facings: number | null
  avg_shelf_price: number | null
  list_price: number | null
  price_deviation_pct: number | null
}

/** `round_half_up(numerator × scale ÷ denominator)` for integers, the half rounded away from zero. */
export function ratio(numerator: bigint, denominator: bigint, scale: bigint): number {
  const scaled = numerator * scale * 2n
  const twice = denominator * 2n
  const quotient = (scaled + (scaled >= 0n ? denominator : -denominator)) / twice
  return Number(quotient)
}

/** The latest answered row per (outlet, product). */
export function latestRows(rows: readonly AuditedRow[]): AuditedRow[] {
  const latest = new Map<string, AuditedRow>()
  for (const row of rows) {
    const key = `${row.outlet_id}:${row.product_id}`
    const known = latest.get(key)
    if (!known || row.submitted_at > known.submitted_at || (row.submitted_at === known.submitted_at && row.submission_id > known.submission_id)) {
      latest.set(key, row)
    }
  }
  return [...latest.values()]
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/** Hundredths as an integer (a facings count or a price may carry decimals in a `number` column). */
const hundredths = (value: number) => BigInt(Math.round(value * 100))

/** The figures of one product over its latest rows. */
function figuresOf(productId: number, rows: readonly AuditedRow[], listPrice: number | null): ProductFigures {
  let available = 0
  let outOfStock = 0
  let facingsSum = 0n
  let facingsCount = 0n
  let priceSum = 0n
  let priceCount = 0n
  for (const { cells } of rows) {
    if (cells.available === true) available += 1
    else if (cells.available === false) outOfStock += 1
    if (isNumber(cells.facings)) {
      facingsSum += hundredths(cells.facings)
      facingsCount += 1n
    }
    if (isNumber(cells.shelf_price)) {
      priceSum += hundredths(cells.shelf_price)
      priceCount += 1n
    }
  }
  const answeredAvailability = available + outOfStock
  // Means of hundredths: facings to one decimal (÷ 10 of the tenth), prices to whole units.
  const avgFacings = facingsCount === 0n ? null : ratio(facingsSum, facingsCount * 100n, 10n) / 10
  const avgPrice = priceCount === 0n ? null : ratio(priceSum, priceCount * 100n, 1n)
  const deviation =
    avgPrice === null || listPrice === null || listPrice <= 0 ? null : ratio(BigInt(avgPrice) - BigInt(listPrice), BigInt(listPrice), 1000n) / 10
  return {
    product_id: productId,
    outlets_audited: rows.length,
    availability_pct: answeredAvailability === 0 ? null : ratio(BigInt(available), BigInt(answeredAvailability), 1000n) / 10,
    out_of_stock_outlets: outOfStock,
    avg_facings: avgFacings,
    avg_shelf_price: avgPrice,
    list_price: listPrice,
    price_deviation_pct: deviation,
  }
}

/**
 * The figures per product, in the order of `products` (the report's page order); a product without an audited row
 * has zeros and nulls. `products` carries each product's list price (its own `price`; null when it has none).
 */
export function retailFigures(rows: readonly AuditedRow[], products: readonly { id: number; price: number | null }[]): ProductFigures[] {
  const byProduct = new Map<number, AuditedRow[]>()
  for (const row of latestRows(rows)) {
    const list = byProduct.get(row.product_id)
    if (list) list.push(row)
    else byProduct.set(row.product_id, [row])
  }
  return products.map((product) => figuresOf(product.id, byProduct.get(product.id) ?? [], product.price))
}
