/**
 * Journey plans (README.md beside this file; docs/API.md §Journey plans): CRUD of a plan with its stops,
 * the stops import, and generation on demand. Every write runs in one transaction with its audit entry;
 * an edit, deactivation or deletion removes the plan's still-scheduled generated visits from tomorrow on
 * in that same transaction. Generation runs after the plan's transaction, in short transactions of its
 * own (./generation.ts): creating a plan, editing an active one or re-activating one generates the
 * workspace's horizon at once, as the nightly run would.
 */
import { asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { journeyPlans, journeyPlanStops, memberships, outlets, users } from '../../db/schema'
import { AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { addDays } from '../../lib/time-zones'
import type { AuthedContext } from '../../platform/context'
import { defineList } from '../../platform/data/list'
import { DEFAULT_LIST, foldText, type Page } from '../../platform/data/pagination'
import { type TxScope, withTransaction } from '../../platform/data/transaction'
import { outletScope } from '../outlets'
import { projectScope } from '../projects'
import { teamScope } from '../teams'
import { membershipScope } from '../users'
import { calendarErrors, daysBetween, firstEditableDate, maskToWeeks, weeksToMask } from './calendar'
import { type GenerationResult, generateVisits, horizonDays, horizonRange, planScope, removeGeneratedVisits } from './generation'
import {
  GENERATE_MAX_DAYS,
  type GenerateInput,
  type JourneyPlanInput,
  type JourneyPlanListQuery,
  type JourneyPlanUpdateInput,
  type StopInput,
} from './journey-plans.schemas'
import { parseStopsCsv } from './stops-csv'

type PlanRow = typeof journeyPlans.$inferSelect
/** A stop as stored: weeks as the bit mask (0: every week). */
interface StoredStop {
  outlet_id: number
  weekday: number
  weeks: number
  sequence: number
}

/** The stops of plans with their outlets' names, in route order: weekday, sequence, id. */
async function stopsOf(db: Db, planIds: number[]) {
  if (planIds.length === 0) return []
  return db
    .select({
      plan_id: journeyPlanStops.plan_id,
      outlet_id: journeyPlanStops.outlet_id,
      outlet_name: outlets.name,
      weekday: journeyPlanStops.weekday,
      weeks: journeyPlanStops.weeks,
      sequence: journeyPlanStops.sequence,
    })
    .from(journeyPlanStops)
    .innerJoin(outlets, eq(outlets.id, journeyPlanStops.outlet_id))
    .where(inArray(journeyPlanStops.plan_id, planIds))
    .orderBy(asc(journeyPlanStops.weekday), asc(journeyPlanStops.sequence), asc(journeyPlanStops.id))
}

async function present(db: Db, rows: PlanRow[]) {
  const stops = await stopsOf(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((plan) => ({
    id: plan.id,
    workspace_id: plan.workspace_id,
    user_id: plan.user_id,
    project_id: plan.project_id,
    team_id: plan.team_id,
    name: plan.name,
    start_date: plan.start_date,
    end_date: plan.end_date,
    cycle_weeks: plan.cycle_weeks,
    active: plan.active,
    stops: stops
      .filter((stop) => stop.plan_id === plan.id)
      .map(({ outlet_id, outlet_name, weekday, weeks, sequence }) => ({
        outlet_id,
        outlet_name,
        weekday,
        weeks: maskToWeeks(weeks, plan.cycle_weeks),
        sequence,
      })),
    created_by: plan.created_by,
    created_at: plan.created_at,
    updated_at: plan.updated_at,
    deleted_at: plan.deleted_at,
  }))
}
export type PresentedPlan = Awaited<ReturnType<typeof present>>[number]

export async function findPlan(db: Db, workspaceId: number, id: number): Promise<PlanRow> {
  const plan = await planScope.find(db, workspaceId, id)
  if (!plan) throw new NotFound('JOURNEY_PLAN')
  return plan
}

/** Live plans of the workspace among `ids`, as the detail answers them (the office change feed's loader). */
export async function plansByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return present(
    db,
    await db
      .select()
      .from(journeyPlans)
      .where(planScope.where(workspaceId, inArray(journeyPlans.id, ids))),
  )
}

const planList = defineList({
  scope: planScope,
  // Plans are few per workspace and have no folded name column: the keyword scans lower(name).
  search: { columns: [sql`lower(coalesce(${journeyPlans.name}, ''))`] },
  filters: {
    user_id: (id: number) => eq(journeyPlans.user_id, id),
    team_id: (id: number) => eq(journeyPlans.team_id, id),
    project_id: (id: number) => eq(journeyPlans.project_id, id),
    active: (active: boolean) => eq(journeyPlans.active, active),
  },
  sort: {
    created_at: journeyPlans.created_at,
    updated_at: journeyPlans.updated_at,
    name: journeyPlans.name,
    id: journeyPlans.id,
    start_date: journeyPlans.start_date,
  },
  limits: DEFAULT_LIST,
})

export async function listPlans(ctx: AuthedContext, query: JourneyPlanListQuery): Promise<Page<PresentedPlan>> {
  const result = await planList(ctx, query)
  return { rows: await present(ctx.deps.db.read, result.rows), meta: result.meta }
}

export async function getPlan(ctx: AuthedContext, id: number): Promise<PresentedPlan> {
  const db = ctx.deps.db.read
  return (await present(db, [await findPlan(db, ctx.actor.workspaceId, id)]))[0]
}

/** The plan's fields after an input is applied to the current row (or to the defaults, for a new plan). */
interface PlanFields {
  user_id: number
  project_id: number
  team_id: number | null
  name: string | null
  start_date: string
  end_date: string | null
  cycle_weeks: number
  active: boolean
}

function merged(input: JourneyPlanUpdateInput, current?: PlanRow): PlanFields {
  const pick = <K extends keyof PlanFields>(key: K, fallback: PlanFields[K]): PlanFields[K] =>
    input[key] !== undefined ? (input[key] as PlanFields[K]) : current ? (current[key] as PlanFields[K]) : fallback
  return {
    user_id: pick('user_id', 0),
    project_id: pick('project_id', 0),
    team_id: pick('team_id', null),
    name: pick('name', null),
    start_date: pick('start_date', ''),
    end_date: pick('end_date', null),
    cycle_weeks: pick('cycle_weeks', 4),
    active: pick('active', true),
  }
}

/** Stops of the body as stored; a stop without `sequence` takes its 1-based position. */
const storedStops = (stops: StopInput[]): StoredStop[] =>
  stops.map((stop, index) => ({ outlet_id: stop.outlet_id, weekday: stop.weekday, weeks: weeksToMask(stop.weeks), sequence: stop.sequence ?? index + 1 }))

/**
 * What is wrong with a plan and its stops, keyed like the body: the calendar (calendar.ts), an outlet
 * twice on a weekday in a common week (`stops.N.outlet_id`, the later one), and the references — an
 * active member, an active project, a team and live active outlets of the caller's workspace (another
 * workspace's id is reported like a missing one). `changed` limits the reference checks to what the
 * input names, so an edit of the name does not fail because the project was closed since.
 */
async function planErrors(db: Db, workspaceId: number, plan: PlanFields, stops: StoredStop[], keys: { stopsGiven: boolean; changed: Set<string> }) {
  const calendarStops = stops.map((stop) => ({ ...stop, weeks: stop.weeks === 0 ? null : maskToWeeks(stop.weeks, 8) }))
  // Kept stops are checked against a shortened cycle below, under `cycle_weeks`.
  const errors = calendarErrors(plan, keys.stopsGiven ? calendarStops : [])
  const at = (field: string, message: string) => {
    errors[field] ??= [message]
  }
  // Stops kept from before an edit that shortens the cycle must still fall within it.
  if (!keys.stopsGiven && stops.some((stop) => stop.weeks >> plan.cycle_weeks !== 0)) at('cycle_weeks', 'is shorter than weeks the plan’s stops are visited in')
  const allWeeks = (1 << plan.cycle_weeks) - 1
  const seen = new Map<string, { mask: number; index: number }[]>()
  stops.forEach((stop, index) => {
    const key = `${stop.outlet_id}:${stop.weekday}`
    const mask = stop.weeks === 0 ? allWeeks : stop.weeks
    const earlier = seen.get(key) ?? []
    const clash = earlier.find((entry) => entry.mask & mask)
    if (clash) at(`stops.${index}.outlet_id`, `repeats stop ${clash.index}: the same outlet on the same weekday in a common week`)
    earlier.push({ mask, index })
    seen.set(key, earlier)
  })
  const { changed } = keys
  if (changed.has('user_id')) {
    const member = await db
      .select({ id: memberships.user_id })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.user_id))
      .where(membershipScope.where(workspaceId, eq(memberships.user_id, plan.user_id), eq(memberships.is_active, true), isNull(users.deleted_at)))
    if (member.length === 0) at('user_id', `user ${plan.user_id} is not an active member of this workspace`)
  }
  if (changed.has('project_id')) {
    const project = await projectScope.find(db, workspaceId, plan.project_id)
    if (!project) at('project_id', `project ${plan.project_id} does not exist`)
    else if (project.status !== 'active') at('project_id', `project ${plan.project_id} is ${project.status}, not active`)
  }
  if (changed.has('team_id') && plan.team_id !== null && !(await teamScope.find(db, workspaceId, plan.team_id)))
    at('team_id', `team ${plan.team_id} does not exist`)
  if (keys.stopsGiven && stops.length) {
    const found = new Map(
      (await outletScope.findManyBy(db, workspaceId, outlets.id, [...new Set(stops.map((stop) => stop.outlet_id))])).map((row) => [row.id, row.is_active]),
    )
    stops.forEach((stop, index) => {
      const active = found.get(stop.outlet_id)
      if (active === undefined) at(`stops.${index}.outlet_id`, `outlet ${stop.outlet_id} does not exist`)
      else if (!active) at(`stops.${index}.outlet_id`, `outlet ${stop.outlet_id} is inactive`)
    })
  }
  return errors
}

