/**
 * Prepared selects read their rows through one generated function (src/db/prepared.ts compileRowsOf):
 * the rows must be exactly what Drizzle's own mapping gives, decoders, nulls and left joins included,
 * and selections it cannot take (nested objects) keep Drizzle's mapping.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { eq, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { PreparedQuery } from 'drizzle-orm/bun-sqlite/session'
import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { Db } from '../src/db/client'
import { insertPlaceholders, prepared, preparedVariants } from '../src/db/prepared'

const parents = sqliteTable('parents', { id: integer('id').primaryKey(), name: text('name').notNull() })
const things = sqliteTable('things', {
  id: integer('id').primaryKey(),
  parent_id: integer('parent_id'),
  name: text('name').notNull(),
  active: integer('active', { mode: 'boolean' }).notNull(),
  data: text('data', { mode: 'json' }).$type<{ a: number[] } | null>(),
  at: integer('at', { mode: 'timestamp_ms' }),
  ratio: real('ratio'),
})

const client = new Database(':memory:', { strict: true })
client.run('create table parents (id integer primary key, name text not null)')
client.run('create table things (id integer primary key, parent_id integer, name text not null, active integer not null, data text, at integer, ratio real)')
client.run(`insert into parents values (1, 'P1')`)
client.run(
  `insert into things values (1, 1, 'one', 1, '{"a":[1,2]}', 1795600000000, 0.5), (2, null, 'two', 0, null, null, null), (3, 9, 'it''s "three"', 1, '{"a":[]}', 0, 2)`,
)
const db = drizzle({ client }) as unknown as Db
afterAll(() => client.close())

/** What Drizzle's own mapping gives for the same statement (its prototype's `all`, not the generated one). */
const drizzleRows = (query: unknown, values?: Record<string, unknown>) => PreparedQuery.prototype.all.call(query as PreparedQuery, values)

describe('prepared selects read rows through a generated function', () => {
  test('flat selections: columns with and without decoders, expressions with mapWith, a left join that found nothing', async () => {
    const statement = prepared((db) =>
      db
        .select({
          id: things.id,
          name: things.name,
          active: things.active,
          data: things.data,
          at: things.at,
          ratio: things.ratio,
          parent_name: parents.name,
          doubled: sql<number>`${things.id} * 2`.mapWith(Number),
          label: sql<string>`upper(${things.name})`,
          'odd "key"': things.id,
        })
        .from(things)
        .leftJoin(parents, eq(parents.id, things.parent_id))
        .where(sql`${things.id} >= ${sql.placeholder('from')}`)
        .orderBy(things.id)
        .prepare(),
    )(db)
    const rows = await statement.all({ from: 1 })
    // The generated function replaced the instance's `all`: the prototype's is Drizzle's.
    expect(Object.hasOwn(statement, 'all')).toBe(true)
    expect(rows).toEqual(drizzleRows(statement, { from: 1 }) as typeof rows)
    expect(rows[0]).toEqual({
      id: 1,
      name: 'one',
      active: true,
      data: { a: [1, 2] },
      at: new Date(1795600000000),
      ratio: 0.5,
      parent_name: 'P1',
      doubled: 2,
      label: 'ONE',
      'odd "key"': 1,
    })
    expect(rows[1]).toMatchObject({ active: false, data: null, at: null, ratio: null, parent_name: null })
    expect(rows[2].name).toBe('it\'s "three"')
    expect(await statement.all({ from: 3 })).toHaveLength(1)
  })

  test('a nested selection keeps Drizzle’s mapping (a left-joined object that found nothing is null)', () => {
    const statement = prepared((db) =>
      db
        .select({ id: things.id, parent: { id: parents.id, name: parents.name } })
        .from(things)
        .leftJoin(parents, eq(parents.id, things.parent_id))
        .orderBy(things.id)
        .prepare(),
    )(db)
    expect(Object.hasOwn(statement, 'all')).toBe(false)
    expect(statement.all()).toEqual([
      { id: 1, parent: { id: 1, name: 'P1' } },
      { id: 2, parent: null },
      { id: 3, parent: null },
    ])
  })

  test('a family of statements (a list’s page and total) has each of its selects generated', () => {
    const family = preparedVariants((db, key: 'all') => ({
      rows: db
        .select({ id: things.id, active: things.active })
        .from(things)
        .where(eq(things.active, key === 'all'))
        .prepare(),
      total: db.select({ total: sql<number>`count(*)` }).from(things).prepare(),
    }))
    const { rows, total } = family(db, 'all')
    expect(Object.hasOwn(rows, 'all') && Object.hasOwn(total, 'all')).toBe(true)
    expect(rows.all()).toEqual(drizzleRows(rows) as never)
    expect(total.all()).toEqual([{ total: 3 }])
  })
})

describe('prepared statements bind their parameters through a generated function', () => {
  test('placeholders, encoded placeholders (a JSON column, a boolean, a timestamp) and constants bind as Drizzle binds them; a missing value is refused with its message', async () => {
    const insert = prepared((d) =>
      d
        .insert(things)
        .values({ ...insertPlaceholders(things, ['id', 'name', 'active', 'data', 'at']), parent_id: 1 })
        .prepare(),
    )
    const values = { id: 10, name: 'bound', active: true, data: { a: [7] }, at: new Date(1795600000000) }
    await insert(db).run(values)
    expect(client.query('select parent_id, name, active, data, at from things where id = 10').get()).toEqual({
      parent_id: 1,
      name: 'bound',
      active: 1,
      data: '{"a":[7]}',
      at: 1795600000000,
    })
    const { id: _, ...withoutId } = values
    expect(() => insert(db).run(withoutId)).toThrow('No value for placeholder "id" was provided')
    const read = prepared((d) =>
      d
        .select({ id: things.id, data: things.data })
        .from(things)
        .where(eq(things.name, sql.placeholder('name')))
        .prepare(),
    )
    expect(await read(db).all({ name: 'bound' })).toEqual(drizzleRows(read(db), { name: 'bound' }))
    expect(await read(db).all({ name: 'bound' })).toEqual([{ id: 10, data: { a: [7] } }])
  })
})
