/**
 * Visits and what happens on them: assignees, submissions (one per form filled), the transition log,
 * and the record of who was sent a visit to the field.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { bool, createdAt, deletedAt, id, json, timestamp, updatedAt } from '../columns'
import { users } from './identity'
import { journeyPlans, type VisitSource } from './journey-plans'
import { forms, type FrozenRows, outlets, projects, teams } from './operations'
import { workspaces } from './workspaces'

export const VISIT_STATUSES = ['scheduled', 'in_progress', 'completed', 'cancelled', 'force_closed'] as const
export type VisitStatus = (typeof VISIT_STATUSES)[number]

export const visits = sqliteTable(
  'visits',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    outlet_id: integer('outlet_id')
      .notNull()
      .references(() => outlets.id),
    project_id: integer('project_id')
      .notNull()
      .references(() => projects.id),
    team_id: integer('team_id').references(() => teams.id),
    visit_date: text('visit_date').notNull(),
    status: text('status').$type<VisitStatus>().notNull().default('scheduled'),
    notes: text('notes'),
    created_by: integer('created_by').references(() => users.id),
    checked_in_at: timestamp('checked_in_at'),
    check_in_latitude: real('check_in_latitude'),
    check_in_longitude: real('check_in_longitude'),
    check_in_photo_url: text('check_in_photo_url'),
    check_in_distance_m: real('check_in_distance_m'),
    checked_out_at: timestamp('checked_out_at'),
    check_out_latitude: real('check_out_latitude'),
    check_out_longitude: real('check_out_longitude'),
    check_out_photo_url: text('check_out_photo_url'),
    check_out_distance_m: real('check_out_distance_m'),
    /** Integrity flags (bits): non-zero means flagged. */
    flags: integer('flags').notNull().default(0),
    /** Why it was cancelled or force-closed. */
    close_reason: text('close_reason'),
    sent_to_field_at: timestamp('sent_to_field_at'),
    /** When the missed-visit job reported the visit still scheduled after its day (src/jobs/missed-visits.job.ts); null until then. */
    missed_notified_at: timestamp('missed_notified_at'),
    /** The journey plan that generated the visit (src/db/schema/journey-plans.ts); null for any other visit. */
    journey_plan_id: integer('journey_plan_id').references(() => journeyPlans.id),
    /** How the visit came to be: `manual` (office), `self` (the field user), `import` (CSV), `journey_plan`. */
    source: text('source').$type<VisitSource>().notNull().default('manual'),
    /** The visit's place in the day's route (a plan stop's sequence, or the day-route optimizer's order). */
    route_sequence: integer('route_sequence'),
    /**
     * An effective call: the visit has an order that is not rejected or cancelled. Kept by triggers on
     * sales_orders (drizzle/0023_effective_calls.sql), never written by the service.
     */
    effective: integer('effective', { mode: 'boolean' }).notNull().default(false),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  // Partial on live rows: every query goes through the workspace scope, which adds `deleted_at is null`.
  (t) => [
    // Covering for the dashboard's per-status and per-team counts over a date range.
    index('visits_workspace_date_live').on(t.workspace_id, t.visit_date, t.status, t.team_id, t.deleted_at).where(sql`deleted_at is null`),
    index('visits_workspace_flagged_date').on(t.workspace_id, t.visit_date).where(sql`flags != 0 and deleted_at is null`),
    index('visits_workspace_status_date_live').on(t.workspace_id, t.status, t.visit_date).where(sql`deleted_at is null`),
    index('visits_workspace_outlet_live').on(t.workspace_id, t.outlet_id).where(sql`deleted_at is null`),
    index('visits_workspace_project_live').on(t.workspace_id, t.project_id).where(sql`deleted_at is null`),
    index('visits_workspace_team_date_live').on(t.workspace_id, t.team_id, t.visit_date).where(sql`deleted_at is null`),
    // The office list filtered by team and status over a date range (counted on every page).
    index('visits_workspace_team_status_date_live').on(t.workspace_id, t.team_id, t.status, t.visit_date).where(sql`deleted_at is null`),
    // One visit per plan, outlet and day, whatever the number of concurrent generation runs (migration 0021).
    uniqueIndex('visits_journey_plan_outlet_date').on(t.journey_plan_id, t.outlet_id, t.visit_date).where(sql`journey_plan_id is not null`),
  ],
)

