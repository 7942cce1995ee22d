/**
 * The retail-execution report (docs/API.md "Retail-execution report"): per product, what the shelf audits of a
 * period say — how many outlets were audited, how many had it, how many facings, at what shelf price against the
 * list price. It reads the product-matrix answers of completed submissions (docs/API.md "Product matrix").
 *
 * What counts:
 * - Submissions: `completed`, not rejected by the office (a rejected audit is not evidence), of a live visit whose
 *   `visit_date` is in [date_from, date_to]; `team_id` narrows to the visit's team, `form_id` to one form.
 * - Products (the report's rows, by sku then id): those a counted submission's matrix asked about (its frozen rows),
 *   narrowed by `principal_id` to the product's principal. A product deleted since still has its row: the audits
 *   were made while it was sold.
 * - Per (outlet, product), one answered row counts: the one of the latest counted submission (by `submitted_at`,
 *   then submission id, then field key) whose matrix answered it. A stored row of a completed submission is an
 *   answered row: completing checks that every sent row has its required columns, and empty rows are not kept.
 *
 * The figures of a product over those rows:
 * - `outlets_audited`: the rows. `availability_pct`: rows with `available: true` ÷ audited, in percent to one
 *   decimal (null when no row answered `available`, e.g. a matrix without that column); `out_of_stock_outlets`:
 *   rows with `available: false`.
 * - `avg_facings`: mean of the answered `facings` cells, one decimal; `avg_shelf_price`: mean of the answered
 *   `shelf_price` cells, an integer amount rounded half up (each null when no cell answered).
 * - `list_price`: the product's `price`. `price_deviation_pct`: (avg shelf price − list price) ÷ list price, in
 *   percent to one decimal, signed; null without a shelf price or a positive list price.
 * SQL groups the rows per product (sums of cells in hundredths); the divisions are integer arithmetic here, rounded
 * half up (away from zero for a negative deviation), so the figures are the same on every machine and driver.
 */
import { ValidationFailed } from '../../lib/errors'
import { selectValues } from '../../db/prepared'
import { products, submissions, visits } from '../../db/schema'
import { DEFAULT_LIST } from '../../platform/data/pagination'
import { defineReport, type ReportRequest } from '../../platform/data/report'
import { workspaceScoped } from '../../platform/data/scope'
import type { RetailExecutionQuery, RetailExecutionRow } from './reports.schemas'

/** The longest period one request may cover, in days (both ends included). */
export const RETAIL_MAX_DAYS = 366

/** A product's answered rows, summed by SQL. Sums of numeric cells are in hundredths. */
export interface ProductTally {
  product_id: number
  sku: string
  name: string
  price: number | null
  audited: number
  available: number
  out_of_stock: number
  facings_sum: number
  facings_count: number
  price_sum: number
  price_count: number
}

/** `round_half_up(numerator × scale ÷ denominator)` for integers, the half rounded away from zero. */
export function ratio(numerator: bigint, denominator: bigint, scale: bigint): number {
  const scaled = numerator * scale * 2n
  const twice = denominator * 2n
  const quotient = (scaled + (scaled >= 0n ? denominator : -denominator)) / twice
  return Number(quotient)
}

/** The figures of one product from its tally (see the top of the file). */
export function retailFigures(tally: ProductTally): RetailExecutionRow {
  const audited = BigInt(tally.audited)
  const answeredAvailability = tally.available + tally.out_of_stock
  // Means of hundredths: facings to one decimal (÷ 10 of the tenth), prices to whole units.
  const avgFacings = tally.facings_count === 0 ? null : ratio(BigInt(tally.facings_sum), BigInt(tally.facings_count) * 100n, 10n) / 10
  const avgPrice = tally.price_count === 0 ? null : ratio(BigInt(tally.price_sum), BigInt(tally.price_count) * 100n, 1n)
  const listPrice = tally.price
  const deviation =
    avgPrice === null || listPrice === null || listPrice <= 0 ? null : ratio(BigInt(avgPrice) - BigInt(listPrice), BigInt(listPrice), 1000n) / 10
  return {
    product_id: tally.product_id,
    sku: tally.sku,
    name: tally.name,
    outlets_audited: tally.audited,
    availability_pct: answeredAvailability === 0 ? null : ratio(BigInt(tally.available), audited, 1000n) / 10,
    out_of_stock_outlets: tally.out_of_stock,
    avg_facings: avgFacings,
    avg_shelf_price: avgPrice,
    list_price: listPrice,
    price_deviation_pct: deviation,
  }
}

const visitScope = workspaceScoped(visits, 'v')
const submissionScope = workspaceScoped(submissions, 's')
const productScope = workspaceScoped(products, 'p')

/** A cell of the answered row `a`, as SQL reads it (`->>`: a JSON number is an integer or a real). */
const cell = (key: string) => `a.value ->> '${key}'`
/** A numeric value in hundredths; null for anything else (unanswered). */
const hundredths = (value: string) => `case when typeof(${value}) in ('integer', 'real') then round(${value} * 100) end`

/**
 * The counted submissions and their matrices' rows, as common table expressions. Parameters, in order: workspace
 * (visits), date_from, date_to, team (twice), workspace (submissions), form (twice), workspace (products),
 * principal (twice).
 * - `counted`: the counted submissions' ids, times and outlets (small: the JSON is read where it is used);
 * - `asked`: the products their matrices' frozen rows name (each distinct `rows` text read once: most audits of a
 *   period froze the same products);
 * - `answered`: every stored row of their matrix answers, reduced to the cells the figures read (available 1/0 or
 *   null, facings and shelf price as SQL values), so what is sorted below carries no JSON;
 * - `latest`: the latest answered row per (outlet, product);
 * - `listed`: the report's products, narrowed by principal (soft-deleted ones too: the tally is history).
 */
