/**
 * The Indonesian administrative areas of the idn-area-data package (4.x: 38 provinces, 514 cities,
 * 7,285 districts, 83,762 villages), read straight from its CSV files (so its Node engine field does
 * not matter under Bun) and loaded into the database once, on first start, before the server listens.
 *
 * The CSV files are imported as files: from node_modules under `bun src/server.ts`, embedded in the
 * compiled executable (`npm run build`), which has no node_modules beside it.
 */
import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import { version as packageVersion } from 'idn-area-data/package.json'
import provincesCsv from 'idn-area-data/data/provinces.csv' with { type: 'file' }
import regenciesCsv from 'idn-area-data/data/regencies.csv' with { type: 'file' }
import districtsCsv from 'idn-area-data/data/districts.csv' with { type: 'file' }
import villagesCsv from 'idn-area-data/data/villages.csv' with { type: 'file' }
import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client'
import { runPositional } from '../../db/prepared'
import { appSettings } from '../../db/schema'
import type { Logger } from '../../platform/logger'
import { foldText } from '../../platform/data/pagination'

export interface Area {
  id: number
  code: string
  name: string
}
export interface City extends Area {
  province_id: number
  type: 'kabupaten' | 'kota'
}
export interface District extends Area {
  city_id: number
}
export interface Village extends Area {
  district_id: number
}

export interface RegionalData {
  version: string
  provinces: Area[]
  cities: City[]
  districts: District[]
  villages: Village[]
}

/** `11.01.01` → 110101 */
export const idOf = (code: string) => Number(code.replaceAll('.', ''))

/** `Kabupaten Aceh Selatan` → kabupaten, `Kota Banda Aceh` → kota. */
export const cityType = (name: string): 'kabupaten' | 'kota' => (/^kota\b/i.test(name) ? 'kota' : 'kabupaten')

/** The installed idn-area-data version. */
export const regionalDataVersion = () => packageVersion

type CsvRow = Record<string, string>

const CSV_OPTIONS = { columns: true, skip_empty_lines: true, bom: true, trim: true } as const

/** One level: its CSV file, how a CSV row becomes a record, and the table and columns it is stored in. */
interface LevelSource<T extends Area> {
  file: string
  record(row: CsvRow): T
  table: string
  /** The table's columns, in the order `values` gives them. */
  columns: string[]
  values(record: T): (string | number)[]
}

const PROVINCES: LevelSource<Area> = {
  file: provincesCsv,
  record: (row) => ({ id: idOf(row.code), code: row.code, name: row.name }),
  table: 'regional_provinces',
  columns: ['id', 'code', 'name', 'name_key'],
  values: (r) => [r.id, r.code, r.name, foldText(r.name)],
}
const CITIES: LevelSource<City> = {
  file: regenciesCsv,
  record: (row) => ({ id: idOf(row.code), code: row.code, province_id: idOf(row.province_code), name: row.name, type: cityType(row.name) }),
  table: 'regional_cities',
  columns: ['id', 'code', 'province_id', 'name', 'name_key', 'type'],
  values: (r) => [r.id, r.code, r.province_id, r.name, foldText(r.name), r.type],
}
const DISTRICTS: LevelSource<District> = {
  file: districtsCsv,
  record: (row) => ({ id: idOf(row.code), code: row.code, city_id: idOf(row.regency_code), name: row.name }),
  table: 'regional_districts',
  columns: ['id', 'code', 'city_id', 'name', 'name_key'],
  values: (r) => [r.id, r.code, r.city_id, r.name, foldText(r.name)],
}
const VILLAGES: LevelSource<Village> = {
  file: villagesCsv,
  record: (row) => ({ id: idOf(row.code), code: row.code, district_id: idOf(row.district_code), name: row.name }),
  table: 'regional_villages',
  columns: ['id', 'code', 'district_id', 'name', 'name_key'],
  values: (r) => [r.id, r.code, r.district_id, r.name, foldText(r.name)],
}

/**
 * Everything at once, for `regional-export` (a one-off command). Each record is mapped as it is
 * parsed (`on_record`), so csv-parse's row objects never pile up beside ours.
 */
export function readRegionalData(): RegionalData {
  const all = <T extends Area>(level: LevelSource<T>) => parse(readFileSync(level.file), { ...CSV_OPTIONS, on_record: level.record }) as T[]
  return { version: regionalDataVersion(), provinces: all(PROVINCES), cities: all(CITIES), districts: all(DISTRICTS), villages: all(VILLAGES) }
}

