/**
 * Hot statements are built and prepared once per connection and reused with `sql.placeholder`
 * values. Building a Drizzle query and preparing it in SQLite costs more than running a small indexed
 * statement, so the request paths that run on every call (auth, idempotency, ingest, lists) use these.
 *
 * The cache is per Db object: the bun:sqlite reader and writer keep theirs for the process; a libSQL
 * transaction object lives for one transaction, so its statements are prepared for that one use.
 */
import type { Db } from './client'

export function prepared<T>(build: (db: Db) => T): (db: Db) => T {
  const variants = preparedVariants<'', T>((db) => build(db))
  return (db) => variants(db, '')
}

/**
 * The same for a family of statements that differ in shape (sort column, optional filters): one
 * prepared statement per shape key, built on first use.
 */
export function preparedVariants<K extends string | number, T>(build: (db: Db, key: K) => T): (db: Db, key: K) => T {
  const cache = new WeakMap<Db, Map<K, T>>()
  return (db, key) => {
    let statements = cache.get(db)
    if (!statements) cache.set(db, (statements = new Map()))
    let statement = statements.get(key)
    if (statement === undefined) {
      statement = build(db, key)
      statements.set(key, statement)
    }
    return statement
  }
}
