/**
 * The four master-data entities (ChannelGroup, Channel, Account, SubArea) share every rule of docs/API.md §Master data
 * "Master data" and differ only in their parent, their children and whether names are unique. Each
 * is declared once in ./master-data.entities.ts; this file turns a declaration into its service
 * (rules) and its routes (office CRUD + mobile read-only).
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
import { type TSchema, Type } from '@sinclair/typebox'
import { and, asc, count, desc, eq, getTableColumns, getTableName, ne, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { Elysia, t } from 'elysia'
import type { Db } from '../../db/client'
import { prepared, preparedVariants } from '../../db/prepared'
import type { AuditEntityType } from '../../platform/audit'
import type { AuthedContext } from '../../platform/context'
import { AlreadyExists, Conflict, NotFound, ValidationFailed } from '../../platform/errors'
import type { PlatformPlugin } from '../../platform/http'
import { foldText, keywordOf, listQuery, MASTER_DATA_LIST, pageMeta, paging, updatedSinceAt, updatedSinceOf, type Page } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, Id, IdParams, ListEnvelope, MAX_ID, NullableTimestamp, RequiredText, responses, Timestamp } from '../../platform/schema'
import type { WorkspaceScoped } from '../../platform/scope'
import { ftsPhrase, matchesIndex, planKeyword, searchIndex, type KeywordMethod } from '../../platform/search'
import { withTransaction } from '../../platform/transaction'

type MasterTable = {
  id: SQLiteColumn
  workspace_id: SQLiteColumn
  name: SQLiteColumn
  name_key: SQLiteColumn
  created_at: SQLiteColumn
  updated_at: SQLiteColumn
  deleted_at: SQLiteColumn
  $inferSelect: { id: number; workspace_id: number; name: string; name_key: string; created_at: string; updated_at: string; deleted_at: string | null }
  $inferInsert: { workspace_id: number }
} & Parameters<typeof getTableColumns>[0]

export interface ParentLink {
  /** Column on this entity holding the parent id, also the list filter and body field. */
  field: string
  /** Error code prefix of the parent (`CHANNEL_GROUP`). */
  entity: string
  scope: WorkspaceScoped<any>
  /** Key of the nested parent object in answers. */
  nestedAs: string
  /** Parent columns shown in the nested object. */
  nestedColumns: string[]
}

export interface ChildGuard {
  scope: WorkspaceScoped<any>
  /** Column on the child pointing at this entity. */
  field: string
  code: string
  countKey: string
  message: string
}

export interface MasterDataDefinition {
  /** Error/success code prefix: `CHANNEL_GROUP`. */
  entity: string
  /** Human name: `channel group`. */
  label: string
  auditType: AuditEntityType
  /** Path segment under /outlets: `channel-groups`. */
  segment: string
  /** Permission prefix: `channel_group` → `.view` / `.manage`. */
  permission: string
  scope: WorkspaceScoped<any>
  uniqueName: boolean
  parent?: ParentLink
  children?: ChildGuard
}

type Presented = Record<string, unknown> & { id: number; name: string }
type MasterQuery = {
  page?: number
  limit?: number
  keyword?: string
  sort_by?: 'created_at' | 'updated_at' | 'name' | 'id'
  sort_order?: 'asc' | 'desc'
  updated_since?: string
  [filter: string]: unknown
}

