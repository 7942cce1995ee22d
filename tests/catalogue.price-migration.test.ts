/**
 * Migration 0022 on both drivers: an older database whose products hold REAL prices upgrades to INTEGER prices,
 * a fractional price rounded half up, null kept; the table keeps its indexes, and the change-log and search
 * triggers the modules declare still stand (src/db/derived.ts finds nothing of products to redo) and still fire.
 */
import { describe, expect, test } from 'bun:test'
import { Database as SqliteDatabase } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { loadConfig } from '../src/config/env'
import { openDatabase } from '../src/db/client'
import { installDerived } from '../src/db/derived'
import { migrationsUpTo } from './support/database'
import { derivedObjects } from '../src/modules/index'

const NOW = '2026-11-25T08:00:00.000Z'
/** REAL price as an older release stored it → the INTEGER after the upgrade. */
const PRICES: [number | null, number | null][] = [
  [12.5, 13],
  [12.49, 12],
  [0.5, 1],
  [0, 0],
  [15_000, 15_000],
  [999_999_999_999.5, 1_000_000_000_000],
  [null, null],
]

/** A database file migrated up to (not including) 0022, with products at the prices above. */
function olderDatabase(dir: string): string {
  const before = migrationsUpTo(dir, '_integer_product_price').folder
  const file = join(dir, 'app.db')
  const raw = new SqliteDatabase(file)
  migrate(drizzle(raw), { migrationsFolder: before })
  raw.run(`INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (1, 'W', '${NOW}', '${NOW}')`)
  for (const [i, [price]] of PRICES.entries()) {
    raw.run(
      `INSERT INTO products (id, workspace_id, name, name_key, sku, sku_key, price, created_at, updated_at) VALUES (?, 1, ?, ?, ?, ?, ?, '${NOW}', '${NOW}')`,
      [i + 1, `Soap ${i}`, `soap ${i}`, `SKU-${i}`, `sku-${i}`, price],
    )
  }
  expect(raw.query('SELECT typeof(price) AS type FROM products WHERE id = 1').get()).toEqual({ type: 'real' })
  raw.close()
  return file
}

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`migration 0022 (integer product prices) on ${driver}`, () => {
    test('REAL prices become INTEGER, rounded half up; indexes kept; the derived triggers stand and fire', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ffos-price-upgrade-'))
      try {
        const file = olderDatabase(dir)
        const db = await openDatabase(loadConfig({ DATABASE_URL: `file:${file}`, DATABASE_DRIVER: driver }))
        try {
          await db.migrate()
          const rows = await db.pragma('SELECT id, price, typeof(price) AS type FROM products ORDER BY id')
          expect(rows.map((row) => row.price)).toEqual(PRICES.map(([, after]) => after))
          expect(rows.map((row) => row.type)).toEqual(PRICES.map(([, after]) => (after === null ? 'null' : 'integer')))
          const columns = await db.pragma('PRAGMA table_info(products)')
          expect(columns.find((column) => column.name === 'price')?.type).toBe('INTEGER')
          expect(columns.map((column) => column.name)).not.toContain('price_int')
          const indexes = (
            await db.pragma("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'products' AND sql IS NOT NULL ORDER BY name")
          ).map((row) => row.name)
          expect(indexes).toEqual(['products_workspace_created_live', 'products_workspace_principal', 'products_workspace_sku_live'])
          // The upgrade re-sent every product to the phones (its UPDATE fired the change-log trigger).
          expect((await db.pragma("SELECT count(*) AS n FROM changes WHERE entity = 'product' AND op = 'upsert'"))[0].n).toBe(PRICES.length)
          // Nothing derived of products is missing or stale after the rename (the start installs only what was
          // declared since the migrations), and the triggers still fire.
          const installed = await installDerived(db, derivedObjects())
          // (Later declarations elsewhere are installed too; none of them names products on its first line.)
          expect(installed.filter((statement) => /products/.test(statement.split('\n')[0]))).toEqual([])
          await db.transaction(async (tx) => {
            await tx.run(sql.raw(`UPDATE products SET name = 'Shampoo', name_key = 'shampoo', updated_at = '${NOW}' WHERE id = 1`))
          })
          expect((await db.pragma('SELECT count(*) AS n FROM products_search WHERE products_search MATCH \'"shampoo"\''))[0].n).toBe(1)
        } finally {
          await db.close()
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}
