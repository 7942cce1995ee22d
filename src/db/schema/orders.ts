/**
 * Sales orders taken at visits, and the price lists that price them (src/modules/orders/README.md).
 * Money columns are INTEGER amounts in the currency's smallest unit (IDR: whole rupiah); a discount is held as
 * integer hundredths of a percent (`discount_bp`, 1250 = 12.5 %), never as a float.
 */
import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { createdAt, deletedAt, id, updatedAt } from '../columns'
import { products } from './catalogue'
import { users } from './identity'
import { accounts, channels } from './master-data'
import { outlets } from './operations'
import { visits } from './visits'
import { workspaces } from './workspaces'

const live = sql`deleted_at is null`

/** A price list: the workspace default (neither id), a channel's or an account's (at most one of them). */
export const priceLists = sqliteTable(
  'price_lists',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    channel_id: integer('channel_id').references(() => channels.id),
    account_id: integer('account_id').references(() => accounts.id),
    /** Inclusive local dates `YYYY-MM-DD` of the workspace's zone; NULL is an open bound. */
    valid_from: text('valid_from'),
    valid_to: text('valid_to'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    index('price_lists_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
    index('price_lists_workspace_account_live').on(t.workspace_id, t.account_id).where(live),
    index('price_lists_workspace_channel_live').on(t.workspace_id, t.channel_id).where(live),
    check('price_lists_one_level', sql`${t.channel_id} is null or ${t.account_id} is null`),
    check('price_lists_valid_range', sql`${t.valid_from} is null or ${t.valid_to} is null or ${t.valid_from} <= ${t.valid_to}`),
  ],
)

/** One tier of a product's price in a list: the price from `min_qty` units up. */
export const priceListItems = sqliteTable(
  'price_list_items',
  {
    id: id(),
    price_list_id: integer('price_list_id')
      .notNull()
      .references(() => priceLists.id),
    product_id: integer('product_id')
      .notNull()
      .references(() => products.id),
    price: integer('price').notNull(),
    min_qty: integer('min_qty').notNull().default(1),
  },
  (t) => [
    uniqueIndex('price_list_items_list_product_qty').on(t.price_list_id, t.product_id, t.min_qty),
    check('price_list_items_price', sql`${t.price} >= 0`),
    check('price_list_items_min_qty', sql`${t.min_qty} >= 1`),
  ],
)

export const SALES_ORDER_STATUSES = ['submitted', 'approved', 'rejected', 'delivered', 'cancelled'] as const
export type SalesOrderStatus = (typeof SALES_ORDER_STATUSES)[number]

/** An order taken at a visit. Never deleted; its amounts are frozen at creation (or at the creator's edit). */
export const salesOrders = sqliteTable(
  'sales_orders',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    /** `SO-<YYYYMMDD local>-<n>`, n from order_counters (src/modules/orders/order-number.ts). */
    number: text('number').notNull(),
    status: text('status').$type<SalesOrderStatus>().notNull().default('submitted'),
    visit_id: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    outlet_id: integer('outlet_id')
      .notNull()
      .references(() => outlets.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** The workspace's local day of creation, `YYYY-MM-DD`: the day every "today" figure counts it on. */
    order_date: text('order_date').notNull(),
    currency: text('currency').notNull(),
    subtotal: integer('subtotal').notNull(),
    discount_total: integer('discount_total').notNull(),
    total: integer('total').notNull(),
    notes: text('notes'),
    /** The reason of the last reject or cancel. */
    reason: text('reason'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [
    uniqueIndex('sales_orders_workspace_number').on(t.workspace_id, t.number),
    // The list filters of the office and the phone: a date range, alone or with a status or a user.
    index('sales_orders_workspace_date').on(t.workspace_id, t.order_date),
    index('sales_orders_workspace_status_date').on(t.workspace_id, t.status, t.order_date),
    index('sales_orders_workspace_user_date').on(t.workspace_id, t.user_id, t.order_date),
    // The effective call: does a visit have an order that is not rejected or cancelled? Answered from the index.
    index('sales_orders_visit_status').on(t.visit_id, t.status),
    check('sales_orders_status', sql`${t.status} in ('submitted', 'approved', 'rejected', 'delivered', 'cancelled')`),
    check('sales_orders_amounts', sql`${t.total} >= 0 and ${t.discount_total} >= 0 and ${t.subtotal} = ${t.total} + ${t.discount_total}`),
  ],
)

/** An order line; sku, name and unit are copies of the product at creation, so a later rename leaves the order as taken. */
export const salesOrderLines = sqliteTable(
  'sales_order_lines',
  {
    id: id(),
    order_id: integer('order_id')
      .notNull()
      .references(() => salesOrders.id),
    product_id: integer('product_id')
      .notNull()
      .references(() => products.id),
    sku: text('sku').notNull(),
    name: text('name').notNull(),
    unit: text('unit'),
    quantity: integer('quantity').notNull(),
    unit_price: integer('unit_price').notNull(),
    /** Hundredths of a percent, 0–10000. */
    discount_bp: integer('discount_bp').notNull().default(0),
    line_total: integer('line_total').notNull(),
  },
  (t) => [
    uniqueIndex('sales_order_lines_order_product').on(t.order_id, t.product_id),
    check('sales_order_lines_quantity', sql`${t.quantity} >= 1`),
    check('sales_order_lines_unit_price', sql`${t.unit_price} >= 0`),
    check('sales_order_lines_discount', sql`${t.discount_bp} between 0 and 10000`),
    check('sales_order_lines_total', sql`${t.line_total} between 0 and ${t.quantity} * ${t.unit_price}`),
  ],
)

/** The last order number `n` given out per workspace, taken in the order's own transaction. */
export const orderCounters = sqliteTable('order_counters', {
  workspace_id: integer('workspace_id')
    .primaryKey()
    .references(() => workspaces.id),
  last: integer('last').notNull().default(0),
})
