/**
 * The statements of one master-data entity, built from its declaration: the answered row (public
 * columns plus the nested parent, one query), and the list, detail and by-ids reads as prepared
 * statements (lists are the hottest reads of the office client).
 */
import { eq, getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { defineList } from '../../platform/data/list'
import { type DEFAULT_SORTABLE, MASTER_DATA_LIST } from '../../platform/data/pagination'
import type { WorkspaceScoped } from '../../platform/data/scope'
import { searchIndex } from '../../platform/data/search'
import type { MasterDataDefinition, MasterTable, Presented } from './master-data.types'

const PARENT_PREFIX = '__parent_'

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

  const sortColumns: Record<(typeof DEFAULT_SORTABLE)[number], SQLiteColumn> = {
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

  /**
   * The list, prepared per shape (platform/data/list.ts). Its shapes are bounded: 4 sorts × 2 directions ×
   * 4 ways to find a keyword × parent filter or not × updated_since or not, all kept.
   */
  const list = defineList({
    scope: def.scope as WorkspaceScoped<MasterTable>,
    select: (db: Db, where: SQL) => selectPresented(db, where),
    search: { columns: [table.name_key], index: search },
    filters: (def.parent && linkColumn ? { [def.parent.field]: (id: number) => eq(linkColumn, id) } : {}) as Record<string, (id: number) => SQL>,
    sort: sortColumns,
    limits: MASTER_DATA_LIST,
    prepared: { max: 128 },
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
    /** One page of the list (its rows as selected: `present` answers them). */
    list,
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
