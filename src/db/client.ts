/**
 * The database: one schema, two Drizzle drivers, one async code path.
 *
 * - `file:` URLs (the embedded default) use bun:sqlite. Writes go through ONE writer connection,
 *   one transaction at a time (an in-process async queue); transactions that meet under load share
 *   one COMMIT, each a SAVEPOINT of it, answered only once it committed (./group-commit.ts). Drizzle's own bun-sqlite transaction is synchronous and
 *   would commit at the first `await` (drizzle-orm issues 2275, 1472), so it is never used. Reads
 *   outside transactions run on a separate read-only connection; WAL gives it the last committed
 *   snapshot, never another request's uncommitted rows.
 * - `libsql://` / `http(s)://` URLs, or DATABASE_DRIVER=libsql, use @libsql/client, imported only then
 *   (its native addon for local files is not inside the compiled executable; remote URLs use its
 *   pure-JavaScript web client). Its write transactions are serialised by the same queue, each
 *   followed by a turn of the event loop (`nextTurn`), and because the client opens a new connection
 *   after every transaction (libsql-client-ts issue 288), the per-connection PRAGMAs are applied again.
 *
 * Code above this file awaits every query and never cares which driver runs it.
 */
import { Database as SqliteDatabase } from 'bun:sqlite'
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Client } from '@libsql/client'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import { drizzle as drizzleBun } from 'drizzle-orm/bun-sqlite'
import { migrate as migrateBun } from 'drizzle-orm/bun-sqlite/migrator'
import type { Config } from '../config/env'
import { embeddedAsset, IS_COMPILED } from '../lib/executable'
import { startCheckpointer, type Checkpointer } from './checkpoint'
import { GroupCommit, WalSync } from './group-commit'
import * as schema from './schema'

export type Schema = typeof schema
/** A Drizzle database or transaction of either driver. Always `await` its queries. */
export type Db = BaseSQLiteDatabase<'sync' | 'async', unknown, Schema>

export type DriverName = 'bun-sqlite' | 'libsql'

export interface Database {
  readonly driver: DriverName
  /** Reads outside a transaction. Never write through it (on bun:sqlite it is read-only). */
  readonly read: Db
  /** Runs `fn` in a write transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>
  /** The WAL checkpoint worker of an embedded bun:sqlite database; null otherwise. */
  readonly checkpointer: Checkpointer | null
  /** The per-group WAL sync of DURABILITY=full on bun:sqlite; null otherwise. */
  readonly walSync: WalSync | null
  /** Applies the pending migrations of drizzle/ (idempotent); another folder only in tests of a migration (an older schema's). */
  migrate(folder?: string): Promise<void>
  /** One statement, for PRAGMAs and maintenance; returns the rows. */
  pragma(statement: string): Promise<Record<string, unknown>[]>
  /** Runs a PRAGMA on every connection the driver holds (tests check they agree). */
  pragmaEverywhere(statement: string): Promise<Record<string, unknown>[][]>
  close(): Promise<void>
}

const BUSY_TIMEOUT_MS = 5_000
/** drizzle/ of the repository; the compiled executable carries it as an embedded asset. */
export const MIGRATIONS_FOLDER = IS_COMPILED ? embeddedAsset('drizzle') : fileURLToPath(new URL('../../drizzle', import.meta.url))

/**
 * DURABILITY (README.md, Configuration). In WAL mode `synchronous = NORMAL` syncs only at checkpoints:
 * a commit survives a crash of the process, not always one of the machine. DURABILITY=full adds a sync
 * of the WAL between every COMMIT and its answer:
 * - bun:sqlite: NORMAL plus one fdatasync of the WAL per commit group, off the event loop
 *   (WalSync in ./group-commit.ts). Not `synchronous = FULL`: that syncs inside COMMIT, on the one
 *   thread that serves every request, which then waits out each sync; measured in docs/PERFORMANCE.md.
 * - libSQL on a file: `synchronous = FULL` (each transaction commits alone there).
 */
