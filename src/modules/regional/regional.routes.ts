import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { keywordOf, paging, type ListLimits } from '../../platform/data/pagination'
import { listed } from '../../platform/http/reply'
import { ListEnvelope, responses } from '../../platform/http/schema'
import { AreaSchema, type RegionalListQuery, regionalListQuery } from './regional.schemas'
import type { Level } from './regional.source'

/** Lists: default limit 50, max 1000 (docs/API.md §Regional lookup). */
export const REGIONAL_LIST: ListLimits = { defaultLimit: 50, maxLimit: 1000 }

const LEVELS: { level: Level; path: string; parent: string | null; code: string; plural: string }[] = [
  { level: 'province', path: 'provinces', parent: null, code: 'PROVINCE_LIST', plural: 'provinces' },
  { level: 'city', path: 'cities', parent: 'province_id', code: 'CITY_LIST', plural: 'cities' },
  { level: 'district', path: 'districts', parent: 'city_id', code: 'DISTRICT_LIST', plural: 'districts' },
  { level: 'village', path: 'villages', parent: 'district_id', code: 'VILLAGE_LIST', plural: 'villages' },
]

/** Regional lookup on both platforms; authentication only, no permission (docs/API.md §Regional lookup). */
export function regionalRoutes(platform: PlatformPlugin) {
  const routes = new Elysia({ tags: ['Regional'] }).use(platform)
  for (const prefix of ['/office/v1/regional', '/app/v1/regional']) {
    for (const { level, path, parent, code, plural } of LEVELS) {
      routes.get(
        `${prefix}/${path}`,
        async ({ ctx, query }) => {
          const values = query as RegionalListQuery & Record<string, unknown>
          const parentId = parent ? (values[parent] as number) : null
          return listed(await ctx.deps.regional.list(level, parentId, paging(values, REGIONAL_LIST), keywordOf(values)), code, `${plural} retrieved`)
        },
        {
          auth: true,
          query: regionalListQuery(parent),
          response: responses({ 200: ListEnvelope(AreaSchema) }, [
            'VALIDATION_ERROR',
            'UNAUTHORIZED',
            'TOKEN_EXPIRED',
            'REGIONAL_PROVINCE_NOT_FOUND',
            'REGIONAL_CITY_NOT_FOUND',
            'REGIONAL_DISTRICT_NOT_FOUND',
            'REGIONAL_SERVICE_ERROR',
          ]),
          detail: { summary: parent ? `List the ${plural} of a ${parent.replace('_id', '')} (cascading selection)` : 'List provinces' },
        },
      )
    }
  }
  return routes
}
