/**
 * Field integrity of a check-in or check-out (docs/API.md §Field integrity): pure rules, computed by
 * the server from what it knows, never trusted from the client alone.
 *
 *   geofence          distance from the outlet against its radius, the phone's accuracy in its favour
 *                     up to the radius at most (a claimed accuracy never buys more than the fence itself)
 *   low_accuracy      the phone's reported accuracy is worse than the radius: it cannot tell in from out
 *   mock_location     the phone itself reported a mocked position
 *   impossible_travel the check-in is too far from the user's last ping for the time between them
 *   photo_*           the photo's EXIF capture time or position disagrees with the check-in
 *
 * A visit keeps the union of the flags of its check-in and check-out, stored as bits.
 */
import { haversineMeters, jumpFlags, type Position, type TrackPoint } from '../../lib/geo'
import type { PhotoExif } from '../files'

export const VISIT_FLAG_BITS = {
  outside_geofence: 1,
  outlet_unlocated: 2,
  mock_location: 4,
  impossible_travel: 8,
  photo_time_mismatch: 16,
  photo_location_mismatch: 32,
  low_accuracy: 64,
} as const
export type VisitFlag = keyof typeof VISIT_FLAG_BITS
export const VISIT_FLAGS = Object.keys(VISIT_FLAG_BITS) as VisitFlag[]

export const PHOTO_TIME_TOLERANCE_MS = 15 * 60_000
export const PHOTO_DISTANCE_MAX_M = 500

export type GeofenceMode = 'off' | 'warn' | 'block'

export const visitFlagNames = (mask: number): VisitFlag[] => VISIT_FLAGS.filter((flag) => mask & VISIT_FLAG_BITS[flag])

export function visitFlagMask(flags: Iterable<VisitFlag>): number {
  let mask = 0
  for (const flag of flags) mask |= VISIT_FLAG_BITS[flag]
  return mask
}

export interface SiteCheck {
  /** Where the phone says it is, and how sure it is (metres), when it says. */
  at: Position
  accuracyM: number | null
  /** The outlet's coordinates, or null when the outlet has none. */
  outlet: Position | null
  radiusM: number
  mode: GeofenceMode
}

export interface SiteVerdict {
  /** Metres from the outlet (stored on the visit), null when the outlet has no coordinates. */
  distanceM: number | null
  /** Outside the radius even when the phone's accuracy is counted in its favour. */
  outside: boolean
  /** `block` mode and outside: the transition is refused. */
  refused: boolean
  flags: VisitFlag[]
}

/**
 * How much of the reported accuracy counts in the phone's favour: at most the radius itself. The
 * accuracy is the phone's own word; uncapped, `accuracy_m: 100000` would let a check-in 50 km away
 * through a 10 m fence. With the cap nothing further than twice the radius is ever inside.
 */
export const forgivenAccuracyM = (accuracyM: number | null, radiusM: number) => Math.min(Math.max(accuracyM ?? 0, 0), radiusM)

/**
 * The geofence rule: outside when distance minus the forgiven accuracy (`forgivenAccuracyM`) is over
 * the radius. A reported accuracy worse than the radius adds `low_accuracy` (in `warn` and in `block`,
 * where the action was let through): such a fix cannot tell inside from outside.
 */
export function checkSite({ at, accuracyM, outlet, radiusM, mode }: SiteCheck): SiteVerdict {
  if (!outlet) return { distanceM: null, outside: false, refused: false, flags: mode === 'off' ? [] : ['outlet_unlocated'] }
  const distanceM = haversineMeters(at, outlet)
  const outside = distanceM - forgivenAccuracyM(accuracyM, radiusM) > radiusM
  if (mode === 'off') return { distanceM, outside, refused: false, flags: [] }
  if (outside && mode === 'block') return { distanceM, outside, refused: true, flags: [] }
  const flags: VisitFlag[] = []
  if (outside) flags.push('outside_geofence')
  if (accuracyM !== null && accuracyM > radiusM) flags.push('low_accuracy')
  return { distanceM, outside, refused: false, flags }
}

/** `impossible_travel` when the check-in could not be reached from the user's last ping in the time between. */
export const travelFlags = (lastPing: TrackPoint | null, checkIn: TrackPoint): VisitFlag[] => (jumpFlags(lastPing, checkIn).length ? ['impossible_travel'] : [])

/** The photo against the action it came with: capture time against the server's time, position against the phone's. */
export function photoFlags(exif: PhotoExif | null, at: Position, now: number): VisitFlag[] {
  if (!exif) return []
  const flags: VisitFlag[] = []
  if (exif.takenAt !== null && Math.abs(exif.takenAt - now) > PHOTO_TIME_TOLERANCE_MS) flags.push('photo_time_mismatch')
  if (exif.position && haversineMeters(exif.position, at) > PHOTO_DISTANCE_MAX_M) flags.push('photo_location_mismatch')
  return flags
}
