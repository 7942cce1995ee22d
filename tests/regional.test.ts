/**
 * docs/API.md §Regional lookup, §Errors, §Envelopes; README.md "Regional data":
 * the idn-area-data 4.x areas in the prepared read-only database (never in the service's own), the lookup on both platforms in embedded and upstream
 * mode, `bun run regional:export`, and the province → city → district → village chain of outlets.
 *
 * Expected answers are computed from the package's CSV files, read here independently of the loader.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database as SqliteDatabase } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { exportRegionalTree } from '../scripts/regional-export'
import { createApp } from '../src/app'
import { openDatabase } from '../src/db/client'
import { ConfigError, loadConfig } from '../src/config/env'
import {
  csvBlocks,
  ensureRegionalDatabase,
  extractionDirectory,
  extractRegionalDatabase,
  extractRegionalDatabaseStreamed,
  openRegionalDatabase,
  preparedVersionOf,
  REGIONAL_FORMAT,
  regionalFileName,
  regionalFileVersion,
  sourceTreeRegionalPath,
  UPSTREAM_TIMEOUT_MS,
  copyOutOfContainer,
  embeddedRegionalDigest,
} from '../src/modules/regional'
import { createTestApp, expectError, SETUP_TIMEOUT_MS, unique, useTestApp, type Reply, type Session, type TestApp, type Workspace } from './harness'
import { migrationsUpTo } from './support/database'

// ---------------------------------------------------------------------------------------------
// The package's data, read straight from its CSV files

type Level = 'province' | 'city' | 'district' | 'village'
type ChildLevel = Exclude<Level, 'province'>

interface Area {
  id: number
  code: string
  name: string
  parent: number | null
  type?: 'kabupaten' | 'kota'
}

const ROOT = join(import.meta.dir, '..')
const PACKAGE_DIR = dirname(Bun.resolveSync('idn-area-data/package.json', ROOT))
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version
const COUNTS: Record<Level, number> = { province: 38, city: 514, district: 7_285, village: 83_762 }
const TABLE: Record<Level, string> = { province: 'regional_provinces', city: 'regional_cities', district: 'regional_districts', village: 'regional_villages' }
const PARENT_COLUMN: Record<ChildLevel, string> = { city: 'province_id', district: 'city_id', village: 'district_id' }

/** docs/API.md §Regional lookup: the id is the code without dots as an integer. */
const idOf = (code: string) => Number(code.replaceAll('.', ''))
const byCode = (a: { code: string }, b: { code: string }) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)

function readCsv(file: string, parentColumn: string | null): Area[] {
  const rows = parse(readFileSync(join(PACKAGE_DIR, 'data', file)), { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[]
  return rows.map((row) => ({ id: idOf(row.code), code: row.code, name: row.name, parent: parentColumn ? idOf(row[parentColumn]) : null }))
}

const truth: Record<Level, Area[]> = {
  province: readCsv('provinces.csv', null),
  city: readCsv('regencies.csv', 'province_code').map((city) => ({ ...city, type: city.name.startsWith('Kota ') ? 'kota' : 'kabupaten' }) as Area),
  district: readCsv('districts.csv', 'regency_code'),
  village: readCsv('villages.csv', 'district_code'),
}

const childrenOf = Object.fromEntries(
  (['city', 'district', 'village'] as ChildLevel[]).map((level) => {
    const groups = new Map<number, Area[]>()
    for (const area of truth[level]) groups.set(area.parent!, [...(groups.get(area.parent!) ?? []), area])
    for (const list of groups.values()) list.sort(byCode)
    return [level, groups]
  }),
) as Record<ChildLevel, Map<number, Area[]>>

/** A record as the API shows it: {id, code, name}, plus type on cities only. */
const shown = (level: Level, { id, code, name, type }: Area) => (level === 'city' ? { id, code, name, type } : { id, code, name })

/** The list answer the rules of docs/API.md §Regional lookup give: ordered by code, keyword on name, limit 50 by default, clamped at 1000. */
function expectedList(level: Level, parentId: number | null, options: { page?: number; limit?: number; keyword?: string } = {}) {
  const page = options.page ?? 1
  const limit = Math.min(options.limit ?? 50, 1000)
  const all = level === 'province' ? [...truth.province].sort(byCode) : (childrenOf[level].get(parentId!) ?? [])
  const keyword = options.keyword?.trim().toLowerCase()
  const matching = keyword ? all.filter((area) => area.name.toLowerCase().includes(keyword)) : all
  return {
    data: matching.slice((page - 1) * limit, page * limit).map((area) => shown(level, area)),
    meta: { page, limit, total: matching.length, total_pages: matching.length === 0 ? 0 : Math.ceil(matching.length / limit) },
  }
}

const firstChild = (level: ChildLevel, parentId: number) => childrenOf[level].get(parentId)![0].id
/** The parent with the most children at a level (e.g. the district with the most villages). */
const biggestParent = (level: ChildLevel) => [...childrenOf[level]].sort((a, b) => b[1].length - a[1].length)[0][0]

// ---------------------------------------------------------------------------------------------
// The lookup routes

interface Route {
  level: Level
  path: string
  param: string | null
  code: string
  message: string
  notFound: string | null
  sampleParent: number | null
}

const ROUTES: Route[] = [
  { level: 'province', path: 'provinces', param: null, code: 'PROVINCE_LIST', message: 'provinces retrieved', notFound: null, sampleParent: null },
  {
    level: 'city',
    path: 'cities',
    param: 'province_id',
    code: 'CITY_LIST',
    message: 'cities retrieved',
    notFound: 'REGIONAL_PROVINCE_NOT_FOUND',
    sampleParent: 11,
  },
  {
    level: 'district',
    path: 'districts',
    param: 'city_id',
    code: 'DISTRICT_LIST',
    message: 'districts retrieved',
    notFound: 'REGIONAL_CITY_NOT_FOUND',
    sampleParent: 1101,
  },
  {
    level: 'village',
    path: 'villages',
    param: 'district_id',
    code: 'VILLAGE_LIST',
    message: 'villages retrieved',
    notFound: 'REGIONAL_DISTRICT_NOT_FOUND',
    sampleParent: 110101,
  },
]
const CHILD_ROUTES = ROUTES.filter((route) => route.param !== null)
const routeOf = (level: Level) => ROUTES.find((route) => route.level === level)!
const PREFIXES = ['/office/v1/regional', '/app/v1/regional']

function url(prefix: string, route: Route, parentId: number | null, extra: Record<string, string | number | undefined> = {}) {
  const query = new URLSearchParams()
  if (route.param && parentId !== null) query.set(route.param, String(parentId))
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) query.set(key, String(value))
  const search = query.toString()
  return `${prefix}/${route.path}${search ? `?${search}` : ''}`
}

/** The full success envelope of a list (docs/API.md §Envelopes): nothing more, nothing less. */
const listBody = (route: Route, expected: ReturnType<typeof expectedList>) => ({ success: true, code: route.code, message: route.message, ...expected })

const SERVICE_ERROR = { success: false, code: 'REGIONAL_SERVICE_ERROR', message: 'regional service unavailable', errors: {}, data: [] }

function expectNotFound(reply: Reply, code: string) {
  expectError(reply, 404, code)
  expect(reply.body.data).toEqual([])
  expect(reply.body.errors).toEqual({})
}

// ---------------------------------------------------------------------------------------------
// Upstream helpers: a real HTTP server on loopback

/** A static file server for an exported tree: the file, or 404. */
function serveDirectory(dir: string) {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const file = Bun.file(join(dir, new URL(request.url).pathname))
      return (await file.exists()) ? new Response(file, { headers: { 'content-type': 'application/json' } }) : new Response('not found', { status: 404 })
    },
  })
}
const baseUrl = (server: { port?: number }) => `http://127.0.0.1:${server.port}`

