/**
 * Request and response shapes of the regional lookup (docs/API.md §Regional lookup).
 */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { KEYWORD_MAX, MAX_PAGE } from '../../platform/data/pagination'
import { MAX_ID, named } from '../../platform/http/schema'

export const AreaSchema = named(
  'Area',
  Type.Object({
    id: Type.Integer({ description: 'The code without dots (11, 1101, 110101, 1101012001)' }),
    code: Type.String({ description: 'Dotted code (11.01.01)' }),
    name: Type.String(),
    type: Type.Optional(Type.String({ description: 'Cities only: kabupaten or kota' })),
  }),
)

const common = {
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Default 50, clamped at 1000' })),
  keyword: t.Optional(t.String({ maxLength: KEYWORD_MAX, description: 'Case-insensitive partial match on name' })),
}

/** The query of a level's list: paging and keyword, plus the required parent id below provinces. */
export const regionalListQuery = (parent: string | null) =>
  t.Object(parent ? { ...common, [parent]: t.Integer({ minimum: 1, maximum: MAX_ID, description: 'Required: the parent area' }) } : common)

/** Any level's query as the route receives it; the parent id under its level's name. */
export type RegionalListQuery = Static<ReturnType<typeof regionalListQuery>>
