/**
 * A migrated database on a fresh file, for tests below the app (drivers, schema, derived objects):
 * opened with the given driver, handed to `fn`, then closed and removed whatever `fn` did.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/env'
import { type Database, MIGRATIONS_FOLDER, openDatabase } from '../../src/db/client'

export type Driver = 'bun-sqlite' | 'libsql'

export async function withDatabase(driver: Driver, fn: (db: Database, dir: string) => Promise<void>, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-db-'))
  const db = await openDatabase(loadConfig({ DATABASE_URL: `file:${join(dir, 'app.db')}`, DATABASE_DRIVER: driver, ...env }))
  try {
    await db.migrate()
    await fn(db, dir)
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * A copy of drizzle/ in `dir` whose journal ends before (or, `including`, with) the migration whose tag ends with
 * `tag`: the migrations of an older release, for tests of an upgrade. Answers the folder and that migration's `when`.
 */
export function migrationsUpTo(dir: string, tag: string, options: { including?: boolean } = {}): { folder: string; when: number } {
  const folder = join(dir, 'drizzle')
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true })
  const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8'))
  const entry = journal.entries.find((candidate: { tag: string }) => candidate.tag.endsWith(tag))
  if (!entry) throw new Error(`no migration tagged …${tag}`)
  journal.entries = journal.entries.filter((candidate: { idx: number }) => (options.including ? candidate.idx <= entry.idx : candidate.idx < entry.idx))
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify(journal))
  return { folder, when: entry.when }
}
