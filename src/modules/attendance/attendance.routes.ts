import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { DateString } from '../../platform/dates'
import type { PlatformPlugin } from '../../platform/http'
import { listQuery } from '../../platform/pagination'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, Id, IdParams, ListEnvelope, MAX_ID, Nullable, NullableTimestamp, OptionalText, responses, Timestamp } from '../../platform/schema'
import { clockIn, clockOut, createAttendance, getAttendance, listAttendances, todayAttendance } from './attendance.service'

const Location = Nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number() }))
const AttendanceSchema = Type.Object({
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
})

const ClockBody = Type.Object({
  latitude: Type.Optional(Nullable(Type.Number({ minimum: -90, maximum: 90 }))),
  longitude: Type.Optional(Nullable(Type.Number({ minimum: -180, maximum: 180 }))),
  photo: Type.Optional(Nullable(Type.String({ maxLength: 7_100_000, description: 'Data URI or base64 JPEG/PNG/WebP (≤ 5 MiB), or an https:// URL' }))),
  notes: OptionalText(1000),
})
const DateTime = (description: string) => Type.String({ format: 'iso-date-time', maxLength: 40, description })

export const attendanceRoutes = (platform: PlatformPlugin) =>
  new Elysia({ tags: ['Attendance'] })
    .use(platform)
    .get('/office/v1/attendances', async ({ ctx, query }) => listed(await listAttendances(ctx, query)), {
      auth: 'attendance.view',
      query: listQuery(
        {
          user_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
          team_id: t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID })),
          date_from: t.Optional(t.String({ format: 'calendar-date', maxLength: 10 })),
          date_to: t.Optional(t.String({ format: 'calendar-date', maxLength: 10 })),
        },
        ['date', 'check_in_at', 'created_at', 'id'],
      ),
      response: responses({ 200: ListEnvelope(AttendanceSchema) }),
      detail: { summary: 'List attendances (filters: user, team, date range)' },
    })
    .post('/office/v1/attendances', async ({ ctx, body }) => created(await createAttendance(ctx, body), 'ATTENDANCE_CREATED', 'attendance created'), {
      auth: 'attendance.manage',
      body: Type.Object({
        user_id: Id(),
        date: DateString(),
        check_in_at: DateTime('Clock-in time (ISO 8601)'),
        check_out_at: Type.Optional(Nullable(DateTime('Clock-out time, after check_in_at'))),
        notes: OptionalText(1000),
      }),
      response: responses({ 201: Envelope(AttendanceSchema) }, [400, 401, 403, 409]),
      detail: { summary: 'Enter an attendance by hand' },
    })
    .get('/office/v1/attendances/:id', async ({ ctx, params }) => ok(await getAttendance(ctx, params.id)), {
      auth: 'attendance.view',
      params: IdParams,
      response: responses({ 200: Envelope(AttendanceSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Get an attendance' },
    })
    .post('/app/v1/attendances/clock-in', async ({ ctx, body }) => created(await clockIn(ctx, body), 'ATTENDANCE_CLOCKED_IN', 'clocked in'), {
      auth: 'attendance:clock',
      body: ClockBody,
      response: responses({ 201: Envelope(AttendanceSchema) }, [400, 401, 403, 409]),
      detail: { summary: 'Clock in (latitude and longitude required: LOCATION_REQUIRED)' },
    })
    .post('/app/v1/attendances/clock-out', async ({ ctx, body }) => ok(await clockOut(ctx, body), 'ATTENDANCE_CLOCKED_OUT', 'clocked out'), {
      auth: 'attendance:clock',
      body: ClockBody,
      response: responses({ 200: Envelope(AttendanceSchema) }, [400, 401, 403, 409]),
      detail: { summary: 'Clock out of your open attendance' },
    })
    .get('/app/v1/attendances/today', async ({ ctx }) => ok(await todayAttendance(ctx)), {
      auth: 'attendance:clock',
      response: responses({ 200: Envelope(Nullable(AttendanceSchema)) }, [401, 403]),
      detail: { summary: 'Your attendance of today (or the one still open), or null' },
    })