async function replaceStops(tx: Db, workspaceId: number, planId: number, stops: StoredStop[], now: string) {
  await tx.delete(journeyPlanStops).where(eq(journeyPlanStops.plan_id, planId))
  if (stops.length) await tx.insert(journeyPlanStops).values(stops.map((stop) => ({ ...stop, workspace_id: workspaceId, plan_id: planId, created_at: now })))
}

const planName = (plan: { id: number; name: string | null }) => plan.name ?? `Journey plan #${plan.id}`

/** After the plan's own transaction: the visits of the horizon (from `from`), as the nightly run would make them. */
async function generateAfterWrite(ctx: AuthedContext, plan: PresentedPlan, from: 'today' | 'tomorrow') {
  if (!plan.active) return
  const days = await horizonDays(ctx.deps.db.read, ctx.actor.workspaceId)
  const range = horizonRange(ctx.deps.clock.now(), ctx.actor.timeZone, days)
  const start = from === 'today' ? range.from : addDays(range.from, 1)
  try {
    await generateVisits(ctx, plan.id, { from: start, to: range.to })
  } catch (error) {
    // The plan is saved; the nightly run creates what this run could not. Failing the request now would
    // make the client create the plan twice.
    ctx.deps.logger.error('journey plan generation failed', { plan_id: plan.id, request_id: ctx.meta.requestId, error: String(error) })
  }
}

