/**
 * Journey plan calendar (src/modules/journey-plans/calendar.ts): which local dates a plan's stops fall
 * on, and the local dates a nightly run covers, with a controlled clock in zones a day apart.
 */
import { describe, expect, test } from 'bun:test'
import { calendarErrors, cycleWeek, firstEditableDate, horizon, isoWeekday, maskToWeeks, occurrences, weeksToMask } from '../src/modules/journey-plans'
import { ManualClock } from '../src/lib/clock'

interface Stop {
  outlet: string
  weekday: number
  weeks?: number[]
  sequence: number
}

const dates = (list: { date: string; stop: Stop }[]) => list.map((o) => `${o.date} ${o.stop.outlet}`)
const MONDAY = '2026-11-23'

describe('cycleWeek and isoWeekday', () => {
  test('Monday is 1 and Sunday 7', () => {
    expect(isoWeekday('2026-11-23')).toBe(1)
    expect(isoWeekday('2026-11-29')).toBe(7)
    expect(isoWeekday('2024-02-29')).toBe(4)
  })

  test('week 1 is the week of start_date and the cycle repeats', () => {
    const plan = { start_date: MONDAY, cycle_weeks: 4 }
    expect(['2026-11-23', '2026-11-29', '2026-11-30', '2026-12-07', '2026-12-14', '2026-12-21', '2026-12-27'].map((d) => cycleWeek(plan, d))).toEqual([
      1, 1, 2, 3, 4, 1, 1,
    ])
    expect(cycleWeek({ start_date: MONDAY, cycle_weeks: 1 }, '2027-06-01')).toBe(1)
  })

  test('an 8-week cycle across the year boundary', () => {
    const plan = { start_date: '2026-11-02', cycle_weeks: 8 }
    // 2026-12-28 is 56 days after start: week 9 → week 1 again; 2027-01-04 is week 2.
    expect(cycleWeek(plan, '2026-12-27')).toBe(8)
    expect(cycleWeek(plan, '2026-12-28')).toBe(1)
    expect(cycleWeek(plan, '2027-01-04')).toBe(2)
  })
})

describe('occurrences', () => {
  test('a weekly plan: every Monday and Thursday in the range, in sequence order each day', () => {
    const stops: Stop[] = [
      { outlet: 'B', weekday: 1, sequence: 2 },
      { outlet: 'A', weekday: 1, sequence: 1 },
      { outlet: 'C', weekday: 4, sequence: 1 },
    ]
    const list = occurrences({ start_date: MONDAY, cycle_weeks: 1 }, stops, { from: MONDAY, to: '2026-12-03' })
    expect(dates(list)).toEqual(['2026-11-23 A', '2026-11-23 B', '2026-11-26 C', '2026-11-30 A', '2026-11-30 B', '2026-12-03 C'])
  })

  test('a 2-week cycle: week-1 and week-2 stops alternate', () => {
    const stops: Stop[] = [
      { outlet: 'W1', weekday: 2, weeks: [1], sequence: 1 },
      { outlet: 'W2', weekday: 2, weeks: [2], sequence: 1 },
    ]
    const list = occurrences({ start_date: MONDAY, cycle_weeks: 2 }, stops, { from: MONDAY, to: '2026-12-22' })
    expect(dates(list)).toEqual(['2026-11-24 W1', '2026-12-01 W2', '2026-12-08 W1', '2026-12-15 W2', '2026-12-22 W1'])
  })

  test('weeks [1,3] of a 4-week cycle, across two cycles', () => {
    const stops: Stop[] = [{ outlet: 'X', weekday: 5, weeks: [1, 3], sequence: 1 }]
    const list = occurrences({ start_date: MONDAY, cycle_weeks: 4 }, stops, { from: MONDAY, to: '2027-01-17' })
    // Fridays: 11-27 (w1), 12-04 (w2), 12-11 (w3), 12-18 (w4), 12-25 (w1), 01-01 (w2), 01-08 (w3), 01-15 (w4).
    expect(dates(list)).toEqual(['2026-11-27 X', '2026-12-11 X', '2026-12-25 X', '2027-01-08 X'])
  })

  test('an 8-week cycle visits week 8 once per cycle', () => {
    const stops: Stop[] = [{ outlet: 'Y', weekday: 7, weeks: [8], sequence: 1 }]
    const list = occurrences({ start_date: MONDAY, cycle_weeks: 8 }, stops, { from: MONDAY, to: '2027-04-30' })
    expect(dates(list)).toEqual(['2027-01-17 Y', '2027-03-14 Y'])
  })

  test('end_date is inclusive; nothing after it', () => {
    const stops: Stop[] = [{ outlet: 'A', weekday: 3, sequence: 1 }]
    const list = occurrences({ start_date: MONDAY, end_date: '2026-12-02', cycle_weeks: 1 }, stops, { from: '2026-11-01', to: '2026-12-31' })
    expect(dates(list)).toEqual(['2026-11-25 A', '2026-12-02 A'])
  })

  test('no visit on a holiday; the other days stay', () => {
    const stops: Stop[] = [
      { outlet: 'A', weekday: 1, sequence: 1 },
      { outlet: 'B', weekday: 2, sequence: 1 },
    ]
    const list = occurrences({ start_date: MONDAY, cycle_weeks: 1 }, stops, { from: MONDAY, to: '2026-12-01', holidays: ['2026-11-24', '2026-11-30'] })
    expect(dates(list)).toEqual(['2026-11-23 A', '2026-12-01 B'])
  })

  test('a plan starting in the middle of the range: nothing before start_date', () => {
    const stops: Stop[] = [{ outlet: 'A', weekday: 1, sequence: 1 }]
    const list = occurrences({ start_date: '2026-12-07', cycle_weeks: 2 }, stops, { from: MONDAY, to: '2026-12-31' })
    expect(dates(list)).toEqual(['2026-12-07 A', '2026-12-14 A', '2026-12-21 A', '2026-12-28 A'])
  })

  test('a range ending before the plan starts, or starting after it ends, is empty', () => {
    const stops: Stop[] = [{ outlet: 'A', weekday: 1, sequence: 1 }]
    expect(occurrences({ start_date: '2026-12-07', cycle_weeks: 1 }, stops, { from: MONDAY, to: '2026-12-06' })).toEqual([])
    expect(occurrences({ start_date: MONDAY, end_date: '2026-11-30', cycle_weeks: 1 }, stops, { from: '2026-12-01', to: '2026-12-31' })).toEqual([])
  })

  test('leap day: Thursday 2024-02-29 is visited and the cycle counts it as a day', () => {
    const stops: Stop[] = [{ outlet: 'L', weekday: 4, weeks: [1], sequence: 1 }]
    const list = occurrences({ start_date: '2024-02-26', cycle_weeks: 2 }, stops, { from: '2024-02-20', to: '2024-03-31' })
    // Thursdays of week 1: 02-29, 03-14, 03-28 (two weeks apart, across the 29th of February).
    expect(dates(list)).toEqual(['2024-02-29 L', '2024-03-14 L', '2024-03-28 L'])
  })

  test('across the year boundary the cycle carries on', () => {
    const stops: Stop[] = [{ outlet: 'N', weekday: 5, weeks: [2], sequence: 1 }]
    const list = occurrences({ start_date: '2026-12-21', cycle_weeks: 2 }, stops, { from: '2026-12-21', to: '2027-01-20', holidays: ['2027-01-15'] })
    // Fridays of week 2 (28 Dec – 3 Jan, 11–17 Jan): 2027-01-01, and 2027-01-15, a holiday.
    expect(dates(list)).toEqual(['2027-01-01 N'])
  })
})