/**
 * The tree `regional:export` writes, exported in-process once per file (about 7,800 files) and
 * shared by the upstream-mode tests and the export's own content test.
 */
let exported: { dir: string; summary: ReturnType<typeof exportRegionalTree> } | null = null
function exportedTree() {
  if (!exported) {
    const dir = mkdtempSync(join(tmpdir(), 'regional-tree-'))
    exported = { dir, summary: exportRegionalTree(dir) }
  }
  return exported
}
afterAll(() => {
  if (exported) rmSync(exported.dir, { recursive: true, force: true })
})
/** Writing the tree takes seconds, many more on a loaded machine. */
const EXPORT_TIMEOUT_MS = 60_000

const t = useTestApp()
let ws: Workspace

/** The prepared read-only database the app reads (README.md "Regional data"), through its own connection. */
const prepared = () => openRegionalDatabase(sourceTreeRegionalPath())
const regionalRows = (statement: string) => prepared().connection.query(statement).all() as Record<string, unknown>[]
const regionalCount = (table: string, where = '1 = 1') => Number(regionalRows(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)[0].n)
const owner = () => ws.owner.token

beforeAll(async () => {
  ws = await t.app.workspace()
})

// =============================================================================================

/** What src/server.ts does before it listens, on the database file `file`: open, migrate, build the app. */
async function startOn(file: string, driver: 'bun-sqlite' | 'libsql') {
  const dir = dirname(file)
  const config = loadConfig({
    DATABASE_URL: `file:${file}`,
    DATABASE_DRIVER: driver,
    LOG_LEVEL: 'silent',
    UPLOAD_DIR: join(dir, 'uploads'),
    EXPORT_DIR: join(dir, 'exports'),
  })
  const db = await openDatabase(config)
  await db.migrate()
  return { db, ...(await createApp({ db, config })) }
}

describe('regional data (docs/API.md §Regional lookup: idn-area-data 4.x)', () => {
  test('each level holds exactly the package counts: 38 provinces, 514 cities, 7,285 districts, 83,762 villages', () => {
    expect(PACKAGE_VERSION).toStartWith('4.')
    for (const level of Object.keys(COUNTS) as Level[]) {
      expect(truth[level].length).toBe(COUNTS[level])
      expect(regionalCount(TABLE[level])).toBe(COUNTS[level])
    }
  })

  test('every id is its code without dots as an integer (11, 1101, 110101, 1101012001)', () => {
    for (const level of Object.keys(TABLE) as Level[]) {
      expect(regionalCount(TABLE[level], `id <> CAST(REPLACE(code, '.', '') AS INTEGER)`)).toBe(0)
    }
    const [village] = regionalRows(`SELECT id, code, district_id FROM regional_villages WHERE code = '11.01.01.2001'`)
    expect(village).toEqual({ id: 1101012001, code: '11.01.01.2001', district_id: 110101 })
    const [district] = regionalRows(`SELECT id, code, city_id FROM regional_districts WHERE code = '11.01.01'`)
    expect(district).toEqual({ id: 110101, code: '11.01.01', city_id: 1101 })
  })

  test('every row has the package code, name and parent; names are as the package has them; name_key is the folded name', () => {
    for (const level of Object.keys(TABLE) as Level[]) {
      const parent = level === 'province' ? 'NULL' : PARENT_COLUMN[level]
      const rows = regionalRows(`SELECT id, code, name, ${parent} AS parent FROM ${TABLE[level]} ORDER BY code`)
      const expected = [...truth[level]].sort(byCode).map(({ id, code, name, parent }) => ({ id, code, name, parent }))
      expect(rows).toEqual(expected)
      const keys = regionalRows(`SELECT name, name_key FROM ${TABLE[level]}`)
      expect(keys.filter((row) => row.name_key !== String(row.name).normalize('NFKC').toLowerCase())).toEqual([])
    }
    const [village] = regionalRows(`SELECT id, code, district_id, name, name_key FROM regional_villages WHERE code = '35.13.15.2017'`)
    expect(village).toEqual({ id: 3513152017, code: '35.13.15.2017', district_id: 351315, name: 'Soka"an', name_key: 'soka"an' })
  })

  test('cities keep their Kabupaten/Kota prefix and type is kabupaten or kota from it', () => {
    const rows = regionalRows(`SELECT id, name, type FROM regional_cities WHERE id IN (1101, 1171) ORDER BY id`)
    expect(rows).toEqual([
      { id: 1101, name: 'Kabupaten Aceh Selatan', type: 'kabupaten' },
      { id: 1171, name: 'Kota Banda Aceh', type: 'kota' },
    ])
    expect(regionalCount('regional_cities', `name NOT LIKE 'Kabupaten %' AND name NOT LIKE 'Kota %'`)).toBe(0)
    expect(regionalCount('regional_cities', `type = 'kota' AND name NOT LIKE 'Kota %'`)).toBe(0)
    expect(regionalCount('regional_cities', `type = 'kabupaten' AND name NOT LIKE 'Kabupaten %'`)).toBe(0)
    expect(regionalCount('regional_cities', `type = 'kota'`)).toBe(truth.city.filter((city) => city.type === 'kota').length)
    expect(regionalCount('regional_cities', `type = 'kabupaten'`)).toBe(truth.city.filter((city) => city.type === 'kabupaten').length)
  })

  test('the CSV files are parsed in blocks that never cut a quoted field: the blocks give the rows a whole-file parse gives', () => {
    const text = ['code,name', '1,plain', '2,"with, comma"', '3,"with ""quotes"""', '4,"two', 'lines"', '5,"""', '"', '6,last', '', '', ''].join('\n')
    const whole = parse(text, { columns: true, skip_empty_lines: true, trim: true }) as Record<string, string>[]
    expect(whole).toHaveLength(6)
    for (const rows of [1, 2, 3, 6, 100]) {
      const blocks = [...csvBlocks(new TextEncoder().encode(`\uFEFF${text}`), rows)]
      expect(blocks.flat()).toEqual(whole)
      expect(blocks.every((block) => block.length > 0 && block.length <= rows)).toBe(true)
    }
    for (const file of ['villages.csv', 'districts.csv']) {
      const bytes = readFileSync(join(PACKAGE_DIR, 'data', file))
      expect([...csvBlocks(bytes, 500)].flat()).toEqual(
        parse(bytes, { columns: true, skip_empty_lines: true, bom: true, trim: true }) as Record<string, string>[],
      )
    }
  })
})

// =============================================================================================

