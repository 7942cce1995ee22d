/**
 * Tenant isolation in one place. A workspace-owned table is reached through `workspaceScoped(table)`,
 * whose every query carries `workspace_id = ?` (and `deleted_at IS NULL` for soft-deleting tables).
 * Another workspace's id therefore behaves exactly like a missing one, and inserts take
 * `workspace_id` from the caller's context, never from a body.
 *
 * Invariant: no file outside this one writes a `workspace_id` condition by hand (tests/tenant-scope.test.ts
 * scans src/ for one). A query that needs the workspace condition asks its table's scope for it:
 * - `where(ws, ...)`: live rows of the workspace, in a WHERE or in a join's ON; `ws` is an id, a
 *   placeholder (prepared statements) or a column (rows of the same workspace as another table's row);
 * - `whereIncludingDeleted(ws, ...)`: the same, soft-deleted rows included (history, restores, sweeps);
 * - `as(alias)`: the same scope on an alias, for hand-written SQL that names the table `v`, `p`, ...;
 * - `findManyBy(db, ws, column, values)`: live rows whose `column` is one of `values` (reference lookups).
 * A query that must read several workspaces at once goes through `acrossWorkspaces(table, why)`, the
 * only door out, whose `why` names the reason at the call site.
 */
import { and, count, eq, getTableColumns, getTableName, inArray, isNull, ne, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import { alias, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { insertPlaceholders, prepared, preparedShapes, setPlaceholders } from '../../db/prepared'

/** A table owned by a workspace; `id` and `deleted_at` where it has them. */
type WorkspaceTable = SQLiteTable & {
  id?: SQLiteColumn
  workspace_id: SQLiteColumn
  deleted_at?: SQLiteColumn
  $inferSelect: { workspace_id: number }
  $inferInsert: { workspace_id?: number }
}

/** Which workspace: an id, a prepared statement's placeholder, or a column of a joined row. */
export type WorkspaceRef = number | Placeholder | AnyColumn

export type Row<T extends WorkspaceTable> = T['$inferSelect']
export type NewRow<T extends WorkspaceTable> = Omit<T['$inferInsert'], 'workspace_id' | 'id'>

export interface WorkspaceScoped<T extends WorkspaceTable> {
  readonly table: T
  /** `workspace_id = ? [AND deleted_at IS NULL] [AND ...conditions]`; a placeholder for prepared statements. */
  where(workspace: WorkspaceRef, ...conditions: (SQL | undefined)[]): SQL
  /** `workspace_id = ? [AND ...conditions]`, soft-deleted rows included: history, restores, sweeps, retention. */
  whereIncludingDeleted(workspace: WorkspaceRef, ...conditions: (SQL | undefined)[]): SQL
  /**
   * `+workspace_id = ?`: live rows of the workspace, with the unary `+` that keeps SQLite from picking an
   * index that starts with `workspace_id` (for a query that must drive by another index, e.g. a rowid range).
   */
  whereUnindexed(workspace: WorkspaceRef, ...conditions: (SQL | undefined)[]): SQL
  /** The same scope over `table AS alias`, for SQL written with a short name (`from visits v`). */
  as(alias: string): WorkspaceScoped<T>
  /**
   * `where`'s condition as SQL text with one `?` for the workspace, for a statement kept as text and run
   * with positional parameters (a hot path's read): the workspace is bound where the text puts it.
   */
  text(): string
  /** `text()` with soft-deleted rows included (history: a report over what was done with a product deleted since). */
  textIncludingDeleted(): string
  /** Live rows of the workspace whose `column` is one of `values` (none for no values): reference lookups by id or key. */
  findManyBy(db: Db, workspaceId: WorkspaceRef, column: SQLiteColumn, values: readonly unknown[]): Promise<Row<T>[]>
  find(db: Db, workspaceId: number, id: number): Promise<Row<T> | undefined>
  count(db: Db, workspaceId: number, ...conditions: (SQL | undefined)[]): Promise<number>
  /** Whether a live row other than `exceptId` already has `value` in `column` (uniqueness checks). */
  isTaken(db: Db, workspaceId: number, column: SQLiteColumn, value: unknown, exceptId?: number): Promise<boolean>
  insert(tx: Db, workspaceId: number, values: NewRow<T>): Promise<Row<T>>
  update(tx: Db, workspaceId: number, id: number, values: Partial<NewRow<T>>): Promise<Row<T> | undefined>
  /** Sets `deleted_at`; returns the row as deleted. */
  softDelete(tx: Db, workspaceId: number, id: number, at: string): Promise<Row<T> | undefined>
}

/**
 * Column sets a scope keeps a prepared insert and update for, per connection: a caller's writes set a
 * fixed set of columns, a partial update as many as its body has; past this the oldest goes (a
 * statement of a table with triggers holds ~90 KiB: docs/PERFORMANCE.md "Statements compiled once").
 */
const SHAPES_PER_SCOPE = 8

export function workspaceScoped<T extends WorkspaceTable>(table: T, aliasName?: string): WorkspaceScoped<T> {
  // Drizzle's generic table types do not survive this level of abstraction: queries see a plain
  // table and untyped values; the public surface is typed.
  const plain: SQLiteTable = table
  const live = table.deleted_at ? isNull(table.deleted_at) : undefined
  const where = (workspace: WorkspaceRef, ...conditions: (SQL | undefined)[]) => and(eq(table.workspace_id, workspace), live, ...conditions)!
  const idOf = () => {
    if (!table.id) throw new Error(`${getTableName(table)} has no id`)
    return table.id
  }
  // The single-row statements below are prepared once per connection, and per set of columns for the
  // writes (a create sets the columns its body has): building a Drizzle query cost more than running
  // it (docs/PERFORMANCE.md "Statements compiled once"). Placeholders bind through each column's encoder,
  // as values do. Only columns of the table are named; `workspace_id` and `id` are never set from values.
  const columns = getTableColumns(plain)
  const WORKSPACE = sql.placeholder('workspaceId')
  const ID = sql.placeholder('id')
  const byId = () => where(WORKSPACE, eq(idOf(), ID))
  const findOne = prepared((db) => db.select().from(plain).where(byId()).limit(1).prepare())
  /** The columns of `values` a write sets (defined, of this table, never the workspace or the id), in a fixed order. */
  const setColumns = (values: object) =>
    Object.keys(values)
      .filter((key) => key !== 'workspace_id' && key !== 'id' && Object.hasOwn(columns, key) && (values as Record<string, unknown>)[key] !== undefined)
      .sort()
  // Keyed by the sorted column names (preparedShapes: the list is its key as JSON).
  const insertOne = preparedShapes(
    (db, keys: string[]) =>
      db
        .insert(plain)
        .values(insertPlaceholders(plain, ['workspace_id', ...keys]))
        .returning()
        .prepare(),
    { max: SHAPES_PER_SCOPE },
  )
  const updateOne = preparedShapes((db, keys: string[]) => db.update(plain).set(setPlaceholders(plain, keys)).where(byId()).returning().prepare(), {
    max: SHAPES_PER_SCOPE,
  })
  const find = async (db: Db, workspaceId: number, id: number) => {
    const [row] = await findOne(db).all({ workspaceId, id })
    return row as Row<T> | undefined
  }

  return {
    table,
    where,
    whereIncludingDeleted: (workspace, ...conditions) => and(eq(table.workspace_id, workspace), ...conditions)!,
    whereUnindexed: (workspace, ...conditions) => and(sql`+${table.workspace_id} = ${workspace}`, live, ...conditions)!,
    as: (name) => workspaceScoped(alias(table, name) as unknown as T, name),
    text() {
      const name = aliasName ?? getTableName(table)
      return `"${name}"."workspace_id" = ?${table.deleted_at ? ` and "${name}"."deleted_at" is null` : ''}`
    },
    textIncludingDeleted: () => `"${aliasName ?? getTableName(table)}"."workspace_id" = ?`,
    async findManyBy(db, workspaceId, column, values) {
      if (values.length === 0) return []
      return (await db
        .select()
        .from(plain)
        .where(where(workspaceId, inArray(column, values as unknown[])))) as Row<T>[]
    },
    find,
    async count(db, workspaceId, ...conditions) {
      const [row] = await db
        .select({ n: count() })
        .from(plain)
        .where(where(workspaceId, ...conditions))
      return row?.n ?? 0
    },
    async isTaken(db, workspaceId, column, value, exceptId) {
      const [row] = await db
        .select({ id: idOf() })
        .from(plain)
        .where(where(workspaceId, eq(column, value), exceptId === undefined ? undefined : ne(idOf(), exceptId)))
        .limit(1)
      return row !== undefined
    },
    async insert(tx, workspaceId, values) {
      const keys = setColumns(values)
      // Only the placeholders' names are read: the caller's workspace wins over any in the values.
      const [row] = (await insertOne(tx, keys).all({ ...values, workspace_id: workspaceId })) as unknown[]
      return row as Row<T>
    },
    async update(tx, workspaceId, id, values) {
      const keys = setColumns(values)
      // Nothing to set: the row as it is (Drizzle refuses an empty SET).
      if (keys.length === 0) return find(tx, workspaceId, id)
      const [row] = (await updateOne(tx, keys).all({ ...values, workspaceId, id })) as unknown[]
      return row as Row<T> | undefined
    },
    async softDelete(tx, workspaceId, id, at) {
      if (!table.deleted_at) throw new Error(`${getTableName(table)} has no deleted_at`)
      const [row] = (await tx
        .update(plain)
        .set({ deleted_at: at, updated_at: at } as never)
        .where(where(workspaceId, eq(idOf(), id)))
        .returning()) as unknown[]
      return row as Row<T> | undefined
    },
  }
}

/**
 * The one door out of a single workspace, for the few reads that are cross-workspace by design: the
 * super_admin's audit list over every workspace they may audit, a user's own list of workspaces (and
 * the actor lookup that joins a membership to its workspace), jobs that sweep every workspace, the
 * change log. `why` says which at the call site, so `grep acrossWorkspaces` lists every exception.
 */
export function acrossWorkspaces<T extends { workspace_id: SQLiteColumn }>(table: T, why: string) {
  void why
  return {
    /** Rows in any of these workspaces. */
    in: (workspaceIds: (number | Placeholder)[]): SQL => inArray(table.workspace_id, workspaceIds),
    /** Rows of the workspace named by `column` (a join to `workspaces.id`). */
    of: (column: AnyColumn): SQL => eq(table.workspace_id, column),
  }
}
