/**
 * Calendar dates (`YYYY-MM-DD`, docs/API.md §Other areas) and clock times. Strict: `2021-02-30` is not a date.
 */
import { FormatRegistry, Type } from '@sinclair/typebox'
import { ValidationFailed } from './errors'
import { isTimeZone, localDayRange } from './time-zones'

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Whether year-month-day names a day of the Gregorian calendar. Allocates nothing: it runs twice per ping. */
function dayExists(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  if (month === 2 && day === 29) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return day <= DAYS_IN_MONTH[month - 1]
}

export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value)
  return match !== null && dayExists(Number(match[1]), Number(match[2]), Number(match[3]))
}

export const isClockTime = (value: string) => TIME.test(value)

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?$/i

/**
 * An ISO 8601 date-time (`2026-11-21T08:15:00Z`, `…+07:00`; without a zone it is read as UTC) as
 * epoch milliseconds, or null. The calendar date must exist: `2021-02-30T…` is not a date-time.
 */
export function parseDateTime(value: string): number | null {
  const match = DATE_TIME.exec(value)
  if (!match || !dayExists(Number(match[1]), Number(match[2]), Number(match[3]))) return null
  const time = Date.parse(match[7] ? value : `${value}Z`)
  return Number.isNaN(time) ? null : time
}

export const isIsoDateTime = (value: string) => parseDateTime(value) !== null

/**
 * A filter bound from a date (`YYYY-MM-DD`) or date-time. A date is a local day of `timeZone`: a
 * date-only `date_from` starts at its local midnight, a date-only `date_to` covers that whole local
 * day, so it becomes an exclusive bound at the next local midnight (docs/API.md §Time zones).
 */
export function dateBound(value: string, field: string, timeZone: string): { at: string; inclusive: boolean } {
  if (isCalendarDate(value)) {
    const day = localDayRange(value, timeZone)
    return field === 'date_to' ? { at: day.until, inclusive: false } : { at: day.from, inclusive: true }
  }
  const time = parseDateTime(value)
  if (time === null) throw ValidationFailed.field(field, 'must be an ISO 8601 date (YYYY-MM-DD) or date-time')
  return { at: new Date(time).toISOString(), inclusive: true }
}

FormatRegistry.Set('calendar-date', isCalendarDate)
FormatRegistry.Set('clock-time', isClockTime)
FormatRegistry.Set('iso-date-time', isIsoDateTime)
FormatRegistry.Set('time-zone', (value) => isTimeZone(value))

export const FORMAT_MESSAGES: Record<string, string> = {
  'calendar-date': 'must be a date (YYYY-MM-DD)',
  'clock-time': 'must be a time (HH:MM or HH:MM:SS)',
  'iso-date-time': 'must be an ISO 8601 date-time (2026-11-21T08:15:00Z)',
  'time-zone': 'must be an IANA time zone name (e.g. Asia/Jakarta)',
}

/** An IANA time zone name in a body. */
export const TimeZoneString = (options: { description?: string } = {}) =>
  Type.String({ format: 'time-zone', maxLength: 64, examples: ['Asia/Jakarta'], ...options })

/** A `YYYY-MM-DD` calendar date in a body or query. */
export const DateString = (options: { description?: string } = {}) =>
  Type.String({ format: 'calendar-date', maxLength: 10, examples: ['2026-11-21'], ...options })
