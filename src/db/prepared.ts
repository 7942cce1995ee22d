/**
 * Hot statements are built and prepared once per connection and reused with `sql.placeholder`
 * values. Building a Drizzle query and preparing it in SQLite costs more than running a small indexed
 * statement, so the request paths that run on every call (auth, idempotency, ingest, lists) use these.
 *
 * The cache is per Db object: the bun:sqlite reader and writer keep theirs for the process; a libSQL
 * transaction object lives for one transaction, so its statements are prepared for that one use.
 */
import { Database as SqliteDatabase } from 'bun:sqlite'
import { Column, is, Param, Placeholder, SQL, sql, Subquery } from 'drizzle-orm'
import { PreparedQuery as BunPreparedQuery } from 'drizzle-orm/bun-sqlite/session'
import type { SQLiteInsertValue, SQLiteTable, SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core'
import type { Db } from './client'

export function prepared<T>(build: (db: Db) => T): (db: Db) => T {
  const variants = preparedVariants<'', T>((db) => build(db))
  return (db) => variants(db, '')
}

/**
 * One statement per key of a small fixed set (whose rows: the caller's own or all), each prepared once
 * per connection like `prepared`. An open family of shapes (every combination of a list's filters) is a
 * list's: platform/data/list.ts builds it with `preparedShapes`.
 */
export function preparedEach<K extends string, T>(keys: readonly K[], build: (db: Db, key: K) => T): (db: Db, key: K) => T {
  const byKey = new Map(keys.map((key) => [key, prepared((db) => build(db, key))]))
  return (db, key) => byKey.get(key)!(db)
}

/**
 * The same for a family of statements that differ in shape (sort column, optional filters): one
 * prepared statement per shape key, built on first use. With `max`, at most that many shapes are
 * kept per connection (the oldest goes first), for families whose shapes a caller can multiply
 * (every combination of a list's filters).
 */
export function preparedVariants<K extends string | number, T>(build: (db: Db, key: K) => T, options: { max?: number } = {}): (db: Db, key: K) => T {
  const cache = new WeakMap<Db, Map<K, T>>()
  const max = options.max ?? Infinity
  return (db, key) => {
    let statements = cache.get(db)
    if (!statements) {
      statements = new Map()
      cache.set(db, statements)
    }
    let statement = statements.get(key)
    if (statement === undefined) {
      statement = build(db, key)
      compileRowsOf(statement)
      if (statements.size >= max) statements.delete(statements.keys().next().value!)
      statements.set(key, statement)
    }
    return statement
  }
}

/**
 * A family keyed by a small plain object (a list's shape: whose rows, which order, which filters are
 * present), never by values. The object is its key as JSON, so build it with its fields in a fixed
 * order.
 */
export function preparedShapes<S extends object, T>(build: (db: Db, shape: S) => T, options: { max?: number } = {}): (db: Db, shape: S) => T {
  const variants = preparedVariants<string, T>((db, key) => build(db, JSON.parse(key) as S), options)
  return (db, shape) => variants(db, JSON.stringify(shape))
}

/**
 * One SQL text with positional `?` parameters, run for its effect, for the few statements whose
 * parameter count makes Drizzle's named placeholders the bottleneck (a 50-row INSERT binds 750
 * values). On bun:sqlite the connection's statement cache keeps it prepared; on libSQL it runs on
 * the transaction (or client) the Drizzle object stands for. `params` are SQLite values as they are
 * bound (booleans already 1/0: the caller builds the array, so nothing walks 750 values again here).
 * Returns the rows changed and the rowid of the last row inserted.
 */
export async function runPositional(db: Db, text: string, params: (string | number | null)[]): Promise<{ changes: number; lastInsertRowid: number }> {
  const client = (db as { $client?: unknown }).$client
  if (client instanceof SqliteDatabase) {
    // One array argument binds positionally like a spread, without copying 750 values into an
    // argument list per call (most of the insert's allocation otherwise).
    const { changes, lastInsertRowid } = client.query(text).run(params as never)
    return { changes, lastInsertRowid: Number(lastInsertRowid) }
  }
  // Drizzle's libSQL session holds the open transaction (`tx`) or the client itself.
  const session = (db as unknown as { session: { tx?: LibsqlExecutor; client: LibsqlExecutor } }).session
  const result = await (session.tx ?? session.client).execute({ sql: text, args: params as never[] })
  return { changes: result.rowsAffected, lastInsertRowid: Number(result.lastInsertRowid ?? 0) }
}

interface LibsqlExecutor {
  execute(statement: { sql: string; args: never[] }): Promise<{ rowsAffected: number; lastInsertRowid: bigint | undefined }>
}

/**
 * Rows of a read as arrays of column values, for the reads that return thousands of rows (a day of
 * pings): Drizzle's per-row mapping into objects costs several times SQLite's own work there. On
 * bun:sqlite the connection's statement cache keeps the text prepared; on libSQL it runs on the client.
 */
export async function selectValues(db: Db, text: string, params: (string | number | null)[]): Promise<unknown[][]> {
  const client = (db as { $client?: unknown }).$client
  if (client instanceof SqliteDatabase) return client.query(text).values(params as never) as unknown[][]
  const session = (db as unknown as { session: { client: { execute(statement: { sql: string; args: never[] }): Promise<{ rows: unknown[] }> } } }).session
  return (await session.client.execute({ sql: text, args: params as never[] })).rows as unknown[][]
}

/**
 * A prepared update's `set`: `{column: sql.placeholder(column)}` for each named column of `table`. Drizzle
 * binds a placeholder there through the column's encoder (a JSON column's value is stringified, a boolean
 * stored as 0/1), but its `set` type does not list placeholders: this is the one place that says so, and
 * the column names are checked against the table.
 */
export function setPlaceholders<T extends SQLiteTable>(_table: T, columns: readonly (keyof T['$inferInsert'] & string)[]): SQLiteUpdateSetSource<T> {
  return placeholdersOf(columns) as SQLiteUpdateSetSource<T>
}

/** A prepared insert's `values`, the same way: `{column: sql.placeholder(column)}` for each named column of `table`. */
export function insertPlaceholders<T extends SQLiteTable>(_table: T, columns: readonly (keyof T['$inferInsert'] & string)[]): SQLiteInsertValue<T> {
  return placeholdersOf(columns) as SQLiteInsertValue<T>
}

const placeholdersOf = (columns: readonly string[]) => Object.fromEntries(columns.map((column) => [column, sql.placeholder(column)]))

/** A column's or expression's own decoder that returns what the driver gave (no call needed). */
interface Decoder {
  mapFromDriverValue(value: unknown): unknown
}
/** An SQL expression's decoder (`mapWith`; Drizzle's own field, left out of its published types). */
const sqlDecoder = (expression: SQL): Decoder => (expression as unknown as { decoder: Decoder }).decoder

const IDENTITY_DECODERS = new Set<unknown>([Column.prototype.mapFromDriverValue, sqlDecoder(sql`1`).mapFromDriverValue])
type SelectedField = { path: string[]; field: unknown }

/** The decoder Drizzle maps a selected field's value with (as drizzle-orm's `mapResultRow` finds it). */
function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field
  if (is(field, SQL)) return sqlDecoder(field)
  if (is(field, Subquery)) return sqlDecoder((field as unknown as { _: { sql: SQL } })._.sql)
  return sqlDecoder((field as SQL.Aliased).sql)
}

