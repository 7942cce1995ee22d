import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { PROJECT_STATUSES } from '../../db/schema'
import { DateString } from '../../lib/dates'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, NullableTimestamp, OneOf, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'

export const ProjectSchema = named(
  'Project',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
    code: Nullable(Type.String()),
    principal_id: Nullable(Type.Integer()),
    start_date: Nullable(Type.String()),
    end_date: Nullable(Type.String()),
    status: Type.String(),
    forms: Type.Array(Type.Object({ form_id: Type.Integer(), title: Type.String(), is_required: Type.Boolean(), order: Type.Integer() })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)

export const ProjectQuery = listQuery(
  {
    status: t.Optional(OneOf(PROJECT_STATUSES)),
    principal_id: QueryId(),
  },
  ['created_at', 'updated_at', 'name', 'id', 'start_date'],
)
export type ProjectListQuery = Static<typeof ProjectQuery>

const ProjectFormBody = Type.Object({ form_id: Id(), is_required: Type.Boolean(), order: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })) })
export type ProjectFormInput = Static<typeof ProjectFormBody>

const fields = {
  name: RequiredText(255),
  code: OptionalText(64, { multiline: false, description: 'Unique per workspace (case-insensitive)' }),
  principal_id: Type.Optional(Nullable(Id())),
  start_date: Type.Optional(Nullable(DateString())),
  end_date: Type.Optional(Nullable(DateString({ description: 'Not before start_date' }))),
  status: Type.Optional(OneOf(PROJECT_STATUSES, { description: 'Default active' })),
  forms: Type.Optional(
    Type.Array(ProjectFormBody, {
      maxItems: 100,
      description: 'Forms filled on this project’s visits (replaces the list on update)',
    }),
  ),
}

export const ProjectBody = Type.Object(fields)
export type ProjectInput = Static<typeof ProjectBody>

export const ProjectUpdateBody = Type.Object({ ...fields, name: Type.Optional(fields.name) }, { minProperties: 1 })
export type ProjectUpdateInput = Static<typeof ProjectUpdateBody>
