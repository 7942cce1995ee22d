/**
 * Product matrix (docs/API.md "Product matrix"): a form field that asks the same columns for each
 * product of a principal or of a list (a shelf audit: available, facings, shelf_price, …).
 *
 * - `columnProblems` checks a definition's columns (pure); `productReferenceErrors` checks that the
 *   products named exist, live, in the workspace.
 * - `freezeRows` reads the matching live products (sku, then id): they are frozen on a submission when
 *   its visit is checked in, so later renames and deletions leave a filled matrix as it was.
 * - `checkMatrix` checks one answer against the frozen rows (pure).
 */
import { and, asc, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { type FormField, type FrozenRow, type FrozenRows, type MatrixColumn, principals, products } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'

const productScope = workspaceScoped(products)
const principalScope = workspaceScoped(principals)

export const isMatrix = (field: FormField) => field.type === 'product_matrix'

/** Problems of a matrix field's definition as `property → message`, property relative to the field. */
export function matrixDefinitionProblems(field: FormField): Record<string, string> {
  const problems: Record<string, string> = {}
  const at = (property: string, message: string) => {
    problems[property] ??= message
  }
  if (!isMatrix(field)) {
    if (field.products !== undefined) at('products', 'is only for product_matrix fields')
    if (field.columns !== undefined) at('columns', 'is only for product_matrix fields')
    return problems
  }
  if (field.min !== undefined) at('min', 'is not for product_matrix fields (bounds go on a column)')
  if (field.max !== undefined) at('max', 'is not for product_matrix fields (bounds go on a column)')
  if (field.products === undefined) at('products', 'is required for product_matrix fields: {principal_id} or {product_ids}')
  else if ('product_ids' in field.products) {
    const ids = field.products.product_ids
    ids.forEach((id, index) => {
      if (ids.indexOf(id) !== index) at(`products.product_ids.${index}`, 'is listed twice')
    })
  }
  if (field.columns === undefined) at('columns', 'is required for product_matrix fields (1 to 10 columns)')
  const seen = new Set<string>()
  for (const [index, column] of (field.columns ?? []).entries()) {
    const path = `columns.${index}`
    if (seen.has(column.key)) at(`${path}.key`, 'is used by another column')
    seen.add(column.key)
    if (column.type === 'select') {
      if (!column.options || column.options.length === 0) at(`${path}.options`, 'is required for select columns')
      else if (new Set(column.options).size !== column.options.length) at(`${path}.options`, 'must not repeat an option')
    } else if (column.options !== undefined) at(`${path}.options`, 'is only for select columns')
    const bounded = column.type === 'integer' || column.type === 'number'
    if (!bounded) {
      if (column.min !== undefined) at(`${path}.min`, 'is only for integer and number columns')
      if (column.max !== undefined) at(`${path}.max`, 'is only for integer and number columns')
    } else if (column.min !== undefined && column.max !== undefined && column.min > column.max) at(`${path}.max`, 'must not be below min')
  }
  return problems
}

/**
 * The products a form's matrix fields name that are not live products of the workspace, as errors
 * `fields.N.products.principal_id` / `fields.N.products.product_ids.M`.
 */
export async function productReferenceErrors(db: Db, workspaceId: number, fields: readonly FormField[]): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {}
  const principalIds = new Set<number>()
  const productIds = new Set<number>()
  for (const field of fields) {
    if (!isMatrix(field) || !field.products) continue
    if ('principal_id' in field.products) principalIds.add(field.products.principal_id)
    else for (const id of field.products.product_ids) productIds.add(id)
  }
  if (principalIds.size === 0 && productIds.size === 0) return errors
  const [livePrincipals, liveProducts] = await Promise.all([
    principalScope.findManyBy(db, workspaceId, principals.id, [...principalIds]),
    productScope.findManyBy(db, workspaceId, products.id, [...productIds]),
  ])
  const principalOk = new Set(livePrincipals.map((row) => row.id))
  const productOk = new Set(liveProducts.map((row) => row.id))
  fields.forEach((field, index) => {
    if (!isMatrix(field) || !field.products) return
    if ('principal_id' in field.products) {
      if (!principalOk.has(field.products.principal_id)) {
        errors[`fields.${index}.products.principal_id`] = [`principal ${field.products.principal_id} does not exist`]
      }
    } else {
      field.products.product_ids.forEach((id, position) => {
        if (!productOk.has(id)) errors[`fields.${index}.products.product_ids.${position}`] ??= [`product ${id} does not exist`]
      })
    }
  })
  return errors
}

