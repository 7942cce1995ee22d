/** What the orders module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import { can } from '../../platform/permissions'
import { orderTopic } from './orders.service'
import { salesOrdersByIds } from './orders.queries'

export const ordersManifest = {
  permissions: [
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
  auditEntityTypes: ['sales_order'],
  // `sales_order.updated` reaches the creator's sockets (every change of their order, whoever made it).
  socketChannels: [
    { topics: ({ permissions, workspaceId, userId }) => (can(permissions, 'sales_order:view', 'mobile', 'view') ? [orderTopic(workspaceId, userId)] : []) },
  ],
  syncFeed: [
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
    price_lists: 'price lists reach phones with the price-list routes',
  },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'sales_order', true> {}
}
