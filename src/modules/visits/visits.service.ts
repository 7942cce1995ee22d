/**
 * Visit writes: planning (create, bulk, self-visit, assign, send to field) and the field day
 * (check-in, check-out) plus the office's cancel and force-close. Every transition is checked against
 * ./visits.machine.ts inside the write transaction, appends a log row and writes its audit entry in
 * that same transaction, so two concurrent check-ins give one success and one
 * VISIT_ALREADY_CHECKED_IN.
 */
import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared, preparedVariants, runPositional, setPlaceholders } from '../../db/prepared'
import {
  forms,
  memberships,
  outlets,
  projects,
  submissions,
  teams,
  users,
  visitAssignees,
  visitDispatches,
  visitLogs,
  visits,
  type VisitSource,
} from '../../db/schema'
import type { AuditEntry } from '../../platform/data/audit'
import type { AuthedContext } from '../../platform/context'
import { localDate } from '../../lib/time-zones'
import { requireLocation } from '../../lib/geo'
import { AppError, IdempotentReplay, ValidationFailed } from '../../lib/errors'
import { withTransaction, type TxScope } from '../../platform/data/transaction'
import { type PhotoBatch, readPhotoExif, withPhotos } from '../files'
import { notify } from '../notifications'
import { formScope, freezeRows } from '../forms'
import { outletScope } from '../outlets'
import { formsOfProjects, projectScope } from '../projects'
import { teamScope } from '../teams'
import { membershipScope } from '../users'
import { canAssign, type TransitionError, transition, type VisitAction } from './visits.machine'
import { findVisit, visitAssigneeScope, visitDetail, visitScope, type VisitDetail } from './visits.queries'
import { visitFlagMask } from './visits.integrity'
import { visitTopics } from './visits.manifest'
import type {
  AssignInput,
  BulkVisitInput,
  CheckInInput,
  CheckOutInput,
  CreateVisitInput,
  ReasonInput,
  SelfVisitInput,
  SendToFieldInput,
} from './visits.schemas'
import { assessSite, judgeGeofence, notifyFlaggedCheckIn } from './visits.site'

/** A transition refused by the state machine: 409 with the machine's code. */
export class VisitStateConflict extends AppError {
  constructor(code: TransitionError, status: string) {
    super(code, messageFor(code, status), { status: [status] })
  }
}

function messageFor(code: TransitionError, status: string) {
  if (code === 'VISIT_ALREADY_CHECKED_IN') return 'visit is already checked in'
  if (code === 'VISIT_NOT_STARTED') return 'visit has not been checked in yet'
  return `this action is not allowed while the visit is ${status.replace('_', ' ')}`
}

/** The ids a batch of create inputs refers to, checked against the workspace in a few queries. */
async function referenceErrors(tx: Db, workspaceId: number, items: CreateVisitInput[], prefix: (index: number) => string) {
  const ids = <K extends keyof CreateVisitInput>(key: K) =>
    [...new Set(items.map((item) => item[key]).filter((v): v is NonNullable<typeof v> => v != null))] as number[]
  const outletIds = ids('outlet_id')
  const projectIds = ids('project_id')
  const teamIds = ids('team_id')
  const userIds = [...new Set(items.flatMap((item) => item.user_ids ?? []))]
  const formIds = [...new Set(items.flatMap((item) => (item.submissions ?? []).map((s) => s.form_id)))]

  const [outletRows, projectRows, teamRows, userRows, formRows] = await Promise.all([
    outletScope.findManyBy(tx, workspaceId, outlets.id, outletIds),
    projectScope.findManyBy(tx, workspaceId, projects.id, projectIds),
    teamScope.findManyBy(tx, workspaceId, teams.id, teamIds),
    userIds.length
      ? tx
          .select({ id: memberships.user_id })
          .from(memberships)
          .innerJoin(users, eq(users.id, memberships.user_id))
          .where(membershipScope.where(workspaceId, eq(memberships.is_active, true), isNull(users.deleted_at), inArray(memberships.user_id, userIds)))
      : [],
    formScope.findManyBy(tx, workspaceId, forms.id, formIds),
  ])
  const outletById = new Map(outletRows.map((row) => [row.id, { id: row.id, active: row.is_active }]))
  const projectById = new Map(projectRows.map((row) => [row.id, row]))
  const teamSet = new Set(teamRows.map((row) => row.id))
  const userSet = new Set(userRows.map((row) => row.id))
  const formTitles = new Map(formRows.map((row) => [row.id, row.title]))

  const errors: Record<string, string[]> = {}
  items.forEach((item, index) => {
    const at = (field: string, message: string) => {
      errors[`${prefix(index)}${field}`] ??= [message]
    }
    const outlet = outletById.get(item.outlet_id)
    if (!outlet) at('outlet_id', `outlet ${item.outlet_id} does not exist`)
    else if (!outlet.active) at('outlet_id', `outlet ${item.outlet_id} is inactive`)
    const project = projectById.get(item.project_id)
    if (!project) at('project_id', `project ${item.project_id} does not exist`)
    else if (project.status !== 'active') at('project_id', `project ${item.project_id} is ${project.status}, not active`)
    if (item.team_id != null && !teamSet.has(item.team_id)) at('team_id', `team ${item.team_id} does not exist`)
    const unknownUsers = [...new Set(item.user_ids ?? [])].filter((id) => !userSet.has(id))
    if (unknownUsers.length) at('user_ids', `unknown or inactive user${unknownUsers.length > 1 ? 's' : ''}: ${unknownUsers.join(', ')}`)
    const seen = new Set<number>()
    ;(item.submissions ?? []).forEach((submission, position) => {
      if (!formTitles.has(submission.form_id)) at(`submissions.${position}.form_id`, `form ${submission.form_id} does not exist`)
      else if (seen.has(submission.form_id)) at(`submissions.${position}.form_id`, 'is listed twice')
      seen.add(submission.form_id)
    })
  })
  return { errors, formTitles }
}

