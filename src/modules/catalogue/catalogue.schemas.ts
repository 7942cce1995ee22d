import { type Static, Type } from '@sinclair/typebox'
import { listQuery } from '../../platform/data/pagination'
import { Amount, Id, named, Nullable, NullableTimestamp, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'

const Text = Nullable(Type.String())
export const PrincipalSchema = named(
  'Principal',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
    code: Text,
    contact_name: Text,
    contact_phone: Text,
    contact_email: Text,
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)
export const ProductSchema = named(
  'Product',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
    sku: Type.String(),
    principal_id: Nullable(Type.Integer()),
    principal: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })),
    price: Nullable(Type.Integer({ description: 'The list price: an integer amount in the smallest unit of the workspace currency (IDR: whole rupiah)' })),
    unit: Text,
    barcode: Text,
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)

const principalFields = {
  name: RequiredText(255),
  code: OptionalText(64, { multiline: false, description: 'Unique per workspace (case-insensitive)' }),
  contact_name: OptionalText(255, { multiline: false }),
  contact_phone: OptionalText(32, { multiline: false }),
  contact_email: Type.Optional(Nullable(Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', error: 'must be a valid email address' }))),
}
const productFields = {
  name: RequiredText(255),
  sku: RequiredText(64, { description: 'Unique per workspace (case-insensitive)' }),
  principal_id: Type.Optional(Nullable(Id())),
  price: Type.Optional(Nullable(Amount({ description: 'The list price: an integer ≥ 0 in the smallest unit of the workspace currency' }))),
  unit: OptionalText(32, { multiline: false }),
  barcode: OptionalText(64, { multiline: false }),
}

export const PrincipalInput = Type.Object(principalFields)
export type PrincipalInput = Static<typeof PrincipalInput>
export const PrincipalUpdate = Type.Object({ ...principalFields, name: Type.Optional(principalFields.name) }, { minProperties: 1 })
export type PrincipalUpdate = Static<typeof PrincipalUpdate>

export const ProductInput = Type.Object(productFields)
export type ProductInput = Static<typeof ProductInput>
export const ProductUpdate = Type.Object(
  { ...productFields, name: Type.Optional(productFields.name), sku: Type.Optional(productFields.sku) },
  { minProperties: 1 },
)
export type ProductUpdate = Static<typeof ProductUpdate>

export const PrincipalQuery = listQuery({})
export type PrincipalQuery = Static<typeof PrincipalQuery>
export const ProductQuery = listQuery({ principal_id: QueryId() })
export type ProductQuery = Static<typeof ProductQuery>
