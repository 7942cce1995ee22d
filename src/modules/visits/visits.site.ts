/**
 * Where a check-in or check-out happened, judged inside its write transaction (docs/API.md §Field
 * integrity): the outlet's geofence, the phone's own mock flag, the user's last ping, the photo's
 * EXIF. The rules are the pure functions of ./visits.integrity.ts; this file reads what they need.
 */
import { and, desc, eq, isNull, lte, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { locationPings, outlets, teams, type visits, workspaces } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AppError } from '../../lib/errors'
import { workspaceScoped } from '../../platform/data/scope'
import type { TxScope } from '../../platform/data/transaction'
import type { PhotoExif } from '../files'
import { JUMP_BITS } from '../../lib/geo'
import { notify, workspaceAdminIds } from '../notifications'
import { checkSite, photoFlags, travelFlags, type GeofenceMode, type VisitFlag } from './visits.integrity'
import type { CheckInInput } from './visits.schemas'

/** The outlet checked in at and the user's pings (their modules own these tables; importing their scopes would reach into them). */
const outletScope = workspaceScoped(outlets)
const pingScope = workspaceScoped(locationPings)

const siteOfVisit = prepared((db) =>
  db
    .select({
      latitude: outlets.latitude,
      longitude: outlets.longitude,
      outletRadius: outlets.geofence_radius_m,
      mode: workspaces.geofence_mode,
      workspaceRadius: workspaces.geofence_radius_m,
    })
    .from(outlets)
    // The outlet's workspace is the caller's: its settings row is read by the same placeholder.
    .innerJoin(workspaces, eq(workspaces.id, sql.placeholder('workspaceId')))
    .where(outletScope.whereIncludingDeleted(sql.placeholder('workspaceId'), eq(outlets.id, sql.placeholder('outletId'))))
    .prepare(),
)

/**
 * The user's newest KEPT ping at or before `at` (device time where the phone sent one): a ping flagged
 * as a jump is where the phone was not, so a GPS glitch just before a check-in does not make it
 * impossible travel (docs/API.md §Field integrity).
 */
const lastPingBefore = prepared((db) =>
  db
    .select({ lat: locationPings.lat, lng: locationPings.lng, recorded_at: locationPings.recorded_at })
    .from(locationPings)
    .where(
      pingScope.where(
        sql.placeholder('workspaceId'),
        eq(locationPings.user_id, sql.placeholder('userId')),
        lte(locationPings.recorded_at, sql.placeholder('at')),
        sql`${locationPings.flags} & ${sql.raw(String(JUMP_BITS))} = 0`,
      ),
    )
    .orderBy(desc(locationPings.recorded_at), desc(locationPings.id))
    .limit(1)
    .prepare(),
)

/**
 * What the phone sent with the action (its accuracy and mock flag as the body has them), the position
 * once required, and the EXIF of the photo when it was an uploaded image.
 */
export type SiteInput = Pick<CheckInInput, 'accuracy_m' | 'is_mock'> & { latitude: number; longitude: number; photo: PhotoExif | null }

export interface SiteAssessment {
  distanceM: number | null
  flags: VisitFlag[]
}

/**
 * The geofence verdict of a position at the visit's outlet; in `block` mode outside the radius, 422
 * OUTSIDE_GEOFENCE. Reads one row, so it also runs on the read connection before a request's photo
 * is decoded (a refused check-in costs no decoding or disk), and again inside the write transaction.
 */
export async function judgeGeofence(db: Db, ctx: AuthedContext, visit: typeof visits.$inferSelect, input: Omit<SiteInput, 'photo' | 'is_mock'>) {
  const at = { lat: input.latitude, lng: input.longitude }
  const [site] = await siteOfVisit(db).all({ outletId: visit.outlet_id, workspaceId: ctx.actor.workspaceId })
  const radiusM = site?.outletRadius ?? site?.workspaceRadius ?? 200
  const verdict = checkSite({
    at,
    accuracyM: input.accuracy_m ?? null,
    outlet: site && site.latitude !== null && site.longitude !== null ? { lat: site.latitude, lng: site.longitude } : null,
    radiusM,
    mode: (site?.mode ?? 'warn') as GeofenceMode,
  })
  if (verdict.refused) {
    const distance = Math.round(verdict.distanceM! * 10) / 10
    throw new AppError('OUTSIDE_GEOFENCE', `you are ${Math.round(distance)} m from the outlet; check-in and check-out must be within ${radiusM} m`, {
      distance_m: [distance],
      radius_m: [radiusM],
    })
  }
  return verdict
}

/**
 * The geofence verdict and integrity flags of a check-in or check-out at the server's `now`.
 * In `block` mode outside the radius: 422 OUTSIDE_GEOFENCE (the caller's transaction rolls back).
 */
export async function assessSite(
  scope: TxScope,
  ctx: AuthedContext,
  visit: typeof visits.$inferSelect,
  action: 'check_in' | 'check_out',
  input: SiteInput,
): Promise<SiteAssessment> {
  const now = ctx.deps.clock.now().getTime()
  const at = { lat: input.latitude, lng: input.longitude }
  const verdict = await judgeGeofence(scope.tx, ctx, visit, input)
  const flags = new Set<VisitFlag>(verdict.flags)
  if (input.is_mock) flags.add('mock_location')
  if (action === 'check_in') {
    const [last] = await lastPingBefore(scope.tx).all({ workspaceId: ctx.actor.workspaceId, userId: ctx.actor.userId, at: new Date(now).toISOString() })
    const previous = last ? { lat: last.lat, lng: last.lng, at: Date.parse(last.recorded_at) } : null
    for (const flag of travelFlags(previous, { ...at, at: now })) flags.add(flag)
  }
  for (const flag of photoFlags(input.photo, at, now)) flags.add(flag)
  return { distanceM: verdict.distanceM, flags: [...flags] }
}

/** The leader of a live team (a flagged check-in's), prepared once per connection. */
const leaderOfTeam = prepared((db) =>
  db
    .select({ leader: teams.leader_id })
    .from(teams)
    .where(and(eq(teams.id, sql.placeholder('teamId')), isNull(teams.deleted_at)))
    .prepare(),
)

/** A check-in that raised flags notifies the visit's team leader and the workspace's admins. */
export async function notifyFlaggedCheckIn(scope: TxScope, ctx: AuthedContext, visit: typeof visits.$inferSelect, flags: VisitFlag[]) {
  if (!flags.length) return
  const recipients = new Set(await workspaceAdminIds(scope.tx, ctx.actor.workspaceId))
  if (visit.team_id !== null) {
    const [team] = await leaderOfTeam(scope.tx).all({ teamId: visit.team_id })
    if (team?.leader) recipients.add(team.leader)
  }
  recipients.delete(ctx.actor.userId)
  await notify(scope, ctx, {
    userIds: [...recipients],
    workspaceId: ctx.actor.workspaceId,
    type: 'visit.flagged',
    title: 'Check-in flagged',
    body: `${ctx.actor.name} checked in with: ${flags.join(', ').replaceAll('_', ' ')}`,
    data: { visit_id: visit.id, user_id: ctx.actor.userId, flags },
  })
}
