/**
 * Request and answer schemas of sales orders (docs/API.md §Orders). Money is integers in the workspace
 * currency's smallest unit; a discount is a percentage with at most 2 decimals (held as basis points).
 */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { SALES_ORDER_STATUSES } from '../../db/schema'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, OneOf, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'

/** The most lines one order may have. */
export const ORDER_LINES_MAX = 200
/** The largest quantity of one line: anything above is a typing slip, not an order. */
export const ORDER_QUANTITY_MAX = 1_000_000_000

const Money = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })
const Ref = Type.Object({ id: Type.Integer(), name: Type.String() })

export const SalesOrderLine = named(
  'SalesOrderLine',
  Type.Object({
    product_id: Type.Integer(),
    sku: Type.String({ description: 'The product’s SKU when the line was priced' }),
    name: Type.String({ description: 'The product’s name when the line was priced' }),
    unit: Nullable(Type.String()),
    quantity: Type.Integer({ minimum: 1 }),
    unit_price: Money('Resolved and frozen when the line was priced (docs/API.md §Orders, "Prices")'),
    discount_pct: Type.Number({ minimum: 0, maximum: 100, description: 'Percent, at most 2 decimals' }),
    line_total: Money('round_half_up(quantity × unit_price × (100 − discount_pct) / 100)'),
  }),
)

const orderFields = {
  id: Type.Integer(),
  number: Type.String({ description: '`SO-<YYYYMMDD local>-<n>`, n increasing per workspace', examples: ['SO-20261125-17'] }),
  status: Type.String({ enum: [...SALES_ORDER_STATUSES] }),
  visit_id: Type.Integer(),
  outlet: Ref,
  user: Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'Who took the order' }),
  order_date: Type.String({ format: 'date', description: 'The workspace’s local day the order was taken: the day it counts on' }),
  currency: Type.String({ description: 'ISO 4217; the workspace’s currency when the order was taken' }),
  subtotal: Money('Σ quantity × unit_price'),
  discount_total: Money('subtotal − total'),
  total: Money('Σ line_total'),
  notes: Nullable(Type.String()),
  reason: Nullable(Type.String({ description: 'Why it was last rejected or cancelled' })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}

export const SalesOrderSchema = named('SalesOrder', Type.Object({ ...orderFields, lines: Type.Array(SalesOrderLine) }))
export type SalesOrder = Static<typeof SalesOrderSchema>

export const SalesOrderListItem = named(
  'SalesOrderListItem',
  Type.Object({ ...orderFields, line_count: Type.Integer({ description: 'Read the lines with GET …/sales-orders/:id' }) }),
)
export type SalesOrderListItem = Static<typeof SalesOrderListItem>

const line = Type.Object({
  product_id: Id(),
  quantity: Type.Integer({ minimum: 1, maximum: ORDER_QUANTITY_MAX }),
  discount_pct: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent 0–100 with at most 2 decimals (12.5 = 12.5 %); default 0' })),
})

export const SalesOrderBody = Type.Object({
  lines: Type.Array(line, { minItems: 1, maxItems: ORDER_LINES_MAX, description: `1–${ORDER_LINES_MAX} lines, each product once` }),
  notes: OptionalText(2000),
})
export type SalesOrderInput = Static<typeof SalesOrderBody>

export const ReasonBody = Type.Object({ reason: RequiredText(1000, { multiline: true, description: 'Why (required, not blank)' }) })
export type ReasonInput = Static<typeof ReasonBody>

const QueryDate = (description: string) => t.Optional(t.String({ format: 'calendar-date', maxLength: 10, description }))
const phoneFilters = {
  status: t.Optional(OneOf(SALES_ORDER_STATUSES)),
  visit_id: QueryId('Orders of this visit'),
  date_from: QueryDate('order_date from (inclusive, local)'),
  date_to: QueryDate('order_date to (inclusive, local)'),
}
export const SORTABLE = ['created_at', 'updated_at', 'order_date', 'total'] as const

/** GET /office/v1/sales-orders */
export const OfficeOrderQuery = listQuery(
  {
    ...phoneFilters,
    outlet_id: QueryId('Orders of this outlet'),
    user_id: QueryId('Orders taken by this user'),
    team_id: QueryId('Orders taken by members of this team'),
  },
  SORTABLE,
)
export type OfficeOrderQuery = Static<typeof OfficeOrderQuery>

/** GET /app/v1/sales-orders: the caller's own orders. */
export const PhoneOrderQuery = listQuery(phoneFilters, SORTABLE)
export type PhoneOrderQuery = Static<typeof PhoneOrderQuery>
