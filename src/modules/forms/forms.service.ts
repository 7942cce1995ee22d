/**
 * Forms: the questionnaires filled on a visit. A form's fields are checked on write
 * (./forms.answers.ts `validateFormFields`), and answers are checked against them when submitted.
 * A form used by a live project cannot be deleted.
 */
import { and, count, eq, inArray, isNull } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { forms, projectForms, projects, type FormField } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { DEFAULT_LIST, foldText, type Page } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import { validateFormFields } from './forms.answers'
import { normalizeCondition } from './forms.conditions'
import { productReferenceErrors } from './forms.matrix'
import type { FormFieldInput, FormInput, FormQuery, FormUpdate } from './forms.schemas'

export const formScope = workspaceScoped(forms)

type FormRow = typeof forms.$inferSelect
const present = ({ title_key: _key, ...form }: FormRow) => form
export type PresentedForm = ReturnType<typeof present>

function normalizeFields(input: FormFieldInput[]): FormField[] {
  const fields = input.map((field) => {
    const normalized: FormField = { key: field.key, label: field.label, type: field.type, required: field.required ?? false }
    if (field.options !== undefined) normalized.options = field.options.map((option) => option.trim())
    if (field.min !== undefined) normalized.min = field.min
    if (field.max !== undefined) normalized.max = field.max
    if (field.visible_if !== undefined) normalized.visible_if = normalizeCondition(field.visible_if)
    if (field.products !== undefined) normalized.products = field.products
    if (field.columns !== undefined) {
      normalized.columns = field.columns.map((column) => ({
        key: column.key,
        label: column.label,
        type: column.type,
        required: column.required ?? false,
        ...(column.min === undefined ? {} : { min: column.min }),
        ...(column.max === undefined ? {} : { max: column.max }),
        ...(column.options === undefined ? {} : { options: column.options.map((option) => option.trim()) }),
      }))
    }
    return normalized
  })
  const errors = validateFormFields(fields)
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
  return fields
}

/** The products a matrix names must be live products of the workspace (read in the transaction). */
async function refuseForeignProducts(tx: Db, workspaceId: number, fields: FormField[]) {
  const errors = await productReferenceErrors(tx, workspaceId, fields)
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors)
}

export async function findForm(db: Db, workspaceId: number, id: number): Promise<FormRow> {
  const form = await formScope.find(db, workspaceId, id)
  if (!form) throw new NotFound('FORM')
  return form
}

const formList = defineList({
  scope: formScope,
  search: { columns: [forms.title_key] },
  sort: { created_at: forms.created_at, updated_at: forms.updated_at, title: forms.title_key, id: forms.id },
  limits: DEFAULT_LIST,
})

export async function listForms(ctx: AuthedContext, query: FormQuery): Promise<Page<PresentedForm>> {
  const result = await formList(ctx, query)
  return { rows: result.rows.map(present), meta: result.meta }
}

/** Live forms of the workspace among `ids`, as the detail answers them. */
export async function formsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return (
    await db
      .select()
      .from(forms)
      .where(formScope.where(workspaceId, inArray(forms.id, ids)))
  ).map(present)
}

export const getForm = async (ctx: AuthedContext, id: number) => present(await findForm(ctx.deps.db.read, ctx.actor.workspaceId, id))

export function createForm(ctx: AuthedContext, input: FormInput) {
  const fields = normalizeFields(input.fields)
  return withTransaction(ctx, async ({ tx, audit }) => {
    await refuseForeignProducts(tx, ctx.actor.workspaceId, fields)
    const now = ctx.deps.clock.now().toISOString()
    const form = await formScope.insert(tx, ctx.actor.workspaceId, {
      title: input.title,
      title_key: foldText(input.title),
      description: input.description ?? null,
      fields,
      created_at: now,
      updated_at: now,
    })
    const result = present(form)
    await audit({ entityType: 'form', entityId: form.id, entityName: form.title, action: 'created', newValues: result })
    return result
  })
}

export function updateForm(ctx: AuthedContext, id: number, input: FormUpdate) {
  const fields = input.fields && normalizeFields(input.fields)
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findForm(tx, ctx.actor.workspaceId, id)
    if (fields) await refuseForeignProducts(tx, ctx.actor.workspaceId, fields)
    const changes: Partial<typeof forms.$inferInsert> = {}
    if (input.title !== undefined) Object.assign(changes, { title: input.title, title_key: foldText(input.title) })
    if (input.description !== undefined) changes.description = input.description
    if (fields) changes.fields = fields
    const after = (await formScope.update(tx, ctx.actor.workspaceId, id, { ...changes, updated_at: ctx.deps.clock.now().toISOString() }))!
    await audit({ entityType: 'form', entityId: id, entityName: after.title, action: 'updated', before: present(before), after: present(after) })
    return present(after)
  })
}

export function deleteForm(ctx: AuthedContext, id: number) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findForm(tx, ctx.actor.workspaceId, id)
    const [{ used }] = await tx
      .select({ used: count() })
      .from(projectForms)
      .innerJoin(projects, eq(projects.id, projectForms.project_id))
      .where(and(eq(projectForms.form_id, id), isNull(projects.deleted_at)))
    if (used > 0) throw new AppError('FORM_IN_USE', 'form is used by projects', { project_count: used })
    const deleted = (await formScope.softDelete(tx, ctx.actor.workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'form', entityId: id, entityName: before.title, action: 'deleted', oldValues: present(before) })
    return present(deleted)
  })
}
