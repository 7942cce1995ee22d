import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { KEYWORD_MAX, keywordOf, MAX_PAGE, paging, type ListLimits } from '../../platform/pagination'
import { listed } from '../../platform/reply'
import { ListEnvelope, MAX_ID, responses } from '../../platform/schema'
import type { Level } from './regional.source'

/** Lists: default limit 50, max 1000 (docs/API.md §Regional lookup). */
export const REGIONAL_LIST: ListLimits = { defaultLimit: 50, maxLimit: 1000 }

const AreaSchema = Type.Object({
  id: Type.Integer({ description: 'The code without dots (11, 1101, 110101, 1101012001)' }),
  code: Type.String({ description: 'Dotted code (11.01.01)' }),
  name: Type.String(),
  type: Type.Optional(Type.String({ description: 'Cities only: kabupaten or kota' })),
})

const common = {
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 50, clamped at 1000' })),
  keyword: t.Optional(t.String({ maxLength: KEYWORD_MAX, description: 'Case-insensitive partial match on name' })),
}

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
      const query = t.Object(parent ? { ...common, [parent]: t.Integer({ minimum: 1, maximum: MAX_ID, description: 'Required: the parent area' }) } : common)
      routes.get(
        `${prefix}/${path}`,
        async ({ ctx, query }) => {
          const values = query as Record<string, number | string | undefined>
          const page = await ctx.deps.regional.list(level, parent ? (values[parent] as number) : null, paging(values, REGIONAL_LIST), keywordOf(values))
          return listed(page, code, `${plural} retrieved`)
        },
        {
          auth: true,
          query,
          response: responses({ 200: ListEnvelope(AreaSchema) }, [400, 401, 404, 503]),
          detail: { summary: parent ? `List the ${plural} of a ${parent.replace('_id', '')} (cascading selection)` : 'List provinces' },
        },
      )
    }
  }
  return routes
}
