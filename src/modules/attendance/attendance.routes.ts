import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, Nullable, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { AttendanceQuery, AttendanceSchema, ClockBody, ManualAttendanceBody } from './attendance.schemas'
import { clockIn, clockOut, createAttendance, getAttendance, listAttendances, todayAttendance } from './attendance.service'

export const attendanceRoutes = (platform: PlatformPlugin) =>
  new Elysia({ tags: ['Attendance'] })
    .use(platform)
    .get('/office/v1/attendances', async ({ ctx, query }) => listed(await listAttendances(ctx, query)), {
      auth: 'attendance.view',
      query: AttendanceQuery,
      response: responses({ 200: ListEnvelope(AttendanceSchema) }),
      detail: { summary: 'List attendances (filters: user, team, date range)' },
    })
    .post('/office/v1/attendances', async ({ ctx, body }) => created(await createAttendance(ctx, body), 'ATTENDANCE_CREATED', 'attendance created'), {
      auth: 'attendance.manage',
      body: ManualAttendanceBody,
      response: responses({ 201: Envelope(AttendanceSchema) }, [...AUTHED_ERRORS, 'ATTENDANCE_ALREADY_OPEN']),
      detail: { summary: 'Enter an attendance by hand' },
    })
    .get('/office/v1/attendances/:id', async ({ ctx, params }) => ok(await getAttendance(ctx, params.id)), {
      auth: 'attendance.view',
      params: IdParams,
      response: responses({ 200: Envelope(AttendanceSchema) }, [...AUTHED_ERRORS, 'ATTENDANCE_NOT_FOUND']),
      detail: { summary: 'Get an attendance' },
    })
    .post('/app/v1/attendances/clock-in', async ({ ctx, body }) => created(await clockIn(ctx, body), 'ATTENDANCE_CLOCKED_IN', 'clocked in'), {
      auth: 'attendance:clock',
      body: ClockBody,
      response: responses({ 201: Envelope(AttendanceSchema) }, [...AUTHED_ERRORS, 'LOCATION_REQUIRED', 'ATTENDANCE_ALREADY_OPEN']),
      detail: { summary: 'Clock in (latitude and longitude required: LOCATION_REQUIRED)' },
    })
    .post('/app/v1/attendances/clock-out', async ({ ctx, body }) => ok(await clockOut(ctx, body), 'ATTENDANCE_CLOCKED_OUT', 'clocked out'), {
      auth: 'attendance:clock',
      body: ClockBody,
      response: responses({ 200: Envelope(AttendanceSchema) }, [...AUTHED_ERRORS, 'LOCATION_REQUIRED', 'ATTENDANCE_NOT_OPEN']),
      detail: { summary: 'Clock out of your open attendance' },
    })
    .get('/app/v1/attendances/today', async ({ ctx }) => ok(await todayAttendance(ctx)), {
      auth: 'attendance:clock',
      response: responses({ 200: Envelope(Nullable(AttendanceSchema)) }, ['UNAUTHORIZED', 'TOKEN_EXPIRED', 'FORBIDDEN']),
      detail: { summary: 'Your attendance of today (or the one still open), or null' },
    })
