/**
 * Where the prepared regional database is and how the service opens it (README.md "Regional data").
 *
 * - Running from the sources (`npm start`, `npm test`): `dist/regional-<version>.sqlite` of the
 *   repository, a build output outside the data directory (gitignored). `npm start` and `npm test`
 *   build it first when missing (their `pre` scripts run scripts/build-regional.ts); a process that
 *   starts without them (`bun src/server.ts`, `bun test FILE`) builds it here, once.
 * - The executable (`npm run build`): the same file is embedded in it; SQLite cannot open a file
 *   inside the executable, so the first start copies it out, once per version, into the directory of
 *   the database file (`/app/data` in the image: the one directory the service may write), and
 *   removes the copies of other versions there. Copying a file is all a first start does: no row is
 *   inserted anywhere.
 *
 * Opened read-only (SQLITE_OPEN_READONLY, and `query_only`) on a bun:sqlite connection of its own,
 * whichever driver the service's database uses: a remote libSQL server could not ATTACH a file of
 * this machine, the executable has no libSQL addon for a local file, and the libSQL client opens a
 * new connection after every transaction (an ATTACH would have to follow each). The regional queries
 * never join the service's tables, so nothing needs both in one connection. One connection per
 * file and process, shared by every app of the process (the tests build many): the file never
 * changes, so nothing is ever stale, and it stays open until the process ends.
 */
import { Database as SqliteDatabase } from 'bun:sqlite'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type { Config } from '../../config/env'
import { embeddedAsset, IS_COMPILED } from '../../lib/executable'
import type { Logger } from '../../platform/logger'
import { buildRegionalDatabase, regionalFileName, regionalFileVersion } from './regional.data'
import { regionalTables } from './regional.tables'

export type RegionalDb = BunSQLiteDatabase<typeof regionalTables>

export interface RegionalDatabase {
  readonly path: string
  /** regional_meta's `version` of the file (regionalFileVersion() of the code that built it). */
  readonly version: string
  /** The read-only connection (tests check a write through it fails). */
  readonly connection: SqliteDatabase
  readonly db: RegionalDb
}

/**
 * The prepared file's path in the repository (`dist/…`), the asset scripts/build.ts embeds; inside the
 * executable a file asset lies under its bare name (`embeddedAsset(regionalFileName())`).
 */
export const regionalAssetPath = (version = regionalFileVersion()) => `dist/${regionalFileName(version)}`

/** The repository's copy, for a service running from the sources. */
export const sourceTreeRegionalPath = () => fileURLToPath(new URL(`../../../${regionalAssetPath()}`, import.meta.url))

const PREPARED_FILE = /^regional-.+\.sqlite$/

/** Removes the prepared files of other versions in `dir` (the one at `keep` stays). */
function removeOtherVersions(keep: string) {
  for (const name of readdirSync(dirname(keep))) {
    if (PREPARED_FILE.test(name) && name !== basename(keep)) rmSync(join(dirname(keep), name), { force: true })
  }
}

/** regional_meta's `version` of the file at `path`; null when there is no readable prepared file there. */
export function preparedVersionOf(path: string): string | null {
  if (!existsSync(path)) return null
  try {
    const connection = new SqliteDatabase(path, { readonly: true, strict: true })
    try {
      const row = connection.query("SELECT value FROM regional_meta WHERE key = 'version'").get() as { value: string } | null
      return row?.value ?? null
    } finally {
      connection.close()
    }
  } catch {
    return null
  }
}

/**
 * The prepared file at `path` for this version of the code, built there first when it is missing
 * or of another version (the other versions beside it are then removed). Returns `path`.
 */
export function ensureRegionalDatabase(path: string, logger?: Logger): string {
  const version = regionalFileVersion()
  if (preparedVersionOf(path) === version) return path
  const started = performance.now()
  const counts = buildRegionalDatabase(path, version)
  removeOtherVersions(path)
  logger?.info('regional data built', { path, version, ...counts, ms: Math.round(performance.now() - started) })
  return path
}

/** The copy of the prepared file `source` (inside the executable) in `dir`, and whether it must be written. */
function extractionTarget(source: string, dir: string, version: string) {
  mkdirSync(dir, { recursive: true })
  const target = join(dir, regionalFileName(version))
  return { target, missing: !existsSync(target) || statSync(target).size !== statSync(source).size }
}

