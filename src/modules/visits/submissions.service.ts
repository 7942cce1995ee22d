/**
 * Submissions: the forms filled on a visit (docs/API.md §Visits).
 *
 * - The office attaches or removes them while the visit is open; a completed one cannot be removed.
 * - The field saves them with submit-form-v2 (items that update by id, or without an id fill the
 *   form's oldest submission not yet completed, else create one; as draft or completed) or
 *   the legacy submit-form (one completed answer set). Completing checks the answers against the
 *   form's fields and puts the submission up for approval.
 * - The office approves or rejects a completed submission that awaits approval; a rejected one may be
 *   sent again while the visit is in progress or completed.
 */
import { and, eq, inArray, isNull, max, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { submissions, type Answers, type FrozenRows, type SubmissionStatus } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { type TxScope, withTransaction } from '../../platform/data/transaction'
import { type PhotoBatch, withPhotos } from '../files'
import { formScope, freezeRows, hasMatrix, validateAnswers } from '../forms'
import { notify } from '../notifications'
import { canChangeSubmissions, canSubmit } from './visits.machine'
import { findVisit, getSubmission, submissionScope, submissionsOfVisit } from './visits.queries'
import type { AddSubmissionInput, ApprovalInput, SubmitFormInput, SubmitFormsInput, SubmitItem } from './visits.schemas'
import { VisitStateConflict } from './visits.service'

type SubmissionRow = typeof submissions.$inferSelect

/** A form's submissions on a visit that are not yet completed, oldest first. */
const openSubmissionsOfForm = prepared((db) =>
  db
    .select()
    .from(submissions)
    .where(
      submissionScope.where(
        sql.placeholder('workspaceId'),
        eq(submissions.visit_id, sql.placeholder('visitId')),
        eq(submissions.form_id, sql.placeholder('formId')),
        ne(submissions.status, 'completed'),
      ),
    )
    .orderBy(submissions.id)
    .prepare(),
)

/** New submissions go after the visit's existing ones. */
async function nextOrder(tx: Db, visitId: number) {
  const [{ last }] = await tx
    .select({ last: max(submissions.order) })
    .from(submissions)
    .where(eq(submissions.visit_id, visitId))
  return (last ?? -1) + 1
}

async function findSubmission(tx: Db, workspaceId: number, visitId: number, id: number): Promise<SubmissionRow> {
  const [row] = await tx
    .select()
    .from(submissions)
    .where(submissionScope.where(workspaceId, eq(submissions.id, id), eq(submissions.visit_id, visitId)))
    .limit(1)
  if (!row) throw new NotFound('SUBMISSION')
  return row
}

/** Office: attach a form to an open visit. */
export function addSubmission(ctx: AuthedContext, visitId: number, input: AddSubmissionInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const visit = await findVisit(tx, ctx, visitId, { mine: false })
    if (!canChangeSubmissions(visit.status)) throw new VisitStateConflict('INVALID_VISIT_STATUS', visit.status)
    const form = await formScope.find(tx, ctx.actor.workspaceId, input.form_id)
    if (!form) throw ValidationFailed.field('form_id', `form ${input.form_id} does not exist`)
    const now = ctx.deps.clock.now().toISOString()
    const [row] = await tx
      .insert(submissions)
      .values({
        workspace_id: ctx.actor.workspaceId,
        visit_id: visitId,
        form_id: form.id,
        title: form.title,
        is_required: input.is_required ?? false,
        order: await nextOrder(tx, visitId),
        status: 'pending',
        answers: {},
        // Attached after check-in: its rows are frozen now (before it, check-in freezes them).
        rows: visit.status === 'in_progress' ? await freezeRows(tx, ctx.actor.workspaceId, form.fields) : null,
        created_at: now,
        updated_at: now,
      })
      .returning()
    const result = await getSubmission(tx, ctx, row.id, { mine: false, visitId })
    await audit({ entityType: 'submission', entityId: row.id, entityName: form.title, action: 'created', newValues: result })
    return result
  })
}

/** Office: remove a submission not yet submitted. */
export function deleteSubmission(ctx: AuthedContext, visitId: number, id: number) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const visit = await findVisit(tx, ctx, visitId, { mine: false })
    const submission = await findSubmission(tx, ctx.actor.workspaceId, visitId, id)
    if (submission.status === 'completed') throw new AppError('SUBMISSION_ALREADY_SUBMITTED', 'a submitted form cannot be removed')
    if (!canChangeSubmissions(visit.status)) throw new VisitStateConflict('INVALID_VISIT_STATUS', visit.status)
    const before = await getSubmission(tx, ctx, id, { mine: false, visitId })
    const now = ctx.deps.clock.now().toISOString()
    await tx.update(submissions).set({ deleted_at: now, updated_at: now }).where(eq(submissions.id, id))
    await audit({ entityType: 'submission', entityId: id, entityName: submission.title, action: 'deleted', oldValues: before })
    return { ...before, deleted_at: now }
  })
}

