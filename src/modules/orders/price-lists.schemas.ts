/**
 * Price lists and the phone's price sheet (docs/API.md §Price lists and the phone's price sheet): request and
 * response shapes, defined once for validation, types and the OpenAPI document.
 */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { DateString } from '../../lib/dates'
import { listQuery } from '../../platform/data/pagination'
import { Amount, Id, MAX_ID, named, Nullable, NullableTimestamp, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'

/**
 * Tiers of one list, at most. A list is written in one transaction with its items, their change-log rows (a
 * trigger per item row) and its audit entry, while every other workspace's write waits; the bound keeps that
 * under the 250 ms the write lock may be held (docs/PERFORMANCE.md "Price lists and the price sheet": 5,000
 * tiers held it about twice that long on our machine). A larger catalogue is priced by its products' own
 * `price` where no list names them, and by several lists at different levels.
 */
export const PRICE_LIST_ITEMS_MAX = 2_000

const Level = Type.Union([Type.Literal('account'), Type.Literal('channel'), Type.Literal('default')], {
  description: 'account: account_id set; channel: channel_id set; default: neither (the workspace default list)',
})

const Item = Type.Object({
  product_id: Type.Integer(),
  price: Type.Integer({ description: 'Integer amount in the smallest unit of the workspace currency' }),
  min_qty: Type.Integer({ description: 'The price applies from this quantity up (tier); 1 when not given' }),
})

const listFields = {
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  name: Type.String(),
  level: Level,
  channel_id: Nullable(Type.Integer()),
  account_id: Nullable(Type.Integer()),
  valid_from: Nullable(Type.String({ description: 'First local day the list applies (inclusive); null: open' })),
  valid_to: Nullable(Type.String({ description: 'Last local day the list applies (inclusive); null: open' })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  deleted_at: NullableTimestamp(),
}

export const PriceListSchema = named('PriceList', Type.Object({ ...listFields, items: Type.Array(Item, { description: 'By product_id, then min_qty' }) }))
export const PriceListSummarySchema = named(
  'PriceListSummary',
  Type.Object({ ...listFields, item_count: Type.Integer({ description: 'Its items (the detail lists them)' }) }),
)

const ItemInput = Type.Object({
  product_id: Id({ description: 'A live product of the workspace' }),
  price: Amount({ description: 'Integer ≥ 0 in the smallest unit of the workspace currency (IDR: whole rupiah)' }),
  min_qty: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Tier: from this quantity up (default 1); a product and min_qty once per list' }),
  ),
})

const fields = {
  name: RequiredText(255),
  channel_id: Type.Optional(Nullable(Id({ description: 'A channel list (not with account_id)' }))),
  account_id: Type.Optional(Nullable(Id({ description: 'An account list (not with channel_id)' }))),
  valid_from: Type.Optional(Nullable(DateString({ description: 'Local date, inclusive; absent or null: open' }))),
  valid_to: Type.Optional(Nullable(DateString({ description: 'Local date, inclusive, ≥ valid_from; absent or null: open' }))),
  items: Type.Array(ItemInput, { maxItems: PRICE_LIST_ITEMS_MAX, description: `At most ${PRICE_LIST_ITEMS_MAX}` }),
}

export const PriceListInput = Type.Object(fields)
export type PriceListInput = Static<typeof PriceListInput>
/** An update: the create body with every field optional; `items`, when given, replaces the list's items. */
export const PriceListUpdate = Type.Object({ ...fields, name: Type.Optional(fields.name), items: Type.Optional(fields.items) }, { minProperties: 1 })
export type PriceListUpdate = Static<typeof PriceListUpdate>

export const PriceListQuery = listQuery({
  channel_id: QueryId('Lists of this channel'),
  account_id: QueryId('Lists of this account'),
})
export type PriceListQuery = Static<typeof PriceListQuery>

export const PriceSheetQuery = t.Object({
  date: t.Optional(DateString({ description: "The local day to price (default: today in the workspace's zone)" })),
})
export type PriceSheetQuery = Static<typeof PriceSheetQuery>

export const PriceSheetSchema = named(
  'PriceSheetItem',
  Type.Object({
    product_id: Type.Integer(),
    sku: Type.String(),
    name: Type.String(),
    unit: Nullable(Type.String()),
    tiers: Type.Array(Type.Object({ min_qty: Type.Integer(), price: Type.Integer() }), {
      description: 'Lowest min_qty first: a quantity pays the price of the highest min_qty ≤ it, or the lowest tier below them all',
    }),
  }),
)
