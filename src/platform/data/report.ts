/**
 * One report idiom. A report is a page of computed rows, one per subject (a field user's day), declared
 * once with `defineReport` and answered by the function it returns; each step happens here, in order:
 *
 * 1. Subjects: `subjects` reads one page of the report's subjects, in the report's fixed order, and
 *    their total, the two read together. Each read is the caller's workspace's (platform/data/scope.ts)
 *    and, on a hot path, a statement prepared once (db/prepared.ts `prepared`): optional filters are
 *    bound as null when absent (`? is null or …`), so the report has one statement, not one per shape.
 * 2. Period: a report over a local day of the caller's workspace (`day`) gets that day's UTC bounds
 *    (lib/time-zones.ts `localDayRange`), the same for every read of the request.
 * 3. Rows: `rows` computes the page's rows from its subjects in a fixed number of reads whatever the
 *    page's size (one grouped query per source, never one per subject); never called for an empty page.
 * 4. Page: `page`/`limit` with the report's limits (a larger `limit` is clamped) and a list's meta.
 *
 * A report is not a list (platform/data/list.ts, `defineList`): it takes no keyword, sort or
 * `updated_since`, its order is its own, and its rows are computed rather than read.
 *
 * ```ts
 * export const fieldDayReport = defineReport({
 *   limits: DEFAULT_LIST,
 *   day: (query: FieldDayQuery) => query.date,
 *   subjects: (request) => [fieldUsersPage(request), fieldUsersTotal(request)],
 *   rows: (request, people) => rowsOf(request, people),
 * })
 * const page = await fieldDayReport(ctx, query) // Page<FieldDayRow>
 * ```
 */
import type { Db } from '../../db/client'
import { localDayRange } from '../../lib/time-zones'
import type { AuthedContext } from '../context'
import { type ListLimits, type Page, type Paging, pageMeta, paging } from './pagination'

/** What each step of a report reads: the caller, the query, the read connection, the page, the local day's bounds. */
export interface ReportRequest<Q> {
  ctx: AuthedContext
  query: Q
  db: Db
  page: Paging
  /** The local day's UTC bounds [from, until) when the report declares `day`. */
  range: { from: string; until: string } | null
}

export interface ReportDefinition<Q, S, R> {
  limits: ListLimits
  /** The local day (YYYY-MM-DD of the caller's workspace's time zone) the report covers, if it covers one. */
  day?: (query: Q) => string
  /** One page of subjects, in the report's order, and the total: two reads started together. */
  subjects: (request: ReportRequest<Q>) => [S[] | Promise<S[]>, number | Promise<number>]
  /** The page's rows from its subjects, in their order. */
  rows: (request: ReportRequest<Q>, subjects: S[]) => Promise<R[]>
}

/** Declares a report (see the top of this file); the returned function answers one page of it. */
export function defineReport<Q extends { page?: number; limit?: number }, S, R>(def: ReportDefinition<Q, S, R>) {
  return async function report(ctx: AuthedContext, query: Q, db: Db = ctx.deps.db.read): Promise<Page<R>> {
    const page = paging(query, def.limits)
    const range = def.day ? localDayRange(def.day(query), ctx.actor.timeZone) : null
    const request: ReportRequest<Q> = { ctx, query, db, page, range }
    const [subjects, total] = await Promise.all(def.subjects(request))
    if (subjects.length === 0) return { rows: [], meta: pageMeta(page, total) }
    return { rows: await def.rows(request, subjects), meta: pageMeta(page, total) }
  }
}