/** Where item N's fields live in the request body (`items.N.` for v2, `` for the legacy body). */
type ItemPath = (index: number) => string
type Form = NonNullable<Awaited<ReturnType<typeof formScope.find>>>
/**
 * An item with its answers as checked against the form (photos replaced by their URLs) and the
 * product-matrix rows they were checked against.
 */
type CheckedItem = { item: SubmitItem; answers: Answers; rows: FrozenRows }
/** The form, and its matrix rows as of now (what a submission created by this request freezes). */
type FormNow = { form: Form; current: FrozenRows }
/** Where an item is saved: an existing row, or the n-th submission this request creates. */
type Target = { row: SubmissionRow } | { created: number }
type Step = CheckedItem & { target: Target }

/**
 * The field saves forms of a visit (submit-form-v2). Every item is checked before anything is
 * written; errors are keyed `items.N.*`. Photos in answers are stored and replaced by their URLs.
 */
export async function submitForms(ctx: AuthedContext, visitId: number, input: SubmitFormsInput, at: ItemPath = (index) => `items.${index}.`) {
  return withPhotos(ctx, async (photos) => {
    const { form, current, checked } = await checkItems(ctx, visitId, input, at, photos)
    return withTransaction(ctx, async (scope) => {
      const steps = await decideTargets(scope.tx, ctx, visitId, { form, current }, checked, at)
      await photos.record(scope.tx)
      const savedIds = await writeSteps(scope, ctx, visitId, form, steps)
      const all = await submissionsOfVisit(scope.tx, visitId)
      return { visit_id: visitId, submissions: all.filter((submission) => savedIds.includes(submission.id)) }
    })
  })
}

/**
 * Everything about a submit-form request that needs no writer: the visit is the caller's, no id is
 * listed twice, the form exists, every item's answers fit it; then the photos are stored (slow work
 * never holds the writer).
 */
async function checkItems(ctx: AuthedContext, visitId: number, input: SubmitFormsInput, at: ItemPath, photos: PhotoBatch) {
  const db = ctx.deps.db.read
  // Someone else's visit is a 404 before anything about the body is said (checked again in the transaction).
  await findVisit(db, ctx, visitId, { mine: true })
  const repeated = input.items.findIndex(
    (item, index) => item.submission_id !== null && input.items.findIndex((other) => other.submission_id === item.submission_id) !== index,
  )
  if (repeated !== -1) throw ValidationFailed.field(`${at(repeated)}submission_id`, 'is listed twice')
  const form = await formScope.find(db, ctx.actor.workspaceId, input.form_id)
  if (!form) throw ValidationFailed.field('form_id', `form ${input.form_id} does not exist`)
  const { current, rowsOf } = await matrixRowsOfItems(db, ctx, visitId, form, input)
  const checked: CheckedItem[] = []
  const errors: Record<string, string[]> = {}
  for (const [index, item] of input.items.entries()) {
    const rows = rowsOf(item)
    const result = validateAnswers(form.fields, item.answers, item.status === 'completed', rows)
    for (const [key, messages] of Object.entries(result.errors)) errors[`${at(index)}answers.${key}`] = messages
    checked.push({ item, answers: result.answers, rows })
  }
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
  for (const [index, { answers, rows }] of checked.entries()) {
    for (const key of validateAnswers(form.fields, answers, false, rows).photoKeys) {
      answers[key] = await photos.accept(String(answers[key]), `${at(index)}answers.${key}`)
    }
  }
  return { form, current, checked }
}

/**
 * The product-matrix rows each item's answers are checked against (docs/API.md "Product matrix"):
 * those frozen on the submission it names, or on the open one an id-less item fills; a submission
 * this request creates freezes the rows as of now (`current`), as does one not yet frozen.
 * Without a matrix in the form, nothing is read. `decideTargets` checks the guess under the lock.
 */
