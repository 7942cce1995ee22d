/**
 * Visits and submissions as the bench ceilings (./ceiling-suite.ts, ./sync.ts) read and present them: the
 * service's column lists (src/modules/visits/visits.queries.ts `listColumns`, `detailColumns`,
 * `submissionColumns`, aliased where two columns share a name) and its own presenter of a visit's detail
 * (`presentDetail`, a pure function of the rows, run by the ceilings as they run the route's and the
 * report's summaries). One copy for both ceilings, checked against the service's answers before every run
 * (./common.ts `differences`).
 */
import { presentDetail } from '../../src/modules/visits/visits.queries'

type Row = Record<string, any>

/** A visit list's columns. */
export const VISIT_LIST_COLUMNS = `"visits"."id", "visits"."status", "visits"."visit_date", "visits"."outlet_id", "outlets"."name" as outlet_name, "visits"."project_id", "projects"."name" as project_name, "visits"."team_id", "teams"."name" as team_name, "visits"."checked_in_at", "visits"."checked_out_at", "visits"."sent_to_field_at", "visits"."flags", "visits"."effective", "visits"."route_sequence", "visits"."created_at", "visits"."updated_at"`
/** A visit detail's columns: the list's and the rest. */
export const VISIT_COLUMNS = `${VISIT_LIST_COLUMNS}, "visits"."workspace_id", "outlets"."address" as outlet_address, "visits"."notes", "visits"."check_in_latitude", "visits"."check_in_longitude", "visits"."check_in_photo_url", "visits"."check_in_distance_m", "visits"."check_out_latitude", "visits"."check_out_longitude", "visits"."check_out_photo_url", "visits"."check_out_distance_m", "visits"."close_reason", "visits"."source", "visits"."journey_plan_id", "visits"."created_by"`
export const VISIT_FROM = `from "visits" inner join "outlets" on "outlets"."id" = "visits"."outlet_id" inner join "projects" on "projects"."id" = "visits"."project_id" left join "teams" on "teams"."id" = "visits"."team_id"`
/** A submission's columns and its FROM (the visit joined, as the service's `selectSubmissions`). */
export const SUBMISSION_COLUMNS_FROM = `"submissions"."id", "submissions"."visit_id", "submissions"."form_id", "submissions"."title", "submissions"."status", "submissions"."approval_status", "submissions"."is_required", "submissions"."order", "submissions"."answers", "submissions"."rows", "submissions"."submitted_at", "submissions"."submitted_by", (select "users"."name" from "users" where "users"."id" = "submissions"."submitted_by") as submitted_by_name, "submissions"."reviewed_at", "submissions"."reviewed_by", (select "users"."name" from "users" where "users"."id" = "submissions"."reviewed_by") as reviewed_by_name, "submissions"."approval_notes", "submissions"."created_at", "submissions"."updated_at" from "submissions" inner join "visits" on "visits"."id" = "submissions"."visit_id"`

/** A parent shown as `{ id, …fields }`, or null without one. */
export const parentOf = (id: unknown, fields: Row) => (id === null ? null : { id, ...fields })

/** A submission row as the service presents it: its JSON parsed, its flag a boolean, the people as parents. */
export const presentSubmission = ({ submitted_by, submitted_by_name, reviewed_by, reviewed_by_name, ...row }: Row) => ({
  ...row,
  is_required: Boolean(row.is_required),
  answers: JSON.parse(row.answers),
  rows: row.rows === null ? null : JSON.parse(row.rows),
  submitted_by: parentOf(submitted_by, { name: submitted_by_name ?? '' }),
  reviewed_by: parentOf(reviewed_by, { name: reviewed_by_name ?? '' }),
})

/**
 * The service's `presentDetail` over a row of VISIT_COLUMNS (its `effective` a boolean, as Drizzle reads it),
 * the visit's assignees and logs as SELECTed and its submissions presented.
 */
export const presentVisitDetail = (row: Row, assignees: Row[], submissions: Row[], logs: Row[]) =>
  presentDetail({ ...row, effective: Boolean(row.effective) } as Detail[0], assignees as Detail[1], submissions as Detail[2], logs as Detail[3])
type Detail = Parameters<typeof presentDetail>