// The statements every transition runs, prepared once per connection (check-in and check-out are
// the field app's most frequent writes).
const outletNameOf = prepared((db) =>
  db
    .select({ name: outlets.name })
    .from(outlets)
    .where(eq(outlets.id, sql.placeholder('id')))
    .limit(1)
    .prepare(),
)
const insertLog = prepared((db) =>
  db
    .insert(visitLogs)
    .values({
      workspace_id: sql.placeholder('workspace_id'),
      visit_id: sql.placeholder('visit_id'),
      action: sql.placeholder('action'),
      user_id: sql.placeholder('user_id'),
      user_name: sql.placeholder('user_name'),
      notes: sql.placeholder('notes'),
      created_at: sql.placeholder('created_at'),
    })
    .prepare(),
)
const assigneesOfVisit = prepared((db) =>
  db
    .select({ id: visitAssignees.user_id })
    .from(visitAssignees)
    .where(eq(visitAssignees.visit_id, sql.placeholder('visitId')))
    .prepare(),
)
/**
 * The caller's other live visit in progress: one probe of the assignees' partial index (`in_progress`, kept by
 * the triggers of migration 0027). The literal `= 1` matches the index's condition, which a bound value would not
 * (tests/visits.in-progress.test.ts reads its plan).
 */
export const otherVisitInProgress = prepared((db) =>
  db
    .select({ id: visitAssignees.visit_id })
    .from(visitAssignees)
    .where(
      visitAssigneeScope.where(
        sql.placeholder('workspaceId'),
        eq(visitAssignees.user_id, sql.placeholder('userId')),
        sql`${visitAssignees.in_progress} = 1`,
        ne(visitAssignees.visit_id, sql.placeholder('visitId')),
      ),
    )
    .limit(1)
    .prepare(),
)
const missingRequiredForms = prepared((db) =>
  db
    .select({ form_id: submissions.form_id })
    .from(submissions)
    .where(
      and(
        eq(submissions.visit_id, sql.placeholder('visitId')),
        isNull(submissions.deleted_at),
        eq(submissions.is_required, true),
        ne(submissions.status, 'completed'),
      ),
    )
    .prepare(),
)

/** How a visit is named in audit entries: its outlet and date. */
async function visitName(tx: Db, visit: { id: number; outlet_id: number; visit_date: string }) {
  const [outlet] = await outletNameOf(tx).all({ id: visit.outlet_id })
  return `${outlet?.name ?? 'Outlet'} · ${visit.visit_date} (#${visit.id})`
}

async function appendLog(tx: Db, ctx: AuthedContext, visitId: number, action: string, notes: string | null = null) {
  await insertLog(tx).run({
    workspace_id: ctx.actor.workspaceId,
    visit_id: visitId,
    action,
    user_id: ctx.actor.userId,
    user_name: ctx.actor.name,
    notes,
    created_at: ctx.deps.clock.now().toISOString(),
  })
}

async function userNames(tx: Db, ids: number[]) {
  if (ids.length === 0) return new Map<number, string>()
  const rows = await tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids))
  return new Map(rows.map((row) => [row.id, row.name]))
}