async function matrixRowsOfItems(db: Db, ctx: AuthedContext, visitId: number, form: Form, input: SubmitFormsInput) {
  if (!hasMatrix(form.fields)) return { current: {}, rowsOf: () => ({}) }
  const current = await freezeRows(db, ctx.actor.workspaceId, form.fields)
  const ids = input.items.map((item) => item.submission_id).filter((id): id is number => id !== null)
  const named = ids.length
    ? await db
        .select({ id: submissions.id, rows: submissions.rows })
        .from(submissions)
        .where(submissionScope.where(ctx.actor.workspaceId, inArray(submissions.id, ids), eq(submissions.visit_id, visitId)))
    : []
  const byId = new Map(named.map((row) => [row.id, row.rows]))
  const [open] = (await openSubmissionsOfForm(db).all({ visitId, formId: form.id, workspaceId: ctx.actor.workspaceId })).filter((row) => !byId.has(row.id))
  const rowsOf = (item: SubmitItem): FrozenRows => (item.submission_id === null ? open?.rows : byId.get(item.submission_id)) ?? current
  return { current, rowsOf }
}

/**
 * Inside the transaction, before any write: every item's target and whether the visit and the target
 * allow it, in item order (each item sees what the ones before it did), so a refused item leaves the
 * others unwritten too.
 */
async function decideTargets(tx: Db, ctx: AuthedContext, visitId: number, { form, current }: FormNow, checked: CheckedItem[], at: ItemPath): Promise<Step[]> {
  const visit = await findVisit(tx, ctx, visitId, { mine: true })
  const existingIds = checked.map(({ item }) => item.submission_id).filter((id): id is number => id !== null)
  const existing = existingIds.length
    ? await tx
        .select()
        .from(submissions)
        .where(submissionScope.where(ctx.actor.workspaceId, inArray(submissions.id, existingIds), eq(submissions.visit_id, visitId)))
    : []
  const byId = new Map(existing.map((row) => [row.id, row]))
  // An item without an id fills the form's oldest submission on the visit that is not yet
  // completed (a phone that never learned the pre-created ids must not strand a required form),
  // and creates one only when there is none. Read under the write lock, so concurrent requests
  // fill the same submission instead of each adding one. Ids named by other items stay theirs.
  const open = checked.some(({ item }) => item.submission_id === null)
    ? (await openSubmissionsOfForm(tx).all({ visitId, formId: form.id, workspaceId: ctx.actor.workspaceId })).filter((row) => !byId.has(row.id))
    : []
  const openTargets: Target[] = open.map((row) => ({ row }))
  let creating = 0
  const steps: Step[] = []
  for (const [index, { item, answers, rows }] of checked.entries()) {
    let target: Target
    if (item.submission_id === null) {
      target = openTargets[0] ?? { created: creating++ }
      // Completed, it is no longer open; a draft stays the one the next id-less item fills.
      if (item.status === 'completed') openTargets.shift()
      else if (openTargets.length === 0) openTargets.push(target)
    } else {
      const row = byId.get(item.submission_id)
      if (!row) throw ValidationFailed.field(`${at(index)}submission_id`, `submission ${item.submission_id} is not on this visit`)
      if (row.form_id !== form.id) throw ValidationFailed.field(`${at(index)}submission_id`, `submission ${item.submission_id} is for another form`)
      target = { row }
    }
    const decision = canSubmit(visit.status, 'row' in target ? target.row : null, item.status === 'completed')
    if (decision === 'SUBMISSION_ALREADY_SUBMITTED') throw new AppError(decision, `submission ${item.submission_id} was already submitted`)
    if (decision !== 'allowed') throw new VisitStateConflict(decision, visit.status)
    // The matrix rows of the target as decided under the lock; answers checked against others are checked again.
    const targetRows = ('row' in target ? target.row.rows : null) ?? current
    if (hasMatrix(form.fields) && JSON.stringify(targetRows) !== JSON.stringify(rows)) {
      const { errors } = validateAnswers(form.fields, item.answers, item.status === 'completed', targetRows)
      if (Object.keys(errors).length) {
        throw new ValidationFailed(Object.fromEntries(Object.entries(errors).map(([key, messages]) => [`${at(index)}answers.${key}`, messages])))
      }
    }
    steps.push({ item, answers, rows: targetRows, target })
  }
  return steps
}

