/**
 * Price lists (office CRUD) and the phone's price sheet (docs/API.md §Price lists and the phone's price sheet).
 *
 * - A list is the workspace default (neither id), a channel's or an account's: at most one of `channel_id` and
 *   `account_id`, each a live row of the caller's workspace. Its items are tiers `{product_id, price, min_qty}`,
 *   a product and `min_qty` at most once, each product a live product of the workspace.
 * - A list and its items are written in one transaction with the audit entry, whose values hold the items.
 *   An update that gives `items` replaces them, writing only the difference (so an unchanged tier is not
 *   rewritten, and the change log is not churned for it).
 * - The price sheet applies the pure rule of ./pricing.ts (`winningLists`, `tiersFor`) to one read of the
 *   outlet, of the workspace's live list headers, of the winning lists' items and of the products: four
 *   queries whatever the number of products or lists.
 */
import { asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { accounts, channels, outlets, priceListItems, priceLists, products } from '../../db/schema'
import { NotFound, ValidationFailed } from '../../lib/errors'
import { localDate } from '../../lib/time-zones'
import type { AuthedContext } from '../../platform/context'
import { defineList } from '../../platform/data/list'
import { DEFAULT_LIST } from '../../platform/data/pagination'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import { priceListHeaders, priceListScope } from './orders.queries'
import { levelOf, type PriceList, tiersFor, winningLists } from './pricing'
import type { PriceListInput, PriceListQuery, PriceListUpdate, PriceSheetQuery } from './price-lists.schemas'

const productScope = workspaceScoped(products)
const channelScope = workspaceScoped(channels)
const accountScope = workspaceScoped(accounts)
const outletScope = workspaceScoped(outlets)

/** Rows per INSERT or `IN (…)` of items: far below SQLite's bound-variable limit on both drivers. */
const CHUNK = 500

type ListRow = typeof priceLists.$inferSelect
export interface PriceListItemOut {
  product_id: number
  price: number
  min_qty: number
}

const present = (row: ListRow, items: PriceListItemOut[]) => ({ ...row, level: levelOf(row), items })
export type PriceListDetail = ReturnType<typeof present>

const chunks = <T>(values: readonly T[]): T[][] => Array.from({ length: Math.ceil(values.length / CHUNK) }, (_, i) => values.slice(i * CHUNK, (i + 1) * CHUNK))

/** The items of these lists, by list, each sorted by product then min_qty. */
async function itemsOf(db: Db, listIds: number[]): Promise<Map<number, PriceListItemOut[]>> {
  const byList = new Map<number, PriceListItemOut[]>(listIds.map((id) => [id, []]))
  for (const part of chunks(listIds)) {
    const rows = await db
      .select({ list: priceListItems.price_list_id, product_id: priceListItems.product_id, price: priceListItems.price, min_qty: priceListItems.min_qty })
      .from(priceListItems)
      .where(inArray(priceListItems.price_list_id, part))
      .orderBy(asc(priceListItems.price_list_id), asc(priceListItems.product_id), asc(priceListItems.min_qty))
    for (const { list, ...item } of rows) byList.get(list)?.push(item)
  }
  return byList
}

/** Live price lists of the workspace among `ids`, as the detail answers them (the change feeds' loader). */
export async function priceListsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  const rows = await priceListScope.findManyBy(db, workspaceId, priceLists.id, ids)
  const items = await itemsOf(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => present(row, items.get(row.id) ?? []))
}

async function findPriceList(db: Db, workspaceId: number, id: number): Promise<PriceListDetail> {
  const [found] = await priceListsByIds(db, workspaceId, [id])
  if (!found) throw new NotFound('PRICE_LIST')
  return found
}

export const getPriceList = (ctx: AuthedContext, id: number) => findPriceList(ctx.deps.db.read, ctx.actor.workspaceId, id)

// Spelled out: inside a subquery Drizzle would print the columns unqualified, and `id` would be the item's.
const itemCount = sql<number>`(select count(*) from "price_list_items" "i" where "i"."price_list_id" = "price_lists"."id")`.mapWith(Number)

const priceListList = defineList({
  scope: priceListScope,
  select: (db: Db, where) =>
    db
      .select({
        id: priceLists.id,
        workspace_id: priceLists.workspace_id,
        name: priceLists.name,
        channel_id: priceLists.channel_id,
        account_id: priceLists.account_id,
        valid_from: priceLists.valid_from,
        valid_to: priceLists.valid_to,
        created_at: priceLists.created_at,
        updated_at: priceLists.updated_at,
        deleted_at: priceLists.deleted_at,
        item_count: itemCount,
      })
      .from(priceLists)
      .where(where),
  // A workspace keeps a handful of lists: the name is scanned (lower-cased), no search index.
  search: { columns: [sql`lower(${priceLists.name})`] },
  filters: {
    channel_id: (id: number) => eq(priceLists.channel_id, id),
    account_id: (id: number) => eq(priceLists.account_id, id),
  },
  sort: { created_at: priceLists.created_at, updated_at: priceLists.updated_at, name: sql`lower(${priceLists.name})`, id: priceLists.id },
  limits: DEFAULT_LIST,
})

