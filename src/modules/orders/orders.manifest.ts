/**
 * What the orders module declares to the kernel (../../platform/manifest.ts). Its tables and rules are
 * in place (README.md beside this file); its routes, and with them the sync feed of price lists and
 * the creator's orders, are not mounted yet, so for now no phone or feed reaches these tables.
 */
import type { ModuleManifest } from '../../platform/manifest'

export const ordersManifest = {
  notSynced: {
    order_counters: 'a per-workspace counter of order numbers, read and raised only inside an order’s own transaction',
    price_lists: 'no route serves price lists yet; their feed is declared with the orders routes',
    sales_orders: 'no route serves orders yet; the creator’s feed is declared with the orders routes',
  },
} satisfies ModuleManifest
