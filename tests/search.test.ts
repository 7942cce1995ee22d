/**
 * Keyword search by index (src/platform/data/search.ts, drizzle/0012_keyword_search.sql): every searchable
 * list finds exactly the rows the `instr` scan finds — same rows, order, paging and meta.total — on
 * both drivers, and the FTS5 tables never disagree with the tables they index, whoever writes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { outlets } from '../src/db/schema'
import { MIGRATIONS_FOLDER } from '../src/db/client'
import { foldText } from '../src/platform/data/pagination'
import { eq } from 'drizzle-orm'
import { INDEX_DRIVEN_PAGE_MAX, searchIndex } from '../src/platform/data/search'
import { defineList, type ListQueryBase } from '../src/platform/data/list'
import { DEFAULT_LIST } from '../src/platform/data/pagination'
import { workspaceScoped } from '../src/platform/data/scope'
import type { AuthedContext } from '../src/platform/context'
import { createTestApp, unique, type TestApp, type Workspace } from './harness'

const OFFICE = '/office/v1'

/** Every searchable list: its FTS5 table, its base table, the expressions the old scan compared, its path. */
const SEARCHABLE = [
  { index: 'outlets_search', table: 'outlets', scan: ['name_key', "coalesce(code_key, '')"], path: `${OFFICE}/outlets` },
  { index: 'users_search', table: 'users', scan: ['lower(name)', 'email'], path: `${OFFICE}/users` },
  { index: 'products_search', table: 'products', scan: ['name_key', 'sku_key'], path: `${OFFICE}/products` },
  { index: 'principals_search', table: 'principals', scan: ['name_key', "coalesce(code_key, '')"], path: `${OFFICE}/principals` },
  { index: 'projects_search', table: 'projects', scan: ['name_key', "coalesce(code_key, '')"], path: `${OFFICE}/projects` },
  { index: 'channel_groups_search', table: 'channel_groups', scan: ['name_key'], path: `${OFFICE}/outlets/channel-groups` },
  { index: 'channels_search', table: 'channels', scan: ['name_key'], path: `${OFFICE}/outlets/channels` },
  { index: 'accounts_search', table: 'accounts', scan: ['name_key'], path: `${OFFICE}/outlets/accounts` },
  { index: 'sub_areas_search', table: 'sub_areas', scan: ['name_key'], path: `${OFFICE}/outlets/sub-areas` },
] as const
type Searchable = (typeof SEARCHABLE)[number]

const rowsOf = async <T>(t: TestApp, query: ReturnType<typeof sql>) => (await t.db.read.all(query)) as T[]
const phrase = (keyword: string) => `"${keyword.replaceAll('"', '""')}"`

/** The scan the lists ran before the index, over the live rows of the table (all workspaces). */
function scanCondition(list: Searchable, keyword: string) {
  return sql.join(
    list.scan.map((expression) => sql`instr(${sql.raw(expression)}, ${keyword}) > 0`),
    sql` or `,
  )
}

/**
 * The index holds exactly the live rows, and for every three-character window of their indexed text
 * (and the whole text) it finds the rows the scan finds — plus, at most, rows whose text holds a NUL
 * (the tokenizer skips it; the lists confirm every candidate with the scan, see platform/data/search.ts).
 */
