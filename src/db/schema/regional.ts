/**
 * Indonesian administrative areas (docs/API.md §Regional lookup), loaded from the idn-area-data package. `id` is the
 * code without dots as an integer (`11`, `1101`, `110101`, `1101012001`); `code` the dotted code;
 * `name_key` the folded name for keyword search. Not workspace data: the same for every tenant.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const regionalProvinces = sqliteTable('regional_provinces', {
  id: integer('id').primaryKey(),
  code: text('code').notNull(),
  name: text('name').notNull(),
  name_key: text('name_key').notNull(),
})

export const regionalCities = sqliteTable(
  'regional_cities',
  {
    id: integer('id').primaryKey(),
    code: text('code').notNull(),
    province_id: integer('province_id').notNull(),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
    type: text('type').$type<'kabupaten' | 'kota'>().notNull(),
  },
  (t) => [index('regional_cities_province_code').on(t.province_id, t.code)],
)

export const regionalDistricts = sqliteTable(
  'regional_districts',
  {
    id: integer('id').primaryKey(),
    code: text('code').notNull(),
    city_id: integer('city_id').notNull(),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
  },
  (t) => [index('regional_districts_city_code').on(t.city_id, t.code)],
)

export const regionalVillages = sqliteTable(
  'regional_villages',
  {
    id: integer('id').primaryKey(),
    code: text('code').notNull(),
    district_id: integer('district_id').notNull(),
    name: text('name').notNull(),
    name_key: text('name_key').notNull(),
  },
  (t) => [index('regional_villages_district_code').on(t.district_id, t.code)],
)