/**
 * A bun:sqlite prepared statement gets, once, generated functions for what Drizzle redoes on every
 * execution:
 *
 * - its parameters: Drizzle's `fillPlaceholders` tells each one apart (a placeholder, an encoded
 *   placeholder, a constant) with `is()` class checks on every call; here one function per statement
 *   reads the values in order, encoding only where the column has an encoder (a JSON column, a
 *   boolean), and refuses a missing value with Drizzle's own message. About 10 µs of a check-in's
 *   twenty statements (docs/PERFORMANCE.md "Reads at their ceiling", sixth pass);
 * - a flat selection's rows (every field a top-level key, no joined table as a nested object): the
 *   row's values into an object literal, each decoded only where its column has a decoder of its own
 *   (a boolean, a JSON text), null left null, as Drizzle's generic per-cell mapping does (~17 µs of a
 *   20-row page of visits; docs/PERFORMANCE.md "Reads at their ceiling"). Anything else keeps
 *   Drizzle's mapping: a nested selection (whose left-joined objects Drizzle turns into null), a
 *   custom mapper.
 *
 * libSQL's statements keep Drizzle's. `statement` is a prepared query or an object of them (a list's
 * page and total).
 */
export function compileRowsOf(statement: unknown) {
  if (typeof statement !== 'object' || statement === null) return
  if (!is(statement, BunPreparedQuery)) {
    for (const part of Object.values(statement)) if (is(part, BunPreparedQuery)) compileStatement(part)
    return
  }
  compileStatement(statement)
}

