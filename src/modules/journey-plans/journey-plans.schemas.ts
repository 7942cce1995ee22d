import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { DateString } from '../../lib/dates'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, NullableTimestamp, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'
import { MAX_CYCLE_WEEKS } from './calendar'

/** A plan's stops at most: 500 outlet-weekdays is far beyond a rep's cycle (a busy rep visits 10–15 outlets a day). */
export const PLAN_STOPS_MAX = 500
/** The longest range one generate request covers. */
export const GENERATE_MAX_DAYS = 62

const StopSchema = Type.Object({
  outlet_id: Type.Integer(),
  outlet_name: Type.String(),
  weekday: Type.Integer({ description: '1 = Monday … 7 = Sunday' }),
  weeks: Type.Array(Type.Integer(), { description: 'Weeks of the cycle the stop is visited in (every week listed when it is every week)' }),
  sequence: Type.Integer({ description: 'Order of the day’s route; becomes the generated visit’s route_sequence' }),
})

export const JourneyPlanSchema = named(
  'JourneyPlan',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    user_id: Type.Integer(),
    project_id: Type.Integer(),
    team_id: Nullable(Type.Integer()),
    name: Nullable(Type.String()),
    start_date: Type.String({ description: 'Local date, a Monday: the first day of week 1 of the cycle' }),
    end_date: Nullable(Type.String({ description: 'Local date, inclusive; null: open-ended' })),
    cycle_weeks: Type.Integer(),
    active: Type.Boolean(),
    stops: Type.Array(StopSchema),
    created_by: Nullable(Type.Integer()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    deleted_at: NullableTimestamp(),
  }),
)

export const JourneyPlanQuery = listQuery(
  {
    user_id: QueryId(),
    team_id: QueryId(),
    project_id: QueryId(),
    active: t.Optional(t.Boolean()),
  },
  ['created_at', 'updated_at', 'name', 'id', 'start_date'],
)
export type JourneyPlanListQuery = Static<typeof JourneyPlanQuery>

const StopBody = Type.Object({
  outlet_id: Id(),
  weekday: Type.Integer({ minimum: 1, maximum: 7, description: '1 = Monday … 7 = Sunday' }),
  weeks: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: MAX_CYCLE_WEEKS }), {
      maxItems: MAX_CYCLE_WEEKS,
      description: 'Subset of 1…cycle_weeks; absent or empty: every week',
    }),
  ),
  sequence: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999, description: 'Default: the stop’s position in the list (1-based)' })),
})
export type StopInput = Static<typeof StopBody>

const fields = {
  user_id: Id({ description: 'The field user whose visits the plan generates (an active member of the workspace)' }),
  project_id: Id({ description: 'An active project of the workspace; its forms are attached to every generated visit' }),
  team_id: Type.Optional(Nullable(Id())),
  name: OptionalText(255, { multiline: false }),
  start_date: DateString({ description: 'A Monday (local date): week 1 of the cycle' }),
  end_date: Type.Optional(Nullable(DateString({ description: 'Inclusive; not before start_date' }))),
  cycle_weeks: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CYCLE_WEEKS, description: 'Default 4' })),
  active: Type.Optional(Type.Boolean({ description: 'Default true' })),
  stops: Type.Optional(Type.Array(StopBody, { maxItems: PLAN_STOPS_MAX, description: 'Replaces the list on update' })),
}

export const JourneyPlanBody = Type.Object(fields)
export type JourneyPlanInput = Static<typeof JourneyPlanBody>

export const JourneyPlanUpdateBody = Type.Object(
  { ...fields, user_id: Type.Optional(fields.user_id), project_id: Type.Optional(fields.project_id), start_date: Type.Optional(fields.start_date) },
  { minProperties: 1 },
)
export type JourneyPlanUpdateInput = Static<typeof JourneyPlanUpdateBody>

export const GenerateBody = Type.Object({
  date_from: DateString(),
  date_to: DateString({ description: `Inclusive; at most ${GENERATE_MAX_DAYS} days after date_from` }),
})
export type GenerateInput = Static<typeof GenerateBody>

export const GenerateResultSchema = Type.Object({
  created: Type.Integer({ description: 'Visits created by this request' }),
  skipped: Type.Integer({ description: 'Visits of the range that existed already (or were deleted by the office) and were not created again' }),
})

export const HolidaySchema = named(
  'Holiday',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    date: Type.String({ description: 'Local date' }),
    name: Type.String(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

export const HolidayBody = Type.Object({ date: DateString(), name: RequiredText(255) })
export type HolidayInput = Static<typeof HolidayBody>

const QueryDate = (description: string) => t.Optional(t.String({ format: 'calendar-date', maxLength: 10, description }))
export const HolidayQuery = listQuery({ date_from: QueryDate('From (inclusive)'), date_to: QueryDate('To (inclusive)') }, [
  'date',
  'created_at',
  'updated_at',
  'name',
  'id',
])
export type HolidayListQuery = Static<typeof HolidayQuery>
