import { type Static, Type } from '@sinclair/typebox'
import { FORM_FIELD_TYPES } from '../../db/schema'
import { listQuery } from '../../platform/data/pagination'
import { named, NullableTimestamp, OneOf, OptionalText, RequiredText, Timestamp } from '../../platform/http/schema'

const ConditionScalar = Type.Union([Type.String({ maxLength: 255 }), Type.Number(), Type.Boolean()])

/**
 * Skip logic of a field (docs/API.md "Skip logic"): shown only when the earlier field `field`
 * satisfies `op` against `value`. One schema for the request and the answer (one named component).
 */
export const FieldCondition = named(
  'FormFieldCondition',
  Type.Object({
    field: Type.String({ maxLength: 64, description: 'Key of an earlier field of the form' }),
    // CONDITION_OPS spelled as a tuple (not OneOf's list) so the answer's static type keeps the literals.
    op: Type.Union(
      [
        Type.Literal('eq'),
        Type.Literal('ne'),
        Type.Literal('in'),
        Type.Literal('gt'),
        Type.Literal('gte'),
        Type.Literal('lt'),
        Type.Literal('lte'),
        Type.Literal('answered'),
      ],
      { description: 'eq, ne, in (value is a list), gt, gte, lt, lte (ordered types), answered (ignores value)' },
    ),
    value: Type.Optional(
      Type.Union([ConditionScalar, Type.Array(ConditionScalar, { maxItems: 200 })], {
        description: "A value of the controlling field's type; a list for `in`; absent for `answered`",
      }),
    ),
  }),
)

/** Which products are a matrix's rows (docs/API.md "Product matrix"). */
export const MatrixProductsSchema = named(
  'ProductMatrixProducts',
  Type.Union(
    [
      Type.Object({ principal_id: Type.Integer({ minimum: 1, description: 'Every live product of this principal' }) }, { additionalProperties: false }),
      Type.Object(
        { product_ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 500, description: 'These products (the live ones)' }) },
        { additionalProperties: false },
      ),
    ],
    { description: 'The rows: `{principal_id}` or `{product_ids}`; products of this workspace, live when the visit is checked in' },
  ),
)

/** One column of a product matrix. */
export const MatrixColumnSchema = named(
  'ProductMatrixColumn',
  Type.Object({
    key: Type.String({
      pattern: '^[a-z][a-z0-9_]{0,63}$',
      description: 'Cell key, unique in the matrix; well-known: available, facings, shelf_price, stock_qty, order_qty',
    }),
    label: RequiredText(255),
    type: Type.Union([Type.Literal('checkbox'), Type.Literal('integer'), Type.Literal('number'), Type.Literal('select')]),
    required: Type.Optional(Type.Boolean({ description: 'A row is answered when each required column has a value' })),
    min: Type.Optional(Type.Number({ description: 'integer and number columns: lowest value' })),
    max: Type.Optional(Type.Number({ description: 'integer and number columns: highest value' })),
    options: Type.Optional(Type.Array(RequiredText(255), { minItems: 1, maxItems: 200, description: 'select columns only (and required there)' })),
  }),
)

/** A product as frozen on a submission (its id, sku and name at check-in). */
export const FrozenRowSchema = named('ProductMatrixRow', Type.Object({ product_id: Type.Integer(), sku: Type.String(), name: Type.String() }))

export const FormFieldInput = Type.Object({
  key: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$', description: 'Answer key: lower snake case, unique in the form' }),
  label: RequiredText(255),
  type: OneOf(FORM_FIELD_TYPES),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(RequiredText(255), { minItems: 1, maxItems: 200, description: 'select and multiselect only' })),
  min: Type.Optional(Type.Number({ description: 'Lower bound: value, length or number of options' })),
  max: Type.Optional(Type.Number({ description: 'Upper bound: value, length or number of options' })),
  visible_if: Type.Optional(FieldCondition),
  products: Type.Optional(MatrixProductsSchema),
  columns: Type.Optional(Type.Array(MatrixColumnSchema, { minItems: 1, maxItems: 10, description: 'product_matrix only: 1 to 10 columns' })),
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
        visible_if: Type.Optional(FieldCondition),
        products: Type.Optional(MatrixProductsSchema),
        columns: Type.Optional(Type.Array(MatrixColumnSchema)),
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