export async function listPriceLists(ctx: AuthedContext, query: PriceListQuery) {
  const page = await priceListList(ctx, query)
  return { rows: page.rows.map((row) => ({ ...row, level: levelOf(row) })), meta: page.meta }
}

// ── Writing ─────────────────────────────────────────────────────────────────────────────────────

type Level = Pick<ListRow, 'channel_id' | 'account_id' | 'valid_from' | 'valid_to'>

/**
 * The list's level and validity after this write, checked: each id a live row of the workspace, not both
 * ids, `valid_from ≤ valid_to`. On an update, a body that names either id sets the level (the other becomes
 * null); dates not given keep their stored values.
 */
async function checkedLevel(tx: Db, workspaceId: number, input: PriceListUpdate, stored?: Level): Promise<Level> {
  const errors: Record<string, string[]> = {}
  if (input.channel_id != null && !(await channelScope.find(tx, workspaceId, input.channel_id)))
    errors.channel_id = [`channel ${input.channel_id} does not exist`]
  if (input.account_id != null && !(await accountScope.find(tx, workspaceId, input.account_id)))
    errors.account_id = [`account ${input.account_id} does not exist`]
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
  const namesLevel = input.channel_id !== undefined || input.account_id !== undefined
  const level: Level = {
    channel_id: namesLevel ? (input.channel_id ?? null) : (stored?.channel_id ?? null),
    account_id: namesLevel ? (input.account_id ?? null) : (stored?.account_id ?? null),
    valid_from: input.valid_from !== undefined ? input.valid_from : (stored?.valid_from ?? null),
    valid_to: input.valid_to !== undefined ? input.valid_to : (stored?.valid_to ?? null),
  }
  if (level.channel_id !== null && level.account_id !== null) {
    const message = 'a price list is for a channel or for an account, not both: give one of channel_id and account_id'
    throw new ValidationFailed({ channel_id: [message], account_id: [message] })
  }
  if (level.valid_from !== null && level.valid_to !== null && level.valid_from > level.valid_to) {
    throw ValidationFailed.field('valid_to', `must be on or after valid_from (${level.valid_from})`)
  }
  return level
}

/** The items as stored: `min_qty` 1 when not given; a product and min_qty once; every product live in the workspace. */
async function checkedItems(tx: Db, workspaceId: number, items: PriceListInput['items']): Promise<PriceListItemOut[]> {
  const errors: Record<string, string[]> = {}
  const seen = new Map<string, number>()
  const normalised = items.map((item, i) => {
    const out = { product_id: item.product_id, price: item.price, min_qty: item.min_qty ?? 1 }
    const key = `${out.product_id}:${out.min_qty}`
    const first = seen.get(key)
    if (first !== undefined) errors[`items.${i}.product_id`] = [`product ${out.product_id} with min_qty ${out.min_qty} is already item ${first}`]
    else seen.set(key, i)
    return out
  })
  const ids = [...new Set(normalised.map((item) => item.product_id))]
  const live = new Set<number>()
  for (const part of chunks(ids)) for (const row of await productScope.findManyBy(tx, workspaceId, products.id, part)) live.add(row.id)
  for (const [i, item] of normalised.entries()) {
    if (!live.has(item.product_id)) errors[`items.${i}.product_id`] = [`product ${item.product_id} does not exist`]
  }
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
  return normalised
}

/** Makes the list's items exactly `wanted`, writing only the difference. */
async function replaceItems(tx: Db, listId: number, wanted: PriceListItemOut[]) {
  const stored = await tx
    .select({ id: priceListItems.id, product_id: priceListItems.product_id, price: priceListItems.price, min_qty: priceListItems.min_qty })
    .from(priceListItems)
    .where(eq(priceListItems.price_list_id, listId))
  const keyOf = (item: { product_id: number; min_qty: number }) => `${item.product_id}:${item.min_qty}`
  const byKey = new Map(stored.map((row) => [keyOf(row), row]))
  const wantedKeys = new Set(wanted.map(keyOf))
  const gone = stored.filter((row) => !wantedKeys.has(keyOf(row))).map((row) => row.id)
  for (const part of chunks(gone)) await tx.delete(priceListItems).where(inArray(priceListItems.id, part))
  const added: (typeof priceListItems.$inferInsert)[] = []
  const repriced: { id: number; price: number }[] = []
  for (const item of wanted) {
    const row = byKey.get(keyOf(item))
    if (!row) added.push({ price_list_id: listId, ...item })
    else if (row.price !== item.price) repriced.push({ id: row.id, price: item.price })
  }
  // New prices of kept tiers: one UPDATE per chunk (`CASE id WHEN … THEN …`), not one per tier.
  for (const part of chunks(repriced)) {
    const price = sql`CASE ${priceListItems.id} ${sql.join(
      part.map((row) => sql`WHEN ${row.id} THEN ${row.price}`),
      sql` `,
    )} END`
    await tx
      .update(priceListItems)
      .set({ price })
      .where(
        inArray(
          priceListItems.id,
          part.map((row) => row.id),
        ),
      )
  }
  for (const part of chunks(added)) await tx.insert(priceListItems).values(part)
}