/** Adds and removes assignees; audits `assigned`/`unassigned` per user and notifies the added ones. */
async function setAssignees(scope: TxScope, ctx: AuthedContext, visitId: number, entityName: string, wanted: number[], current: number[]) {
  const { tx, audit } = scope
  const target = new Set(wanted)
  const added = [...target].filter((id) => !current.includes(id))
  const removed = current.filter((id) => !target.has(id))
  const now = ctx.deps.clock.now().toISOString()
  if (removed.length) await tx.delete(visitAssignees).where(and(eq(visitAssignees.visit_id, visitId), inArray(visitAssignees.user_id, removed)))
  if (added.length) {
    await tx.insert(visitAssignees).values(added.map((user_id) => ({ visit_id: visitId, user_id, workspace_id: ctx.actor.workspaceId, created_at: now })))
  }
  const names = await userNames(tx, [...added, ...removed])
  const entry = (userId: number, action: 'assigned' | 'unassigned'): AuditEntry => ({
    entityType: 'visit',
    entityId: visitId,
    entityName,
    action,
    newValues: { user_id: userId, user_name: names.get(userId) ?? '' },
  })
  for (const userId of added) await audit(entry(userId, 'assigned'))
  for (const userId of removed) await audit(entry(userId, 'unassigned'))
  await notify(scope, ctx, {
    userIds: added,
    workspaceId: ctx.actor.workspaceId,
    type: 'visit.assigned',
    title: 'New visit assigned',
    body: `You have been assigned visit #${visitId}.`,
    data: { visit_id: visitId },
  })
  return { added, removed }
}

/**
 * Everything a batch of new visits writes that can be known before the write lock: the references
 * checked, each visit's forms, and the names its audit entries carry. Read on `db`: the read
 * connection for bulk writes (nothing of it holds the writer), the transaction for a single create.
 */
interface VisitPlan {
  items: PlannedVisit[]
  forms: { form_id: number; is_required: boolean; order: number; title: string }[][]
  outletNames: Map<number, string>
  userNames: Map<number, string>
  /** Journey-plan generation (writeGeneratedVisits): rows inserted ON CONFLICT DO NOTHING, no `visit.assigned` push. */
  generated?: boolean
}

/**
 * A visit to create, and where it came from (`source`: `manual` unless said, `self`, `import`); a
 * generated one names its plan and its place in the day's route.
 */
type PlannedVisit = CreateVisitInput & { source?: Exclude<VisitSource, 'journey_plan'>; journey_plan_id?: number; route_sequence?: number }

async function planVisits(db: Db, workspaceId: number, items: PlannedVisit[], errorPrefix: (index: number) => string): Promise<VisitPlan> {
  const { errors, formTitles } = await referenceErrors(db, workspaceId, items, errorPrefix)
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
  const projectIds = [...new Set(items.filter((item) => !item.submissions).map((item) => item.project_id))]
  const outletIds = [...new Set(items.map((item) => item.outlet_id))]
  const [projectForms, outletRows, userNameMap] = await Promise.all([
    formsOfProjects(db, projectIds),
    db.select({ id: outlets.id, name: outlets.name }).from(outlets).where(inArray(outlets.id, outletIds)),
    userNames(db, [...new Set(items.flatMap((item) => item.user_ids ?? []))]),
  ])
  // Without an explicit list a visit gets its project's forms (docs/API.md §Visits); one list per project, shared.
  const formsOfProject = new Map<number, VisitPlan['forms'][number]>(projectIds.map((id) => [id, []]))
  for (const { project_id, form_id, is_required, order, title } of projectForms) formsOfProject.get(project_id)!.push({ form_id, is_required, order, title })
  const forms = items.map((item) =>
    item.submissions
      ? item.submissions.map((s, index) => ({ form_id: s.form_id, is_required: s.is_required, order: s.order ?? index, title: formTitles.get(s.form_id)! }))
      : formsOfProject.get(item.project_id)!,
  )
  return { items, forms, outletNames: new Map(outletRows.map((row) => [row.id, row.name])), userNames: userNameMap }
}

/** The columns every new visit is written with (workspace from the caller's context, never from a body). */
const newVisitValues = {
  workspace_id: sql.placeholder('workspace_id'),
  outlet_id: sql.placeholder('outlet_id'),
  project_id: sql.placeholder('project_id'),
  team_id: sql.placeholder('team_id'),
  visit_date: sql.placeholder('visit_date'),
  status: 'scheduled' as const,
  notes: sql.placeholder('notes'),
  created_by: sql.placeholder('created_by'),
  created_at: sql.placeholder('now'),
  updated_at: sql.placeholder('now'),
}

/** A new visit, prepared once per connection. */
const insertVisitRow = prepared((db) =>
  db
    .insert(visits)
    .values({ ...newVisitValues, source: sql.placeholder('source') })
    .returning()
    .prepare(),
)

/**
 * A visit generated by a journey plan: `ON CONFLICT DO NOTHING` on the unique index (journey_plan_id,
 * outlet_id, visit_date), so concurrent and repeated runs create each visit once; a conflict returns no row.
 */
const insertGeneratedVisitRow = prepared((db) =>
  db
    .insert(visits)
    .values({
      ...newVisitValues,
      journey_plan_id: sql.placeholder('journey_plan_id'),
      source: 'journey_plan',
      route_sequence: sql.placeholder('route_sequence'),
    })
    .onConflictDoNothing()
    .returning()
    .prepare(),
)

