/**
 * Dashboard figures for a date range, all as SQL aggregates over indexed columns (visits by
 * (workspace, visit_date), pings by (workspace, user, recorded_at)), so they stay fast on 100k visits
 * and millions of pings. Dates are visit dates; pings and activity use the same local days of the
 * workspace's time zone.
 */
import type { AuthedContext } from '../../platform/context'
import { addDays, localDate, localDayRange } from '../../lib/time-zones'
import { ValidationFailed } from '../../lib/errors'
import {
  activeFieldUsers,
  approvalsByStatus,
  type DashboardFilter,
  flaggedToday,
  ordersToday,
  pendingByTeam,
  pingsReceived,
  teamFigures,
  userFigures,
  visitsByStatus,
} from './dashboard.queries'
import type { RangeQuery } from './dashboard.schemas'

const DAY_MS = 86_400_000
export const DEFAULT_RANGE_DAYS = 7
export const MAX_RANGE_DAYS = 366

/**
 * The range asked for (default: the last 7 days up to today), at most a year. Days are the
 * workspace's local days: `from_at`/`until_at` are the instants they begin and end.
 */
export function rangeOf(ctx: AuthedContext, query: RangeQuery) {
  const today = localDate(ctx.deps.clock.now(), ctx.actor.timeZone)
  const to = query.date_to ?? today
  const from = query.date_from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1))
  if (from > to) throw ValidationFailed.field('date_from', 'must not be after date_to')
  if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= MAX_RANGE_DAYS)
    throw ValidationFailed.field('date_from', `the range must be at most ${MAX_RANGE_DAYS} days`)
  return {
    date_from: from,
    date_to: to,
    from_at: localDayRange(from, ctx.actor.timeZone).from,
    until_at: localDayRange(to, ctx.actor.timeZone).until,
  }
}

/** The range and what the statements of ./dashboard.queries.ts are bound with. */
function filterOf(ctx: AuthedContext, query: RangeQuery): { range: ReturnType<typeof rangeOf>; filter: DashboardFilter } {
  const range = rangeOf(ctx, query)
  const today = localDate(ctx.deps.clock.now(), ctx.actor.timeZone)
  return { range, filter: { ...range, workspace: ctx.actor.workspaceId, team: query.team_id ?? null, today } }
}

const rate = (done: number, of: number) => (of === 0 ? 0 : Math.round((done / of) * 10_000) / 10_000)

export async function dashboardMetrics(ctx: AuthedContext, query: RangeQuery) {
  const { range, filter } = filterOf(ctx, query)
  const db = ctx.deps.db.read
  const [byStatus, approvals, active, pings] = await Promise.all([
    visitsByStatus(db, filter),
    approvalsByStatus(db, filter),
    activeFieldUsers(db, filter),
    pingsReceived(db, filter),
  ])
  const visits = { total: 0, scheduled: 0, in_progress: 0, completed: 0, cancelled: 0, force_closed: 0 }
  for (const row of byStatus) {
    visits[row.status as keyof typeof visits] = Number(row.n)
    visits.total += Number(row.n)
  }
  const submissions = { pending: 0, approved: 0, rejected: 0 }
  for (const row of approvals) if (row.approval_status) submissions[row.approval_status as keyof typeof submissions] = Number(row.n)
  return {
    range: { date_from: range.date_from, date_to: range.date_to },
    visits,
    // Completed of the visits that were meant to happen (cancelled ones are left out).
    completion_rate: rate(visits.completed, visits.total - visits.cancelled),
    submissions,
    pending_approvals: submissions.pending,
    active_field_users: Number(active[0]?.n ?? 0),
    pings_received: Number(pings[0]?.n ?? 0),
  }
}

export async function dashboardSummary(ctx: AuthedContext, query: RangeQuery) {
  const { range, filter } = filterOf(ctx, query)
  const db = ctx.deps.db.read
  const [teams, pendingRows, users, flagged, [orders]] = await Promise.all([
    teamFigures(db, filter),
    pendingByTeam(db, filter),
    userFigures(db, filter),
    flaggedToday(db, filter),
    ordersToday(db, filter),
  ])
  const pending = new Map(pendingRows.map((row) => [row.team_id, Number(row.pending)]))
  return {
    range: { date_from: range.date_from, date_to: range.date_to },
    flagged_visits_today: Number(flagged[0]?.n ?? 0),
    effective_calls_today: Number(orders?.effective ?? 0),
    orders_today: Number(orders?.orders ?? 0),
    order_value_today: Number(orders?.value ?? 0),
    teams: teams.map((row) => ({
      team_id: row.team_id,
      team_name: row.team_id === null ? null : row.team_name,
      visits_total: Number(row.total),
      visits_completed: Number(row.completed),
      completion_rate: rate(Number(row.completed), Number(row.total) - Number(row.cancelled)),
      pending_approvals: pending.get(row.team_id) ?? 0,
    })),
    users: users.map((row) => ({
      user_id: row.user_id,
      name: row.name,
      visits_total: Number(row.total),
      visits_completed: Number(row.completed),
      completion_rate: rate(Number(row.completed), Number(row.total) - Number(row.cancelled)),
    })),
  }
}
