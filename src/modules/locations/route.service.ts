/**
 * Route replay (docs/API.md §Route replay): one user's local day of pings as GeoJSON or GPX.
 *
 * The day is the workspace's local day, read as a half-open range of UTC instants with ONE query on
 * the (workspace, user, recorded_at, id) index, in device-time order. Pings the server flagged as
 * jumps (`impossible_speed`, `teleport`) are left out of the line and the distance: they are where
 * the phone was not — unless, replayed against the last kept ping, they are no jump (`keepsOnLine`). The route itself (segments split at gaps, stops, distance, moving and stopped
 * time) is `summarizeTrack` of src/lib/geo.ts; this file reads and shapes.
 */
import { and, eq, gte, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared, selectValues } from '../../db/prepared'
import { memberships, outlets, users, visitAssignees, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { NotFound } from '../../lib/errors'
import { workspaceScoped } from '../../platform/data/scope'
import { addDays, localDayRange } from '../../lib/time-zones'
import { visitFlagNames, type VisitFlag } from '../visits'
import { keepsOnLine, summarizeTrack, type Stop, type TrackPoint } from '../../lib/geo'
import { pingScope } from './locations.service'
import type { RouteQuery } from './locations.schemas'

/** Members and assignees of the workspace, read for a day's route (their modules own these tables; importing their scopes would reach into them). */
const membershipScope = workspaceScoped(memberships)
const visitAssigneeScope = workspaceScoped(visitAssignees)

/** A live member of the workspace (active or not: a deactivated user's past days can still be replayed). */
const memberOf = prepared((db) =>
  db
    .select({ id: users.id, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(membershipScope.where(sql.placeholder('workspaceId'), eq(memberships.user_id, sql.placeholder('userId')), isNull(users.deleted_at)))
    .limit(1)
    .prepare(),
)

/** The user's pings of [from, until) by device time: a range of the (workspace, user, recorded_at, id) index. */
export const PINGS_OF_DAY = `select lat, lng, recorded_at, flags from location_pings
  where ${pingScope.text()} and user_id = ? and recorded_at >= ? and recorded_at < ? order by recorded_at, id`

/**
 * The user's visits dated the day before, the day or the day after (a range of the assignees'
 * (workspace, user, visit_date) index); the caller keeps those of the day or checked in during it.
 */
const visitsAround = prepared((db) =>
  db
    .select({
      id: visits.id,
      visit_date: visits.visit_date,
      status: visits.status,
      flags: visits.flags,
      outlet_id: visits.outlet_id,
      outlet_name: outlets.name,
      checked_in_at: visits.checked_in_at,
      checked_out_at: visits.checked_out_at,
      check_in_latitude: visits.check_in_latitude,
      check_in_longitude: visits.check_in_longitude,
    })
    .from(visitAssignees)
    .innerJoin(visits, eq(visits.id, visitAssignees.visit_id))
    .innerJoin(outlets, eq(outlets.id, visits.outlet_id))
    .where(
      and(
        visitAssigneeScope.where(sql.placeholder('workspaceId'), eq(visitAssignees.user_id, sql.placeholder('userId'))),
        gte(visitAssignees.visit_date, sql.placeholder('dateFrom')),
        sql`${visitAssignees.visit_date} <= ${sql.placeholder('dateTo')}`,
        isNull(visits.deleted_at),
      ),
    )
    .orderBy(visits.checked_in_at, visits.id)
    .prepare(),
)

export interface RoutePing extends TrackPoint {
  flags: number
}

export interface DayVisit {
  id: number
  outlet_id: number
  outlet_name: string
  status: string
  flags: VisitFlag[]
  checked_in_at: string | null
  checked_out_at: string | null
  check_in: { lat: number; lng: number } | null
}

export interface RouteOfDay {
  user: { id: number; name: string }
  date: string
  timeZone: string
  pings: RoutePing[]
  visits: DayVisit[]
}

/** The stored pings of a user's local day, oldest first (device time, then id). */
export async function readPingsOfDay(db: Db, workspaceId: number, userId: number, range: { from: string; until: string }): Promise<RoutePing[]> {
  return pingsFromValues(await selectValues(db, PINGS_OF_DAY, [workspaceId, userId, range.from, range.until]))
}

/** `[lat, lng, recorded_at, flags]` rows as track points. */
export function pingsFromValues(rows: readonly unknown[][]): RoutePing[] {
  const points: RoutePing[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    points[i] = { lat: row[0] as number, lng: row[1] as number, at: Date.parse(row[2] as string), flags: Number(row[3]) }
  }
  return points
}

/** The pings that make the line: everything but the jumps, each judged against the last kept ping (`keepsOnLine`). */
export function keptPings<P extends TrackPoint & { flags: number }>(pings: readonly P[]): P[] {
  const kept: P[] = []
  for (const ping of pings) if (keepsOnLine(kept.at(-1) ?? null, ping, ping.flags)) kept.push(ping)
  return kept
}

/** Everything the route of `userId`'s local `date` is made of; 404 USER_NOT_FOUND for a non-member. */
export async function loadRouteOfDay(ctx: AuthedContext, userId: number, date: string): Promise<RouteOfDay> {
  const db = ctx.deps.db.read
  const workspaceId = ctx.actor.workspaceId
  const [user] = await memberOf(db).all({ workspaceId, userId })
  if (!user) throw new NotFound('USER')
  const range = localDayRange(date, ctx.actor.timeZone)
  const [pings, around] = await Promise.all([
    readPingsOfDay(db, workspaceId, userId, range),
    visitsAround(db).all({ workspaceId, userId, dateFrom: addDays(date, -1), dateTo: addDays(date, 1) }),
  ])
  const ofDay = around.filter(
    (visit) => visit.visit_date === date || (visit.checked_in_at !== null && visit.checked_in_at >= range.from && visit.checked_in_at < range.until),
  )
  return {
    user,
    date,
    timeZone: ctx.actor.timeZone,
    pings,
    visits: ofDay.map((visit) => ({
      id: visit.id,
      outlet_id: visit.outlet_id,
      outlet_name: visit.outlet_name,
      status: visit.status,
      flags: visitFlagNames(visit.flags),
      checked_in_at: visit.checked_in_at,
      checked_out_at: visit.checked_out_at,
      check_in: visit.check_in_latitude !== null && visit.check_in_longitude !== null ? { lat: visit.check_in_latitude, lng: visit.check_in_longitude } : null,
    })),
  }
}

/** GET /office/v1/locations/route: the route of `user_id`'s local `date` as GeoJSON (default) or GPX. */
export async function routeReplay(ctx: AuthedContext, query: RouteQuery): Promise<{ contentType: string; body: string }> {
  const route = await loadRouteOfDay(ctx, query.user_id, query.date)
  return query.format === 'gpx'
    ? { contentType: 'application/gpx+xml; charset=utf-8', body: routeGpx(route) }
    : { contentType: 'application/geo+json; charset=utf-8', body: JSON.stringify(routeGeoJson(route)) }
}

/**
 * The visit in progress during a stop: checked in before the stop ended and not checked out before
 * it began (a visit still open counts until the end of the day). Of several, the one overlapping the
 * stop longest.
 */
export function visitDuring(stop: Stop, dayVisits: readonly DayVisit[], dayEnd: number): number | null {
  let best: number | null = null
  let bestOverlap = -1
  for (const visit of dayVisits) {
    if (visit.checked_in_at === null) continue
    const start = Date.parse(visit.checked_in_at)
    const end = visit.checked_out_at === null ? Math.max(dayEnd, start) : Date.parse(visit.checked_out_at)
    const overlap = Math.min(end, stop.ended_at) - Math.max(start, stop.started_at)
    if (overlap >= 0 && overlap > bestOverlap) {
      best = visit.id
      bestOverlap = overlap
    }
  }
  return best
}

const iso = (at: number) => new Date(at).toISOString()
const round1 = (value: number) => Math.round(value * 10) / 10
/** [lng, lat]: GeoJSON's order (RFC 7946 §3.1.1). */
const position = (point: { lat: number; lng: number }) => [point.lng, point.lat]

/** The route as a summary: what both formats are written from. */
export function routeSummary(route: RouteOfDay) {
  const kept = keptPings(route.pings)
  const track = summarizeTrack(kept)
  const dayEnd = Date.parse(localDayRange(route.date, route.timeZone).until)
  return {
    track,
    kept: kept.length,
    excluded: route.pings.length - kept.length,
    stops: track.stops.map((stop) => ({ ...stop, visit_id: visitDuring(stop, route.visits, dayEnd) })),
    properties: {
      user_id: route.user.id,
      user_name: route.user.name,
      date: route.date,
      time_zone: route.timeZone,
      distance_m: round1(track.distance_m),
      moving_s: Math.round(track.moving_s),
      stopped_s: Math.round(track.stopped_s),
      gaps: track.gaps.map((gap) => ({ from: iso(gap.from), to: iso(gap.to) })),
      first_ping_at: route.pings.length ? iso(route.pings[0]!.at) : null,
      last_ping_at: route.pings.length ? iso(route.pings[route.pings.length - 1]!.at) : null,
      pings: route.pings.length,
      excluded_pings: route.pings.length - kept.length,
    },
  }
}

/**
 * The GeoJSON FeatureCollection (RFC 7946): each segment a LineString (a segment of one ping, which
 * a LineString cannot hold, a Point with `kind: "segment"`), each stop and each checked-in visit a Point.
 */
export function routeGeoJson(route: RouteOfDay) {
  const summary = routeSummary(route)
  const features: unknown[] = []
  for (const segment of summary.track.segments) {
    const first = segment[0]!
    const last = segment[segment.length - 1]!
    const properties = { kind: 'segment', started_at: iso(first.at), ended_at: iso(last.at), pings: segment.length }
    if (segment.length === 1) {
      features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: position(first) }, properties })
      continue
    }
    const coordinates = new Array(segment.length)
    for (let i = 0; i < segment.length; i++) coordinates[i] = [segment[i]!.lng, segment[i]!.lat]
    features.push({ type: 'Feature', geometry: { type: 'LineString', coordinates }, properties })
  }
  for (const stop of summary.stops) {
    features.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: position(stop) },
      properties: {
        kind: 'stop',
        started_at: iso(stop.started_at),
        ended_at: iso(stop.ended_at),
        duration_s: Math.round(stop.duration_s),
        visit_id: stop.visit_id,
      },
    })
  }
  for (const visit of route.visits) {
    if (!visit.check_in) continue
    features.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: position(visit.check_in) },
      properties: {
        kind: 'visit',
        visit_id: visit.id,
        outlet_id: visit.outlet_id,
        outlet_name: visit.outlet_name,
        status: visit.status,
        flags: visit.flags,
        checked_in_at: visit.checked_in_at,
        checked_out_at: visit.checked_out_at,
      },
    })
  }
  return { type: 'FeatureCollection', properties: summary.properties, features }
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }
/**
 * What XML 1.0 cannot hold at all, escaped or not (its `Char` production): C0 controls other than tab,
 * line feed and carriage return, lone surrogates, U+FFFE and U+FFFF. Names are refused with them at
 * write time (src/platform/http/schema.ts), but rows written before that may hold them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding what XML cannot hold is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/gu
/** Text as XML 1.0 character data or attribute value: markup escaped, impossible characters shown as U+FFFD. */
export const escapeXml = (text: string) => text.replace(NOT_XML_CHAR, '\ufffd').replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!)