const NEWLINE = 0x0a
const QUOTE = 0x22

/**
 * A CSV file's data rows, a block of about `rows` lines at a time, each block parsed on its own: only
 * the file's bytes, one block's records and what the caller keeps are alive at once. A block ends at
 * a newline outside quotes (an even number of quote characters before it: a quote inside a quoted
 * field is doubled), so a quoted field is never cut in two.
 */
export function* csvBlocks(bytes: Uint8Array, rows: number): Generator<CsvRow[]> {
  let start = 0
  let header: string[] | null = null
  while (start < bytes.length) {
    let end = start
    let lines = 0
    let quotes = 0
    while (end < bytes.length && lines < (header ? rows : 1)) {
      const byte = bytes[end++]
      if (byte === QUOTE) quotes++
      else if (byte === NEWLINE && quotes % 2 === 0) lines++
    }
    const block = bytes.subarray(start, end)
    start = end
    if (!header) {
      // The header: the first line that is not empty.
      header = (parse(block, { ...CSV_OPTIONS, columns: false }) as string[][])[0] ?? null
      continue
    }
    const records = parse(block, { ...CSV_OPTIONS, bom: false, columns: header }) as CsvRow[]
    // Blank lines only (a file's trailing ones): no block, so no INSERT without rows.
    if (records.length > 0) yield records
  }
}

const SETTING = 'regional_data_version'
/** Rows per INSERT statement and per parsed block (× 6 columns at most: far below SQLite's 32,766 parameters). */
const ROWS_PER_STATEMENT = 500
/**
 * A full garbage collection after this many rows: the parse leaves a few hundred bytes of garbage per
 * row, which the collector would otherwise let pile up to tens of MiB before the first request.
 */
const ROWS_PER_COLLECTION = 10_000

type Insert = (text: string, params: (string | number)[]) => Promise<unknown>

/** Loads one level, one multi-row INSERT per block of the file; returns how many rows it stored. */
async function loadLevel<T extends Area>(level: LevelSource<T>, insert: Insert): Promise<number> {
  const row = `(${level.columns.map(() => '?').join(', ')})`
  const statement = (rows: number) => `INSERT INTO ${level.table} (${level.columns.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`
  const full = statement(ROWS_PER_STATEMENT)
  let stored = 0
  for (const block of csvBlocks(readFileSync(level.file), ROWS_PER_STATEMENT)) {
    const params: (string | number)[] = []
    for (const row of block) for (const value of level.values(level.record(row))) params.push(value)
    await insert(block.length === ROWS_PER_STATEMENT ? full : statement(block.length), params)
    stored += block.length
    if (stored % ROWS_PER_COLLECTION === 0) Bun.gc(true)
  }
  return stored
}

/**
 * Loads the data unless this version is already there: idempotent, and all or nothing (one
 * transaction, so a crash mid-load leaves the previous state). Returns whether it loaded.
 *
 * Each file is parsed a block of 500 rows at a time, each block straight into the parameters of one
 * INSERT: neither a parsed file nor its records are ever held whole, and the collector runs every
 * 10,000 rows and at the end, so the first start's memory peak stays low (README.md "Memory").
 * server.ts awaits it before it listens: the load never overlaps the first requests.
 */
export async function loadRegionalData(db: Database, logger?: Logger): Promise<boolean> {
  const [current] = await db.read.select({ value: appSettings.value }).from(appSettings).where(eq(appSettings.key, SETTING))
  const version = regionalDataVersion()
  if (current?.value === version) return false
  const started = performance.now()
  const counts = await db.transaction(async (tx) => {
    const insert: Insert = (text, params) => runPositional(tx, text, params)
    for (const level of [VILLAGES, DISTRICTS, CITIES, PROVINCES]) await insert(`DELETE FROM ${level.table}`, [])
    const stored = {
      provinces: await loadLevel(PROVINCES, insert),
      cities: await loadLevel(CITIES, insert),
      districts: await loadLevel(DISTRICTS, insert),
      villages: await loadLevel(VILLAGES, insert),
    }
    await insert('INSERT INTO app_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [SETTING, version])
    return stored
  })
  Bun.gc(true)
  logger?.info('regional data loaded', { version, ...counts, ms: Math.round(performance.now() - started) })
  return true
}