export const visitAssignees = sqliteTable(
  'visit_assignees',
  {
    visit_id: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    /**
     * The visit's date, kept by triggers (migration 0010, its insert trigger since 0027: set on insert, followed when the visit's
     * date changes), so "my visits between two dates" is one range of the index below instead of
     * probing every visit of the range for the assignee. Never written by the service.
     */
    visit_date: text('visit_date'),
    /**
     * Whether the visit is live and in progress, kept by triggers (migration 0027: set on insert, followed when the
     * visit's status or deletion changes), so "another visit in progress" is one probe of the partial index below
     * instead of a walk over the workspace's visits in progress. Never written by the service.
     */
    in_progress: integer('in_progress', { mode: 'boolean' }).notNull().default(false),
    created_at: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.visit_id, t.user_id] }),
    index('visit_assignees_workspace_user_date').on(t.workspace_id, t.user_id, t.visit_date, t.visit_id),
    index('visit_assignees_user_in_progress').on(t.user_id, t.workspace_id, t.visit_id).where(sql`in_progress = 1`),
    // One user's assignments side by side: the change feed's probe of each visit row (migration 0028).
    index('visit_assignees_workspace_user_visit').on(t.workspace_id, t.user_id, t.visit_id),
  ],
)

export const SUBMISSION_STATUSES = ['pending', 'draft', 'completed'] as const
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number]
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]

export type Answers = Record<string, unknown>

export const submissions = sqliteTable(
  'submissions',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    visit_id: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    form_id: integer('form_id')
      .notNull()
      .references(() => forms.id),
    /** The form's title when the submission was attached. */
    title: text('title').notNull(),
    is_required: bool('is_required').notNull().default(false),
    order: integer('order').notNull().default(0),
    status: text('status').$type<SubmissionStatus>().notNull().default('pending'),
    approval_status: text('approval_status').$type<ApprovalStatus>(),
    answers: json<Answers>('answers').notNull(),
    /** Product-matrix rows frozen at check-in (or at creation after it); null before (docs/API.md "Product matrix"). */
    rows: json<FrozenRows>('rows'),
    submitted_at: timestamp('submitted_at'),
    submitted_by: integer('submitted_by').references(() => users.id),
    reviewed_at: timestamp('reviewed_at'),
    reviewed_by: integer('reviewed_by').references(() => users.id),
    approval_notes: text('approval_notes'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    deleted_at: deletedAt(),
  },
  (t) => [
    // Covering for approval counts joined from visits.
    index('submissions_visit_live').on(t.visit_id, t.status, t.approval_status, t.deleted_at).where(sql`deleted_at is null`),
    index('submissions_workspace_created_live').on(t.workspace_id, t.created_at).where(sql`deleted_at is null`),
    index('submissions_workspace_approval_live').on(t.workspace_id, t.approval_status, t.created_at).where(sql`deleted_at is null`),
    index('submissions_workspace_submitter').on(t.workspace_id, t.submitted_by),
  ],
)

/** Append-only history of a visit: `{action, timestamp, user}` in answers (docs/API.md §Visits). */
export const visitLogs = sqliteTable(
  'visit_logs',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    visit_id: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    action: text('action').notNull(),
    user_id: integer('user_id').references(() => users.id),
    user_name: text('user_name').notNull(),
    notes: text('notes'),
    created_at: createdAt(),
  },
  (t) => [index('visit_logs_visit').on(t.visit_id), index('visit_logs_workspace_user_time').on(t.workspace_id, t.user_id, t.created_at)],
)

/** Who was sent which visit to the field, and by whom. */
export const visitDispatches = sqliteTable(
  'visit_dispatches',
  {
    id: id(),
    workspace_id: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    visit_id: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    sent_by: integer('sent_by').references(() => users.id),
    created_at: createdAt(),
  },
  (t) => [index('visit_dispatches_visit').on(t.visit_id)],
)
