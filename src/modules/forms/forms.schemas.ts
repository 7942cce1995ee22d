import { type Static, Type } from '@sinclair/typebox'
import { FORM_FIELD_TYPES } from '../../db/schema'
import { listQuery } from '../../platform/data/pagination'
import { named, NullableTimestamp, OneOf, OptionalText, RequiredText, Timestamp } from '../../platform/http/schema'

export const FormFieldInput = Type.Object({
  key: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$', description: 'Answer key: lower snake case, unique in the form' }),
  label: RequiredText(255),
  type: OneOf(FORM_FIELD_TYPES),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(RequiredText(255), { minItems: 1, maxItems: 200, description: 'select and multiselect only' })),
  min: Type.Optional(Type.Number({ description: 'Lower bound: value, length or number of options' })),
  max: Type.Optional(Type.Number({ description: 'Upper bound: value, length or number of options' })),
})
export type FormFieldInput = Static<typeof FormFieldInput>

export const FormSchema = named(
  'Form',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    fields: Type.Array(
      Type.Object({
        key: Type.String(),
        label: Type.String(),
        type: Type.String(),
        required: Type.Boolean(),
        options: Type.Optional(Type.Array(Type.String())),
        min: Type.Optional(Type.Number()),
        max: Type.Optional(Type.Number()),
      }),
    ),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)

const fields = {
  title: RequiredText(255),
  description: OptionalText(2000),
  fields: Type.Array(FormFieldInput, { minItems: 1, maxItems: 200 }),
}

export const FormInput = Type.Object(fields)
export type FormInput = Static<typeof FormInput>

export const FormUpdate = Type.Object(
  { title: Type.Optional(fields.title), description: fields.description, fields: Type.Optional(fields.fields) },
  { minProperties: 1 },
)
export type FormUpdate = Static<typeof FormUpdate>

export const FormQuery = listQuery({}, ['created_at', 'updated_at', 'title', 'id'])
export type FormQuery = Static<typeof FormQuery>
