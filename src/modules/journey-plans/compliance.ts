/**
 * Plan compliance of one user's local day, for the field-day report: pure, over the visits of that
 * day the caller read (live rows only).
 *
 *   visits_planned_by_plan  visits generated from a journey plan (`source: "journey_plan"`), whatever their status
 *   visits_unplanned        visits added outside a plan by the office or the user (`manual`, `self`);
 *                           imported visits are neither
 *   plan_compliance_pct     completed generated ÷ generated, in percent to one decimal; null when nothing
 *                           was generated (no plan that day is not 0 % compliance)
 *   out_of_sequence         completed visits with a route_sequence and a check-in that are not in the longest
 *                           non-decreasing run of route_sequence taken in check-in order (ties: visit id),
 *                           i.e. the fewest visits whose removal leaves the day in route order
 */
export interface ComplianceVisit {
  id: number
  source: string
  journey_plan_id: number | null
  route_sequence: number | null
  status: string
  /** ISO 8601 UTC. */
  checked_in_at: string | null
}

export interface Compliance {
  visits_planned_by_plan: number
  visits_unplanned: number
  plan_compliance_pct: number | null
  out_of_sequence: number
}

export function compliance(visits: readonly ComplianceVisit[]): Compliance {
  let generated = 0
  let generatedCompleted = 0
  let unplanned = 0
  for (const visit of visits) {
    if (visit.source === 'journey_plan') {
      generated += 1
      if (visit.status === 'completed') generatedCompleted += 1
    } else if (visit.source === 'manual' || visit.source === 'self') unplanned += 1
  }
  const ordered = visits
    .filter((visit) => visit.status === 'completed' && visit.route_sequence !== null && visit.checked_in_at !== null)
    .sort((a, b) => (a.checked_in_at as string).localeCompare(b.checked_in_at as string) || a.id - b.id)
  return {
    visits_planned_by_plan: generated,
    visits_unplanned: unplanned,
    // Integer arithmetic before the one division: 2 of 3 → 66.7, 1 of 8 → 12.5.
    plan_compliance_pct: generated === 0 ? null : Math.round((generatedCompleted * 1000) / generated) / 10,
    out_of_sequence: ordered.length - longestNonDecreasing(ordered.map((visit) => visit.route_sequence as number)),
  }
}

/**
 * Length of the longest non-decreasing subsequence, O(n log n): `tails[k]` is the smallest last value of
 * such a run of length k + 1; each value replaces the first tail greater than it (upper bound), so
 * equal sequence numbers both count as in order.
 */
export function longestNonDecreasing(values: readonly number[]): number {
  const tails: number[] = []
  for (const value of values) {
    let low = 0
    let high = tails.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((tails[middle] as number) <= value) low = middle + 1
      else high = middle
    }
    tails[low] = value
  }
  return tails.length
}
