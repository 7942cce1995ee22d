/**
 * What visits stand on: outlets, forms, projects (with their forms) and teams (with members).
 * `*_key` columns hold folded text (NFKC, lower case) for case-insensitive uniqueness and search.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { bool, createdAt, deletedAt, id, json, updatedAt } from '../columns'
import { accounts, subAreas } from './master-data'
import { users } from './identity'
import { workspaces } from './workspaces'

const live = sql`deleted_at is null`

export const outlets = sqliteTable(
  'outlets',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    code: text('code'),
    code_key: text('code_key'),
    address: text('address'),
    latitude: real('latitude'),
    longitude: real('longitude'),
    /** Overrides the workspace's geofence radius for this outlet. */
    geofence_radius_m: integer('geofence_radius_m'),
    account_id: integer('account_id').references(() => accounts.id),
    sub_area_id: integer('sub_area_id').references(() => subAreas.id),
    province_id: integer('province_id'),
    city_id: integer('city_id'),
    district_id: integer('district_id'),
    village_id: integer('village_id'),
    contact_name: text('contact_name'),
    contact_phone: text('contact_phone'),
    is_active: bool('is_active').notNull().default(true),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('outlets_workspace_code_live').on(t.workspace_id, t.code_key).where(sql`deleted_at is null and code_key is not null`),
    index('outlets_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
    index('outlets_workspace_account_live').on(t.workspace_id, t.account_id).where(live),
    index('outlets_workspace_sub_area_live').on(t.workspace_id, t.sub_area_id).where(live),
    index('outlets_workspace_city_live').on(t.workspace_id, t.city_id).where(live),
  ],
)

/** One question of a form. */
export interface FormField {
  key: string
  label: string
  type: FormFieldType
  required: boolean
  options?: string[]
  min?: number
  max?: number
  /** Skip logic: the field is shown only when this holds (docs/API.md "Skip logic"). */
  visible_if?: FieldCondition
  /** product_matrix only: which products are its rows (docs/API.md "Product matrix"). */
  products?: MatrixProducts
  /** product_matrix only: what is asked per product. */
  columns?: MatrixColumn[]
}

/** The rows of a product matrix: the live products of a principal, or the listed products. */
export type MatrixProducts = { principal_id: number } | { product_ids: number[] }

export const MATRIX_COLUMN_TYPES = ['checkbox', 'integer', 'number', 'select'] as const
export type MatrixColumnType = (typeof MATRIX_COLUMN_TYPES)[number]

/** One column of a product matrix (well-known keys: available, facings, shelf_price, stock_qty, order_qty). */
export interface MatrixColumn {
  key: string
  label: string
  type: MatrixColumnType
  required: boolean
  min?: number
  max?: number
  options?: string[]
}

/** A product as frozen on a submission: its id, sku and name when the visit was checked in. */
export interface FrozenRow {
  product_id: number
  sku: string
  name: string
}
/** Frozen rows per matrix field key. */
export type FrozenRows = Record<string, FrozenRow[]>

/** The operators of a field's `visible_if`. */
export const CONDITION_OPS = ['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte', 'answered'] as const
export type ConditionOp = (typeof CONDITION_OPS)[number]
export type ConditionValue = string | number | boolean

/** `visible_if` of a form field: `field` is the key of an earlier field; `answered` has no `value`. */
export interface FieldCondition {
  field: string
  op: ConditionOp
  value?: ConditionValue | ConditionValue[]
}

export const FORM_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'integer',
  'select',
  'multiselect',
  'checkbox',
  'date',
  'time',
  'photo',
  'signature',
  'location',
  'rating',
  'product_matrix',
] as const
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number]

export const forms = sqliteTable(
  'forms',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    title: text('title').notNull(),
    title_key: text('title_key').notNull(),
    description: text('description'),
    fields: json<FormField[]>('fields').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [index('forms_workspace_created_live').on(t.workspace_id, t.created_at).where(live)],
)

/** The brand owners a field team works for; projects belong to one. */
export const principals = sqliteTable(
  'principals',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    code: text('code'),
    code_key: text('code_key'),
    contact_name: text('contact_name'),
    contact_phone: text('contact_phone'),
    contact_email: text('contact_email'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('principals_workspace_code_live').on(t.workspace_id, t.code_key).where(sql`deleted_at is null and code_key is not null`),
    index('principals_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
  ],
)

export const PROJECT_STATUSES = ['draft', 'active', 'completed', 'archived'] as const
export type ProjectStatus = (typeof PROJECT_STATUSES)[number]

export const projects = sqliteTable(
  'projects',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    code: text('code'),
    code_key: text('code_key'),
    principal_id: integer('principal_id'),
    start_date: text('start_date'),
    end_date: text('end_date'),
    status: text('status').$type<ProjectStatus>().notNull().default('active'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('projects_workspace_code_live').on(t.workspace_id, t.code_key).where(sql`deleted_at is null and code_key is not null`),
    index('projects_workspace_created_live').on(t.workspace_id, t.created_at).where(live),
  ],
)

export const projectForms = sqliteTable(
  'project_forms',
  {
    project_id: integer('project_id')
      .notNull()
      .references(() => projects.id),
    form_id: integer('form_id')
      .notNull()
      .references(() => forms.id),
    is_required: bool('is_required').notNull().default(true),
    order: integer('order').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.form_id] }), index('project_forms_form').on(t.form_id)],
)

export const teams = sqliteTable(
  'teams',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    description: text('description'),
    leader_id: integer('leader_id').references(() => users.id),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    uniqueIndex('teams_workspace_name_live').on(t.workspace_id, t.name_key).where(live),
    index('teams_workspace_leader_live').on(t.workspace_id, t.leader_id).where(live),
  ],
)

export const teamMembers = sqliteTable(
  'team_members',
  {
    team_id: integer('team_id')
      .notNull()
      .references(() => teams.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.team_id, t.user_id] }), index('team_members_workspace_user').on(t.workspace_id, t.user_id)],
)
