/**
 * Dashboard figures for a date range, all as SQL aggregates over indexed columns (visits by
 * (workspace, visit_date), pings by (workspace, user, recorded_at)), so they stay fast on 100k visits
 * and millions of pings. Dates are visit dates; pings and activity use the same local days of the
 * workspace's time zone.
 */
import { sql } from 'drizzle-orm'
import type { AuthedContext } from '../../platform/context'
import { addDays, localDate, localDayRange } from '../../platform/time-zones'
import { ValidationFailed } from '../../platform/errors'
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

const rate = (done: number, of: number) => (of === 0 ? 0 : Math.round((done / of) * 10_000) / 10_000)

export async function dashboardMetrics(ctx: AuthedContext, query: RangeQuery) {
  const range = rangeOf(ctx, query)
  const db = ctx.deps.db.read
  const workspace = ctx.actor.workspaceId
  const team = query.team_id ?? null
  const [byStatus, approvals, active, pings] = await Promise.all([
    db.all<{ status: string; n: number }>(sql`
      select status, count(*) as n from visits
      where workspace_id = ${workspace} and deleted_at is null and visit_date between ${range.date_from} and ${range.date_to}
        and (${team} is null or team_id = ${team})
      group by status`),
    db.all<{ approval_status: string | null; n: number }>(sql`
      select s.approval_status, count(*) as n from visits v cross join submissions s on s.visit_id = v.id
      where v.workspace_id = ${workspace} and v.deleted_at is null and v.visit_date between ${range.date_from} and ${range.date_to}
        and (${team} is null or v.team_id = ${team}) and s.deleted_at is null and s.status = 'completed'
      group by s.approval_status`),
    // A field user is active when they sent a ping, clocked in or checked in on a visit in the range
    // (the check-in log names who checked in, not every assignee of the visit).
    db.all<{ n: number }>(sql`
      select count(*) as n from memberships m
      where m.workspace_id = ${workspace} and m.deleted_at is null
        and (${team} is null or m.user_id in (select user_id from team_members where team_id = ${team}))
        and (exists (select 1 from location_pings p where p.workspace_id = ${workspace} and p.user_id = m.user_id and p.recorded_at >= ${range.from_at} and p.recorded_at < ${range.until_at})
          or exists (select 1 from attendances a where a.workspace_id = ${workspace} and a.user_id = m.user_id and a.date between ${range.date_from} and ${range.date_to})
          or exists (select 1 from visit_logs l where l.workspace_id = ${workspace} and l.user_id = m.user_id and l.action = 'check_in'
                     and l.created_at >= ${range.from_at} and l.created_at < ${range.until_at}))`),
    db.all<{ n: number }>(sql`
      select count(*) as n from location_pings
      where workspace_id = ${workspace} and recorded_at >= ${range.from_at} and recorded_at < ${range.until_at}
        and (${team} is null or user_id in (select user_id from team_members where team_id = ${team}))`),
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
  const range = rangeOf(ctx, query)
  const db = ctx.deps.db.read
  const workspace = ctx.actor.workspaceId
  const team = query.team_id ?? null
  const today = localDate(ctx.deps.clock.now(), ctx.actor.timeZone)
  const [teams, pendingByTeam, users, flagged] = await Promise.all([
    db.all<{ team_id: number | null; team_name: string | null; total: number; completed: number; cancelled: number }>(sql`
      select v.team_id, t.name as team_name, count(*) as total,
        sum(v.status = 'completed') as completed, sum(v.status = 'cancelled') as cancelled
      from visits v left join teams t on t.id = v.team_id
      where v.workspace_id = ${workspace} and v.deleted_at is null and v.visit_date between ${range.date_from} and ${range.date_to}
        and (${team} is null or v.team_id = ${team})
      group by v.team_id order by t.name`),
    db.all<{ team_id: number | null; pending: number }>(sql`
      select v.team_id, count(*) as pending
      from visits v cross join submissions s on s.visit_id = v.id
      where v.workspace_id = ${workspace} and v.deleted_at is null and v.visit_date between ${range.date_from} and ${range.date_to}
        and (${team} is null or v.team_id = ${team}) and s.deleted_at is null and s.status = 'completed' and s.approval_status = 'pending'
      group by v.team_id`),
    // Counted per assignee from the visits of the range (covering index), named afterwards.
    db.all<{ user_id: number; name: string; total: number; completed: number; cancelled: number }>(sql`
      select x.user_id, u.name, x.total, x.completed, x.cancelled
      from (
        select va.user_id, count(*) as total, sum(v.status = 'completed') as completed, sum(v.status = 'cancelled') as cancelled
        from visits v join visit_assignees va on va.visit_id = v.id
        where v.workspace_id = ${workspace} and v.deleted_at is null and v.visit_date between ${range.date_from} and ${range.date_to}
          and (${team} is null or v.team_id = ${team})
        group by va.user_id
      ) x join users u on u.id = x.user_id
      order by u.name, x.user_id`),
    // Visits of the local today with integrity flags (the partial index of flagged visits by date).
    db.all<{ n: number }>(sql`
      select count(*) as n from visits
      where workspace_id = ${workspace} and visit_date = ${today} and flags != 0 and deleted_at is null
        and (${team} is null or team_id = ${team})`),
  ])
  const pending = new Map(pendingByTeam.map((row) => [row.team_id, Number(row.pending)]))
  return {
    range: { date_from: range.date_from, date_to: range.date_to },
    flagged_visits_today: Number(flagged[0]?.n ?? 0),
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