/** Every table of a database file and its row count, read through a connection of its own (not the app's). */
function tablesOf(file: string): Record<string, number> {
  const raw = new SqliteDatabase(file, { readonly: true })
  try {
    const names = raw.query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'").all() as { name: string }[]
    return Object.fromEntries(names.map(({ name }) => [name, Number((raw.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n)]))
  } finally {
    raw.close()
  }
}

const sha256 = (file: string) => new Bun.CryptoHasher('sha256').update(readFileSync(file)).digest('hex')

describe('the prepared read-only regional database (README.md "Regional data")', () => {
  for (const driver of ['bun-sqlite', 'libsql'] as const) {
    test(
      `${driver}: a first start on an empty data directory writes no regional row into the service's database, and the regional routes and the outlet chain check answer from the prepared file`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'ffos-regional-first-'))
        const file = join(dir, 'app.db')
        try {
          const { db, app } = await startOn(file, driver)
          const call = async (method: string, path: string, token?: string, body?: unknown) => {
            const response = await app.handle(
              new Request(`http://localhost/api${path}`, {
                method,
                headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
                body: body === undefined ? undefined : JSON.stringify(body),
              }),
            )
            return { status: response.status, body: (await response.json()) as any }
          }
          const owner = await call('POST', '/auth/register', undefined, {
            name: 'Owner',
            email: `${unique('o')}@example.com`,
            password: 'password123',
            workspace_name: 'W',
          }).then((reply) => reply.body.data.token as string)
          const provinces = await call('GET', '/office/v1/regional/provinces?limit=100', owner)
          expect(provinces.status).toBe(200)
          expect(provinces.body.meta.total).toBe(38)
          const villages = await call('GET', '/app/v1/regional/villages?district_id=110101&limit=1000', owner)
          expect(villages.body.data).toEqual(expectedList('village', 110101, { limit: 1000 }).data)
          expect(
            (await call('POST', '/office/v1/outlets', owner, { name: 'Toko', province_id: 11, city_id: 1101, district_id: 110101, village_id: 1101012001 }))
              .status,
          ).toBe(201)
          const unknown = await call('POST', '/office/v1/outlets', owner, {
            name: 'Toko',
            province_id: 11,
            city_id: 1101,
            district_id: 110101,
            village_id: 1101019999,
          })
          expect(unknown.status).toBe(400)
          expect(unknown.body.code).toBe('VALIDATION_ERROR')
          expect(Object.keys(unknown.body.errors)).toEqual(['village_id'])
          await db.close()

          const tables = tablesOf(file)
          expect(Object.keys(tables).filter((name) => name.startsWith('regional_'))).toEqual([])
          // Not under another name either: the whole file holds a few hundred rows (the built-in roles, the audit entries).
          expect(Object.values(tables).reduce((sum, n) => sum + n, 0)).toBeLessThan(1_000)
          const raw = new SqliteDatabase(file, { readonly: true })
          try {
            expect(raw.query("SELECT count(*) AS n FROM app_settings WHERE key LIKE 'regional%'").get()).toEqual({ n: 0 })
          } finally {
            raw.close()
          }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
      SETUP_TIMEOUT_MS,
    )
  }

  test('the app opened the prepared file of this version read-only: a write through its connection fails and changes nothing', () => {
    expect(prepared().path).toBe(sourceTreeRegionalPath())
    expect(prepared().version).toBe(regionalFileVersion())
    expect(regionalFileVersion()).toBe(`${PACKAGE_VERSION}-f${REGIONAL_FORMAT}`)
    expect(() => prepared().connection.run(`INSERT INTO regional_provinces (id, code, name, name_key) VALUES (99, '99', 'Test', 'test')`)).toThrow(
      /readonly|read-only/i,
    )
    expect(() => prepared().connection.run('DELETE FROM regional_villages')).toThrow(/readonly|read-only/i)
    expect(() => prepared().connection.run('CREATE TABLE scratch (id INTEGER)')).toThrow(/readonly|read-only/i)
    expect(regionalCount('regional_provinces')).toBe(38)
    expect(regionalCount('regional_villages')).toBe(83_762)
  })

  test(
    'the build is deterministic (the same bytes twice) and a stale file of another version is replaced and removed',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'ffos-regional-build-'))
      try {
        const path = join(dir, regionalFileName())
        // A file under this version's name that is not this version's (an interrupted or foreign build), and an older version beside it.
        const stale = new SqliteDatabase(path, { create: true })
        stale.run('CREATE TABLE regional_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
        stale.run("INSERT INTO regional_meta VALUES ('version', '0.0.0-f0')")
        stale.close()
        writeFileSync(join(dir, regionalFileName('0.0.0-f0')), 'old')
        writeFileSync(join(dir, 'unrelated.db'), 'kept')
        expect(preparedVersionOf(path)).toBe('0.0.0-f0')
        expect(ensureRegionalDatabase(path)).toBe(path)
        expect(preparedVersionOf(path)).toBe(regionalFileVersion())
        expect(sha256(path)).toBe(sha256(sourceTreeRegionalPath()))
        expect(readdirSync(dir).sort()).toEqual([regionalFileName(), 'unrelated.db'].sort())
        const built = new SqliteDatabase(path, { readonly: true })
        const objects = built.query("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all()
        const meta = built.query('SELECT key, value FROM regional_meta ORDER BY key').all()
        const journal = built.query('PRAGMA journal_mode').get()
        built.close()
        // The tables, columns and indexes migration 0004 gave the service's database, and regional_meta.
        expect(objects).toEqual([
          { type: 'index', name: 'regional_cities_province_code' },
          { type: 'index', name: 'regional_districts_city_code' },
          { type: 'index', name: 'regional_villages_district_code' },
          { type: 'table', name: 'regional_cities' },
          { type: 'table', name: 'regional_districts' },
          { type: 'table', name: 'regional_meta' },
          { type: 'table', name: 'regional_provinces' },
          { type: 'table', name: 'regional_villages' },
        ])
        expect(meta).toEqual([
          { key: 'data_version', value: PACKAGE_VERSION },
          { key: 'version', value: regionalFileVersion() },
        ])
        expect(journal).toEqual({ journal_mode: 'delete' })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    SETUP_TIMEOUT_MS,
  )

  for (const [how, extract] of [
    ['read whole (the other commands)', async (source: string, dir: string, version: string) => extractRegionalDatabase(source, dir, version)],
    ['streamed (the server, before the app)', extractRegionalDatabaseStreamed],
  ] as const) {
    test(`the executable copies its embedded file out once per version, ${how}: the same version is kept, another version replaces it`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ffos-regional-extract-'))
      try {
        const data = join(dir, 'data')
        const first = join(dir, 'first.sqlite')
        const second = join(dir, 'second.sqlite')
        writeFileSync(first, 'the first version')
        writeFileSync(second, 'the second version, longer')
        mkdirSync(data)
        writeFileSync(join(data, 'app.db'), 'the service database')

        const copy = await extract(first, data, '1.0.0-f1')
        expect(copy).toBe(join(data, 'regional-1.0.0-f1.sqlite'))
        expect(readFileSync(copy, 'utf8')).toBe('the first version')
        const inode = statSync(copy).ino
        // A restart on the same version copies nothing.
        expect(await extract(first, data, '1.0.0-f1')).toBe(copy)
        expect(statSync(copy).ino).toBe(inode)

        // An upgrade: the new version's copy, the old one gone, the database untouched.
        const upgraded = await extract(second, data, '1.0.1-f1')
        expect(upgraded).toBe(join(data, 'regional-1.0.1-f1.sqlite'))
        expect(readFileSync(upgraded, 'utf8')).toBe('the second version, longer')
        expect(readdirSync(data).sort()).toEqual(['app.db', 'regional-1.0.1-f1.sqlite'])
        expect(readFileSync(join(data, 'app.db'), 'utf8')).toBe('the service database')

        // A copy cut short under the final name (not possible through the rename, but a disk may lie) is copied again.
        writeFileSync(upgraded, 'the second')
        await extract(second, data, '1.0.1-f1')
        expect(readFileSync(upgraded, 'utf8')).toBe('the second version, longer')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  }

  test('the server reads the embedded file out of the executable file (read(2), not its mapping): found by its head from the end, across a chunk boundary, kept only with the digest the build wrote in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-regional-container-'))
    try {
      // A file of 600 KiB (three of the 256 KiB chunks read at a time) whose first 100 bytes are its head.
      const content = new Uint8Array(600 * 1024).map((_, i) => (i * 31 + (i >> 9)) & 0xff)
      content.set(new TextEncoder().encode('SQLite format 3\0'), 0)
      const head = content.subarray(0, 100)
      const digest = new Bun.CryptoHasher('sha256').update(content).digest('hex')
      // The container: a decoy with the same head but other bytes after the real file (the search goes from the end),
      // the real one at an odd offset whose head lies across two chunks.
      const before = new Uint8Array(256 * 1024 * 2 - 37).fill(7)
      const decoy = new Uint8Array(content.length).fill(1)
      decoy.set(head, 0)
      // Chunks end at the container's end minus multiples of 256 KiB: with this tail, five chunks from the end
      // lands 50 bytes into the real file's head.
      const after = new Uint8Array(5 * 256 * 1024 + 50 - 2 * content.length).fill(9)
      expect(after.length + 2 * content.length - 5 * 256 * 1024).toBe(50)
      const container = join(dir, 'ffos')
      writeFileSync(container, Buffer.concat([before, content, decoy, after]))

      const target = join(dir, 'copy.sqlite')
      expect(copyOutOfContainer(container, head, content.length, digest, target)).toBe(true)
      expect(readFileSync(target).equals(Buffer.from(content))).toBe(true)

      // Another digest (another build's file): nothing is kept, and the caller copies through the mapping.
      const other = join(dir, 'other.sqlite')
      expect(copyOutOfContainer(container, head, content.length, 'f'.repeat(64), other)).toBe(false)
      expect(readdirSync(dir).sort()).toEqual(['copy.sqlite', 'ffos'])

      // extractRegionalDatabaseStreamed given the container: the same bytes as the source file, whichever way.
      const source = join(dir, 'source.sqlite')
      writeFileSync(source, content)
      const data = join(dir, 'data')
      mkdirSync(data)
      const copy = await extractRegionalDatabaseStreamed(source, data, '1.0.0-f1', undefined, { container, digest })
      expect(readFileSync(copy).equals(Buffer.from(content))).toBe(true)
      const fallback = join(dir, 'fallback')
      mkdirSync(fallback)
      const copied = await extractRegionalDatabaseStreamed(source, fallback, '1.0.0-f1', undefined, { container, digest: '0'.repeat(64) })
      expect(readFileSync(copied).equals(Buffer.from(content))).toBe(true)
      // An executable that cannot be read (missing here; execute-only in a locked-down image): the mapping, no error.
      const unreadable = join(dir, 'unreadable')
      mkdirSync(unreadable)
      const mapped = await extractRegionalDatabaseStreamed(source, unreadable, '1.0.0-f1', undefined, { container: join(dir, 'missing'), digest })
      expect(readFileSync(mapped).equals(Buffer.from(content))).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('the build writes the digest into the executable only: from the sources there is none (the server copies nothing then)', () => {
    expect(embeddedRegionalDigest()).toBeNull()
  })

  test("the copy goes into the database file's directory (the data volume), or a temporary directory for a remote database", () => {
    expect(extractionDirectory(loadConfig({ DATABASE_URL: 'file:/app/data/app.db' }))).toBe('/app/data')
    expect(extractionDirectory(loadConfig({ DATABASE_URL: 'libsql://example.turso.io', DATABASE_AUTH_TOKEN: 'x' }))).toBe(join(tmpdir(), 'ffos-regional'))
  })
})

describe('migration 0026: a database of an older release, with the regional rows its first start loaded', () => {
  /** A database file migrated up to (not including) 0026, holding regional rows, their version and an outlet on a village. */
  function olderDatabase(dir: string): string {
    const before = migrationsUpTo(dir, '_regional_prepared').folder
    const file = join(dir, 'app.db')
    const raw = new SqliteDatabase(file)
    migrate(drizzle(raw), { migrationsFolder: before })
    const now = '2026-11-25T08:00:00.000Z'
    raw.run(`INSERT INTO regional_provinces (id, code, name, name_key) VALUES (11, '11', 'Aceh', 'aceh')`)
    raw.run(
      `INSERT INTO regional_cities (id, code, province_id, name, name_key, type) VALUES (1101, '11.01', 11, 'Kabupaten Aceh Selatan', 'kabupaten aceh selatan', 'kabupaten')`,
    )
    raw.run(`INSERT INTO regional_districts (id, code, city_id, name, name_key) VALUES (110101, '11.01.01', 1101, 'Bakongan', 'bakongan')`)
    raw.run(
      `INSERT INTO regional_villages (id, code, district_id, name, name_key) VALUES (1101012001, '11.01.01.2001', 110101, 'Keude Bakongan', 'keude bakongan')`,
    )
    raw.run(`INSERT INTO app_settings (key, value) VALUES ('regional_data_version', '4.0.1'), ('kept_setting', 'kept')`)
    raw.run(`INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (1, 'W', '${now}', '${now}')`)
    raw.run(
      `INSERT INTO outlets (id, workspace_id, name, name_key, province_id, city_id, district_id, village_id, created_at, updated_at) VALUES (1, 1, 'Toko', 'toko', 11, 1101, 110101, 1101012001, '${now}', '${now}')`,
    )
    raw.close()
    return file
  }

  for (const driver of ['bun-sqlite', 'libsql'] as const) {
    test(
      `${driver}: the copied tables and their version are dropped; every other row stays; the routes answer from the prepared file`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'ffos-regional-upgrade-'))
        try {
          const file = olderDatabase(dir)
          expect(tablesOf(file).regional_villages).toBe(1)
          const { db, deps } = await startOn(file, driver)
          const listed = await deps.regional.list('village', 110101, { page: 1, limit: 1000, offset: 0 }, null)
          expect(listed.rows.length).toBe(childrenOf.village.get(110101)!.length)
          expect(await deps.regional.exists('village', 1101012001)).toBe(true)
          await db.close()

          const tables = tablesOf(file)
          expect(Object.keys(tables).filter((name) => name.startsWith('regional_'))).toEqual([])
          const raw = new SqliteDatabase(file, { readonly: true })
          try {
            expect(raw.query("SELECT key, value FROM app_settings WHERE key IN ('regional_data_version', 'kept_setting')").all()).toEqual([
              { key: 'kept_setting', value: 'kept' },
            ])
            expect(raw.query('SELECT id, village_id FROM outlets').all()).toEqual([{ id: 1, village_id: 1101012001 }])
            expect(raw.query("SELECT name FROM sqlite_master WHERE sql LIKE '%regional_%'").all()).toEqual([])
            expect(raw.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
          } finally {
            raw.close()
          }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
      SETUP_TIMEOUT_MS,
    )
  }
})

// =============================================================================================

describe('regional lookup, embedded mode (docs/API.md §Regional lookup)', () => {
  test('every level on both platforms answers 200, its LIST code, "<plural> retrieved" and {id, code, name} records ordered by code, 50 per page by default', async () => {
    for (const prefix of PREFIXES) {
      for (const route of ROUTES) {
        const reply = await t.app.get(url(prefix, route, route.sampleParent), { token: owner() })
        expect(reply.status).toBe(200)
        expect(reply.body).toEqual(listBody(route, expectedList(route.level, route.sampleParent)))
        const codes = reply.body.data.map((area: Area) => area.code)
        expect(codes).toEqual([...codes].sort())
        expect(codes.length).toBeGreaterThan(0)
      }
    }
  })

  test('only cities carry type (kabupaten or kota); provinces, districts and villages are {id, code, name}', async () => {
    for (const prefix of PREFIXES) {
      for (const route of ROUTES) {
        const reply = await t.app.get(url(prefix, route, route.sampleParent), { token: owner() })
        expect(reply.status).toBe(200)
        expect(reply.body.code).toBe(route.code)
        for (const area of reply.body.data) {
          expect(Object.keys(area).sort()).toEqual(route.level === 'city' ? ['code', 'id', 'name', 'type'] : ['code', 'id', 'name'])
        }
      }
    }
    const cities = await t.app.get('/office/v1/regional/cities?province_id=11&limit=1000', { token: owner() })
    expect(cities.body.data.find((city: Area) => city.id === 1101)).toEqual({ id: 1101, code: '11.01', name: 'Kabupaten Aceh Selatan', type: 'kabupaten' })
    expect(cities.body.data.find((city: Area) => city.id === 1171)).toEqual({ id: 1171, code: '11.71', name: 'Kota Banda Aceh', type: 'kota' })
  })

  test('lists longer than the default limit of 50 are paged with meta {page, limit, total, total_pages}', async () => {
    for (const prefix of PREFIXES) {
      for (const route of CHILD_ROUTES) {
        const parent = biggestParent(route.level as ChildLevel)
        const size = childrenOf[route.level as ChildLevel].get(parent)!.length
        const pages = Math.ceil(size / 50)
        for (let page = 1; page <= pages + 1; page++) {
          const reply = await t.app.get(url(prefix, route, parent, page === 1 ? {} : { page }), { token: owner() })
          expect(reply.status).toBe(200)
          expect(reply.body).toEqual(listBody(route, expectedList(route.level, parent, { page })))
          expect(reply.body.meta).toEqual({ page, limit: 50, total: size, total_pages: pages })
        }
      }
    }
    const provinces = await t.app.get('/office/v1/regional/provinces?limit=10&page=4', { token: owner() })
    expect(provinces.status).toBe(200)
    expect(provinces.body).toEqual(listBody(routeOf('province'), expectedList('province', null, { limit: 10, page: 4 })))
    expect(provinces.body.meta).toEqual({ page: 4, limit: 10, total: 38, total_pages: 4 })
    expect(provinces.body.data).toHaveLength(8)
  })

  test('limit above 1000 is clamped to 1000', async () => {
    for (const prefix of PREFIXES) {
      for (const route of ROUTES) {
        const parent = route.param ? biggestParent(route.level as ChildLevel) : null
        const reply = await t.app.get(url(prefix, route, parent, { limit: 100_000 }), { token: owner() })
        expect(reply.status).toBe(200)
        expect(reply.body).toEqual(listBody(route, expectedList(route.level, parent, { limit: 1000 })))
        expect(reply.body.meta.limit).toBe(1000)
        expect(reply.body.meta.total_pages).toBe(1)
      }
    }
    const exact = await t.app.get('/app/v1/regional/provinces?limit=1000', { token: owner() })
    expect(exact.body.meta).toEqual({ page: 1, limit: 1000, total: 38, total_pages: 1 })
    expect(exact.body.data).toHaveLength(38)
  })

  test('keyword is a case-insensitive partial match on name', async () => {
    const cases: { level: Level; parent: number | null; keyword: string; expectedTotal?: number }[] = [
      { level: 'province', parent: null, keyword: 'SUMATERA', expectedTotal: 3 },
      { level: 'province', parent: null, keyword: 'sUmAtErA', expectedTotal: 3 },
      { level: 'province', parent: null, keyword: 'umater', expectedTotal: 3 },
      { level: 'city', parent: 11, keyword: 'KOTA', expectedTotal: 5 },
      { level: 'city', parent: 11, keyword: 'aceh' },
      { level: 'district', parent: 1101, keyword: 'KLUET' },
      { level: 'district', parent: 1101, keyword: 'uet' },
      { level: 'village', parent: 110101, keyword: 'KEUDE' },
      { level: 'village', parent: biggestParent('village'), keyword: 'A' },
      { level: 'village', parent: 110101, keyword: 'no such village name' },
    ]
    for (const prefix of PREFIXES) {
      for (const { level, parent, keyword, expectedTotal } of cases) {
        const route = routeOf(level)
        const reply = await t.app.get(url(prefix, route, parent, { keyword }), { token: owner() })
        const expected = expectedList(level, parent, { keyword })
        expect(reply.status).toBe(200)
        expect(reply.body).toEqual(listBody(route, expected))
        if (expectedTotal !== undefined) expect(reply.body.meta.total).toBe(expectedTotal)
        for (const area of reply.body.data) expect(area.name.toLowerCase()).toContain(keyword.toLowerCase())
      }
    }
    const none = await t.app.get('/office/v1/regional/villages?district_id=110101&keyword=no%20such%20village%20name', { token: owner() })
    expect(none.body.data).toEqual([])
    expect(none.body.meta).toEqual({ page: 1, limit: 50, total: 0, total_pages: 0 })
    const sumatera = await t.app.get('/office/v1/regional/provinces?keyword=sumatera', { token: owner() })
    expect(sumatera.body.data.map((area: Area) => area.name)).toEqual(['Sumatera Utara', 'Sumatera Barat', 'Sumatera Selatan'])
  })

  test('a missing parent param (province_id, city_id, district_id) is 400 VALIDATION_ERROR naming it', async () => {
    for (const prefix of PREFIXES) {
      for (const route of CHILD_ROUTES) {
        for (const extra of [{}, { keyword: 'a', page: 1, limit: 10 }]) {
          const reply = await t.app.get(url(prefix, route, null, extra), { token: owner() })
          const errors = expectError(reply, 400, 'VALIDATION_ERROR')
          expect(reply.body.message).toBe('Validation failed')
          expect(Object.keys(errors)).toEqual([route.param!])
          expect(errors[route.param!]).toBeArray()
          expect(reply.body.data).toBeUndefined()
        }
      }
    }
  })

  test('village lists are never returned without district_id', async () => {
    for (const prefix of PREFIXES) {
      for (const query of ['', '?keyword=a', '?limit=1000', '?page=1', '?district_id=', '?city_id=1101', '?province_id=11']) {
        const reply = await t.app.get(`${prefix}/villages${query}`, { token: owner() })
        const errors = expectError(reply, 400, 'VALIDATION_ERROR')
        expect(errors.district_id).toBeArray()
        expect(reply.body.data).toBeUndefined()
        expect(reply.body.meta).toBeUndefined()
      }
    }
  })

  test('an unknown parent is 404 with data [] and REGIONAL_PROVINCE_NOT_FOUND / REGIONAL_CITY_NOT_FOUND / REGIONAL_DISTRICT_NOT_FOUND', async () => {
    const unknown: Record<ChildLevel, number[]> = {
      city: [99, 10, 1101], // no such province; a city id is not a province
      district: [9999, 1199, 11, 110101], // no such city; a province or district id is not a city
      village: [999999, 110199, 1101, 1101012001], // no such district; a city or village id is not a district
    }
    for (const prefix of PREFIXES) {
      for (const route of CHILD_ROUTES) {
        for (const parent of unknown[route.level as ChildLevel]) {
          expectNotFound(await t.app.get(url(prefix, route, parent), { token: owner() }), route.notFound!)
          expectNotFound(await t.app.get(url(prefix, route, parent, { keyword: 'a', page: 2 }), { token: owner() }), route.notFound!)
        }
      }
    }
  })
})

describe('regional lookup needs authentication only (docs/API.md §Regional lookup)', () => {
  test('without a token, or with a bad one, every regional route is 401 UNAUTHORIZED', async () => {
    for (const prefix of PREFIXES) {
      for (const route of ROUTES) {
        for (const token of [undefined, 'not-a-jwt']) {
          const reply = await t.app.get(url(prefix, route, route.sampleParent), { token })
          expectError(reply, 401, 'UNAUTHORIZED')
          expect(reply.body.data).toBeUndefined()
        }
      }
    }
  })

  test('any signed-in user gets 200 on both platforms: super_admin, admin, manager, field user and a custom role without permissions', async () => {
    const users: Record<string, Session> = {
      super_admin: ws.owner,
      admin: await t.app.member(ws, 'admin'),
      manager: await t.app.member(ws, 'manager'),
      user: await t.app.member(ws, 'user'),
      no_permissions: await t.app.memberWithGrants(ws, []),
      web_only_grant: await t.app.memberWithGrants(ws, [{ key: 'channel_group.view', platform: 'web', access: 'view' }]),
    }
    for (const [who, session] of Object.entries(users)) {
      for (const prefix of PREFIXES) {
        for (const route of ROUTES) {
          const reply = await t.app.get(url(prefix, route, route.sampleParent, { limit: 3 }), { token: session.token })
          if (reply.status !== 200) throw new Error(`${who} on ${prefix}/${route.path}: ${reply.status} ${reply.text}`)
          expect(reply.body).toEqual(listBody(route, expectedList(route.level, route.sampleParent, { limit: 3 })))
        }
      }
    }
  })
})

// =============================================================================================

describe('regional lookup, upstream mode (docs/API.md §Regional lookup: REGIONAL_SERVICE_URL)', () => {
  let treeDir: string
  let files: ReturnType<typeof serveDirectory>
  let upstream: TestApp
  let upstreamToken: string

  beforeAll(async () => {
    treeDir = exportedTree().dir
    files = serveDirectory(treeDir)
    upstream = await createTestApp({ env: { REGIONAL_SERVICE_URL: baseUrl(files) } })
    upstreamToken = (await upstream.workspace()).owner.token
  }, EXPORT_TIMEOUT_MS)
  afterAll(async () => {
    await files?.stop(true)
    await upstream?.close()
  })

  /** Several parents per level (first, middle, last, biggest) with and without keyword, over several pages. */
  function samplePaths() {
    const paths: string[] = []
    const province = routeOf('province')
    for (const extra of [
      {},
      { limit: 10, page: 2 },
      { limit: 10, page: 4 },
      { limit: 10, page: 5 },
      { keyword: 'SUMATERA' },
      { keyword: 'jawa', limit: 2, page: 2 },
      { limit: 5000 },
      { page: 99 },
    ]) {
      paths.push(url(PREFIXES[paths.length % 2], province, null, extra))
    }
    for (const route of CHILD_ROUTES) {
      const groups = childrenOf[route.level as ChildLevel]
      const parents = [...groups.keys()].sort((a, b) => a - b)
      for (const parent of new Set([
        parents[0],
        parents[Math.floor(parents.length / 2)],
        parents[parents.length - 1],
        biggestParent(route.level as ChildLevel),
      ])) {
        const keyword = groups.get(parent)![0].name.slice(1, 4).toUpperCase()
        for (const extra of [
          {},
          { page: 2 },
          { page: 3 },
          { limit: 7, page: 2 },
          { keyword },
          { keyword: keyword.toLowerCase(), limit: 2, page: 2 },
          { limit: 1001 },
        ]) {
          paths.push(url(PREFIXES[paths.length % 2], route, parent, extra))
        }
      }
    }
    return paths
  }

  test('for every level, with and without keyword, over several pages and parents, data and meta equal the embedded answers', async () => {
    const paths = samplePaths()
    expect(paths.length).toBeGreaterThan(80)
    let nonEmpty = 0
    for (const path of paths) {
      const embedded = await t.app.get(path, { token: owner() })
      const proxied = await upstream.get(path, { token: upstreamToken })
      expect(embedded.status).toBe(200)
      if (proxied.status !== 200) throw new Error(`${path}: ${proxied.status} ${proxied.text}`)
      expect({ path, code: proxied.body.code, message: proxied.body.message, data: proxied.body.data, meta: proxied.body.meta }).toEqual({
        path,
        code: embedded.body.code,
        message: embedded.body.message,
        data: embedded.body.data,
        meta: embedded.body.meta,
      })
      expect(proxied.body).toEqual(embedded.body)
      if (embedded.body.data.length > 0) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(paths.length / 2)
  })

  test('unknown parents give the same 404s with data [] as the embedded mode', async () => {
    const unknown: Record<ChildLevel, number[]> = { city: [99, 1101], district: [9999, 11], village: [999999, 1101] }
    for (const prefix of PREFIXES) {
      for (const route of CHILD_ROUTES) {
        for (const parent of unknown[route.level as ChildLevel]) {
          const path = url(prefix, route, parent)
          const proxied = await upstream.get(path, { token: upstreamToken })
          expectNotFound(proxied, route.notFound!)
          expect(proxied.body).toEqual((await t.app.get(path, { token: owner() })).body)
        }
      }
    }
  })

  test('a missing parent param is 400 VALIDATION_ERROR naming it, and no token is 401, in upstream mode too', async () => {
    for (const route of CHILD_ROUTES) {
      const errors = expectError(await upstream.get(url('/app/v1/regional', route, null), { token: upstreamToken }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual([route.param!])
    }
    expectError(await upstream.get('/office/v1/regional/provinces'), 401, 'UNAUTHORIZED')
  })

  test('outlets are checked against the upstream service: a consistent chain is 201, a city outside the province is 400', async () => {
    const ok = await upstream.post(
      '/office/v1/outlets',
      { name: unique('Outlet'), province_id: 11, city_id: 1101, district_id: 110101, village_id: 1101012001 },
      { token: upstreamToken },
    )
    expect(ok.status).toBe(201)
    expect(ok.body.code).toBe('OUTLET_CREATED')
    expect(ok.body.data).toMatchObject({ province_id: 11, city_id: 1101, district_id: 110101, village_id: 1101012001 })
    const bad = await upstream.post('/office/v1/outlets', { name: unique('Outlet'), province_id: 12, city_id: 1101 }, { token: upstreamToken })
    expect(Object.keys(expectError(bad, 400, 'VALIDATION_ERROR'))).toEqual(['city_id'])
    const unknownVillage = await upstream.post(
      '/office/v1/outlets',
      { name: unique('Outlet'), province_id: 11, city_id: 1101, district_id: 110101, village_id: 1101019999 },
      { token: upstreamToken },
    )
    expect(Object.keys(expectError(unknownVillage, 400, 'VALIDATION_ERROR'))).toEqual(['village_id'])
  })

  test('lists are ordered by code whatever order the upstream sends them in', async () => {
    const reversed = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        const file = Bun.file(join(treeDir, new URL(request.url).pathname))
        if (!(await file.exists())) return new Response('not found', { status: 404 })
        return Response.json(((await file.json()) as unknown[]).reverse())
      },
    })
    const app = await createTestApp({ env: { REGIONAL_SERVICE_URL: baseUrl(reversed) } })
    try {
      const token = (await app.workspace()).owner.token
      for (const path of [
        '/office/v1/regional/provinces?limit=10&page=2',
        '/app/v1/regional/cities?province_id=11&keyword=kota',
        '/office/v1/regional/districts?city_id=1101',
        `/app/v1/regional/villages?district_id=${biggestParent('village')}&page=2`,
      ]) {
        const reply = await app.get(path, { token })
        expect(reply.status).toBe(200)
        expect(reply.body).toEqual((await t.app.get(path, { token: owner() })).body)
      }
    } finally {
      await reversed.stop(true)
      await app.close()
    }
  })

  test('answers are cached: after the first request, the same list is served with the file server stopped', async () => {
    const server = serveDirectory(treeDir)
    const app = await createTestApp({ env: { REGIONAL_SERVICE_URL: baseUrl(server) } })
    try {
      const token = (await app.workspace()).owner.token
      const path = '/office/v1/regional/cities?province_id=32'
      const first = await app.get(path, { token })
      expect(first.status).toBe(200)
      expect(first.body).toEqual(listBody(routeOf('city'), expectedList('city', 32)))
      await server.stop(true)

      // The server is really gone: a list not fetched before is now a 503.
      const uncached = await app.get('/office/v1/regional/cities?province_id=33', { token })
      expect(uncached.status).toBe(503)
      expect(uncached.body).toEqual(SERVICE_ERROR)

      const again = await app.get(path, { token })
      expect(again.status).toBe(200)
      expect(again.body).toEqual(first.body)
      // Another page, keyword or platform of the same upstream file comes from the cache too.
      const filtered = await app.get('/app/v1/regional/cities?province_id=32&keyword=KOTA&limit=3&page=2', { token })
      expect(filtered.status).toBe(200)
      expect(filtered.body).toEqual(listBody(routeOf('city'), expectedList('city', 32, { keyword: 'kota', limit: 3, page: 2 })))
    } finally {
      await server.stop(true)
      await app.close()
    }
  })
})

describe('regional service unavailable → 503 REGIONAL_SERVICE_ERROR, "regional service unavailable", data []', () => {
  const SHORT_TIMEOUT_MS = 300
  let closed: TestApp
  let closedToken: string
  let broken: ReturnType<typeof Bun.serve>
  let brokenApp: TestApp
  let brokenToken: string
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })

  beforeAll(async () => {
    closed = await createTestApp({ env: { REGIONAL_SERVICE_URL: 'http://127.0.0.1:9' } })
    closedToken = (await closed.workspace()).owner.token
    // One misbehaving upstream; each file fails in its own way.
    broken = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        const path = new URL(request.url).pathname
        if (path === '/provinces.json')
          return new Response(JSON.stringify({ message: 'boom' }), { status: 500, headers: { 'content-type': 'application/json' } })
        if (path === '/regencies/12.json') return new Response('internal error', { status: 500 })
        if (path === '/regencies/11.json') return new Response('[{"id": 1101, "code": "11.01", "na', { headers: { 'content-type': 'application/json' } })
        if (path === '/districts/1101.json') return new Response('<html>not json</html>', { headers: { 'content-type': 'text/html' } })
        if (path === '/districts/1102.json') return new Response(JSON.stringify({ data: [] }), { headers: { 'content-type': 'application/json' } })
        if (path === '/villages/110101.json') {
          await gate // never answers while the test waits
          return new Response('[]')
        }
        return new Response('not found', { status: 404 })
      },
    })
    // A short configured timeout instead of the default 3 s (the default itself is checked below).
    brokenApp = await createTestApp({ env: { REGIONAL_SERVICE_URL: baseUrl(broken), REGIONAL_TIMEOUT_MS: String(SHORT_TIMEOUT_MS) } })
    brokenToken = (await brokenApp.workspace()).owner.token
  }, SETUP_TIMEOUT_MS)
  afterAll(async () => {
    release()
    await broken?.stop(true)
    await closed?.close()
    await brokenApp?.close()
  })

  test('a closed port (http://127.0.0.1:9) is 503 on every level and both platforms', async () => {
    for (const prefix of PREFIXES) {
      for (const route of ROUTES) {
        const reply = await closed.get(url(prefix, route, route.sampleParent), { token: closedToken })
        expect(reply.status).toBe(503)
        expect(reply.body).toEqual(SERVICE_ERROR)
      }
    }
  })

  test('an upstream answering 500 is 503, also for a child list (not a 404 unknown parent)', async () => {
    for (const path of ['/office/v1/regional/provinces', '/app/v1/regional/cities?province_id=12']) {
      const reply = await brokenApp.get(path, { token: brokenToken })
      expect(reply.status).toBe(503)
      expect(reply.body).toEqual(SERVICE_ERROR)
    }
  })

  test('an upstream answering invalid JSON (truncated, HTML) or JSON that is not a list is 503', async () => {
    for (const path of ['/office/v1/regional/cities?province_id=11', '/app/v1/regional/districts?city_id=1101', '/office/v1/regional/districts?city_id=1102']) {
      const reply = await brokenApp.get(path, { token: brokenToken })
      expect(reply.status).toBe(503)
      expect(reply.body).toEqual(SERVICE_ERROR)
    }
  })

  test('an outlet cannot be checked while the upstream is unavailable: 503, nothing stored', async () => {
    const before = await closed.count('outlets')
    const reply = await closed.post('/office/v1/outlets', { name: unique('Outlet'), province_id: 11 }, { token: closedToken })
    expect(reply.status).toBe(503)
    expect(reply.body).toEqual(SERVICE_ERROR)
    expect(await closed.count('outlets')).toBe(before)
  })

  test('an upstream that does not answer within the timeout is 503 once the timeout has passed, not before', async () => {
    const started = performance.now()
    const reply = await brokenApp.get('/office/v1/regional/villages?district_id=110101', { token: brokenToken })
    const elapsed = performance.now() - started
    expect(reply.status).toBe(503)
    expect(reply.body).toEqual(SERVICE_ERROR)
    // Timers may fire a hair early; the answer must not come from anything but the timeout.
    expect(elapsed).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS * 0.9)
    // No upper bound: an upstream that never answers would fail this test by its own timeout.
  })

  test('the timeout is 3 s unless REGIONAL_TIMEOUT_MS says otherwise', () => {
    expect(UPSTREAM_TIMEOUT_MS).toBe(3_000)
    expect(loadConfig({}).REGIONAL_TIMEOUT_MS).toBe(3_000)
    expect(loadConfig({ REGIONAL_TIMEOUT_MS: '250' }).REGIONAL_TIMEOUT_MS).toBe(250)
    expect(() => loadConfig({ REGIONAL_TIMEOUT_MS: '0' })).toThrow(ConfigError)
  })
})

