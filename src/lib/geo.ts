/**
 * Geometry, the one home of it: pure functions over positions and a user's pings, no database and no clock.
 *
 *   requireLocation   the coordinates a field action must carry (check-in/out, clock-in/out), or 400
 *   locationOf        a stored latitude/longitude pair as `{ latitude, longitude }` or null
 *   haversineMeters   great-circle distance on the mean Earth sphere
 *   jumpFlags         `impossible_speed` / `teleport` of a ping against the last kept one before it
 *   keepsOnLine       whether a stored ping is on the line (not a jump from the last kept ping)
 *   summarizeTrack    the route of a day: kept segments, stops, gaps, distance, moving and stopped time
 *
 * The thresholds are the product's rules (docs/API.md §Field integrity, §Route replay): a ping more
 * than 70 m/s from the previous one is impossible for a field user on the road; more than 5 km within
 * 60 s is a teleport; a stop is at least 5 minutes within 100 m; a gap is more than 15 minutes without
 * a ping. Pings are ordered by device time (`at`, epoch milliseconds) before they come here. The ping
 * flag bits are how the jump judgement is stored (location_pings.flags); what a flag means to a visit
 * lives with visits (modules/visits/visits.integrity.ts).
 */
import { AppError } from './errors'

/** Mean Earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6_371_008.8
export const MAX_SPEED_MPS = 70
export const TELEPORT_DISTANCE_M = 5_000
export const TELEPORT_WINDOW_S = 60
export const STOP_RADIUS_M = 100
export const STOP_MIN_S = 5 * 60
export const GAP_MIN_S = 15 * 60

export type JumpFlag = 'impossible_speed' | 'teleport'
export const JUMP_FLAGS: readonly JumpFlag[] = ['impossible_speed', 'teleport']

export interface Position {
  lat: number
  lng: number
}

export interface TrackPoint extends Position {
  /** Device time, epoch milliseconds. */
  at: number
}

const toRadians = (degrees: number) => (degrees * Math.PI) / 180

export function haversineMeters(a: Position, b: Position): number {
  const dLat = toRadians(b.lat - a.lat)
  const dLng = toRadians(b.lng - a.lng)
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(a.lat)) * Math.cos(toRadians(b.lat)) * Math.sin(dLng / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)))
}

/**
 * The jump flags of `current` against the user's last kept ping before it by device time (the last
 * one not itself a jump: one glitch must not flag the true ping after it). Two pings with the
 * same device time count as one second apart, so a duplicate timestamp cannot hide a jump.
 */
export function jumpFlags(previous: TrackPoint | null, current: TrackPoint): JumpFlag[] {
  if (!previous) return []
  const distance = haversineMeters(previous, current)
  const seconds = Math.abs(current.at - previous.at) / 1000
  const flags: JumpFlag[] = []
  if (distance / Math.max(seconds, 1) > MAX_SPEED_MPS) flags.push('impossible_speed')
  if (distance > TELEPORT_DISTANCE_M && seconds <= TELEPORT_WINDOW_S) flags.push('teleport')
  return flags
}

export interface Stop extends Position {
  started_at: number
  ended_at: number
  duration_s: number
}

export interface Gap {
  from: number
  to: number
}

export interface TrackSummary<P extends TrackPoint> {
  /** Runs of consecutive pings with no gap between them; a run of one ping is kept as a segment. */
  segments: P[][]
  stops: Stop[]
  gaps: Gap[]
  /** Sum of the segments' lengths. */
  distance_m: number
  moving_s: number
  stopped_s: number
  first_at: number | null
  last_at: number | null
}

/**
 * Stops: a run of pings that all stay within STOP_RADIUS_M of the run's first ping and last at
 * least STOP_MIN_S. Returned with the run's index range, for the time accounting below.
 */
function findStops(points: readonly TrackPoint[]): { first: number; last: number; stop: Stop }[] {
  const found: { first: number; last: number; stop: Stop }[] = []
  let i = 0
  while (i < points.length) {
    let j = i + 1
    while (j < points.length && haversineMeters(points[i]!, points[j]!) <= STOP_RADIUS_M) j += 1
    const first = points[i]!
    const last = points[j - 1]!
    const seconds = (last.at - first.at) / 1000
    if (j - 1 > i && seconds >= STOP_MIN_S) {
      let lat = 0
      let lng = 0
      for (let k = i; k < j; k++) {
        lat += points[k]!.lat
        lng += points[k]!.lng
      }
      const n = j - i
      found.push({ first: i, last: j - 1, stop: { lat: lat / n, lng: lng / n, started_at: first.at, ended_at: last.at, duration_s: seconds } })
      i = j
    } else {
      i += 1
    }
  }
  return found
}

