/**
 * Query parts of the order lists (docs/API.md §Orders) that the indexes of src/db/schema/orders.ts are built for.
 */
import { type SQL, between, eq, gte, lte } from 'drizzle-orm'
import { salesOrders } from '../../db/schema'
import type { SalesOrderStatus } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'

/** Orders are never deleted (docs/API.md §Orders): the scope is the workspace alone. */
export const salesOrderScope = workspaceScoped(salesOrders)

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
