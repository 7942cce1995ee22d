/**
 * Sales orders (docs/API.md §Orders): taken by the field user at their visit in progress, priced and frozen
 * then, decided by the office. The rules are pure and tested on their own (./README.md): prices
 * (./pricing.ts), money (./money.ts), states (./orders.machine.ts), numbers (./order-number.ts); this file
 * binds them to the database, in one transaction per request with its audit entry.
 */
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { salesOrderLines, salesOrders } from '../../db/schema'
import { AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { localDate } from '../../lib/time-zones'
import type { AuthedContext } from '../../platform/context'
import type { Page } from '../../platform/data/pagination'
import { type TxScope, withTransaction } from '../../platform/data/transaction'
import { topics } from '../../platform/realtime/hub'
import { findVisit, VisitStateConflict } from '../visits'
import { basisPointsToPct, discountBasisPoints, orderTotals } from './money'
import { allocateOrderNumber, formatOrderNumber } from './order-number'
import { type OrderAction, type OrderActor, orderTransition } from './orders.machine'
import {
  getSalesOrder,
  insertOrderLines,
  insertSalesOrder,
  officeOrderList,
  orderedProducts,
  phoneOrderList,
  presentListItem,
  priceListsFor,
  pricedOutlet,
  salesOrderScope,
} from './orders.queries'
import type { OfficeOrderQuery, PhoneOrderQuery, ReasonInput, SalesOrder, SalesOrderInput, SalesOrderListItem } from './orders.schemas'
import { type PricedOutlet, resolvePrice } from './pricing'

type OrderRow = typeof salesOrders.$inferSelect
type LineInput = SalesOrderInput['lines'][number]
/** A line as stored: the product as it was, the frozen unit price, the discount in basis points. */
type PricedLine = Omit<typeof salesOrderLines.$inferInsert, 'order_id' | 'line_total'>

/** The creator's topic of order events: every socket of theirs in the workspace (docs/API.md §Real-time socket). */
export const orderTopic = (workspaceId: number, userId: number) => topics.ofUser(workspaceId, userId, 'sales_orders')

/**
 * Prices the lines for `outlet` (pricedOutlet: a missing one is 404 OUTLET_NOT_FOUND before any line is
 * looked at) on `day`. A line whose product and quantity are those of a line in `kept`
 * (the creator's edit) keeps its frozen price; every other line is priced now. Every problem of every line
 * is reported at once, keyed `lines.<i>.<field>` (400 VALIDATION_ERROR), and nothing is written.
 */
async function priceLines(
  db: Db,
  workspaceId: number,
  outlet: PricedOutlet,
  day: string,
  lines: readonly LineInput[],
  kept: ReadonlyMap<number, PricedLine> = new Map(),
): Promise<PricedLine[]> {
  const errors: Record<string, string[]> = {}
  const seen = new Set<number>()
  for (const [i, line] of lines.entries()) {
    if (seen.has(line.product_id)) errors[`lines.${i}.product_id`] = ['appears twice: order a product once, with its whole quantity']
    seen.add(line.product_id)
    if (discountBasisPoints(line.discount_pct ?? 0) === null) errors[`lines.${i}.discount_pct`] = ['must be 0–100 with at most 2 decimals']
  }
  const ids = [...seen]
  const products = await orderedProducts(db, workspaceId, ids)
  const lists = await priceListsFor(db, workspaceId, outlet, day, ids)
  const productOf = new Map(products.map((product) => [product.id, product]))
  const priced: PricedLine[] = []
  for (const [i, line] of lines.entries()) {
    const product = productOf.get(line.product_id)
    const at = `lines.${i}.product_id`
    if (!product) {
      errors[at] ??= [`product ${line.product_id} does not exist`]
      continue
    }
    const discount_bp = discountBasisPoints(line.discount_pct ?? 0) ?? 0
    const frozen = kept.get(line.product_id)
    if (frozen && frozen.quantity === line.quantity) {
      priced.push({ ...frozen, discount_bp })
      continue
    }
    const price = resolvePrice(outlet, day, lists, { id: product.id, price: product.price }, line.quantity)
    if (!price) {
      errors[at] ??= ['has no price for this outlet: ask the office to price it']
      continue
    }
    priced.push({
      product_id: product.id,
      sku: product.sku,
      name: product.name,
      unit: product.unit,
      quantity: line.quantity,
      unit_price: price.price,
      discount_bp,
    })
  }
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
  return priced
}

/** The amounts of priced lines, or 400 naming the line at which the order grows past what JSON holds exactly. */
function totalsOf(lines: readonly PricedLine[]) {
  const totals = orderTotals(lines.map((line) => ({ quantity: line.quantity, unit_price: line.unit_price, discount_bp: line.discount_bp ?? 0 })))
  if (!totals.ok) throw new ValidationFailed(Object.fromEntries(Object.entries(totals.errors).map(([key, message]) => [key, [message]])))
  return totals
}

/** The order's lines as priced; `replace` removes the ones it had first (the creator's edit). */
async function writeLines(tx: Db, orderId: number, lines: readonly PricedLine[], lineTotals: readonly number[], replace: boolean) {
  if (replace) await tx.delete(salesOrderLines).where(eq(salesOrderLines.order_id, orderId))
  await insertOrderLines(
    tx,
    orderId,
    lines.map((line, i) => ({ ...line, line_total: lineTotals[i] })),
  )
}

/** After the commit: the creator's sockets hear of the order (every change, whoever made it). */
function announce(scope: TxScope, ctx: AuthedContext, order: SalesOrder) {
  scope.afterCommit(() =>
    ctx.deps.hub.publish(orderTopic(ctx.actor.workspaceId, order.user.id), {
      type: 'sales_order.updated',
      data: { id: order.id, number: order.number, status: order.status, visit_id: order.visit_id },
    }),
  )
}

/** POST /app/v1/visits/:id/sales-orders: the assignee's order at their visit in progress. */
export function createSalesOrder(ctx: AuthedContext, visitId: number, input: SalesOrderInput): Promise<SalesOrder> {
  const { workspaceId, userId } = ctx.actor
  return withTransaction(ctx, async (scope) => {
    const { tx } = scope
    const visit = await findVisit(tx, ctx, visitId, { mine: true })
    if (visit.status !== 'in_progress') throw new VisitStateConflict('INVALID_VISIT_STATUS', visit.status)
    const now = ctx.deps.clock.now()
    const day = localDate(now, ctx.actor.timeZone)
    const outlet = await pricedOutlet(tx, workspaceId, visit.outlet_id, userId)
    const lines = await priceLines(tx, workspaceId, outlet, day, input.lines)
    const totals = totalsOf(lines)
    const number = formatOrderNumber(day, await allocateOrderNumber(tx, workspaceId))
    const stamp = now.toISOString()
    const row = {
      number,
      status: 'submitted' as const,
      visit_id: visit.id,
      outlet_id: visit.outlet_id,
      user_id: userId,
      order_date: day,
      currency: outlet.currency,
      subtotal: totals.subtotal,
      discount_total: totals.discount_total,
      total: totals.total,
      notes: input.notes ?? null,
      created_at: stamp,
      updated_at: stamp,
    }
    const id = await insertSalesOrder(tx, workspaceId, row)
    await writeLines(tx, id, lines, totals.line_totals, false)
    // The order as GET …/sales-orders/:id answers it, from what was just written in this transaction
    // (reading it back cost two statements and their row mapping per order; docs/PERFORMANCE.md).
    const order: SalesOrder = {
      id,
      number,
      status: row.status,
      visit_id: row.visit_id,
      order_date: day,
      currency: row.currency,
      subtotal: row.subtotal,
      discount_total: row.discount_total,
      total: row.total,
      notes: row.notes,
      reason: null,
      created_at: stamp,
      updated_at: stamp,
      outlet: { id: row.outlet_id, name: outlet.name },
      user: { id: userId, name: outlet.user_name },
      lines: lines.map((line, i) => ({
        product_id: line.product_id,
        sku: line.sku,
        name: line.name,
        unit: line.unit ?? null,
        quantity: line.quantity,
        unit_price: line.unit_price,
        line_total: totals.line_totals[i],
        discount_pct: basisPointsToPct(line.discount_bp ?? 0),
      })),
    }
    await scope.audit({ entityType: 'sales_order', entityId: order.id, entityName: order.number, action: 'created', newValues: order })
    announce(scope, ctx, order)
    return order
  })
}

async function orderRow(tx: Db, workspaceId: number, id: number, owner: number | null): Promise<OrderRow> {
  const row = await salesOrderScope.find(tx, workspaceId, id)
  if (!row || (owner !== null && row.user_id !== owner)) throw new NotFound('SALES_ORDER')
  return row
}

const DONE: Record<OrderAction, string> = { approve: 'approved', reject: 'rejected', deliver: 'delivered', cancel: 'cancelled', edit: 'edited' }

function refuseUnless(row: OrderRow, action: OrderAction, actor: OrderActor) {
  const result = orderTransition(row.status, action, actor)
  if (!result.ok) throw new AppError(result.error, `a ${row.status} order cannot be ${DONE[action]}`, { status: [row.status] })
  return result.to
}

/** PUT /app/v1/sales-orders/:id: the creator changes their order while it is submitted; unchanged lines keep their price. */
export function updateSalesOrder(ctx: AuthedContext, id: number, input: SalesOrderInput): Promise<SalesOrder> {
  const { workspaceId, userId } = ctx.actor
  return withTransaction(ctx, async (scope) => {
    const { tx } = scope
    const row = await orderRow(tx, workspaceId, id, userId)
    refuseUnless(row, 'edit', 'creator')
    const before = await getSalesOrder(tx, workspaceId, id)
    const kept = new Map<number, PricedLine>(
      before.lines.map(({ discount_pct, line_total: _total, ...line }) => [line.product_id, { ...line, discount_bp: discountBasisPoints(discount_pct) ?? 0 }]),
    )
    const lines = await priceLines(tx, workspaceId, await pricedOutlet(tx, workspaceId, row.outlet_id), row.order_date, input.lines, kept)
    const totals = totalsOf(lines)
    await tx
      .update(salesOrders)
      .set({
        subtotal: totals.subtotal,
        discount_total: totals.discount_total,
        total: totals.total,
        notes: input.notes === undefined ? row.notes : input.notes,
        updated_at: ctx.deps.clock.now().toISOString(),
      })
      .where(eq(salesOrders.id, id))
    await writeLines(tx, id, lines, totals.line_totals, true)
    const after = await getSalesOrder(tx, workspaceId, id)
    await scope.audit({ entityType: 'sales_order', entityId: id, entityName: after.number, action: 'updated', before, after })
    announce(scope, ctx, after)
    return after
  })
}

/**
 * A decision on an order: approve, reject, deliver or cancel (the office), or cancel (its creator, while
 * submitted). Decided inside the write transaction, against the status as committed: of concurrent
 * decisions exactly one finds the order in the status it needs; the others answer 409.
 */
export function decideSalesOrder(ctx: AuthedContext, id: number, action: Exclude<OrderAction, 'edit'>, actor: OrderActor, input?: ReasonInput) {
  const { workspaceId, userId } = ctx.actor
  return withTransaction(ctx, async (scope) => {
    const { tx } = scope
    const row = await orderRow(tx, workspaceId, id, actor === 'creator' ? userId : null)
    const to = refuseUnless(row, action, actor)
    const before = await getSalesOrder(tx, workspaceId, id)
    const reason = input?.reason.trim()
    await tx
      .update(salesOrders)
      .set({ status: to, ...(reason !== undefined && { reason }), updated_at: ctx.deps.clock.now().toISOString() })
      .where(sql`${salesOrders.id} = ${id} and ${salesOrders.status} = ${row.status}`)
    const after = await getSalesOrder(tx, workspaceId, id)
    await scope.audit({ entityType: 'sales_order', entityId: id, entityName: after.number, action: 'updated', before, after })
    announce(scope, ctx, after)
    return after
  })
}

export const getOfficeOrder = (ctx: AuthedContext, id: number) => getSalesOrder(ctx.deps.db.read, ctx.actor.workspaceId, id)
export const getPhoneOrder = (ctx: AuthedContext, id: number) => getSalesOrder(ctx.deps.db.read, ctx.actor.workspaceId, id, ctx.actor.userId)

const presentPage = (page: Page<Parameters<typeof presentListItem>[0]>): Page<SalesOrderListItem> => ({ ...page, rows: page.rows.map(presentListItem) })
export const listOfficeOrders = async (ctx: AuthedContext, query: OfficeOrderQuery) => presentPage(await officeOrderList(ctx, query))
export const listPhoneOrders = async (ctx: AuthedContext, query: PhoneOrderQuery) => presentPage(await phoneOrderList(ctx, query))
