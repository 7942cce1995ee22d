import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { listQuery } from '../../platform/data/pagination'
import { Id, NullableTimestamp, named, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'
import type { MasterDataDefinition, MasterTable } from './master-data.types'

/** Response schema of one entity (with its nested parent). */
export function masterDataSchema<T extends MasterTable, C extends MasterTable>(def: MasterDataDefinition<T, C>, nested?: TSchema): TSchema {
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
  // CHANNEL_GROUP → ChannelGroup: the OpenAPI component's name.
  const name = def.entity.toLowerCase().replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase())
  return named(name, Type.Object(properties))
}

const BaseListQuery = listQuery({})
/** The list's query; an entity with a parent also filters by it, under the link field (`?channel_group_id=`). */
export type MasterListQuery = Static<typeof BaseListQuery>

export function masterDataQuery<T extends MasterTable, C extends MasterTable>(def: MasterDataDefinition<T, C>) {
  return listQuery(def.parent ? { [def.parent.field]: QueryId(`Only children of this ${def.parent.entity.toLowerCase()}`) } : {})
}

const Name = RequiredText(255, { description: 'Max 255 characters' })

/**
 * Create and update bodies: `name`, plus the parent's id under the link field for an entity with a
 * parent. The link is typed `object` so the bodies' types are `{ name }`: a key known only at run
 * time has no static type, and the service reads it by name (`def.parent.field`).
 */
export function masterDataBodies<T extends MasterTable, C extends MasterTable>(def: MasterDataDefinition<T, C>) {
  const link = def.parent ? Id({ description: `A live ${def.parent.entity.toLowerCase()} of your workspace` }) : undefined
  const createLink: object = def.parent && link ? { [def.parent.field]: link } : {}
  const updateLink: object = def.parent && link ? { [def.parent.field]: Type.Optional(link) } : {}
  return {
    create: Type.Object({ name: Name, ...createLink }),
    update: Type.Object({ name: Type.Optional(Name), ...updateLink }, { minProperties: 1 }),
  }
}
export type MasterCreate = Static<ReturnType<typeof masterDataBodies>['create']>
export type MasterUpdate = Static<ReturnType<typeof masterDataBodies>['update']>
