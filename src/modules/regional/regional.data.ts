/**
 * The Indonesian administrative areas of the idn-area-data package (4.x: 38 provinces, 514 cities,
 * 7,285 districts, 83,762 villages), read straight from its CSV files (so its Node engine field does
 * not matter under Bun) and loaded into the database once, in one transaction, on first start.
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
import { eq, sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client'
import { appSettings, regionalCities, regionalDistricts, regionalProvinces, regionalVillages } from '../../db/schema'
import type { Logger } from '../../platform/logger'
import { foldText } from '../../platform/pagination'

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

export function readRegionalData(): RegionalData {
  const version = regionalDataVersion()
  // Each record is mapped as it is parsed (`on_record`): csv-parse's row objects never pile up beside
  // ours, which keeps the first start's memory peak down (83,762 villages; README.md, 256 MB machines).
  const csv = <T>(file: string, map: (row: Record<string, string>) => T) =>
    parse(readFileSync(file), { columns: true, skip_empty_lines: true, bom: true, trim: true, on_record: map }) as T[]
  return {
    version,
    provinces: csv(provincesCsv, (row) => ({ id: idOf(row.code), code: row.code, name: row.name })),
    cities: csv(regenciesCsv, (row) => ({
      id: idOf(row.code),
      code: row.code,
      province_id: idOf(row.province_code),
      name: row.name,
      type: cityType(row.name),
    })),
    districts: csv(districtsCsv, (row) => ({ id: idOf(row.code), code: row.code, city_id: idOf(row.regency_code), name: row.name })),
    villages: csv(villagesCsv, (row) => ({ id: idOf(row.code), code: row.code, district_id: idOf(row.district_code), name: row.name })),
  }
}

const SETTING = 'regional_data_version'
const CHUNK = 500

/**
 * Loads the data unless this version is already there: idempotent, and all or nothing (one
 * transaction, so a crash mid-load leaves the previous state). Returns whether it loaded.
 */
export async function loadRegionalData(db: Database, logger?: Logger): Promise<boolean> {
  const [current] = await db.read.select({ value: appSettings.value }).from(appSettings).where(eq(appSettings.key, SETTING))
  if (current?.value === regionalDataVersion()) return false
  const started = performance.now()
  const data = readRegionalData()
  await db.transaction(async (tx) => {
    for (const table of [regionalVillages, regionalDistricts, regionalCities, regionalProvinces]) await tx.delete(table)
    const insert = async <T extends Area>(table: Parameters<Db['insert']>[0], rows: T[]) => {
      for (let start = 0; start < rows.length; start += CHUNK) {
        await tx.insert(table).values(rows.slice(start, start + CHUNK).map((row) => ({ ...row, name_key: foldText(row.name) })) as never)
      }
    }
    await insert(regionalProvinces, data.provinces)
    await insert(regionalCities, data.cities)
    await insert(regionalDistricts, data.districts)
    await insert(regionalVillages, data.villages)
    await tx
      .insert(appSettings)
      .values({ key: SETTING, value: data.version })
      .onConflictDoUpdate({ target: appSettings.key, set: { value: sql`excluded.value` } })
  })
  logger?.info('regional data loaded', {
    version: data.version,
    provinces: data.provinces.length,
    cities: data.cities.length,
    districts: data.districts.length,
    villages: data.villages.length,
    ms: Math.round(performance.now() - started),
  })
  return true
}
