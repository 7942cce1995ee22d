import { type Static, Type } from '@sinclair/typebox'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, NullableTimestamp, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'

const Person = Type.Object({ id: Type.Integer(), name: Type.String() })

export const TeamSchema = named(
  'Team',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    leader_id: Nullable(Type.Integer()),
    leader: Nullable(Person),
    members: Type.Array(Type.Object({ user_id: Type.Integer(), name: Type.String() })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)

export const TeamQuery = listQuery({
  leader_id: QueryId(),
  user_id: QueryId('Teams this user belongs to'),
})
export type TeamListQuery = Static<typeof TeamQuery>

const fields = {
  name: RequiredText(255),
  description: OptionalText(2000),
  leader_id: Type.Optional(Nullable(Id())),
  user_ids: Type.Optional(Type.Array(Id(), { maxItems: 1000, description: 'Members (replaces the list on update)' })),
}

export const TeamBody = Type.Object(fields)
export type TeamInput = Static<typeof TeamBody>

export const TeamUpdateBody = Type.Object({ ...fields, name: Type.Optional(fields.name) }, { minProperties: 1 })
export type TeamUpdateInput = Static<typeof TeamUpdateBody>