const minutes = (seconds: number) => `${Math.round(seconds / 60)} min`

/**
 * GPX 1.1 (topografix.com/GPX/1/1): waypoints for stops and visits, then one track with a `trkseg`
 * per segment. Element order follows the schema (metadata, wpt, trk; in a wpt: time, name, desc, type).
 */
export function routeGpx(route: RouteOfDay): string {
  const summary = routeSummary(route)
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gpx version="1.1" creator="Field Force Operations Service" xmlns="http://www.topografix.com/GPX/1/1">',
    `<metadata><name>${escapeXml(`${route.user.name} · ${route.date}`)}</name></metadata>`,
  ]
  for (const stop of summary.stops) {
    const visit = stop.visit_id === null ? '' : ` (visit ${stop.visit_id})`
    out.push(
      `<wpt lat="${stop.lat}" lon="${stop.lng}"><time>${iso(stop.started_at)}</time><name>${escapeXml(`Stop, ${minutes(stop.duration_s)}${visit}`)}</name>` +
        `<desc>${iso(stop.started_at)} – ${iso(stop.ended_at)}</desc><type>stop</type></wpt>`,
    )
  }
  for (const visit of route.visits) {
    if (!visit.check_in) continue
    const flags = visit.flags.length ? `; flags: ${visit.flags.join(', ')}` : ''
    out.push(
      `<wpt lat="${visit.check_in.lat}" lon="${visit.check_in.lng}">${visit.checked_in_at ? `<time>${visit.checked_in_at}</time>` : ''}` +
        `<name>${escapeXml(visit.outlet_name)}</name><desc>${escapeXml(`visit ${visit.id}, ${visit.status}${flags}`)}</desc><type>visit</type></wpt>`,
    )
  }
  out.push(`<trk><name>${escapeXml(`${route.user.name} · ${route.date}`)}</name>`)
  for (const segment of summary.track.segments) {
    out.push('<trkseg>')
    for (const point of segment) out.push(`<trkpt lat="${point.lat}" lon="${point.lng}"><time>${iso(point.at)}</time></trkpt>`)
    out.push('</trkseg>')
  }
  out.push('</trk>', '</gpx>')
  return out.join('\n')
}
