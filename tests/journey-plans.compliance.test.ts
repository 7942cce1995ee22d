/**
 * Plan compliance of a day (src/modules/journey-plans/compliance.ts), on hand-computed cases.
 */
import { describe, expect, test } from 'bun:test'
import { type ComplianceVisit, compliance, longestNonDecreasing } from '../src/modules/journey-plans'

let nextId = 1
const visit = (fields: Partial<ComplianceVisit>): ComplianceVisit => ({
  id: nextId++,
  source: 'journey_plan',
  journey_plan_id: 1,
  route_sequence: null,
  status: 'scheduled',
  checked_in_at: null,
  ...fields,
})
const done = (route_sequence: number, hour: number, fields: Partial<ComplianceVisit> = {}) =>
  visit({ route_sequence, status: 'completed', checked_in_at: `2026-11-24T${String(hour).padStart(2, '0')}:00:00.000Z`, ...fields })

describe('longestNonDecreasing', () => {
  test('hand-computed runs', () => {
    expect(longestNonDecreasing([])).toBe(0)
    expect(longestNonDecreasing([1, 2, 3])).toBe(3)
    expect(longestNonDecreasing([3, 2, 1])).toBe(1)
    expect(longestNonDecreasing([1, 3, 2, 4, 5])).toBe(4)
    expect(longestNonDecreasing([5, 1, 2, 3, 4])).toBe(4)
    expect(longestNonDecreasing([2, 2, 1, 2])).toBe(3)
    expect(longestNonDecreasing([10, 20, 1, 2, 3, 30])).toBe(4)
  })
})

describe('compliance', () => {
  test('no visits: nothing planned, percentage null (not 0)', () => {
    expect(compliance([])).toEqual({ visits_planned_by_plan: 0, visits_unplanned: 0, plan_compliance_pct: null, out_of_sequence: 0 })
  })

  test('only manual and self visits: unplanned counted, no plan percentage; imported ones are neither', () => {
    const day = [
      visit({ source: 'manual', journey_plan_id: null }),
      visit({ source: 'self', journey_plan_id: null }),
      visit({ source: 'import', journey_plan_id: null }),
    ]
    expect(compliance(day)).toMatchObject({ visits_planned_by_plan: 0, visits_unplanned: 2, plan_compliance_pct: null })
  })

  test('2 of 3 generated completed is 66.7 %; other statuses count as planned, not completed', () => {
    const day = [
      done(1, 1),
      done(2, 2),
      visit({ route_sequence: 3, status: 'cancelled' }),
      visit({ source: 'manual', journey_plan_id: null, status: 'completed', checked_in_at: '2026-11-24T05:00:00.000Z' }),
    ]
    expect(compliance(day)).toEqual({ visits_planned_by_plan: 3, visits_unplanned: 1, plan_compliance_pct: 66.7, out_of_sequence: 0 })
  })

  test('one decimal: 1 of 8 is 12.5, 1 of 3 is 33.3, 8 of 8 is 100', () => {
    const ofEight = [done(1, 1), ...Array.from({ length: 7 }, (_, i) => visit({ route_sequence: i + 2, status: i % 2 ? 'scheduled' : 'force_closed' }))]
    expect(compliance(ofEight).plan_compliance_pct).toBe(12.5)
    expect(compliance([done(1, 1), visit({}), visit({ status: 'in_progress' })]).plan_compliance_pct).toBe(33.3)
    expect(compliance(Array.from({ length: 8 }, (_, i) => done(i + 1, i + 1))).plan_compliance_pct).toBe(100)
  })

  test('out of sequence: checked in as 1, 3, 2, 4, 5 → one visit out of order', () => {
    const day = [done(1, 1), done(3, 2), done(2, 3), done(4, 4), done(5, 5)]
    expect(compliance(day).out_of_sequence).toBe(1)
  })

  test('out of sequence: the route done backwards (5 … 1) → four out of order', () => {
    const day = [done(5, 1), done(4, 2), done(3, 3), done(2, 4), done(1, 5)]
    expect(compliance(day).out_of_sequence).toBe(4)
  })

  test('check-in order decides, not the order the visits are given in; equal times go by id', () => {
    const late = done(1, 9)
    const early = done(2, 8)
    expect(compliance([late, early]).out_of_sequence).toBe(1)
    const a = done(2, 8)
    const b = done(1, 8) // same check-in, larger id: after a → out of order
    expect(compliance([b, a]).out_of_sequence).toBe(1)
  })

  test('only completed visits with a sequence and a check-in are ranked; manual ones with a sequence count too', () => {
    const day = [
      done(3, 1),
      visit({ route_sequence: 1, status: 'in_progress', checked_in_at: '2026-11-24T02:00:00.000Z' }),
      done(2, 3, { source: 'manual', journey_plan_id: null }),
      visit({ status: 'completed', checked_in_at: '2026-11-24T04:00:00.000Z' }), // no sequence
      done(4, 5),
    ]
    // Ranked: 3, 2, 4 → the longest run is 3, 4 (or 2, 4): one out of order.
    expect(compliance(day).out_of_sequence).toBe(1)
  })

  test('two stops sharing a sequence number are in order either way', () => {
    expect(compliance([done(1, 1), done(2, 2), done(2, 3), done(3, 4)]).out_of_sequence).toBe(0)
  })
})
