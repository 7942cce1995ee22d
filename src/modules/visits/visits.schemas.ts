/**
 * Request and response shapes of the visit routes (docs/API.md §Visits, §Other areas). Each shape is
 * written once, here: the services take the `Static` types of these schemas as their input.
 */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { APPROVAL_STATUSES, SUBMISSION_STATUSES, VISIT_SOURCES, VISIT_STATUSES } from '../../db/schema'
import { DateString } from '../../lib/dates'
import { listQuery } from '../../platform/data/pagination'
import { Id, MAX_ID, named, Nullable, NullableTimestamp, OneOf, OptionalText, RequiredText, Timestamp, QueryId } from '../../platform/http/schema'
import { VISIT_FLAGS } from './visits.integrity'
import { FrozenRowSchema } from '../forms'

const Ref = Type.Object({ id: Type.Integer(), name: Type.String() })
const Location = Nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number() }))
const QueryDate = (description: string) => t.Optional(t.String({ format: 'calendar-date', maxLength: 10, description }))

export const SubmissionSchema = named(
  'Submission',
  Type.Object({
    id: Type.Integer(),
    visit_id: Type.Integer(),
    form_id: Type.Integer(),
    title: Type.String(),
    status: Type.String({ description: 'pending, draft or completed' }),
    approval_status: Nullable(Type.String({ description: 'pending, approved or rejected; null until completed' })),
    is_required: Type.Boolean(),
    order: Type.Integer(),
    answers: Type.Record(Type.String(), Type.Unknown()),
    rows: Nullable(
      Type.Record(Type.String(), Type.Array(FrozenRowSchema), {
        description:
          'Product-matrix rows per matrix field key, frozen when the visit is checked in (or when the submission is created after it); null before check-in. docs/API.md "Product matrix"',
      }),
    ),
    submitted_at: NullableTimestamp(),
    submitted_by: Nullable(Ref),
    reviewed_at: NullableTimestamp(),
    reviewed_by: Nullable(Ref),
    approval_notes: Nullable(Type.String()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

const VisitFlags = Type.Array(Type.String({ enum: VISIT_FLAGS }), {
  description: 'Integrity flags computed by the server at check-in and check-out; empty when clean',
})

export const VisitListItemSchema = named(
  'VisitListItem',
  Type.Object({
    id: Type.Integer(),
    outlet: Ref,
    project: Ref,
    team: Nullable(Ref),
    status: Type.String({ enum: VISIT_STATUSES }),
    visit_date: Type.String(),
    checked_in_at: NullableTimestamp(),
    checked_out_at: NullableTimestamp(),
    assignees: Type.Array(Type.Object({ user_id: Type.Integer(), name: Type.String() })),
    submissions_total: Type.Integer(),
    submissions_completed: Type.Integer(),
    sent_to_field_at: NullableTimestamp(),
    flags: VisitFlags,
    effective: Type.Boolean({ description: 'An effective call: the visit has a sales order that is not rejected or cancelled (docs/API.md §Orders)' }),
    route_sequence: Nullable(Type.Integer({ description: 'The visit’s place in its day’s route (1 first); null until planned or optimised' })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

export const VisitDetailSchema = named(
  'Visit',
  Type.Object({
    id: Type.Integer(),
    outlet: Type.Object({ id: Type.Integer(), name: Type.String(), address: Nullable(Type.String()) }),
    project: Ref,
    team: Nullable(Ref),
    status: Type.String({ enum: VISIT_STATUSES }),
    visit_date: Type.String(),
    notes: Nullable(Type.String()),
    checked_in_at: NullableTimestamp(),
    check_in_location: Location,
    check_in_photo_url: Nullable(Type.String()),
    check_in_distance_m: Nullable(Type.Number({ description: 'Metres from the outlet at check-in (null: no check-in yet, or the outlet has no coordinates)' })),
    checked_out_at: NullableTimestamp(),
    check_out_location: Location,
    check_out_photo_url: Nullable(Type.String()),
    check_out_distance_m: Nullable(Type.Number({ description: 'Metres from the outlet at check-out' })),
    flags: VisitFlags,
    effective: Type.Boolean({ description: 'An effective call: the visit has a sales order that is not rejected or cancelled (docs/API.md §Orders)' }),
    close_reason: Nullable(Type.String()),
    sent_to_field_at: NullableTimestamp(),
    assignees: Type.Array(Type.Object({ user_id: Type.Integer(), name: Type.String(), email: Type.String() })),
    submissions: Type.Array(SubmissionSchema),
    logs: Type.Array(
      Type.Object({
        action: Type.String(),
        timestamp: Timestamp(),
        notes: Nullable(Type.String()),
        user: Type.Object({ id: Nullable(Type.Integer()), name: Type.String() }),
      }),
    ),
    source: Type.String({ enum: VISIT_SOURCES, description: 'Where the visit came from: manual (the office), self, import, journey_plan' }),
    journey_plan_id: Nullable(Type.Integer({ description: 'The journey plan that generated it (null once an edit of the plan removed it)' })),
    route_sequence: Nullable(Type.Integer({ description: 'Its place in the day’s route (a generated visit: its stop’s sequence)' })),
    created_by: Nullable(Type.Integer()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

const AttachedForm = Type.Object({
  form_id: Id(),
  is_required: Type.Boolean(),
  order: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
})

export const CreateVisitBody = Type.Object({
  outlet_id: Id(),
  project_id: Id(),
  visit_date: DateString(),
  team_id: Type.Optional(Nullable(Id())),
  user_ids: Type.Optional(Type.Array(Id(), { maxItems: 100, description: 'Assignees' })),
  submissions: Type.Optional(Type.Array(AttachedForm, { maxItems: 50, description: 'Forms to fill; default: the project’s forms' })),
  notes: OptionalText(2000),
})

export const BULK_MAX = 500
export const BulkVisitBody = Type.Object({ visits: Type.Array(CreateVisitBody, { minItems: 1, maxItems: BULK_MAX }) })

export type AttachedFormInput = Static<typeof AttachedForm>
export type CreateVisitInput = Static<typeof CreateVisitBody>
export type BulkVisitInput = Static<typeof BulkVisitBody>

export const SelfVisitBody = Type.Object({
  outlet_id: Id(),
  project_id: Id(),
  notes: OptionalText(2000),
  visit_date: Type.Optional(DateString({ description: 'Default: today in the workspace’s time zone' })),
})

export const AssignBody = Type.Object({ user_ids: Type.Array(Id(), { maxItems: 100, description: 'The new assignee list' }) })
export const ReasonBody = Type.Object({ reason: RequiredText(1000, { multiline: true }) })
export const SendToFieldBody = Type.Object({ visit_ids: Type.Array(Id(), { minItems: 1, maxItems: BULK_MAX }) })
export type SelfVisitInput = Static<typeof SelfVisitBody>
export type AssignInput = Static<typeof AssignBody>
export type ReasonInput = Static<typeof ReasonBody>
export type SendToFieldInput = Static<typeof SendToFieldBody>

const Coordinate = (min: number, max: number) => Type.Optional(Nullable(Type.Number({ minimum: min, maximum: max })))
const Photo = Type.Optional(Nullable(Type.String({ maxLength: 7_100_000, description: 'Data URI or base64 JPEG/PNG/WebP (≤ 5 MiB), or an https:// URL' })))
const Accuracy = Type.Optional(
  Nullable(Type.Number({ minimum: 0, maximum: 100_000, description: 'The phone’s accuracy radius in metres: counted in its favour by the geofence' })),
)
const IsMock = Type.Optional(Nullable(Type.Boolean({ description: 'The phone reported a mocked position: the visit is flagged mock_location' })))
/**
 * A check-in or check-out without a position is refused with 400 LOCATION_REQUIRED (docs/API.md §Visits), not
 * with a schema error: the document marks the coordinates required and non-null, the validator lets a missing
 * one through to the service, which answers that code.
 */
const COORDINATES_REQUIRED = { 'x-required': ['latitude', 'longitude'] }
export const CheckInBody = Type.Object(
  {
    latitude: Coordinate(-90, 90),
    longitude: Coordinate(-180, 180),
    accuracy_m: Accuracy,
    is_mock: IsMock,
    check_in_photo: Photo,
    notes: OptionalText(1000),
  },
  COORDINATES_REQUIRED,
)
export const CheckOutBody = Type.Object(
  {
    latitude: Coordinate(-90, 90),
    longitude: Coordinate(-180, 180),
    accuracy_m: Accuracy,
    is_mock: IsMock,
    check_out_photo: Photo,
    notes: OptionalText(1000),
  },
  COORDINATES_REQUIRED,
)
export type CheckInInput = Static<typeof CheckInBody>
export type CheckOutInput = Static<typeof CheckOutBody>

const Answers = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 500, description: 'Field key → answer' })
export const SubmitFormV2Body = Type.Object({
  form_id: Id(),
  items: Type.Array(
    Type.Object({
      submission_id: Nullable(Id({ description: 'null creates a submission, an id updates it' })),
      status: OneOf(['draft', 'completed']),
      answers: Answers,
    }),
    { minItems: 1, maxItems: 50 },
  ),
})
export const SubmitFormBody = Type.Object({ form_id: Id(), answers: Answers })
export type SubmitFormsInput = Static<typeof SubmitFormV2Body>
export type SubmitItem = SubmitFormsInput['items'][number]
export type SubmitFormInput = Static<typeof SubmitFormBody>

export const AddSubmissionBody = Type.Object({ form_id: Id(), is_required: Type.Optional(Type.Boolean({ default: false })) })
export const ApproveBody = Type.Object({ notes: OptionalText(2000) })
export const RejectBody = Type.Object({ notes: RequiredText(2000, { multiline: true }) })
export const ApprovalBody = Type.Object({ status: OneOf(['approved', 'rejected']), notes: OptionalText(2000) })
export type AddSubmissionInput = Static<typeof AddSubmissionBody>
export type ApprovalInput = Static<typeof ApprovalBody>

const visitFilters = {
  status: t.Optional(OneOf(VISIT_STATUSES)),
  outlet_id: QueryId(),
  project_id: QueryId(),
  date_from: QueryDate('visit_date from (inclusive)'),
  date_to: QueryDate('visit_date to (inclusive)'),
  flagged: t.Optional(t.Boolean({ description: 'true: only visits with integrity flags (geofence, mock location, travel, photo); false: only clean ones' })),
  effective: t.Optional(t.Boolean({ description: 'true: only effective calls (a sales order that is not rejected or cancelled); false: only the others' })),
}
const VISIT_SORTABLE = ['visit_date', 'created_at', 'updated_at', 'id', 'route'] as const

export const OfficeVisitQuery = listQuery({ ...visitFilters, team_id: QueryId(), user_id: QueryId() }, VISIT_SORTABLE)
export const MyVisitQuery = listQuery(visitFilters, VISIT_SORTABLE)
/** The office's query; the phone's (MyVisitQuery) is the same without `team_id` and `user_id`. */
export type VisitListQuery = Static<typeof OfficeVisitQuery>
export const SubmissionQuery = listQuery(
  {
    approval_status: t.Optional(OneOf(APPROVAL_STATUSES)),
    status: t.Optional(OneOf(SUBMISSION_STATUSES)),
    team_id: QueryId(),
    project_id: QueryId(),
    outlet_id: QueryId(),
    form_id: QueryId(),
    visit_id: QueryId(),
    user_id: QueryId(),
    date_from: QueryDate('visit_date from (inclusive)'),
    date_to: QueryDate('visit_date to (inclusive)'),
  },
  ['created_at', 'updated_at', 'submitted_at', 'id'],
)
export type SubmissionListQuery = Static<typeof SubmissionQuery>

export const VisitSubmissionParams = t.Object({
  id: t.Integer({ minimum: 1, maximum: MAX_ID }),
  submission_id: t.Integer({ minimum: 1, maximum: MAX_ID }),
})