const COUNTED = `with counted as (
    select s.id, s.submitted_at, v.outlet_id
    from visits v join submissions s on s.visit_id = v.id
    where ${visitScope.text()} and v.visit_date >= ? and v.visit_date <= ? and (? is null or v.team_id = ?)
      and ${submissionScope.text()} and s.status = 'completed' and s.approval_status is not 'rejected'
      and (? is null or s.form_id = ?) and s.rows is not null
  ),
  asked as (
    select distinct cast(r.value ->> 'product_id' as integer) as product_id
    from (select distinct s.rows from counted c join submissions s on s.id = c.id) d, json_each(d.rows) f, json_each(f.value) r
  ),
  answered as (
    select c.outlet_id, c.id as submission_id, c.submitted_at, f.key as field_key, cast(a.key as integer) as product_id,
      case json_type(a.value, '$.available') when 'true' then 1 when 'false' then 0 end as available,
      ${cell('facings')} as facings, ${cell('shelf_price')} as shelf_price
    from counted c join submissions s on s.id = c.id, json_each(s.rows) f, json_each(s.answers, '$."' || f.key || '"') a
    where a.type = 'object'
  ),
  latest as (
    select product_id, available, facings, shelf_price from (
      select product_id, available, facings, shelf_price, row_number() over (
        partition by outlet_id, product_id order by submitted_at desc, submission_id desc, field_key) as n
      from answered)
    where n = 1
  ),
  listed as (
    select p.id, p.sku, p.name, p.price from asked q join products p on p.id = q.product_id
    where ${productScope.textIncludingDeleted()} and (? is null or p.principal_id = ?)
  )`

/** One page of the report's products with their tallies, and the products' total (the same on every row). */
export const PAGE_SQL = `${COUNTED},
  tally as (
    select product_id, count(*) as audited, sum(available = 1) as available, sum(available = 0) as out_of_stock,
      coalesce(sum(${hundredths('facings')}), 0) as facings_sum, count(${hundredths('facings')}) as facings_count,
      coalesce(sum(${hundredths('shelf_price')}), 0) as price_sum, count(${hundredths('shelf_price')}) as price_count
    from latest where product_id in (select id from listed) group by product_id
  )
  select p.id, p.sku, p.name, p.price, coalesce(t.audited, 0), coalesce(t.available, 0), coalesce(t.out_of_stock, 0),
    coalesce(t.facings_sum, 0), coalesce(t.facings_count, 0), coalesce(t.price_sum, 0), coalesce(t.price_count, 0),
    count(*) over ()
  from listed p left join tally t on t.product_id = p.id
  order by p.sku, p.id limit ? offset ?`

/** The products' total alone: for a page past the end, which has no row to carry it. */
const TOTAL = `${COUNTED} select count(*) from listed`

type Filters = (string | number | null)[]

function filtersOf({ ctx, query }: ReportRequest<RetailExecutionQuery>): Filters {
  const ws = ctx.actor.workspaceId
  const team = query.team_id ?? null
  const form = query.form_id ?? null
  const principal = query.principal_id ?? null
  return [ws, query.date_from, query.date_to, team, team, ws, form, form, ws, principal, principal]
}

const tallyOf = (row: unknown[]): ProductTally => ({
  product_id: Number(row[0]),
  sku: String(row[1]),
  name: String(row[2]),
  price: row[3] === null ? null : Number(row[3]),
  audited: Number(row[4]),
  available: Number(row[5]),
  out_of_stock: Number(row[6]),
  facings_sum: Math.round(Number(row[7])),
  facings_count: Number(row[8]),
  price_sum: Math.round(Number(row[9])),
  price_count: Number(row[10]),
})

/** The period's checks: a period that ends before it starts or is longer than RETAIL_MAX_DAYS is refused. */
function checkPeriod(query: RetailExecutionQuery) {
  if (query.date_to < query.date_from) throw ValidationFailed.field('date_to', 'must not be before date_from')
  const days = Math.round((Date.parse(`${query.date_to}T00:00:00Z`) - Date.parse(`${query.date_from}T00:00:00Z`)) / 86_400_000) + 1
  if (days > RETAIL_MAX_DAYS) throw ValidationFailed.field('date_to', `must be at most ${RETAIL_MAX_DAYS} days from date_from`)
}

/** The page of products with their tallies, and their total. */
function productsOf(request: ReportRequest<RetailExecutionQuery>): [Promise<ProductTally[]>, Promise<number>] {
  checkPeriod(request.query)
  const filters = filtersOf(request)
  // A team, form or principal of another workspace matches nothing: every table is read by workspace.
  const page = selectValues(request.db, PAGE_SQL, [...filters, request.page.limit, request.page.offset])
  const total = page.then(async (rows) => (rows.length > 0 ? Number(rows[0][11]) : Number((await selectValues(request.db, TOTAL, filters))[0]?.[0] ?? 0)))
  return [page.then((rows) => rows.map(tallyOf)), total]
}

/** GET /office/v1/reports/retail-execution: one page of products with their figures over the period. */
export const retailExecutionReport = defineReport({
  limits: DEFAULT_LIST,
  subjects: productsOf,
  rows: async (_request, tallies: ProductTally[]) => tallies.map(retailFigures),
})
