/**
 * What a photo's EXIF block says about where and when it was taken, read with ExifReader (a
 * maintained parser of JPEG, PNG and WebP metadata). Used to check a check-in photo against the
 * check-in itself (docs/API.md §Field integrity). Anything unreadable is simply absent: a photo
 * without EXIF is not evidence of anything.
 */
import ExifReader from 'exifreader'
import { localMidnight } from '../../platform/time-zones'

export interface PhotoExif {
  /** Capture time, epoch ms, or null when the photo does not say. */
  takenAt: number | null
  /** Capture position, or null when the photo does not say. */
  position: { lat: number; lng: number } | null
}

const EXIF_TIME = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})$/
const OFFSET = /^([+-])(\d{2}):(\d{2})$/

/**
 * The capture instant of EXIF's wall-clock `DateTimeOriginal`: with `OffsetTimeOriginal` when the
 * camera wrote one, otherwise read in `timeZone` (phones write local time; the workspace's zone is
 * the best guess of where the phone was).
 */
export function exifInstant(wallClock: string, offset: string | null, timeZone: string): number | null {
  const match = EXIF_TIME.exec(wallClock.trim())
  if (!match) return null
  const [, year, month, day, hour, minute, second] = match.map(Number)
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!)
  if (Number.isNaN(wall)) return null
  const zone = offset ? OFFSET.exec(offset.trim()) : null
  if (zone) return wall - (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) * 60_000
  const date = `${match[1]}-${match[2]}-${match[3]}`
  return localMidnight(date, timeZone) + (wall - Date.parse(`${date}T00:00:00.000Z`))
}

export function readPhotoExif(bytes: Uint8Array, timeZone: string): PhotoExif {
  let tags: ReturnType<typeof ExifReader.load> & { gps?: { Latitude?: number; Longitude?: number } }
  try {
    tags = ExifReader.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { expanded: true }) as never
  } catch {
    return { takenAt: null, position: null }
  }
  const exif = (tags as { exif?: Record<string, { description?: unknown }> }).exif ?? {}
  const original = exif.DateTimeOriginal?.description
  const offset = exif.OffsetTimeOriginal?.description
  const takenAt = typeof original === 'string' ? exifInstant(original, typeof offset === 'string' ? offset : null, timeZone) : null
  const lat = tags.gps?.Latitude
  const lng = tags.gps?.Longitude
  const valid = typeof lat === 'number' && typeof lng === 'number' && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && !(lat === 0 && lng === 0)
  return { takenAt, position: valid ? { lat, lng } : null }
}
