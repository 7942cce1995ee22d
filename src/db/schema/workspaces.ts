import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { createdAt, id, updatedAt } from '../columns'

export const workspaces = sqliteTable('workspaces', {
  id: id(),
  name: text('name').notNull(),
  /** Pings older than this are removed by the daily retention job. */
  location_retention_days: integer('location_retention_days').notNull().default(90),
  /** IANA zone: "today" and every calendar date of a rule are local days of it. */
  timezone: text('timezone').notNull().default('UTC'),
  /** Check-in/out outside the radius: `off` ignored, `warn` flagged, `block` refused. */
  geofence_mode: text('geofence_mode').$type<'off' | 'warn' | 'block'>().notNull().default('warn'),
  geofence_radius_m: integer('geofence_radius_m').notNull().default(200),
  /** ISO 4217 code of every amount of the workspace's orders and price lists. */
  currency: text('currency').notNull().default('IDR'),
  /** Journey plans generate the visits of this many local days ahead, today included (1–31). */
  journey_plan_horizon_days: integer('journey_plan_horizon_days').notNull().default(7),
  created_at: createdAt(),
  updated_at: updatedAt(),
})

/** Service-wide key/value settings, e.g. the generated JWT secret. */
export const appSettings = sqliteTable('app_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})
