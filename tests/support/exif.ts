/**
 * A JPEG or PNG with an EXIF block, built byte by byte in the test (no fixture files): the capture time
 * (DateTimeOriginal, optionally OffsetTimeOriginal) and GPS position a phone camera writes — and, for
 * a hostile photo, text tags that claim far more bytes than the file has.
 */
import { deflateSync } from 'node:zlib'

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
    if (entry.count > entry.value.length)
      head.writeUInt32LE(8, at + 8) // a claim: "the text starts at the header"
    else if (entry.value.length <= 4) entry.value.copy(head, at + 8)
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

export interface Hostility {
  /** This many text tags in IFD0, each claiming `claimedBytes` bytes (the photo does not hold them). */
  claims?: number
  claimedBytes?: number
  /** Filler bytes after the TIFF structures, inside the EXIF block (to make the photo large). */
  padding?: number
}

/** The TIFF structure of an EXIF block: header (8) · IFD0 · Exif IFD · GPS IFD · padding. */
export function tiffWithExif(fields: ExifFields, { claims = 0, claimedBytes = 5_000_000, padding = 0 }: Hostility = {}): Buffer {
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
  // Text tags of IFD0 (ImageDescription, Make, Model, …) whose value "starts" at the header.
  const textTags = [0x010d, 0x010e, 0x010f, 0x0110, 0x011d, 0x0131, 0x0132, 0x013b, 0x013c, 0x8298, 0xa430, 0xa433, 0xa434]
  const claimed: Entry[] = Array.from({ length: claims }, (_, i) => ({
    tag: textTags[i % textTags.length]!,
    type: ASCII,
    count: claimedBytes,
    value: Buffer.alloc(0),
  }))
  const ifd0Entries = (exifOffset: number, gpsOffset: number): Entry[] => [
    ...claimed,
    ...(exifEntries.length ? [{ tag: 0x8769, type: LONG, count: 1, value: long(exifOffset) }] : []),
    ...(gpsEntries.length ? [{ tag: 0x8825, type: LONG, count: 1, value: long(gpsOffset) }] : []),
  ]
  const ifd0Size = ifd(ifd0Entries(0, 0), 8).length
  const exifOffset = 8 + ifd0Size
  const exifIfd = exifEntries.length ? ifd(exifEntries, exifOffset) : Buffer.alloc(0)
  const gpsOffset = exifOffset + exifIfd.length
  const gpsIfd = gpsEntries.length ? ifd(gpsEntries, gpsOffset) : Buffer.alloc(0)
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00])
  return Buffer.concat([header, ifd(ifd0Entries(exifOffset, gpsOffset), 8), exifIfd, gpsIfd, Buffer.alloc(padding, 0x41)])
}

export function jpegWithExif(fields: ExifFields): Buffer {
  const tiff = tiffWithExif(fields)
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])
  const app1 = Buffer.alloc(4)
  app1.writeUInt16BE(0xffe1, 0)
  app1.writeUInt16BE(payload.length + 2, 2)
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, payload, Buffer.from([0xff, 0xd9])])
}

export const jpegDataUri = (fields: ExifFields) => `data:image/jpeg;base64,${jpegWithExif(fields).toString('base64')}`

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(Bun.hash.crc32(Buffer.concat([head.subarray(4), data])) >>> 0)
  return Buffer.concat([head, data, crc])
}

/** A 1×1 PNG with an `eXIf` chunk before its image data. */
export function pngWithExif(fields: ExifFields, hostility: Hostility = {}): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]) // 1×1, 8-bit RGB
  const pixels = deflateSync(Buffer.from([0, 0x80, 0x80, 0x80]))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('eXIf', tiffWithExif(fields, hostility)),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/**
 * The hostile photo: a 4.8 MiB PNG whose EXIF has 11 text tags each claiming 5,000,000 bytes
 * (plus a real capture time, which a bounded reader may or may not reach).
 */
export const hostilePng = (fields: ExifFields = {}) => pngWithExif(fields, { claims: 11, padding: Math.round(4.8 * 1024 * 1024) - 400 })

/** A WebP container (RIFF) with a `VP8X` header chunk and an `EXIF` chunk (image data left out: only the container is read). */
export function webpWithExif(fields: ExifFields): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8)
    head.write(type, 0, 'latin1')
    head.writeUInt32LE(data.length, 4)
    return Buffer.concat([head, data, Buffer.alloc(data.length % 2)])
  }
  const vp8x = Buffer.from([0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0]) // EXIF flag, 1×1
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), chunk('VP8X', vp8x), chunk('EXIF', tiffWithExif(fields))])
  const head = Buffer.alloc(8)
  head.write('RIFF', 0, 'latin1')
  head.writeUInt32LE(body.length, 4)
  return Buffer.concat([head, body])
}

export const pngDataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`