type Synchronous = 'FULL' | 'NORMAL'

/** Applied to every connection. journal_mode is persistent in the file; the others are per connection. */
const connectionPragmas = (synchronous: Synchronous, cacheKib: number) => [
  'PRAGMA journal_mode = WAL',
  `PRAGMA synchronous = ${synchronous}`,
  'PRAGMA foreign_keys = ON',
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  // The connection's page cache: its share of MEMORY_BUDGET_MB (../config/memory-budget.ts; by default
  // 64 MiB for the reader, 16 for the writer; SQLite's own default is 2 MiB): the indexes lists and
  // counts walk stay in memory on a database of hundreds of MB. Pages are only held once they are read;
  // the small budget of a 256 MB machine keeps it to a few MiB (README.md "Memory"). No mmap_size:
  // SQLite's default, 0, reads through this cache, so mapped pages never add to the resident memory.
  `PRAGMA cache_size = -${cacheKib}`,
]

/**
 * Which code runs inside a write transaction. Writes are serialised, so a transaction started from
 * inside another one would queue behind the one waiting for it and never start: it is refused at
 * once instead (NestedTransaction). The flag goes down when the transaction settles, so a callback
 * that outlives it (a timer, a detached promise) is not mistaken for nested later.
 */
const writeScope = new AsyncLocalStorage<{ open: boolean }>()

export class NestedTransaction extends Error {
  constructor() {
    super('a write transaction was started inside another one (it would wait for itself): pass the outer transaction down instead')
    this.name = 'NestedTransaction'
  }
}

/** True while the calling code runs inside a write transaction (slow work must not: writers are serialised). */
export const insideWriteTransaction = () => writeScope.getStore()?.open === true

/**
 * Runs a write transaction, refusing one started from inside another. `run` wraps the transaction's
 * body in `body`: the flag goes down when the body settles, not when the COMMIT (and its WAL sync)
 * does, so a timer the body set may start its own transaction while the commit is still under way.
 */
async function asWriteScope<T>(run: (body: <R>(fn: () => Promise<R>) => Promise<R>) => Promise<T>): Promise<T> {
  if (insideWriteTransaction()) throw new NestedTransaction()
  const scope = { open: true }
  const body = async <R>(fn: () => Promise<R>) => {
    try {
      return await fn()
    } finally {
      scope.open = false
    }
  }
  try {
    return await writeScope.run(scope, () => run(body))
  } finally {
    scope.open = false
  }
}

/**
 * One turn of the event loop, I/O included. A local libSQL file answers every statement synchronously
 * inside a resolved promise, so a caller that writes transaction after transaction (the parts of a CSV
 * import, a maintenance job's batches) would chain them in microtasks and never let the event loop read
 * another request: one workspace's import held every other workspace's write for its whole length
 * (docs/PERFORMANCE.md "The write lock"). Each libSQL transaction therefore ends with this turn, still
 * holding the queue, so a write that arrived meanwhile queues before the same caller's next
 * transaction. bun:sqlite gets the same turn from its group commit (./group-commit.ts), which commits
 * after the loop's current round.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A FIFO of async critical sections: the next one starts when the previous one has settled. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn)
    this.tail = result.catch(() => undefined)
    return result
  }
}

/**
 * Drizzle's bun:sqlite session compiles a statement for every query that was not prepared ahead
 * (`client.prepare(sql)` each time, never finalized), and compiling costs in proportion to the
 * statement and to the triggers it fires: an outlet's UPDATE took 0.46 ms to compile (its change-log
 * and search-index triggers) and each of its two selects 0.09 ms, more than running them
 * (docs/PERFORMANCE.md "Statements compiled once"). The session gets a connection whose `prepare`
 * keeps the last `size` statements by their text (the memory budget's share, ../config/memory-budget.ts:
 * 128 at the default). Sharing one is safe: bun:sqlite runs a statement to its end inside one
 * synchronous call and binds its parameters afresh each time, and nothing iterates a Drizzle
 * statement. An evicted statement is only dropped, never finalized: a prepared query may still hold
 * it. Only Drizzle's session sees the cache; `$client` stays the connection.
 */
