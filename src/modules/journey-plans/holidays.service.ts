/**
 * Holidays (docs/API.md §Journey plans): workspace-wide local dates on which no visit is generated.
 * One per date (409 HOLIDAY_ALREADY_EXISTS). Declaring a holiday on today or a later date removes, in
 * the same transaction, the generated visits of that date that are still `scheduled` (detached and
 * soft-deleted like an edit's, so phones get sync deletions); visits planned by hand stay. Deleting a
 * holiday (for good: the audit log keeps it) generates that date's visits again at once when it falls
 * within the horizon, as the nightly run would.
 */
import { and, eq, gte, inArray, lte, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { holidays } from '../../db/schema'
import { AlreadyExists, NotFound, ValidationFailed } from '../../lib/errors'
import { localDate } from '../../lib/time-zones'
import type { AuthedContext } from '../../platform/context'
import { defineList } from '../../platform/data/list'
import { DEFAULT_LIST, type Page } from '../../platform/data/pagination'
import { withTransaction } from '../../platform/data/transaction'
import { activePlans, generateVisits, holidayScope, horizonDays, horizonRange, removeGeneratedVisitsOn } from './generation'
import type { HolidayInput, HolidayListQuery } from './journey-plans.schemas'

type HolidayRow = typeof holidays.$inferSelect

const holidayList = defineList({
  scope: holidayScope,
  search: { columns: [sql`lower(${holidays.name})`] },
  filters: {
    date_from: (date: string) => gte(holidays.date, date),
    date_to: (date: string) => lte(holidays.date, date),
  },
  sort: { date: holidays.date, created_at: holidays.created_at, updated_at: holidays.updated_at, name: holidays.name, id: holidays.id },
  defaultSort: { sort_by: 'date', sort_order: 'asc' },
  limits: DEFAULT_LIST,
})

/** The workspace's holidays, by date (filters date_from, date_to inclusive; keyword on the name). */
export function listHolidays(ctx: AuthedContext, query: HolidayListQuery): Promise<Page<HolidayRow>> {
  if (query.date_from && query.date_to && query.date_to < query.date_from) throw ValidationFailed.field('date_to', 'must not be before date_from')
  return holidayList(ctx, query)
}

/** Holidays of the workspace among `ids`, as created (the office change feed's loader). */
export async function holidaysByIds(db: Db, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return []
  return db
    .select()
    .from(holidays)
    .where(holidayScope.where(workspaceId, inArray(holidays.id, ids)))
}

async function findHoliday(db: Db, workspaceId: number, id: number): Promise<HolidayRow> {
  const holiday = await holidayScope.find(db, workspaceId, id)
  if (!holiday) throw new NotFound('HOLIDAY')
  return holiday
}

export function createHoliday(ctx: AuthedContext, input: HolidayInput) {
  const workspaceId = ctx.actor.workspaceId
  return withTransaction(ctx, async (scope) => {
    if (await holidayScope.isTaken(scope.tx, workspaceId, holidays.date, input.date))
      throw new AlreadyExists('HOLIDAY', 'date', `${input.date} is already a holiday`)
    const now = ctx.deps.clock.now().toISOString()
    const holiday = await holidayScope.insert(scope.tx, workspaceId, { date: input.date, name: input.name, created_at: now, updated_at: now })
    await scope.audit({ entityType: 'holiday', entityId: holiday.id, entityName: `${holiday.name} (${holiday.date})`, action: 'created', newValues: holiday })
    // A past date's visits are history (missed or done); today's and later ones not yet started go.
    if (input.date >= localDate(ctx.deps.clock.now(), ctx.actor.timeZone)) await removeGeneratedVisitsOn(scope, ctx, input.date, `holiday ${input.name}`)
    return holiday
  })
}

export async function deleteHoliday(ctx: AuthedContext, id: number) {
  const workspaceId = ctx.actor.workspaceId
  const holiday = await withTransaction(ctx, async (scope) => {
    const current = await findHoliday(scope.tx, workspaceId, id)
    await scope.tx.delete(holidays).where(holidayScope.where(workspaceId, and(eq(holidays.id, id))))
    await scope.audit({ entityType: 'holiday', entityId: id, entityName: `${current.name} (${current.date})`, action: 'deleted', oldValues: current })
    return current
  })
  const range = horizonRange(ctx.deps.clock.now(), ctx.actor.timeZone, await horizonDays(ctx.deps.db.read, workspaceId))
  if (holiday.date >= range.from && holiday.date <= range.to) {
    try {
      for (const plan of await activePlans(ctx.deps.db.read, workspaceId)) await generateVisits(ctx, plan.id, { from: holiday.date, to: holiday.date })
    } catch (error) {
      // The holiday is gone; the nightly run creates what this run could not.
      ctx.deps.logger.error('journey plan generation after a holiday was removed failed', { request_id: ctx.meta.requestId, error: String(error) })
    }
  }
  return holiday
}
