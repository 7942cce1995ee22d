/**
 * The embedded regional data as the static JSON layout the upstream mode reads (docs/API.md §Regional lookup in
 * README.md), so any static file server can act as the regional service:
 *   DIR/provinces.json, DIR/regencies/{province_id}.json, DIR/districts/{city_id}.json,
 *   DIR/villages/{district_id}.json   — each a JSON array of {id, code, name[, type]}.
 * Run as `ffos regional-export DIR` or `bun run regional:export DIR`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readRegionalData, type Area } from './regional.data'

export function exportRegionalTree(dir: string) {
  const data = readRegionalData()
  const write = (path: string, records: Area[]) => {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), JSON.stringify(records))
  }
  const groups = <T extends Area>(rows: T[], parentOf: (row: T) => number) => {
    const byParent = new Map<number, Area[]>()
    for (const row of rows) {
      const { id, code, name } = row
      const record: Area & { type?: string } = { id, code, name }
      if ('type' in row) record.type = (row as { type: string }).type
      const list = byParent.get(parentOf(row)) ?? []
      list.push(record)
      byParent.set(parentOf(row), list)
    }
    return byParent
  }
  write(
    'provinces.json',
    data.provinces.map(({ id, code, name }) => ({ id, code, name })),
  )
  for (const [parent, records] of groups(data.cities, (c) => c.province_id)) write(`regencies/${parent}.json`, records)
  for (const [parent, records] of groups(data.districts, (d) => d.city_id)) write(`districts/${parent}.json`, records)
  for (const [parent, records] of groups(data.villages, (v) => v.district_id)) write(`villages/${parent}.json`, records)
  return {
    version: data.version,
    provinces: data.provinces.length,
    cities: data.cities.length,
    districts: data.districts.length,
    villages: data.villages.length,
  }
}
