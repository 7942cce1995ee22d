/**
 * A migrated database on a fresh file, for tests below the app (drivers, schema, derived objects):
 * opened with the given driver, handed to `fn`, then closed and removed whatever `fn` did.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/env'
import { type Database, openDatabase } from '../../src/db/client'

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
