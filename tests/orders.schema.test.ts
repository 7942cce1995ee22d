/**
 * The tables of sales orders and price lists (src/db/schema/orders.ts, drizzle/0020_sales_orders.sql) on both
 * drivers: a fresh database migrates, the tables, indexes and checks exist, and the list queries of
 * docs/API.md §Orders are index searches.
 */
import { describe, expect, test } from 'bun:test'
import { type SQL, desc, sql } from 'drizzle-orm'
import type { Database } from '../src/db/client'
import { salesOrders, workspaces } from '../src/db/schema'
import { orderListWhere } from '../src/modules/orders'
import { withDatabase } from './support/database'

const rows = <T>(db: Database, query: SQL) => db.read.all(query) as Promise<T[]>
const plan = async (db: Database, query: SQL) => (await rows<{ detail: string }>(db, sql`EXPLAIN QUERY PLAN ${query}`)).map((row) => row.detail).join('\n')
const now = '2026-11-25T01:00:00.000Z'

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`order tables on ${driver}`, () => {
    test('a fresh database has the tables, their indexes and the workspace currency', async () => {
      await withDatabase(driver, async (db) => {
        const objects = await rows<{ type: string; name: string }>(
          db,
          sql`select type, name from sqlite_master where name like '%order%' or name like 'price_list%' order by name`,
        )
        const names = objects.map((o) => `${o.type}:${o.name}`)
        for (const table of ['order_counters', 'price_list_items', 'price_lists', 'sales_order_lines', 'sales_orders'])
          expect(names).toContain(`table:${table}`)
        for (const index of [
          'price_list_items_list_product_qty',
          'price_lists_workspace_created_live',
          'price_lists_workspace_account_live',
          'price_lists_workspace_channel_live',
          'sales_order_lines_order_product',
          'sales_orders_workspace_number',
          'sales_orders_workspace_date',
          'sales_orders_workspace_status_date',
          'sales_orders_workspace_user_date',
          'sales_orders_visit_status',
        ])
          expect(names).toContain(`index:${index}`)
        const money = await rows<{ name: string; type: string }>(
          db,
          sql`select name, upper(type) as type from pragma_table_info('sales_orders') where name in ('subtotal', 'discount_total', 'total') order by name`,
        )
        expect(money).toEqual([
          { name: 'discount_total', type: 'INTEGER' },
          { name: 'subtotal', type: 'INTEGER' },
          { name: 'total', type: 'INTEGER' },
        ])
        await db.transaction(async (tx) => {
          await tx.insert(workspaces).values({ name: 'Distributor', created_at: now, updated_at: now })
        })
        expect((await db.read.select({ currency: workspaces.currency }).from(workspaces))[0].currency).toBe('IDR')
      })
    })

    test('the checks refuse a list of both a channel and an account, a negative price, a line above its gross, inconsistent totals', async () => {
      await withDatabase(driver, async (db) => {
        await db.transaction(async (tx) => {
          await tx.insert(workspaces).values({ name: 'Distributor', created_at: now, updated_at: now })
        })
        const refused = async (statement: SQL) => {
          let error: unknown
          await db
            .transaction(async (tx) => {
              // Foreign keys are checked at commit, so the CHECK is the only thing that can refuse the row.
              await tx.run(sql`PRAGMA defer_foreign_keys = ON`)
              await tx.run(statement)
            })
            .catch((e) => {
              error = e
            })
          expect(String((error as { cause?: unknown })?.cause ?? error)).toContain('CHECK constraint failed')
        }
        await refused(sql`insert into price_lists (workspace_id, name, channel_id, account_id, created_at, updated_at) values (1, 'x', 1, 1, ${now}, ${now})`)
        await refused(
          sql`insert into price_lists (workspace_id, name, valid_from, valid_to, created_at, updated_at) values (1, 'x', '2026-12-01', '2026-11-01', ${now}, ${now})`,
        )
        await refused(sql`insert into price_list_items (price_list_id, product_id, price, min_qty) values (1, 1, -1, 1)`)
        await refused(sql`insert into price_list_items (price_list_id, product_id, price, min_qty) values (1, 1, 1, 0)`)
        await refused(
          sql`insert into sales_order_lines (order_id, product_id, sku, name, quantity, unit_price, discount_bp, line_total) values (1, 1, 's', 'n', 2, 100, 0, 201)`,
        )
        await refused(
          sql`insert into sales_order_lines (order_id, product_id, sku, name, quantity, unit_price, discount_bp, line_total) values (1, 1, 's', 'n', 2, 100, 10001, 0)`,
        )
        await refused(
          sql`insert into sales_orders (workspace_id, number, visit_id, outlet_id, user_id, order_date, currency, subtotal, discount_total, total, created_at, updated_at)
              values (1, 'SO-20261125-1', 1, 1, 1, '2026-11-25', 'IDR', 100, 10, 80, ${now}, ${now})`,
        )
        await refused(
          sql`insert into sales_orders (workspace_id, number, status, visit_id, outlet_id, user_id, order_date, currency, subtotal, discount_total, total, created_at, updated_at)
              values (1, 'SO-20261125-1', 'shipped', 1, 1, 1, '2026-11-25', 'IDR', 100, 0, 100, ${now}, ${now})`,
        )
      })
    })

    test('the list queries of the office, the phone and the effective call are index searches', async () => {
      await withDatabase(driver, async (db) => {
        const list = (filter: Parameters<typeof orderListWhere>[1]) =>
          db.read.select().from(salesOrders).where(orderListWhere(1, filter)).orderBy(desc(salesOrders.order_date), desc(salesOrders.id)).limit(50).getSQL()
        const month = { date_from: '2026-11-01', date_to: '2026-11-30' }

        const office = await plan(db, list({ status: 'submitted', ...month }))
        expect(office).toMatch(
          /SEARCH sales_orders USING INDEX sales_orders_workspace_status_date \(workspace_id=\? AND status=\? AND order_date>\? AND order_date<\?\)/,
        )
        expect(office).not.toContain('TEMP B-TREE')
        for (const oneBound of [
          { status: 'approved' as const, date_from: '2026-11-01' },
          { status: 'approved' as const, date_to: '2026-11-30' },
        ]) {
          expect(await plan(db, list(oneBound))).toContain('USING INDEX sales_orders_workspace_status_date')
        }

        const byDate = await plan(db, list(month))
        expect(byDate).toMatch(/SEARCH sales_orders USING INDEX sales_orders_workspace_date \(workspace_id=\? AND order_date>\? AND order_date<\?\)/)
        expect(byDate).not.toContain('TEMP B-TREE')

        const own = await plan(db, list({ user_id: 7, ...month }))
        expect(own).toMatch(
          /SEARCH sales_orders USING INDEX sales_orders_workspace_user_date \(workspace_id=\? AND user_id=\? AND order_date>\? AND order_date<\?\)/,
        )
        expect(own).not.toContain('TEMP B-TREE')

        const effective = await plan(db, sql`select exists (select 1 from sales_orders where visit_id = 9 and status not in ('rejected', 'cancelled'))`)
        expect(effective).toContain('USING COVERING INDEX sales_orders_visit_status')

        const lines = await plan(db, sql`select * from sales_order_lines where order_id = 3 order by id`)
        expect(lines).toContain('USING INDEX sales_order_lines_order_product')

        const counter = await plan(db, sql`select last from order_counters where workspace_id = 1`)
        expect(counter).toContain('USING INTEGER PRIMARY KEY')
      })
    })
  })
}
