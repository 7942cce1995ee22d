/**
 * The field-day report (docs/API.md §Field day report): one row per field user for a local day of the
 * workspace's time zone.
 *
 * Who has a row: live members whose role is `user` (field staff) and are active, plus any member,
 * whatever the role or active flag, assigned a visit dated that day (a manager who visits outlets
 * himself shows up on the days he does). Ordered by name, then id; paginated like other lists.
 *
 * Declared with `defineReport` (platform/data/report.ts). Three reads per page, whatever its size: the page of users (and its count), the visits of the day
 * aggregated per assignee in ONE grouped query, and the page's users' pings of the day in ONE query
 * ordered by user and device time (read as value arrays: see `selectValues`), summarised here with the route's own computation
 * (`summarizeTrack` of the pings that are not jumps), so `distance_m` is the route replay's.
 */
import { eq, sql } from 'drizzle-orm'
import { prepared } from '../../db/prepared'
import { locationPings, memberships, roles, salesOrders, teamMembers, users, visitAssignees, visits } from '../../db/schema'
import { DEFAULT_LIST } from '../../platform/data/pagination'
import { defineReport, type ReportRequest } from '../../platform/data/report'
import { workspaceScoped } from '../../platform/data/scope'
import { keepsOnLine, summarizeTrack, type TrackPoint } from '../../lib/geo'
import { selectValues } from '../../db/prepared'
import { compliance, type ComplianceVisit } from '../journey-plans'
import { COUNTING_STATUSES_SQL, salesOrderScope } from '../orders'
import type { FieldDayQuery, FieldDayRow } from './reports.schemas'

/** The report reads other modules' tables, each through its workspace scope. */
const membershipScope = workspaceScoped(memberships)
const visitAssigneeScope = workspaceScoped(visitAssignees)
const teamMemberScope = workspaceScoped(teamMembers)
const pingScope = workspaceScoped(locationPings)

/**
 * The field users of a day (see the top of the file). `team` and `user` are optional filters (null:
 * any); a team or user of another workspace matches nobody, since every table is read by workspace.
 */
const FIELD_USERS_WHERE = sql`
  ${membershipScope.where(sql.placeholder('workspaceId'))} and ${users.deleted_at} is null
  and ((${roles.slug} = 'user' and ${memberships.is_active} = 1)
    or ${memberships.user_id} in (
      select va.user_id from visit_assignees va join visits v on v.id = va.visit_id
      where ${visitAssigneeScope.as('va').where(sql.placeholder('workspaceId'))} and va.visit_date = ${sql.placeholder('date')} and v.deleted_at is null))
  and (${sql.placeholder('teamId')} is null or ${memberships.user_id} in (
    select tm.user_id from team_members tm where ${teamMemberScope.as('tm').where(sql.placeholder('workspaceId'))} and tm.team_id = ${sql.placeholder('teamId')}))
  and (${sql.placeholder('userId')} is null or ${memberships.user_id} = ${sql.placeholder('userId')})`

