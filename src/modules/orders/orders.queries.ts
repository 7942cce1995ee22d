/**
 * The orders module's reads (docs/API.md §Orders): the order lists the indexes of src/db/schema/orders.ts are
 * built for, an order "as answered" (detail with its lines) for any number of ids, and what pricing needs of
 * an outlet (its account and channel, the price lists valid on a day).
 */
import { type SQL, and, between, count, eq, gt, gte, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared, preparedEach, preparedVariants, runPositional } from '../../db/prepared'
import {
  accounts,
  outlets,
  priceListItems,
  priceLists,
  products,
  salesOrderLines,
  salesOrders,
  teamMembers,
  users,
  workspaces,
  type SalesOrderStatus,
} from '../../db/schema'
import { NotFound } from '../../lib/errors'
import type { AuthedContext } from '../../platform/context'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { basisPointsToPct } from './money'
import { COUNTING_STATUSES } from './orders.machine'
import type { PricedOutlet, PriceList, PriceListItem } from './pricing'
import type { OfficeOrderQuery, PhoneOrderQuery, SalesOrder, SalesOrderListItem } from './orders.schemas'
import { outletScope } from '../outlets'
import { teamMemberScope } from '../teams'

/** The statuses of orders that count (not rejected, not cancelled: COUNTING_STATUSES), as an SQL list for `status in (…)`. */
export const COUNTING_STATUSES_SQL = sql.raw(COUNTING_STATUSES.map((status) => `'${status}'`).join(', '))

/** Orders are never deleted (docs/API.md §Orders): the scope is the workspace alone. */
export const salesOrderScope = workspaceScoped(salesOrders)
export const priceListScope = workspaceScoped(priceLists)
/** Products as an order reads them (the catalogue's own scope is not part of its face). */
const productScope = workspaceScoped(products)

/*
 * The statements of taking an order are prepared once per connection (src/db/prepared.ts): built by Drizzle
 * and prepared by SQLite per request, they cost several times what SQLite spends running them
 * (docs/PERFORMANCE.md, "Order at a visit"). A list of ids is bound as one placeholder per id, so there is one
 * statement per list length (at most ORDER_LINES_MAX; the most recent 32 are kept) and SQLite looks each id up
 * by its key.
 */
const ph = sql.placeholder
const MAX_SHAPES = 32
/** `n` placeholders named `<prefix>0`…, for an IN list; `bindIds` binds them. */
const placeholders = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ph(`${prefix}${i}`))
const bindIds = (prefix: string, ids: readonly number[]) => {
  const params: Record<string, number> = {}
  for (const [i, id] of ids.entries()) params[`${prefix}${i}`] = id
  return params
}

/**
 * `order_date` within inclusive local dates. Both bounds are written as ONE `BETWEEN`: given as `>= AND <=`,
 * the SQLite of bun:sqlite (3.54) prefers the two-column (workspace_id, order_date) index over
 * (workspace_id, status, order_date) for a status filter, and reads every order of the period
 * (tests/orders.schema.test.ts pins the plan on both drivers).
 */
export function orderDateWithin(from?: string, to?: string): SQL | undefined {
  if (from !== undefined && to !== undefined) return between(salesOrders.order_date, from, to)
  if (from !== undefined) return gte(salesOrders.order_date, from)
  if (to !== undefined) return lte(salesOrders.order_date, to)
  return undefined
}

/** The indexed part of a list filter: workspace, then status or user, then the date range. */
export function orderListWhere(workspaceId: number, filter: { status?: SalesOrderStatus; user_id?: number; date_from?: string; date_to?: string }): SQL {
  return salesOrderScope.where(
    workspaceId,
    filter.status !== undefined ? eq(salesOrders.status, filter.status) : undefined,
    filter.user_id !== undefined ? eq(salesOrders.user_id, filter.user_id) : undefined,
    orderDateWithin(filter.date_from, filter.date_to),
  )
}