async function expectInStep(t: TestApp, list: Searchable) {
  const live = (await rowsOf<{ id: number }>(t, sql`select id from ${sql.identifier(list.table)} where deleted_at is null order by id`)).map((r) => r.id)
  const indexed = (await rowsOf<{ id: number }>(t, sql`select rowid as id from ${sql.identifier(list.index)} order by rowid`)).map((r) => r.id)
  expect({ table: list.table, ids: indexed }).toEqual({ table: list.table, ids: live })
  const texts = await rowsOf<{ id: number; text: string | null }>(
    t,
    sql`select id, ${sql.join(
      list.scan.map((expression) => sql.raw(expression)),
      sql` || char(10) || `,
    )} as text from ${sql.identifier(list.table)}`,
  )
  const holdingNul = new Set(texts.filter(({ text }) => text?.includes('\u0000')).map(({ id }) => id))
  const keywords = new Set<string>()
  for (const { text } of texts) {
    for (const part of (text ?? '').split('\n')) {
      const chars = [...part]
      if (chars.length >= 3 && !part.includes('\u0000')) keywords.add(part)
      for (let i = 0; i + 3 <= chars.length; i += 2) keywords.add(chars.slice(i, i + 3).join(''))
    }
  }
  for (const keyword of [...keywords].filter((k) => !k.includes('\u0000')).slice(0, 300)) {
    const byIndex = await rowsOf<{ id: number }>(
      t,
      sql`select rowid as id from ${sql.identifier(list.index)} where ${sql.identifier(list.index)} match ${phrase(keyword)} order by rowid`,
    )
    const byScan = await rowsOf<{ id: number }>(
      t,
      sql`select id from ${sql.identifier(list.table)} where deleted_at is null and (${scanCondition(list, keyword)}) order by id`,
    )
    const scanned = new Set(byScan.map((r) => r.id))
    expect({ table: list.table, keyword, ids: byIndex.map((r) => r.id).filter((id) => scanned.has(id) || !holdingNul.has(id)) }).toEqual({
      table: list.table,
      keyword,
      ids: byScan.map((r) => r.id),
    })
  }
}

async function expectAllInStep(t: TestApp) {
  for (const list of SEARCHABLE) await expectInStep(t, list)
}

/** A list's answer for a keyword next to what the old scan answers, over the caller's workspace. */
async function expectListMatchesScan(t: TestApp, ws: Workspace, list: Searchable, keyword: string, options: { page?: number; sortByName?: boolean } = {}) {
  const page = options.page ?? 1
  const order = options.sortByName ? sql.raw(`${list.scan[0] === 'lower(name)' ? 'name' : 'name_key'} asc, id asc`) : sql.raw('created_at desc, id desc')
  const query = `keyword=${encodeURIComponent(keyword)}&limit=100&page=${page}${options.sortByName ? '&sort_by=name&sort_order=asc' : ''}`
  const reply = await t.get(`${list.path}?${query}`, { token: ws.owner.token })
  expect({ path: list.path, keyword, status: reply.status }).toEqual({ path: list.path, keyword, status: 200 })
  const folded = foldText(keyword.trim())
  if (!folded) return
  const scope =
    list.table === 'users' ? sql`id in (select user_id from memberships where workspace_id = ${ws.id} and deleted_at is null)` : sql`workspace_id = ${ws.id}`
  const barcode = list.table === 'products' ? sql` or barcode = ${keyword.trim()}` : sql``
  const expected = await rowsOf<{ id: number }>(
    t,
    sql`select id from ${sql.identifier(list.table)} where ${scope} and deleted_at is null and (${scanCondition(list, folded)}${barcode}) order by ${order} limit 100 offset ${(page - 1) * 100}`,
  )
  const [{ total }] = await rowsOf<{ total: number }>(
    t,
    sql`select count(*) as total from ${sql.identifier(list.table)} where ${scope} and deleted_at is null and (${scanCondition(list, folded)}${barcode})`,
  )
  expect({ path: list.path, keyword, ids: reply.body.data.map((row: { id: number }) => row.id), total: reply.body.meta.total }).toEqual({
    path: list.path,
    keyword,
    ids: expected.map((r) => r.id),
    total: Number(total),
  })
}

/** Names that fold, quote or look like FTS5 syntax. */
const TRICKY = [
  'Toko "Maju" Jaya',
  'ＡＢＣ Mart',
  'Straße Ünal',
  'ÉLISE Café',
  'AND OR NOT',
  'NEAR(abc, 2)',
  'x* y^ {name_key}: z',
  '100% _under_',
  'ﬁne ﬂour',
  '🚀🚀 Rocket',
  "O'Brien -minus +plus",
]
const SPECIAL_KEYWORDS = [
  '"',
  'a"b',
  '"maju"',
  'AND',
  'OR',
  'NOT',
  'NEAR(',
  'NEAR(abc',
  '*',
  'x*',
  '^ab',
  'name_key: x',
  '{name_key}:',
  '-min',
  '+plu',
  '%',
  '_',
  '100%',
  '_un',
  "o'b",
  'nul\u0000byte',
  'ma',
  'é',
  'ÉLI',
  'éli',
  'abc',
  'ＡＢＣ',
  'fine',
  'ﬁn',
  'strasse',
  'straße',
  '🚀🚀',
  '🚀 r',
  ' maju ',
]

