/**
 * src/lib/dates.ts: calendar dates and date-times are strict — a day the calendar does not have
 * is not a date (docs/API.md §Other areas), leap years included.
 */
import { describe, expect, test } from 'bun:test'
import { isCalendarDate, parseDateTime } from '../src/lib/dates'

describe('calendar days', () => {
  test('29 February exists in leap years only (every 4th year, not every 100th, every 400th)', () => {
    for (const [date, exists] of [
      ['2024-02-29', true],
      ['2000-02-29', true],
      ['2027-02-29', false],
      ['1900-02-29', false],
      ['2100-02-29', false],
      ['2026-02-28', true],
    ] as const) {
      expect([date, isCalendarDate(date)]).toEqual([date, exists])
      expect([date, parseDateTime(`${date}T08:00:00Z`) !== null]).toEqual([date, exists])
    }
  })

  test('month lengths and bounds: the 31st only where the month has one; no month 0 or 13, no day 0', () => {
    for (const date of ['2026-01-31', '2026-03-31', '2026-04-30', '2026-12-31']) expect([date, isCalendarDate(date)]).toEqual([date, true])
    for (const date of ['2026-04-31', '2026-06-31', '2026-09-31', '2026-11-31', '2026-02-30', '2026-00-10', '2026-13-01', '2026-01-00', '2026-1-01'])
      expect([date, isCalendarDate(date)]).toEqual([date, false])
  })

  test('date-times: with a zone (Z or ±hh:mm) or without one read as UTC; an impossible hour is refused', () => {
    expect(parseDateTime('2026-11-21T08:15:00Z')).toBe(Date.parse('2026-11-21T08:15:00Z'))
    expect(parseDateTime('2026-11-21T08:15:00+07:00')).toBe(Date.parse('2026-11-21T01:15:00Z'))
    expect(parseDateTime('2026-11-21T08:15')).toBe(Date.parse('2026-11-21T08:15:00Z'))
    expect(parseDateTime('2026-11-21T08:15:00.123Z')).toBe(Date.parse('2026-11-21T08:15:00.123Z'))
    expect(parseDateTime('2026-11-21T24:00:00Z')).toBeNull()
    expect(parseDateTime('2026-11-21')).toBeNull()
  })
})
