/**
 * Derived database objects: the change log's triggers and the keyword-search FTS5 tables and their
 * triggers. They are not written by hand in migrations: the modules declare them (`syncFeed`,
 * `searchIndex` in their manifests; src/platform/sync-feed.ts and src/platform/search-index.ts
 * generate the SQL) and `installDerived` brings the database in line at start, after drizzle's
 * migrations (src/app.ts). Migrations 0012, 0015 and 0018 created the first set; the generated one is
 * the same text, so on a database they built nothing changes.
 *
 * Why at start and not as a generated migration: a trigger or an FTS table holds no data of its own
 * (an FTS table is rebuilt from its base table), so what the declarations say is what must be there,
 * whatever migrations ran before; a declaration changed or added takes effect on the next start with
 * no migration to write or forget, and a migration that alters a table (SQLite rewrites triggers on a
 * column rename, drops them with the table) cannot leave a stale one behind.
 *
 * The comparison is by text against `sqlite_master`: an unchanged database costs one read of it (see
 * docs/PERFORMANCE.md, "Derived objects at start"). Otherwise, in one write transaction: triggers that
 * differ are dropped and created again, owned triggers no longer declared are dropped, and an FTS
 * table whose declaration changed (or that is new) is dropped, created and filled from its base table;
 * an FTS table that did not change keeps its content.
 */
import { sql } from 'drizzle-orm'
import type { Database, Db } from './client'

export interface DerivedObject {
  kind: 'trigger' | 'fts'
  name: string
  /** The table the trigger is on, or the FTS table itself. */
  table: string
  /** The CREATE statement, worded exactly as SQLite keeps it in `sqlite_master.sql`. */
  sql: string
  /** An FTS table: the statement that fills it from its base table (run when the table is created). */
  fill?: string
}

/** Triggers that are ours by name: `<table>_changes_…` (change log), `<table>_search_insert|update|delete` (search). */
export const OWNED_TRIGGER = /_changes_|_search_(insert|update|delete)$/
/** FTS tables that are ours: `<table>_search`. */
const OWNED_FTS = /_search$/

interface MasterRow {
  type: string
  name: string
  sql: string | null
}

const readMaster = async (db: Db) =>
  (await db.all<MasterRow>(sql.raw("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'table')"))) as MasterRow[]

/** The statements that bring `master` in line with `objects`, in order; none when it is. */
export function derivedPlan(objects: readonly DerivedObject[], master: readonly MasterRow[]): string[] {
  const existing = new Map(master.map((row) => [row.name, row]))
  const declared = new Set(objects.map((object) => object.name))
  const drops: string[] = []
  const creates: string[] = []
  for (const row of master) {
    if (declared.has(row.name)) continue
    if (row.type === 'trigger' && OWNED_TRIGGER.test(row.name)) drops.push(`DROP TRIGGER \`${row.name}\``)
    else if (row.type === 'table' && OWNED_FTS.test(row.name) && /^CREATE VIRTUAL TABLE .* USING fts5\(/.test(row.sql ?? ''))
      drops.push(`DROP TABLE \`${row.name}\``)
  }
  for (const object of objects) {
    const row = existing.get(object.name)
    if (row?.sql === object.sql) continue
    if (row) drops.push(`DROP ${object.kind === 'trigger' ? 'TRIGGER' : 'TABLE'} \`${object.name}\``)
    creates.push(object.sql, ...(object.fill ? [object.fill] : []))
  }
  return [...drops, ...creates]
}

/** Installs `objects` (idempotent); answers the statements it ran. */
export async function installDerived(db: Database, objects: readonly DerivedObject[]): Promise<string[]> {
  if (derivedPlan(objects, await readMaster(db.read)).length === 0) return []
  return db.transaction(async (tx) => {
    // Planned again inside the transaction: another process may have installed them meanwhile.
    const plan = derivedPlan(objects, await readMaster(tx))
    for (const statement of plan) await tx.run(sql.raw(statement))
    return plan
  })
}
