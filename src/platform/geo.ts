/** Coordinates a field action must carry (check-in/out, clock-in/out). */
import { AppError } from './errors'

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