export async function createPlan(ctx: AuthedContext, input: JourneyPlanInput): Promise<PresentedPlan> {
  const workspaceId = ctx.actor.workspaceId
  const plan = await withTransaction(ctx, async ({ tx, audit }) => {
    const fields = merged(input)
    const stops = storedStops(input.stops ?? [])
    const errors = await planErrors(tx, workspaceId, fields, stops, { stopsGiven: true, changed: new Set(Object.keys(input)) })
    if (Object.keys(errors).length) throw new ValidationFailed(errors)
    const now = ctx.deps.clock.now().toISOString()
    const row = await planScope.insert(tx, workspaceId, { ...fields, created_by: ctx.actor.userId, created_at: now, updated_at: now })
    await replaceStops(tx, workspaceId, row.id, stops, now)
    const [result] = await present(tx, [row])
    await audit({ entityType: 'journey_plan', entityId: row.id, entityName: planName(row), action: 'created', newValues: result })
    return result
  })
  await generateAfterWrite(ctx, plan, 'today')
  return plan
}

/**
 * Applies an edit in one transaction: the plan, its stops (replaced when given), the removal of its
 * still-scheduled generated visits from tomorrow on, and the audit entries. Used by PUT and the stops import.
 */
async function editPlan(ctx: AuthedContext, id: number, input: JourneyPlanUpdateInput, stopsOverride?: StoredStop[]) {
  const workspaceId = ctx.actor.workspaceId
  let reactivated = false
  let regenerate = false
  const plan = await withTransaction(ctx, async (scope) => {
    const { tx, audit } = scope
    const current = await findPlan(tx, workspaceId, id)
    const [before] = await present(tx, [current])
    const fields = merged(input, current)
    const stopsGiven = stopsOverride !== undefined || input.stops !== undefined
    const stops = stopsOverride ?? (input.stops ? storedStops(input.stops) : await storedStopsOf(tx, id))
    const errors = await planErrors(tx, workspaceId, fields, stops, {
      stopsGiven: stopsGiven && stopsOverride === undefined,
      changed: new Set(Object.keys(input)),
    })
    if (Object.keys(errors).length) throw new ValidationFailed(errors)
    // Strictly later than the stored stamp: generation tells an edited plan by it (generation.ts `stillTheSame`),
    // so two edits within one millisecond (or under a clock that stood still) must still differ.
    const now = new Date(Math.max(ctx.deps.clock.now().getTime(), Date.parse(current.updated_at) + 1)).toISOString()
    const updated = (await planScope.update(tx, workspaceId, id, { ...fields, updated_at: now }))!
    if (stopsGiven) await replaceStops(tx, workspaceId, id, stops, now)
    const [after] = await present(tx, [updated])
    await audit({ entityType: 'journey_plan', entityId: id, entityName: planName(updated), action: 'updated', before, after })
    // A rename leaves the visits alone; anything that changes which visits the plan makes replaces them.
    regenerate = stopsGiven || GENERATION_FIELDS.some((key) => input[key] !== undefined && input[key] !== current[key])
    if (regenerate) await removeFuture(scope, ctx, id, updated.active ? 'journey plan changed' : 'journey plan deactivated')
    reactivated = !current.active && updated.active
    return after
  })
  if (regenerate) await generateAfterWrite(ctx, plan, reactivated ? 'today' : 'tomorrow')
  return plan
}

