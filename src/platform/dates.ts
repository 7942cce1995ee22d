/**
 * Calendar dates (`YYYY-MM-DD`, CONTRACT §11) and clock times. Strict: `2021-02-30` is not a date.
 */
import { FormatRegistry, Type } from '@sinclair/typebox'

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/

export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (month < 1 || month > 12 || day < 1) return false
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  return day <= days
}

export const isClockTime = (value: string) => TIME.test(value)

FormatRegistry.Set('calendar-date', isCalendarDate)
FormatRegistry.Set('clock-time', isClockTime)

export const FORMAT_MESSAGES: Record<string, string> = {
  'calendar-date': 'must be a date (YYYY-MM-DD)',
  'clock-time': 'must be a time (HH:MM or HH:MM:SS)',
}

/** A `YYYY-MM-DD` calendar date in a body or query. */
export const DateString = (options: { description?: string } = {}) =>
  Type.String({ format: 'calendar-date', maxLength: 10, examples: ['2026-11-21'], ...options })

/** The UTC calendar date of an instant. */
export const utcDate = (at: Date) => at.toISOString().slice(0, 10)
