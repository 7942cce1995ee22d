/**
 * One list idiom. A list is declared once with `defineList` and answered by the function it returns;
 * every step of a list request happens here, in this order, each named where it happens:
 *
 * 1. Scope: the rows are the caller's workspace's live rows (`scope.where`, platform/scope.ts).
 * 2. Search: a `keyword` (folded, `keywordOf`) is a case-insensitive "contains" over `search.columns`,
 *    answered by the table's FTS index when `search.index` names one, by an `instr` scan otherwise
 *    (platform/search.ts explains when each is used; the page and the total may find the keyword's rows
 *    differently, never other rows).
 * 3. Filters: each declared filter whose query value is present (not undefined, null or '') adds its
 *    condition; `updated_since` keeps rows whose `updated_at` (or `updatedSince` columns) is at or after it.
 * 4. Sort: `sort_by` picks one of `sort`'s columns (the query schema already refused any other),
 *    `sort_order` its direction, the id breaks ties in the same direction.
 * 5. Page: `page`/`limit` with the list's default and maximum (a larger `limit` is clamped), and the total
 *    of the same conditions, read together.
 *
 * ```ts
 * const teamList = defineList({
 *   scope: teamScope,
 *   search: { columns: [teams.name_key] },
 *   filters: { leader_id: (id: number) => eq(teams.leader_id, id) },
 *   sort: { created_at: teams.created_at, updated_at: teams.updated_at, name: teams.name_key, id: teams.id },
 *   limits: DEFAULT_LIST,
 * })
 * const page = await teamList(ctx, query) // Page<typeof teams.$inferSelect>
 * ```
 *
 * Lists whose statements are prepared per shape (visits, outlets, master data: see docs/PERFORMANCE.md)
 * keep their own statements for now; their conditions still come from the scope and platform/search.ts.
 */
import { and, count, eq, or, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import type { AuthedContext } from '../context'
import { keywordOf, type ListLimits, orderFor, type Page, paginate, paging, updatedSince } from './pagination'
import type { Row, WorkspaceScoped } from './scope'
import { keywordFilters, type SearchIndex } from './search'

type ListTable = Parameters<typeof import('./scope').workspaceScoped>[0] & { id: SQLiteColumn; updated_at?: SQLiteColumn }

/** A select over the list's table with the columns a list answers (a join for names, say), before ordering. */
type RowsQuery<R> = { orderBy(...order: SQL[]): { limit(limit: number): { offset(offset: number): Promise<R[]> } } }

/** The query every list accepts (`listQuery` in platform/pagination.ts), plus the list's own filters. */
export interface ListQueryBase<S extends string> {
  page?: number
  limit?: number
  keyword?: string
  sort_by?: S
  sort_order?: 'asc' | 'desc'
  updated_since?: string
}

export interface ListDefinition<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R> {
  scope: WorkspaceScoped<T>
  /** Which of the workspace's rows the caller may see at all (their own notifications); all when absent. */
  visibleTo?: (ctx: AuthedContext) => SQL | undefined
  /** The rows' columns, when not the table's own (default `select * from table`). */
  select?: (db: Db, where: SQL) => RowsQuery<R>
  /** The total's query, when the rows need a join to be judged (default `count(*)` over the table). */
  count?: (db: Db, where: SQL) => Promise<{ total: number }[]>
  /**
   * Folded text columns (or expressions) the keyword is looked for in; `index`: the table's FTS index;
   * `exact`: columns that match the keyword as typed (trimmed, not folded), e.g. a barcode.
   */
  search?: { columns: (AnyColumn | SQL)[]; index?: SearchIndex; exact?: AnyColumn[] }
  /** A condition per query parameter, applied when the parameter is present. */
  filters?: { [K in Exclude<keyof Q, keyof ListQueryBase<S>>]?: (value: NonNullable<Q[K]>, ctx: AuthedContext) => SQL | undefined }
  sort: Record<S, AnyColumn | SQL>
  /** Default `created_at` descending. */
  defaultSort?: { sort_by: NoInfer<S>; sort_order: 'asc' | 'desc' }
  /** Breaks ties of the sort, in its direction (default the table's id). */
  tieBreaker?: AnyColumn
  limits: ListLimits
  /** The columns `updated_since` compares (default the table's `updated_at`): a row counts as changed when any is at or after it. */
  updatedSince?: AnyColumn[]
}

/** Declares a list (see the top of this file); the returned function answers one page of it. */
export function defineList<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R = Row<T>>(def: ListDefinition<T, S, Q, R>) {
  const table = def.scope.table
  const plain: SQLiteTable = table
  const updatedColumns = def.updatedSince ?? (table.updated_at ? [table.updated_at] : [])
  if (updatedColumns.length === 0) throw new Error('a list needs the columns updated_since compares')
  const select = def.select ?? ((db: Db, where: SQL) => db.select().from(plain).where(where) as unknown as RowsQuery<R>)

  return async function list(ctx: AuthedContext, query: Q, db: Db = ctx.deps.db.read): Promise<Page<R>> {
    const page = paging(query, def.limits)
    // 2. Search: by index or by scan, possibly differently for the page and the total.
    const keyword = def.search ? keywordOf(query) : null
    let search: { rows: SQL; total: SQL } | null = null
    if (keyword !== null && def.search) {
      const scan = or(...def.search.columns.map((column) => sql`instr(coalesce(${column}, ''), ${keyword}) > 0`))!
      search = def.search.index ? await keywordFilters(db, def.search.index, keyword, scan) : { rows: scan, total: scan }
      const typed = query.keyword?.trim()
      const exact = def.search.exact?.map((column) => eq(column, typed))
      if (exact?.length) search = { rows: or(search.rows, ...exact)!, total: or(search.total, ...exact)! }
    }
    // 3. Filters, in their declared order (a stable statement shape).
    const filters: (SQL | undefined)[] = [def.visibleTo?.(ctx)]
    for (const [key, condition] of Object.entries(def.filters ?? {}) as [keyof Q, (value: unknown, ctx: AuthedContext) => SQL | undefined][]) {
      const value = query[key]
      if (value !== undefined && value !== null && value !== '') filters.push(condition(value, ctx))
    }
    filters.push(updatedSince(query, ...updatedColumns))
    // 1. Scope, around everything else.
    const where = (of: 'rows' | 'total') => def.scope.where(ctx.actor.workspaceId, search?.[of], and(...filters))
    // 4. Sort, 5. Page.
    const order = orderFor(query, def.sort, def.tieBreaker ?? table.id, def.defaultSort)
    return (await paginate(
      page,
      select(db, where('rows'))
        .orderBy(...order)
        .limit(page.limit)
        .offset(page.offset),
      def.count ? def.count(db, where('total')) : db.select({ total: count() }).from(plain).where(where('total')),
    )) as Page<R>
  }
}
