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
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
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

/**
 * The SHA-256 (hex) of the prepared file the executable embeds, written into the code by scripts/build.ts
 * (`define`); not defined when running from the sources.
 */
declare const FFOS_EMBEDDED_REGIONAL_SHA256: string
export const embeddedRegionalDigest = (): string | null => (typeof FFOS_EMBEDDED_REGIONAL_SHA256 === 'string' ? FFOS_EMBEDDED_REGIONAL_SHA256 : null)

/** Bytes read at a time while looking for the embedded file inside the executable, and while copying it. */
const READ_CHUNK = 256 * 1024

/**
 * Copies the embedded file `source` (`size` bytes, SHA-256 `digest`) into `target` by reading the file
 * `container` (the executable, `process.execPath`) with read(2), not through the executable's mapping:
 * the pages the mapping touched stayed in the process's resident memory for as long as it ran (the
 * whole 7 MiB file: every phase of the small budget's measure held them, docs/PERFORMANCE.md "Memory
 * budget"); read(2) goes through the kernel's page cache, which the kernel gives back under pressure
 * and which is not the process's. The file is found by its first `head` bytes (read from the mapping:
 * one page), searched from the end of `container` (Bun appends the embedded files to the runtime), and
 * only a copy whose SHA-256 is `digest` is kept. Returns false, `target` absent, when no such copy
 * is found; the caller then copies through the mapping.
 */
export function copyOutOfContainer(container: string, head: Uint8Array, size: number, digest: string, target: string): boolean {
  const fd = openSync(container, 'r')
  try {
    const length = fstatSync(fd).size
    const chunk = Buffer.alloc(READ_CHUNK + head.length)
    // Chunks from the end; each reads head.length - 1 bytes of the next one, so a head across two chunks is found.
    for (let end = length; end >= head.length; end -= READ_CHUNK) {
      const start = Math.max(0, end - READ_CHUNK)
      const read = readSync(fd, chunk, 0, Math.min(chunk.length, length - start), start)
      const window = chunk.subarray(0, read)
      for (let at = window.lastIndexOf(head); at >= 0; at = at > 0 ? window.lastIndexOf(head, at - 1) : -1) {
        if (at >= end - start) continue // Found by the chunk after this one already.
        const offset = start + at
        if (offset + size <= length && copyRange(fd, offset, size, digest, target)) return true
      }
      if (start === 0) break
    }
    return false
  } finally {
    closeSync(fd)
  }
}

/** Copies `size` bytes of `fd` from `offset` into `target`; keeps it only when its SHA-256 is `digest`. */
function copyRange(fd: number, offset: number, size: number, digest: string, target: string): boolean {
  const hash = new Bun.CryptoHasher('sha256')
  const chunk = Buffer.alloc(READ_CHUNK)
  const out = openSync(target, 'w')
  try {
    for (let done = 0; done < size; ) {
      const read = readSync(fd, chunk, 0, Math.min(READ_CHUNK, size - done), offset + done)
      if (read <= 0) return false
      const bytes = chunk.subarray(0, read)
      hash.update(bytes)
      writeSync(out, bytes)
      done += read
    }
  } finally {
    closeSync(out)
  }
  if (hash.digest('hex') === digest) return true
  rmSync(target, { force: true })
  return false
}

/** The first bytes of a prepared file that identify where it starts: SQLite's 100-byte header. */
const HEAD_BYTES = 100

/** `copyOutOfContainer` for `file`; false (the mapping then) also when the executable cannot be read (an execute-only file). */
async function readOutOfContainer(fromFile: { container: string; digest: string }, file: ReturnType<typeof Bun.file>, target: string): Promise<boolean> {
  try {
    return copyOutOfContainer(fromFile.container, await file.slice(0, HEAD_BYTES).bytes(), file.size, fromFile.digest, target)
  } catch {
    rmSync(target, { force: true })
    return false
  }
}

/**
 * `extractRegionalDatabase` for the server, before the app is built: read out of the executable file
 * (`copyOutOfContainer`, the build's digest given), or else streamed through the mapping with Bun.write.
 */
export async function extractRegionalDatabaseStreamed(
  source: string,
  dir: string,
  version = regionalFileVersion(),
  logger?: Logger,
  fromFile: { container: string; digest: string } | null = null,
): Promise<string> {
  const { target, missing } = extractionTarget(source, dir, version)
  if (missing) {
    let how = 'mapping'
    await writeCopy(target, async (temporary) => {
      const file = Bun.file(source)
      if (fromFile && (await readOutOfContainer(fromFile, file, temporary))) how = 'file'
      else await Bun.write(temporary, file)
    })
    logger?.info('regional data copied out of the executable', { path: target, version, read: how })
  }
  removeOtherVersions(target)
  return target
}

/** Before the app is built (src/server.ts): the executable's prepared file copied out (see above); nothing to do from the sources. */
export async function copyOutRegionalDatabase(config: Pick<Config, 'database'>, logger?: Logger): Promise<void> {
  if (!IS_COMPILED) return
  const digest = embeddedRegionalDigest()
  await extractRegionalDatabaseStreamed(
    embeddedAsset(regionalFileName()),
    extractionDirectory(config),
    regionalFileVersion(),
    logger,
    digest ? { container: process.execPath, digest } : null,
  )
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
