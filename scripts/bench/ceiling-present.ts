/**
 * A visit and a submission as the bench ceilings (./ceiling-suite.ts, ./sync.ts) present them: the service's
 * detail (src/modules/visits/visits.queries.ts `presentDetail`, `presentSubmission`) over rows SELECTed with
 * its columns, aliased where two share a name (`outlet_name`, `submitted_by_name`…). One copy for both
 * ceilings, checked against the service's answers before every run (./common.ts `differences`).
 */
import { locationOf } from '../../src/lib/geo'
import { visitFlagNames } from '../../src/modules/visits'

type Row = Record<string, any>

/** A parent shown as `{ id, …fields }`, or null without one. */
export const parentOf = (id: unknown, fields: Row) => (id === null ? null : { id, ...fields })

export const presentSubmission = ({ submitted_by, submitted_by_name, reviewed_by, reviewed_by_name, ...row }: Row) => ({
  ...row,
  is_required: Boolean(row.is_required),
  answers: JSON.parse(row.answers),
  rows: row.rows === null ? null : JSON.parse(row.rows),
  submitted_by: parentOf(submitted_by, { name: submitted_by_name ?? '' }),
  reviewed_by: parentOf(reviewed_by, { name: reviewed_by_name ?? '' }),
})

/** `row`: the detail's columns; `submissions` already presented; `assignees` and `logs` as SELECTed. */
export const presentVisitDetail = (row: Row, assignees: Row[], submissions: Row[], logs: Row[]) => ({
  id: row.id,
  outlet: { id: row.outlet_id, name: row.outlet_name, address: row.outlet_address },
  project: { id: row.project_id, name: row.project_name },
  team: parentOf(row.team_id, { name: row.team_name ?? '' }),
  status: row.status,
  visit_date: row.visit_date,
  notes: row.notes,
  checked_in_at: row.checked_in_at,
  check_in_location: locationOf(row.check_in_latitude, row.check_in_longitude),
  check_in_photo_url: row.check_in_photo_url,
  check_in_distance_m: row.check_in_distance_m,
  checked_out_at: row.checked_out_at,
  check_out_location: locationOf(row.check_out_latitude, row.check_out_longitude),
  check_out_photo_url: row.check_out_photo_url,
  check_out_distance_m: row.check_out_distance_m,
  flags: visitFlagNames(row.flags),
  effective: Boolean(row.effective),
  close_reason: row.close_reason,
  sent_to_field_at: row.sent_to_field_at,
  assignees: assignees.map(({ user_id, name, email }) => ({ user_id, name, email })),
  submissions,
  logs: logs.map((log) => ({ action: log.action, timestamp: log.created_at, notes: log.notes, user: { id: log.user_id, name: log.user_name } })),
  source: row.source,
  journey_plan_id: row.journey_plan_id,
  route_sequence: row.route_sequence,
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
})