/**
 * The route of a set of kept pings (jumps already left out), in device-time order. Time between two
 * consecutive pings is stopped when both belong to one stop, a gap when it is over GAP_MIN_S (and not
 * inside a stop), otherwise moving. Distance counts only the segments: a straight line across a gap
 * would claim a path nobody recorded.
 */
export function summarizeTrack<P extends TrackPoint>(points: readonly P[]): TrackSummary<P> {
  const stops = findStops(points)
  const stopOf = new Int32Array(points.length).fill(-1)
  for (let index = 0; index < stops.length; index++) stopOf.fill(index, stops[index]!.first, stops[index]!.last + 1)

  const segments: P[][] = []
  const gaps: Gap[] = []
  let distance = 0
  let moving = 0
  let stopped = 0
  let current: P[] = []
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!
    if (i > 0) {
      const previous = points[i - 1]!
      const seconds = (point.at - previous.at) / 1000
      const sameStop = stopOf[i] !== -1 && stopOf[i] === stopOf[i - 1]
      if (sameStop) stopped += seconds
      if (seconds > GAP_MIN_S) {
        gaps.push({ from: previous.at, to: point.at })
        segments.push(current)
        current = []
      } else {
        if (!sameStop) moving += seconds
        distance += haversineMeters(previous, point)
      }
    }
    current.push(point)
  }
  if (current.length) segments.push(current)
  return {
    segments,
    stops: stops.map(({ stop }) => stop),
    gaps,
    distance_m: distance,
    moving_s: moving,
    stopped_s: stopped,
    first_at: points.length ? points[0]!.at : null,
    last_at: points.length ? points[points.length - 1]!.at : null,
  }
}

/** A ping's flags as stored: one bit each, so "any flag" is `flags != 0` in SQL. */
export const PING_FLAG_BITS = { mock: 1, impossible_speed: 2, teleport: 4 } as const
export type PingFlag = keyof typeof PING_FLAG_BITS
const PING_FLAG_NAMES = Object.keys(PING_FLAG_BITS) as PingFlag[]
/** Names of every mask 0–7, built once and shared (frozen: a caller that writes to one throws). */
const NAMES_BY_MASK = Array.from({ length: 8 }, (_, mask) => Object.freeze(PING_FLAG_NAMES.filter((name) => mask & PING_FLAG_BITS[name])) as PingFlag[])

export const pingFlagNames = (mask: number): PingFlag[] => NAMES_BY_MASK[mask & 7]!

/** Bits of the flags that take a ping out of the line (jumps; a `mock` ping still shows where the phone said it was). */
export const JUMP_BITS = PING_FLAG_BITS.impossible_speed | PING_FLAG_BITS.teleport

/**
 * Whether a stored ping (`flags` as stored) belongs on the line after `lastKept`, the last ping kept
 * before it. A clean ping is kept: the server judged it at ingest. A ping flagged as a jump stays out,
 * unless it is no jump from `lastKept`: pings stored before ingest judged against the last *kept* ping
 * carry the flag of the glitch before them, and replaying them against the kept line gives the true
 * point back. Without a kept ping before it (the first of the day), the stored verdict stands.
 */
export function keepsOnLine(lastKept: TrackPoint | null, ping: TrackPoint, flags: number): boolean {
  if ((flags & JUMP_BITS) === 0) return true
  return lastKept !== null && jumpFlags(lastKept, ping).length === 0
}

export function pingFlagMask(isMock: boolean, jumps: readonly JumpFlag[]): number {
  let mask = isMock ? PING_FLAG_BITS.mock : 0
  for (const flag of jumps) mask |= PING_FLAG_BITS[flag]
  return mask
}

export function pingFlagBits(names: readonly PingFlag[]): number {
  let mask = 0
  for (const name of names) mask |= PING_FLAG_BITS[name]
  return mask
}

// Coordinates a field action must carry (check-in/out, clock-in/out).
export interface GeoInput {
  latitude?: number | null
  longitude?: number | null
}

/** Both coordinates, or 400 LOCATION_REQUIRED naming what is missing (docs/API.md §Errors). */
export function requireLocation(input: GeoInput): { latitude: number; longitude: number } {
  const missing: Record<string, string[]> = {}
  if (input.latitude == null) missing.latitude = ['is required']
  if (input.longitude == null) missing.longitude = ['is required']
  if (Object.keys(missing).length) throw new AppError('LOCATION_REQUIRED', 'GPS location (latitude and longitude) is required', missing)
  return { latitude: input.latitude!, longitude: input.longitude! }
}

export const locationOf = (latitude: number | null, longitude: number | null) => (latitude === null || longitude === null ? null : { latitude, longitude })
