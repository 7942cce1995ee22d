/**
 * Drizzle's queries that were not prepared ahead are compiled once per bun:sqlite connection and kept
 * by their text, at most the memory budget's number of them (src/db/client.ts withStatementCache,
 * src/config/memory-budget.ts). A real database file of the test app at the smallest budget: 16 statements.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import type { Database as SqliteDatabase } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import { memoryShares } from '../src/config/memory-budget'
import { createTestApp, type TestApp } from './harness'

let t: TestApp
const size = memoryShares(112).sqlite.statements
const raw = (db: unknown) => (db as { $client: SqliteDatabase }).$client

beforeAll(async () => {
  t = await createTestApp({ env: { MEMORY_BUDGET_MB: '112' } })
  await t.db.pragma('create table cache_probe (id integer primary key, v text not null unique)')
})
afterAll(async () => {
  await t?.close()
})

describe('statements compiled once per connection (bun:sqlite)', () => {
  test('the same text runs again on the statement compiled the first time, with its new values', async () => {
    const compile = spyOn(raw(t.db.read), 'prepare')
    try {
      const first = await t.db.read.all<{ v: number }>(sql`select ${41} + 1 as v`)
      const second = await t.db.read.all<{ v: number }>(sql`select ${99} + 1 as v`)
      expect([first, second]).toEqual([[{ v: 42 }], [{ v: 100 }]])
      expect(compile).toHaveBeenCalledTimes(1)
    } finally {
      compile.mockRestore()
    }
  })

  test(`at most ${size} texts are kept: the least recently used one is compiled again, a recent one is not`, async () => {
    expect(size).toBe(16)
    const compile = spyOn(raw(t.db.read), 'prepare')
    try {
      const run = (n: number) => t.db.read.all<{ n: number }>(sql.raw(`select ${n} as n`))
      for (let n = 1; n <= size + 1; n++) expect(await run(n)).toEqual([{ n }])
      expect(compile).toHaveBeenCalledTimes(size + 1)
      await run(size + 1)
      expect(compile).toHaveBeenCalledTimes(size + 1)
      await run(1)
      expect(compile).toHaveBeenCalledTimes(size + 2)
    } finally {
      compile.mockRestore()
    }
  })

  test('a statement whose run failed (a unique value twice) runs again afterwards, and the failure left nothing behind', async () => {
    const insert = (v: string) => t.db.transaction(async (tx) => tx.run(sql`insert into cache_probe (v) values (${v})`))
    await insert('a')
    await expect(insert('a')).rejects.toThrow('Failed to run the query')
    await insert('b')
    expect(await t.db.read.all(sql`select v from cache_probe order by id`)).toEqual([{ v: 'a' }, { v: 'b' }])
  })

  test('only Drizzle sees the cache: `$client` is the connection itself', () => {
    const connection = raw(t.db.read)
    expect(connection.constructor.name).toBe('Database')
    const a = connection.prepare('select 1')
    const b = connection.prepare('select 1')
    expect(a).not.toBe(b)
  })
})
