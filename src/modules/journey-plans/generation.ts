/**
 * Visits from journey plans (README.md beside this file, "Generation"; docs/API.md §Journey plans).
 *
 * A generated visit is an ordinary visit, written by the visits module's own creation code
 * (`planGeneratedVisits` / `writeGeneratedVisits` of ../visits): `scheduled`, the plan's user assigned, the
 * plan's project's forms attached, a `created` log row, `created` and `assigned` audit entries; plus
 * `journey_plan_id`, `source = 'journey_plan'` and `route_sequence` = the stop's sequence.
 *
 * Exactly once per (plan, outlet, local date), however many runs overlap or fail half-way:
 *   1. the run reads the plan, its stops, the holidays and the (plan, outlet, date) keys that already
 *      exist (deleted ones included) on the read connection, and plans only the missing visits;
 *   2. it writes them in parts (GENERATION_PART_VISITS visits each), one short write
 *      transaction per part, with a pause between parts (`betweenBatches`) so requests get the writer and
 *      the event loop; every insert is `ON CONFLICT DO NOTHING` on the unique index, so a visit another
 *      run created meanwhile is skipped, not doubled;
 *   3. each part first checks, under the write lock, that the plan is still the one that was read (same
 *      `updated_at`, live, active) and that no holiday was declared since on its dates: an edit (or a
 *      holiday) committed meanwhile has removed the visits it replaces and generates the rest itself, so
 *      a stale run stops instead of writing them back.
 * A run stopped between parts (shutdown, crash) leaves whole parts; the next run creates the rest.
 *
 * Removal (`removeGeneratedVisits`): an edit, deactivation or deletion of a plan soft-deletes its generated
 * visits that are still `scheduled` and dated from the first editable date (tomorrow) on, in the plan's
 * own transaction, each with a `deleted` audit entry; phones get them as sync deletions. They are
 * detached (`journey_plan_id` set to null) as they are deleted, so the edited plan may generate the same
 * outlet and day again; a visit the office deleted itself stays attached and is never generated again.
 */
import { and, between, eq, gte, inArray, isNull, isNotNull, type SQL } from 'drizzle-orm'
import { betweenBatches } from '../../db/batches'
import type { Db } from '../../db/client'
import { holidays, journeyPlans, journeyPlanStops, memberships, outlets, users, visits, workspaces } from '../../db/schema'
import { addDays, localDate } from '../../lib/time-zones'
import type { Actor, AuthedContext, Deps, RequestContext } from '../../platform/context'
import { workspaceScoped } from '../../platform/data/scope'
import { type TxScope, withTransaction } from '../../platform/data/transaction'
import { outletScope } from '../outlets'
import { formsOfProjects, projectScope } from '../projects'
import { teamScope } from '../teams'
import { membershipScope } from '../users'
import { planGeneratedVisits, writeGeneratedVisits } from '../visits'
import { maskToWeeks, occurrences } from './calendar'

export const planScope = workspaceScoped(journeyPlans)
export const holidayScope = workspaceScoped(holidays)
/** Visits are read and detached here by their plan; the visits module owns everything else about them. */
const visitScope = workspaceScoped(visits)

export interface GenerationResult {
  /** Visits this run created. */
  created: number
  /** Visits of the range the plan asks for that this run did not create: they exist (or the office deleted them), or their outlet is no longer live and active. */
  skipped: number
}

export interface DateRange {
  from: string
  to: string
}

type PlanRow = typeof journeyPlans.$inferSelect

/** The local dates of a workspace's horizon: today and the `days − 1` after it (calendar.ts `horizon`). */
export function horizonRange(now: Date, timeZone: string, days: number): DateRange {
  const today = localDate(now, timeZone)
  return { from: today, to: addDays(today, Math.max(1, days) - 1) }
}

/** The workspace's horizon setting (`journey_plan_horizon_days`, default 7). */
export async function horizonDays(db: Db, workspaceId: number): Promise<number> {
  const [row] = await db.select({ days: workspaces.journey_plan_horizon_days }).from(workspaces).where(eq(workspaces.id, workspaceId))
  return row?.days ?? 7
}

/** Holidays of the workspace in a range, as local dates. */
export async function holidayDates(db: Db, workspaceId: number, range: DateRange): Promise<string[]> {
  const rows = await db
    .select({ date: holidays.date })
    .from(holidays)
    .where(holidayScope.where(workspaceId, between(holidays.date, range.from, range.to)))
  return rows.map((row) => row.date)
}

