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
 * const { rows, total } = await outletList.sqlOf(ctx, query) // a prepared list: its shape's SQL, for EXPLAIN QUERY PLAN
 * ```
 *
 * With `prepared`, a list on a hot path (docs/PERFORMANCE.md) builds its page and its total once per
 * shape and connection (whose rows, sort column and direction, how the keyword is found, which filters
 * are present: db/prepared.ts) and a request only binds its values. Its filters are then called once per
 * shape with the query parameter's placeholder (`sql.placeholder(name)`) in place of the value, so a
 * prepared list's filter must use its value only as a bound value (`eq(column, value)`), never look at
 * it or at `ctx`. What such a list needs beyond that is declared, not hand-built:
 *
 * - a filter that needs another filter's value (a date range that narrows the assignees' index too)
 *   reads it from its third argument, `bound.value(name)`: the value, or in a prepared statement its
 *   placeholder (undefined when that filter is absent, which is part of the shape);
 * - rows that depend on the caller (the phone's "assigned to me", a manager's team, a super_admin's
 *   workspaces) come from `CallerVariants` as the scope: the caller's variant is part of the shape, its
 *   values are bound;
 * - a value computed from the query and the caller (a local date → the UTC instant it starts at in the
 *   caller's time zone), or a value whose kind picks the condition (an inclusive or exclusive bound,
 *   `flagged=true`/`false`), is `derive`d before the filters see it, under its own filter's name.
 */
import { and, count, eq, or, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { preparedShapes } from '../../db/prepared'
import type { AuthedContext } from '../context'
import { keywordOf, type ListLimits, orderFor, type Page, pageMeta, paging, type SortTerms, updatedSinceAt, updatedSinceOf } from './pagination'
import type { Row, WorkspaceScoped } from './scope'
import { ftsPhrase, isIndexedKeyword, type KeywordMethod, matchesIndex, pageMethod, type SearchIndex } from './search'

type ListTable = Parameters<typeof import('./scope').workspaceScoped>[0] & { id: SQLiteColumn; updated_at?: SQLiteColumn }

/** A query a prepared list keeps: `all` binds the request's values. */
type Preparable = { prepare(): { all(values?: Record<string, unknown>): unknown; getQuery(): { sql: string } } }
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

/**
 * What a filter (or a caller's variant) reads of the request besides its own value: the workspace, and
 * the other filters' values and the variant's, each the value itself, or in a prepared statement its
 * placeholder; undefined for a filter that is absent.
 */
export interface Bound {
  readonly workspace: number | Placeholder
  value<V extends string | number>(name: string): V | Placeholder | undefined
}

/** A caller's variant of a list: its key (part of a prepared statement's shape) and the values it binds. */
export interface Variant {
  key: string
  values: Record<string, string | number>
}

/**
 * Whose rows a list answers when that depends on the caller, for prepared lists too: `variantOf` names
 * the caller's variant (the phone's own visits: `mine`, with the caller's id), `where` gives the
 * variant's rows and the other conditions, reading its values and the filters' through `bound`.
 */
export interface CallerVariants<T, Q> {
  readonly table: T
  variantOf(ctx: AuthedContext, query: Q): Variant
  where(key: string, bound: Bound, ...conditions: (SQL | undefined)[]): SQL
}

/** A filter's condition from its value (or placeholder), the caller (not when prepared) and the request's other values. */
type Filter<V> = (value: V, ctx: AuthedContext, bound: Bound) => SQL | undefined

export interface ListDefinition<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R> {
  /** The caller's workspace's live rows (`scope.where`), a `CallerScope`, or `CallerVariants`. */
  scope: WorkspaceScoped<T> | CallerScope<T> | CallerVariants<T, Q>
  /**
   * Values the filters read that are computed from the query and the caller (a local date's instant in
   * the caller's time zone; one filter per kind of value); they replace the query's values of the same
   * names, so return every name, undefined when absent. May throw a validation error.
   */
  derive?: (ctx: AuthedContext, query: Q) => Partial<Q>
  /** Which of the workspace's rows the caller may see at all (their own notifications); all when absent. */
  visibleTo?: (ctx: AuthedContext, query: Q) => SQL | undefined
  /** The rows' columns, when not the table's own (default `select * from table`). */
  select?: (db: Db, where: SQL) => RowsQuery<R>
  /**
   * The total's query, when the rows need a join to be judged (default `count(*)` over the table); a
   * prepared list's is called once per shape, with the present filters' and keyword's placeholders as `query`.
   */
  count?: (db: Db, where: SQL, query: Q) => Promise<{ total: number }[]>
  /**
   * Folded text columns (or expressions) the keyword is looked for in; `index`: the table's FTS index;
   * `exact`: columns that match the keyword as typed (trimmed, not folded), e.g. a barcode; with
   * `exactFolded`, as folded.
   */
  search?: { columns: (AnyColumn | SQL)[]; index?: SearchIndex; exact?: AnyColumn[]; exactFolded?: boolean }
  /** A condition per query parameter, applied when the parameter is present. */
  filters?: { [K in Exclude<keyof Q, keyof ListQueryBase<S>>]?: Filter<NonNullable<Q[K]>> }
  sort: Record<S, AnyColumn | SQL | SortTerms>
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
  /** The caller's variant (`CallerVariants`); '' for a workspace's rows. */
  variant: string
  /** Absent: the list's default order (`orderFor`). */
  sortBy?: S
  sortOrder: 'asc' | 'desc'
  rows: KeywordMethod | 'none'
  total: KeywordMethod | 'none'
  /** The filters present, in their declared order (`updated_since` last). */
  filters: string[]
}

/** The filters' functions by name, in their declared order. */
type FilterEntries = [string, Filter<unknown>][]
type Search = ListDefinition<never, string, never, unknown>['search']
type Methods = { rows: KeywordMethod | 'none'; total: KeywordMethod | 'none' }

/** What `conditionOf` builds a list's condition from: the list's parts, and one request's (or shape's) values. */
interface ConditionParts<T extends ListTable> {
  scope: WorkspaceScoped<T> | CallerScope<T> | CallerVariants<T, never>
  search: Search
  byName: Map<string, Filter<unknown>>
  updatedColumns: AnyColumn[]
}
interface RequestParts {
  ctx?: AuthedContext
  variant: string
  bound: Bound
  /** The filters present, in their declared order (`updated_since` last). */
  present: string[]
  visible?: SQL
  method: KeywordMethod | 'none'
  /** The keyword folded, its FTS phrase, and as typed (trimmed). */
  keyword: [string | Placeholder, string | Placeholder, string | Placeholder]
}

/** What a list's condition is built from (`conditionOf`). */
function conditionParts<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R>(
  def: ListDefinition<T, S, Q, R>,
  filterEntries: FilterEntries,
): ConditionParts<T> {
  return { scope: def.scope as ConditionParts<T>['scope'], search: def.search, byName: new Map(filterEntries), updatedColumns: checkedUpdatedColumns(def) }
}

/** 1.–3. The list's whole condition: scope (or the caller's variant) around the keyword and the filters present. */
function conditionOf<T extends ListTable>(list: ConditionParts<T>, request: RequestParts): SQL {
  const { bound, ctx } = request
  const filters: (SQL | undefined)[] = [request.visible]
  for (const name of request.present) {
    const value = bound.value(name) as string | Placeholder
    filters.push(name === 'updated_since' ? updatedSinceAt(value, ...list.updatedColumns) : list.byName.get(name)!(value, ctx as AuthedContext, bound))
  }
  const found = keywordCondition(list.search, request.method, ...request.keyword)
  const { scope } = list
  if ('whereFor' in scope) return scope.whereFor(ctx!, found, ...filters)
  if ('variantOf' in scope) return scope.where(request.variant, bound, found, ...filters)
  return scope.where(bound.workspace, found, ...filters)
}

/** Declares a list (see the top of this file); the returned function answers one page of it. */
export function defineList<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R = Row<T>>(def: ListDefinition<T, S, Q, R>) {
  const plain: SQLiteTable = def.scope.table
  const filterEntries = Object.entries(def.filters ?? {}) as FilterEntries
  const names = filterEntries.map(([name]) => name)
  const parts = conditionParts(def, filterEntries)
  const select = def.select ?? ((db: Db, where: SQL) => db.select().from(plain).where(where) as unknown as RowsQuery<R>)
  const total = (db: Db, where: SQL, query?: Q) => (def.count ? def.count(db, where, query as Q) : db.select({ total: count() }).from(plain).where(where))
  const order = (sortBy: S | undefined, sortOrder: 'asc' | 'desc' | undefined) =>
    orderFor({ sort_by: sortBy, sort_order: sortOrder }, def.sort, def.tieBreaker ?? def.scope.table.id, def.defaultSort)
  const statements = def.prepared ? preparedStatements({ parts, select, total, order, max: def.prepared.max }) : null

  /** The list's condition with values inline, the keyword found by `method`. */
  function whereOf(ctx: AuthedContext, query: Q, method: KeywordMethod | 'none' = 'scan'): SQL {
    const { request, present, variant, values, keyword, typed } = requestOf(def, names, ctx, query)
    const bound: Bound = { workspace: ctx.actor.workspaceId, value: <V>(name: string) => values[name] as V | undefined }
    const forms: RequestParts['keyword'] = [keyword ?? '', keyword === null ? '' : ftsPhrase(keyword), typed]
    const visible = def.visibleTo?.(ctx, request)
    return conditionOf(parts, { ctx, variant: variant.key, bound, present, visible, method: keyword === null ? 'none' : method, keyword: forms })
  }

  /**
   * A prepared list's statements of this request's shape, and the values the request binds. A keyword
   * the index answers is counted first, by index: that total (the caller's rows, filters included)
   * decides how the page is found (platform/data/search.ts), so the count is read once and `total` is
   * returned with the statements; otherwise `total` is null and the shape's total statement reads it.
   */
  async function preparedOf(ctx: AuthedContext, query: Q, db: Db) {
    const page = paging(query, def.limits)
    const { present, variant, values, keyword, typed } = requestOf(def, names, ctx, query)
    const bind = preparedValues(def.prepared?.bind ?? {}, values, { workspace_id: ctx.actor.workspaceId, keyword, typed, page })
    const method = keywordMethod(def.search, keyword)
    const shapeOf = (rows: KeywordMethod | 'none') => preparedShape(query, def.defaultSort, variant.key, { rows, total: method }, present)
    if (method !== 'index') return { prepared: statements!(db, shapeOf(method)), bind, page, total: null }
    const counted = statements!(db, shapeOf('index'))
    const total = ((await counted.total.all(bind)) as { total: number }[])[0]?.total ?? 0
    return { prepared: pageMethod(total) === 'index' ? counted : statements!(db, shapeOf('scan')), bind, page, total }
  }

  async function list(ctx: AuthedContext, query: Q, db: Db = ctx.deps.db.read): Promise<Page<R>> {
    if (statements) {
      const { prepared, bind, page, total } = await preparedOf(ctx, query, db)
      if (total !== null) return { rows: (await prepared.rows.all(bind)) as R[], meta: pageMeta(page, total) }
      const [rows, totals] = await Promise.all([prepared.rows.all(bind), prepared.total.all(bind)])
      return { rows: rows as R[], meta: pageMeta(page, (totals as { total: number }[])[0]?.total ?? 0) }
    }
    const page = paging(query, def.limits)
    const { request, keyword } = requestOf(def, names, ctx, query)
    const method = keywordMethod(def.search, keyword)
    // 5. The total first: by index, it decides how the page is found (as in `preparedOf`).
    const [counted] = await total(db, whereOf(ctx, query, method), request)
    const rowsMethod = method === 'index' ? pageMethod(counted?.total ?? 0) : method
    // 4. Sort, 5. Page.
    const rows = await select(db, whereOf(ctx, query, rowsMethod))
      .orderBy(...order(query.sort_by, query.sort_order))
      .limit(page.limit)
      .offset(page.offset)
    return { rows, meta: pageMeta(page, counted?.total ?? 0) }
  }

  /** A prepared list's SQL for this request: its page's and its total's (for `EXPLAIN QUERY PLAN`: tests/list-plans.test.ts). */
  async function sqlOf(ctx: AuthedContext, query: Q, db: Db = ctx.deps.db.read): Promise<{ rows: string; total: string }> {
    if (!statements) throw new Error('only a prepared list has statements of its own')
    const { prepared } = await preparedOf(ctx, query, db)
    return { rows: prepared.rows.getQuery().sql, total: prepared.total.getQuery().sql }
  }

  /** `where`: the list's condition for this caller and query (keyword by scan), for reads of the same rows (a CSV export). */
  return Object.assign(list, { where: (ctx: AuthedContext, query: Q) => whereOf(ctx, query), sqlOf })
}

const absent = (value: unknown) => value === undefined || value === null || value === ''

/** The request as the filters see it: the query, the values `derive` computes, the caller's variant, the filters present. */
function requestOf<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R>(
  def: ListDefinition<T, S, Q, R>,
  names: string[],
  ctx: AuthedContext,
  query: Q,
) {
  const request = def.derive ? { ...query, ...def.derive(ctx, query) } : query
  const since = updatedSinceOf(request)
  // 3. Filters present (not undefined, null or ''), in their declared order (a stable statement shape).
  const present = names.filter((key) => !absent(request[key as keyof Q]))
  if (since !== null) present.push('updated_since')
  const variant = 'variantOf' in def.scope ? def.scope.variantOf(ctx, request) : { key: '', values: {} }
  const values: Record<string, unknown> = { ...variant.values, updated_since: since }
  for (const key of present) if (key !== 'updated_since') values[key] = request[key as keyof Q]
  const keyword = def.search ? keywordOf(request) : null
  return { request, present, variant, values, keyword, typed: request.keyword?.trim() ?? '' }
}

/** A prepared list request's shape: whose rows, its order, how the keyword is found, the filters present (`updated_since` last). */
function preparedShape<S extends string>(
  query: { sort_by?: S; sort_order?: 'asc' | 'desc' },
  defaults: { sort_by: S; sort_order: 'asc' | 'desc' } | undefined,
  variant: string,
  methods: Methods,
  present: string[],
): PreparedShape<S> {
  return { variant, sortBy: query.sort_by ?? defaults?.sort_by, sortOrder: query.sort_order ?? defaults?.sort_order ?? 'desc', ...methods, filters: present }
}

/** The columns `updated_since` compares; refuses a definition that cannot be answered. */
function checkedUpdatedColumns<T extends ListTable, S extends string, Q extends ListQueryBase<S>, R>(def: ListDefinition<T, S, Q, R>): AnyColumn[] {
  const columns = def.updatedSince ?? (def.scope.table.updated_at ? [def.scope.table.updated_at] : [])
  if (columns.length === 0) throw new Error('a list needs the columns updated_since compares')
  if (def.prepared && (def.visibleTo || 'whereFor' in def.scope)) throw new Error('a prepared list cannot depend on the caller but through CallerVariants')
  return columns
}

/** The values a prepared list's request binds: the workspace, the keyword's forms, the filters present (as `bind` converts them) and the variant's, the page. */
function preparedValues(
  bind: object,
  values: Record<string, unknown>,
  request: { workspace_id: number; keyword: string | null; typed: string; page: { limit: number; offset: number } },
): Record<string, unknown> {
  const { workspace_id, keyword, typed, page } = request
  const bound: Record<string, unknown> = {
    ...values,
    workspace_id,
    keyword,
    phrase: keyword === null ? null : ftsPhrase(keyword),
    typed,
    limit: page.limit,
    offset: page.offset,
  }
  for (const [key, convert] of Object.entries(bind) as [string, (value: unknown) => string | number][]) {
    if (!absent(bound[key])) bound[key] = convert(bound[key])
  }
  return bound
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
  const exact = search.exact?.map((column) => eq(column, search.exactFolded ? keyword : typed))
  return exact?.length ? or(found, ...exact) : found
}

/** How this keyword (folded) is found by the total, and by the page before the total is known (platform/data/search.ts). */
function keywordMethod(search: Search, keyword: string | null): KeywordMethod | 'none' {
  if (keyword === null || !search) return 'none'
  return search.index && isIndexedKeyword(keyword) ? 'index' : 'scan'
}

/** A prepared list's page and total per shape, with placeholders where a request binds its values. */
function preparedStatements<T extends ListTable, R, S extends string>(list: {
  parts: ConditionParts<T>
  select: (db: Db, where: SQL) => RowsQuery<R>
  total: (db: Db, where: SQL, query: never) => unknown
  order: (sortBy: S | undefined, sortOrder: 'asc' | 'desc') => SQL[]
  max?: number
}) {
  const placeholder = (name: string) => sql.placeholder(name)
  const keyword: RequestParts['keyword'] = [placeholder('keyword'), placeholder('phrase'), placeholder('typed')]
  return preparedShapes(
    (db: Db, shape: PreparedShape<S>) => {
      // A declared filter is bound only when present; any other name is the variant's value.
      const value = <V>(name: string) => (list.parts.byName.has(name) && !shape.filters.includes(name) ? undefined : (placeholder(name) as V | Placeholder))
      const bound: Bound = { workspace: placeholder('workspace_id'), value }
      const where = (method: KeywordMethod | 'none') => conditionOf(list.parts, { variant: shape.variant, bound, present: shape.filters, method, keyword })
      // What a prepared `count` sees of the request: the present filters' and the keyword's placeholders.
      const present = Object.fromEntries([...shape.filters, ...(shape.total === 'none' ? [] : ['keyword'])].map((name) => [name, placeholder(name)]))
      return {
        rows: list
          .select(db, where(shape.rows))
          .orderBy(...list.order(shape.sortBy, shape.sortOrder))
          .limit(placeholder('limit'))
          .offset(placeholder('offset'))
          .prepare(),
        total: (list.total(db, where(shape.total), present as never) as Preparable).prepare(),
      }
    },
    { max: list.max ?? 64 },
  )
}

/** A column declared NOT NULL needs no `coalesce` before `instr`. */
const notNull = (column: AnyColumn | SQL) => 'notNull' in column && column.notNull === true