const SUBMISSION_COLUMNS = ['workspace_id', 'visit_id', 'form_id', 'title', 'is_required', '"order"', 'status', 'answers', 'created_at', 'updated_at'] as const
/** Attached submissions are written this many rows per statement (one prepared text per row count). */
const SUBMISSIONS_PER_STATEMENT = 100
const submissionInsertTexts: string[] = []
const submissionInsertText = (rows: number) =>
  (submissionInsertTexts[rows] ??= `insert into submissions (${SUBMISSION_COLUMNS.join(', ')}) values ${Array(rows)
    .fill(`(${SUBMISSION_COLUMNS.map(() => '?').join(', ')})`)
    .join(', ')}`)

/**
 * Writes visits `from`..`to` of a plan with their submissions, logs and assignees, each with its audit
 * entries (created, and assigned per user) and the assignees' notifications, in the caller's transaction.
 */
async function writeVisits(scope: TxScope, ctx: AuthedContext, plan: VisitPlan, from: number, to: number): Promise<number[]> {
  const { tx, audit } = scope
  const workspaceId = ctx.actor.workspaceId
  const now = ctx.deps.clock.now().toISOString()
  const ids: number[] = []
  const params: (string | number | null)[] = []
  let pending = 0
  const flush = async () => {
    if (pending) await runPositional(tx, submissionInsertText(pending), params)
    params.length = 0
    pending = 0
  }
  const entries: AuditEntry[] = []
  const assignees: (typeof visitAssignees.$inferInsert)[] = []
  const logs: (typeof visitLogs.$inferInsert)[] = []
  for (let index = from; index < to; index++) {
    const input = plan.items[index]
    const row = {
      workspace_id: workspaceId,
      outlet_id: input.outlet_id,
      project_id: input.project_id,
      team_id: input.team_id ?? null,
      visit_date: input.visit_date,
      notes: input.notes ?? null,
      created_by: ctx.actor.userId,
      now,
    }
    const [visit] = plan.generated
      ? await insertGeneratedVisitRow(tx).all({ ...row, journey_plan_id: input.journey_plan_id ?? null, route_sequence: input.route_sequence ?? null })
      : await insertVisitRow(tx).all({ ...row, source: input.source ?? 'manual' })
    // A generated visit that already exists (another run made it): nothing more to write.
    if (!visit) continue
    ids.push(visit.id)
    const forms = plan.forms[index]
    for (const form of forms) {
      params.push(workspaceId, visit.id, form.form_id, form.title, form.is_required ? 1 : 0, form.order, 'pending', '{}', now, now)
      if (++pending === SUBMISSIONS_PER_STATEMENT) await flush()
    }
    logs.push({
      workspace_id: workspaceId,
      visit_id: visit.id,
      action: 'created',
      user_id: ctx.actor.userId,
      user_name: ctx.actor.name,
      notes: input.notes ?? null,
      created_at: now,
    })
    const entityName = `${plan.outletNames.get(visit.outlet_id) ?? 'Outlet'} · ${visit.visit_date} (#${visit.id})`
    const userIds = [...new Set(input.user_ids ?? [])]
    entries.push({
      entityType: 'visit',
      entityId: visit.id,
      entityName,
      action: 'created',
      newValues: { ...visit, form_ids: forms.map((f) => f.form_id), user_ids: input.user_ids ?? [] },
    })
    for (const userId of userIds) {
      assignees.push({ visit_id: visit.id, user_id: userId, workspace_id: workspaceId, created_at: now })
      entries.push({
        entityType: 'visit',
        entityId: visit.id,
        entityName,
        action: 'assigned',
        newValues: { user_id: userId, user_name: plan.userNames.get(userId) ?? '' },
      })
    }
  }
  await flush()
  if (logs.length) await tx.insert(visitLogs).values(logs)
  if (assignees.length) await tx.insert(visitAssignees).values(assignees)
  for (const entry of entries) await audit(entry)
  // Generated visits reach the phone by sync and are announced when sent to the field (docs/API.md §Journey plans).
  if (plan.generated) return ids
  for (const [offset, id] of ids.entries()) {
    await notify(scope, ctx, {
      // Every item of an office plan was inserted (only generated rows can be skipped), so offsets line up.
      userIds: plan.items[from + offset].user_ids ?? [],
      workspaceId,
      type: 'visit.assigned',
      title: 'New visit assigned',
      body: `You have been assigned visit #${id}.`,
      data: { visit_id: id },
    })
  }
  return ids
}