export function masterDataService(def: MasterDataDefinition) {
  const table = def.scope.table as unknown as MasterTable
  const { name_key: _hidden, ...publicColumns } = getTableColumns(table as never) as Record<string, SQLiteColumn>
  const parentTable = def.parent?.scope.table as Record<string, SQLiteColumn> | undefined
  const parentColumn = def.parent ? publicColumns[def.parent.field] : undefined

  const selection: Record<string, unknown> = { ...publicColumns }
  if (def.parent && parentTable) {
    for (const column of def.parent.nestedColumns) selection[`__parent_${column}`] = parentTable[column]
  }

  const sortColumns: Record<string, SQLiteColumn> = {
    created_at: table.created_at,
    updated_at: table.updated_at,
    name: table.name_key,
    id: table.id,
  }

  /** Rows with their nested parent object, in one query. */
  function selectPresented(db: Db, where: SQL) {
    const query = db.select(selection as never).from(table as never)
    const joined = def.parent && parentTable && parentColumn ? query.leftJoin(def.parent.scope.table as never, eq(parentTable.id, parentColumn)) : query
    return joined.where(where)
  }

  function present(row: Record<string, unknown>): Presented {
    const result: Record<string, unknown> = {}
    const nested: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith('__parent_')) nested[key.slice('__parent_'.length)] = value
      else result[key] = value
    }
    if (def.parent) result[def.parent.nestedAs] = nested.id == null ? null : nested
    return result as Presented
  }

  async function findPresented(db: Db, workspaceId: number, id: number): Promise<Presented> {
    const [row] = await findStatement(db).all({ workspaceId, id })
    if (!row) throw new NotFound(def.entity)
    return present(row as Record<string, unknown>)
  }

  async function assertParent(db: Db, workspaceId: number, parentId: number) {
    if (!def.parent) return
    if (!(await def.parent.scope.find(db, workspaceId, parentId))) {
      throw ValidationFailed.field(def.parent.field, `${def.parent.entity.toLowerCase().replaceAll('_', ' ')} ${parentId} does not exist`)
    }
  }

  async function assertNameFree(db: Db, workspaceId: number, nameKey: string, exceptId?: number) {
    if (!def.uniqueName) return
    const taken = await def.scope.count(db, workspaceId, eq(table.name_key, nameKey), exceptId ? ne(table.id, exceptId) : undefined)
    if (taken > 0) throw new AlreadyExists(def.entity, 'name', `${def.label} with this name already exists`)
  }

  const search = searchIndex(`${getTableName(table as never)}_search`, table.id)
  /**
   * List and count as prepared statements, one per shape (sort, direction, how the page and the total
   * find the keyword — none, scan or index, see platform/search.ts — parent filter?): lists are the
   * hottest reads of the office client.
   */
  const listStatements = preparedVariants((db: Db, shape: string) => {
    const [sortBy, order, rowsKeyword, totalKeyword, withParent, withUpdatedSince] = shape.split(':')
    const scan = sql`instr(${table.name_key}, ${sql.placeholder('keyword')}) > 0`
    const keyword = (method: string) => (method === 'scan' ? scan : method === 'index' ? and(matchesIndex(search, sql.placeholder('phrase')), scan) : undefined)
    const where = (method: string) =>
      def.scope.where(
        sql.placeholder('workspaceId'),
        keyword(method),
        withParent === '1' ? eq(parentColumn!, sql.placeholder('parentId')) : undefined,
        withUpdatedSince === '1' ? updatedSinceAt(sql.placeholder('updatedSince'), table.updated_at) : undefined,
      )
    const direction = order === 'asc' ? asc : desc
    return {
      rows: selectPresented(db, where(rowsKeyword))
        .orderBy(direction(sortColumns[sortBy]), direction(table.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
      total: db
        .select({ total: count() })
        .from(table as never)
        .where(where(totalKeyword))
        .prepare(),
    }
  })
  const findStatement = prepared((db) =>
    selectPresented(db, def.scope.where(sql.placeholder('workspaceId'), eq(table.id, sql.placeholder('id'))))
      .limit(1)
      .prepare(),
  )

  const byIdsStatement = prepared((db) =>
    selectPresented(
      db,
      def.scope.where(sql.placeholder('workspaceId'), sql`${table.id} in (select value from json_each(${sql.placeholder('ids')}))`),
    ).prepare(),
  )

  return {
    /** Live rows of the workspace among `ids`, as the detail answers them (sync pages: one query per page). */
    async byIds(db: Db, workspaceId: number, ids: number[]): Promise<Presented[]> {
      if (ids.length === 0) return []
      return ((await byIdsStatement(db).all({ workspaceId, ids: JSON.stringify(ids) })) as Record<string, unknown>[]).map(present)
    },

    async list(ctx: AuthedContext, query: MasterQuery): Promise<Page<Presented>> {
      const page = paging(query, MASTER_DATA_LIST)
      const keyword = keywordOf(query)
      const parentId = def.parent ? (query[def.parent.field] as number | undefined) : undefined
      const plan: { rows: KeywordMethod | 'none'; total: KeywordMethod | 'none' } =
        keyword === null ? { rows: 'none', total: 'none' } : await planKeyword(ctx.deps.db.read, search, keyword)
      const updatedSince = updatedSinceOf(query)
      const shape = [
        query.sort_by ?? 'created_at',
        query.sort_order ?? 'desc',
        plan.rows,
        plan.total,
        parentId !== undefined ? 1 : 0,
        updatedSince ? 1 : 0,
      ].join(':')
      const statements = listStatements(ctx.deps.db.read, shape)
      const phrase = keyword === null ? null : ftsPhrase(keyword)
      const values = { workspaceId: ctx.actor.workspaceId, keyword, phrase, parentId, updatedSince, limit: page.limit, offset: page.offset }
      const [rows, [{ total }]] = await Promise.all([statements.rows.all(values), statements.total.all(values)])
      return { rows: (rows as Record<string, unknown>[]).map(present), meta: pageMeta(page, total) }
    },

    get: (ctx: AuthedContext, id: number) => findPresented(ctx.deps.db.read, ctx.actor.workspaceId, id),

    create(ctx: AuthedContext, body: Record<string, unknown> & { name: string }) {
      const workspaceId = ctx.actor.workspaceId
      return withTransaction(ctx, async ({ tx, audit }) => {
        if (def.parent) await assertParent(tx, workspaceId, body[def.parent.field] as number)
        const nameKey = foldText(body.name)
        await assertNameFree(tx, workspaceId, nameKey)
        const now = ctx.deps.clock.now().toISOString()
        const values: Record<string, unknown> = { name: body.name, name_key: nameKey, created_at: now, updated_at: now }
        if (def.parent) values[def.parent.field] = body[def.parent.field]
        const row = await def.scope.insert(tx, workspaceId, values)
        const result = await findPresented(tx, workspaceId, row.id)
        await audit({ entityType: def.auditType, entityId: row.id, entityName: result.name, action: 'created', newValues: result })
        return result
      })
    },

    update(ctx: AuthedContext, id: number, body: Record<string, unknown> & { name?: string }) {
      const workspaceId = ctx.actor.workspaceId
      return withTransaction(ctx, async ({ tx, audit }) => {
        const before = await findPresented(tx, workspaceId, id)
        const changes: Record<string, unknown> = {}
        if (body.name !== undefined && body.name !== before.name) {
          const nameKey = foldText(body.name)
          await assertNameFree(tx, workspaceId, nameKey, id)
          Object.assign(changes, { name: body.name, name_key: nameKey })
        }
        if (def.parent && body[def.parent.field] !== undefined && body[def.parent.field] !== before[def.parent.field]) {
          await assertParent(tx, workspaceId, body[def.parent.field] as number)
          changes[def.parent.field] = body[def.parent.field]
        }
        if (Object.keys(changes).length > 0) {
          await def.scope.update(tx, workspaceId, id, { ...changes, updated_at: ctx.deps.clock.now().toISOString() })
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
        if (def.children) {
          const childColumn = (def.children.scope.table as Record<string, SQLiteColumn>)[def.children.field]
          const children = await def.children.scope.count(tx, workspaceId, eq(childColumn, id))
          if (children > 0) throw new Conflict(def.children.code, def.children.message, { [def.children.countKey]: children })
        }
        await def.scope.softDelete(tx, workspaceId, id, ctx.deps.clock.now().toISOString())
        const [deleted] = await selectPresented(tx, and(eq(table.workspace_id, workspaceId), eq(table.id, id))!).limit(1)
        const result = present(deleted as Record<string, unknown>)
        await audit({ entityType: def.auditType, entityId: id, entityName: before.name, action: 'deleted', oldValues: before })
        return result
      })
    },
  }
}

/** Response schema of one entity (with its nested parent). */
export function masterDataSchema(def: MasterDataDefinition, nested?: TSchema): TSchema {
  const properties: Record<string, TSchema> = {
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
  }
  if (def.parent) {
    properties[def.parent.field] = Type.Integer()
    properties[def.parent.nestedAs] = Type.Union([nested ?? Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()])
  }
  Object.assign(properties, { created_at: Timestamp(), updated_at: Timestamp(), deleted_at: NullableTimestamp() })
  return Type.Object(properties, { title: def.entity })
}

export function masterDataRoutes(def: MasterDataDefinition, platform: PlatformPlugin, entitySchema: TSchema) {
  const service = masterDataService(def)
  const view = `${def.permission}.view`
  const manage = `${def.permission}.manage`
  const tags = ['Master data']
  const listQuerySchema = listQuery(
    def.parent
      ? { [def.parent.field]: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID, description: `Only children of this ${def.parent.entity.toLowerCase()}` })) }
      : {},
  )

  const createFields: Record<string, TSchema> = { name: RequiredText(255, { description: 'Max 255 characters' }) }
  if (def.parent) createFields[def.parent.field] = Id({ description: `A live ${def.parent.entity.toLowerCase()} of your workspace` })
  const createBody = Type.Object(createFields)
  const updateBody = Type.Object(Object.fromEntries(Object.entries(createFields).map(([key, schema]) => [key, Type.Optional(schema)])), { minProperties: 1 })
  const plural = `${def.label}s`

  const readRoutes = (prefix: string, platformName: string) =>
    new Elysia({ prefix: `${prefix}/outlets/${def.segment}`, tags })
      .use(platform)
      .get('', async ({ ctx, query }) => listed(await service.list(ctx, query as MasterQuery), 'LIST_OK', `${plural} retrieved`), {
        auth: view,
        query: listQuerySchema,
        response: responses({ 200: ListEnvelope(entitySchema) }),
        detail: { summary: `List ${plural} (${platformName})` },
      })
      .get('/:id', async ({ ctx, params }) => ok(await service.get(ctx, params.id)), {
        auth: view,
        params: IdParams,
        response: responses({ 200: Envelope(entitySchema) }, [400, 401, 403, 404]),
        detail: { summary: `Get a ${def.label} (${platformName})` },
      })

  const office = readRoutes('/office/v1', 'web')
    .post('', async ({ ctx, body }) => created(await service.create(ctx, body as never), `${def.entity}_CREATED`, `${def.label} created`), {
      auth: manage,
      body: createBody,
      response: responses({ 201: Envelope(entitySchema) }, [400, 401, 403, 409, 422]),
      detail: { summary: `Create a ${def.label}` },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await service.update(ctx, params.id, body as never), `${def.entity}_UPDATED`, `${def.label} updated`), {
      auth: manage,
      params: IdParams,
      body: updateBody,
      response: responses({ 200: Envelope(entitySchema) }, [400, 401, 403, 404, 409, 422]),
      detail: { summary: `Update a ${def.label}` },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await service.remove(ctx, params.id), `${def.entity}_DELETED`, `${def.label} deleted`), {
      auth: manage,
      params: IdParams,
      response: responses({ 200: Envelope(entitySchema) }, [401, 403, 404, 409, 422]),
      detail: { summary: `Delete a ${def.label} (soft)` },
    })

  return new Elysia().use(office).use(readRoutes('/app/v1', 'mobile'))
}