/** The fields that decide which visits a plan makes (not its name). */
const GENERATION_FIELDS = ['user_id', 'project_id', 'team_id', 'start_date', 'end_date', 'cycle_weeks', 'active'] as const

async function storedStopsOf(db: Db, planId: number): Promise<StoredStop[]> {
  return db
    .select({ outlet_id: journeyPlanStops.outlet_id, weekday: journeyPlanStops.weekday, weeks: journeyPlanStops.weeks, sequence: journeyPlanStops.sequence })
    .from(journeyPlanStops)
    .where(eq(journeyPlanStops.plan_id, planId))
    .orderBy(asc(journeyPlanStops.id))
}

/** The plan's still-scheduled generated visits from tomorrow (the workspace's local day) on. */
const removeFuture = (scope: TxScope, ctx: AuthedContext, planId: number, reason: string) =>
  removeGeneratedVisits(scope, ctx, planId, firstEditableDate(ctx.deps.clock.now(), ctx.actor.timeZone), reason)

export const updatePlan = (ctx: AuthedContext, id: number, input: JourneyPlanUpdateInput) => editPlan(ctx, id, input)

/** Soft-deletes the plan and removes its still-scheduled generated visits from tomorrow on (today's and past ones stay). */
export function deletePlan(ctx: AuthedContext, id: number) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async (scope) => {
    const current = await findPlan(scope.tx, workspaceId, id)
    const [before] = await present(scope.tx, [current])
    const deleted = (await planScope.softDelete(scope.tx, workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await scope.audit({ entityType: 'journey_plan', entityId: id, entityName: planName(current), action: 'deleted', oldValues: before })
    await removeFuture(scope, ctx, id, 'journey plan deleted')
    return { ...before, deleted_at: deleted.deleted_at, updated_at: deleted.updated_at }
  })
}

/**
 * Replaces the plan's stops with a CSV's (stops-csv.ts): all or nothing, errors keyed `rows.<line>.<column>`;
 * outlet codes are resolved in the caller's workspace (an unknown or inactive one is that row's error).
 * Then it is an edit like any other.
 */
export async function importStops(ctx: AuthedContext, id: number, text: string) {
  const workspaceId = ctx.actor.workspaceId
  const db = ctx.deps.db.read
  const current = await findPlan(db, workspaceId, id)
  const rows = parseStopsCsv(text, current.cycle_weeks)
  const codes = [...new Set(rows.map((row) => foldText(row.outlet_code)))]
  const found = new Map((await outletScope.findManyBy(db, workspaceId, outlets.code_key, codes)).map((outlet) => [outlet.code_key, outlet]))
  const errors: Record<string, string[]> = {}
  const stops: StoredStop[] = []
  for (const row of rows) {
    const outlet = found.get(foldText(row.outlet_code))
    if (!outlet) errors[`rows.${row.line}.outlet_code`] = [`no outlet has the code ${row.outlet_code}`]
    else if (!outlet.is_active) errors[`rows.${row.line}.outlet_code`] = [`outlet ${row.outlet_code} is inactive`]
    else stops.push({ outlet_id: outlet.id, weekday: row.weekday, weeks: weeksToMask(row.weeks), sequence: row.sequence })
  }
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
  // Two codes that fold alike name one outlet: stops-csv.ts already refused that as a repeat.
  const plan = await editPlan(ctx, id, {}, stops)
  return plan
}

/** POST /journey-plans/:id/generate: the plan's visits of [date_from, date_to] at once (≤ GENERATE_MAX_DAYS days). */
export async function generatePlan(ctx: AuthedContext, id: number, input: GenerateInput): Promise<GenerationResult> {
  if (input.date_to < input.date_from) throw ValidationFailed.field('date_to', 'must not be before date_from')
  if (daysBetween(input.date_from, input.date_to) + 1 > GENERATE_MAX_DAYS)
    throw ValidationFailed.field('date_to', `must be at most ${GENERATE_MAX_DAYS} days from date_from`)
  const plan = await findPlan(ctx.deps.db.read, ctx.actor.workspaceId, id)
  if (!plan.active) throw new AppError('JOURNEY_PLAN_INACTIVE', 'the journey plan is inactive: activate it first')
  return generateVisits(ctx, id, { from: input.date_from, to: input.date_to })
}
