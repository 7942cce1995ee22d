/**
 * What the orders module declares to the kernel (../../platform/manifest.ts). Its tables and rules are
 * in place (README.md beside this file). Price lists are served (./price-lists.routes.ts) and in the feeds;
 * the sales-order routes, and with them the creator's feed of orders, are not mounted yet.
 */
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'
import { priceListsByIds } from './price-lists.service'

export const ordersManifest = {
  // Managers view price lists on the web (every `.view` key); field users, and managers, view them on the
  // phone, where they arrive through /app/v1/sync to price orders offline. Only admins manage them.
  permissions: entityPermissions('price_list', 'price lists', 'orders', { fieldUser: 'view' }),
  auditEntityTypes: ['price_list'],
  syncFeed: [
    workspaceFeed('price_lists', 'price_list', 'price_list.view', priceListsByIds),
    // A list shows its items: any write of one (the services write them with the list, but so may SQL) changes the list.
    {
      table: 'price_list_items',
      refreshes: [
        {
          entity: 'price_list',
          rows: (r) =>
            `SELECT workspace_id AS ws, id, CASE WHEN price_lists.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM price_lists WHERE id = ${r}.price_list_id`,
        },
      ],
    },
  ],
  notSynced: {
    order_counters: 'a per-workspace counter of order numbers, read and raised only inside an order’s own transaction',
    sales_orders: 'no route serves orders yet; the creator’s feed is declared with the orders routes',
  },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'price_list', true> {}
}
