/**
 * Lists: one query shape (page, limit, keyword, sort_by, sort_order, updated_since) and one meta
 * shape for every paginated endpoint. `limit` above a list's maximum is clamped (docs/API.md §Errors);
 * `page`/`limit` below 1 or non-numeric are 400; `sort_by` outside the list's columns is 400.
 * `updated_since` (an ISO date-time) keeps the rows whose `updated_at` is at or after it
 * (`updatedSince` below); an office list that does not honour it fails tests/sync.test.ts.
 */
import type { TProperties } from '@sinclair/typebox'
import { asc, desc, gte, or, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import { t } from 'elysia'
import { parseDateTime } from '../../lib/dates'
import { OneOf } from '../http/schema'

export interface Paging {
  page: number
  limit: number
  offset: number
}

export interface PageMeta {
  page: number
  limit: number
  total: number
  total_pages: number
}

export interface Page<T> {
  rows: T[]
  meta: PageMeta
}

export interface ListLimits {
  defaultLimit: number
  maxLimit: number
}

/** docs/API.md §Lists: 10 generally, 50 for master data and audit logs; max 100 unless stated. */
export const DEFAULT_LIST: ListLimits = { defaultLimit: 10, maxLimit: 100 }
export const MASTER_DATA_LIST: ListLimits = { defaultLimit: 50, maxLimit: 100 }

export const MAX_PAGE = 1_000_000_000
export const KEYWORD_MAX = 200
export const DEFAULT_SORTABLE = ['created_at', 'updated_at', 'name', 'id'] as const

export function listQuery<P extends TProperties, S extends string = (typeof DEFAULT_SORTABLE)[number]>(
  extra: P = {} as P,
  sortable: readonly S[] = DEFAULT_SORTABLE as unknown as readonly S[],
) {
  return t.Object({
    page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE, description: 'Page number, from 1' })),
    limit: t.Optional(t.Integer({ minimum: 1, description: 'Items per page; above the maximum it is clamped' })),
    keyword: t.Optional(t.String({ maxLength: KEYWORD_MAX, description: 'Case-insensitive partial match' })),
    sort_by: t.Optional(OneOf(sortable, { description: 'Sort column (default created_at)' })),
    sort_order: t.Optional(OneOf(['asc', 'desc'], { description: 'Default desc' })),
    updated_since: UpdatedSinceParam,
    ...extra,
  })
}

/** The `updated_since` query parameter, for the few lists whose query is not a `listQuery`. */
export const UpdatedSinceParam = t.Optional(
  t.String({
    format: 'iso-date-time',
    maxLength: 40,
    description:
      'Only rows whose own updated_at is at or after this ISO 8601 date-time. Not a way to stay in step: a row that only shows ' +
      'another one changed (an outlet whose account was renamed, a visit whose assignee was renamed, a user added to a team) keeps ' +
      'its updated_at, and deleted rows are never listed. To converge, follow GET /office/v1/changes ' +
      '(docs/API.md §Sync and change feed).',
  }),
)

/** `updated_since` as stored timestamps spell it (UTC, milliseconds, `Z`), or null when absent. */
export function updatedSinceOf(query: { updated_since?: string }): string | null {
  if (!query.updated_since) return null
  const time = parseDateTime(query.updated_since)
  return time === null ? null : new Date(time).toISOString()
}

/**
 * The list condition for `updated_since`: undefined when absent, else `column >= value` (on any of
 * `columns`, for rows whose change lives in two tables, e.g. a user and their membership).
 */
export function updatedSince(query: { updated_since?: string }, ...columns: AnyColumn[]): SQL | undefined {
  const value = updatedSinceOf(query)
  return value === null ? undefined : updatedSinceAt(value, ...columns)
}

/** The same condition on a given value, e.g. a prepared statement's placeholder. */
export const updatedSinceAt = (value: string | Placeholder, ...columns: AnyColumn[]): SQL => or(...columns.map((column) => gte(column, value)))!

export function paging(query: { page?: number; limit?: number }, limits: ListLimits): Paging {
  const page = query.page ?? 1
  const limit = Math.min(query.limit ?? limits.defaultLimit, limits.maxLimit)
  return { page, limit, offset: (page - 1) * limit }
}

export function pageMeta({ page, limit }: Paging, total: number): PageMeta {
  return { page, limit, total, total_pages: total === 0 ? 0 : Math.ceil(total / limit) }
}

/** Folds text for case-insensitive comparison and search (stored in `name_key` columns). */
export const foldText = (text: string) => text.normalize('NFKC').toLowerCase()

/** The keyword to search for, folded, or null when absent or blank. */
export function keywordOf(query: { keyword?: string }): string | null {
  const keyword = query.keyword?.trim()
  return keyword ? foldText(keyword) : null
}

type Direction = 'asc' | 'desc'

/**
 * A sort of several terms (a visit list's `route`: the day in the list's direction, then the place in the
 * day's route always first to last): given the list's direction, the ORDER BY terms before the tie-breaker.
 */
export type SortTerms = (direction: typeof asc) => SQL[]

/** `ORDER BY <column> <dir>, <tie-breaker> <dir>` from `sort_by`/`sort_order` and the list's columns. */
export function orderFor<C extends string>(
  query: { sort_by?: C; sort_order?: Direction },
  columns: Record<C, AnyColumn | SQL | SortTerms>,
  tieBreaker: AnyColumn,
  defaults: { sort_by: C; sort_order: Direction } = { sort_by: 'created_at' as C, sort_order: 'desc' },
): SQL[] {
  const direction = (query.sort_order ?? defaults.sort_order) === 'asc' ? asc : desc
  const column = columns[query.sort_by ?? defaults.sort_by]
  return typeof column === 'function' ? [...column(direction), direction(tieBreaker)] : [direction(column), direction(tieBreaker)]
}