function withStatementCache<T extends object>(driver: T, connection: SqliteDatabase, size: number): T {
  const session = (driver as unknown as { session: { client: Pick<SqliteDatabase, 'prepare' | 'exec' | 'transaction'> } }).session
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>()
  session.client = {
    prepare: ((text: string) => {
      let statement = statements.get(text)
      if (statement) statements.delete(text)
      else {
        statement = connection.prepare(text)
        if (statements.size >= size) statements.delete(statements.keys().next().value as string)
      }
      // Most recently used last: the first key is the one to evict.
      statements.set(text, statement)
      return statement
    }) as SqliteDatabase['prepare'],
    exec: connection.exec.bind(connection),
    transaction: connection.transaction.bind(connection),
  }
  return driver
}

export async function openDatabase(config: Config): Promise<Database> {
  const { driver, path } = config.database
  if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  return driver === 'bun-sqlite' ? openBunSqlite(path!, config) : openLibsql(config)
}

/**
 * The two bun:sqlite connections of a database file, with their PRAGMAs and page caches (KiB): the
 * writer, and the read-only reader of every read outside a transaction. The bench ceilings open theirs
 * here too (scripts/bench/ceiling-db.ts), so a ratio never compares two ways of opening the file.
 */
export function openSqliteConnections(path: string, cache: { readerCacheKib: number; writerCacheKib: number }) {
  const writer = new SqliteDatabase(path, { create: true, readwrite: true, strict: true })
  for (const statement of connectionPragmas('NORMAL', cache.writerCacheKib)) writer.run(statement)
  // Checkpoints run on a timer in a worker (./checkpoint.ts), never inside a request's COMMIT.
  writer.run('PRAGMA wal_autocheckpoint = 0')
  // Group commit makes every transaction a SAVEPOINT, whose statement journal SQLite spills past
  // 64 KiB into a temporary file, written for every location batch. Kept in memory instead.
  writer.run('PRAGMA temp_store = MEMORY')
  // Once checkpointed, the WAL is cut back to this size instead of staying at its high-water mark.
  writer.run(`PRAGMA journal_size_limit = ${64 * 1024 * 1024}`)
  const reader = new SqliteDatabase(path, { readonly: true, strict: true })
  // journal_mode is the file's (set by the writer above); a read-only connection cannot set it.
  for (const statement of connectionPragmas('NORMAL', cache.readerCacheKib).slice(1)) reader.run(statement)
  return { writer, reader }
}