/** The rows of each matrix field of `fields` as of now: the matching live products, by sku then id. `{}` without a matrix. */
export async function freezeRows(db: Db, workspaceId: number, fields: readonly FormField[]): Promise<FrozenRows> {
  const rows: FrozenRows = {}
  for (const field of fields) {
    if (!isMatrix(field) || !field.products) continue
    const which = 'principal_id' in field.products ? eq(products.principal_id, field.products.principal_id) : inArray(products.id, field.products.product_ids)
    rows[field.key] = await db
      .select({ product_id: products.id, sku: products.sku, name: products.name })
      .from(products)
      .where(and(productScope.where(workspaceId, which)))
      .orderBy(asc(products.sku), asc(products.id))
  }
  return rows
}

export const hasMatrix = (fields: readonly FormField[]) => fields.some(isMatrix)

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Whether a matrix answer says nothing: absent, null, or an object with no row that has a value. */
export function matrixBlank(value: unknown): boolean {
  if (value === undefined || value === null) return true
  if (!isPlainObject(value)) return false
  return Object.values(value).every((row) => isPlainObject(row) && Object.values(row).every((cell) => cell === null || cell === undefined))
}

function cellProblem(column: MatrixColumn, value: unknown): string | null {
  switch (column.type) {
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false'
    case 'select':
      return typeof value === 'string' && column.options?.includes(value) ? null : `must be one of: ${column.options?.join(', ')}`
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number'
      if (column.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number'
      if (column.min !== undefined && value < column.min) return `must be at least ${column.min}`
      if (column.max !== undefined && value > column.max) return `must be at most ${column.max}`
      return null
    }
  }
}

export interface MatrixCheck {
  /** The cleaned answer: rows with at least one value, null cells dropped. */
  value: Record<string, Record<string, unknown>>
  /** Errors keyed by the path after the field key: '' (the whole answer), `<product_id>`, `<product_id>.<column>`. */
  errors: Record<string, string>
}

/**
 * One matrix answer against its frozen rows. Unknown products and columns and bad cells are errors
 * always (drafts too); `complete` adds what a finished answer needs: every sent row has its required
 * columns, and a `required` matrix has every frozen row answered.
 */
export function checkMatrix(field: FormField, input: unknown, rows: readonly FrozenRow[], complete: boolean): MatrixCheck {
  const value: Record<string, Record<string, unknown>> = {}
  const errors: Record<string, string> = {}
  const columns = field.columns ?? []
  if (input !== undefined && input !== null && !isPlainObject(input)) {
    return { value, errors: { '': 'must be an object keyed by product id, each an object keyed by column' } }
  }
  const known = new Set(rows.map((row) => String(row.product_id)))
  const byKey = new Map(columns.map((column) => [column.key, column]))
  for (const [productId, row] of Object.entries(input ?? {})) {
    if (!known.has(productId)) {
      errors[productId] = 'is not a product of this matrix (not among the submission’s rows)'
      continue
    }
    if (row === null || row === undefined) continue
    if (!isPlainObject(row)) {
      errors[productId] = 'must be an object keyed by column'
      continue
    }
    const cells: Record<string, unknown> = {}
    for (const [key, cell] of Object.entries(row)) {
      const column = byKey.get(key)
      if (!column) errors[`${productId}.${key}`] = `is not a column of this matrix (columns: ${columns.map((c) => c.key).join(', ')})`
      else if (cell === null || cell === undefined) continue
      else {
        const problem = cellProblem(column, cell)
        if (problem) errors[`${productId}.${key}`] = problem
        else cells[key] = cell
      }
    }
    if (Object.keys(cells).length > 0) value[productId] = cells
  }
  if (complete) {
    for (const row of rows) {
      const productId = String(row.product_id)
      if (productId in errors) continue
      const cells = value[productId]
      if (!cells) {
        if (field.required) errors[productId] = `is required: every product of the matrix needs an answer (${row.sku})`
        continue
      }
      for (const column of columns) {
        if (column.required && !(column.key in cells) && !(`${productId}.${column.key}` in errors)) errors[`${productId}.${column.key}`] = 'is required'
      }
    }
  }
  return { value, errors }
}
