/**
 * One list idiom. A list is declared once with `defineList` and answered by the function it returns;
 * every step of a list request happens here, in this order, each named where it happens:
 *
 * 1. Scope: the rows are the caller's workspace's live rows (`scope.where`, platform/data/scope.ts), narrowed by
 *    `visibleTo(ctx, query)` when only some are the caller's; a list of the caller's own rows across
 *    workspaces (their workspaces) gives a `CallerScope` instead.
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
 * const where = teamList.where(ctx, query) // the same rows' condition, for an export that streams them
 * ```
 *
 * With `prepared`, a list on a hot path (docs/PERFORMANCE.md) builds its page and its total once per
 * shape and connection (sort column and direction, how the keyword is found, which filters are present:
 * db/prepared.ts) and a request only binds its values. Its filters are then called once per shape with
 * the query parameter's placeholder (`sql.placeholder(name)`) in place of the value, so a prepared list's
 * filter must use its value only as a bound value (`eq(column, value)`), never look at it or at `ctx`.
 */
import { and, count, eq, or, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { preparedShapes } from '../../db/prepared'
import type { AuthedContext } from '../context'
import { keywordOf, type ListLimits, orderFor, type Page, pageMeta, paging, updatedSinceAt, updatedSinceOf } from './pagination'
import type { Row, WorkspaceScoped } from './scope'
import { ftsPhrase, type KeywordMethod, matchesIndex, planKeyword, type SearchIndex } from './search'

type ListTable = Parameters<typeof import('./scope').workspaceScoped>[0] & { id: SQLiteColumn; updated_at?: SQLiteColumn }

/** A query a prepared list keeps: `all` binds the request's values. */
type Preparable = { prepare(): { all(values?: Record<string, unknown>): unknown } }
/** A select over the list's table with the columns a list answers (a join for names, say), before ordering. */
type RowsQuery<R> = {
  orderBy(...order: SQL[]): { limit(limit: number | Placeholder): { offset(offset: number | Placeholder): Promise<R[]> & Preparable } }
}

/** The query every list accepts (`listQuery` in platform/pagination.ts), plus the list's own filters. */
export interface ListQueryBase<S extends string> {
  page?: number
  limit?: number
  keyword?: string
  sort_by?: S
  sort_order?: 'asc' | 'desc'
  updated_since?: string
}

/**
 * Whose rows a list answers when they are not one workspace's: the caller's own across workspaces
 * (their memberships), through platform/data/scope.ts's `acrossWorkspaces`. Not for prepared lists.
 */
export interface CallerScope<T> {
  readonly table: T
  /** The caller's rows, and the conditions. */
  whereFor(ctx: AuthedContext, ...conditions: (SQL | undefined)[]): SQL
}

export interface ListDefinition<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R> {
  /** The caller's workspace's live rows (`scope.where`), or a `CallerScope`. */
  scope: WorkspaceScoped<T> | CallerScope<T>
  /** Which of the workspace's rows the caller may see at all (their own notifications); all when absent. */
  visibleTo?: (ctx: AuthedContext, query: Q) => SQL | undefined
  /** The rows' columns, when not the table's own (default `select * from table`). */
  select?: (db: Db, where: SQL) => RowsQuery<R>
  /** The total's query, when the rows need a join to be judged (default `count(*)` over the table). */
  count?: (db: Db, where: SQL, query: Q) => Promise<{ total: number }[]>
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
  /**
   * Prepare the page and the total per shape (see the top of this file); `max`: shapes kept per
   * connection (default 64); `bind`: converts a filter's value to what SQLite binds (a boolean to 1/0).
   */
  prepared?: { max?: number; bind?: { [K in Exclude<keyof Q, keyof ListQueryBase<S>>]?: (value: NonNullable<Q[K]>) => string | number } }
}

/** One prepared shape of a list: how rows are ordered, how the keyword is found, which filters apply. */
interface PreparedShape<S extends string = string> {
  /** Absent: the list's default order (`orderFor`). */
  sortBy?: S
  sortOrder: 'asc' | 'desc'
  rows: KeywordMethod | 'none'
  total: KeywordMethod | 'none'
  /** The filters present, in their declared order (`updated_since` last). */
  filters: string[]
}

/** Declares a list (see the top of this file); the returned function answers one page of it. */
export function defineList<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R = Row<T>>(def: ListDefinition<T, S, Q, R>) {
  const { scope } = def
  const plain: SQLiteTable = scope.table
  const updatedColumns = checkedUpdatedColumns(def)
  const select = def.select ?? ((db: Db, where: SQL) => db.select().from(plain).where(where) as unknown as RowsQuery<R>)
  const filterEntries = Object.entries(def.filters ?? {}) as [string, (value: unknown, ctx?: AuthedContext) => SQL | undefined][]
  const total = (db: Db, where: SQL, query?: Q) => (def.count ? def.count(db, where, query as Q) : db.select({ total: count() }).from(plain).where(where))
  const order = (sortBy: S | undefined, sortOrder: 'asc' | 'desc' | undefined) =>
    orderFor({ sort_by: sortBy, sort_order: sortOrder }, def.sort, def.tieBreaker ?? scope.table.id, def.defaultSort)
  const statements = def.prepared
    ? preparedStatements({ scope: scope as WorkspaceScoped<T>, search: def.search, filterEntries, updatedColumns, select, total, order, max: def.prepared.max })
    : null

  /** 3. Filters present (not undefined, null or ''), in their declared order (a stable statement shape). */
  const presentFilters = (query: Q) =>
    filterEntries.filter(([key]) => {
      const value: unknown = query[key as keyof Q]
      return value !== undefined && value !== null && value !== ''
    })

  /** 1. Scope, around everything else: the list's whole condition with values inline, the keyword found by `method`. */
  function whereOf(ctx: AuthedContext, query: Q, method: KeywordMethod | 'none' = 'scan'): SQL {
    const keyword = def.search ? keywordOf(query) : null
    const since = updatedSinceOf(query)
    const filters: (SQL | undefined)[] = [def.visibleTo?.(ctx, query)]
    for (const [key, condition] of presentFilters(query)) filters.push(condition(query[key as keyof Q], ctx))
    if (since !== null) filters.push(updatedSinceAt(since, ...updatedColumns))
    const found = keyword === null ? undefined : keywordCondition(def.search, method, keyword, ftsPhrase(keyword), query.keyword?.trim() ?? '')
    return 'whereFor' in scope ? scope.whereFor(ctx, found, ...filters) : scope.where(ctx.actor.workspaceId, found, ...filters)
  }

  async function list(ctx: AuthedContext, query: Q, db: Db = ctx.deps.db.read): Promise<Page<R>> {
    const page = paging(query, def.limits)
    const keyword = def.search ? keywordOf(query) : null
    const typed = query.keyword?.trim() ?? ''
    const methods = await keywordPlan(def.search, db, keyword)
    const present = presentFilters(query)
    const since = updatedSinceOf(query)

    if (statements) {
      const shape = preparedShape(query, def.defaultSort, methods, present, since)
      const values = preparedValues(def.prepared?.bind ?? {}, query, present, { workspace_id: ctx.actor.workspaceId, keyword, typed, since, page })
      const prepared = statements(db, shape)
      const [rows, totals] = await Promise.all([prepared.rows.all(values), prepared.total.all(values)])
      return { rows: rows as R[], meta: pageMeta(page, (totals as { total: number }[])[0]?.total ?? 0) }
    }

    // 4. Sort, 5. Page: the rows and the total of the same conditions, read together.
    const [rows, [counted]] = await Promise.all([
      select(db, whereOf(ctx, query, methods.rows))
        .orderBy(...order(query.sort_by, query.sort_order))
        .limit(page.limit)
        .offset(page.offset),
      total(db, whereOf(ctx, query, methods.total), query),
    ])
    return { rows, meta: pageMeta(page, counted?.total ?? 0) }
  }

  /** `where`: the list's condition for this caller and query (keyword by scan), for reads of the same rows (a CSV export). */
  return Object.assign(list, { where: (ctx: AuthedContext, query: Q) => whereOf(ctx, query) })
}

type Search = ListDefinition<never, string, never, unknown>['search']

/** The columns `updated_since` compares; refuses a definition that cannot be answered. */
function checkedUpdatedColumns<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R>(def: ListDefinition<T, S, Q, R>): AnyColumn[] {
  const columns = def.updatedSince ?? (def.scope.table.updated_at ? [def.scope.table.updated_at] : [])
  if (columns.length === 0) throw new Error('a list needs the columns updated_since compares')
  if (def.prepared && (def.visibleTo || 'whereFor' in def.scope)) throw new Error('a prepared list cannot depend on the caller (visibleTo, a CallerScope)')
  return columns
}

/** A prepared list request's shape: its order, how the keyword is found, the filters present (`updated_since` last). */
function preparedShape<S extends string>(
  query: { sort_by?: S; sort_order?: 'asc' | 'desc' },
  defaults: { sort_by: S; sort_order: 'asc' | 'desc' } | undefined,
  methods: { rows: KeywordMethod | 'none'; total: KeywordMethod | 'none' },
  present: [string, unknown][],
  since: string | null,
): PreparedShape<S> {
  return {
    sortBy: query.sort_by ?? defaults?.sort_by,
    sortOrder: query.sort_order ?? defaults?.sort_order ?? 'desc',
    rows: methods.rows,
    total: methods.total,
    filters: [...present.map(([key]) => key), ...(since === null ? [] : ['updated_since'])],
  }
}

/** The values a prepared list's request binds: the workspace, the keyword's forms, the filters present (as `bind` converts them), the page. */
function preparedValues(
  bind: object,
  query: object,
  present: [string, unknown][],
  request: { workspace_id: number; keyword: string | null; typed: string; since: string | null; page: { limit: number; offset: number } },
): Record<string, unknown> {
  const { workspace_id, keyword, typed, since, page } = request
  const values: Record<string, unknown> = {
    workspace_id,
    keyword,
    phrase: keyword === null ? null : ftsPhrase(keyword),
    typed,
    updated_since: since,
    limit: page.limit,
    offset: page.offset,
  }
  const converters = bind as Record<string, ((value: unknown) => string | number) | undefined>
  for (const [key] of present) {
    const value: unknown = Reflect.get(query, key)
    const convert = converters[key]
    values[key] = convert ? convert(value) : value
  }
  return values
}

/** 2. Search: the keyword's condition (`scan`: the `instr` test; `index`: the index's candidates confirmed by it). */
function keywordCondition(
  search: Search,
  method: KeywordMethod | 'none',
  keyword: string | Placeholder,
  phrase: string | Placeholder,
  typed: string | Placeholder,
): SQL | undefined {
  if (method === 'none' || !search) return undefined
  const scan = or(...search.columns.map((column) => sql`instr(${notNull(column) ? column : sql`coalesce(${column}, '')`}, ${keyword}) > 0`))!
  const found = method === 'index' && search.index ? and(matchesIndex(search.index, phrase), scan)! : scan
  const exact = search.exact?.map((column) => eq(column, typed))
  return exact?.length ? or(found, ...exact) : found
}

/** How this keyword (folded) is found by the page and by the total (platform/data/search.ts). */
async function keywordPlan(search: Search, db: Db, keyword: string | null): Promise<{ rows: KeywordMethod | 'none'; total: KeywordMethod | 'none' }> {
  if (keyword === null || !search) return { rows: 'none', total: 'none' }
  return search.index ? planKeyword(db, search.index, keyword) : { rows: 'scan', total: 'scan' }
}

/** A prepared list's page and total per shape, with placeholders where a request binds its values. */
function preparedStatements<T extends ListTable, R, S extends string>(parts: {
  scope: WorkspaceScoped<T>
  search: Search
  filterEntries: [string, (value: unknown) => SQL | undefined][]
  updatedColumns: AnyColumn[]
  select: (db: Db, where: SQL) => RowsQuery<R>
  total: (db: Db, where: SQL) => unknown
  order: (sortBy: S | undefined, sortOrder: 'asc' | 'desc') => SQL[]
  max?: number
}) {
  const byName = new Map(parts.filterEntries)
  const placeholder = (name: string) => sql.placeholder(name)
  return preparedShapes(
    (db: Db, shape: PreparedShape<S>) => {
      const filters = shape.filters.map((name) =>
        name === 'updated_since' ? updatedSinceAt(placeholder(name), ...parts.updatedColumns) : byName.get(name)!(placeholder(name)),
      )
      const where = (method: KeywordMethod | 'none') =>
        parts.scope.where(
          placeholder('workspace_id'),
          keywordCondition(parts.search, method, placeholder('keyword'), placeholder('phrase'), placeholder('typed')),
          ...filters,
        )
      return {
        rows: parts
          .select(db, where(shape.rows))
          .orderBy(...parts.order(shape.sortBy, shape.sortOrder))
          .limit(placeholder('limit'))
          .offset(placeholder('offset'))
          .prepare(),
        total: (parts.total(db, where(shape.total)) as Preparable).prepare(),
      }
    },
    { max: parts.max ?? 64 },
  )
}

/** A column declared NOT NULL needs no `coalesce` before `instr`. */
const notNull = (column: AnyColumn | SQL) => 'notNull' in column && column.notNull === true
