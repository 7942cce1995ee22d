/**
 * The Indonesian administrative areas of the idn-area-data package (4.x: 38 provinces, 514 cities,
 * 7,285 districts, 83,762 villages), read straight from its CSV files (so its Node engine field does
 * not matter under Bun), and the build of the prepared read-only database that serves them
 * (`buildRegionalDatabase`, run by `bun scripts/build-regional.ts`, `npm run build`, `npm start` and
 * `npm test` when the file is missing; README.md "Regional data"). The service's own database never
 * receives these rows: a first start copies or opens a file, it inserts nothing (./regional.database.ts).
 *
 * The CSV files are imported as files: from node_modules under `bun src/server.ts`, embedded in the
 * compiled executable (`npm run build`) for `ffos regional-export`, which reads them there.
 */
import { Database as SqliteDatabase } from 'bun:sqlite'
import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { parse } from 'csv-parse/sync'
import { version as packageVersion } from 'idn-area-data/package.json'
import provincesCsv from 'idn-area-data/data/provinces.csv' with { type: 'file' }
import regenciesCsv from 'idn-area-data/data/regencies.csv' with { type: 'file' }
import districtsCsv from 'idn-area-data/data/districts.csv' with { type: 'file' }
import villagesCsv from 'idn-area-data/data/villages.csv' with { type: 'file' }
import { foldText } from '../../platform/data/pagination'
import { REGIONAL_INDEXES_DDL, REGIONAL_TABLES_DDL } from './regional.tables'

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

/**
 * The layout of the prepared file: raise it whenever its tables, indexes, `name_key` folding
 * (foldText) or the way a CSV row becomes a record change, so every installation replaces its copy.
 */
export const REGIONAL_FORMAT = 1

/** What names a prepared file: the data version and the layout, e.g. `4.0.1-f1`. */
export const regionalFileVersion = () => `${regionalDataVersion()}-f${REGIONAL_FORMAT}`

/** The prepared file's name for a version: `regional-4.0.1-f1.sqlite`. */
export const regionalFileName = (version = regionalFileVersion()) => `regional-${version}.sqlite`

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

/** Rows per parsed block: only one block's records are alive at once. */
const ROWS_PER_BLOCK = 500

export interface RegionalCounts {
  provinces: number
  cities: number
  districts: number
  villages: number
}

/** Loads one level, row by row through one prepared INSERT; returns how many rows it stored. */
function loadLevel<T extends Area>(db: SqliteDatabase, level: LevelSource<T>): number {
  const insert = db.prepare(`INSERT INTO ${level.table} (${level.columns.join(', ')}) VALUES (${level.columns.map(() => '?').join(', ')})`)
  let stored = 0
  for (const block of csvBlocks(readFileSync(level.file), ROWS_PER_BLOCK)) {
    for (const row of block) insert.run(...level.values(level.record(row)))
    stored += block.length
  }
  insert.finalize()
  return stored
}

/**
 * Builds the prepared regional database at `path`: the tables and indexes of ./regional.tables.ts,
 * every area of the installed package, and regional_meta (`version`, `data_version`). Deterministic:
 * the same package, code and SQLite give the same bytes (tests/regional.test.ts compares two builds).
 *
 * The file is written under a temporary name beside `path` and renamed into place once complete, so
 * a reader (or a second builder: two test processes at once) never sees half a file; a crash leaves
 * only the temporary file. Journal and sync are off while building for the same reason: the file
 * counts only once renamed.
 */
export function buildRegionalDatabase(path: string, version = regionalFileVersion()): RegionalCounts {
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}-${randomUUID()}.tmp`
  try {
    const db = new SqliteDatabase(temporary, { create: true, readwrite: true, strict: true })
    let counts: RegionalCounts
    try {
      db.run('PRAGMA page_size = 4096')
      db.run('PRAGMA journal_mode = OFF')
      db.run('PRAGMA synchronous = OFF')
      counts = db.transaction(() => {
        for (const statement of REGIONAL_TABLES_DDL) db.run(statement)
        const stored = {
          provinces: loadLevel(db, PROVINCES),
          cities: loadLevel(db, CITIES),
          districts: loadLevel(db, DISTRICTS),
          villages: loadLevel(db, VILLAGES),
        }
        for (const statement of REGIONAL_INDEXES_DDL) db.run(statement)
        const meta = db.prepare('INSERT INTO regional_meta (key, value) VALUES (?, ?)')
        meta.run('version', version)
        meta.run('data_version', regionalDataVersion())
        meta.finalize()
        return stored
      })()
      // A file readers open read-only: rollback journal mode (no -wal/-shm beside it).
      db.run('PRAGMA journal_mode = DELETE')
    } finally {
      db.close()
    }
    renameSync(temporary, path)
    return counts
  } finally {
    rmSync(temporary, { force: true })
  }
}
