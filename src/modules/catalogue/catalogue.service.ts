/**
 * Principals (the brands a team works for) and their products. Principal codes and product SKUs are
 * unique per workspace (case-insensitive, live rows); a product's principal must be a live principal
 * of the workspace; a principal still used by products or projects cannot be deleted.
 */
import { and, count, eq, inArray, isNull } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { principals, products, projects } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { DEFAULT_LIST, foldText } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { searchIndex } from '../../platform/data/search'
import { withTransaction } from '../../platform/data/transaction'
import { principalScope } from '../projects'
import type { PrincipalInput, PrincipalQuery, PrincipalUpdate, ProductInput, ProductQuery, ProductUpdate } from './catalogue.schemas'

export const productScope = workspaceScoped(products)
const productSearch = searchIndex('products_search', products.id)
const principalSearch = searchIndex('principals_search', principals.id)

// ── Principals ──────────────────────────────────────────────────────────────────────────────────

type PrincipalRow = typeof principals.$inferSelect
const presentPrincipal = ({ name_key: _n, code_key: _c, ...principal }: PrincipalRow) => principal

async function findPrincipal(db: Db, workspaceId: number, id: number) {
  const row = await principalScope.find(db, workspaceId, id)
  if (!row) throw new NotFound('PRINCIPAL')
  return row
}

const principalList = defineList({
  scope: principalScope,
  search: { columns: [principals.name_key, principals.code_key], index: principalSearch },
  sort: { created_at: principals.created_at, updated_at: principals.updated_at, name: principals.name_key, id: principals.id },
  limits: DEFAULT_LIST,
})

export async function listPrincipals(ctx: AuthedContext, query: PrincipalQuery) {
  const result = await principalList(ctx, query)
  return { rows: result.rows.map(presentPrincipal), meta: result.meta }
}

/** Live principals of the workspace among `ids`, as the detail answers them. */
export async function principalsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return (
    await db
      .select()
      .from(principals)
      .where(principalScope.where(workspaceId, inArray(principals.id, ids)))
  ).map(presentPrincipal)
}

export const getPrincipal = async (ctx: AuthedContext, id: number) => presentPrincipal(await findPrincipal(ctx.deps.db.read, ctx.actor.workspaceId, id))

async function principalValues(tx: Db, workspaceId: number, input: PrincipalUpdate, exceptId?: number) {
  const values: Partial<typeof principals.$inferInsert> = { ...input }
  if (input.name !== undefined) values.name_key = foldText(input.name)
  if (input.code !== undefined) {
    values.code_key = input.code === null ? null : foldText(input.code)
    if (values.code_key && (await principalScope.isTaken(tx, workspaceId, principals.code_key, values.code_key, exceptId))) {
      throw new AlreadyExists('PRINCIPAL', 'code', 'a principal with this code already exists')
    }
  }
  return values
}

export function createPrincipal(ctx: AuthedContext, input: PrincipalInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const values = await principalValues(tx, ctx.actor.workspaceId, input)
    const now = ctx.deps.clock.now().toISOString()
    const row = await principalScope.insert(tx, ctx.actor.workspaceId, {
      ...values,
      name: input.name,
      name_key: values.name_key!,
      created_at: now,
      updated_at: now,
    })
    const result = presentPrincipal(row)
    await audit({ entityType: 'principal', entityId: row.id, entityName: row.name, action: 'created', newValues: result })
    return result
  })
}

export function updatePrincipal(ctx: AuthedContext, id: number, input: PrincipalUpdate) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findPrincipal(tx, ctx.actor.workspaceId, id)
    const values = await principalValues(tx, ctx.actor.workspaceId, input, id)
    const after = (await principalScope.update(tx, ctx.actor.workspaceId, id, { ...values, updated_at: ctx.deps.clock.now().toISOString() }))!
    await audit({
      entityType: 'principal',
      entityId: id,
      entityName: after.name,
      action: 'updated',
      before: presentPrincipal(before),
      after: presentPrincipal(after),
    })
    return presentPrincipal(after)
  })
}

export function deletePrincipal(ctx: AuthedContext, id: number) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findPrincipal(tx, ctx.actor.workspaceId, id)
    const [[{ productCount }], [{ projectCount }]] = await Promise.all([
      tx
        .select({ productCount: count() })
        .from(products)
        .where(and(eq(products.principal_id, id), isNull(products.deleted_at))),
      tx
        .select({ projectCount: count() })
        .from(projects)
        .where(and(eq(projects.principal_id, id), isNull(projects.deleted_at))),
    ])
    if (productCount + projectCount > 0) {
      throw new AppError('PRINCIPAL_IN_USE', 'principal still has products or projects', { product_count: productCount, project_count: projectCount })
    }
    const deleted = (await principalScope.softDelete(tx, ctx.actor.workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'principal', entityId: id, entityName: before.name, action: 'deleted', oldValues: presentPrincipal(before) })
    return presentPrincipal(deleted)
  })
}