async function seedTricky(t: TestApp, ws: Workspace) {
  const token = ws.owner.token
  const ok = (reply: { status: number; text: string }) => {
    if (reply.status !== 201) throw new Error(`seed: ${reply.status} ${reply.text}`)
    return (reply as unknown as { body: { data: { id: number } } }).body.data
  }
  const group = ok(await t.post(`${OFFICE}/outlets/channel-groups`, { name: unique('Group') }, { token }))
  const channel = ok(await t.post(`${OFFICE}/outlets/channels`, { name: unique('Channel'), channel_group_id: group.id }, { token }))
  const principal = ok(await t.post(`${OFFICE}/principals`, { name: unique('Principal') }, { token }))
  for (const [i, name] of TRICKY.entries()) {
    const code = `C"${i}*${name.slice(0, 3)}`
    ok(await t.post(`${OFFICE}/outlets`, { name, code }, { token }))
    ok(await t.post(`${OFFICE}/outlets/channel-groups`, { name }, { token }))
    ok(await t.post(`${OFFICE}/outlets/channels`, { name, channel_group_id: group.id }, { token }))
    ok(await t.post(`${OFFICE}/outlets/accounts`, { name, channel_id: channel.id }, { token }))
    ok(await t.post(`${OFFICE}/outlets/sub-areas`, { name }, { token }))
    ok(await t.post(`${OFFICE}/principals`, { name, code }, { token }))
    ok(await t.post(`${OFFICE}/products`, { name, sku: code, principal_id: principal.id }, { token }))
    ok(await t.post(`${OFFICE}/projects`, { name, code }, { token }))
  }
  for (const name of TRICKY.slice(0, 4)) await t.member(ws, 'user', { name })
}

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`the index never disagrees with the table (${driver})`, () => {
    let t: TestApp
    let ws: Workspace
    beforeAll(async () => {
      t = await createTestApp({ driver })
      ws = await t.workspace()
    })
    afterAll(() => t.close())

    test('after creates through the API every index holds exactly the live rows, and finds what the scan finds', async () => {
      await seedTricky(t, ws)
      await expectAllInStep(t)
    })

    test('renames, code changes and removals, soft deletes, restores and hard deletes (through the API and direct SQL) keep every index in step', async () => {
      const token = ws.owner.token
      const listed = (await t.get(`${OFFICE}/outlets?limit=100`, { token })).body.data as { id: number; name: string }[]
      const [a, b, c, d] = listed
      expect((await t.put(`${OFFICE}/outlets/${a.id}`, { name: 'Renamed Zebra Kiosk' }, { token })).status).toBe(200)
      expect((await t.put(`${OFFICE}/outlets/${b.id}`, { code: 'NEW-CODE-77' }, { token })).status).toBe(200)
      expect((await t.put(`${OFFICE}/outlets/${c.id}`, { code: null }, { token })).status).toBe(200)
      expect((await t.delete(`${OFFICE}/outlets/${d.id}`, { token })).status).toBe(200)
      const groups = (await t.get(`${OFFICE}/outlets/sub-areas?limit=100`, { token })).body.data as { id: number }[]
      expect((await t.put(`${OFFICE}/outlets/sub-areas/${groups[0].id}`, { name: 'Renamed Area Qq' }, { token })).status).toBe(200)
      expect((await t.delete(`${OFFICE}/outlets/sub-areas/${groups[1].id}`, { token })).status).toBe(200)
      const users = (await t.get(`${OFFICE}/users?limit=100`, { token })).body.data as { id: number }[]
      const field = users.find((user) => user.id !== ws.owner.user.id)!
      expect((await t.put(`${OFFICE}/users/${field.id}`, { name: 'Renamed Person Ww' }, { token })).status).toBe(200)
      await expectAllInStep(t)
      expect((await t.get(`${OFFICE}/outlets?keyword=zebra`, { token })).body.data.map((o: { id: number }) => o.id)).toEqual([a.id])
      expect((await t.get(`${OFFICE}/outlets?keyword=${encodeURIComponent(d.name)}`, { token })).body.meta.total).toBe(0)

      // Direct SQL, as a seed or an operator would write: restore, rename, hard delete, insert.
      await t.db.transaction(async (tx) => {
        await tx.run(sql`update outlets set deleted_at = null where id = ${d.id}`)
        await tx.run(sql`update outlets set name = 'Direct Yak', name_key = 'direct yak' where id = ${b.id}`)
        await tx.run(sql`update outlets set updated_at = updated_at where workspace_id = ${ws.id}`)
        await tx.run(sql`delete from outlets where id = ${c.id}`)
        await tx.run(sql`update users set deleted_at = '2024-01-01T00:00:00.000Z' where id = ${field.id}`)
        await tx.run(sql`update sub_areas set deleted_at = null where id = ${groups[1].id}`)
        await tx.run(sql`insert into outlets (workspace_id, name, name_key, code, code_key, is_active, created_at, updated_at)
          values (${ws.id}, 'Direct Insert Vole', 'direct insert vole', 'DIV-1', 'div-1', 1, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`)
      })
      await expectAllInStep(t)
      expect((await t.get(`${OFFICE}/outlets?keyword=${encodeURIComponent(d.name)}`, { token })).body.data.map((o: { id: number }) => o.id)).toContain(d.id)
      expect((await t.get(`${OFFICE}/outlets?keyword=vole`, { token })).body.meta.total).toBe(1)
      expect((await t.get(`${OFFICE}/users?keyword=renamed person`, { token })).body.meta.total).toBe(0)
    })

    test('30 creates and 30 renames at once leave every index in step', async () => {
      const token = ws.owner.token
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) => t.post(`${OFFICE}/outlets`, { name: `Burst Outlet ${i}`, code: `BURST-${i}` }, { token })),
      )
      expect(created.map((reply) => reply.status)).toEqual(Array(30).fill(201))
      const renamed = await Promise.all(created.map((reply, i) => t.put(`${OFFICE}/outlets/${reply.body.data.id}`, { name: `Burst Renamed ${i}` }, { token })))
      expect(renamed.map((reply) => reply.status)).toEqual(Array(30).fill(200))
      await expectInStep(t, SEARCHABLE[0])
      expect((await t.get(`${OFFICE}/outlets?keyword=burst renamed&limit=100`, { token })).body.meta.total).toBe(30)
      expect((await t.get(`${OFFICE}/outlets?keyword=burst outlet`, { token })).body.meta.total).toBe(0)
    })

    test('every list answers keywords that look like FTS5 syntax, quote, fold or hold NUL with 200 and the rows the scan finds', async () => {
      for (const list of SEARCHABLE) for (const keyword of SPECIAL_KEYWORDS) await expectListMatchesScan(t, ws, list, keyword)
    })

    test('the migration indexes the rows that exist before it, and is the only definition needed', async () => {
      // Drop what 0012 created, write rows without it, then apply its SQL again.
      const statements = readFileSync(join(MIGRATIONS_FOLDER, '0012_keyword_search.sql'), 'utf8').split('--> statement-breakpoint')
      for (const list of SEARCHABLE) {
        for (const suffix of ['insert', 'update', 'delete']) await t.db.pragma(`DROP TRIGGER ${list.index}_${suffix}`)
        await t.db.pragma(`DROP TABLE ${list.index}`)
      }
      await t.db.pragma(`UPDATE outlets SET name_key = name_key || ' backfilled' WHERE workspace_id = ${ws.id}`)
      for (const statement of statements) await t.db.pragma(statement)
      await expectAllInStep(t)
      expect((await t.get(`${OFFICE}/outlets?keyword=backfilled&limit=100`, { token: ws.owner.token })).body.meta.total).toBe(
        await t.count('outlets', `workspace_id = ${ws.id} AND deleted_at IS NULL`),
      )
    })
  })
}

