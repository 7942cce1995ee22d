/** What the orders module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { can, entityPermissions } from '../../platform/permissions'
import { orderTopic } from './orders.service'
import { salesOrdersByIds } from './orders.queries'
import { priceListsByIds } from './price-lists.service'

export const ordersManifest = {
  permissions: [
    // Managers view price lists on the web (every `.view` key); field users, and managers, view them on the
    // phone, where they arrive through /app/v1/sync to price orders offline. Only admins manage them.
    ...entityPermissions('price_list', 'price lists', 'orders', { fieldUser: 'view' }),
    {
      key: 'sales_order:view',
      group: 'sales orders',
      description: 'Read sales orders (the office: all of the workspace; the phone: one’s own)',
      grants: { fieldUser: 'view', manager: 'view' },
    },
    {
      key: 'sales_order:create',
      group: 'sales orders',
      description: 'Take orders at own visits; edit and cancel them while submitted',
      grants: { fieldUser: 'full' },
    },
    { key: 'sales_order:approve', group: 'sales orders', description: 'Approve, reject, deliver and cancel sales orders', grants: { manager: 'full' } },
  ],
  auditEntityTypes: ['price_list', 'sales_order'],
  // `sales_order.updated` reaches the creator's sockets (every change of their order, whoever made it).
  socketChannels: [
    { topics: ({ permissions, workspaceId, userId }) => (can(permissions, 'sales_order:view', 'mobile', 'view') ? [orderTopic(workspaceId, userId)] : []) },
  ],
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
    {
      // An order reaches its creator's phone only; the office feed carries every order.
      table: 'sales_orders',
      entity: {
        name: 'sales_order',
        reach: 'owner',
        owner: 'user_id',
        deletes: 'hard',
        webKey: 'sales_order:view',
        mobileKey: 'sales_order:view',
        load: salesOrdersByIds,
      },
      // An order shows its outlet {id, name} and its creator {id, name}.
      shows: [
        { table: 'outlets', columns: ['name'], via: 'outlet_id' },
        {
          table: 'users',
          columns: ['name'],
          rows: (r) => `SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id, user_id AS owner_id FROM sales_orders WHERE user_id = ${r}.id`,
        },
      ],
    },
    // Lines are written with their order, in the same transaction that changes the order's row: no trigger of their own.
  ],
  notSynced: {
    order_counters: 'a per-workspace counter of order numbers, read and raised only inside an order’s own transaction',
    sales_order_lines: 'part of their order: every write of lines changes the order’s row in the same transaction, and the order carries them',
  },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'price_list' | 'sales_order', true> {}
}
