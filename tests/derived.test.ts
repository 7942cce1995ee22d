/**
 * Derived database objects (src/db/derived.ts): the change-log triggers and keyword-search tables the
 * modules declare (`syncFeed`, `searchIndex`) are generated, equal to what the migrations wrote by
 * hand, and installed at start — idempotently, on both drivers.
 */
import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Database } from '../src/db/client'
import { type DerivedObject, installDerived, OWNED_TRIGGER } from '../src/db/derived'
import { derivedObjects, MODULES } from '../src/modules/index'
import type { Module } from '../src/platform/manifest'
import { withDatabase } from './support/database'

/** The owned objects of the database: name → CREATE statement. */
const owned = async (db: Database) => {
  const rows = (await db.read.all(sql.raw("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'table') ORDER BY name"))) as {
    type: string
    name: string
    sql: string
  }[]
  return Object.fromEntries(
    rows
      .filter(
        (row) => (row.type === 'trigger' && OWNED_TRIGGER.test(row.name)) || (row.type === 'table' && /^CREATE VIRTUAL TABLE .* USING fts5\(/.test(row.sql)),
      )
      .map((row) => [row.name, row.sql]),
  )
}
const asMap = (objects: DerivedObject[]) => Object.fromEntries(objects.map((object) => [object.name, object.sql]).sort(([a], [b]) => (a < b ? -1 : 1)))

const sqlOf = (name: string) => derivedObjects().find((object) => object.name === name)?.sql ?? ''
const now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
const run = (db: Database, statement: string) => db.transaction(async (tx) => void (await tx.run(sql.raw(statement))))
const count = async (db: Database, query: string) => ((await db.read.all(sql.raw(query))) as { n: number }[])[0].n

/**
 * Derived objects declared after the last migration that wrote triggers by hand (0018): installed at
 * start only, as every later declaration is (README "Adding a resource": never in a migration).
 */
const SINCE_MIGRATIONS = [
  'holidays_changes_delete',
  'holidays_changes_insert',
  'holidays_changes_update',
  'journey_plan_stops_changes_delete',
  'journey_plan_stops_changes_insert',
  'journey_plans_changes_delete',
  'journey_plans_changes_insert',
  'journey_plans_changes_update',
  'outlets_changes_to_journey_plans',
  'outlets_changes_to_sales_orders',
  'price_list_items_changes_delete',
  'price_list_items_changes_insert',
  'price_list_items_changes_update',
  'price_lists_changes_delete',
  'price_lists_changes_insert',
  'price_lists_changes_update',
  'sales_orders_changes_delete',
  'sales_orders_changes_insert',
  'sales_orders_changes_update',
  'users_changes_to_sales_orders',
]
/** A migrated database brought up to the declarations, as start-up does (src/db/derived.ts). */
const installed = async (db: Database) => void (await installDerived(db, derivedObjects()))

/** The module list with `change` applied to one module's manifest. */
const withManifest = (name: string, change: (manifest: NonNullable<Module['manifest']>) => NonNullable<Module['manifest']>) =>
  MODULES.map((module) => (module.name === name && module.manifest ? { ...module, manifest: change(module.manifest) } : module))

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`derived objects on ${driver}`, () => {
    test('the generated triggers and FTS tables are exactly those the migrations wrote (0012, 0015, 0018), and the later declarations', async () => {
      await withDatabase(driver, async (db) => {
        const generated = derivedObjects()
        const byMigrations = generated.filter((object) => !SINCE_MIGRATIONS.includes(object.name))
        expect(byMigrations.filter((object) => object.kind === 'trigger' && object.name.includes('_changes_'))).toHaveLength(66)
        expect(generated.filter((object) => object.kind === 'fts')).toHaveLength(9)
        expect(await owned(db)).toEqual(asMap(byMigrations))
        expect(
          generated
            .filter((object) => SINCE_MIGRATIONS.includes(object.name))
            .map((object) => object.name)
            .sort(),
        ).toEqual(SINCE_MIGRATIONS)
      })
    })

    test('on a freshly migrated database the installer creates only the later declarations, and twice is the same as once', async () => {
      await withDatabase(driver, async (db) => {
        const plan = await installDerived(db, derivedObjects())
        expect(plan).toHaveLength(SINCE_MIGRATIONS.length)
        expect([...plan].sort()).toEqual(SINCE_MIGRATIONS.map(sqlOf).sort())
        expect(await owned(db)).toEqual(asMap(derivedObjects()))
        expect(await installDerived(db, derivedObjects())).toEqual([])
      })
    })

    test('a missing or altered trigger is put back, an undeclared one dropped; the writes are then logged again', async () => {
      await withDatabase(driver, async (db) => {
        await installed(db)
        await run(db, `INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', ${now}, ${now})`)
        await run(db, 'DROP TRIGGER `channel_groups_changes_insert`')
        await run(db, 'DROP TRIGGER `channels_changes_update`')
        await run(db, 'CREATE TRIGGER `channels_changes_update` AFTER UPDATE ON `channels` BEGIN SELECT 1; END')
        await run(db, 'CREATE TRIGGER `channel_groups_changes_stale` AFTER UPDATE ON `channel_groups` BEGIN SELECT 1; END')
        const plan = await installDerived(db, derivedObjects())
        expect(plan).toEqual([
          'DROP TRIGGER `channel_groups_changes_stale`',
          'DROP TRIGGER `channels_changes_update`',
          sqlOf('channel_groups_changes_insert'),
          sqlOf('channels_changes_update'),
        ])
        expect(await owned(db)).toEqual(asMap(derivedObjects()))
        await run(db, `INSERT INTO channel_groups (workspace_id, name, name_key, created_at, updated_at) VALUES (1, 'Retail', 'retail', ${now}, ${now})`)
        expect(await count(db, "SELECT count(*) AS n FROM changes WHERE entity = 'channel_group' AND op = 'upsert'")).toBe(1)
      })
    })

    test('an FTS table is rebuilt (and refilled) only when its declaration changes', async () => {
      await withDatabase(driver, async (db) => {
        await installed(db)
        await run(db, `INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', ${now}, ${now})`)
        for (const [name, deleted] of [
          ['Retail', 'NULL'],
          ['Wholesale', 'NULL'],
          ['Gone', now],
        ])
          await run(
            db,
            `INSERT INTO channel_groups (workspace_id, name, name_key, created_at, updated_at, deleted_at) VALUES (1, '${name}', lower('${name}'), ${now}, ${now}, ${deleted})`,
          )
        const found = (keyword: string) => count(db, `SELECT count(*) AS n FROM channel_groups_search WHERE channel_groups_search MATCH '"${keyword}"'`)

        // A second column declared: the table, its triggers and its content are rebuilt from the live rows.
        const wider = derivedObjects(
          withManifest('master-data', (manifest) => ({
            ...manifest,
            searchIndex: manifest.searchIndex?.map((index) =>
              index.table === 'channel_groups' ? { ...index, columns: ['name_key', { column: 'name', lower: true }] } : index,
            ),
          })),
        )
        const plan = await installDerived(db, wider)
        expect(plan.filter((statement) => statement.startsWith('DROP TABLE'))).toEqual(['DROP TABLE `channel_groups_search`'])
        expect(plan.every((statement) => statement.includes('channel_groups_search'))).toBe(true)
        expect(await found('wholesale')).toBe(1)
        expect(await found('gone')).toBe(0)
        expect(await owned(db)).toEqual(asMap(wider))

        // Back to the declaration of the code: rebuilt again, in step.
        await installDerived(db, derivedObjects())
        expect(await owned(db)).toEqual(asMap(derivedObjects()))
        expect(await found('retail')).toBe(1)
        await run(db, "UPDATE channel_groups SET deleted_at = updated_at WHERE name = 'Retail'")
        expect(await found('retail')).toBe(0)
        // Unchanged: nothing runs, the content stays.
        expect(await installDerived(db, derivedObjects())).toEqual([])
        expect(await found('wholesale')).toBe(1)
      })
    })

    test('a declaration removed takes its triggers and FTS table with it', async () => {
      await withDatabase(driver, async (db) => {
        const without = derivedObjects(withManifest('catalogue', ({ syncFeed: _feed, searchIndex: _index, ...manifest }) => manifest))
        const plan = await installDerived(db, without)
        expect(plan).toContain('DROP TABLE `products_search`')
        expect(plan).toContain('DROP TRIGGER `products_changes_insert`')
        expect(plan).toContain('DROP TRIGGER `principals_changes_to_products`')
        expect(await owned(db)).toEqual(asMap(without))
        await installDerived(db, derivedObjects())
        expect(await owned(db)).toEqual(asMap(derivedObjects()))
      })
    })
  })
}