// =============================================================================================

describe('bun run regional:export DIR (docs/API.md §Regional lookup)', () => {
  test(
    'exportRegionalTree writes provinces.json plus one file per province, city and district holding exactly its children',
    () => {
      // In-process: the same function the command runs, without a second process loading the data.
      const { dir, summary } = exportedTree()
      expect(summary).toMatchObject({ provinces: 38, cities: 514, districts: 7_285, villages: 83_762 })

      const provinces = JSON.parse(readFileSync(join(dir, 'provinces.json'), 'utf8'))
      expect(provinces).toEqual(expectedList('province', null, { limit: 1000 }).data)
      expect(provinces).toHaveLength(38)

      const folders: [string, ChildLevel, number][] = [
        ['regencies', 'city', 514],
        ['districts', 'district', 7_285],
        ['villages', 'village', 83_762],
      ]
      for (const [folder, level, total] of folders) {
        const names = readdirSync(join(dir, folder))
        // One file per parent, named by the parent's id.
        expect(names.sort()).toEqual([...childrenOf[level].keys()].map((id) => `${id}.json`).sort())
        const written: Record<string, unknown[]> = {}
        let sum = 0
        for (const name of names) {
          const records = JSON.parse(readFileSync(join(dir, folder, name), 'utf8')) as Area[]
          written[name] = [...records].sort(byCode)
          sum += records.length
        }
        expect(sum).toBe(total)
        const expected = Object.fromEntries([...childrenOf[level]].map(([parent, areas]) => [`${parent}.json`, areas.map((area) => shown(level, area))]))
        expect(written).toEqual(expected)
      }
      expect(readdirSync(dir).sort()).toEqual(['districts', 'provinces.json', 'regencies', 'villages'])
    },
    EXPORT_TIMEOUT_MS,
  )

  test(
    'the command is scripts/regional-export.ts: run as a process without DIR it prints its usage and exits 1',
    async () => {
      const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts
      expect(scripts['regional:export']).toBe('bun scripts/regional-export.ts')
      const child = Bun.spawn([process.execPath, join(ROOT, 'scripts/regional-export.ts')], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
      const [exitCode, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
      expect(exitCode).toBe(1)
      expect(stderr).toMatch(/usage:[\s\S]*regional-export DIR/)
      expect(stdout).toBe('')
    },
    EXPORT_TIMEOUT_MS,
  ) // starting a Bun process is slow on a loaded machine
})

// =============================================================================================

describe('outlets accept only one consistent province → city → district → village chain', () => {
  const outlets = '/office/v1/outlets'
  const CHAIN = { province_id: 11, city_id: 1101, district_id: 110101, village_id: 1101012001 }
  const create = (regions: Record<string, number | null | undefined>) => t.app.post(outlets, { name: unique('Outlet'), ...regions }, { token: owner() })
  const stored = async (id: number) => {
    const reply = await t.app.get(`${outlets}/${id}`, { token: owner() })
    const { province_id, city_id, district_id, village_id } = reply.body.data
    return { province_id, city_id, district_id, village_id }
  }

  test('a complete consistent chain (11 / 1101 / 110101 / 1101012001) is 201 and stored', async () => {
    const reply = await create(CHAIN)
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('OUTLET_CREATED')
    expect(reply.body.data).toMatchObject(CHAIN)
    expect(await stored(reply.body.data.id)).toEqual(CHAIN)
  })

  test('partial chains are accepted: only a province, or a province and a city, or none', async () => {
    for (const regions of [
      { province_id: 11 },
      { province_id: 11, city_id: 1171 },
      { province_id: 32, city_id: 3273, district_id: firstChild('district', 3273) },
      {},
    ]) {
      const reply = await create(regions)
      expect(reply.status).toBe(201)
      expect(reply.body.code).toBe('OUTLET_CREATED')
      expect(await stored(reply.body.data.id)).toEqual({ province_id: null, city_id: null, district_id: null, village_id: null, ...regions })
    }
  })

  const otherDistrictsVillage = () => firstChild('village', 110102)
  const REJECTED: { rule: string; field: string; regions: () => Record<string, number> }[] = [
    { rule: 'a city not in the province', field: 'city_id', regions: () => ({ province_id: 12, city_id: 1101 }) },
    {
      rule: 'a district not in the city',
      field: 'district_id',
      regions: () => ({ province_id: 11, city_id: 1101, district_id: firstChild('district', 1102) }),
    },
    { rule: 'a village not in the district', field: 'village_id', regions: () => ({ ...CHAIN, village_id: otherDistrictsVillage() }) },
    { rule: 'an unknown province', field: 'province_id', regions: () => ({ province_id: 99 }) },
    { rule: 'an unknown city', field: 'city_id', regions: () => ({ province_id: 11, city_id: 1199 }) },
    { rule: 'an unknown district', field: 'district_id', regions: () => ({ province_id: 11, city_id: 1101, district_id: 110199 }) },
    { rule: 'an unknown village', field: 'village_id', regions: () => ({ ...CHAIN, village_id: 1101019999 }) },
    { rule: 'a province id of the wrong length (a city id)', field: 'province_id', regions: () => ({ province_id: 1101 }) },
    { rule: 'a city id of the wrong length (a province id)', field: 'city_id', regions: () => ({ province_id: 11, city_id: 11 }) },
    { rule: 'a district id of the wrong length (5 digits)', field: 'district_id', regions: () => ({ province_id: 11, city_id: 1101, district_id: 11010 }) },
    { rule: 'a village id of the wrong length (a district id)', field: 'village_id', regions: () => ({ ...CHAIN, village_id: 110101 }) },
    { rule: 'a village alone that does not exist', field: 'village_id', regions: () => ({ village_id: 1101019999 }) },
  ]
  for (const { rule, field, regions } of REJECTED) {
    test(`${rule} is 400 VALIDATION_ERROR naming ${field}; nothing is stored`, async () => {
      const before = await t.app.count('outlets')
      const reply = await create(regions())
      const errors = expectError(reply, 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual([field])
      expect(errors[field]).toBeArray()
      expect(reply.body.data).toBeUndefined()
      expect(await t.app.count('outlets')).toBe(before)
    })
  }

  test('updating one level is checked against the levels already stored', async () => {
    const outlet = (await create(CHAIN)).body.data
    const update = (body: Record<string, unknown>) => t.app.put(`${outlets}/${outlet.id}`, body, { token: owner() })

    // A village of another district, against the stored district 110101.
    expect(Object.keys(expectError(await update({ village_id: otherDistrictsVillage() }), 400, 'VALIDATION_ERROR'))).toEqual(['village_id'])
    // A city of another province, against the stored province 11.
    expect(Object.keys(expectError(await update({ city_id: 1201 }), 400, 'VALIDATION_ERROR'))).toContain('city_id')
    // Another province while city 1101 and below stay stored: the chain would break.
    const province = expectError(await update({ province_id: 12 }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(province).some((key) => ['province_id', 'city_id'].includes(key))).toBe(true)
    // A district of another city, against the stored city 1101.
    const district = expectError(await update({ district_id: firstChild('district', 1102) }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(district)).toContain('district_id')
    // An unknown village.
    expect(Object.keys(expectError(await update({ village_id: 1101019999 }), 400, 'VALIDATION_ERROR'))).toEqual(['village_id'])
    expect(await stored(outlet.id)).toEqual(CHAIN)

    // A village of the same district, or a change that leaves the regions alone, is fine.
    const sibling = childrenOf.village.get(110101)![1].id
    const moved = await update({ village_id: sibling })
    expect(moved.status).toBe(200)
    expect(moved.body.code).toBe('OUTLET_UPDATED')
    expect(moved.body.data).toMatchObject({ ...CHAIN, village_id: sibling })
    const renamed = await update({ name: unique('Renamed') })
    expect(renamed.status).toBe(200)
    expect(renamed.body.data).toMatchObject({ ...CHAIN, village_id: sibling })
  })

  test('a partial chain grows only along the stored levels: a province-only outlet takes a city of that province, not of another', async () => {
    const outlet = (await create({ province_id: 11 })).body.data
    const update = (body: Record<string, unknown>) => t.app.put(`${outlets}/${outlet.id}`, body, { token: owner() })
    expect(Object.keys(expectError(await update({ city_id: 1201 }), 400, 'VALIDATION_ERROR'))).toEqual(['city_id'])
    expect(await stored(outlet.id)).toEqual({ province_id: 11, city_id: null, district_id: null, village_id: null })
    const grown = await update({ city_id: 1101 })
    expect(grown.status).toBe(200)
    expect(grown.body.code).toBe('OUTLET_UPDATED')
    expect(grown.body.data).toMatchObject({ province_id: 11, city_id: 1101, district_id: null, village_id: null })
    expect(Object.keys(expectError(await update({ district_id: firstChild('district', 1102) }), 400, 'VALIDATION_ERROR'))).toEqual(['district_id'])
    const deeper = await update({ district_id: 110101, village_id: 1101012001 })
    expect(deeper.status).toBe(200)
    expect(deeper.body.data).toMatchObject(CHAIN)
  })
})