export function createVisit(ctx: AuthedContext, input: PlannedVisit): Promise<VisitDetail> {
  return withTransaction(ctx, async (scope) => {
    const plan = await planVisits(scope.tx, ctx.actor.workspaceId, [input], () => '')
    const [id] = await writeVisits(scope, ctx, plan, 0, 1)
    return visitDetail(scope.tx, ctx, id, { mine: false })
  })
}

/**
 * Journey-plan generation (src/modules/journey-plans/generation.ts) through the same planning and writing as
 * an office-planned visit: `planGeneratedVisits` checks the references and reads names and forms (on the
 * read connection, outside the write lock), `writeGeneratedVisits` writes items `from`..`to` in the
 * caller's transaction with ON CONFLICT DO NOTHING and answers the ids it created (a visit that exists is
 * skipped). Each visit gets its audit entries (created, assigned) like any other; no `visit.assigned` push.
 */
export async function planGeneratedVisits(db: Db, workspaceId: number, items: (PlannedVisit & { journey_plan_id: number })[]) {
  return { ...(await planVisits(db, workspaceId, items, (index) => `visits.${index}.`)), generated: true }
}
export type GeneratedVisitPlan = Awaited<ReturnType<typeof planGeneratedVisits>>
export const writeGeneratedVisits = (scope: TxScope, ctx: AuthedContext, plan: GeneratedVisitPlan, from: number, to: number) =>
  writeVisits(scope, ctx, plan, from, to)

/**
 * A bulk create or import is written in parts of at most WRITE_PART_ROWS rows, each its own short
 * transaction, so no other workspace's write waits behind all of it. That needs a turn of the event
 * loop between two parts (a request still on its socket is read only then): both drivers end every
 * write transaction with one (src/db/client.ts; tests/write-lock.test.ts checks it on each). A visit's rows are counted from
 * the request alone (its forms as the most a project may have), so a repeat of the same request cuts
 * the same parts.
 */
/** Small, so each part is a short turn of the writer (about two visits of 100 forms). */
export const WRITE_PART_ROWS = 250
/** projects.routes.ts caps a project's forms at 100. */
const PROJECT_FORMS_MAX = 100
/** The visit, its log and audit entry, its submissions, and per assignee a row, an audit entry and a notification. */
const rowsOf = (item: CreateVisitInput) => 3 + (item.submissions?.length ?? PROJECT_FORMS_MAX) + 3 * (item.user_ids?.length ?? 0)

/** The parts a bulk write is cut into: `[from, to)` ranges of item indexes. */
export function writeParts(items: CreateVisitInput[]): [number, number][] {
  const parts: [number, number][] = []
  let from = 0
  let rows = 0
  for (const [index, item] of items.entries()) {
    if (index > from && rows + rowsOf(item) > WRITE_PART_ROWS) {
      parts.push([from, index])
      from = index
      rows = 0
    }
    rows += rowsOf(item)
  }
  if (items.length) parts.push([from, items.length])
  return parts
}

/**
 * Bulk create and CSV import (README.md, "Bulk create and CSV import"). Every item is checked before the
 * first write, outside the write lock; any error refuses the whole batch with `visits.N.*` keys and
 * nothing is written. Then the parts (writeParts) are written one transaction each, with their audit
 * entries. A part can fail only for a reason outside the request (disk full, the process stopped):
 * the parts before it stay. With `X-Idempotency-Key`, each part records its own key (the request's
 * key and its part number, with a space no client key can hold) and the last part the request's
 * key itself, so a retry of the same request skips the parts already written and writes the rest,
 * and a retry after the last part answers 204 as usual.
 */
export async function createVisits(ctx: AuthedContext, items: PlannedVisit[], errorPrefix: (index: number) => string = (i) => `visits.${i}.`) {
  const plan = await planVisits(ctx.deps.db.read, ctx.actor.workspaceId, items, errorPrefix)
  const parts = writeParts(items)
  const claim = ctx.idempotency
  const ids: number[] = []
  for (const [part, [from, to]] of parts.entries()) {
    const last = part === parts.length - 1
    const idempotency = claim && !last ? { ...claim, key: `${claim.key} part ${part}`, recorded: false } : claim
    try {
      ids.push(...(await withTransaction(ctx, (scope) => writeVisits(scope, ctx, plan, from, to), { idempotency })))
    } catch (error) {
      // Written by an earlier run of this same request.
      if (error instanceof IdempotentReplay && !last) continue
      throw error
    }
  }
  return ids
}

/** Office bulk create: all or nothing, errors keyed `visits.N.*`. */
export async function bulkCreateVisits(ctx: AuthedContext, input: BulkVisitInput) {
  const ids = await createVisits(ctx, input.visits)
  return { count: ids.length, ids }
}

/** A field user plans a visit for themselves: assigned to the caller, forms from the project. */
export function createSelfVisit(ctx: AuthedContext, input: SelfVisitInput) {
  return createVisit(ctx, {
    outlet_id: input.outlet_id,
    project_id: input.project_id,
    notes: input.notes ?? null,
    visit_date: input.visit_date ?? localDate(ctx.deps.clock.now(), ctx.actor.timeZone),
    user_ids: [ctx.actor.userId],
    source: 'self',
  })
}

