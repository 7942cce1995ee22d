/**
 * What a photo's EXIF block says about where and when it was taken. Used to check a check-in photo
 * against the check-in itself (docs/API.md §Field integrity). Anything unreadable is simply absent: a
 * photo without EXIF is not evidence of anything.
 *
 * Bounded by construction, because it runs on the request thread of a server every tenant shares
 * (a 4.8 MiB PNG whose EXIF claimed eleven 5 MB texts once stalled the general-purpose parser for
 * seconds):
 *   1. `exifBlock` finds the EXIF segment itself (JPEG APP1 `Exif\0\0`, PNG `eXIf`, WebP `EXIF`)
 *      walking at most `MAX_CONTAINER_STEPS` segment headers, and hands on at most `MAX_EXIF_BYTES`;
 *      a larger EXIF block is no EXIF.
 *   2. `readTiff` reads only the six tags we need (DateTimeOriginal, OffsetTimeOriginal, GPS
 *      latitude/longitude and their references) from at most three IFDs (IFD0, Exif, GPS) of at most
 *      `MAX_IFD_ENTRIES` entries each, and never reads more than `MAX_TEXT_BYTES` of a text, whatever
 *      count a tag claims. Every offset is checked against the block.
 * So the work per photo is a few thousand byte reads at most, never proportional to what a tag claims.
 */
import { isCalendarDate } from '../../lib/dates'
import { localMidnight } from '../../lib/time-zones'

export interface PhotoExif {
  /** Capture time, epoch ms, or null when the photo does not say (or says something impossible). */
  takenAt: number | null
  /** Capture position, or null when the photo does not say. */
  position: { lat: number; lng: number } | null
}

/** The most EXIF bytes ever parsed: a JPEG APP1 segment cannot be larger (its length is 16 bits). */
export const MAX_EXIF_BYTES = 65_535
/** The most container segments (JPEG markers, PNG or WebP chunks) walked looking for the EXIF block. */
export const MAX_CONTAINER_STEPS = 64
/** The most entries read from one IFD. */
export const MAX_IFD_ENTRIES = 512
/** The most bytes read from one text tag (`YYYY:MM:DD HH:MM:SS` is 20). */
export const MAX_TEXT_BYTES = 64

const EXIF_TIME = /^(\d{4}):(\d{2}):(\d{2}) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/
const OFFSET = /^([+-])(\d{2}):(\d{2})$/
const EXIF_HEADER = [0x45, 0x78, 0x69, 0x66, 0, 0] // "Exif\0\0"

/**
 * The capture instant of EXIF's wall-clock `DateTimeOriginal`: with `OffsetTimeOriginal` when the
 * camera wrote one, otherwise read in `timeZone` (phones write local time; the workspace's zone is
 * the best guess of where the phone was). A date that does not exist — `0000:00:00 00:00:00` from a
 * camera whose clock was never set, `2021:02:30`, a year before 1970 — is no time at all (null).
 */
export function exifInstant(wallClock: string, offset: string | null, timeZone: string): number | null {
  const match = EXIF_TIME.exec(wallClock.trim())
  if (!match) return null
  const date = `${match[1]}-${match[2]}-${match[3]}`
  if (Number(match[1]) < 1970 || !isCalendarDate(date)) return null
  const [, year, month, day, hour, minute, second] = match.map(Number)
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!)
  const zone = offset ? OFFSET.exec(offset.trim()) : null
  if (zone) return wall - (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) * 60_000
  return localMidnight(date, timeZone) + (wall - Date.parse(`${date}T00:00:00.000Z`))
}

const startsWith = (bytes: Uint8Array, at: number, prefix: readonly number[]) =>
  at + prefix.length <= bytes.length && prefix.every((byte, i) => bytes[at + i] === byte)
const fourCC = (bytes: Uint8Array, at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!)

/** The TIFF block (byte-order mark onwards) of a block that may start with `Exif\0\0`, if small enough. */
function tiffOf(bytes: Uint8Array, start: number, end: number): Uint8Array | null {
  const from = startsWith(bytes, start, EXIF_HEADER) ? start + EXIF_HEADER.length : start
  if (end > bytes.length || end - from > MAX_EXIF_BYTES || end - from < 8) return null
  return bytes.subarray(from, end)
}

/**
 * The photo's EXIF block as a TIFF structure (a view into `bytes`, at most `MAX_EXIF_BYTES`), or null
 * when the photo has none we will read. Walks segment headers only, at most `MAX_CONTAINER_STEPS`.
 */
export function exifBlock(bytes: Uint8Array): Uint8Array | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    // JPEG: markers FFxx each followed by a 16-bit length, until the image data starts (SOS).
    let at = 2
    for (let step = 0; step < MAX_CONTAINER_STEPS && at + 4 <= bytes.length; step++) {
      if (bytes[at] !== 0xff) return null
      const marker = bytes[at + 1]!
      if (marker === 0xda || marker === 0xd9) return null
      const length = view.getUint16(at + 2)
      if (marker === 0xe1 && startsWith(bytes, at + 4, EXIF_HEADER)) return tiffOf(bytes, at + 4, at + 2 + length)
      at += 2 + length
    }
    return null
  }
  if (startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    // PNG: chunks of length (32-bit), type, data, CRC; eXIf comes before the image data.
    let at = 8
    for (let step = 0; step < MAX_CONTAINER_STEPS && at + 8 <= bytes.length; step++) {
      const length = view.getUint32(at)
      const type = fourCC(bytes, at + 4)
      if (type === 'eXIf') return tiffOf(bytes, at + 8, at + 8 + length)
      if (type === 'IDAT' || type === 'IEND') return null
      at += 12 + length
    }
    return null
  }
  if (startsWith(bytes, 0, [0x52, 0x49, 0x46, 0x46]) && bytes.length >= 12 && fourCC(bytes, 8) === 'WEBP') {
    // WebP: RIFF chunks of fourCC, 32-bit little-endian size, data padded to even.
    let at = 12
    for (let step = 0; step < MAX_CONTAINER_STEPS && at + 8 <= bytes.length; step++) {
      const length = view.getUint32(at + 4, true)
      if (fourCC(bytes, at) === 'EXIF') return tiffOf(bytes, at + 8, at + 8 + length)
      at += 8 + length + (length % 2)
    }
  }
  return null
}

