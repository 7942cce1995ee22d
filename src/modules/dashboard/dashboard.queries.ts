/**
 * The dashboard's aggregates, each one statement over indexed columns (see ./dashboard.service.ts).
 * `team` null: the whole workspace.
 */
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { attendances, locationPings, memberships, visitLogs, visits } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'
import { COUNTING_STATUSES_SQL, salesOrderScope } from '../orders'

/** Each table the aggregates read, scoped to the workspace under the short name the SQL gives it. */
const visit = workspaceScoped(visits)
const v = visit.as('v')
const m = workspaceScoped(memberships).as('m')
const ping = workspaceScoped(locationPings)
const p = ping.as('p')
const a = workspaceScoped(attendances).as('a')
const l = workspaceScoped(visitLogs).as('l')
const o = salesOrderScope.as('o')

/** The workspace, the optional team and the range: visit dates and the instants its local days span. */
export interface DashboardFilter {
  workspace: number
  team: number | null
  date_from: string
  date_to: string
  from_at: string
  until_at: string
  /** The workspace's local today. */
  today: string
}

export const visitsByStatus = (db: Db, f: DashboardFilter) =>
  db.all<{ status: string; n: number }>(sql`
      select status, count(*) as n from visits
      where ${visit.where(f.workspace)} and visit_date between ${f.date_from} and ${f.date_to}
        and (${f.team} is null or team_id = ${f.team})
      group by status`)

export const approvalsByStatus = (db: Db, f: DashboardFilter) =>
  db.all<{ approval_status: string | null; n: number }>(sql`
      select s.approval_status, count(*) as n from visits v cross join submissions s on s.visit_id = v.id
      where ${v.where(f.workspace)} and v.visit_date between ${f.date_from} and ${f.date_to}
        and (${f.team} is null or v.team_id = ${f.team}) and s.deleted_at is null and s.status = 'completed'
      group by s.approval_status`)

/**
 * A field user is active when they sent a ping, clocked in or checked in on a visit in the range
 * (the check-in log names who checked in, not every assignee of the visit).
 */
export const activeFieldUsers = (db: Db, f: DashboardFilter) =>
  db.all<{ n: number }>(sql`
      select count(*) as n from memberships m
      where ${m.where(f.workspace)}
        and (${f.team} is null or m.user_id in (select user_id from team_members where team_id = ${f.team}))
        and (exists (select 1 from location_pings p where ${p.where(f.workspace)} and p.user_id = m.user_id and p.recorded_at >= ${f.from_at} and p.recorded_at < ${f.until_at})
          or exists (select 1 from attendances a where ${a.where(f.workspace)} and a.user_id = m.user_id and a.date between ${f.date_from} and ${f.date_to})
          or exists (select 1 from visit_logs l where ${l.where(f.workspace)} and l.user_id = m.user_id and l.action = 'check_in'
                     and l.created_at >= ${f.from_at} and l.created_at < ${f.until_at}))`)

export const pingsReceived = (db: Db, f: DashboardFilter) =>
  db.all<{ n: number }>(sql`
      select count(*) as n from location_pings
      where ${ping.where(f.workspace)} and recorded_at >= ${f.from_at} and recorded_at < ${f.until_at}
        and (${f.team} is null or user_id in (select user_id from team_members where team_id = ${f.team}))`)

export const teamFigures = (db: Db, f: DashboardFilter) =>
  db.all<{ team_id: number | null; team_name: string | null; total: number; completed: number; cancelled: number }>(sql`
      select v.team_id, t.name as team_name, count(*) as total,
        sum(v.status = 'completed') as completed, sum(v.status = 'cancelled') as cancelled
      from visits v left join teams t on t.id = v.team_id
      where ${v.where(f.workspace)} and v.visit_date between ${f.date_from} and ${f.date_to}
        and (${f.team} is null or v.team_id = ${f.team})
      group by v.team_id order by t.name`)

export const pendingByTeam = (db: Db, f: DashboardFilter) =>
  db.all<{ team_id: number | null; pending: number }>(sql`
      select v.team_id, count(*) as pending
      from visits v cross join submissions s on s.visit_id = v.id
      where ${v.where(f.workspace)} and v.visit_date between ${f.date_from} and ${f.date_to}
        and (${f.team} is null or v.team_id = ${f.team}) and s.deleted_at is null and s.status = 'completed' and s.approval_status = 'pending'
      group by v.team_id`)

/** Counted per assignee from the visits of the range (covering index), named afterwards. */
export const userFigures = (db: Db, f: DashboardFilter) =>
  db.all<{ user_id: number; name: string; total: number; completed: number; cancelled: number }>(sql`
      select x.user_id, u.name, x.total, x.completed, x.cancelled
      from (
        select va.user_id, count(*) as total, sum(v.status = 'completed') as completed, sum(v.status = 'cancelled') as cancelled
        from visits v join visit_assignees va on va.visit_id = v.id
        where ${v.where(f.workspace)} and v.visit_date between ${f.date_from} and ${f.date_to}
          and (${f.team} is null or v.team_id = ${f.team})
        group by va.user_id
      ) x join users u on u.id = x.user_id
      order by u.name, x.user_id`)

/** Visits of the local today with integrity flags (the partial index of flagged visits by date). */
export const flaggedToday = (db: Db, f: DashboardFilter) =>
  db.all<{ n: number }>(sql`
      select count(*) as n from visits
      where ${visit.where(f.workspace)} and visit_date = ${f.today} and flags != 0
        and (${f.team} is null or team_id = ${f.team})`)

/**
 * The local today's orders that count (docs/API.md §Orders): effective calls (visits with such an order),
 * orders and their value (Σ total), by the orders' own local `order_date`. With a team, the orders of the
 * team's visits (as every figure of the dashboard). An index search on (workspace, status, order_date).
 */
export const ordersToday = (db: Db, f: DashboardFilter) =>
  db.all<{ effective: number; orders: number; value: number }>(sql`
      select count(distinct o.visit_id) as effective, count(*) as orders, coalesce(sum(o.total), 0) as value
      from sales_orders o
      where ${o.where(f.workspace)} and o.status in (${COUNTING_STATUSES_SQL}) and o.order_date = ${f.today}
        and (${f.team} is null or o.visit_id in (select id from visits where team_id = ${f.team}))`)