async function assigneeIds(tx: Db, visitId: number) {
  return (await assigneesOfVisit(tx).all({ visitId })).map((row) => row.id)
}

export function assignVisit(ctx: AuthedContext, visitId: number, { user_ids: userIds }: AssignInput) {
  return withTransaction(ctx, async (scope) => {
    const visit = await findVisit(scope.tx, ctx, visitId, { mine: false })
    if (!canAssign(visit.status)) throw new VisitStateConflict('INVALID_VISIT_STATUS', visit.status)
    const { errors } = await referenceErrors(scope.tx, ctx.actor.workspaceId, [{ ...visit, user_ids: userIds, submissions: undefined }], () => '')
    if (errors.user_ids) throw ValidationFailed.field('user_ids', ...errors.user_ids)
    const entityName = await visitName(scope.tx, visit)
    const changes = await setAssignees(scope, ctx, visitId, entityName, userIds, await assigneeIds(scope.tx, visitId))
    if (changes.added.length || changes.removed.length) {
      await scope.tx.update(visits).set({ updated_at: ctx.deps.clock.now().toISOString() }).where(eq(visits.id, visitId))
      await appendLog(scope.tx, ctx, visitId, 'assigned')
    } else {
      // Nothing changed: still one audit entry for the request (docs/API.md §Audit log).
      await scope.audit({ entityType: 'visit', entityId: visitId, entityName, action: 'updated', before: visit, after: visit })
    }
    return visitDetail(scope.tx, ctx, visitId, { mine: false })
  })
}

/** The EXIF of the image accepted for `field`, read before the write transaction (bounded CPU work, no writer held). */
const exifOf = (ctx: AuthedContext, photos: PhotoBatch, field: string) => {
  const bytes = photos.images.get(field)
  return bytes ? readPhotoExif(bytes, ctx.actor.timeZone) : null
}

/**
 * Every refusal of a check-in or check-out that needs no photo, in the order the phone hears them:
 * the visit (404), its state (409, from the machine), another visit in progress (409
 * ACTIVE_VISIT_EXISTS, check-in), required forms not completed (422 SUBMISSION_REQUIRED, check-out).
 * Run on the read connection before the photo is decoded — with the geofence, `refuseEarly` — and
 * again inside the write transaction, whose answer alone counts.
 */
async function refuseStep(db: Db, ctx: AuthedContext, visitId: number, action: 'check_in' | 'check_out') {
  const visit = await findVisit(db, ctx, visitId, { mine: true })
  const result = transition(visit.status, action)
  if (!result.ok) throw new VisitStateConflict(result.error, visit.status)
  if (action === 'check_in') {
    const [other] = await otherVisitInProgress(db).all({ workspaceId: ctx.actor.workspaceId, visitId, userId: ctx.actor.userId })
    if (other) throw new AppError('ACTIVE_VISIT_EXISTS', 'check out of your visit in progress first', { visit_id: other.id })
  } else {
    const missing = await missingRequiredForms(db).all({ visitId })
    if (missing.length) throw new AppError('SUBMISSION_REQUIRED', 'required forms are not completed', { form_ids: missing.map((row) => row.form_id) })
  }
  return visit
}

/**
 * The cheap refusals first: a check-in or check-out that will be refused (state, another visit,
 * forms, a blocking geofence) is refused before its photo is decoded, its EXIF read or a byte of it
 * written (docs/API.md §Field integrity). Without a photo there is nothing to spare: the same checks
 * run inside the transaction, in the same order, and alone answer (the field app's usual check-in
 * and check-out read the visit, its guards and the geofence once, not twice).
 */
async function refuseEarly(
  ctx: AuthedContext,
  visitId: number,
  action: 'check_in' | 'check_out',
  position: Parameters<typeof judgeGeofence>[3],
  photo: string | null | undefined,
) {
  if (!photo) return
  const read = ctx.deps.db.read
  await judgeGeofence(read, ctx, await refuseStep(read, ctx, visitId, action), position)
}

/**
 * A transition's update of the visit row, prepared once per connection for each set of columns it
 * changes (check-in, check-out, cancel, force-close: a handful), keyed by their names. Nothing is
 * returned: the row after it is the row read in the same transaction with these values (no trigger
 * writes a visit's own row when it is updated), and reading ~30 columns back cost a check-in ~15 µs
 * (docs/PERFORMANCE.md "Reads at their ceiling", sixth pass).
 */
