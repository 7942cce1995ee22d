/**
 * Online backup and offline restore of the embedded database file.
 *
 * Backup is `VACUUM INTO` on a read-only connection: SQLite copies one consistent snapshot (the
 * last commit when it starts) into a new, compact file while the server keeps reading and writing
 * (WAL readers never block the writer). The copy is then checked with `PRAGMA integrity_check`.
 *
 * Restore is for a stopped server: it refuses while any other connection holds the database (an
 * exclusive lock cannot be taken), checks the backup, keeps the replaced file next to it and puts the
 * backup in place. Migrations newer than the backup are applied by the next start.
 */
import { Database as Sqlite } from 'bun:sqlite'
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { describeFsError } from '../lib/fs-errors'

export class BackupError extends Error {}

export interface BackupResult {
  file: string
  bytes: number
  milliseconds: number
}

/** Checks a database file: readable, `integrity_check` ok, and made by this service (migrations table). */
export function verifyDatabaseFile(file: string) {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`)
  let db: Sqlite | null = null
  try {
    db = new Sqlite(file, { readonly: true })
    const result = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()
    if (result.length !== 1 || result[0]!.integrity_check !== 'ok') {
      throw new BackupError(`${file} failed the integrity check: ${result.map((row) => row.integrity_check).join('; ')}`)
    }
    const migrations = db.query<{ n: number }, []>("select count(*) as n from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get()
    if (!migrations?.n) throw new BackupError(`${file} is not a database of this service (no migrations table)`)
  } catch (error) {
    if (error instanceof BackupError) throw error
    throw new BackupError(`${file} is not a readable SQLite database: ${(error as Error).message}`)
  } finally {
    db?.close()
  }
}

/**
 * Copies the live database at `source` into `target` (which must not exist) and verifies the copy.
 * The folder of `target` is created when missing (`ffos backup backups/2026-11-22.db` on a fresh
 * machine): a backup only ever adds a file, so a mistyped folder costs nothing but a stray folder.
 */
export function backupDatabase(source: string, target: string): BackupResult {
  if (!existsSync(source)) throw new BackupError(`${source} does not exist`)
  if (existsSync(target)) throw new BackupError(`${target} already exists; choose a new file name`)
  const folder = dirname(resolve(target))
  try {
    mkdirSync(folder, { recursive: true })
  } catch (error) {
    throw new BackupError(`the folder ${folder} cannot be created (${describeFsError(error)}); choose another place for the backup`)
  }
  const started = performance.now()
  const db = new Sqlite(source, { readonly: true })
  try {
    db.run('PRAGMA busy_timeout = 5000')
    db.query('VACUUM INTO ?').run(target)
  } catch (error) {
    rmSync(target, { force: true })
    throw new BackupError(`the backup could not be written to ${target}: ${(error as Error).message}`)
  } finally {
    db.close()
  }
  try {
    verifyDatabaseFile(target)
  } catch (error) {
    rmSync(target, { force: true })
    throw error
  }
  return { file: target, bytes: statSync(target).size, milliseconds: Math.round(performance.now() - started) }
}

export interface RestoreResult {
  /** Where the replaced database was kept, or null when there was none. */
  previous: string | null
}

/** Puts `backup` in place of the database at `target`; the server must be stopped. */
export function restoreDatabase(backup: string, target: string, now = new Date()): RestoreResult {
  verifyDatabaseFile(backup)
  let previous: string | null = null
  if (existsSync(target)) {
    assertNotInUse(target)
    previous = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`
    renameSync(target, previous)
  }
  // The replaced file's WAL and shared memory belong to it, not to the backup.
  for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true })
  copyFileSync(backup, target)
  return { previous }
}

/** Throws when another connection (a running server) has the database open. */
function assertNotInUse(file: string) {
  const db = new Sqlite(file)
  try {
    db.run('PRAGMA busy_timeout = 200')
    // In WAL mode an exclusive lock cannot be had while any other connection is open; taking it also
    // checkpoints the WAL into the file, so the kept copy is complete on its own.
    db.run('PRAGMA locking_mode = EXCLUSIVE')
    db.run('BEGIN EXCLUSIVE')
    db.run('COMMIT')
    db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  } catch (error) {
    throw new BackupError(`${file} is in use (${(error as Error).message}); stop the server before restoring`)
  } finally {
    db.close()
  }
}
