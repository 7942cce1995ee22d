/**
 * Local days (docs/API.md §Time zones): every workspace has an IANA time zone, and "today" and every
 * calendar date of a rule are that zone's local day. Stored instants stay UTC. No dependencies, so
 * the configuration can check DEFAULT_TIMEZONE with it.
 */
const DAY_MS = 86_400_000
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterOf(timeZone: string) {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** Whether `name` is an IANA time zone this runtime knows (`Asia/Jakarta`, `UTC`, `Pacific/Kiritimati`). */
export function isTimeZone(name: string): boolean {
  if (!name || name.length > 64) return false
  try {
    formatterOf(name)
    return true
  } catch {
    return false
  }
}

/** The zone's canonical spelling (`asia/jakarta` → `Asia/Jakarta`); call with a valid name. */
export const canonicalTimeZone = (name: string) => formatterOf(name).resolvedOptions().timeZone

/** The wall-clock parts of an instant in a zone. */
function wallClock(at: number, timeZone: string) {
  const parts: Record<string, number> = {}
  for (const part of formatterOf(timeZone).formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value)
  return parts as { year: number; month: number; day: number; hour: number; minute: number; second: number }
}

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(at: number, timeZone: string): number {
  const p = wallClock(at, timeZone)
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at / 1000) * 1000
}

/** The local calendar date (`YYYY-MM-DD`) of an instant in a zone. */
export function localDate(at: Date | number, timeZone: string): string {
  const p = wallClock(typeof at === 'number' ? at : at.getTime(), timeZone)
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`
}

/**
 * The instant (epoch ms) a local calendar date begins in a zone. Where a zone skips midnight (a
 * daylight-saving change at 00:00), the day begins at the first instant that exists.
 */
export function localMidnight(date: string, timeZone: string): number {
  // A zone's rules do not change while the process runs: each (zone, date) is worked out once. Lists
  // filtered by dates ask for the same few days on every request (two Intl formatToParts calls each).
  const key = `${timeZone} ${date}`
  const known = midnights.get(key)
  if (known !== undefined) return known
  if (midnights.size >= MIDNIGHTS_KEPT) midnights.clear()
  const at = computeLocalMidnight(date, timeZone)
  midnights.set(key, at)
  return at
}

/** Local midnights worked out, by `zone date`; emptied when full (a bound, not an eviction policy). */
const midnights = new Map<string, number>()
const MIDNIGHTS_KEPT = 4096

function computeLocalMidnight(date: string, timeZone: string): number {
  const wall = Date.parse(`${date}T00:00:00.000Z`)
  let at = wall - offsetAt(wall, timeZone)
  // A second pass settles on the offset in force at that instant (they differ across a change).
  at = wall - offsetAt(at, timeZone)
  return localDate(at, timeZone) === date ? at : at + 3_600_000
}

/** The calendar date `days` after `date` (negative: before). */
export const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)

/** A local day as a half-open range of instants, ISO strings: `from` ≤ t < `until`. */
export function localDayRange(date: string, timeZone: string): { from: string; until: string } {
  return { from: new Date(localMidnight(date, timeZone)).toISOString(), until: new Date(localMidnight(addDays(date, 1), timeZone)).toISOString() }
}

/** The zone's offset from UTC at an instant, as people write it: `UTC+14`, `UTC+5:30`, `UTC-3`, `UTC`. */
export function utcOffsetLabel(at: Date | number, timeZone: string): string {
  const minutes = Math.round(offsetAt(typeof at === 'number' ? at : at.getTime(), timeZone) / 60_000)
  if (minutes === 0) return 'UTC'
  const sign = minutes < 0 ? '-' : '+'
  const hours = Math.floor(Math.abs(minutes) / 60)
  const rest = Math.abs(minutes) % 60
  return `UTC${sign}${hours}${rest ? `:${String(rest).padStart(2, '0')}` : ''}`
}

/**
 * An instant as a reader of a report in the zone expects it: the local wall clock to the minute with
 * its offset (`2026-11-24 09:15 UTC+14`), never a bare UTC clock, which a far-east workspace would read
 * as the day before. ASCII only, so the PDF's standard fonts print it.
 */
export function localDateTimeLabel(at: Date | number, timeZone: string): string {
  const instant = typeof at === 'number' ? at : at.getTime()
  const p = wallClock(instant, timeZone)
  const pad = (value: number) => String(value).padStart(2, '0')
  return `${localDate(instant, timeZone)} ${pad(p.hour)}:${pad(p.minute)} ${utcOffsetLabel(instant, timeZone)}`
}
