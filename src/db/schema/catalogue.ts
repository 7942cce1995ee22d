/** What a principal sells: products with a SKU unique per workspace. */
import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { createdAt, deletedAt, id, updatedAt } from '../columns'
import { principals } from './operations'
import { workspaces } from './workspaces'

export const products = sqliteTable(
  'products',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    sku: text('sku').notNull(),
    sku_key: text('sku_key').notNull(),
    principal_id: integer('principal_id').references(() => principals.id),
    /** The list price: an integer ≥ 0 in the workspace currency's smallest unit (migration 0022 made it INTEGER). */
    price: integer('price'),
    unit: text('unit'),
    barcode: text('barcode'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('products_workspace_sku_live').on(t.workspace_id, t.sku_key).where(sql`deleted_at is null`),
    index('products_workspace_created_live').on(t.workspace_id, t.created_at).where(sql`deleted_at is null`),
    index('products_workspace_principal').on(t.workspace_id, t.principal_id),
  ],
)
