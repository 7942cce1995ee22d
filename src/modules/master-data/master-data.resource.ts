/**
 * The four master-data entities (ChannelGroup, Channel, Account, SubArea) share every rule of docs/API.md §Master data
 * "Master data" and differ only in their parent, their children and whether names are unique. Each
 * is declared once in ./master-data.entities.ts (typed by ./master-data.types.ts); this file turns a
 * declaration into its service (rules) and its routes (office CRUD + mobile read-only), over its
 * statements (./master-data.queries.ts) and schemas (./master-data.schemas.ts).
 *
 * Rules implemented here, for all four:
 * - workspace_id from the caller, never from the body; another workspace's id is a 404;
 * - a parent id must exist, live, in the caller's workspace (else 400 with errors.<field>);
 * - names trimmed, max 255; unique case-insensitively among live rows where the entity says so (409);
 * - delete is soft and refused while live children exist (409 with errors.<child>_count);
 * - list: keyword (case-insensitive partial), parent filter, page/limit (default 50, clamped at 100),
 *   sort_by created_at|updated_at|name|id, sort_order;
 * - every mutation audited in its transaction.
 */
import type { TSchema } from '@sinclair/typebox'
import { eq, getTableColumns, ne } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { Elysia } from 'elysia'
import type { Db } from '../../db/client'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import type { PlatformPlugin } from '../../platform/http/http'
import { foldText, type Page } from '../../platform/data/pagination'
import { created, listed, ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import type { NewRow, WorkspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import { masterDataQueries } from './master-data.queries'
import { masterDataBodies, masterDataQuery, type MasterCreate, type MasterListQuery, type MasterUpdate } from './master-data.schemas'
import type { MasterDataDefinition, MasterTable, Presented } from './master-data.types'

/** A parent id of a body or query: the validated integer under the link field, if present. */
const idAt = (values: object, field: string | undefined): number | undefined => {
  const value: unknown = field === undefined ? undefined : Reflect.get(values, field)
  return typeof value === 'number' ? value : undefined
}

/** The checks of one entity's writes (see the top of the file), over its statements (./master-data.queries.ts). */
function masterDataRules<T extends MasterTable, C extends MasterTable>(def: MasterDataDefinition<T, C>, queries: ReturnType<typeof masterDataQueries>) {
  const { table } = queries
  const childTable: SQLiteTable | undefined = def.children?.scope.table
  const childLink = def.children && childTable ? getTableColumns(childTable)[def.children.field] : undefined

  return {
    async findPresented(db: Db, workspaceId: number, id: number): Promise<Presented> {
      const row = await queries.find(db, workspaceId, id)
      if (!row) throw new NotFound(def.entity)
      return row
    },

    async assertParent(db: Db, workspaceId: number, parentId: number | undefined) {
      if (!def.parent || parentId === undefined) return
      if (!(await def.parent.scope.find(db, workspaceId, parentId))) {
        throw ValidationFailed.field(def.parent.field, `${def.parent.entity.toLowerCase().replaceAll('_', ' ')} ${parentId} does not exist`)
      }
    },

    async assertNameFree(db: Db, workspaceId: number, nameKey: string, exceptId?: number) {
      if (!def.uniqueName) return
      const taken = await def.scope.count(db, workspaceId, eq(table.name_key, nameKey), exceptId ? ne(table.id, exceptId) : undefined)
      if (taken > 0) throw new AlreadyExists(def.entity, 'name', `${def.label} with this name already exists`)
    },

    async assertNoChildren(db: Db, workspaceId: number, id: number) {
      if (!def.children || !childLink) return
      const children = await def.children.scope.count(db, workspaceId, eq(childLink, id))
      if (children > 0) throw new AppError(def.children.code, def.children.message, { [def.children.countKey]: children })
    },
  }
}

/** One entity's service: its reads and its audited writes. */
export function masterDataService<T extends MasterTable, C extends MasterTable>(def: MasterDataDefinition<T, C>) {
  const queries = masterDataQueries(def)
  const { findPresented, assertParent, assertNameFree, assertNoChildren } = masterDataRules(def, queries)
  // The writes set only the common columns and the link field: the table's common view.
  const scope: WorkspaceScoped<MasterTable> = def.scope
  const parentField = def.parent?.field

  return {
    /** Live rows of the workspace among `ids`, as the detail answers them (sync pages: one query per page). */
    async byIds(db: Db, workspaceId: number, ids: number[]): Promise<Presented[]> {
      if (ids.length === 0) return []
      return queries.byIds(db, workspaceId, ids)
    },

    async list(ctx: AuthedContext, query: MasterListQuery): Promise<Page<Presented>> {
      const page = await queries.list(ctx, query)
      return { rows: page.rows.map(queries.present), meta: page.meta }
    },

    get: (ctx: AuthedContext, id: number) => findPresented(ctx.deps.db.read, ctx.actor.workspaceId, id),

    create(ctx: AuthedContext, body: MasterCreate) {
      const workspaceId = ctx.actor.workspaceId
      return withTransaction(ctx, async ({ tx, audit }) => {
        const parentId = idAt(body, parentField)
        await assertParent(tx, workspaceId, parentId)
        const nameKey = foldText(body.name)
        await assertNameFree(tx, workspaceId, nameKey)
        const now = ctx.deps.clock.now().toISOString()
        const values: NewRow<MasterTable> & Record<string, unknown> = { name: body.name, name_key: nameKey, created_at: now, updated_at: now }
        if (parentField !== undefined) values[parentField] = parentId
        const row = await scope.insert(tx, workspaceId, values)
        const result = await findPresented(tx, workspaceId, row.id)
        await audit({ entityType: def.auditType, entityId: row.id, entityName: result.name, action: 'created', newValues: result })
        return result
      })
    },

    update(ctx: AuthedContext, id: number, body: MasterUpdate) {
      const workspaceId = ctx.actor.workspaceId
      return withTransaction(ctx, async ({ tx, audit }) => {
        const before = await findPresented(tx, workspaceId, id)
        const changes: Partial<NewRow<MasterTable>> & Record<string, unknown> = {}
        if (body.name !== undefined && body.name !== before.name) {
          const nameKey = foldText(body.name)
          await assertNameFree(tx, workspaceId, nameKey, id)
          Object.assign(changes, { name: body.name, name_key: nameKey })
        }
        const parentId = idAt(body, parentField)
        if (parentField !== undefined && parentId !== undefined && parentId !== before[parentField]) {
          await assertParent(tx, workspaceId, parentId)
          changes[parentField] = parentId
        }
        if (Object.keys(changes).length > 0) {
          await scope.update(tx, workspaceId, id, { ...changes, updated_at: ctx.deps.clock.now().toISOString() })
        }
        const after = await findPresented(tx, workspaceId, id)
        await audit({ entityType: def.auditType, entityId: id, entityName: after.name, action: 'updated', before, after })
        return after
      })
    },

    remove(ctx: AuthedContext, id: number) {
      const workspaceId = ctx.actor.workspaceId
      return withTransaction(ctx, async ({ tx, audit }) => {
        const before = await findPresented(tx, workspaceId, id)
        await assertNoChildren(tx, workspaceId, id)
        await scope.softDelete(tx, workspaceId, id, ctx.deps.clock.now().toISOString())
        const result = await queries.findAny(tx, workspaceId, id)
        await audit({ entityType: def.auditType, entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
        return result
      })
    },
  }
}

export function masterDataRoutes<T extends MasterTable, C extends MasterTable>(
  def: MasterDataDefinition<T, C>,
  platform: PlatformPlugin,
  entitySchema: TSchema,
) {
  const service = masterDataService(def)
  const view = `${def.permission}.view`
  const manage = `${def.permission}.manage`
  const tags = ['Master data']
  const listQuerySchema = masterDataQuery(def)
  const bodies = masterDataBodies(def)
  const plural = `${def.label}s`

  const readRoutes = (prefix: string, platformName: string) =>
    new Elysia({ prefix: `${prefix}/outlets/${def.segment}`, tags })
      .use(platform)
      .get('', async ({ ctx, query }) => listed(await service.list(ctx, query), 'LIST_OK', `${plural} retrieved`), {
        auth: view,
        query: listQuerySchema,
        response: responses({ 200: ListEnvelope(entitySchema) }),
        detail: { summary: `List ${plural} (${platformName})` },
      })
      .get('/:id', async ({ ctx, params }) => ok(await service.get(ctx, params.id)), {
        auth: view,
        params: IdParams,
        response: responses({ 200: Envelope(entitySchema) }, [...AUTHED_ERRORS, `${def.entity}_NOT_FOUND`]),
        detail: { summary: `Get a ${def.label} (${platformName})` },
      })

  const office = readRoutes('/office/v1', 'web')
    .post('', async ({ ctx, body }) => created(await service.create(ctx, body), `${def.entity}_CREATED`, `${def.label} created`), {
      auth: manage,
      body: bodies.create,
      response: responses({ 201: Envelope(entitySchema) }, [...AUTHED_ERRORS, `${def.entity}_ALREADY_EXISTS`]),
      detail: { summary: `Create a ${def.label}` },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await service.update(ctx, params.id, body), `${def.entity}_UPDATED`, `${def.label} updated`), {
      auth: manage,
      params: IdParams,
      body: bodies.update,
      response: responses({ 200: Envelope(entitySchema) }, [...AUTHED_ERRORS, `${def.entity}_NOT_FOUND`, `${def.entity}_ALREADY_EXISTS`]),
      detail: { summary: `Update a ${def.label}` },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await service.remove(ctx, params.id), `${def.entity}_DELETED`, `${def.label} deleted`), {
      auth: manage,
      params: IdParams,
      response: responses({ 200: Envelope(entitySchema) }, [...AUTHED_ERRORS, `${def.entity}_NOT_FOUND`, ...(def.children ? [def.children.code] : [])]),
      detail: { summary: `Delete a ${def.label} (soft)` },
    })

  return new Elysia().use(office).use(readRoutes('/app/v1', 'mobile'))
}
