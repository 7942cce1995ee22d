/**
 * Attendance: a field user clocks in and out on the phone (location required, photo optional), or
 * the office enters a day by hand. At most one open attendance per user (also a unique index, so a
 * double tap cannot open two). The worked time is computed from clock-in to clock-out.
 */
import { eq, gte, inArray, isNull, lte, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { attendances, teamMembers, users } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { parseDateTime } from '../../lib/dates'
import { localDate } from '../../lib/time-zones'
import { AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { locationOf, requireLocation } from '../../lib/geo'
import { DEFAULT_LIST } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { workspaceScoped } from '../../platform/data/scope'
import { withTransaction } from '../../platform/data/transaction'
import { withPhotos } from '../files'
import { assertWorkspaceUsers, teamMemberScope } from '../teams'
import type { AttendanceListQuery, ClockInput, ManualAttendanceInput } from './attendance.schemas'

export const attendanceScope = workspaceScoped(attendances)

function selectAttendances(db: Db, where: SQL) {
  return db.select({ attendance: attendances, user_name: users.name }).from(attendances).innerJoin(users, eq(users.id, attendances.user_id)).where(where)
}
type Row = Awaited<ReturnType<typeof selectAttendances>>[number]

function present({ attendance: a, user_name }: Row) {
  const worked = a.check_out_at ? Math.floor((Date.parse(a.check_out_at) - Date.parse(a.check_in_at)) / 60_000) : null
  return {
    id: a.id,
    workspace_id: a.workspace_id,
    user_id: a.user_id,
    user: { id: a.user_id, name: user_name },
    date: a.date,
    check_in_at: a.check_in_at,
    check_in_location: locationOf(a.check_in_latitude, a.check_in_longitude),
    check_in_photo_url: a.check_in_photo_url,
    check_out_at: a.check_out_at,
    check_out_location: locationOf(a.check_out_latitude, a.check_out_longitude),
    check_out_photo_url: a.check_out_photo_url,
    worked_minutes: worked,
    notes: a.notes,
    source: a.source,
    created_at: a.created_at,
    updated_at: a.updated_at,
  }
}
export type PresentedAttendance = ReturnType<typeof present>

async function findAttendance(db: Db, workspaceId: number, id: number) {
  const [row] = await selectAttendances(db, attendanceScope.where(workspaceId, eq(attendances.id, id))).limit(1)
  if (!row) throw new NotFound('ATTENDANCE')
  return present(row)
}

const openOf = (workspaceId: number, userId: number) => attendanceScope.where(workspaceId, eq(attendances.user_id, userId), isNull(attendances.check_out_at))

/** The caller's open attendance (clocked in, not out), read inside the clock-in/out transaction. */
async function openAttendanceId(tx: Db, ctx: AuthedContext): Promise<number | undefined> {
  const [open] = await tx.select({ id: attendances.id }).from(attendances).where(openOf(ctx.actor.workspaceId, ctx.actor.userId)).limit(1)
  return open?.id
}

const attendanceList = defineList({
  scope: attendanceScope,
  select: selectAttendances,
  filters: {
    user_id: (id: number) => eq(attendances.user_id, id),
    team_id: (id: number, ctx) =>
      sql`${attendances.user_id} in (select ${teamMembers.user_id} from ${teamMembers} where ${teamMemberScope.where(ctx.actor.workspaceId, eq(teamMembers.team_id, id))})`,
    date_from: (date: string) => gte(attendances.date, date),
    date_to: (date: string) => lte(attendances.date, date),
  },
  sort: { date: attendances.date, check_in_at: attendances.check_in_at, created_at: attendances.created_at, id: attendances.id },
  defaultSort: { sort_by: 'date', sort_order: 'desc' },
  limits: DEFAULT_LIST,
})

export async function listAttendances(ctx: AuthedContext, query: AttendanceListQuery) {
  const result = await attendanceList(ctx, query)
  return { rows: result.rows.map(present), meta: result.meta }
}

/** Attendances of the workspace among `ids`, as the detail answers them. */
export async function attendancesByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return (await selectAttendances(db, attendanceScope.where(workspaceId, inArray(attendances.id, ids)))).map(present)
}

export const getAttendance = (ctx: AuthedContext, id: number) => findAttendance(ctx.deps.db.read, ctx.actor.workspaceId, id)

/** The caller's attendance of today (the workspace's local day), or the one still open, or null. */
export async function todayAttendance(ctx: AuthedContext) {
  const today = localDate(ctx.deps.clock.now(), ctx.actor.timeZone)
  const [row] = await selectAttendances(
    ctx.deps.db.read,
    attendanceScope.where(
      ctx.actor.workspaceId,
      eq(attendances.user_id, ctx.actor.userId),
      sql`(${attendances.date} = ${today} or ${attendances.check_out_at} is null)`,
    ),
  )
    .orderBy(sql`${attendances.check_in_at} desc`)
    .limit(1)
  return row ? present(row) : null
}

export async function clockIn(ctx: AuthedContext, input: ClockInput) {
  const location = requireLocation(input)
  return withPhotos(ctx, async (photos) => {
    const photoUrl = input.photo ? await photos.accept(input.photo, 'photo') : null
    return withTransaction(ctx, async ({ tx, audit }) => {
      const open = await openAttendanceId(tx, ctx)
      if (open !== undefined) throw new AppError('ATTENDANCE_ALREADY_OPEN', 'you are already clocked in', { attendance_id: open })
      await photos.record(tx)
      const now = ctx.deps.clock.now()
      const row = await attendanceScope.insert(tx, ctx.actor.workspaceId, {
        user_id: ctx.actor.userId,
        date: localDate(now, ctx.actor.timeZone),
        check_in_at: now.toISOString(),
        check_in_latitude: location.latitude,
        check_in_longitude: location.longitude,
        check_in_photo_url: photoUrl,
        notes: input.notes ?? null,
        source: 'mobile',
        created_by: ctx.actor.userId,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      const result = await findAttendance(tx, ctx.actor.workspaceId, row.id)
      await audit({ entityType: 'attendance', entityId: row.id, entityName: `${ctx.actor.name} · ${row.date}`, action: 'created', newValues: result })
      return result
    })
  })
}

export async function clockOut(ctx: AuthedContext, input: ClockInput) {
  const location = requireLocation(input)
  return withPhotos(ctx, async (photos) => {
    const photoUrl = input.photo ? await photos.accept(input.photo, 'photo') : null
    return withTransaction(ctx, async ({ tx, audit }) => {
      const open = await openAttendanceId(tx, ctx)
      if (open === undefined) throw new AppError('ATTENDANCE_NOT_OPEN', 'you are not clocked in')
      await photos.record(tx)
      const before = await findAttendance(tx, ctx.actor.workspaceId, open)
      const now = ctx.deps.clock.now().toISOString()
      await attendanceScope.update(tx, ctx.actor.workspaceId, open, {
        check_out_at: now,
        check_out_latitude: location.latitude,
        check_out_longitude: location.longitude,
        check_out_photo_url: photoUrl,
        ...(input.notes ? { notes: input.notes } : {}),
        updated_at: now,
      })
      const after = await findAttendance(tx, ctx.actor.workspaceId, open)
      await audit({ entityType: 'attendance', entityId: open, entityName: `${ctx.actor.name} · ${after.date}`, action: 'updated', before, after })
      return after
    })
  })
}

/** Office: a day entered by hand (a forgotten clock-in, a phone without signal). */
export function createAttendance(ctx: AuthedContext, input: ManualAttendanceInput) {
  const checkIn = parseDateTime(input.check_in_at)!
  const checkOut = input.check_out_at ? parseDateTime(input.check_out_at)! : null
  if (checkOut !== null && checkOut <= checkIn) throw ValidationFailed.field('check_out_at', 'must be after check_in_at')
  if (checkIn > ctx.deps.clock.now().getTime() + 5 * 60_000) throw ValidationFailed.field('check_in_at', 'must not be in the future')
  return withTransaction(ctx, async ({ tx, audit }) => {
    await assertWorkspaceUsers(tx, ctx.actor.workspaceId, [input.user_id], 'user_id')
    if (checkOut === null) {
      const [open] = await tx.select({ id: attendances.id }).from(attendances).where(openOf(ctx.actor.workspaceId, input.user_id)).limit(1)
      if (open) throw new AppError('ATTENDANCE_ALREADY_OPEN', 'this user already has an open attendance', { attendance_id: open.id })
    }
    const now = ctx.deps.clock.now().toISOString()
    const row = await attendanceScope.insert(tx, ctx.actor.workspaceId, {
      user_id: input.user_id,
      date: input.date,
      check_in_at: new Date(checkIn).toISOString(),
      check_out_at: checkOut === null ? null : new Date(checkOut).toISOString(),
      notes: input.notes ?? null,
      source: 'manual',
      created_by: ctx.actor.userId,
      created_at: now,
      updated_at: now,
    })
    const result = await findAttendance(tx, ctx.actor.workspaceId, row.id)
    await audit({ entityType: 'attendance', entityId: row.id, entityName: `${result.user.name} · ${row.date}`, action: 'created', newValues: result })
    return result
  })
}