type VisitColumn = keyof typeof visits.$inferInsert
const updateVisit = preparedVariants(
  (db, columns: string) =>
    db
      .update(visits)
      .set(setPlaceholders(visits, columns.split(',') as VisitColumn[]))
      .where(eq(visits.id, sql.placeholder('id')))
      .prepare(),
  { max: 16 },
)

/** Applies a machine transition to a visit row inside the transaction, with log and audit entry. */
async function applyTransition(
  scope: TxScope,
  ctx: AuthedContext,
  visit: typeof visits.$inferSelect,
  action: VisitAction,
  changes: Partial<typeof visits.$inferInsert>,
  notes: string | null,
) {
  const result = transition(visit.status, action)
  if (!result.ok) throw new VisitStateConflict(result.error, visit.status)
  const values: Partial<typeof visits.$inferInsert> = { ...changes, status: result.to, updated_at: ctx.deps.clock.now().toISOString() }
  const columns = (Object.keys(values) as VisitColumn[]).filter((name) => values[name] !== undefined)
  await updateVisit(scope.tx, columns.join(',')).run({ ...values, id: visit.id })
  const after: typeof visits.$inferSelect = { ...visit, ...Object.fromEntries(columns.map((name) => [name, values[name]])) }
  await appendLog(scope.tx, ctx, visit.id, action, notes)
  const assignees = await assigneeIds(scope.tx, visit.id)
  scope.afterCommit(() => {
    const event = { type: 'visit.updated' as const, data: { id: visit.id, status: result.to } }
    // One event (one id) for the office's topic and each assignee's own.
    const workspaceId = ctx.actor.workspaceId
    ctx.deps.hub.publish([visitTopics.all(workspaceId), ...assignees.map((userId) => visitTopics.assignedTo(workspaceId, userId))], event)
  })
  await scope.audit({ entityType: 'visit', entityId: visit.id, entityName: await visitName(scope.tx, visit), action: 'updated', before: visit, after })
}

/**
 * At check-in, each submission of the visit not yet frozen gets its product-matrix rows: per matrix
 * field of its form, the live products that match now (docs/API.md "Product matrix"); `{}` for a form
 * without a matrix. Part of the check-in (its audit entry records the transition).
 */
async function freezeSubmissionRows(tx: Db, ctx: AuthedContext, visitId: number) {
  const open = await openSubmissionsOf(tx).all({ visitId })
  if (open.length === 0) return
  const formRows = await formsOfIds(tx).all({ workspaceId: ctx.actor.workspaceId, ids: JSON.stringify([...new Set(open.map((row) => row.form_id))]) })
  const frozen = new Map<number, Awaited<ReturnType<typeof freezeRows>>>()
  for (const form of formRows) frozen.set(form.id, await freezeRows(tx, ctx.actor.workspaceId, form.fields))
  const now = ctx.deps.clock.now().toISOString()
  for (const row of open) await freezeSubmission(tx).run({ rows: frozen.get(row.form_id) ?? {}, updated_at: now, id: row.id })
}

// The check-in's reads and writes of submissions and their forms, prepared once per connection.
const openSubmissionsOf = prepared((db) =>
  db
    .select({ id: submissions.id, form_id: submissions.form_id })
    .from(submissions)
    .where(and(eq(submissions.visit_id, sql.placeholder('visitId')), isNull(submissions.deleted_at), isNull(submissions.rows)))
    .prepare(),
)
const formsOfIds = prepared((db) =>
  db
    .select({ id: forms.id, fields: forms.fields })
    .from(forms)
    .where(formScope.where(sql.placeholder('workspaceId'), sql`${forms.id} in (select value from json_each(${sql.placeholder('ids')}))`))
    .prepare(),
)
const freezeSubmission = prepared((db) =>
  db
    .update(submissions)
    .set(setPlaceholders(submissions, ['rows', 'updated_at']))
    .where(eq(submissions.id, sql.placeholder('id')))
    .prepare(),
)

export async function checkIn(ctx: AuthedContext, visitId: number, input: CheckInInput) {
  const location = requireLocation(input)
  return withPhotos(ctx, async (photos) => {
    await refuseEarly(ctx, visitId, 'check_in', { ...input, ...location }, input.check_in_photo)
    const photoUrl = input.check_in_photo ? await photos.accept(input.check_in_photo, 'check_in_photo') : null
    const photo = exifOf(ctx, photos, 'check_in_photo')
    return withTransaction(ctx, async (scope) => {
      const visit = await refuseStep(scope.tx, ctx, visitId, 'check_in')
      const site = await assessSite(scope, ctx, visit, 'check_in', { ...input, ...location, photo })
      await photos.record(scope.tx)
      await applyTransition(
        scope,
        ctx,
        visit,
        'check_in',
        {
          checked_in_at: ctx.deps.clock.now().toISOString(),
          check_in_latitude: location.latitude,
          check_in_longitude: location.longitude,
          check_in_photo_url: photoUrl,
          check_in_distance_m: site.distanceM,
          flags: visit.flags | visitFlagMask(site.flags),
        },
        input.notes ?? null,
      )
      await freezeSubmissionRows(scope.tx, ctx, visitId)
      await notifyFlaggedCheckIn(scope, ctx, visit, site.flags)
      return visitDetail(scope.tx, ctx, visitId, { mine: true })
    })
  })
}