const outletName = sql<string>`(select ${outlets.name} from ${outlets} where ${outlets.id} = ${salesOrders.outlet_id})`
const userName = sql<string>`(select ${users.name} from ${users} where ${users.id} = ${salesOrders.user_id})`
const orderColumns = {
  id: salesOrders.id,
  number: salesOrders.number,
  status: salesOrders.status,
  visit_id: salesOrders.visit_id,
  outlet_id: salesOrders.outlet_id,
  outlet_name: outletName,
  user_id: salesOrders.user_id,
  user_name: userName,
  order_date: salesOrders.order_date,
  currency: salesOrders.currency,
  subtotal: salesOrders.subtotal,
  discount_total: salesOrders.discount_total,
  total: salesOrders.total,
  notes: salesOrders.notes,
  reason: salesOrders.reason,
  created_at: salesOrders.created_at,
  updated_at: salesOrders.updated_at,
}

const selectOrders = (db: Db, where: SQL) => db.select(orderColumns).from(salesOrders).where(where)
type OrderRow = Awaited<ReturnType<typeof selectOrders>>[number]

const presentOrder = ({ outlet_id, outlet_name, user_id, user_name, ...row }: OrderRow) => ({
  ...row,
  outlet: { id: outlet_id, name: outlet_name },
  user: { id: user_id, name: user_name },
})