const ASCII = 2
const SHORT = 3
const LONG = 4
const RATIONAL = 5
const TAG = { exifIfd: 0x8769, gpsIfd: 0x8825, dateTimeOriginal: 0x9003, offsetTimeOriginal: 0x9011 } as const
const GPS = { latitudeRef: 1, latitude: 2, longitudeRef: 3, longitude: 4 } as const

type Entry = { type: number; count: number; at: number }

/** The wanted entries of the IFD at `offset`: where each value is (inline or at its offset), bounds-checked. */
function readIfd(tiff: DataView, little: boolean, offset: number, wanted: readonly number[]): Map<number, Entry> {
  const found = new Map<number, Entry>()
  if (offset < 8 || offset + 2 > tiff.byteLength) return found
  const count = Math.min(tiff.getUint16(offset, little), MAX_IFD_ENTRIES, Math.floor((tiff.byteLength - offset - 2) / 12))
  for (let i = 0; i < count; i++) {
    const at = offset + 2 + i * 12
    const tag = tiff.getUint16(at, little)
    if (!wanted.includes(tag) || found.has(tag)) continue
    const type = tiff.getUint16(at + 2, little)
    const count = tiff.getUint32(at + 4, little)
    const size = type === RATIONAL ? 8 : type === LONG ? 4 : type === SHORT ? 2 : 1
    // A claimed size larger than the whole block cannot be there; `size * count` stays a safe integer.
    if (count > tiff.byteLength) continue
    const valueAt = size * count <= 4 ? at + 8 : tiff.getUint32(at + 8, little)
    if (valueAt + Math.min(size * count, type === ASCII ? MAX_TEXT_BYTES : 24) > tiff.byteLength) continue
    found.set(tag, { type, count, at: valueAt })
  }
  return found
}

function text(tiff: DataView, entry: Entry | undefined): string | null {
  if (!entry || entry.type !== ASCII) return null
  let value = ''
  for (let i = 0; i < Math.min(entry.count, MAX_TEXT_BYTES) && entry.at + i < tiff.byteLength; i++) {
    const byte = tiff.getUint8(entry.at + i)
    if (byte === 0) break
    value += String.fromCharCode(byte)
  }
  return value
}

/** Degrees from EXIF's three degrees/minutes/seconds rationals, signed by its N/S or E/W reference. */
function degrees(tiff: DataView, little: boolean, entry: Entry | undefined, ref: string | null, negative: string): number | null {
  if (!entry || entry.type !== RATIONAL || entry.count !== 3 || (ref !== negative && ref !== (negative === 'S' ? 'N' : 'E'))) return null
  let value = 0
  for (let i = 0; i < 3; i++) {
    const denominator = tiff.getUint32(entry.at + i * 8 + 4, little)
    if (denominator === 0) return null
    value += tiff.getUint32(entry.at + i * 8, little) / denominator / 60 ** i
  }
  return ref === negative ? -value : value
}

/** The capture time's texts and position from a TIFF block (see the file's head for the bounds). */
export function readTiff(block: Uint8Array): { wallClock: string | null; offset: string | null; lat: number | null; lng: number | null } {
  const tiff = new DataView(block.buffer, block.byteOffset, block.byteLength)
  const order = tiff.getUint16(0)
  const little = order === 0x4949
  if ((!little && order !== 0x4d4d) || tiff.getUint16(2, little) !== 42) return { wallClock: null, offset: null, lat: null, lng: null }
  const ifd0 = readIfd(tiff, little, tiff.getUint32(4, little), [TAG.exifIfd, TAG.gpsIfd])
  const pointer = (entry: Entry | undefined) => (entry && entry.type === LONG && entry.count === 1 ? tiff.getUint32(entry.at, little) : 0)
  const exif = readIfd(tiff, little, pointer(ifd0.get(TAG.exifIfd)), [TAG.dateTimeOriginal, TAG.offsetTimeOriginal])
  const gps = readIfd(tiff, little, pointer(ifd0.get(TAG.gpsIfd)), Object.values(GPS))
  return {
    wallClock: text(tiff, exif.get(TAG.dateTimeOriginal)),
    offset: text(tiff, exif.get(TAG.offsetTimeOriginal)),
    lat: degrees(tiff, little, gps.get(GPS.latitude), text(tiff, gps.get(GPS.latitudeRef)), 'S'),
    lng: degrees(tiff, little, gps.get(GPS.longitude), text(tiff, gps.get(GPS.longitudeRef)), 'W'),
  }
}

export function readPhotoExif(bytes: Uint8Array, timeZone: string): PhotoExif {
  const block = exifBlock(bytes)
  if (!block) return { takenAt: null, position: null }
  const { wallClock, offset, lat, lng } = readTiff(block)
  const takenAt = wallClock === null ? null : exifInstant(wallClock, offset, timeZone)
  const valid = lat !== null && lng !== null && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && !(lat === 0 && lng === 0)
  return { takenAt, position: valid ? { lat, lng } : null }
}