export async function checkOut(ctx: AuthedContext, visitId: number, input: CheckOutInput) {
  const location = requireLocation(input)
  return withPhotos(ctx, async (photos) => {
    await refuseEarly(ctx, visitId, 'check_out', { ...input, ...location }, input.check_out_photo)
    const photoUrl = input.check_out_photo ? await photos.accept(input.check_out_photo, 'check_out_photo') : null
    const photo = exifOf(ctx, photos, 'check_out_photo')
    return withTransaction(ctx, async (scope) => {
      const visit = await refuseStep(scope.tx, ctx, visitId, 'check_out')
      const site = await assessSite(scope, ctx, visit, 'check_out', { ...input, ...location, photo })
      await photos.record(scope.tx)
      await applyTransition(
        scope,
        ctx,
        visit,
        'check_out',
        {
          checked_out_at: ctx.deps.clock.now().toISOString(),
          check_out_latitude: location.latitude,
          check_out_longitude: location.longitude,
          check_out_photo_url: photoUrl,
          check_out_distance_m: site.distanceM,
          flags: visit.flags | visitFlagMask(site.flags),
        },
        input.notes ?? null,
      )
      return visitDetail(scope.tx, ctx, visitId, { mine: true })
    })
  })
}

/** Office: cancel (scheduled or in progress) or force-close (in progress) with a reason. */
export function closeVisit(ctx: AuthedContext, visitId: number, action: 'cancel' | 'force_close', { reason }: ReasonInput) {
  return withTransaction(ctx, async (scope) => {
    const visit = await findVisit(scope.tx, ctx, visitId, { mine: false })
    await applyTransition(scope, ctx, visit, action, { close_reason: reason }, reason)
    return visitDetail(scope.tx, ctx, visitId, { mine: false })
  })
}

/**
 * Sends scheduled visits to their assignees' phones: marks them sent, records who was notified and
 * notifies them. All or nothing: an unknown id or a visit that is not scheduled refuses the request.
 */
export function sendToField(ctx: AuthedContext, input: SendToFieldInput) {
  const ids = [...new Set(input.visit_ids)]
  return withTransaction(ctx, async (scope) => {
    const rows = await scope.tx
      .select()
      .from(visits)
      .where(visitScope.where(ctx.actor.workspaceId, inArray(visits.id, ids)))
    const found = new Map(rows.map((row) => [row.id, row.status]))
    const byId = new Map(rows.map((row) => [row.id, row]))
    const unknown = ids.filter((id) => !found.has(id))
    if (unknown.length) throw ValidationFailed.field('visit_ids', `unknown visit${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`)
    const notScheduled = ids.filter((id) => found.get(id) !== 'scheduled')
    if (notScheduled.length) {
      throw new AppError('INVALID_VISIT_STATUS', 'only scheduled visits can be sent to the field', { visit_ids: notScheduled })
    }
    const now = ctx.deps.clock.now().toISOString()
    const assignees = await scope.tx
      .select({ visit_id: visitAssignees.visit_id, user_id: visitAssignees.user_id })
      .from(visitAssignees)
      .where(inArray(visitAssignees.visit_id, ids))
    const result: { id: number; notified_user_ids: number[] }[] = []
    for (const id of ids) {
      const userIds = assignees.filter((a) => a.visit_id === id).map((a) => a.user_id)
      const [after] = await scope.tx.update(visits).set({ sent_to_field_at: now, updated_at: now }).where(eq(visits.id, id)).returning()
      if (userIds.length) {
        await scope.tx
          .insert(visitDispatches)
          .values(userIds.map((user_id) => ({ workspace_id: ctx.actor.workspaceId, visit_id: id, user_id, sent_by: ctx.actor.userId, created_at: now })))
      }
      await notify(scope, ctx, {
        userIds,
        workspaceId: ctx.actor.workspaceId,
        type: 'visit.sent_to_field',
        title: 'Visit ready in the field app',
        body: `Visit #${id} has been sent to your phone.`,
        data: { visit_id: id },
      })
      await appendLog(scope.tx, ctx, id, 'sent_to_field')
      await scope.audit({
        entityType: 'visit',
        entityId: id,
        entityName: await visitName(scope.tx, byId.get(id)!),
        action: 'updated',
        before: byId.get(id)!,
        after,
        metadata: { notified_user_ids: userIds },
      })
      result.push({ id, notified_user_ids: userIds })
    }
    return { count: result.length, visits: result }
  })
}
