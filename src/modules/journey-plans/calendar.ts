/**
 * Which local dates a journey plan's stops fall on: pure rules on calendar dates (`YYYY-MM-DD`), no
 * clock, no time of day. Date arithmetic is done on the dates themselves (addDays of
 * src/platform/time-zones.ts, day counts between two dates); only `horizon` turns an instant into a
 * local date, through the workspace's zone.
 *
 *   cycleWeek      the week of the cycle (1 … cycle_weeks) a date falls in; week 1 is the week of start_date
 *   isoWeekday     1 = Monday … 7 = Sunday
 *   occurrences    every (date, stop) of a plan in a range: date order, then the stops' sequence
 *   horizon        the local dates a nightly run generates: [today, today + days − 1]
 *   firstEditableDate  the first local date whose generated visits an edit of the plan replaces (tomorrow)
 *   weeksToMask / maskToWeeks  a stop's weeks as stored: bit w − 1 set for week w
 */
import { addDays, localDate } from '../../lib/time-zones'

const DAY_MS = 86_400_000
export const MAX_CYCLE_WEEKS = 8

export interface PlanCalendar {
  /** Local date, a Monday: the first day of week 1 of the cycle. */
  start_date: string
  /** Local date, inclusive; null or absent: the plan runs on. */
  end_date?: string | null
  /** 1 … 8. */
  cycle_weeks: number
}

export interface CalendarStop {
  /** 1 = Monday … 7 = Sunday. */
  weekday: number
  /** Weeks of the cycle (1 … cycle_weeks) the stop is visited in; null, absent or empty: every week. */
  weeks?: readonly number[] | null
  sequence: number
}

export interface Occurrence<S extends CalendarStop> {
  date: string
  stop: S
}

/** Days from `from` to `to` (negative when `to` is earlier); both are calendar dates, so the count is exact. */
export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / DAY_MS)

/** ISO weekday of a calendar date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  const day = new Date(Date.parse(`${date}T00:00:00.000Z`)).getUTCDay()
  return day === 0 ? 7 : day
}

/**
 * The week of the cycle a date falls in: ((floor(days(date − start_date) / 7)) mod cycle_weeks) + 1.
 * Dates before start_date count backwards with a true modulo (the plan has no visits there anyway).
 */
export function cycleWeek(plan: PlanCalendar, date: string): number {
  const week = Math.floor(daysBetween(plan.start_date, date) / 7)
  return (((week % plan.cycle_weeks) + plan.cycle_weeks) % plan.cycle_weeks) + 1
}

/** A stop's weeks as stored (journey_plan_stops.weeks): bit w − 1 for week w; 0 stands for every week. */
export function weeksToMask(weeks: readonly number[] | null | undefined): number {
  let mask = 0
  for (const week of weeks ?? []) mask |= 1 << (week - 1)
  return mask
}

/** The weeks of a stored mask, ascending, within the cycle; a mask of 0 (or none within the cycle) gives every week. */
export function maskToWeeks(mask: number, cycleWeeks: number): number[] {
  const weeks: number[] = []
  for (let week = 1; week <= cycleWeeks; week += 1) if (mask & (1 << (week - 1))) weeks.push(week)
  return weeks.length ? weeks : Array.from({ length: cycleWeeks }, (_, i) => i + 1)
}

const visitedInWeek = (stop: CalendarStop, week: number) => !stop.weeks?.length || stop.weeks.includes(week)

/**
 * Every visit the plan asks for from `from` to `to` (both inclusive): none before start_date, none
 * after end_date (inclusive), none on a holiday. Sorted by date, then by the stop's sequence; stops
 * of equal sequence keep the order they were given in.
 */
export function occurrences<S extends CalendarStop>(
  plan: PlanCalendar,
  stops: readonly S[],
  range: { from: string; to: string; holidays?: Iterable<string> },
): Occurrence<S>[] {
  // Dates compare as text (`YYYY-MM-DD`): the later of the two.
  const first = [range.from, plan.start_date].sort()[1]!
  const last = plan.end_date && plan.end_date < range.to ? plan.end_date : range.to
  if (first > last) return []
  const holidays = new Set(range.holidays ?? [])
  // Stops by weekday, each list in sequence order (a stable sort keeps the given order of equals).
  const byWeekday = new Map<number, S[]>()
  for (const stop of [...stops].sort((a, b) => a.sequence - b.sequence)) {
    const list = byWeekday.get(stop.weekday) ?? []
    list.push(stop)
    byWeekday.set(stop.weekday, list)
  }
  const result: Occurrence<S>[] = []
  const days = daysBetween(first, last)
  for (let offset = 0; offset <= days; offset += 1) {
    const date = addDays(first, offset)
    if (holidays.has(date)) continue
    const today = byWeekday.get(isoWeekday(date))
    if (!today) continue
    const week = cycleWeek(plan, date)
    for (const stop of today) if (visitedInWeek(stop, week)) result.push({ date, stop })
  }
  return result
}

/**
 * The local dates the nightly generation covers: today in the workspace's zone and the `days − 1`
 * after it. The run just after local midnight thus creates today's visits if they are not there yet
 * (a plan created during the day already has them: creation generates at once) and reaches `days`
 * days ahead, which is what a supervisor reading "the next 7 days" expects on a phone that morning.
 */
export function horizon(now: Date | number, timeZone: string, days: number): string[] {
  const today = localDate(now, timeZone)
  return Array.from({ length: Math.max(0, days) }, (_, i) => addDays(today, i))
}

/**
 * The first local date whose still-scheduled generated visits an edit or deactivation of the plan
 * removes and regenerates: tomorrow. Today's visits stay as they are: the field user may be on them.
 */
export const firstEditableDate = (now: Date | number, timeZone: string) => addDays(localDate(now, timeZone), 1)

/** What is wrong with a plan's calendar and stops, keyed like a request body (`start_date`, `stops.2.weeks`). */
export function calendarErrors(plan: PlanCalendar, stops: readonly CalendarStop[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  const at = (field: string, message: string) => {
    errors[field] ??= [message]
  }
  if (!Number.isInteger(plan.cycle_weeks) || plan.cycle_weeks < 1 || plan.cycle_weeks > MAX_CYCLE_WEEKS)
    at('cycle_weeks', `must be an integer from 1 to ${MAX_CYCLE_WEEKS}`)
  if (isoWeekday(plan.start_date) !== 1) at('start_date', 'must be a Monday')
  if (plan.end_date && plan.end_date < plan.start_date) at('end_date', 'must not be before start_date')
  stops.forEach((stop, i) => {
    if (!Number.isInteger(stop.weekday) || stop.weekday < 1 || stop.weekday > 7) at(`stops.${i}.weekday`, 'must be an integer from 1 (Monday) to 7 (Sunday)')
    for (const week of stop.weeks ?? [])
      if (!Number.isInteger(week) || week < 1 || week > plan.cycle_weeks) at(`stops.${i}.weeks`, `must be weeks from 1 to cycle_weeks (${plan.cycle_weeks})`)
  })
  return errors
}