/** Writes the copy under a temporary name and renames it: a crash never leaves half a file under the final name. */
async function writeCopy(target: string, write: (temporary: string) => unknown): Promise<void> {
  const temporary = `${target}.${process.pid}-${randomUUID()}.tmp`
  try {
    await write(temporary)
    renameSync(temporary, target)
  } finally {
    rmSync(temporary, { force: true })
  }
}

/**
 * Copies the prepared file `source` (inside the executable) to `dir`/regional-<version>.sqlite unless
 * that copy is already there, and removes the copies of other versions in `dir`: an upgrade that
 * brings another version replaces the copy. Returns the copy's path.
 *
 * The server copies before it builds the app (`copyOutRegionalDatabase`): `Bun.write` streams the
 * embedded file out (its pages read through the executable's mapping, no 7 MiB buffer: 6 MiB less at
 * the first start's high-water mark). This synchronous form (the other commands, the tests) reads it
 * whole: Bun serves an embedded file to readFileSync, not to copyFileSync or open (ENOENT).
 */
export function extractRegionalDatabase(source: string, dir: string, version = regionalFileVersion(), logger?: Logger): string {
  const { target, missing } = extractionTarget(source, dir, version)
  if (missing) {
    const temporary = `${target}.${process.pid}-${randomUUID()}.tmp`
    try {
      writeFileSync(temporary, readFileSync(source))
      renameSync(temporary, target)
    } finally {
      rmSync(temporary, { force: true })
    }
    logger?.info('regional data copied out of the executable', { path: target, version })
  }
  removeOtherVersions(target)
  return target
}

/** `extractRegionalDatabase` streamed with Bun.write (see there). */
export async function extractRegionalDatabaseStreamed(source: string, dir: string, version = regionalFileVersion(), logger?: Logger): Promise<string> {
  const { target, missing } = extractionTarget(source, dir, version)
  if (missing) {
    await writeCopy(target, (temporary) => Bun.write(temporary, Bun.file(source)))
    logger?.info('regional data copied out of the executable', { path: target, version })
  }
  removeOtherVersions(target)
  return target
}

/** Before the app is built (src/server.ts): the executable's prepared file copied out, streamed; nothing to do from the sources. */
export async function copyOutRegionalDatabase(config: Pick<Config, 'database'>, logger?: Logger): Promise<void> {
  if (IS_COMPILED) await extractRegionalDatabaseStreamed(embeddedAsset(regionalFileName()), extractionDirectory(config), regionalFileVersion(), logger)
}

/** Where the executable copies its prepared file: the database file's directory, or a temporary one for a remote database. */
export function extractionDirectory(config: Pick<Config, 'database'>): string {
  const path = config.database.path
  return path && path !== ':memory:' ? dirname(resolve(path)) : join(tmpdir(), 'ffos-regional')
}

const opened = new Map<string, RegionalDatabase>()

/** The read-only connection to the prepared file at `path` (one per file and process). */
export function openRegionalDatabase(path: string): RegionalDatabase {
  const known = opened.get(path)
  if (known) return known
  const connection = new SqliteDatabase(path, { readonly: true, strict: true })
  connection.run('PRAGMA query_only = ON')
  const row = connection.query("SELECT value FROM regional_meta WHERE key = 'version'").get() as { value: string } | null
  const database: RegionalDatabase = { path, version: row?.value ?? '', connection, db: drizzle({ client: connection, schema: regionalTables }) }
  opened.set(path, database)
  return database
}

/**
 * The prepared regional database of this installation, opened read-only: the repository's build
 * from the sources (built when missing), the executable's embedded copy copied out otherwise.
 */
export function preparedRegionalDatabase(config: Pick<Config, 'database'>, logger?: Logger): RegionalDatabase {
  const path = IS_COMPILED
    ? extractRegionalDatabase(embeddedAsset(regionalFileName()), extractionDirectory(config), regionalFileVersion(), logger)
    : ensureRegionalDatabase(sourceTreeRegionalPath(), logger)
  const database = openRegionalDatabase(path)
  if (database.version !== regionalFileVersion()) {
    throw new Error(`${path}: a prepared regional database of version ${database.version || 'unknown'}, not ${regionalFileVersion()}`)
  }
  return database
}