describe('horizon around local midnight', () => {
  // 10:30 UTC on 24 November: 00:30 on the 25th in Kiritimati (UTC+14), 23:30 on the 23rd in Pago Pago (UTC−11).
  const clock = new ManualClock(new Date('2026-11-24T10:30:00.000Z'))

  test('the same instant is a different local day a side of the date line', () => {
    expect(horizon(clock.now(), 'Pacific/Kiritimati', 3)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27'])
    expect(horizon(clock.now(), 'Pacific/Pago_Pago', 3)).toEqual(['2026-11-23', '2026-11-24', '2026-11-25'])
  })

  test('one minute past local midnight the horizon starts at the new day', () => {
    clock.set(new Date('2026-11-24T11:01:00.000Z')) // 00:01 on the 24th in Pago Pago
    expect(horizon(clock.now(), 'Pacific/Pago_Pago', 7)).toEqual([
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
    ])
    clock.set(new Date('2026-11-24T09:59:00.000Z')) // 23:59 on the 24th in Kiritimati
    expect(horizon(clock.now(), 'Pacific/Kiritimati', 1)).toEqual(['2026-11-24'])
  })

  test('an edit replaces generated visits from the next local day on', () => {
    clock.set(new Date('2026-11-24T10:30:00.000Z'))
    expect(firstEditableDate(clock.now(), 'Pacific/Kiritimati')).toBe('2026-11-26')
    expect(firstEditableDate(clock.now(), 'Pacific/Pago_Pago')).toBe('2026-11-24')
  })

  test('the horizon across the year boundary', () => {
    expect(horizon(new Date('2026-12-30T12:00:00.000Z'), 'Pacific/Kiritimati', 3)).toEqual(['2026-12-31', '2027-01-01', '2027-01-02'])
  })
})

describe('weeks mask and calendar errors', () => {
  test('bit w − 1 stands for week w; 0 is every week', () => {
    expect(weeksToMask([1, 3])).toBe(0b101)
    expect(maskToWeeks(0b101, 4)).toEqual([1, 3])
    expect(maskToWeeks(0, 4)).toEqual([1, 2, 3, 4])
    expect(weeksToMask([8])).toBe(128)
    expect(maskToWeeks(weeksToMask([2, 8]), 8)).toEqual([2, 8])
  })

  test('start_date must be a Monday, cycle 1–8, weekday 1–7, weeks within the cycle', () => {
    expect(calendarErrors({ start_date: MONDAY, cycle_weeks: 4 }, [{ weekday: 1, weeks: [1, 4], sequence: 1 }])).toEqual({})
    expect(
      calendarErrors({ start_date: '2026-11-24', end_date: '2026-11-01', cycle_weeks: 9 }, [
        { weekday: 0, sequence: 1 },
        { weekday: 2, weeks: [10], sequence: 2 },
      ]),
    ).toEqual({
      cycle_weeks: ['must be an integer from 1 to 8'],
      start_date: ['must be a Monday'],
      end_date: ['must not be before start_date'],
      'stops.0.weekday': ['must be an integer from 1 (Monday) to 7 (Sunday)'],
      'stops.1.weeks': ['must be weeks from 1 to cycle_weeks (9)'],
    })
  })
})
