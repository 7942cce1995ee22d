/**
 * Journey plans (docs/API.md §Journey plans): which outlets a field user visits on which weekdays of a
 * repeating cycle of 1–8 weeks, the stops of each plan, and the workspace's holidays, on which no
 * visit is generated. The rules live in src/modules/journey-plans/ (calendar.ts).
 *
 * Dates (`start_date`, `end_date`, `holidays.date`) are local dates of the workspace's zone. The visits
 * a plan generates carry `visits.journey_plan_id`, `visits.source = 'journey_plan'` and
 * `visits.route_sequence` (src/db/schema/visits.ts).
 */
import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { bool, createdAt, deletedAt, id, updatedAt } from '../columns'
import { users } from './identity'
import { outlets, projects, teams } from './operations'
import { workspaces } from './workspaces'

export const journeyPlans = sqliteTable(
  'journey_plans',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    /** The field user whose visits the plan generates. */
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    project_id: integer('project_id')
      .notNull()
      .references(() => projects.id),
    team_id: integer('team_id').references(() => teams.id),
    name: text('name'),
    /** Local date, a Monday: the first day of week 1 of the cycle. */
    start_date: text('start_date').notNull(),
    /** Local date, inclusive; null: open-ended. */
    end_date: text('end_date'),
    cycle_weeks: integer('cycle_weeks').notNull().default(4),
    active: bool('active').notNull().default(true),
    created_by: integer('created_by').references(() => users.id),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    check('journey_plans_cycle_weeks', sql`cycle_weeks between 1 and 8`),
    index('journey_plans_workspace_user_live').on(t.workspace_id, t.user_id).where(sql`deleted_at is null`),
    index('journey_plans_workspace_created_live').on(t.workspace_id, t.created_at).where(sql`deleted_at is null`),
    // The nightly generation reads every active plan of a workspace.
    index('journey_plans_workspace_active').on(t.workspace_id).where(sql`active = 1 and deleted_at is null`),
  ],
)

/**
 * One outlet of a plan on one weekday. `weeks` is a bit mask of the weeks of the cycle the stop is
 * visited in: bit w − 1 for week w (weeks 1 and 3 → 0b101 = 5); 0 means every week, whatever the cycle
 * length becomes (calendar.ts `weeksToMask`, `maskToWeeks`). Stops are replaced as a whole, never edited.
 */
export const journeyPlanStops = sqliteTable(
  'journey_plan_stops',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    plan_id: integer('plan_id')
      .notNull()
      .references(() => journeyPlans.id),
    outlet_id: integer('outlet_id')
      .notNull()
      .references(() => outlets.id),
    /** 1 = Monday … 7 = Sunday. */
    weekday: integer('weekday').notNull(),
    weeks: integer('weeks').notNull().default(0),
    /** The order of the day's route; becomes the generated visit's `route_sequence`. */
    sequence: integer('sequence').notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [
    check('journey_plan_stops_weekday', sql`weekday between 1 and 7`),
    check('journey_plan_stops_weeks', sql`weeks between 0 and 255`),
    index('journey_plan_stops_plan').on(t.plan_id, t.weekday, t.sequence),
    index('journey_plan_stops_outlet').on(t.outlet_id),
  ],
)

/**
 * Workspace-wide holidays (local dates). Deleted for good (the audit log keeps what was there): nothing
 * refers to a holiday row, and the same date can be declared again at once.
 */
export const holidays = sqliteTable(
  'holidays',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    date: text('date').notNull(),
    name: text('name').notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('holidays_workspace_date').on(t.workspace_id, t.date)],
)

export const VISIT_SOURCES = ['manual', 'self', 'import', 'journey_plan'] as const
export type VisitSource = (typeof VISIT_SOURCES)[number]