/**
 * Creates the visits plan `planId` asks for in `range` that do not exist yet (see the top of the file).
 * `ctx` acts: its actor is the visits' creator and the audit entries' actor. Stops with `signal`
 * aborted between two parts (JobStopped); what was written stays.
 */
export async function generateVisits(ctx: AuthedContext, planId: number, range: DateRange, signal?: AbortSignal): Promise<GenerationResult> {
  const db = ctx.deps.db.read
  const workspaceId = ctx.actor.workspaceId
  const plan = await planScope.find(db, workspaceId, planId)
  if (!plan?.active || range.from > range.to) return { created: 0, skipped: 0 }
  const stops = (await db.select().from(journeyPlanStops).where(eq(journeyPlanStops.plan_id, planId))).map((stop) => ({
    ...stop,
    weeks: stop.weeks === 0 ? null : maskToWeeks(stop.weeks, plan.cycle_weeks),
  }))
  const wanted = occurrences(plan, stops, { ...range, holidays: await holidayDates(db, workspaceId, range) })
  if (wanted.length === 0) return { created: 0, skipped: 0 }

  const [existing, liveOutlets, project, member, projectForms, team] = await Promise.all([
    db
      .select({ outlet_id: visits.outlet_id, visit_date: visits.visit_date })
      .from(visits)
      .where(visitScope.whereIncludingDeleted(workspaceId, eq(visits.journey_plan_id, planId), between(visits.visit_date, range.from, range.to))),
    outletScope.findManyBy(db, workspaceId, outlets.id, [...new Set(stops.map((stop) => stop.outlet_id))]),
    projectScope.find(db, workspaceId, plan.project_id),
    db
      .select({ id: memberships.user_id })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.user_id))
      .where(membershipScope.where(workspaceId, eq(memberships.user_id, plan.user_id), eq(memberships.is_active, true), isNull(users.deleted_at))),
    formsOfProjects(db, [plan.project_id]),
    plan.team_id === null ? null : teamScope.find(db, workspaceId, plan.team_id),
  ])
  // A plan whose user left the workspace or whose project is no longer active generates nothing.
  if (project?.status !== 'active' || member.length === 0) return { created: 0, skipped: wanted.length }
  const taken = new Set(existing.map((row) => `${row.outlet_id}:${row.visit_date}`))
  const active = new Set(liveOutlets.filter((outlet) => outlet.is_active).map((outlet) => outlet.id))
  const submissions = projectForms.map((form) => ({ form_id: form.form_id, is_required: form.is_required, order: form.order }))
  const items = wanted
    .filter(({ date, stop }) => active.has(stop.outlet_id) && !taken.has(`${stop.outlet_id}:${date}`))
    .map(({ date, stop }) => ({
      outlet_id: stop.outlet_id,
      project_id: plan.project_id,
      // A team deleted since the plan was saved is left off its visits (a visit may not name a deleted team);
      // the plan's user still gets their route.
      team_id: team ? plan.team_id : null,
      visit_date: date,
      user_ids: [plan.user_id],
      submissions,
      journey_plan_id: plan.id,
      route_sequence: stop.sequence,
    }))
  if (items.length === 0) return { created: 0, skipped: wanted.length }

  const planned = await planGeneratedVisits(db, workspaceId, items)
  let created = 0
  for (const [part, [from, to]] of generationParts(items.length).entries()) {
    if (part > 0) await betweenBatches(signal)
    const ids = await withTransaction(
      ctx,
      async (scope) =>
        (await stillTheSame(
          scope.tx,
          workspaceId,
          plan,
          items.slice(from, to).map((item) => item.visit_date),
        ))
          ? writeGeneratedVisits(scope, ctx, planned, from, to)
          : null,
      // Each created visit writes its own audit entries; a part whose visits all existed writes none.
      // The request's idempotency key, if any, is recorded by the request's own transaction, not by these.
      { audit: 'none', idempotency: null },
    )
    if (ids === null) break
    created += ids.length
  }
  return { created, skipped: wanted.length - created }
}

/**
 * Visits written per transaction. A generated visit writes about eight rows (the visit, its log, its
 * assignee, its forms' submissions, two audit entries), each audit entry a separate insert: 35 visits
 * (writeParts' 250 rows) held the event loop 15–60 ms; 10 stay well under 50 ms with the
 * project's forms attached (docs/PERFORMANCE.md "Journey-plan generation").
 */
