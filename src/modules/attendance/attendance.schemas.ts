import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { DateString } from '../../lib/dates'
import { listQuery } from '../../platform/data/pagination'
import { Id, named, Nullable, NullableTimestamp, OptionalText, Timestamp, QueryId } from '../../platform/http/schema'

const Location = Nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number() }))

export const AttendanceSchema = named(
  'Attendance',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    user_id: Type.Integer(),
    user: Type.Object({ id: Type.Integer(), name: Type.String() }),
    date: Type.String(),
    check_in_at: Timestamp(),
    check_in_location: Location,
    check_in_photo_url: Nullable(Type.String()),
    check_out_at: NullableTimestamp(),
    check_out_location: Location,
    check_out_photo_url: Nullable(Type.String()),
    worked_minutes: Nullable(Type.Integer({ description: 'From clock-in to clock-out; null while open' })),
    notes: Nullable(Type.String()),
    source: Type.String({ description: 'mobile or manual' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
)

export const AttendanceQuery = listQuery(
  {
    user_id: QueryId(),
    team_id: QueryId(),
    date_from: t.Optional(t.String({ format: 'calendar-date', maxLength: 10 })),
    date_to: t.Optional(t.String({ format: 'calendar-date', maxLength: 10 })),
  },
  ['date', 'check_in_at', 'created_at', 'id'],
)
export type AttendanceListQuery = Static<typeof AttendanceQuery>

/** Clock-in and clock-out: the coordinates are optional here so that their absence is LOCATION_REQUIRED, not a validation error. */
export const ClockBody = Type.Object({
  latitude: Type.Optional(Nullable(Type.Number({ minimum: -90, maximum: 90 }))),
  longitude: Type.Optional(Nullable(Type.Number({ minimum: -180, maximum: 180 }))),
  photo: Type.Optional(Nullable(Type.String({ maxLength: 7_100_000, description: 'Data URI or base64 JPEG/PNG/WebP (≤ 5 MiB), or an https:// URL' }))),
  notes: OptionalText(1000),
})
export type ClockInput = Static<typeof ClockBody>

const DateTime = (description: string) => Type.String({ format: 'iso-date-time', maxLength: 40, description })

export const ManualAttendanceBody = Type.Object({
  user_id: Id(),
  date: DateString(),
  check_in_at: DateTime('Clock-in time (ISO 8601)'),
  check_out_at: Type.Optional(Nullable(DateTime('Clock-out time, after check_in_at'))),
  notes: OptionalText(1000),
})
export type ManualAttendanceInput = Static<typeof ManualAttendanceBody>