interface BunStatement {
  run(...params: unknown[]): unknown
  values(...params: unknown[]): unknown[][]
}

function compileStatement(query: object) {
  const prepared = query as {
    query: { sql: string; params: unknown[] }
    stmt: BunStatement
    logger: { logQuery(sql: string, params: unknown[]): void }
    run(placeholders?: Record<string, unknown>): unknown
    values(placeholders?: Record<string, unknown>): unknown[][]
  }
  const fill = compileParams(prepared.query.params)
  const { stmt, logger } = prepared
  const text = prepared.query.sql
  // What Drizzle's `run` and `values` do before calling the statement: bind, then log.
  const bind = (placeholders: Record<string, unknown> | undefined) => {
    const params = fill(placeholders ?? {})
    logger.logQuery(text, params)
    return params
  }
  prepared.run = (placeholders) => stmt.run(...bind(placeholders))
  prepared.values = (placeholders) => stmt.values(...bind(placeholders))
  compileRows(prepared)
}

/** Drizzle's `fillPlaceholders` for one statement's parameters, generated once (see `compileRowsOf`). */
function compileParams(params: readonly unknown[]): (values: Record<string, unknown>) => unknown[] {
  const constants: unknown[] = []
  const encoders: { mapToDriverValue(value: unknown): unknown }[] = []
  const missing = (name: string): never => {
    throw new Error(`No value for placeholder "${name}" was provided`)
  }
  const entries = params.map((param, i) => {
    if (is(param, Placeholder)) {
      const name = JSON.stringify(param.name)
      return `(${name} in v ? v[${name}] : m(${name}))`
    }
    if (is(param, Param) && is(param.value, Placeholder)) {
      const name = JSON.stringify(param.value.name)
      encoders[i] = param.encoder as (typeof encoders)[number]
      return `(${name} in v ? e[${i}].mapToDriverValue(v[${name}]) : m(${name}))`
    }
    constants[i] = param
    return `c[${i}]`
  })
  return new Function('c', 'e', 'm', `return (v) => [${entries.join(', ')}]`)(constants, encoders, missing) as (values: Record<string, unknown>) => unknown[]
}

function compileRows(query: object) {
  const prepared = query as {
    fields?: SelectedField[]
    customResultMapper?: unknown
    values(placeholders?: Record<string, unknown>): unknown[][]
    all: unknown
  }
  const fields = prepared.fields
  if (!fields || prepared.customResultMapper || fields.some(({ path }) => path.length !== 1)) return
  const decoders = fields.map(({ field }) => decoderOf(field))
  const entries = fields.map(({ path }, i) => {
    const key = JSON.stringify(path[0])
    return IDENTITY_DECODERS.has(decoders[i].mapFromDriverValue) ? `${key}: r[${i}]` : `${key}: (v = r[${i}]) === null ? null : d[${i}].mapFromDriverValue(v)`
  })
  const row = new Function('d', `return (r) => { let v; return { ${entries.join(', ')} } }`)(decoders) as (values: unknown[]) => unknown
  prepared.all = (placeholders?: Record<string, unknown>) => prepared.values(placeholders).map(row)
}