function openBunSqlite(path: string, config: Config): Database {
  const durability = config.DURABILITY
  const { writer: writerConnection, reader: readerConnection } = openSqliteConnections(path, config.memory.sqlite)

  // The driver's own type for its migrator; the rest of the service sees the one Db type of both drivers.
  const writerDriver = withStatementCache(drizzleBun({ client: writerConnection, schema }), writerConnection, config.memory.sqlite.statements)
  const writer = writerDriver as unknown as Db
  const reader = withStatementCache(drizzleBun({ client: readerConnection, schema }), readerConnection, config.memory.sqlite.statements) as unknown as Db
  const walSync = durability === 'full' && path !== ':memory:' ? new WalSync(path) : null
  const groups = new GroupCommit(writerConnection, new SerialQueue(), walSync ? () => walSync.sync() : undefined)
  // See ./checkpoint.ts: under a steady writer the WAL never starts over by itself; once it holds
  // CATCH_UP_AT_FRAMES frames the writer connection copies what the worker has not yet, between two transactions.
  let catchingUp = false
  const catchUp = () => {
    if (catchingUp) return
    catchingUp = true
    void groups.outside(() => {
      try {
        writerConnection.run('PRAGMA wal_checkpoint(PASSIVE)')
      } catch {
        // Left to the worker's next tick.
      } finally {
        catchingUp = false
      }
    })
  }
  const checkpointer: Checkpointer | null =
    path === ':memory:' ? null : startCheckpointer(path, { onBehind: catchUp, cacheKib: config.memory.sqlite.checkpointCacheKib })

  const all = (connection: SqliteDatabase, statement: string) => connection.query(statement).all() as Record<string, unknown>[]

  return {
    driver: 'bun-sqlite',
    read: reader,
    checkpointer,
    walSync,
    transaction: (fn) => asWriteScope((body) => groups.transaction(() => body(() => fn(writer)))),
    migrate: (folder = MIGRATIONS_FOLDER) => groups.outside(() => migrateBun(writerDriver, { migrationsFolder: folder })),
    pragma: (statement) => groups.outside(() => all(writerConnection, statement)),
    pragmaEverywhere: async (statement) => [all(writerConnection, statement), all(readerConnection, statement)],
    close: async () => {
      await groups.outside(async () => {
        await checkpointer?.stop()
        await walSync?.close()
        readerConnection.close()
        // A final TRUNCATE checkpoint leaves a clean single-file database behind.
        try {
          writerConnection.run('PRAGMA wal_checkpoint(TRUNCATE)')
        } catch {
          // Another process may hold the database; the WAL stays and is replayed on next open.
        }
        writerConnection.close()
      })
    },
  }
}

async function openLibsql(config: Config): Promise<Database> {
  const { url, authToken, path } = config.database
  const isLocal = path !== null
  // Imported here, not at the top: a local file needs the client's native addon, which the compiled
  // executable does not carry; a remote server is reached by the web client, plain JavaScript.
  const { createClient } = isLocal ? await import('@libsql/client') : await import('@libsql/client/web')
  const { drizzle: drizzleLibsql } = isLocal ? await import('drizzle-orm/libsql') : await import('drizzle-orm/libsql/web')
  const { migrate: migrateLibsql } = await import('drizzle-orm/libsql/migrator')
  const client: Client = createClient({ url, authToken })
  const driver = drizzleLibsql({ client, schema })
  const db = driver as unknown as Db & {
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>
  }
  // A remote server (sqld, Turso) owns its journal, connection settings and durability; a local file
  // is ours, DURABILITY included.
  const pragmas = isLocal ? connectionPragmas(config.DURABILITY === 'full' ? 'FULL' : 'NORMAL', config.memory.sqlite.readerCacheKib) : []
  const applyPragmas = async () => {
    for (const statement of pragmas) await client.execute(statement)
  }
  await applyPragmas()
  const queue = new SerialQueue()
  const rows = async (statement: string) => (await client.execute(statement)).rows.map((row) => ({ ...row }))

  return {
    driver: 'libsql',
    read: db,
    checkpointer: null,
    walSync: null,
    transaction: (fn) =>
      asWriteScope((body) =>
        queue.run(async () => {
          try {
            // Drizzle's libsql transaction opens the client's "write" transaction (BEGIN IMMEDIATE).
            return await db.transaction((tx) => body(() => fn(tx as unknown as Db)))
          } finally {
            // The transaction took the client's connection; the next statement opens a fresh one.
            await applyPragmas()
            await nextTurn()
          }
        }),
      ),
    migrate: (folder = MIGRATIONS_FOLDER) =>
      queue.run(async () => {
        await migrateLibsql(driver, { migrationsFolder: folder })
        await applyPragmas()
      }),
    pragma: (statement) => queue.run(() => rows(statement)),
    pragmaEverywhere: async (statement) => [await rows(statement)],
    close: async () => {
      await queue.run(async () => {
        // As on bun:sqlite: a final TRUNCATE checkpoint leaves a clean single-file database behind.
        if (isLocal) await client.execute('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => undefined)
        client.close()
      })
    },
  }
}