export function createPriceList(ctx: AuthedContext, input: PriceListInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const workspaceId = ctx.actor.workspaceId
    const level = await checkedLevel(tx, workspaceId, input)
    const items = await checkedItems(tx, workspaceId, input.items)
    const now = ctx.deps.clock.now().toISOString()
    const row = await priceListScope.insert(tx, workspaceId, { name: input.name, ...level, created_at: now, updated_at: now })
    await replaceItems(tx, row.id, items)
    const result = await findPriceList(tx, workspaceId, row.id)
    await audit({ entityType: 'price_list', entityId: row.id, entityName: row.name, action: 'created', newValues: result })
    return result
  })
}

export function updatePriceList(ctx: AuthedContext, id: number, input: PriceListUpdate) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const workspaceId = ctx.actor.workspaceId
    const before = await findPriceList(tx, workspaceId, id)
    const level = await checkedLevel(tx, workspaceId, input, before)
    const items = input.items === undefined ? null : await checkedItems(tx, workspaceId, input.items)
    await priceListScope.update(tx, workspaceId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...level,
      updated_at: ctx.deps.clock.now().toISOString(),
    })
    if (items) await replaceItems(tx, id, items)
    const after = await findPriceList(tx, workspaceId, id)
    await audit({ entityType: 'price_list', entityId: id, entityName: after.name, action: 'updated', before, after })
    return after
  })
}

/** Soft delete: the list stops applying at once; its items stay with it (the audit entry holds them too). */
export function deletePriceList(ctx: AuthedContext, id: number) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const workspaceId = ctx.actor.workspaceId
    const before = await findPriceList(tx, workspaceId, id)
    const deleted = (await priceListScope.softDelete(tx, workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'price_list', entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
    return { ...before, deleted_at: deleted.deleted_at, updated_at: deleted.updated_at }
  })
}

// ── The phone's price sheet ─────────────────────────────────────────────────────────────────────

/**
 * GET /app/v1/outlets/:id/prices: per live product with a price for this outlet on the local `date` (default
 * today in the workspace's zone), the tiers the order will charge (./pricing.ts `tiersFor`). Products with
 * no price anywhere are left out. An outlet of another workspace, or deleted, is OUTLET_NOT_FOUND.
 */
export async function priceSheet(ctx: AuthedContext, outletId: number, query: PriceSheetQuery) {
  const db = ctx.deps.db.read
  const workspaceId = ctx.actor.workspaceId
  const day = query.date ?? localDate(ctx.deps.clock.now(), ctx.actor.timeZone)
  // The outlet, its live account and that account's channel.
  const [outlet] = await db
    .select({ account_id: accounts.id, channel_id: accounts.channel_id })
    .from(outlets)
    .leftJoin(accounts, accountScope.where(outlets.workspace_id, eq(accounts.id, outlets.account_id)))
    .where(outletScope.where(workspaceId, eq(outlets.id, outletId)))
    .limit(1)
  if (!outlet) throw new NotFound('OUTLET')
  const priced = { account_id: outlet.account_id ?? null, channel_id: outlet.channel_id ?? null }
  // The headers of the live lists that may apply to it on that day; the winners' items only.
  const headers = await priceListHeaders(db, workspaceId, priced, day)
  const winners = winningLists(
    priced,
    day,
    headers.map((header) => ({ ...header, items: [] })),
  )
  const items = await itemsOf(
    db,
    winners.map((list) => list.id),
  )
  const lists: PriceList[] = winners.map((list) => ({ ...list, items: items.get(list.id) ?? [] }))
  const catalogue = await db
    .select({ id: products.id, sku: products.sku, name: products.name, unit: products.unit, price: products.price })
    .from(products)
    .where(productScope.where(workspaceId))
    .orderBy(asc(products.name_key), asc(products.id))
  const sheet = tiersFor(priced, day, lists, catalogue)
  return catalogue.flatMap((product, i) =>
    sheet[i].tiers.length === 0 ? [] : [{ product_id: product.id, sku: product.sku, name: product.name, unit: product.unit, tiers: sheet[i].tiers }],
  )
}
