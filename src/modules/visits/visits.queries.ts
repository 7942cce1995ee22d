/**
 * Reading visits and submissions, and the shapes they are answered in (docs/API.md §Visits).
 *
 * Who sees which visit: office readers (visit:view on web) see every visit of the workspace; on the
 * phone a user sees only the visits they are assigned to (`VisitAccess.mine`). Any other id is a
 * 404 VISIT_NOT_FOUND, exactly like a missing one.
 */
import { and, asc, count, eq, gte, isNull, lte, sql, type Placeholder, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { outlets, projects, submissions, teams, users, visitAssignees, visitLogs, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { NotFound } from '../../lib/errors'
import { locationOf } from '../../lib/geo'
import { visitFlagNames } from './visits.integrity'
import { DEFAULT_LIST, type Page, type SortTerms } from '../../platform/data/pagination'
import { workspaceScoped } from '../../platform/data/scope'
import { type CallerVariants, defineList, type Variant } from '../../platform/data/list'
import { prepared, preparedEach } from '../../db/prepared'
import type { SubmissionListQuery, VisitListQuery } from './visits.schemas'

export type { SubmissionListQuery } from './visits.schemas'

export const visitScope = workspaceScoped(visits)
export const submissionScope = workspaceScoped(submissions)
/** Who a visit is assigned to, with the visit's date (no soft delete: unassigning deletes the row). */
export const visitAssigneeScope = workspaceScoped(visitAssignees)

/** `mine`: only visits assigned to the caller (the phone). */
export interface VisitAccess {
  mine: boolean
}
/** The statements of one visit (or of ids) per access: the caller's own, or all of the workspace. */
const ACCESS = ['mine', 'all'] as const

/**
 * The visit has `userId` among its assignees: one primary-key probe per visit, for conditions on a
 * visit already narrowed down (by id, by status), where it costs microseconds.
 */
export const assignedTo = (userId: number | Placeholder) =>
  sql`exists (select 1 from ${visitAssignees} where ${visitAssignees.visit_id} = ${visits.id} and ${visitAssignees.user_id} = ${userId})`

/**
 * The same condition for lists, where a field user may have thousands of visits: one range of the
 * assignees' (workspace, user, visit date) index instead of probing each of the day's visits for the
 * assignee. The assignee rows carry their visit's date (triggers of migration 0010).
 */
export function assignedWithin(workspaceId: number | Placeholder, userId: number | Placeholder, from?: string | Placeholder, to?: string | Placeholder): SQL {
  return sql`${visits.id} in (select ${visitAssignees.visit_id} from ${visitAssignees}
    where ${visitAssigneeScope.where(workspaceId, eq(visitAssignees.user_id, userId))}
      ${from !== undefined ? sql`and ${visitAssignees.visit_date} >= ${from}` : sql``} ${to !== undefined ? sql`and ${visitAssignees.visit_date} <= ${to}` : sql``})`
}

/** What a list item shows of a visit (presentListItem): a page reads and maps only these. */
const listColumns = {
  id: visits.id,
  status: visits.status,
  visit_date: visits.visit_date,
  outlet_id: visits.outlet_id,
  outlet_name: outlets.name,
  project_id: visits.project_id,
  project_name: projects.name,
  team_id: visits.team_id,
  team_name: teams.name,
  checked_in_at: visits.checked_in_at,
  checked_out_at: visits.checked_out_at,
  sent_to_field_at: visits.sent_to_field_at,
  flags: visits.flags,
  effective: visits.effective,
  route_sequence: visits.route_sequence,
  created_at: visits.created_at,
  updated_at: visits.updated_at,
}

/** What the detail shows of a visit: everything the list has, and the rest. */
const detailColumns = {
  ...listColumns,
  workspace_id: visits.workspace_id,
  outlet_address: outlets.address,
  notes: visits.notes,
  check_in_latitude: visits.check_in_latitude,
  check_in_longitude: visits.check_in_longitude,
  check_in_photo_url: visits.check_in_photo_url,
  check_in_distance_m: visits.check_in_distance_m,
  check_out_latitude: visits.check_out_latitude,
  check_out_longitude: visits.check_out_longitude,
  check_out_photo_url: visits.check_out_photo_url,
  check_out_distance_m: visits.check_out_distance_m,
  close_reason: visits.close_reason,
  source: visits.source,
  journey_plan_id: visits.journey_plan_id,
  route_sequence: visits.route_sequence,
  created_by: visits.created_by,
}

/** A visit's outlet, project and (optional) team, joined for their names. */
const OUTLET_OF_VISIT = eq(outlets.id, visits.outlet_id)
const PROJECT_OF_VISIT = eq(projects.id, visits.project_id)
const TEAM_OF_VISIT = eq(teams.id, visits.team_id)

function selectVisits(db: Db, where: SQL) {
  return db
    .select(listColumns)
    .from(visits)
    .innerJoin(outlets, OUTLET_OF_VISIT)
    .innerJoin(projects, PROJECT_OF_VISIT)
    .leftJoin(teams, TEAM_OF_VISIT)
    .where(where)
}
type VisitRow = Awaited<ReturnType<typeof selectVisits>>[number]

function selectVisitDetails(db: Db, where: SQL) {
  return db
    .select(detailColumns)
    .from(visits)
    .innerJoin(outlets, OUTLET_OF_VISIT)
    .innerJoin(projects, PROJECT_OF_VISIT)
    .leftJoin(teams, TEAM_OF_VISIT)
    .where(where)
}

/** Assignees of a page of visits (or of one): one statement for any number of ids, prepared once. */
const assigneesOfIds = prepared((db) =>
  db
    .select({ visit_id: visitAssignees.visit_id, user_id: users.id, name: users.name, email: users.email })
    .from(visitAssignees)
    .innerJoin(users, eq(users.id, visitAssignees.user_id))
    .where(sql`${visitAssignees.visit_id} in (select value from json_each(${sql.placeholder('ids')}))`)
    .orderBy(visitAssignees.created_at, users.id)
    .prepare(),
)

async function assigneesOf(db: Db, visitIds: number[]) {
  if (visitIds.length === 0) return []
  return assigneesOfIds(db).all({ ids: JSON.stringify(visitIds) })
}

/** Submission totals of a page of visits: one statement for any number of ids, prepared once. */
const submissionCountsOfIds = prepared((db) =>
  db
    .select({
      visit_id: submissions.visit_id,
      total: count(),
      completed: sql<number>`sum(case when ${submissions.status} = 'completed' then 1 else 0 end)`,
    })
    .from(submissions)
    .where(and(sql`${submissions.visit_id} in (select value from json_each(${sql.placeholder('ids')}))`, isNull(submissions.deleted_at)))
    .groupBy(submissions.visit_id)
    .prepare(),
)

async function submissionCounts(db: Db, visitIds: number[]) {
  if (visitIds.length === 0) return []
  return submissionCountsOfIds(db).all({ ids: JSON.stringify(visitIds) })
}

function presentListItem(row: VisitRow, assignees: Awaited<ReturnType<typeof assigneesOf>>, counts: Awaited<ReturnType<typeof submissionCounts>>) {
  const summary = counts.find((entry) => entry.visit_id === row.id)
  return {
    id: row.id,
    outlet: { id: row.outlet_id, name: row.outlet_name },
    project: { id: row.project_id, name: row.project_name },
    team: row.team_id === null ? null : { id: row.team_id, name: row.team_name ?? '' },
    status: row.status,
    visit_date: row.visit_date,
    checked_in_at: row.checked_in_at,
    checked_out_at: row.checked_out_at,
    assignees: assignees.filter((a) => a.visit_id === row.id).map(({ user_id, name }) => ({ user_id, name })),
    submissions_total: summary?.total ?? 0,
    submissions_completed: Number(summary?.completed ?? 0),
    sent_to_field_at: row.sent_to_field_at,
    flags: visitFlagNames(row.flags),
    effective: row.effective,
    route_sequence: row.route_sequence,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
export type VisitListItem = ReturnType<typeof presentListItem>

/** A visit list request: the query, whose visits (`access`), and `flagged=false` as its own filter (derived). */
type VisitListRequest = VisitListQuery & { access: VisitAccess; unflagged?: true; ineffective?: true }

export const VISIT_SORT = {
  visit_date: visits.visit_date,
  created_at: visits.created_at,
  updated_at: visits.updated_at,
  id: visits.id,
  // The day's route (docs/API.md §Journey plans, "The day route"): the days in the list's direction, each
  // day's visits by `route_sequence` (unset last), first stop first.
  route: ((direction) => [direction(visits.visit_date), sql`${visits.route_sequence} is null`, asc(visits.route_sequence)]) satisfies SortTerms,
}

/** The visits (office: the workspace's; phone: the caller's own) between the request's optional dates. */
const visitsOfCaller: CallerVariants<typeof visits, VisitListRequest> = {
  table: visits,
  variantOf: (ctx, { access }): Variant => (access.mine ? { key: 'mine', values: { caller: ctx.actor.userId } } : { key: 'all', values: {} }),
  where: (key, bound, ...conditions) =>
    visitScope.where(
      bound.workspace,
      key === 'mine' ? assignedWithin(bound.workspace, bound.value<number>('caller')!, bound.value('date_from'), bound.value('date_to')) : undefined,
      ...conditions,
    ),
}

/**
 * The visit lists (office, my visits; their condition is also the CSV export's, `visitFilters`): page
 * and count prepared once per shape (building and preparing them per request dominated the list's CPU time).
 */
export const visitList = defineList({
  scope: visitsOfCaller,
  // `flagged=true` / `flagged=false`: two filters without a bound value, so each is its own statement shape.
  derive: (_, query: VisitListRequest) => ({
    flagged: query.flagged === true ? true : undefined,
    unflagged: query.flagged === false ? (true as const) : undefined,
    effective: query.effective === true ? true : undefined,
    ineffective: query.effective === false ? (true as const) : undefined,
  }),
  select: (db: Db, where: SQL) => selectVisits(db, where),
  // The outlet is joined for counting only when the keyword (outlet name/code) needs it.
  count: (db: Db, where: SQL, request: VisitListRequest) =>
    request.keyword
      ? db.select({ total: count() }).from(visits).innerJoin(outlets, eq(outlets.id, visits.outlet_id)).where(where)
      : db.select({ total: count() }).from(visits).where(where),
  search: { columns: [outlets.name_key, outlets.code_key] },
  filters: {
    status: (status: NonNullable<VisitListQuery['status']>) => eq(visits.status, status),
    outlet_id: (id: number) => eq(visits.outlet_id, id),
    project_id: (id: number) => eq(visits.project_id, id),
    team_id: (id: number) => eq(visits.team_id, id),
    user_id: (id: number, _, bound) => assignedWithin(bound.workspace, id, bound.value('date_from'), bound.value('date_to')),
    date_from: (date: string) => gte(visits.visit_date, date),
    date_to: (date: string) => lte(visits.visit_date, date),
    // `!= 0` as the partial index (workspace, visit_date) where flags != 0 spells it.
    flagged: () => sql`${visits.flags} != 0`,
    unflagged: () => sql`${visits.flags} = 0`,
    // An effective call: kept by triggers on sales orders (drizzle/0023_effective_calls.sql).
    effective: () => eq(visits.effective, true),
    ineffective: () => eq(visits.effective, false),
  },
  sort: VISIT_SORT,
  defaultSort: { sort_by: 'visit_date', sort_order: 'desc' },
  limits: DEFAULT_LIST,
  prepared: {},
})

/** The filters shared by the office list, my visits and the CSV export (values inline). */
export function visitFilters(ctx: AuthedContext, query: VisitListQuery, access: VisitAccess): SQL {
  return visitList.where(ctx, { ...query, access })
}

export async function listVisits(ctx: AuthedContext, query: VisitListQuery, access: VisitAccess): Promise<Page<VisitListItem>> {
  const db = ctx.deps.db.read
  // The phone's own visits come in route order unless it asks for another (docs/API.md §Journey plans).
  const sorted = access.mine && query.sort_by === undefined ? { ...query, sort_by: 'route' as const } : query
  const { rows, meta } = await visitList(ctx, { ...sorted, access }, db)
  const ids = rows.map((row) => row.id)
  const [assignees, counts] = await Promise.all([assigneesOf(db, ids), submissionCounts(db, ids)])
  return { rows: rows.map((row) => presentListItem(row, assignees, counts)), meta }
}

/** One visit by id in the caller's workspace (and, on the phone, assigned to the caller). */
const oneVisit = (mine: 'mine' | 'all') =>
  visitScope.where(sql.placeholder('workspaceId'), eq(visits.id, sql.placeholder('id')), mine === 'mine' ? assignedTo(sql.placeholder('userId')) : undefined)
const oneVisitShape = (access: VisitAccess) => (access.mine ? 'mine' : 'all')
const oneVisitParams = (ctx: AuthedContext, id: number) => ({ workspaceId: ctx.actor.workspaceId, id, userId: ctx.actor.userId })

const visitRow = preparedEach(ACCESS, (db, mine) => db.select().from(visits).where(oneVisit(mine)).limit(1).prepare())

/** The visit row (for writes: status checks happen on this, inside the transaction). */
export async function findVisit(db: Db, ctx: AuthedContext, id: number, access: VisitAccess) {
  const [visit] = await visitRow(db, oneVisitShape(access)).all(oneVisitParams(ctx, id))
  if (!visit) throw new NotFound('VISIT')
  return visit
}

const submissionColumns = {
  id: submissions.id,
  visit_id: submissions.visit_id,
  form_id: submissions.form_id,
  title: submissions.title,
  status: submissions.status,
  approval_status: submissions.approval_status,
  is_required: submissions.is_required,
  order: submissions.order,
  answers: submissions.answers,
  rows: submissions.rows,
  submitted_at: submissions.submitted_at,
  submitted_by_id: submissions.submitted_by,
  submitted_by_name: sql<string | null>`(select ${users.name} from ${users} where ${users.id} = ${submissions.submitted_by})`,
  reviewed_at: submissions.reviewed_at,
  reviewed_by_id: submissions.reviewed_by,
  reviewed_by_name: sql<string | null>`(select ${users.name} from ${users} where ${users.id} = ${submissions.reviewed_by})`,
  approval_notes: submissions.approval_notes,
  created_at: submissions.created_at,
  updated_at: submissions.updated_at,
}

export function selectSubmissions(db: Db, where: SQL) {
  return db.select(submissionColumns).from(submissions).innerJoin(visits, eq(visits.id, submissions.visit_id)).where(where)
}
type SubmissionRow = Awaited<ReturnType<typeof selectSubmissions>>[number]

export function presentSubmission({ submitted_by_id, submitted_by_name, reviewed_by_id, reviewed_by_name, ...row }: SubmissionRow) {
  return {
    ...row,
    submitted_by: submitted_by_id === null ? null : { id: submitted_by_id, name: submitted_by_name ?? '' },
    reviewed_by: reviewed_by_id === null ? null : { id: reviewed_by_id, name: reviewed_by_name ?? '' },
  }
}
export type PresentedSubmission = ReturnType<typeof presentSubmission>

/** Live submissions of a visit, in form order. */
export async function submissionsOfVisit(db: Db, visitId: number) {
  return (await submissionsOfOne(db).all({ visitId })).map(presentSubmission)
}

// The detail's four statements, prepared once per connection (the detail is also what every
// transition answers, so it runs inside the writer's transactions too).
const detailRow = preparedEach(ACCESS, (db, mine) => selectVisitDetails(db, oneVisit(mine)).limit(1).prepare())
const submissionsOfOne = prepared((db) =>
  selectSubmissions(db, and(eq(submissions.visit_id, sql.placeholder('visitId')), isNull(submissions.deleted_at))!)
    .orderBy(submissions.order, submissions.id)
    .prepare(),
)
const logsOfOne = prepared((db) =>
  db
    .select()
    .from(visitLogs)
    .where(eq(visitLogs.visit_id, sql.placeholder('visitId')))
    .orderBy(visitLogs.created_at, visitLogs.id)
    .prepare(),
)

type DetailRow = Awaited<ReturnType<typeof selectVisitDetails>>[number]
type AssigneeRow = Awaited<ReturnType<typeof assigneesOf>>[number]

/** The full visit as detail, check-in and create answers show it. */
export async function visitDetail(db: Db, ctx: AuthedContext, id: number, access: VisitAccess) {
  const [row] = await detailRow(db, oneVisitShape(access)).all(oneVisitParams(ctx, id))
  if (!row) throw new NotFound('VISIT')
  const assignees = await assigneesOf(db, [id])
  const attached = (await submissionsOfOne(db).all({ visitId: id })).map(presentSubmission)
  const logs = await logsOfOne(db).all({ visitId: id })
  return presentDetail(row, assignees, attached, logs)
}

/** A visit as its GET route answers it (read connection). */
export const readVisit = (ctx: AuthedContext, id: number, access: VisitAccess) => visitDetail(ctx.deps.db.read, ctx, id, access)

/** Groups rows by their visit id, keeping their order. */
function byVisit<T extends { visit_id: number }>(rows: T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const row of rows) {
    const group = groups.get(row.visit_id)
    if (group) group.push(row)
    else groups.set(row.visit_id, [row])
  }
  return groups
}

const detailRowsOfIds = preparedEach(ACCESS, (db, mine) =>
  selectVisitDetails(
    db,
    visitScope.where(
      sql.placeholder('workspaceId'),
      sql`${visits.id} in (select value from json_each(${sql.placeholder('ids')}))`,
      mine === 'mine' ? assignedTo(sql.placeholder('userId')) : undefined,
    ),
  ).prepare(),
)
const submissionsOfIds = prepared((db) =>
  selectSubmissions(db, and(sql`${submissions.visit_id} in (select value from json_each(${sql.placeholder('ids')}))`, isNull(submissions.deleted_at))!)
    .orderBy(submissions.visit_id, submissions.order, submissions.id)
    .prepare(),
)
const logsOfIds = prepared((db) =>
  db
    .select()
    .from(visitLogs)
    .where(sql`${visitLogs.visit_id} in (select value from json_each(${sql.placeholder('ids')}))`)
    .orderBy(visitLogs.visit_id, visitLogs.created_at, visitLogs.id)
    .prepare(),
)

/**
 * Live visits of the workspace among `ids` as the detail answers them, four queries for any number
 * of ids (sync pages). With `assignee`, only the visits assigned to that user (the phone's view).
 */
export async function visitDetailsByIds(db: Db, workspaceId: number, ids: number[], assignee: number | null): Promise<VisitDetail[]> {
  if (ids.length === 0) return []
  const params = { workspaceId, ids: JSON.stringify(ids), userId: assignee ?? 0 }
  const rows = await detailRowsOfIds(db, assignee === null ? 'all' : 'mine').all(params)
  if (rows.length === 0) return []
  const found = JSON.stringify(rows.map((row) => row.id))
  const [assignees, attached, logs] = [
    byVisit(await assigneesOfIds(db).all({ ids: found })),
    byVisit((await submissionsOfIds(db).all({ ids: found })).map(presentSubmission)),
    byVisit(await logsOfIds(db).all({ ids: found })),
  ]
  return rows.map((row) => presentDetail(row, assignees.get(row.id) ?? [], attached.get(row.id) ?? [], logs.get(row.id) ?? []))
}

const submissionsOfIdsInWorkspace = preparedEach(ACCESS, (db, mine) =>
  selectSubmissions(
    db,
    submissionScope.where(
      sql.placeholder('workspaceId'),
      sql`${submissions.id} in (select value from json_each(${sql.placeholder('ids')}))`,
      mine === 'mine'
        ? sql`${submissions.visit_id} in (select ${visitAssignees.visit_id} from ${visitAssignees}
            where ${visitAssigneeScope.where(sql.placeholder('workspaceId'), eq(visitAssignees.user_id, sql.placeholder('userId')))})`
        : undefined,
    ),
  ).prepare(),
)

/** Live submissions of the workspace among `ids` as the detail answers them; with `assignee`, only those of their visits. */
export async function submissionsByIds(db: Db, workspaceId: number, ids: number[], assignee: number | null) {
  if (ids.length === 0) return []
  const rows = await submissionsOfIdsInWorkspace(db, assignee === null ? 'all' : 'mine').all({ workspaceId, ids: JSON.stringify(ids), userId: assignee ?? 0 })
  return rows.map(presentSubmission)
}

export function presentDetail(row: DetailRow, assignees: AssigneeRow[], attached: PresentedSubmission[], logs: (typeof visitLogs.$inferSelect)[]) {
  return {
    id: row.id,
    outlet: { id: row.outlet_id, name: row.outlet_name, address: row.outlet_address },
    project: { id: row.project_id, name: row.project_name },
    team: row.team_id === null ? null : { id: row.team_id, name: row.team_name ?? '' },
    status: row.status,
    visit_date: row.visit_date,
    notes: row.notes,
    checked_in_at: row.checked_in_at,
    check_in_location: locationOf(row.check_in_latitude, row.check_in_longitude),
    check_in_photo_url: row.check_in_photo_url,
    check_in_distance_m: row.check_in_distance_m,
    checked_out_at: row.checked_out_at,
    check_out_location: locationOf(row.check_out_latitude, row.check_out_longitude),
    check_out_photo_url: row.check_out_photo_url,
    check_out_distance_m: row.check_out_distance_m,
    flags: visitFlagNames(row.flags),
    effective: row.effective,
    close_reason: row.close_reason,
    sent_to_field_at: row.sent_to_field_at,
    assignees: assignees.map(({ user_id, name, email }) => ({ user_id, name, email })),
    submissions: attached,
    logs: logs.map((log) => ({ action: log.action, timestamp: log.created_at, notes: log.notes, user: { id: log.user_id, name: log.user_name } })),
    source: row.source,
    journey_plan_id: row.journey_plan_id,
    route_sequence: row.route_sequence,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
export type VisitDetail = ReturnType<typeof presentDetail>

/** The caller's visit in progress, or null. */
export async function activeVisit(ctx: AuthedContext) {
  const [row] = await ctx.deps.db.read
    .select({ id: visits.id })
    .from(visits)
    .where(visitScope.where(ctx.actor.workspaceId, eq(visits.status, 'in_progress'), assignedTo(ctx.actor.userId)))
    .orderBy(visits.checked_in_at)
    .limit(1)
  return row ? visitDetail(ctx.deps.db.read, ctx, row.id, { mine: true }) : null
}

/** Whether the filters need the visit row (the caller's own visits, team, project, outlet, dates). */
export const needsVisit = (query: SubmissionListQuery, access: VisitAccess) =>
  access.mine || query.team_id !== undefined || query.project_id !== undefined || query.outlet_id !== undefined || !!query.date_from || !!query.date_to

/** A submissions request: the query, and whose submissions (the caller's own visits, one visit). */
type SubmissionListRequest = SubmissionListQuery & { access: VisitAccess & { visitId?: number } }

/** The submissions list; its condition is also the CSV export's (`submissionFilters`). */
const submissionList = defineList({
  scope: submissionScope,
  visibleTo: (ctx: AuthedContext, { access }: SubmissionListRequest) =>
    and(
      access.mine
        ? sql`${submissions.visit_id} in (select ${visitAssignees.visit_id} from ${visitAssignees}
          where ${visitAssigneeScope.where(ctx.actor.workspaceId, eq(visitAssignees.user_id, ctx.actor.userId))})`
        : undefined,
      access.visitId !== undefined ? eq(submissions.visit_id, access.visitId) : undefined,
    ),
  select: (db: Db, where: SQL) => selectSubmissions(db, where),
  // The visit is joined for counting only when a filter needs it.
  count: (db: Db, where: SQL, request: SubmissionListRequest) =>
    needsVisit(request, request.access)
      ? db.select({ total: count() }).from(submissions).innerJoin(visits, eq(visits.id, submissions.visit_id)).where(where)
      : db.select({ total: count() }).from(submissions).where(where),
  filters: {
    visit_id: (id: number) => eq(submissions.visit_id, id),
    approval_status: (status: NonNullable<SubmissionListQuery['approval_status']>) => eq(submissions.approval_status, status),
    status: (status: NonNullable<SubmissionListQuery['status']>) => eq(submissions.status, status),
    team_id: (id: number) => eq(visits.team_id, id),
    project_id: (id: number) => eq(visits.project_id, id),
    outlet_id: (id: number) => eq(visits.outlet_id, id),
    form_id: (id: number) => eq(submissions.form_id, id),
    user_id: (id: number) => eq(submissions.submitted_by, id),
    date_from: (date: string) => gte(visits.visit_date, date),
    date_to: (date: string) => lte(visits.visit_date, date),
  },
  sort: { created_at: submissions.created_at, updated_at: submissions.updated_at, submitted_at: submissions.submitted_at, id: submissions.id },
  limits: DEFAULT_LIST,
})

export function submissionFilters(ctx: AuthedContext, query: SubmissionListQuery, access: VisitAccess & { visitId?: number }): SQL {
  return submissionList.where(ctx, { ...query, access })
}

export async function listSubmissions(
  ctx: AuthedContext,
  query: SubmissionListQuery,
  access: VisitAccess & { visitId?: number },
): Promise<Page<PresentedSubmission>> {
  if (access.visitId !== undefined) await findVisit(ctx.deps.db.read, ctx, access.visitId, access)
  const result = await submissionList(ctx, { ...query, access })
  return { rows: result.rows.map(presentSubmission), meta: result.meta }
}

export async function getSubmission(db: Db, ctx: AuthedContext, id: number, access: VisitAccess & { visitId?: number }) {
  if (access.visitId !== undefined) await findVisit(db, ctx, access.visitId, access)
  const [row] = await selectSubmissions(db, and(submissionFilters(ctx, {}, access), eq(submissions.id, id))!).limit(1)
  if (!row) throw new NotFound('SUBMISSION')
  return presentSubmission(row)
}

/** A submission as its GET routes answer it (read connection); with `visitId`, only one of that visit. */
export const readSubmission = (ctx: AuthedContext, id: number, access: VisitAccess & { visitId?: number }) => getSubmission(ctx.deps.db.read, ctx, id, access)
