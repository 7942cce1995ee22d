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

/** The module list with `change` applied to one module's manifest. */
const withManifest = (name: string, change: (manifest: NonNullable<Module['manifest']>) => NonNullable<Module['manifest']>) =>
  MODULES.map((module) => (module.name === name && module.manifest ? { ...module, manifest: change(module.manifest) } : module))

/**
 * Objects declared after migration 0018 wrote the first set: they exist only through the installer at
 * start (src/app.ts), as every later declaration will (src/db/derived.ts). The journey plans' change feed.
 */
const LATER = /^(journey_plans|journey_plan_stops|holidays)_changes_|_changes_to_journey_plans$/
const byMigrations = () => derivedObjects().filter((object) => !LATER.test(object.name))

/** A migrated database brought in line with the declarations, as the app does at start. */
const withInstalled = (driver: 'bun-sqlite' | 'libsql', fn: (db: Database) => Promise<void>) =>
  withDatabase(driver, async (db) => {
    await installDerived(db, derivedObjects())
    await fn(db)
  })

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`derived objects on ${driver}`, () => {
    test('the generated triggers and FTS tables are exactly those the migrations wrote (0012, 0015, 0018), and those declared later', async () => {
      await withDatabase(driver, async (db) => {
        const generated = byMigrations()
        expect(generated.filter((object) => object.kind === 'trigger' && object.name.includes('_changes_'))).toHaveLength(66)
        expect(generated.filter((object) => object.kind === 'fts')).toHaveLength(9)
        expect(await owned(db)).toEqual(asMap(generated))
      })
    })

    test('on a freshly migrated database the installer adds only the later declarations, and twice is the same as once', async () => {
      await withDatabase(driver, async (db) => {
        const later = derivedObjects().filter((object) => LATER.test(object.name))
        expect(later).toHaveLength(9)
        expect(await installDerived(db, derivedObjects())).toEqual(later.map((object) => object.sql))
        expect(await installDerived(db, derivedObjects())).toEqual([])
        expect(await owned(db)).toEqual(asMap(derivedObjects()))
      })
    })

    test('a missing or altered trigger is put back, an undeclared one dropped; the writes are then logged again', async () => {
      await withInstalled(driver, async (db) => {
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
      await withInstalled(driver, async (db) => {
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
      await withInstalled(driver, async (db) => {
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
