/**
 * Missed visits (docs/API.md §Missed visits): once a workspace's local day is over, every visit of that
 * day still `scheduled` is reported — ONCE — to whoever should act on it:
 *   - the leader of the visit's team, and the leaders of every team an assignee of the visit belongs to
 *     (a visit planned without a team still reaches the field user's own leader);
 *   - the workspace's admins (roles super_admin and admin);
 * active members only, one `visit.missed` notification per recipient per visit.
 *
 * Runs every 15 minutes (UTC) and looks at every workspace: a visit is due when its date is before the
 * workspace's local today, so each workspace is handled in the first run after its own midnight.
 * Only the last MISSED_LOOKBACK_DAYS days are looked at, so a first run on an old database reports the
 * days just ended, not months of history.
 *
 * Once per visit, with any number of runs, concurrent ones included: the visits are claimed by an
 * UPDATE … WHERE missed_notified_at IS NULL … RETURNING inside the write transaction that also writes
 * their notifications. Write transactions are serialised, so a second run claims nothing the first
 * one claimed; and a failure rolls back the claim with the notifications, so the next run retries.
 *
 * Like the other jobs it acts as the system (no user): marking a visit reported is bookkeeping, not a
 * change of the visit (its `updated_at` and the audit log are left alone), and a notification is a
 * message to a user, not a business entity, so it writes no audit entry either (as when any feature notifies).
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import { betweenBatches } from '../db/batches'
import type { Db } from '../db/client'
import { memberships, outlets, teamMembers, teams, users, visitAssignees, visits, workspaces } from '../db/schema'
import { workspaceScoped } from '../platform/data/scope'
import { systemContext, type Deps } from '../platform/context'
import { addDays, localDate } from '../lib/time-zones'
import { withTransaction } from '../platform/data/transaction'
import { notify, workspaceAdminIds } from '../modules/notifications'

/** The job visits every workspace in turn; within one, each table is read through its scope. */
const visitScope = workspaceScoped(visits)
const membershipScope = workspaceScoped(memberships)
const teamScope = workspaceScoped(teams)
const teamMemberScope = workspaceScoped(teamMembers)

/**
 * Visits reported per write transaction, so one workspace's backlog never holds the writer, nor the
 * event loop, for long. 200 held every request for 140–250 ms; 50 for 40–60 ms a batch, batches 10 ms
 * apart, so for the whole run (the demo's first: 0.2–0.7 s) the loop was blocked 60–75% of the time
 * and reads at half capacity queued behind it (docs/PERFORMANCE.md "Reads at their ceiling"); 10
 * leave it blocked ~20% of the run.
 */
export const MISSED_BATCH = 10
/** How many past local days a run looks back over (covers a server that was down across a midnight). */
export const MISSED_LOOKBACK_DAYS = 3

interface ClaimedVisit {
  id: number
  outlet_id: number
  team_id: number | null
  visit_date: string
}

/** Scheduled visits of the workspace dated [from, to] that were not reported yet (the (workspace, status, visit_date) index). */
const unreported = (workspaceId: number, from: string, to: string) =>
  visitScope.where(workspaceId, eq(visits.status, 'scheduled'), isNull(visits.missed_notified_at), sql`${visits.visit_date} between ${from} and ${to}`)

/** Whether the workspace has unreported scheduled visits of [from, to]: a read, so a quiet run never takes the writer. */
async function anyMissed(db: Db, workspaceId: number, from: string, to: string): Promise<boolean> {
  const [row] = await db
    .select({ id: visits.id })
    .from(visits)
    .where(unreported(workspaceId, from, to))
    .limit(1)
  return row !== undefined
}

/** Claims up to MISSED_BATCH unreported scheduled visits of [from, to] (the (workspace, status, visit_date) index). */
async function claimMissed(tx: Db, workspaceId: number, from: string, to: string, now: string): Promise<ClaimedVisit[]> {
  const due = tx
    .select({ id: visits.id })
    .from(visits)
    .where(unreported(workspaceId, from, to))
    .orderBy(visits.visit_date, visits.id)
    .limit(MISSED_BATCH)
  return tx
    .update(visits)
    .set({ missed_notified_at: now })
    .where(and(inArray(visits.id, due), isNull(visits.missed_notified_at), eq(visits.status, 'scheduled')))
    .returning({ id: visits.id, outlet_id: visits.outlet_id, team_id: visits.team_id, visit_date: visits.visit_date })
}