const fieldUsersPage = prepared((db) =>
  db
    .select({ user_id: memberships.user_id, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(FIELD_USERS_WHERE)
    .orderBy(users.name, memberships.user_id)
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(),
)

const fieldUsersCount = prepared((db) =>
  db
    .select({ total: sql<number>`count(*)` })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(FIELD_USERS_WHERE)
    .prepare(),
)

/**
 * The day's visits of the given users, one grouped row per assignee: planned (not cancelled),
 * completed, still scheduled, time on site of the completed ones (check-in → check-out, seconds),
 * flagged, and the first and last check-in and check-out that fall within the local day.
 */
const visitsByAssignee = prepared((db) =>
  db
    .select({
      user_id: visitAssignees.user_id,
      planned: sql<number>`sum(${visits.status} != 'cancelled')`,
      completed: sql<number>`sum(${visits.status} = 'completed')`,
      scheduled: sql<number>`sum(${visits.status} = 'scheduled')`,
      on_site_s: sql<
        number | null
      >`sum(case when ${visits.status} = 'completed' and ${visits.checked_in_at} is not null and ${visits.checked_out_at} is not null
        then (julianday(${visits.checked_out_at}) - julianday(${visits.checked_in_at})) * 86400.0 end)`,
      flagged: sql<number>`sum(${visits.flags} != 0)`,
      first_in: sql<
        string | null
      >`min(case when ${visits.checked_in_at} >= ${sql.placeholder('from')} and ${visits.checked_in_at} < ${sql.placeholder('until')} then ${visits.checked_in_at} end)`,
      last_in: sql<
        string | null
      >`max(case when ${visits.checked_in_at} >= ${sql.placeholder('from')} and ${visits.checked_in_at} < ${sql.placeholder('until')} then ${visits.checked_in_at} end)`,
      first_out: sql<
        string | null
      >`min(case when ${visits.checked_out_at} >= ${sql.placeholder('from')} and ${visits.checked_out_at} < ${sql.placeholder('until')} then ${visits.checked_out_at} end)`,
      last_out: sql<
        string | null
      >`max(case when ${visits.checked_out_at} >= ${sql.placeholder('from')} and ${visits.checked_out_at} < ${sql.placeholder('until')} then ${visits.checked_out_at} end)`,
    })
    .from(visitAssignees)
    .innerJoin(visits, eq(visits.id, visitAssignees.visit_id))
    .where(
      sql`${visitAssigneeScope.where(sql.placeholder('workspaceId'))} and ${visitAssignees.visit_date} = ${sql.placeholder('date')}
        and ${visitAssignees.user_id} in (select value from json_each(${sql.placeholder('userIds')})) and ${visits.deleted_at} is null`,
    )
    .groupBy(visitAssignees.user_id)
    .prepare(),
)

/**
 * The day's visits of the given users, one row per (assignee, visit), with what plan compliance needs
 * (journey-plans' `compliance`): where each came from, its place in the route, its status and check-in.
 */
const visitsForCompliance = prepared((db) =>
  db
    .select({
      user_id: visitAssignees.user_id,
      id: visits.id,
      source: visits.source,
      journey_plan_id: visits.journey_plan_id,
      route_sequence: visits.route_sequence,
      status: visits.status,
      checked_in_at: visits.checked_in_at,
    })
    .from(visitAssignees)
    .innerJoin(visits, eq(visits.id, visitAssignees.visit_id))
    .where(
      sql`${visitAssigneeScope.where(sql.placeholder('workspaceId'))} and ${visitAssignees.visit_date} = ${sql.placeholder('date')}
        and ${visitAssignees.user_id} in (select value from json_each(${sql.placeholder('userIds')})) and ${visits.deleted_at} is null`,
    )
    .prepare(),
)

/**
 * The orders the given users took on the local day that count (not rejected or cancelled), per user:
 * effective calls (visits with such an order) and their value (Σ total, docs/API.md §Orders). By the
 * order's own `order_date`, a range of the (workspace, user, order_date) index per user.
 */
const ordersByUser = prepared((db) =>
  db
    .select({
      user_id: salesOrders.user_id,
      effective: sql<number>`count(distinct ${salesOrders.visit_id})`,
      value: sql<number>`coalesce(sum(${salesOrders.total}), 0)`,
    })
    .from(salesOrders)
    .where(
      sql`${salesOrderScope.where(sql.placeholder('workspaceId'))} and ${salesOrders.order_date} = ${sql.placeholder('date')}
        and ${salesOrders.user_id} in (select value from json_each(${sql.placeholder('userIds')})) and ${salesOrders.status} in (${COUNTING_STATUSES_SQL})`,
    )
    .groupBy(salesOrders.user_id)
    .prepare(),
)

/** The users' pings of [from, until), by user then device time: one range of the (workspace, user, recorded_at, id) index per user. */
export const PINGS_OF_USERS = `select user_id, lat, lng, recorded_at, flags from location_pings
  where ${pingScope.text()} and user_id in (select value from json_each(?)) and recorded_at >= ? and recorded_at < ?
  order by user_id, recorded_at, id`

interface UserPings {
  /** Every ping of the day, jumps included (they are activity too). */
  first: string
  last: string
  /** The pings on the line: jumps left out (`keepsOnLine`, as the route replay). */
  kept: TrackPoint[]
}

/** `[user_id, lat, lng, recorded_at, flags]` rows of many users, in user then device-time order, grouped per user. */
export function pingsPerUser(rows: readonly unknown[][]): Map<number, UserPings> {
  const byUser = new Map<number, UserPings>()
  let current: UserPings | undefined
  let currentUser = -1
  for (const row of rows) {
    const userId = Number(row[0])
    const recordedAt = row[3] as string
    if (userId !== currentUser) {
      currentUser = userId
      current = { first: recordedAt, last: recordedAt, kept: [] }
      byUser.set(currentUser, current)
    }
    current!.last = recordedAt
    const point = { lat: row[1] as number, lng: row[2] as number, at: Date.parse(recordedAt) }
    if (keepsOnLine(current!.kept.at(-1) ?? null, point, Number(row[4]))) current!.kept.push(point)
  }
  return byUser
}

const earliest = (...values: (string | null | undefined)[]) => values.reduce<string | null>((best, v) => (v && (best === null || v < best) ? v : best), null)
const latest = (...values: (string | null | undefined)[]) => values.reduce<string | null>((best, v) => (v && (best === null || v > best) ? v : best), null)

/** The field users of the page's day, one page in name order, and their total (the day, the team and the user bound). */
function fieldUsersOf({ ctx, query, db, page }: ReportRequest<FieldDayQuery>): [Person[] | Promise<Person[]>, Promise<number>] {
  const filters = { workspaceId: ctx.actor.workspaceId, date: query.date, teamId: query.team_id ?? null, userId: query.user_id ?? null }
  const total = async () => Number((await fieldUsersCount(db).all(filters))[0]?.total ?? 0)
  return [fieldUsersPage(db).all({ ...filters, limit: page.limit, offset: page.offset }), total()]
}
type Person = { user_id: number; name: string }

/** The page's rows: the day's visits per assignee and the page's users' pings, two reads for the whole page. */
async function fieldDayRows({ ctx, query, db, range }: ReportRequest<FieldDayQuery>, people: Person[]): Promise<FieldDayRow[]> {
  const workspaceId = ctx.actor.workspaceId
  const day = range!
  const userIds = JSON.stringify(people.map((person) => person.user_id))
  const bound = { workspaceId, date: query.date, userIds }
  const [visitRows, pingRows, planRows, orderRows] = await Promise.all([
    visitsByAssignee(db).all({ ...bound, from: day.from, until: day.until }),
    selectValues(db, PINGS_OF_USERS, [workspaceId, userIds, day.from, day.until]),
    visitsForCompliance(db).all(bound),
    ordersByUser(db).all(bound),
  ])
  const visitsOf = new Map(visitRows.map((row) => [row.user_id, row]))
  const pingsOf = pingsPerUser(pingRows)
  const planned = new Map<number, ComplianceVisit[]>()
  for (const { user_id, ...visit } of planRows) planned.set(user_id, [...(planned.get(user_id) ?? []), visit])
  const ordersOf = new Map(orderRows.map((row) => [row.user_id, row]))
  // "Missed" is only known once the local day is over.
  const dayOver = ctx.deps.clock.now().toISOString() >= day.until
  return people.map((person) => ({
    ...fieldDayRow(person, visitsOf.get(person.user_id), pingsOf.get(person.user_id), dayOver),
    ...compliance(planned.get(person.user_id) ?? []),
    effective_calls: Number(ordersOf.get(person.user_id)?.effective ?? 0),
    order_value: Number(ordersOf.get(person.user_id)?.value ?? 0),
  }))
}

type DayFigures = Omit<
  FieldDayRow,
  'visits_planned_by_plan' | 'visits_unplanned' | 'plan_compliance_pct' | 'out_of_sequence' | 'effective_calls' | 'order_value'
>

function fieldDayRow(person: Person, visits: VisitSummary | undefined, pings: UserPings | undefined, dayOver: boolean): DayFigures {
  const distance = pings ? summarizeTrack(pings.kept).distance_m : 0
  return {
    user_id: person.user_id,
    name: person.name,
    distance_m: Math.round(distance * 10) / 10,
    visits_planned: Number(visits?.planned ?? 0),
    visits_completed: Number(visits?.completed ?? 0),
    visits_missed: dayOver ? Number(visits?.scheduled ?? 0) : 0,
    time_on_site_s: Math.round(Number(visits?.on_site_s ?? 0)),
    first_activity_at: earliest(pings?.first, visits?.first_in, visits?.first_out),
    last_activity_at: latest(pings?.last, visits?.last_in, visits?.last_out),
    flagged_visits: Number(visits?.flagged ?? 0),
  }
}
type VisitSummary = Awaited<ReturnType<ReturnType<typeof visitsByAssignee>['all']>>[number]

/** The field-day report: the field users of a local day, each with their day's route, visits and activity. */
export const fieldDayReport = defineReport({
  limits: DEFAULT_LIST,
  day: (query: FieldDayQuery) => query.date,
  subjects: fieldUsersOf,
  rows: fieldDayRows,
})
