/**
 * Which price an outlet pays for a product on a local day (src/modules/orders/README.md; docs/API.md §Orders).
 * Pure: the caller loads the workspace's live price lists and the products; nothing here reads the database.
 *
 *   account list ──lacks the product──▶ channel list ──lacks it──▶ default list ──lacks it──▶ product.price
 *
 * - A list's level follows from its columns: `account_id` set → account, `channel_id` set → channel, neither →
 *   the workspace default. An account list applies to the outlet's account only, a channel list to the channel
 *   of the outlet's account only.
 * - A list is valid on a day when `valid_from ≤ day ≤ valid_to` (inclusive local dates; a missing bound is open).
 * - Of two lists valid at the same level, the later `valid_from` wins (an open start counts as the earliest),
 *   then the higher id. Only that winner speaks for its level: a product it lacks goes to the next level, not
 *   to the runner-up of the same level.
 * - Within the winning list, the product's item with the highest `min_qty` ≤ the quantity; a quantity below
 *   every tier takes the lowest tier's price. An item without `min_qty` has `min_qty` 1.
 */

export type PriceLevel = 'account' | 'channel' | 'default'

export interface PriceListItem {
  product_id: number
  price: number
  min_qty?: number | null
}

export interface PriceList {
  id: number
  account_id: number | null
  channel_id: number | null
  /** Inclusive local dates `YYYY-MM-DD`; null is an open bound. */
  valid_from: string | null
  valid_to: string | null
  /** Set on a deleted list, which never applies. */
  deleted_at?: string | null
  items: readonly PriceListItem[]
}

/** The outlet as pricing sees it: its account and that account's channel (both may be missing). */
export interface PricedOutlet {
  account_id: number | null
  channel_id: number | null
}

export interface PricedProduct {
  id: number
  /** The product's own list price; null when it has none. */
  price: number | null
}

export interface Tier {
  min_qty: number
  price: number
}

export interface ResolvedPrice {
  price: number
  /** Where the price came from: a list's level, or `product` for the product's own price. */
  level: PriceLevel | 'product'
  price_list_id: number | null
  /** The tier that applied (1 for the product's own price). */
  min_qty: number
}

const LEVELS: readonly PriceLevel[] = ['account', 'channel', 'default']

export function levelOf(list: Pick<PriceList, 'account_id' | 'channel_id'>): PriceLevel {
  if (list.account_id !== null) return 'account'
  if (list.channel_id !== null) return 'channel'
  return 'default'
}

export const isValidOn = (list: Pick<PriceList, 'valid_from' | 'valid_to'>, day: string): boolean =>
  (list.valid_from === null || list.valid_from <= day) && (list.valid_to === null || day <= list.valid_to)

function appliesTo(list: PriceList, outlet: PricedOutlet): boolean {
  switch (levelOf(list)) {
    case 'account':
      return outlet.account_id !== null && list.account_id === outlet.account_id
    case 'channel':
      return outlet.channel_id !== null && list.channel_id === outlet.channel_id
    default:
      return true
  }
}

/** True when `a` beats `b` at the same level: the later start, then the higher id. */
function beats(a: PriceList, b: PriceList): boolean {
  const fromA = a.valid_from ?? ''
  const fromB = b.valid_from ?? ''
  if (fromA !== fromB) return fromA > fromB
  return a.id > b.id
}

/** The winning list of each level for this outlet on this day, most specific level first. */
export function winningLists(outlet: PricedOutlet, day: string, lists: readonly PriceList[]): PriceList[] {
  const best = new Map<PriceLevel, PriceList>()
  for (const list of lists) {
    if (list.deleted_at || !isValidOn(list, day) || !appliesTo(list, outlet)) continue
    const level = levelOf(list)
    const current = best.get(level)
    if (!current || beats(list, current)) best.set(level, list)
  }
  return LEVELS.flatMap((level) => best.get(level) ?? [])
}

/** Each list's items grouped by product, built once per list object: a price sheet of many products stays linear. */
const tiersByProduct = new WeakMap<PriceList, Map<number, Tier[]>>()

/** The product's tiers in a list, lowest `min_qty` first (empty when the list lacks the product). */
export function tiersInList(list: PriceList, productId: number): readonly Tier[] {
  let byProduct = tiersByProduct.get(list)
  if (!byProduct) {
    byProduct = new Map()
    for (const item of list.items) {
      const tiers = byProduct.get(item.product_id) ?? []
      tiers.push({ min_qty: item.min_qty ?? 1, price: item.price })
      byProduct.set(item.product_id, tiers)
    }
    for (const tiers of byProduct.values()) tiers.sort((a, b) => a.min_qty - b.min_qty)
    tiersByProduct.set(list, byProduct)
  }
  return byProduct.get(productId) ?? []
}

/** The tier for a quantity: the highest `min_qty` ≤ quantity, else the lowest tier. `tiers` sorted, non-empty. */
export function tierFor(tiers: readonly Tier[], quantity: number): Tier {
  let chosen = tiers[0]
  for (const tier of tiers) if (tier.min_qty <= quantity) chosen = tier
  return chosen
}

/** The product's own price as a tier, or null when it has none usable (missing, negative or fractional). */
function productTier(product: PricedProduct): Tier | null {
  return product.price !== null && Number.isSafeInteger(product.price) && product.price >= 0 ? { min_qty: 1, price: product.price } : null
}

/**
 * The unit price of `quantity` of `product` for `outlet` on the local `day`, or null when neither a list
 * nor the product has a price (the order line is refused).
 */
export function resolvePrice(outlet: PricedOutlet, day: string, lists: readonly PriceList[], product: PricedProduct, quantity: number): ResolvedPrice | null {
  for (const list of winningLists(outlet, day, lists)) {
    const tiers = tiersInList(list, product.id)
    if (tiers.length === 0) continue
    const tier = tierFor(tiers, quantity)
    return { price: tier.price, level: levelOf(list), price_list_id: list.id, min_qty: tier.min_qty }
  }
  const own = productTier(product)
  return own && { price: own.price, level: 'product', price_list_id: null, min_qty: 1 }
}

export interface ProductTiers {
  product_id: number
  /** Lowest `min_qty` first; empty when the product has no price at all. */
  tiers: Tier[]
}

/**
 * The phone's price sheet for an outlet on a day (`GET /app/v1/outlets/:id/prices`): per product, the tiers of
 * the list that wins for it, or its own price as the single tier `min_qty` 1. The phone applies the same rule
 * as `tierFor` (a quantity below every tier takes the lowest one), so it shows what the order will charge.
 */
export function tiersFor(outlet: PricedOutlet, day: string, lists: readonly PriceList[], products: readonly PricedProduct[]): ProductTiers[] {
  const winners = winningLists(outlet, day, lists)
  return products.map((product) => {
    for (const list of winners) {
      const tiers = tiersInList(list, product.id)
      if (tiers.length > 0) return { product_id: product.id, tiers: tiers.map((tier) => ({ ...tier })) }
    }
    const own = productTier(product)
    return { product_id: product.id, tiers: own ? [own] : [] }
  })
}