export const GENERATION_PART_VISITS = 10
const generationParts = (count: number): [number, number][] =>
  Array.from({ length: Math.ceil(count / GENERATION_PART_VISITS) }, (_, i) => [i * GENERATION_PART_VISITS, Math.min(count, (i + 1) * GENERATION_PART_VISITS)])

/**
 * Whether what was read before the write lock still holds: the plan not edited, deactivated or deleted
 * since, and no holiday declared since on a date of this part (the holiday removed that day's visits
 * in its own transaction; writing them now would bring them back).
 */
async function stillTheSame(tx: Db, workspaceId: number, plan: PlanRow, dates: string[]): Promise<boolean> {
  const now = await planScope.find(tx, workspaceId, plan.id)
  if (now?.active !== true || now.updated_at !== plan.updated_at) return false
  const [holiday] = await tx
    .select({ id: holidays.id })
    .from(holidays)
    .where(holidayScope.where(workspaceId, inArray(holidays.date, [...new Set(dates)])))
    .limit(1)
  return holiday === undefined
}

/**
 * Soft-deletes the plan's generated visits that are still `scheduled` and dated `from` on, detaching them
 * (journey_plan_id null), each with a `deleted` audit entry, in the caller's transaction. Answers how many.
 */
export async function removeGeneratedVisits(scope: TxScope, ctx: AuthedContext, planId: number, from: string, reason: string): Promise<number> {
  const now = ctx.deps.clock.now().toISOString()
  return detach(scope, ctx, and(eq(visits.journey_plan_id, planId), gte(visits.visit_date, from)), now, { journey_plan_id: planId, reason })
}

/** The still-scheduled generated visits of one local date (a new holiday), detached and soft-deleted like an edit's. */
export async function removeGeneratedVisitsOn(scope: TxScope, ctx: AuthedContext, date: string, reason: string): Promise<number> {
  const now = ctx.deps.clock.now().toISOString()
  return detach(scope, ctx, and(isNotNull(visits.journey_plan_id), eq(visits.visit_date, date)), now, { reason })
}

async function detach(scope: TxScope, ctx: AuthedContext, which: SQL | undefined, now: string, metadata: Record<string, unknown>) {
  const removed = await scope.tx
    .update(visits)
    .set({ deleted_at: now, updated_at: now, journey_plan_id: null })
    .where(visitScope.where(ctx.actor.workspaceId, eq(visits.status, 'scheduled'), which))
    .returning()
  if (removed.length === 0) return 0
  const names = new Map(
    (
      await scope.tx
        .select({ id: outlets.id, name: outlets.name })
        .from(outlets)
        .where(inArray(outlets.id, [...new Set(removed.map((visit) => visit.outlet_id))]))
    ).map((row) => [row.id, row.name]),
  )
  for (const visit of removed) {
    await scope.audit({
      entityType: 'visit',
      entityId: visit.id,
      entityName: `${names.get(visit.outlet_id) ?? 'Outlet'} · ${visit.visit_date} (#${visit.id})`,
      action: 'deleted',
      oldValues: visit,
      metadata,
    })
  }
  return removed.length
}

/**
 * The context a scheduled run acts in for one plan: the plan's author, marked as the system (role
 * `system`, request id `job:journey-plans`), so the audit log says on whose plan the visits were made
 * and that no one clicked anything. Null when the plan has no author left (it then waits for an edit).
 */
export async function planAuthorContext(
  deps: Deps,
  base: RequestContext,
  workspace: { id: number; timeZone: string },
  plan: PlanRow,
): Promise<AuthedContext | null> {
  if (plan.created_by === null) return null
  const [author] = await deps.db.read.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, plan.created_by))
  if (!author) return null
  const actor: Actor = {
    userId: author.id,
    workspaceId: workspace.id,
    name: author.name,
    email: author.email,
    roleId: 0,
    role: 'system',
    permissions: new Set(),
    timeZone: workspace.timeZone,
  }
  return { ...base, actor }
}

/** The live, active plans of a workspace (the nightly run), by the (workspace) where active index. */
export async function activePlans(db: Db, workspaceId: number): Promise<PlanRow[]> {
  return db
    .select()
    .from(journeyPlans)
    .where(planScope.where(workspaceId, eq(journeyPlans.active, true)))
    .orderBy(journeyPlans.id)
}
