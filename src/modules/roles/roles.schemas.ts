import { type Static, Type } from '@sinclair/typebox'
import { listQuery } from '../../platform/data/pagination'
import { named, NullableTimestamp, RequiredText, Timestamp } from '../../platform/http/schema'

const GrantSchema = Type.Object({
  key: Type.String({ maxLength: 100, examples: ['channel_group.manage'] }),
  platform: Type.Union([Type.Literal('web'), Type.Literal('mobile')]),
  access: Type.Union([Type.Literal('full'), Type.Literal('view')]),
})

export const RoleSchema = named(
  'Role',
  Type.Object({
    id: Type.Integer(),
    slug: Type.String(),
    name: Type.String(),
    is_builtin: Type.Boolean(),
    permissions: Type.Array(GrantSchema),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

export const DeletedRoleSchema = named('DeletedRole', Type.Object({ ...RoleSchema.properties, deleted_at: NullableTimestamp() }))

export const PermissionSchema = named('Permission', Type.Object({ key: Type.String(), group: Type.String(), description: Type.String() }))

export const RoleQuery = listQuery({})
export type RoleListQuery = Static<typeof RoleQuery>

export const PermissionQuery = listQuery({}, ['key', 'group'])
export type PermissionListQuery = Static<typeof PermissionQuery>

const Grants = Type.Array(GrantSchema, { maxItems: 200 })

export const RoleBody = Type.Object({ name: RequiredText(100), permissions: Grants })
export type RoleInput = Static<typeof RoleBody>

export const RoleUpdateBody = Type.Object({ name: Type.Optional(RequiredText(100)), permissions: Type.Optional(Grants) }, { minProperties: 1 })
export type RoleUpdateInput = Static<typeof RoleUpdateBody>