// ── Products ────────────────────────────────────────────────────────────────────────────────────

function selectProducts(db: Db, where: ReturnType<typeof productScope.where>) {
  return db
    .select({
      id: products.id,
      workspace_id: products.workspace_id,
      name: products.name,
      sku: products.sku,
      principal_id: products.principal_id,
      principal_name: principals.name,
      price: products.price,
      unit: products.unit,
      barcode: products.barcode,
      created_at: products.created_at,
      updated_at: products.updated_at,
      deleted_at: products.deleted_at,
    })
    .from(products)
    .leftJoin(principals, eq(principals.id, products.principal_id))
    .where(where)
}
type ProductRow = Awaited<ReturnType<typeof selectProducts>>[number]
const presentProduct = ({ principal_name, ...product }: ProductRow) => ({
  ...product,
  principal: product.principal_id === null ? null : { id: product.principal_id, name: principal_name ?? '' },
})

async function findProduct(db: Db, workspaceId: number, id: number) {
  const [row] = await selectProducts(db, productScope.where(workspaceId, eq(products.id, id))).limit(1)
  if (!row) throw new NotFound('PRODUCT')
  return presentProduct(row)
}

const productList = defineList({
  scope: productScope,
  select: selectProducts,
  search: { columns: [products.name_key, products.sku_key], index: productSearch, exact: [products.barcode] },
  filters: { principal_id: (id: number) => eq(products.principal_id, id) },
  sort: { created_at: products.created_at, updated_at: products.updated_at, name: products.name_key, id: products.id },
  limits: DEFAULT_LIST,
})

export async function listProducts(ctx: AuthedContext, query: ProductQuery) {
  const result = await productList(ctx, query)
  return { rows: result.rows.map(presentProduct), meta: result.meta }
}

/** Live products of the workspace among `ids`, as the detail answers them. */
export async function productsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return (await selectProducts(db, productScope.where(workspaceId, inArray(products.id, ids)))).map(presentProduct)
}

export const getProduct = (ctx: AuthedContext, id: number) => findProduct(ctx.deps.db.read, ctx.actor.workspaceId, id)

async function productValues(tx: Db, workspaceId: number, input: ProductUpdate, exceptId?: number) {
  const values: Partial<typeof products.$inferInsert> = { ...input }
  if (input.name !== undefined) values.name_key = foldText(input.name)
  if (input.sku !== undefined) {
    values.sku_key = foldText(input.sku)
    if (await productScope.isTaken(tx, workspaceId, products.sku_key, values.sku_key, exceptId)) {
      throw new AlreadyExists('PRODUCT', 'sku', 'a product with this SKU already exists')
    }
  }
  if (input.principal_id != null && !(await principalScope.find(tx, workspaceId, input.principal_id))) {
    throw ValidationFailed.field('principal_id', `principal ${input.principal_id} does not exist`)
  }
  return values
}

export function createProduct(ctx: AuthedContext, input: ProductInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const values = await productValues(tx, ctx.actor.workspaceId, input)
    const now = ctx.deps.clock.now().toISOString()
    const row = await productScope.insert(tx, ctx.actor.workspaceId, {
      ...values,
      name: input.name,
      name_key: values.name_key!,
      sku: input.sku,
      sku_key: values.sku_key!,
      created_at: now,
      updated_at: now,
    })
    const result = await findProduct(tx, ctx.actor.workspaceId, row.id)
    await audit({ entityType: 'product', entityId: row.id, entityName: row.name, action: 'created', newValues: result })
    return result
  })
}

export function updateProduct(ctx: AuthedContext, id: number, input: ProductUpdate) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findProduct(tx, ctx.actor.workspaceId, id)
    const values = await productValues(tx, ctx.actor.workspaceId, input, id)
    await productScope.update(tx, ctx.actor.workspaceId, id, { ...values, updated_at: ctx.deps.clock.now().toISOString() })
    const after = await findProduct(tx, ctx.actor.workspaceId, id)
    await audit({ entityType: 'product', entityId: id, entityName: after.name, action: 'updated', before, after })
    return after
  })
}

export function deleteProduct(ctx: AuthedContext, id: number) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findProduct(tx, ctx.actor.workspaceId, id)
    const deleted = (await productScope.softDelete(tx, ctx.actor.workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'product', entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
    return { ...before, deleted_at: deleted.deleted_at, updated_at: deleted.updated_at }
  })
}
