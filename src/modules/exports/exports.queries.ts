/**
 * What a submission export reads (exports.service.ts writes the CSV, exports.pdf.ts the PDF): the submissions of the
 * export's filters (the office list's, visits module `submissionFilters`) a page at a time in id order, their total.
 */
import { and, count, eq, gt, sql } from 'drizzle-orm'
import { type FormField, outlets, projects, submissions, teams, users, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { formsByIds } from '../forms'
import { submissionFilters, type SubmissionListQuery } from '../visits'

/** Rows per read of an export. */
export const EXPORT_PAGE = 500

/** The CSV's columns of a submission, in order (the flattened matrix cells follow them: exports.matrix.ts). */
export const SUBMISSION_COLUMNS = [
  'submission_id',
  'visit_id',
  'visit_date',
  'outlet_code',
  'outlet_name',
  'project_name',
  'team_name',
  'form_title',
  'status',
  'approval_status',
  'submitted_at',
  'submitted_by',
  'reviewed_at',
  'reviewed_by',
  'approval_notes',
  'answers',
] as const

/** One page of the submissions an export holds, after `afterId`, in id order. */
export function submissionsPage(ctx: AuthedContext, filters: SubmissionListQuery, afterId: number, limit: number) {
  return ctx.deps.db.read
    .select({
      submission_id: submissions.id,
      visit_id: submissions.visit_id,
      visit_date: visits.visit_date,
      outlet_code: outlets.code,
      outlet_name: outlets.name,
      project_name: projects.name,
      team_name: teams.name,
      form_title: submissions.title,
      status: submissions.status,
      approval_status: submissions.approval_status,
      submitted_at: submissions.submitted_at,
      submitted_by: sql<string | null>`(select ${users.name} from ${users} where ${users.id} = ${submissions.submitted_by})`,
      reviewed_at: submissions.reviewed_at,
      reviewed_by: sql<string | null>`(select ${users.name} from ${users} where ${users.id} = ${submissions.reviewed_by})`,
      approval_notes: submissions.approval_notes,
      answers: submissions.answers,
      form_id: submissions.form_id,
      rows: submissions.rows,
    })
    .from(submissions)
    .innerJoin(visits, eq(visits.id, submissions.visit_id))
    .innerJoin(outlets, eq(outlets.id, visits.outlet_id))
    .innerJoin(projects, eq(projects.id, visits.project_id))
    .leftJoin(teams, eq(teams.id, visits.team_id))
    .where(and(submissionFilters(ctx, filters, { mine: false }), gt(submissions.id, afterId)))
    .orderBy(submissions.id)
    .limit(limit)
}

export type ExportedSubmission = Awaited<ReturnType<typeof submissionsPage>>[number]

/** How many submissions the export's filters hold. */
export async function submissionsTotal(ctx: AuthedContext, filters: SubmissionListQuery): Promise<number> {
  const [{ total }] = await ctx.deps.db.read
    .select({ total: count() })
    .from(submissions)
    .innerJoin(visits, eq(visits.id, submissions.visit_id))
    .where(submissionFilters(ctx, filters, { mine: false }))
  return Number(total)
}

/**
 * The submissions of the export that hold frozen product-matrix rows, with only what lays out the CSV's matrix
 * columns (exports.matrix.ts): no joins for names, and none of the submissions without a matrix.
 */
export function matrixPage(ctx: AuthedContext, filters: SubmissionListQuery, afterId: number, limit: number) {
  return ctx.deps.db.read
    .select({ submission_id: submissions.id, form_id: submissions.form_id, rows: submissions.rows, answers: submissions.answers })
    .from(submissions)
    .innerJoin(visits, eq(visits.id, submissions.visit_id))
    .where(
      and(submissionFilters(ctx, filters, { mine: false }), gt(submissions.id, afterId), sql`${submissions.rows} is not null and ${submissions.rows} != '{}'`),
    )
    .orderBy(submissions.id)
    .limit(limit)
}

/**
 * The fields of the forms of `rows` not yet in `known` (read once per export, live forms only: a deleted form's
 * submissions are exported without its definition, `undefined`).
 */
export async function learnForms(ctx: AuthedContext, known: Map<number, readonly FormField[] | undefined>, rows: readonly { form_id: number }[]) {
  const missing = [...new Set(rows.map((row) => row.form_id))].filter((id) => !known.has(id))
  if (missing.length === 0) return
  const found = await formsByIds(ctx.deps.db.read, ctx.actor.workspaceId, missing)
  for (const id of missing) known.set(id, found.find((form) => form.id === id)?.fields)
}

/**
 * Pages of rows in key order, EXPORT_PAGE at a time, at most `max` rows: `next(afterId, limit)` reads the rows
 * after the last key of the page before (every pass of an export over what it holds).
 */
export async function* pagesOf<R>(next: (afterId: number, limit: number) => Promise<R[]>, keyOf: (row: R) => number, max = Number.POSITIVE_INFINITY) {
  let afterId = 0
  let seen = 0
  while (seen < max) {
    const limit = Math.min(EXPORT_PAGE, max - seen)
    const rows = await next(afterId, limit)
    if (rows.length === 0) return
    yield rows
    seen += rows.length
    if (rows.length < limit) return
    afterId = keyOf(rows[rows.length - 1])
  }
}

/** Every submission of the export (up to `max`), a page at a time. */
export const exportedSubmissions = (ctx: AuthedContext, filters: SubmissionListQuery, max?: number) =>
  pagesOf(
    (afterId, limit) => submissionsPage(ctx, filters, afterId, limit),
    (row) => row.submission_id,
    max,
  )
