/**
 * Projects: a campaign (e.g. a principal's display audit) with its forms. A visit belongs to one
 * project and, unless told otherwise, gets the project's forms as its submissions.
 * `code` is unique per workspace; `end_date` is not before `start_date`; forms are live forms of the
 * workspace, each at most once. A project with visits still to do cannot be deleted.
 */
import { asc, count, eq, inArray, ne } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { forms, principals, projectForms, projects, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { DEFAULT_LIST, foldText, type Page } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { searchIndex } from '../../platform/data/search'
import { withTransaction } from '../../platform/data/transaction'
import { formScope } from '../forms'
import type { ProjectFormInput, ProjectInput, ProjectListQuery, ProjectUpdateInput } from './projects.schemas'

export const projectScope = workspaceScoped(projects)
export const principalScope = workspaceScoped(principals)
/** Visits read here (visits.queries.ts owns their scope; importing it would make a cycle). */
const visitScope = workspaceScoped(visits)
const projectSearch = searchIndex('projects_search', projects.id)

type ProjectRow = typeof projects.$inferSelect

/** The forms of projects, in their order. */
export async function formsOfProjects(db: Db, projectIds: number[]) {
  if (projectIds.length === 0) return []
  return db
    .select({
      project_id: projectForms.project_id,
      form_id: projectForms.form_id,
      title: forms.title,
      is_required: projectForms.is_required,
      order: projectForms.order,
    })
    .from(projectForms)
    .innerJoin(forms, eq(forms.id, projectForms.form_id))
    .where(inArray(projectForms.project_id, projectIds))
    .orderBy(asc(projectForms.order), asc(projectForms.form_id))
}

async function present(db: Db, rows: ProjectRow[]) {
  const attached = await formsOfProjects(
    db,
    rows.map((row) => row.id),
  )
  return rows.map(({ name_key: _n, code_key: _c, ...project }) => ({
    ...project,
    forms: attached.filter((form) => form.project_id === project.id).map(({ project_id: _p, ...form }) => form),
  }))
}
export type PresentedProject = Awaited<ReturnType<typeof present>>[number]

export async function findProject(db: Db, workspaceId: number, id: number): Promise<ProjectRow> {
  const project = await projectScope.find(db, workspaceId, id)
  if (!project) throw new NotFound('PROJECT')
  return project
}

const projectList = defineList({
  scope: projectScope,
  search: { columns: [projects.name_key, projects.code_key], index: projectSearch },
  filters: {
    status: (status: NonNullable<ProjectListQuery['status']>) => eq(projects.status, status),
    principal_id: (id: number) => eq(projects.principal_id, id),
  },
  sort: { created_at: projects.created_at, updated_at: projects.updated_at, name: projects.name_key, id: projects.id, start_date: projects.start_date },
  limits: DEFAULT_LIST,
})

export async function listProjects(ctx: AuthedContext, query: ProjectListQuery): Promise<Page<PresentedProject>> {
  const result = await projectList(ctx, query)
  return { rows: await present(ctx.deps.db.read, result.rows), meta: result.meta }
}

/** Live projects of the workspace among `ids`, as the detail answers them. */
export async function projectsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return present(
    db,
    await db
      .select()
      .from(projects)
      .where(projectScope.where(workspaceId, inArray(projects.id, ids))),
  )
}

export async function getProject(ctx: AuthedContext, id: number) {
  const db = ctx.deps.db.read
  return (await present(db, [await findProject(db, ctx.actor.workspaceId, id)]))[0]
}

async function checkInput(tx: Db, workspaceId: number, input: ProjectUpdateInput, current?: ProjectRow, exceptId?: number) {
  const values: Partial<typeof projects.$inferInsert> = {}
  for (const key of ['name', 'code', 'principal_id', 'start_date', 'end_date', 'status'] as const) {
    if (input[key] !== undefined) (values as Record<string, unknown>)[key] = input[key]
  }
  if (input.name !== undefined) values.name_key = foldText(input.name)
  if (input.code !== undefined) {
    values.code_key = input.code === null ? null : foldText(input.code)
    if (values.code_key) {
      const taken = await projectScope.count(tx, workspaceId, eq(projects.code_key, values.code_key), exceptId ? ne(projects.id, exceptId) : undefined)
      if (taken > 0) throw new AlreadyExists('PROJECT', 'code', 'a project with this code already exists')
    }
  }
  if (input.principal_id != null && !(await principalScope.find(tx, workspaceId, input.principal_id))) {
    throw ValidationFailed.field('principal_id', `principal ${input.principal_id} does not exist`)
  }
  const start = input.start_date !== undefined ? input.start_date : (current?.start_date ?? null)
  const end = input.end_date !== undefined ? input.end_date : (current?.end_date ?? null)
  if (start && end && end < start) throw ValidationFailed.field('end_date', 'must not be before start_date')
  if (input.forms) {
    const errors: Record<string, string[]> = {}
    const seen = new Set<number>()
    for (const [index, form] of input.forms.entries()) {
      if (seen.has(form.form_id)) errors[`forms.${index}.form_id`] = ['is listed twice']
      else if (!(await formScope.find(tx, workspaceId, form.form_id))) errors[`forms.${index}.form_id`] = [`form ${form.form_id} does not exist`]
      seen.add(form.form_id)
    }
    if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
  }
  return values
}

async function setForms(tx: Db, projectId: number, list: ProjectFormInput[]) {
  await tx.delete(projectForms).where(eq(projectForms.project_id, projectId))
  if (list.length > 0) {
    await tx
      .insert(projectForms)
      .values(list.map((form, index) => ({ project_id: projectId, form_id: form.form_id, is_required: form.is_required, order: form.order ?? index })))
  }
}

export function createProject(ctx: AuthedContext, input: ProjectInput) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const values = await checkInput(tx, workspaceId, input)
    const now = ctx.deps.clock.now().toISOString()
    const project = await projectScope.insert(tx, workspaceId, { ...values, name: input.name, name_key: values.name_key!, created_at: now, updated_at: now })
    await setForms(tx, project.id, input.forms ?? [])
    const [result] = await present(tx, [project])
    await audit({ entityType: 'project', entityId: project.id, entityName: project.name, action: 'created', newValues: result })
    return result
  })
}

export function updateProject(ctx: AuthedContext, id: number, input: ProjectUpdateInput) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const current = await findProject(tx, workspaceId, id)
    const [before] = await present(tx, [current])
    const values = await checkInput(tx, workspaceId, input, current, id)
    if (input.forms) await setForms(tx, id, input.forms)
    const updated = (await projectScope.update(tx, workspaceId, id, { ...values, updated_at: ctx.deps.clock.now().toISOString() }))!
    const [after] = await present(tx, [updated])
    await audit({ entityType: 'project', entityId: id, entityName: after.name, action: 'updated', before, after })
    return after
  })
}

export function deleteProject(ctx: AuthedContext, id: number) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const [before] = await present(tx, [await findProject(tx, workspaceId, id)])
    const [{ open }] = await tx
      .select({ open: count() })
      .from(visits)
      .where(visitScope.where(workspaceId, eq(visits.project_id, id), inArray(visits.status, ['scheduled', 'in_progress'])))
    if (open > 0) throw new AppError('PROJECT_HAS_ACTIVE_VISITS', 'project still has scheduled or in-progress visits', { visit_count: open })
    const deleted = (await projectScope.softDelete(tx, workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'project', entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
    return { ...before, deleted_at: deleted.deleted_at, updated_at: deleted.updated_at }
  })
}