/** Orders among `ids` with their lines, as GET …/sales-orders/:id answers them; `owner`: only that user's. */
export async function salesOrdersByIds(db: Db, workspaceId: number, ids: number[], owner: number | null = null): Promise<SalesOrder[]> {
  if (ids.length === 0) return []
  const rows = await selectOrders(
    db,
    salesOrderScope.where(workspaceId, inArray(salesOrders.id, ids), owner === null ? undefined : eq(salesOrders.user_id, owner)),
  ).orderBy(salesOrders.id)
  if (rows.length === 0) return []
  const lines = await db
    .select()
    .from(salesOrderLines)
    .where(
      inArray(
        salesOrderLines.order_id,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(salesOrderLines.order_id, salesOrderLines.id)
  const linesOf = new Map<number, SalesOrder['lines']>()
  for (const { order_id, id: _id, discount_bp, ...line } of lines) {
    const list = linesOf.get(order_id) ?? []
    list.push({ ...line, discount_pct: basisPointsToPct(discount_bp) })
    linesOf.set(order_id, list)
  }
  return rows.map((row) => ({ ...presentOrder(row), lines: linesOf.get(row.id) ?? [] }))
}

const oneOrderStatement = preparedEach(['owner', 'any'] as const, (db, owned) =>
  selectOrders(db, salesOrderScope.where(ph('workspaceId'), eq(salesOrders.id, ph('id')), owned === 'owner' ? eq(salesOrders.user_id, ph('owner')) : undefined))
    .limit(1)
    .prepare(),
)
const orderLinesStatement = prepared((db) =>
  db
    .select()
    .from(salesOrderLines)
    .where(eq(salesOrderLines.order_id, ph('id')))
    .orderBy(salesOrderLines.id)
    .prepare(),
)

/** One order as answered; 404 SALES_ORDER_NOT_FOUND when it is not the workspace's (or, with `owner`, not theirs). */
export async function getSalesOrder(db: Db, workspaceId: number, id: number, owner: number | null = null): Promise<SalesOrder> {
  const [row] = await oneOrderStatement(db, owner === null ? 'any' : 'owner').all({ workspaceId, id, owner: owner ?? 0 })
  if (!row) throw new NotFound('SALES_ORDER')
  const lines = await orderLinesStatement(db).all({ id })
  return {
    ...presentOrder(row),
    lines: lines.map(({ order_id: _order, id: _id, discount_bp, ...line }) => ({ ...line, discount_pct: basisPointsToPct(discount_bp) })),
  }
}

/** Inserts an order's row (workspace from the caller) and answers its id. */
const insertOrderStatement = prepared((db) =>
  db
    .insert(salesOrders)
    .values({
      workspace_id: ph('workspaceId'),
      number: ph('number'),
      status: ph('status'),
      visit_id: ph('visit_id'),
      outlet_id: ph('outlet_id'),
      user_id: ph('user_id'),
      order_date: ph('order_date'),
      currency: ph('currency'),
      subtotal: ph('subtotal'),
      discount_total: ph('discount_total'),
      total: ph('total'),
      notes: ph('notes'),
      created_at: ph('created_at'),
      updated_at: ph('updated_at'),
    })
    .returning({ id: salesOrders.id })
    .prepare(),
)

export type NewSalesOrder = Omit<typeof salesOrders.$inferInsert, 'id' | 'workspace_id' | 'reason'> & { status: SalesOrderStatus; notes: string | null }

export async function insertSalesOrder(tx: Db, workspaceId: number, order: NewSalesOrder): Promise<number> {
  const [row] = await insertOrderStatement(tx).all({ ...order, workspaceId })
  return row.id
}

export type NewOrderLine = Omit<typeof salesOrderLines.$inferInsert, 'id' | 'order_id'>
const LINE_COLUMNS = ['order_id', 'product_id', 'sku', 'name', 'unit', 'quantity', 'unit_price', 'discount_bp', 'line_total'] as const
const LINE_TUPLE = `(${LINE_COLUMNS.map(() => '?').join(', ')})`
const lineInsertText = new Map<number, string>()

/** An order's lines in one multi-row INSERT, its values bound by position (src/db/prepared.ts, runPositional). */
export async function insertOrderLines(tx: Db, orderId: number, lines: readonly NewOrderLine[]): Promise<void> {
  let text = lineInsertText.get(lines.length)
  if (text === undefined) {
    text = `insert into "sales_order_lines" (${LINE_COLUMNS.map((column) => `"${column}"`).join(', ')}) values ${Array(lines.length).fill(LINE_TUPLE).join(', ')}`
    lineInsertText.set(lines.length, text)
  }
  const params: (string | number | null)[] = []
  for (const line of lines)
    params.push(orderId, line.product_id, line.sku, line.name, line.unit ?? null, line.quantity, line.unit_price, line.discount_bp ?? 0, line.line_total)
  await runPositional(tx, text, params)
}

const lineCount = sql<number>`(select count(*) from ${salesOrderLines} where ${salesOrderLines.order_id} = ${salesOrders.id})`
const listColumns = { ...orderColumns, line_count: lineCount }
const inTeam = (teamId: number, ctx: AuthedContext) =>
  sql`${salesOrders.user_id} in (select ${teamMembers.user_id} from ${teamMembers} where ${teamMemberScope.where(ctx.actor.workspaceId, eq(teamMembers.team_id, teamId))})`

const search = {
  columns: [sql`lower(${salesOrders.number})`, sql`(select ${outlets.name_key} from ${outlets} where ${outlets.id} = ${salesOrders.outlet_id})`],
}
const sort = {
  created_at: salesOrders.created_at,
  updated_at: salesOrders.updated_at,
  order_date: salesOrders.order_date,
  total: salesOrders.total,
}

/** What both order lists share: the rows, their count, the keyword, the sort, the page. */
const orderLists = {
  scope: salesOrderScope,
  select: (db: Db, where: SQL) => db.select(listColumns).from(salesOrders).where(where),
  count: (db: Db, where: SQL) => db.select({ total: count() }).from(salesOrders).where(where),
  search,
  sort,
  limits: { defaultLimit: 20, maxLimit: 100 },
}
const commonFilters = {
  status: (status: SalesOrderStatus) => eq(salesOrders.status, status),
  visit_id: (id: number) => eq(salesOrders.visit_id, id),
}

/** GET /office/v1/sales-orders: the workspace's orders; the date range is one BETWEEN (see orderDateWithin). */
export const officeOrderList = defineList({
  ...orderLists,
  visibleTo: (_ctx, query: OfficeOrderQuery) => orderDateWithin(query.date_from, query.date_to),
  filters: {
    ...commonFilters,
    outlet_id: (id: number) => eq(salesOrders.outlet_id, id),
    user_id: (id: number) => eq(salesOrders.user_id, id),
    team_id: (id: number, ctx: AuthedContext) => inTeam(id, ctx),
  },
})

/** GET /app/v1/sales-orders: the caller's own orders. */
export const phoneOrderList = defineList({
  ...orderLists,
  visibleTo: (ctx, query: PhoneOrderQuery) => and(eq(salesOrders.user_id, ctx.actor.userId), orderDateWithin(query.date_from, query.date_to)),
  filters: commonFilters,
})

export const presentListItem = ({ line_count, ...row }: OrderRow & { line_count: number }): SalesOrderListItem => ({ ...presentOrder(row), line_count })

const orderOutletStatement = prepared((db) =>
  db
    .select({
      id: outlets.id,
      name: outlets.name,
      // A deleted account counts as none (as on the phone's price sheet): its lists price nothing here.
      account_id: accounts.id,
      channel_id: accounts.channel_id,
      currency: sql<string | null>`(select ${workspaces.currency} from ${workspaces} where ${workspaces.id} = ${ph('workspaceId')})`,
      user_name: sql<string | null>`(select ${users.name} from ${users} where ${users.id} = ${ph('userId')})`,
    })
    .from(outlets)
    .leftJoin(accounts, and(eq(accounts.id, outlets.account_id), isNull(accounts.deleted_at)))
    .where(outletScope.where(ph('workspaceId'), eq(outlets.id, ph('outletId'))))
    .limit(1)
    .prepare(),
)

/**
 * The outlet as pricing sees it (its account and that account's channel), with what an order shows besides:
 * the outlet's name, the workspace's currency (IDR when unset) and the name of user `userId` (who takes the
 * order; '' for none), in one read; 404 OUTLET_NOT_FOUND when the outlet is not the workspace's.
 */
export async function pricedOutlet(
  db: Db,
  workspaceId: number,
  outletId: number,
  userId = 0,
): Promise<PricedOutlet & { id: number; name: string; currency: string; user_name: string }> {
  const [row] = await orderOutletStatement(db).all({ workspaceId, outletId, userId })
  if (!row) throw new NotFound('OUTLET')
  return {
    id: row.id,
    name: row.name,
    account_id: row.account_id ?? null,
    channel_id: row.channel_id ?? null,
    currency: row.currency ?? 'IDR',
    user_name: row.user_name ?? '',
  }
}

const orderedProductsStatement = preparedVariants(
  (db, n: number) =>
    db
      .select({ id: products.id, sku: products.sku, name: products.name, unit: products.unit, price: products.price })
      .from(products)
      // By the primary key, one lookup per id. Given the workspace condition as a term of its own, SQLite walks
      // the workspace's live products by (workspace, principal) instead (it guesses that index's equality
      // narrower than 20 lookups): every product of the catalogue, for each order. Inside coalesce() the same
      // condition is checked on each row found, and no index can serve it.
      .where(and(inArray(products.id, placeholders('p', n)), sql`coalesce(${productScope.where(ph('workspaceId'))}, 0)`))
      .prepare(),
  { max: MAX_SHAPES },
)

/** The live products of the workspace among `ids`, as an order line copies them. */
export async function orderedProducts(db: Db, workspaceId: number, ids: readonly number[]) {
  if (ids.length === 0) return []
  return orderedProductsStatement(db, ids.length).all({ workspaceId, ...bindIds('p', ids) })
}

/** Which lists may price for the outlet on the day (the workspace's live ones: the outlet's account, its channel, the default). */
const listsFor = () =>
  priceListScope.where(
    ph('workspaceId'),
    // An outlet without an account (or an account without a channel) binds NULL, which matches no list.
    or(
      eq(priceLists.account_id, ph('accountId')),
      eq(priceLists.channel_id, ph('channelId')),
      and(isNull(priceLists.account_id), isNull(priceLists.channel_id)),
    ),
    or(isNull(priceLists.valid_from), lte(priceLists.valid_from, ph('day'))),
    or(isNull(priceLists.valid_to), gte(priceLists.valid_to, ph('day'))),
  )

const priceListsStatement = prepared((db) =>
  db
    .select({
      id: priceLists.id,
      account_id: priceLists.account_id,
      channel_id: priceLists.channel_id,
      valid_from: priceLists.valid_from,
      valid_to: priceLists.valid_to,
    })
    .from(priceLists)
    .where(listsFor())
    .prepare(),
)

/**
 * The items of those lists for n products. The lists are named by the same condition, not by their ids, so
 * there is one statement per number of products, and SQLite probes the (list, product) index for each pair.
 * (One LEFT JOIN of lists and items measured twice the time of the two reads.)
 */
const priceListItemsStatement = preparedVariants(
  (db, n: number) =>
    db
      .select({
        price_list_id: priceListItems.price_list_id,
        product_id: priceListItems.product_id,
        price: priceListItems.price,
        min_qty: priceListItems.min_qty,
      })
      .from(priceListItems)
      .where(
        and(
          inArray(priceListItems.price_list_id, db.select({ id: priceLists.id }).from(priceLists).where(listsFor())),
          inArray(priceListItems.product_id, placeholders('p', n)),
        ),
      )
      .prepare(),
  { max: MAX_SHAPES },
)

/**
 * The price lists that may price `productIds` for `outlet` on the local `day`: live, valid that day, of the
 * outlet's account, its channel or the workspace default, each with its items for those products only.
 */
/** The headers of the lists that may price anything for `outlet` on the local `day` (the phone's price sheet reads these). */
export const priceListHeaders = (db: Db, workspaceId: number, outlet: PricedOutlet, day: string) =>
  priceListsStatement(db).all({ workspaceId, accountId: outlet.account_id, channelId: outlet.channel_id, day })

export async function priceListsFor(db: Db, workspaceId: number, outlet: PricedOutlet, day: string, productIds: readonly number[]): Promise<PriceList[]> {
  const params = { workspaceId, accountId: outlet.account_id, channelId: outlet.channel_id, day }
  const lists = await priceListsStatement(db).all(params)
  if (lists.length === 0 || productIds.length === 0) return lists.map((list) => ({ ...list, items: [] }))
  // Positional rows, in the selection's order: a hundred rows and more per order, which Drizzle would map one
  // by one. Read by index: libSQL's rows are indexable but not iterable, so they cannot be destructured.
  const items = (await priceListItemsStatement(db, productIds.length).values({ ...params, ...bindIds('p', productIds) })) as unknown as ArrayLike<number>[]
  const itemsOf = new Map<number, PriceListItem[]>()
  for (const row of items) {
    const item = { product_id: row[1], price: row[2], min_qty: row[3] }
    const list = itemsOf.get(row[0])
    if (list) list.push(item)
    else itemsOf.set(row[0], [item])
  }
  // A list changed between the two reads (another connection's commit) has no items here: it prices nothing.
  return lists.map((list) => ({ ...list, items: itemsOf.get(list.id) ?? [] }))
}

/** The columns of the order export, one row per line (docs/API.md §Orders, "Export"). */
export const ORDER_EXPORT_COLUMNS = [
  'order_number',
  'order_date',
  'status',
  'visit_id',
  'outlet_code',
  'outlet_name',
  'user_name',
  'currency',
  'sku',
  'product_name',
  'unit',
  'quantity',
  'unit_price',
  'discount_pct',
  'line_total',
  'order_subtotal',
  'order_discount_total',
  'order_total',
  'notes',
  'reason',
  'created_at',
] as const

/**
 * A page of the order export: the lines (with their order) of the orders the office list would show for
 * `filters`, after line `afterId`, in line order (an order's lines are written together, so they stay together).
 */
export async function orderLinesPage(ctx: AuthedContext, filters: OfficeOrderQuery, afterId: number, limit: number) {
  const rows = await ctx.deps.db.read
    .select({
      line_id: salesOrderLines.id,
      order_number: salesOrders.number,
      order_date: salesOrders.order_date,
      status: salesOrders.status,
      visit_id: salesOrders.visit_id,
      outlet_code: outlets.code,
      outlet_name: outlets.name,
      user_name: userName,
      currency: salesOrders.currency,
      sku: salesOrderLines.sku,
      product_name: salesOrderLines.name,
      unit: salesOrderLines.unit,
      quantity: salesOrderLines.quantity,
      unit_price: salesOrderLines.unit_price,
      discount_bp: salesOrderLines.discount_bp,
      line_total: salesOrderLines.line_total,
      order_subtotal: salesOrders.subtotal,
      order_discount_total: salesOrders.discount_total,
      order_total: salesOrders.total,
      notes: salesOrders.notes,
      reason: salesOrders.reason,
      created_at: salesOrders.created_at,
    })
    .from(salesOrderLines)
    .innerJoin(salesOrders, eq(salesOrders.id, salesOrderLines.order_id))
    .innerJoin(outlets, eq(outlets.id, salesOrders.outlet_id))
    .where(and(officeOrderList.where(ctx, filters), gt(salesOrderLines.id, afterId)))
    .orderBy(salesOrderLines.id)
    .limit(limit)
  return rows.map(({ discount_bp, ...row }) => ({ ...row, discount_pct: basisPointsToPct(discount_bp) }))
}
