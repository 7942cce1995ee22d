/**
 * Tenant isolation in one place. A workspace-owned table is reached through `workspaceScoped(table)`,
 * whose every query carries `workspace_id = ?` (and `deleted_at IS NULL` for soft-deleting tables).
 * Another workspace's id therefore behaves exactly like a missing one, and inserts take
 * `workspace_id` from the caller's context, never from a body.
 */
import { and, count, eq, getTableName, isNull, ne, type Placeholder, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'

type WorkspaceTable = SQLiteTable & {
  id: SQLiteColumn
  workspace_id: SQLiteColumn
  deleted_at?: SQLiteColumn
  $inferSelect: { id: number; workspace_id: number }
  $inferInsert: { workspace_id: number }
}

export type Row<T extends WorkspaceTable> = T['$inferSelect']
export type NewRow<T extends WorkspaceTable> = Omit<T['$inferInsert'], 'workspace_id' | 'id'>

export interface WorkspaceScoped<T extends WorkspaceTable> {
  readonly table: T
  /** `workspace_id = ? [AND deleted_at IS NULL] [AND ...conditions]`; a placeholder for prepared statements. */
  where(workspaceId: number | Placeholder, ...conditions: (SQL | undefined)[]): SQL
  find(db: Db, workspaceId: number, id: number): Promise<Row<T> | undefined>
  count(db: Db, workspaceId: number, ...conditions: (SQL | undefined)[]): Promise<number>
  /** Whether a live row other than `exceptId` already has `value` in `column` (uniqueness checks). */
  isTaken(db: Db, workspaceId: number, column: SQLiteColumn, value: unknown, exceptId?: number): Promise<boolean>
  insert(tx: Db, workspaceId: number, values: NewRow<T>): Promise<Row<T>>
  update(tx: Db, workspaceId: number, id: number, values: Partial<NewRow<T>>): Promise<Row<T> | undefined>
  /** Sets `deleted_at`; returns the row as deleted. */
  softDelete(tx: Db, workspaceId: number, id: number, at: string): Promise<Row<T> | undefined>
}

export function workspaceScoped<T extends WorkspaceTable>(table: T): WorkspaceScoped<T> {
  // Drizzle's generic table types do not survive this level of abstraction: queries see a plain
  // table and untyped values; the public surface is typed.
  const plain: SQLiteTable = table
  const live = table.deleted_at ? isNull(table.deleted_at) : undefined
  const where = (workspaceId: number | Placeholder, ...conditions: (SQL | undefined)[]) => and(eq(table.workspace_id, workspaceId), live, ...conditions)!

  return {
    table,
    where,
    async find(db, workspaceId, id) {
      const [row] = await db
        .select()
        .from(plain)
        .where(where(workspaceId, eq(table.id, id)))
        .limit(1)
      return row as Row<T> | undefined
    },
    async count(db, workspaceId, ...conditions) {
      const [row] = await db
        .select({ n: count() })
        .from(plain)
        .where(where(workspaceId, ...conditions))
      return row?.n ?? 0
    },
    async isTaken(db, workspaceId, column, value, exceptId) {
      const [row] = await db
        .select({ id: table.id })
        .from(plain)
        .where(where(workspaceId, eq(column, value), exceptId === undefined ? undefined : ne(table.id, exceptId)))
        .limit(1)
      return row !== undefined
    },
    async insert(tx, workspaceId, values) {
      const [row] = (await tx
        .insert(plain)
        .values({ ...values, workspace_id: workspaceId } as never)
        .returning()) as unknown[]
      return row as Row<T>
    },
    async update(tx, workspaceId, id, values) {
      const [row] = (await tx
        .update(plain)
        .set({ ...values, workspace_id: undefined, id: undefined } as never)
        .where(where(workspaceId, eq(table.id, id)))
        .returning()) as unknown[]
      return row as Row<T> | undefined
    },
    async softDelete(tx, workspaceId, id, at) {
      if (!table.deleted_at) throw new Error(`${getTableName(table)} has no deleted_at`)
      const [row] = (await tx
        .update(plain)
        .set({ deleted_at: at, updated_at: at } as never)
        .where(where(workspaceId, eq(table.id, id)))
        .returning()) as unknown[]
      return row as Row<T> | undefined
    },
  }
}