/** The outlet list's keyword search, with one filter: the page's method follows the total under the filters. */
const broadList = defineList<typeof outlets, 'created_at' | 'id', ListQueryBase<'created_at' | 'id'> & { is_active?: boolean }>({
  scope: workspaceScoped(outlets),
  search: { columns: [outlets.name_key, outlets.code_key], index: searchIndex('outlets_search', outlets.id) },
  filters: { is_active: (active: boolean) => eq(outlets.is_active, active) },
  sort: { created_at: outlets.created_at, id: outlets.id },
  limits: DEFAULT_LIST,
  prepared: { bind: { is_active: (active: boolean) => Number(active) } },
})

describe('lists answer exactly what the scan answers', () => {
  let t: TestApp
  let ws: Workspace
  let other: Workspace
  beforeAll(async () => {
    t = await createTestApp()
    ws = await t.workspace()
    other = await t.workspace()
  })
  afterAll(() => t.close())

  const ALPHABET = [
    'a',
    'b',
    'A',
    'B',
    'm',
    'j',
    'u',
    ' ',
    'é',
    'É',
    'ß',
    'ﬁ',
    'Ａ',
    'İ',
    '🚀',
    '"',
    '*',
    '%',
    '_',
    '(',
    ')',
    ':',
    '^',
    '-',
    "'",
    'OR',
    'AND',
    'NEAR(',
    '\u0000',
  ]
  const text = (min: number, max: number) => fc.array(fc.constantFrom(...ALPHABET), { minLength: min, maxLength: max }).map((parts) => parts.join(''))

  test('randomized: outlet names, codes and keywords (unicode, NFKC, 1-2 characters, FTS5 syntax) — same ids, order, paging and total as the scan', async () => {
    const token = ws.owner.token
    // Another workspace's matches must never show: it gets the same kind of rows.
    for (let i = 0; i < 10; i++) await t.post(`${OFFICE}/outlets`, { name: `Maju ab ${i}`, code: `ab-${i}` }, { token: other.owner.token })
    let created = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(text(1, 12), fc.option(text(1, 8), { nil: null })), { minLength: 0, maxLength: 5 }),
        fc.oneof(text(1, 6), fc.constantFrom(...SPECIAL_KEYWORDS)),
        fc.constantFrom('created_at', 'name', 'code', 'id'),
        fc.constantFrom('asc', 'desc'),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 3 }),
        async (rows, keyword, sortBy, sortOrder, limit, page) => {
          for (const [name, code] of rows) {
            const reply = await t.post(`${OFFICE}/outlets`, { name, code }, { token })
            if (reply.status === 201) created++
            else expect(reply.status).toBeLessThan(500)
          }
          const reply = await t.get(
            `${OFFICE}/outlets?keyword=${encodeURIComponent(keyword)}&sort_by=${sortBy}&sort_order=${sortOrder}&limit=${limit}&page=${page}`,
            { token },
          )
          expect(reply.status).toBe(200)
          const folded = foldText(keyword.trim())
          const column = { created_at: 'created_at', name: 'name_key', code: 'code_key', id: 'id' }[sortBy]
          const where = sql`workspace_id = ${ws.id} and deleted_at is null${folded ? sql` and (instr(name_key, ${folded}) > 0 or instr(coalesce(code_key, ''), ${folded}) > 0)` : sql``}`
          const expected = await rowsOf<{ id: number }>(
            t,
            sql`select id from outlets where ${where} order by ${sql.raw(column)} ${sql.raw(sortOrder)}, id ${sql.raw(sortOrder)} limit ${limit} offset ${(page - 1) * limit}`,
          )
          const [{ total }] = await rowsOf<{ total: number }>(t, sql`select count(*) as total from outlets where ${where}`)
          expect({ keyword, ids: reply.body.data.map((o: { id: number }) => o.id), total: reply.body.meta.total }).toEqual({
            keyword,
            ids: expected.map((r) => r.id),
            total: Number(total),
          })
        },
      ),
      { numRuns: 120 },
    )
    expect(created).toBeGreaterThan(50)
    await expectInStep(t, SEARCHABLE[0])
  })

  test(`a keyword matching more than ${INDEX_DRIVEN_PAGE_MAX} rows pages by the list's order and still answers what the scan answers, on every page and in total`, async () => {
    const many = INDEX_DRIVEN_PAGE_MAX + 200
    await t.db.pragma(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${many})
      INSERT INTO outlets (workspace_id, name, name_key, code, code_key, is_active, created_at, updated_at)
      SELECT ${ws.id}, 'Broad Qux ' || i, 'broad qux ' || i, 'BQ-' || i, 'bq-' || i, 1, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z' FROM n`)
    // The total (by index, read first) decides how the page is found: over the limit, the scan in the list's order.
    const ctx = { deps: t.deps, actor: { workspaceId: ws.id, userId: ws.owner.user.id, timeZone: 'UTC' } } as unknown as AuthedContext
    const byIndex = async (query: { keyword: string; is_active?: boolean }) => {
      const { rows, total } = await broadList.sqlOf(ctx, query)
      return { rows: rows.includes('outlets_search'), total: total.includes('outlets_search') }
    }
    expect(await byIndex({ keyword: 'broad qux' })).toEqual({ rows: false, total: true })
    expect(await byIndex({ keyword: 'broad qux 12' })).toEqual({ rows: true, total: true })
    expect(await byIndex({ keyword: 'qu' })).toEqual({ rows: false, total: false })
    const list = SEARCHABLE[0]
    for (const options of [{}, { page: 3 }, { page: 13 }, { page: 2, sortByName: true }]) {
      for (const keyword of ['broad qux', 'BROAD QUX 12', 'qu', 'bq-1']) await expectListMatchesScan(t, ws, list, keyword, options)
    }
  })

  test(`a keyword common in the table but matching at most ${INDEX_DRIVEN_PAGE_MAX} of the caller's rows under the filters pages by index, with the scan's rows`, async () => {
    const many = INDEX_DRIVEN_PAGE_MAX + 50
    await t.db.pragma(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${many})
      INSERT INTO outlets (workspace_id, name, name_key, code, code_key, is_active, created_at, updated_at)
      SELECT ${ws.id}, 'Wide Zeb ' || i, 'wide zeb ' || i, 'WZ-' || i, 'wz-' || i, i % 300 != 0, '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:00.000Z' FROM n`)
    const ctx = { deps: t.deps, actor: { workspaceId: ws.id, userId: ws.owner.user.id, timeZone: 'UTC' } } as unknown as AuthedContext
    const inactive = await broadList.sqlOf(ctx, { keyword: 'wide zeb', is_active: false })
    expect(inactive.rows).toContain('outlets_search')
    expect((await broadList.sqlOf(ctx, { keyword: 'wide zeb', is_active: true })).rows).not.toContain('outlets_search')
    const page = await broadList(ctx, { keyword: 'wide zeb', is_active: false, limit: 100 })
    const expected = await rowsOf<{ id: number }>(
      t,
      sql`select id from outlets where workspace_id = ${ws.id} and deleted_at is null and is_active = 0 and instr(name_key, 'wide zeb') > 0 order by created_at desc, id desc`,
    )
    expect({ ids: page.rows.map((row) => row.id), total: page.meta.total }).toEqual({ ids: expected.map((row) => row.id), total: 3 })
  })

  test('keywords of three characters or more are answered by the index, shorter ones by the scan', async () => {
    const token = ws.owner.token
    const outlet = (await t.post(`${OFFICE}/outlets`, { name: 'Pelican Kq Store', code: 'PKS-1' }, { token })).body.data
    // Remove the row from the index behind the triggers' back: only the scan still finds it.
    await t.db.pragma(`DELETE FROM outlets_search WHERE rowid = ${outlet.id}`)
    const find = async (keyword: string) =>
      (await t.get(`${OFFICE}/outlets?keyword=${encodeURIComponent(keyword)}&limit=100`, { token })).body.data.map((o: { id: number }) => o.id)
    expect(await find('pelican')).not.toContain(outlet.id)
    expect(await find('kq')).toContain(outlet.id)
    await t.db.pragma(`INSERT INTO outlets_search (rowid, name_key, code_key) VALUES (${outlet.id}, 'pelican kq store', 'pks-1')`)
    expect(await find('pelican')).toContain(outlet.id)
  })

  test('over a real socket, a keyword list answers with the scan’s rows and total', async () => {
    t.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const token = ws.owner.token
      const response = await fetch(`http://127.0.0.1:${t.app.server!.port}/api${OFFICE}/outlets?keyword=${encodeURIComponent('"broad" qux 1')}&limit=5`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(response.status).toBe(200)
      const body = (await response.json()) as { data: unknown[]; meta: { total: number } }
      expect(body.meta.total).toBe(0)
      const broad = await fetch(`http://127.0.0.1:${t.app.server!.port}/api${OFFICE}/outlets?keyword=broad%20qux%2012&limit=5`, {
        headers: { authorization: `Bearer ${token}` },
      })
      // "broad qux 12", "… 120" to "… 129" and "… 1200"
      expect(((await broad.json()) as { meta: { total: number } }).meta.total).toBe(12)
    } finally {
      await t.app.stop()
    }
  })
})
