/**
 * The statements of one master-data entity, built from its declaration: the answered row (public
 * columns plus the nested parent, one query), and the list, detail and by-ids reads as prepared
 * statements (lists are the hottest reads of the office client).
 */
import { and, asc, count, desc, eq, getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { prepared, preparedVariants } from '../../db/prepared'
import { type DEFAULT_SORTABLE, updatedSinceAt } from '../../platform/data/pagination'
import { matchesIndex, searchIndex, type KeywordMethod } from '../../platform/data/search'
import type { MasterDataDefinition, MasterTable, Presented } from './master-data.types'

const PARENT_PREFIX = '__parent_'

/** A list statement's shape: sort, direction, how the page and the total find the keyword, which filters. */
export interface ListShape {
  sortBy: (typeof DEFAULT_SORTABLE)[number]
  sortOrder: 'asc' | 'desc'
  rows: KeywordMethod | 'none'
  total: KeywordMethod | 'none'
  parent: boolean
  updatedSince: boolean
}

const shapeKey = (shape: ListShape) => `${shape.sortBy}:${shape.sortOrder}:${shape.rows}:${shape.total}:${shape.parent ? 1 : 0}:${shape.updatedSince ? 1 : 0}`

/** The values every list statement binds. */
export type ListValues = {
  workspaceId: number
  keyword: string | null
  phrase: string | null
  parentId: number | undefined
  updatedSince: string | null
  limit: number
  offset: number
}

export function masterDataQueries<T extends MasterTable, C extends MasterTable>(def: MasterDataDefinition<T, C>) {
  const table: MasterTable = def.scope.table
  // The drizzle view of the table as a plain SQLite table: its columns by name.
  const plain: SQLiteTable = table
  const { name_key: _hidden, ...publicColumns } = getTableColumns(plain)
  const parentTable: SQLiteTable | undefined = def.parent?.scope.table
  const parentColumns = parentTable ? getTableColumns(parentTable) : undefined
  const linkColumn: SQLiteColumn | undefined = def.parent ? publicColumns[def.parent.field] : undefined

  const selection: Record<string, SQLiteColumn> = { ...publicColumns }
  if (def.parent && parentColumns) {
    for (const column of def.parent.nestedColumns) selection[`${PARENT_PREFIX}${column}`] = parentColumns[column]
  }

  const sortColumns: Record<string, SQLiteColumn> = {
    created_at: table.created_at,
    updated_at: table.updated_at,
    name: table.name_key,
    id: table.id,
  }

  /** Rows with their nested parent object, in one query. */
  function selectPresented(db: Db, where: SQL) {
    const query = db.select(selection).from(plain)
    const joined = parentTable && parentColumns && linkColumn ? query.leftJoin(parentTable, eq(parentColumns.id, linkColumn)) : query
    return joined.where(where)
  }

  /** A selected row as answered: the parent's columns gathered into their nested object. */
  function present(row: Record<string, unknown>): Presented {
    const result: Record<string, unknown> = {}
    const nested: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith(PARENT_PREFIX)) nested[key.slice(PARENT_PREFIX.length)] = value
      else result[key] = value
    }
    if (def.parent) result[def.parent.nestedAs] = nested.id == null ? null : nested
    // The selection is the table's public columns (MasterRow without name_key) plus the parent's.
    return result as Presented
  }

  const search = searchIndex(`${getTableName(plain)}_search`, table.id)

  /** List and count, one prepared pair per shape (platform/data/search.ts: none, scan or index for the keyword). */
  const listStatements = preparedVariants((db: Db, key: string) => {
    const [sortBy, order, rowsKeyword, totalKeyword, withParent, withUpdatedSince] = key.split(':')
    const scan = sql`instr(${table.name_key}, ${sql.placeholder('keyword')}) > 0`
    const keyword = (method: string) => (method === 'scan' ? scan : method === 'index' ? and(matchesIndex(search, sql.placeholder('phrase')), scan) : undefined)
    const where = (method: string) =>
      def.scope.where(
        sql.placeholder('workspaceId'),
        keyword(method),
        withParent === '1' && linkColumn ? eq(linkColumn, sql.placeholder('parentId')) : undefined,
        withUpdatedSince === '1' ? updatedSinceAt(sql.placeholder('updatedSince'), table.updated_at) : undefined,
      )
    const direction = order === 'asc' ? asc : desc
    return {
      rows: selectPresented(db, where(rowsKeyword))
        .orderBy(direction(sortColumns[sortBy]), direction(table.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
      total: db.select({ total: count() }).from(plain).where(where(totalKeyword)).prepare(),
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
    table,
    search,
    present,
    /** The page and total statements of a list's shape (prepared once per connection). */
    listStatements: (db: Db, shape: ListShape) => listStatements(db, shapeKey(shape)),
    async find(db: Db, workspaceId: number, id: number): Promise<Presented | undefined> {
      const [row] = await findStatement(db).all({ workspaceId, id })
      return row && present(row)
    },
    async byIds(db: Db, workspaceId: number, ids: number[]): Promise<Presented[]> {
      return (await byIdsStatement(db).all({ workspaceId, ids: JSON.stringify(ids) })).map(present)
    },
    /** The row as answered even when soft-deleted (the answer of a delete). */
    async findAny(db: Db, workspaceId: number, id: number): Promise<Presented> {
      const [row] = await selectPresented(db, def.scope.whereIncludingDeleted(workspaceId, eq(table.id, id))).limit(1)
      return present(row)
    },
  }
}
