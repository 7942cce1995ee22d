/**
 * What a master-data entity is declared with (./master-data.entities.ts): its table, its parent and
 * its children, typed against the tables' own columns so a misspelt link field does not compile.
 */
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { AuditEntityType } from '../../platform/data/audit'
import type { Entity, ErrorCode, UniqueEntity } from '../../lib/errors'
import type { WorkspaceScoped } from '../../platform/data/scope'

/** The columns every master-data table has (src/db/schema/master-data.ts). */
export interface MasterRow {
  id: number
  workspace_id: number
  name: string
  name_key: string
  created_at: string
  updated_at: string
  deleted_at: string | null
}

export type MasterTable = SQLiteTable & { [K in keyof MasterRow]: SQLiteColumn } & {
  $inferSelect: MasterRow
  $inferInsert: { workspace_id: number; name: string; name_key: string }
}

/** A table's columns beyond the common ones: where a link to a parent lives (`channel_group_id`). */
export type LinkField<T extends MasterTable> = Exclude<keyof T['$inferSelect'] & keyof T & string, keyof MasterRow>

export interface ParentLink<T extends MasterTable> {
  /** Column on this entity holding the parent id, also the list filter and body field. */
  field: LinkField<T>
  /** Error code prefix of the parent (`CHANNEL_GROUP`). */
  entity: Entity
  scope: WorkspaceScoped<MasterTable>
  /** Key of the nested parent object in answers. */
  nestedAs: string
  /** Parent columns shown in the nested object. */
  nestedColumns: readonly Exclude<keyof MasterRow, 'name_key'>[]
}

export interface ChildGuard<C extends MasterTable> {
  scope: WorkspaceScoped<C>
  /** Column on the child pointing at this entity. */
  field: LinkField<C>
  code: ErrorCode
  countKey: string
  message: string
}

export interface MasterDataDefinition<T extends MasterTable = MasterTable, C extends MasterTable = MasterTable> {
  /** Error/success code prefix: `CHANNEL_GROUP`. */
  entity: UniqueEntity
  /** Human name: `channel group`. */
  label: string
  auditType: AuditEntityType
  /** Path segment under /outlets: `channel-groups`. */
  segment: string
  /** Permission prefix: `channel_group` → `.view` / `.manage`. */
  permission: string
  scope: WorkspaceScoped<T>
  uniqueName: boolean
  parent?: ParentLink<T>
  children?: ChildGuard<C>
}

/** Declares an entity, checking its link fields against its own and its children's tables. */
export const defineMasterData = <T extends MasterTable, C extends MasterTable = MasterTable>(def: MasterDataDefinition<T, C>) => def

/** An entity's row as answered: its public columns, and the nested parent object for an entity with a parent. */
export type Presented = Omit<MasterRow, 'name_key'> & Record<string, unknown>