async function activeMembers(tx: Db, workspaceId: number, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set()
  const rows = await tx
    .select({ id: memberships.user_id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(membershipScope.where(workspaceId, inArray(memberships.user_id, ids), isNull(users.deleted_at), eq(memberships.is_active, true)))
  return new Set(rows.map((row) => row.id))
}

/** Reports one batch of a workspace's missed visits in one transaction; answers how many visits were claimed. */
async function reportBatch(deps: Deps, workspaceId: number, from: string, to: string): Promise<{ visits: number; notifications: number }> {
  const ctx = systemContext(deps, 'missed-visits')
  return withTransaction(
    ctx,
    async (scope) => {
      const { tx } = scope
      const now = deps.clock.now().toISOString()
      const claimed = await claimMissed(tx, workspaceId, from, to, now)
      if (!claimed.length) return { visits: 0, notifications: 0 }
      const visitIds = claimed.map((visit) => visit.id)

      const assignees = await tx
        .select({ visit_id: visitAssignees.visit_id, user_id: visitAssignees.user_id, name: users.name })
        .from(visitAssignees)
        .innerJoin(users, eq(users.id, visitAssignees.user_id))
        .where(inArray(visitAssignees.visit_id, visitIds))
      const assigneeIds = [...new Set(assignees.map((row) => row.user_id))]
      // Leaders of the teams the assignees belong to, and of the visits' own teams (live teams only).
      const memberTeams = assigneeIds.length
        ? await tx
            .select({ user_id: teamMembers.user_id, leader_id: teams.leader_id })
            .from(teamMembers)
            .innerJoin(teams, eq(teams.id, teamMembers.team_id))
            .where(teamMemberScope.where(workspaceId, inArray(teamMembers.user_id, assigneeIds), isNull(teams.deleted_at)))
        : []
      const visitTeamIds = [...new Set(claimed.map((visit) => visit.team_id).filter((id): id is number => id !== null))]
      const visitTeams = visitTeamIds.length
        ? await tx
            .select({ id: teams.id, leader_id: teams.leader_id })
            .from(teams)
            .where(teamScope.where(workspaceId, inArray(teams.id, visitTeamIds)))
        : []
      const outletIds = [...new Set(claimed.map((visit) => visit.outlet_id))]
      const outletNames = new Map(
        (await tx.select({ id: outlets.id, name: outlets.name }).from(outlets).where(inArray(outlets.id, outletIds))).map((row) => [row.id, row.name]),
      )
      const admins = await workspaceAdminIds(tx, workspaceId)
      const leaderIds = [...memberTeams.map((row) => row.leader_id), ...visitTeams.map((row) => row.leader_id)].filter((id): id is number => id !== null)
      const activeLeaders = await activeMembers(tx, workspaceId, [...new Set(leaderIds)])

      let notifications = 0
      for (const visit of claimed) {
        const own = assignees.filter((row) => row.visit_id === visit.id)
        const recipients = new Set(admins)
        const leaderOfVisitTeam = visitTeams.find((team) => team.id === visit.team_id)?.leader_id
        if (leaderOfVisitTeam && activeLeaders.has(leaderOfVisitTeam)) recipients.add(leaderOfVisitTeam)
        for (const assignee of own) {
          for (const row of memberTeams)
            if (row.user_id === assignee.user_id && row.leader_id && activeLeaders.has(row.leader_id)) recipients.add(row.leader_id)
        }
        const outlet = outletNames.get(visit.outlet_id) ?? `outlet ${visit.outlet_id}`
        const who = own.length ? own.map((row) => row.name).join(', ') : 'nobody'
        await notify(scope, ctx, {
          userIds: [...recipients],
          workspaceId,
          type: 'visit.missed',
          title: 'Visit missed',
          body: `${outlet} on ${visit.visit_date} was not visited (assigned to ${who})`,
          data: {
            visit_id: visit.id,
            visit_date: visit.visit_date,
            outlet_id: visit.outlet_id,
            team_id: visit.team_id,
            user_ids: own.map((row) => row.user_id),
          },
        })
        notifications += recipients.size
      }
      return { visits: claimed.length, notifications }
    },
    { audit: 'none' },
  )
}

/** One run over every workspace (see the top of the file). */
export async function notifyMissedVisits(deps: Deps, signal?: AbortSignal): Promise<{ visits: number; notifications: number }> {
  const now = deps.clock.now()
  const all = await deps.db.read.select({ id: workspaces.id, timeZone: workspaces.timezone }).from(workspaces)
  let reported = 0
  let notifications = 0
  for (const workspace of all) {
    const today = localDate(now, workspace.timeZone)
    const to = addDays(today, -1)
    const from = addDays(today, -MISSED_LOOKBACK_DAYS)
    if (!(await anyMissed(deps.db.read, workspace.id, from, to))) continue
    for (;;) {
      const batch = await reportBatch(deps, workspace.id, from, to)
      reported += batch.visits
      notifications += batch.notifications
      if (batch.visits < MISSED_BATCH) break
      await betweenBatches(signal)
    }
  }
  if (reported) deps.logger.info('missed visits', { visits: reported, notifications })
  return { visits: reported, notifications }
}
