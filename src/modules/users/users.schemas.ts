import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, NullableTimestamp, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'
import { Email, Password } from '../../platform/http/schema'

export const UserSchema = named(
  'User',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    phone: Nullable(Type.String()),
    role_id: Type.Integer(),
    role: Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String() }),
    is_active: Type.Boolean(),
    team_ids: Type.Array(Type.Integer()),
    last_login_at: NullableTimestamp(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

export const DeletedUserSchema = named('DeletedUser', Type.Object({ ...UserSchema.properties, deleted_at: NullableTimestamp() }))

export const UserQuery = listQuery(
  {
    role_id: QueryId(),
    is_active: t.Optional(t.Boolean()),
    team_id: QueryId(),
  },
  ['created_at', 'updated_at', 'name', 'id', 'email'],
)
export type UserListQuery = Static<typeof UserQuery>

const Phone = OptionalText(32, { multiline: false, description: 'Phone number' })
const TeamIds = Type.Array(Id(), { maxItems: 100, description: 'Teams of the user (replaces the list on update)' })

export const CreateUserBody = Type.Object({
  name: RequiredText(255),
  email: Email,
  password: Password,
  role_id: Id(),
  phone: Phone,
  team_ids: Type.Optional(TeamIds),
})
export type CreateUserInput = Static<typeof CreateUserBody>

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(RequiredText(255)),
    email: Type.Optional(Email),
    password: Type.Optional(Password),
    role_id: Type.Optional(Id()),
    phone: Phone,
    is_active: Type.Optional(Type.Boolean()),
    team_ids: Type.Optional(TeamIds),
  },
  { minProperties: 1 },
)
export type UpdateUserInput = Static<typeof UpdateUserBody>
