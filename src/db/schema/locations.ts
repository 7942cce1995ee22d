/**
 * GPS pings from field phones. Stored append-only in `location_pings`; `latest_locations` keeps each
 * user's newest ping (by device time) so the live map never scans history, and a late backlog never
 * drags a user back on the map.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { bool, createdAt, updatedAt } from '../columns'
import { users } from './identity'
import { workspaces } from './workspaces'

export const PING_SOURCES = ['gps', 'network', 'passive'] as const
export const SIGNAL_QUALITIES = ['good', 'fair', 'poor'] as const

const pingColumns = {
  workspace_id: integer('workspace_id')
    .notNull()
    .references(() => workspaces.id),
  user_id: integer('user_id')
    .notNull()
    .references(() => users.id),
  visit_id: integer('visit_id'),
  lat: real('lat').notNull(),
  lng: real('lng').notNull(),
  accuracy_m: real('accuracy_m'),
  speed_mps: real('speed_mps'),
  source: text('source').$type<(typeof PING_SOURCES)[number]>(),
  battery_level: real('battery_level'),
  is_mock: bool('is_mock').notNull(),
  signal_quality: text('signal_quality').$type<(typeof SIGNAL_QUALITIES)[number]>(),
  /** Device time when given, else the server's receive time; history is ordered by it. */
  recorded_at: text('recorded_at').notNull(),
  /** Spoofing flags computed by the server (bits of PING_FLAG_BITS in lib/geo.ts). */
  flags: integer('flags').notNull().default(0),
  created_at: createdAt(),
  updated_at: updatedAt(),
}

export const locationPings = sqliteTable(
  'location_pings',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ...pingColumns,
    /** 1 when recorded_at came from the device: such pings are de-duplicated per user. */
    device_time: bool('device_time').notNull().default(false),
  },
  (t) => [
    index('location_pings_workspace_user_time').on(t.workspace_id, t.user_id, t.recorded_at, t.id),
    index('location_pings_workspace_time').on(t.workspace_id, t.recorded_at, t.id),
    index('location_pings_visit').on(t.visit_id).where(sql`visit_id is not null`),
    // A phone resending its backlog under a new idempotency key stores nothing twice.
    uniqueIndex('location_pings_user_device_time').on(t.workspace_id, t.user_id, t.recorded_at).where(sql`device_time = 1`),
  ],
)

export const latestLocations = sqliteTable(
  'latest_locations',
  {
    ping_id: integer('ping_id').notNull(),
    ...pingColumns,
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.user_id] })],
)