/** Writes the decided steps in order, each with its audit entry; the ids saved, in first-saved order. */
async function writeSteps({ tx, audit }: TxScope, ctx: AuthedContext, visitId: number, form: Form, steps: Step[]): Promise<number[]> {
  const now = ctx.deps.clock.now().toISOString()
  const savedIds: number[] = []
  /** Rows as the earlier items of this request left them (for the audit's old values). */
  const latest = new Map<number, SubmissionRow>()
  const createdIds: number[] = []
  for (const { item, answers, rows, target } of steps) {
    const status: SubmissionStatus = item.status
    const completion =
      status === 'completed'
        ? {
            submitted_at: now,
            submitted_by: ctx.actor.userId,
            approval_status: 'pending' as const,
            reviewed_at: null,
            reviewed_by: null,
            approval_notes: null,
          }
        : {}
    const id = 'row' in target ? target.row.id : createdIds[target.created]
    if (id === undefined) {
      const order = await nextOrder(tx, visitId)
      const [row] = await tx
        .insert(submissions)
        .values({
          workspace_id: ctx.actor.workspaceId,
          visit_id: visitId,
          form_id: form.id,
          title: form.title,
          is_required: false,
          order,
          status,
          answers,
          rows,
          created_at: now,
          updated_at: now,
          ...completion,
        })
        .returning()
      createdIds.push(row.id)
      latest.set(row.id, row)
      savedIds.push(row.id)
      await audit({
        entityType: 'submission',
        entityId: row.id,
        entityName: form.title,
        action: 'created',
        newValues: { visit_id: visitId, form_id: form.id, status, answers },
      })
    } else {
      const before = latest.get(id) ?? ('row' in target ? target.row : null)!
      const [after] = await tx
        .update(submissions)
        .set({ status, answers, updated_at: now, ...completion, ...(before.rows === null ? { rows } : {}) })
        .where(eq(submissions.id, id))
        .returning()
      latest.set(id, after)
      if (!savedIds.includes(id)) savedIds.push(id)
      await audit({
        entityType: 'submission',
        entityId: id,
        entityName: before.title,
        action: 'updated',
        before,
        after,
      })
    }
  }
  return savedIds
}

/**
 * Legacy submit-form `{form_id, answers}`: one completed item, filling the visit's open (or
 * rejected) submission of that form, or a new one when there is none.
 */
export async function submitFormLegacy(ctx: AuthedContext, visitId: number, input: SubmitFormInput) {
  const db = ctx.deps.db.read
  await findVisit(db, ctx, visitId, { mine: true })
  const [open] = await db
    .select({ id: submissions.id, status: submissions.status, approval: submissions.approval_status })
    .from(submissions)
    .where(and(eq(submissions.visit_id, visitId), eq(submissions.form_id, input.form_id), isNull(submissions.deleted_at)))
    .orderBy(submissions.order, submissions.id)
    .then((rows) => rows.filter((row) => row.status !== 'completed' || row.approval === 'rejected'))
  return submitForms(
    ctx,
    visitId,
    { form_id: input.form_id, items: [{ submission_id: open?.id ?? null, status: 'completed', answers: input.answers }] },
    () => '',
  )
}

/**
 * Office: approve or reject a completed submission awaiting approval (with `visitId`, one of that
 * visit); rejecting needs notes. The submitter is notified.
 */
export function reviewSubmission(ctx: AuthedContext, id: number, input: ApprovalInput, visitId?: number) {
  const decision = input.status
  const notes = input.notes ?? null
  if (decision === 'rejected' && !notes) throw ValidationFailed.field('notes', 'is required when rejecting')
  return withTransaction(ctx, async (scope) => {
    const { tx, audit } = scope
    if (visitId !== undefined) await findVisit(tx, ctx, visitId, { mine: false })
    const [row] = await tx
      .select()
      .from(submissions)
      .where(submissionScope.where(ctx.actor.workspaceId, eq(submissions.id, id), visitId !== undefined ? eq(submissions.visit_id, visitId) : undefined))
      .limit(1)
    if (!row) throw new NotFound('SUBMISSION')
    if (row.status !== 'completed' || row.approval_status !== 'pending') {
      throw new AppError('INVALID_SUBMISSION_STATUS', 'only a completed submission awaiting approval can be approved or rejected', {
        status: [row.status],
        approval_status: [row.approval_status ?? 'none'],
      })
    }
    const now = ctx.deps.clock.now().toISOString()
    await tx
      .update(submissions)
      .set({ approval_status: decision, reviewed_at: now, reviewed_by: ctx.actor.userId, approval_notes: notes, updated_at: now })
      .where(eq(submissions.id, id))
    await audit({
      entityType: 'submission',
      entityId: id,
      entityName: row.title,
      action: decision,
      oldValues: { approval_status: row.approval_status },
      newValues: { approval_status: decision, notes },
    })
    if (row.submitted_by !== null) {
      await notify(scope, ctx, {
        userIds: [row.submitted_by],
        workspaceId: ctx.actor.workspaceId,
        type: decision === 'approved' ? 'submission.approved' : 'submission.rejected',
        title: decision === 'approved' ? 'Submission approved' : 'Submission rejected',
        body: `${row.title} was ${decision}${notes ? `: ${notes}` : '.'}`,
        data: { submission_id: id, visit_id: row.visit_id },
      })
    }
    return getSubmission(tx, ctx, id, { mine: false })
  })
}
