/**
 * A JPEG with an EXIF block, built byte by byte in the test (no fixture files): the capture time
 * (DateTimeOriginal, optionally OffsetTimeOriginal) and GPS position a phone camera writes.
 */
export interface ExifFields {
  /** `YYYY:MM:DD HH:MM:SS`, the camera's wall clock. */
  takenAt?: string
  /** `+07:00`: the zone of `takenAt` (EXIF 2.31); absent on many phones. */
  offset?: string
  latitude?: number
  longitude?: number
}

type Entry = { tag: number; type: number; count: number; value: Buffer }
const ASCII = 2
const LONG = 4
const RATIONAL = 5

const ascii = (text: string) => Buffer.from(`${text}\0`, 'latin1')
function rationals(values: [number, number][]) {
  const buffer = Buffer.alloc(values.length * 8)
  values.forEach(([n, d], i) => {
    buffer.writeUInt32LE(n, i * 8)
    buffer.writeUInt32LE(d, i * 8 + 4)
  })
  return buffer
}
/** Degrees as EXIF's degrees/minutes/seconds rationals. */
function dms(value: number): [number, number][] {
  const abs = Math.abs(value)
  const degrees = Math.floor(abs)
  const minutes = Math.floor((abs - degrees) * 60)
  const seconds = (abs - degrees - minutes / 60) * 3600
  return [
    [degrees, 1],
    [minutes, 1],
    [Math.round(seconds * 1_000_000), 1_000_000],
  ]
}

/** One IFD at `offset` (from the TIFF header): entries, next-IFD 0, then the values that do not fit in 4 bytes. */
function ifd(entries: Entry[], offset: number): Buffer {
  const head = Buffer.alloc(2 + entries.length * 12 + 4)
  head.writeUInt16LE(entries.length, 0)
  const extra: Buffer[] = []
  let extraOffset = offset + head.length
  entries.forEach((entry, i) => {
    const at = 2 + i * 12
    head.writeUInt16LE(entry.tag, at)
    head.writeUInt16LE(entry.type, at + 2)
    head.writeUInt32LE(entry.count, at + 4)
    if (entry.value.length <= 4) entry.value.copy(head, at + 8)
    else {
      head.writeUInt32LE(extraOffset, at + 8)
      extra.push(entry.value)
      extraOffset += entry.value.length + (entry.value.length % 2)
      if (entry.value.length % 2) extra.push(Buffer.alloc(1))
    }
  })
  return Buffer.concat([head, ...extra])
}

const long = (value: number) => {
  const buffer = Buffer.alloc(4)
  buffer.writeUInt32LE(value)
  return buffer
}

export function jpegWithExif(fields: ExifFields): Buffer {
  const exifEntries: Entry[] = []
  if (fields.takenAt) exifEntries.push({ tag: 0x9003, type: ASCII, count: 20, value: ascii(fields.takenAt) })
  if (fields.offset) exifEntries.push({ tag: 0x9011, type: ASCII, count: 7, value: ascii(fields.offset) })
  const gpsEntries: Entry[] = []
  if (fields.latitude !== undefined && fields.longitude !== undefined) {
    gpsEntries.push({ tag: 1, type: ASCII, count: 2, value: ascii(fields.latitude < 0 ? 'S' : 'N') })
    gpsEntries.push({ tag: 2, type: RATIONAL, count: 3, value: rationals(dms(fields.latitude)) })
    gpsEntries.push({ tag: 3, type: ASCII, count: 2, value: ascii(fields.longitude < 0 ? 'W' : 'E') })
    gpsEntries.push({ tag: 4, type: RATIONAL, count: 3, value: rationals(dms(fields.longitude)) })
  }
  // Layout: header (8) · IFD0 · Exif IFD · GPS IFD. IFD0 size is known before its pointers are.
  const ifd0Entries = (exifOffset: number, gpsOffset: number): Entry[] => [
    ...(exifEntries.length ? [{ tag: 0x8769, type: LONG, count: 1, value: long(exifOffset) }] : []),
    ...(gpsEntries.length ? [{ tag: 0x8825, type: LONG, count: 1, value: long(gpsOffset) }] : []),
  ]
  const ifd0Size = ifd(ifd0Entries(0, 0), 8).length
  const exifOffset = 8 + ifd0Size
  const exifIfd = exifEntries.length ? ifd(exifEntries, exifOffset) : Buffer.alloc(0)
  const gpsOffset = exifOffset + exifIfd.length
  const gpsIfd = gpsEntries.length ? ifd(gpsEntries, gpsOffset) : Buffer.alloc(0)
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00])
  const tiff = Buffer.concat([header, ifd(ifd0Entries(exifOffset, gpsOffset), 8), exifIfd, gpsIfd])
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])
  const app1 = Buffer.alloc(4)
  app1.writeUInt16BE(0xffe1, 0)
  app1.writeUInt16BE(payload.length + 2, 2)
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, payload, Buffer.from([0xff, 0xd9])])
}

export const jpegDataUri = (fields: ExifFields) => `data:image/jpeg;base64,${jpegWithExif(fields).toString('base64')}`
