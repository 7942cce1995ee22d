/**
 * Indonesian administrative areas (docs/API.md §Regional lookup), from the idn-area-data package. `id` is the
 * code without dots as an integer (`11`, `1101`, `110101`, `1101012001`); `code` the dotted code;
 * `name_key` the folded name for keyword search. Not workspace data: the same for every tenant.
 *
 * These tables live in the prepared read-only database (./regional.database.ts), not in the service's
 * own database: they are not part of src/db/schema, so no migration creates them there (migration
 * 0026 dropped the copies older releases loaded). ./regional.build.ts creates them with REGIONAL_DDL.
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

/** The prepared file's own description: `version` (see REGIONAL_FILE_VERSION) and `data_version` (idn-area-data's). */
export const regionalMeta = sqliteTable('regional_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export const regionalTables = { regionalProvinces, regionalCities, regionalDistricts, regionalVillages, regionalMeta }

/**
 * The prepared file's tables and indexes: those migration 0004 created in the service's database
 * (the same columns, types and indexes), and regional_meta. The indexes are created after the rows.
 */
export const REGIONAL_TABLES_DDL = [
  'CREATE TABLE `regional_provinces` (`id` integer PRIMARY KEY NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `name_key` text NOT NULL)',
  'CREATE TABLE `regional_cities` (`id` integer PRIMARY KEY NOT NULL, `code` text NOT NULL, `province_id` integer NOT NULL, `name` text NOT NULL, `name_key` text NOT NULL, `type` text NOT NULL)',
  'CREATE TABLE `regional_districts` (`id` integer PRIMARY KEY NOT NULL, `code` text NOT NULL, `city_id` integer NOT NULL, `name` text NOT NULL, `name_key` text NOT NULL)',
  'CREATE TABLE `regional_villages` (`id` integer PRIMARY KEY NOT NULL, `code` text NOT NULL, `district_id` integer NOT NULL, `name` text NOT NULL, `name_key` text NOT NULL)',
  'CREATE TABLE `regional_meta` (`key` text PRIMARY KEY NOT NULL, `value` text NOT NULL)',
]
export const REGIONAL_INDEXES_DDL = [
  'CREATE INDEX `regional_cities_province_code` ON `regional_cities` (`province_id`,`code`)',
  'CREATE INDEX `regional_districts_city_code` ON `regional_districts` (`city_id`,`code`)',
  'CREATE INDEX `regional_villages_district_code` ON `regional_villages` (`district_id`,`code`)',
]
