/**
 * The module list (src/modules/index.ts) accounts for every table: each workspace table is in a sync
 * feed or kept out with a reason, each table with a folded `*_key` column is in a search index or kept
 * out with a reason. A table added without either fails here, naming the table and the two ways out.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { is } from 'drizzle-orm'
import { getTableConfig, integer, SQLiteTable, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import * as schema from '../src/db/schema'
import { derivedObjects, MODULES } from '../src/modules/index'
import { type Module, PLATFORM_NOT_SYNCED, registerModules } from '../src/platform/manifest'
import { feedEntities, registerFeedEntities } from '../src/platform/data/feed-entities'
import { workspaceFeed } from '../src/platform/data/sync-feed'

interface TableShape {
  name: string
  columns: string[]
}

const schemaTables = (extra: SQLiteTable[] = []): TableShape[] =>
  [...Object.values(schema), ...extra]
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableConfig(table))
    .map((config) => ({ name: config.name, columns: config.columns.map((column) => column.name) }))

/** What the modules leave unaccounted for, as messages (empty: all is well). */
function unaccounted(tables: TableShape[], modules: readonly Module[]): string[] {
  const manifests = modules.flatMap((module) => (module.manifest ? [module.manifest] : []))
  const fed = new Set(manifests.flatMap((manifest) => (manifest.syncFeed ?? []).map((feed) => feed.table)))
  const notSynced: Record<string, string> = Object.assign({}, PLATFORM_NOT_SYNCED, ...manifests.map((manifest) => manifest.notSynced ?? {}))
  const indexed = new Set(manifests.flatMap((manifest) => (manifest.searchIndex ?? []).map((index) => index.table)))
  const notSearched: Record<string, string> = Object.assign({}, ...manifests.map((manifest) => manifest.notSearched ?? {}))
  const problems: string[] = []
  for (const { name, columns } of tables) {
    if (columns.includes('workspace_id') && !fed.has(name) && !notSynced[name]?.trim())
      problems.push(`${name}: a workspace table in no sync feed — declare it in its module's manifest (syncFeed) or list it under notSynced with the reason`)
    if (fed.has(name) && notSynced[name]) problems.push(`${name}: both in a sync feed and in notSynced`)
    if (columns.some((column) => column.endsWith('_key')) && !indexed.has(name) && !notSearched[name]?.trim())
      problems.push(
        `${name}: folded *_key columns in no search index — declare it in its module's manifest (searchIndex) or list it under notSearched with the reason`,
      )
    if (indexed.has(name) && notSearched[name]) problems.push(`${name}: both in a search index and in notSearched`)
  }
  const names = new Set(tables.map((table) => table.name))
  for (const table of [...fed, ...Object.keys(notSynced), ...indexed, ...Object.keys(notSearched)])
    if (!names.has(table)) problems.push(`${table}: declared, but no such table in src/db/schema`)
  return problems
}

/** A hypothetical new resource: its table (its schema file) and its module entry (its manifest). */
const widgets = sqliteTable('widgets', {
  id: integer('id').primaryKey(),
  workspace_id: integer('workspace_id').notNull(),
  name: text('name').notNull(),
  name_key: text('name_key').notNull(),
  deleted_at: text('deleted_at'),
})
const widgetsModule: Module = {
  name: 'widgets',
  manifest: { syncFeed: [workspaceFeed('widgets', 'widget', 'widget.view', async () => [])], searchIndex: [{ table: 'widgets', columns: ['name_key'] }] },
}

describe('module registry', () => {
  test('every workspace table is in a sync feed or kept out with a reason; every *_key table in a search index or kept out with a reason', () => {
    expect(unaccounted(schemaTables(), MODULES)).toEqual([])
  })

  test('a table added without a declaration fails, naming the table and the way out', () => {
    expect(unaccounted(schemaTables([widgets]), MODULES)).toEqual([
      "widgets: a workspace table in no sync feed — declare it in its module's manifest (syncFeed) or list it under notSynced with the reason",
      "widgets: folded *_key columns in no search index — declare it in its module's manifest (searchIndex) or list it under notSearched with the reason",
    ])
  })

  test('a new module is one entry of the list: its declarations give its triggers and its search table', () => {
    const modules = [...MODULES, widgetsModule]
    expect(unaccounted(schemaTables([widgets]), modules)).toEqual([])
    const added = derivedObjects(modules).filter((object) => !derivedObjects().some((existing) => existing.name === object.name))
    expect(added.map((object) => object.name)).toEqual([
      'widgets_changes_insert',
      'widgets_changes_update',
      'widgets_changes_delete',
      'widgets_search',
      'widgets_search_insert',
      'widgets_search_update',
      'widgets_search_delete',
    ])
  })

  test('the feeds the sync routes serve are the declared entities, with the declared permissions', () => {
    const declared = new Map<string, { webKey: string; mobileKey: string | null; reach: 'workspace' | 'assignees' | 'owner' }>()
    for (const module of MODULES)
      for (const feed of module.manifest?.syncFeed ?? [])
        if (feed.entity) declared.set(feed.entity.name, { webKey: feed.entity.webKey, mobileKey: feed.entity.mobileKey, reach: feed.entity.reach })
    registerModules(MODULES.flatMap((module) => (module.manifest ? [module.manifest] : [])))
    expect(
      Object.fromEntries(feedEntities().map((entity) => [entity.name, { webKey: entity.webKey, mobileKey: entity.mobileKey, reach: entity.reach }])),
    ).toEqual(Object.fromEntries(declared))
    // Every entity the phone and the integrations know, in module order; dropping a declaration drops it from the feeds.
    expect(feedEntities().map((entity) => entity.name)).toEqual([
      'channel_group',
      'channel',
      'account',
      'sub_area',
      'outlet',
      'form',
      'project',
      'team',
      'principal',
      'product',
      'user',
      'role',
      'visit',
      'submission',
      'price_list',
      'sales_order',
      'journey_plan',
      'holiday',
      'attendance',
    ])
  })

  test('an entity declared by two tables must be declared alike: a differing second declaration is refused at start', () => {
    const load = async () => []
    const feed = (mobile: boolean) => workspaceFeed('widgets', 'widget', 'widget.view', load, mobile)
    expect(() => registerFeedEntities([feed(true), { ...feed(true), table: 'widget_links' }])).not.toThrow()
    expect(feedEntities().map((entity) => entity.name)).toEqual(['widget'])
    expect(() => registerFeedEntities([feed(true), feed(false)])).toThrow('the feed entity widget is declared twice, differently')
    registerModules(MODULES.flatMap((module) => (module.manifest ? [module.manifest] : [])))
  })

  test('module names are their folders, once each', () => {
    const names = MODULES.map((module) => module.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(existsSync(join(import.meta.dir, '..', 'src', 'modules', name))).toBe(true)
  })
})
