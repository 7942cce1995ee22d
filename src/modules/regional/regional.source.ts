/**
 * Where regional lists come from (docs/API.md §Regional lookup): the prepared read-only database
 * (default, ./regional.database.ts) or an upstream regional service (REGIONAL_SERVICE_URL) with the static JSON layout
 *   /provinces.json, /regencies/{province_id}.json, /districts/{city_id}.json, /villages/{district_id}.json
 * that `bun run regional:export DIR` writes. Upstream answers are cached in memory for an hour; a
 * timeout (REGIONAL_TIMEOUT_MS, 3 s unless configured) or an error is a 503 REGIONAL_SERVICE_ERROR,
 * an unknown parent a 404.
 * Both sources answer the same: ordered by code, `keyword` a case-insensitive partial match on name.
 */
import { and, asc, count, eq, sql } from 'drizzle-orm'
import type { RegionalDb } from './regional.database'
import { regionalCities, regionalDistricts, regionalProvinces, regionalVillages } from './regional.tables'
import { AppError } from '../../lib/errors'
import { foldText, pageMeta, type Page, type Paging } from '../../platform/data/pagination'

export type Level = 'province' | 'city' | 'district' | 'village'
export const PARENT_OF: Record<Exclude<Level, 'province'>, Exclude<Level, 'village'>> = { city: 'province', district: 'city', village: 'district' }
/** Digits of an id at each level: 11 / 1101 / 110101 / 1101012001. */
export const ID_DIGITS: Record<Level, number> = { province: 2, city: 4, district: 6, village: 10 }

export interface AreaRecord {
  id: number
  code: string
  name: string
  type?: 'kabupaten' | 'kota'
}

export interface RegionalSource {
  /** A level's records under `parentId` (null for provinces); throws for an unknown parent. */
  list(level: Level, parentId: number | null, paging: Paging, keyword: string | null): Promise<Page<AreaRecord>>
  /** Whether the area exists (for the outlet's province → village chain). */
  exists(level: Level, id: number): Promise<boolean>
}

const PARENT_NOT_FOUND = { province: 'REGIONAL_PROVINCE_NOT_FOUND', city: 'REGIONAL_CITY_NOT_FOUND', district: 'REGIONAL_DISTRICT_NOT_FOUND' } as const

export const parentNotFound = (level: Exclude<Level, 'village'>) => new AppError(PARENT_NOT_FOUND[level], `${level} not found`, {}, {}, { data: [] })

export const serviceUnavailable = () => new AppError('REGIONAL_SERVICE_ERROR', 'regional service unavailable', {}, {}, { data: [] })

const TABLES = {
  province: { table: regionalProvinces, parent: null },
  city: { table: regionalCities, parent: regionalCities.province_id },
  district: { table: regionalDistricts, parent: regionalDistricts.city_id },
  village: { table: regionalVillages, parent: regionalVillages.district_id },
} as const

/** The prepared read-only database (./regional.database.ts). */
export function embeddedSource(db: () => RegionalDb): RegionalSource {
  const source: RegionalSource = {
    async list(level, parentId, paging, keyword) {
      const { table, parent } = TABLES[level]
      if (level !== 'province' && !(await source.exists(PARENT_OF[level], parentId!))) throw parentNotFound(PARENT_OF[level])
      const t = table as typeof regionalCities
      const where = and(parent && parentId !== null ? eq(parent, parentId) : undefined, keyword ? sql`instr(${t.name_key}, ${keyword}) > 0` : undefined)
      const columns = { id: t.id, code: t.code, name: t.name, ...(level === 'city' ? { type: regionalCities.type } : {}) }
      const [rows, [{ total }]] = await Promise.all([
        db().select(columns).from(t).where(where).orderBy(asc(t.code)).limit(paging.limit).offset(paging.offset),
        db().select({ total: count() }).from(t).where(where),
      ])
      return { rows: rows as AreaRecord[], meta: pageMeta(paging, total) }
    },
    async exists(level, id) {
      const t = TABLES[level].table as typeof regionalCities
      const [row] = await db().select({ id: t.id }).from(t).where(eq(t.id, id)).limit(1)
      return row !== undefined
    },
  }
  return source
}

/** How long an upstream request may take before the answer is a 503 (the REGIONAL_TIMEOUT_MS default). */
export const UPSTREAM_TIMEOUT_MS = 3_000
export const UPSTREAM_TTL_MS = 60 * 60 * 1000
const CACHE_MAX = 2_000

const FILE: Record<Level, (parentId: number | null) => string> = {
  province: () => '/provinces.json',
  city: (parent) => `/regencies/${parent}.json`,
  district: (parent) => `/districts/${parent}.json`,
  village: (parent) => `/villages/${parent}.json`,
}

export interface UpstreamOptions {
  /** Per request; UPSTREAM_TIMEOUT_MS unless given (tests give a short one instead of waiting 3 s). */
  timeoutMs?: number
  /** Injectable so tests can expire the cache. */
  now?: () => number
}

/** The upstream regional service. */
export function upstreamSource(baseUrl: string, options: UpstreamOptions = {}): RegionalSource {
  const { timeoutMs = UPSTREAM_TIMEOUT_MS, now = Date.now } = options
  const base = baseUrl.replace(/\/+$/, '')
  const cache = new Map<string, { expires: number; records: AreaRecord[] | null }>()

  /** The records of one file; null when the upstream says it does not exist (404). */
  async function fetchFile(path: string): Promise<AreaRecord[] | null> {
    const hit = cache.get(path)
    if (hit && hit.expires > now()) return hit.records
    let records: AreaRecord[] | null
    try {
      const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(timeoutMs) })
      if (response.status === 404) records = null
      else if (!response.ok) throw new Error(`upstream answered ${response.status}`)
      else {
        const body = (await response.json()) as unknown
        if (!Array.isArray(body)) throw new Error('upstream answer is not a list')
        records = body.map((item: Record<string, unknown>) => ({
          id: Number(item.id),
          code: String(item.code),
          name: String(item.name),
          ...(item.type ? { type: item.type as 'kabupaten' | 'kota' } : {}),
        }))
      }
    } catch {
      throw serviceUnavailable()
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!)
    cache.set(path, { expires: now() + UPSTREAM_TTL_MS, records })
    return records
  }

  const source: RegionalSource = {
    async list(level, parentId, paging, keyword) {
      const records = await fetchFile(FILE[level](parentId))
      if (records === null) {
        if (level === 'province') throw serviceUnavailable()
        throw parentNotFound(PARENT_OF[level])
      }
      const matching = (keyword ? records.filter((record) => foldText(record.name).includes(keyword)) : records).sort((a, b) =>
        a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
      )
      return { rows: matching.slice(paging.offset, paging.offset + paging.limit), meta: pageMeta(paging, matching.length) }
    },
    async exists(level, id) {
      const parentId = level === 'province' ? null : Math.floor(id / 10 ** (ID_DIGITS[level] - ID_DIGITS[PARENT_OF[level]]))
      const records = await fetchFile(FILE[level](parentId))
      return records?.some((record) => record.id === id) ?? false
    },
  }
  return source
}
