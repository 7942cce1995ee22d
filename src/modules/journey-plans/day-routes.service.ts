/**
 * The day route (docs/API.md §Journey plans, "The day route"): a field user's visits of one local day in
 * their route order, with straight-line legs; and the office's optimisation of that order, stored as each
 * visit's `route_sequence` (audited; phones see the visits again through sync). The order itself is
 * computed by ./route-optimizer.ts, which is pure and tested on its own.
 */
import { eq, inArray, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { outlets, visitAssignees, visits } from '../../db/schema'
import { NotFound, ValidationFailed } from '../../lib/errors'
import type { AuthedContext } from '../../platform/context'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import { assertWorkspaceUsers } from '../teams'
import type { DayRoute, DayRouteQuery, OptimizeInput } from './day-routes.schemas'
import { legs, optimize, type RoutePoint } from './route-optimizer'

const visitScope = workspaceScoped(visits)

/** The user's visits of the day that are not cancelled, in route order: by `route_sequence` (unset last), then id. */
async function dayVisits(db: Db, workspaceId: number, userId: number, date: string) {
  return db
    .select({
      visit_id: visits.id,
      status: visits.status,
      route_sequence: visits.route_sequence,
      visit_date: visits.visit_date,
      outlet_id: outlets.id,
      outlet_name: outlets.name,
      latitude: outlets.latitude,
      longitude: outlets.longitude,
    })
    .from(visits)
    .innerJoin(outlets, eq(outlets.id, visits.outlet_id))
    .where(
      visitScope.where(
        workspaceId,
        eq(visits.visit_date, date),
        ne(visits.status, 'cancelled'),
        inArray(visits.id, db.select({ id: visitAssignees.visit_id }).from(visitAssignees).where(eq(visitAssignees.user_id, userId))),
      ),
    )
    .orderBy(sql`${visits.route_sequence} is null`, visits.route_sequence, visits.id)
}
type DayVisit = Awaited<ReturnType<typeof dayVisits>>[number]

function present(stops: readonly DayVisit[], start?: RoutePoint | null): DayRoute {
  const measured = legs(stops, start)
  const legOf = new Map(measured.legs.map((leg) => [leg.stop.visit_id, leg.leg_distance_m]))
  // Located stops in their order, then those without coordinates (legs() puts them last).
  const ordered = measured.legs.map((leg) => leg.stop)
  return {
    stops: ordered.map((stop) => {
      const leg = legOf.get(stop.visit_id)
      return {
        visit_id: stop.visit_id,
        status: stop.status,
        outlet: { id: stop.outlet_id, name: stop.outlet_name, latitude: stop.latitude, longitude: stop.longitude },
        route_sequence: stop.route_sequence,
        leg_distance_m: leg === null || leg === undefined ? null : Math.round(leg),
      }
    }),
    total_distance_m: Math.round(measured.total_distance_m),
    distance_source: 'straight_line',
  }
}

/** GET /office/v1/day-routes: 404 USER_NOT_FOUND for someone who is not a member of the workspace. */
export async function dayRoute(ctx: AuthedContext, query: DayRouteQuery): Promise<DayRoute> {
  const db = ctx.deps.db.read
  await assertWorkspaceUsers(db, ctx.actor.workspaceId, [query.user_id], 'user_id').catch(() => {
    throw new NotFound('USER')
  })
  return present(await dayVisits(db, ctx.actor.workspaceId, query.user_id, query.date))
}

/**
 * POST /office/v1/day-routes/optimize: reorders the day's `scheduled` visits to shorten the straight-line
 * route (visits already started or done, and `locked_visit_ids`, keep their places) and stores the order as
 * `route_sequence` 1…n, auditing each visit whose place changed. Deterministic for the same input; never
 * longer than the current order nor than nearest neighbour (./route-optimizer.ts).
 */
export function optimizeDayRoute(ctx: AuthedContext, input: OptimizeInput): Promise<DayRoute> {
  const { workspaceId } = ctx.actor
  return withTransaction(
    ctx,
    async ({ tx, audit }) => {
      await assertWorkspaceUsers(tx, workspaceId, [input.user_id], 'user_id')
      const stops = await dayVisits(tx, workspaceId, input.user_id, input.date)
      const ids = new Set(stops.map((stop) => stop.visit_id))
      const strangers = (input.locked_visit_ids ?? []).filter((id) => !ids.has(id))
      if (strangers.length > 0) throw ValidationFailed.field('locked_visit_ids', `not visits of this route: ${strangers.join(', ')}`)
      const locked = [...(input.locked_visit_ids ?? []), ...stops.filter((stop) => stop.status !== 'scheduled').map((stop) => stop.visit_id)]
      const result = optimize({ start: input.start ?? null, stops, locked })
      const now = ctx.deps.clock.now().toISOString()
      const ordered: DayVisit[] = []
      for (const [index, stop] of result.stops.entries()) {
        const sequence = index + 1
        ordered.push({ ...stop, route_sequence: sequence })
        if (stop.route_sequence === sequence) continue
        await tx
          .update(visits)
          .set({ route_sequence: sequence, updated_at: now })
          .where(visitScope.where(workspaceId, eq(visits.id, stop.visit_id)))
        await audit({
          entityType: 'visit',
          entityId: stop.visit_id,
          entityName: `${stop.outlet_name} · ${stop.visit_date} (#${stop.visit_id})`,
          action: 'updated',
          before: { route_sequence: stop.route_sequence },
          after: { route_sequence: sequence },
        })
      }
      return present(ordered, input.start ?? null)
    },
    // An optimisation that changes no place writes nothing, and so has nothing to audit.
    { audit: 'none' },
  )
}
