/**
 * Outlets: the shops field users visit. `code` is unique per workspace (case-insensitive, live
 * rows); account and sub-area must be live rows of the workspace; coordinates come as a pair.
 * An outlet with visits still to do (scheduled or in progress) cannot be deleted.
 */
import { count, eq, getTableColumns, inArray, ne, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { accounts, outlets, subAreas, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { DEFAULT_LIST, foldText, type Page } from '../../platform/data/pagination'
import { workspaceScoped } from '../../platform/data/scope'
import { defineList } from '../../platform/data/list'
import { searchIndex } from '../../platform/data/search'
import { withTransaction } from '../../platform/data/transaction'
import { accountScope, subAreaScope } from '../master-data'
import { ID_DIGITS, type RegionalSource } from '../regional'
import type { OutletInput, OutletListQuery, OutletUpdate } from './outlets.schemas'

export const outletScope = workspaceScoped(outlets)
/** Visits read here (visits.queries.ts owns their scope; importing it would make a cycle). */
const visitScope = workspaceScoped(visits)

const { name_key: _n, code_key: _c, ...outletColumns } = getTableColumns(outlets)
const selection = {
  ...outletColumns,
  account_name: accounts.name,
  account_channel_id: accounts.channel_id,
  sub_area_name: subAreas.name,
}

function selectOutlets(db: Db, where: SQL) {
  return db
    .select(selection)
    .from(outlets)
    .leftJoin(accounts, eq(accounts.id, outlets.account_id))
    .leftJoin(subAreas, eq(subAreas.id, outlets.sub_area_id))
    .where(where)
}

type OutletRow = Awaited<ReturnType<typeof selectOutlets>>[number]

function present({ account_name, account_channel_id, sub_area_name, ...outlet }: OutletRow) {
  return {
    ...outlet,
    account: outlet.account_id === null ? null : { id: outlet.account_id, name: account_name ?? '', channel_id: account_channel_id ?? null },
    sub_area: outlet.sub_area_id === null ? null : { id: outlet.sub_area_id, name: sub_area_name ?? '' },
  }
}
export type PresentedOutlet = ReturnType<typeof present>

async function findOutlet(db: Db, workspaceId: number, id: number) {
  const [row] = await selectOutlets(db, outletScope.where(workspaceId, eq(outlets.id, id))).limit(1)
  if (!row) throw new NotFound('OUTLET')
  return present(row)
}

/**
 * The outlets list, prepared per shape (docs/PERFORMANCE.md): a request only binds its values. At most
 * 64 shapes per connection are kept (the filters alone combine into 64).
 */
const outletList = defineList({
  scope: outletScope,
  select: (db: Db, where: SQL) => selectOutlets(db, where),
  search: { columns: [outlets.name_key, outlets.code_key], index: searchIndex('outlets_search', outlets.id) },
  filters: {
    account_id: (id: number) => eq(outlets.account_id, id),
    channel_id: (id: number) => sql`${outlets.account_id} in (select ${accounts.id} from ${accounts} where ${accounts.channel_id} = ${id})`,
    sub_area_id: (id: number) => eq(outlets.sub_area_id, id),
    city_id: (id: number) => eq(outlets.city_id, id),
    is_active: (active: boolean) => eq(outlets.is_active, active),
  },
  sort: { created_at: outlets.created_at, updated_at: outlets.updated_at, name: outlets.name_key, id: outlets.id, code: outlets.code_key },
  limits: DEFAULT_LIST,
  prepared: { bind: { is_active: (active: boolean) => Number(active) } },
})

export async function listOutlets(ctx: AuthedContext, query: OutletListQuery): Promise<Page<PresentedOutlet>> {
  const page = await outletList(ctx, query)
  return { rows: page.rows.map(present), meta: page.meta }
}

const outletsOfIds = prepared((db) =>
  selectOutlets(
    db,
    outletScope.where(sql.placeholder('workspaceId'), sql`${outlets.id} in (select value from json_each(${sql.placeholder('ids')}))`),
  ).prepare(),
)

/** Live outlets of the workspace among `ids`, as the detail answers them (sync pages: one query per page). */
export async function outletsByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return (await outletsOfIds(db).all({ workspaceId, ids: JSON.stringify(ids) })).map(present)
}

export const getOutlet = (ctx: AuthedContext, id: number) => findOutlet(ctx.deps.db.read, ctx.actor.workspaceId, id)

const REGION_FIELDS = [
  ['province_id', 'province'],
  ['city_id', 'city'],
  ['district_id', 'district'],
  ['village_id', 'village'],
] as const

type RegionIds = Record<(typeof REGION_FIELDS)[number][0], number | null>

/** The region chain a write would leave on the outlet, and what the regional source said about it. */
interface RegionCheck {
  ids: RegionIds
  errors: Record<string, string[]>
}

/**
 * Province → city → district → village must be one chain (docs/API.md §Regional lookup): each id given exists, and a
 * child's id starts with its parent's (1101012001 lies in 110101, in 1101, in 11).
 * In upstream mode `regional.exists` is an HTTP call, so this runs before the write transaction,
 * never inside it (every other workspace's write would wait for the upstream).
 */
async function checkRegions(regional: RegionalSource, ids: RegionIds): Promise<RegionCheck> {
  const errors: Record<string, string[]> = {}
  let parent: { field: string; id: number } | null = null
  for (const [field, level] of REGION_FIELDS) {
    const id = ids[field]
    if (id == null) continue
    if (String(id).length !== ID_DIGITS[level] || !(await regional.exists(level, id))) {
      errors[field] = [`${level} ${id} does not exist`]
      // The fault is this level: its children are not also reported as "not in" it.
      parent = null
      continue
    }
    if (parent && !String(id).startsWith(String(parent.id))) errors[field] = [`${level} ${id} is not in ${parent.field.replace('_id', '')} ${parent.id}`]
    parent = { field, id }
  }
  return { ids, errors }
}

const touchesRegions = (input: Partial<OutletInput>) => REGION_FIELDS.some(([field]) => input[field] !== undefined)

/** The chain after the write: the fields of `input`, the others as `current` has them. */
const regionIdsAfter = (input: Partial<OutletInput>, current?: PresentedOutlet): RegionIds =>
  Object.fromEntries(REGION_FIELDS.map(([field]) => [field, input[field] !== undefined ? input[field] : (current?.[field] ?? null)])) as RegionIds

/** The outlet's regions changed between the check before the transaction and the transaction. */
class RegionsChanged extends Error {}
const REGION_CHECK_ATTEMPTS = 3

/** Checks references and uniqueness of the fields present in `input`; returns the column values. */
async function resolveInput(
  tx: Db,
  ctx: AuthedContext,
  input: Partial<OutletInput>,
  regions: RegionCheck | null,
  exceptId?: number,
  current?: PresentedOutlet,
) {
  const workspaceId = ctx.actor.workspaceId
  const values: Partial<typeof outlets.$inferInsert> = { ...input }
  if (input.name !== undefined) values.name_key = foldText(input.name)
  if (input.code !== undefined) {
    values.code_key = input.code === null ? null : foldText(input.code)
    if (values.code_key !== null) {
      const taken = await outletScope.count(tx, workspaceId, eq(outlets.code_key, values.code_key!), exceptId ? ne(outlets.id, exceptId) : undefined)
      if (taken > 0) throw new AlreadyExists('OUTLET', 'code', 'an outlet with this code already exists')
    }
  }
  if (input.account_id != null && !(await accountScope.find(tx, workspaceId, input.account_id))) {
    throw ValidationFailed.field('account_id', `account ${input.account_id} does not exist`)
  }
  if (input.sub_area_id != null && !(await subAreaScope.find(tx, workspaceId, input.sub_area_id))) {
    throw ValidationFailed.field('sub_area_id', `sub-area ${input.sub_area_id} does not exist`)
  }
  if (regions) {
    const ids = regionIdsAfter(input, current)
    if (REGION_FIELDS.some(([field]) => ids[field] !== regions.ids[field])) throw new RegionsChanged()
    if (Object.keys(regions.errors).length) throw new ValidationFailed(regions.errors)
  }
  const latitude = input.latitude !== undefined ? input.latitude : (current?.latitude ?? null)
  const longitude = input.longitude !== undefined ? input.longitude : (current?.longitude ?? null)
  if ((latitude === null) !== (longitude === null)) {
    throw ValidationFailed.field(latitude === null ? 'latitude' : 'longitude', 'latitude and longitude come together')
  }
  return values
}

export async function createOutlet(ctx: AuthedContext, input: OutletInput) {
  const workspaceId = ctx.actor.workspaceId
  const regions = touchesRegions(input) ? await checkRegions(ctx.deps.regional, regionIdsAfter(input)) : null
  return withTransaction(ctx, async ({ tx, audit }) => {
    const values = await resolveInput(tx, ctx, input, regions)
    const now = ctx.deps.clock.now().toISOString()
    const row = await outletScope.insert(tx, workspaceId, { ...values, name: input.name, name_key: values.name_key!, created_at: now, updated_at: now })
    const result = await findOutlet(tx, workspaceId, row.id)
    await audit({ entityType: 'outlet', entityId: row.id, entityName: result.name, action: 'created', newValues: result })
    return result
  })
}

export async function updateOutlet(ctx: AuthedContext, id: number, input: OutletUpdate) {
  const workspaceId = ctx.actor.workspaceId
  for (let attempt = 1; ; attempt++) {
    // The regions are checked against the outlet as last committed; the transaction makes sure it
    // still has those (else the check runs again: an update of its regions came in between).
    const regions = touchesRegions(input)
      ? await checkRegions(ctx.deps.regional, regionIdsAfter(input, await findOutlet(ctx.deps.db.read, workspaceId, id)))
      : null
    try {
      return await withTransaction(ctx, async ({ tx, audit }) => {
        const before = await findOutlet(tx, workspaceId, id)
        const values = await resolveInput(tx, ctx, input, regions, id, before)
        await outletScope.update(tx, workspaceId, id, { ...values, updated_at: ctx.deps.clock.now().toISOString() })
        const after = await findOutlet(tx, workspaceId, id)
        await audit({ entityType: 'outlet', entityId: id, entityName: after.name, action: 'updated', before, after })
        return after
      })
    } catch (error) {
      if (!(error instanceof RegionsChanged)) throw error
      if (attempt === REGION_CHECK_ATTEMPTS) throw new AppError('CONFLICT', 'the outlet’s region changed while this update was checked; try again')
    }
  }
}

export function deleteOutlet(ctx: AuthedContext, id: number) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async ({ tx, audit }) => {
    const before = await findOutlet(tx, workspaceId, id)
    const [{ open }] = await tx
      .select({ open: count() })
      .from(visits)
      .where(visitScope.where(workspaceId, eq(visits.outlet_id, id), inArray(visits.status, ['scheduled', 'in_progress'])))
    if (open > 0) throw new AppError('OUTLET_HAS_ACTIVE_VISITS', 'outlet still has scheduled or in-progress visits', { visit_count: open })
    const deleted = (await outletScope.softDelete(tx, workspaceId, id, ctx.deps.clock.now().toISOString()))!
    await audit({ entityType: 'outlet', entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
    return { ...before, deleted_at: deleted.deleted_at, updated_at: deleted.updated_at }
  })
}
