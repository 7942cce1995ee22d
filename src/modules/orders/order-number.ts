/**
 * Order numbers `SO-<YYYYMMDD>-<n>` (src/modules/orders/README.md; docs/API.md §Orders): the workspace's local
 * day of the order, then `n`, which increases per workspace (not per day) and is never given out twice.
 *
 * `n` comes from `order_counters` in ONE statement run inside the order's own transaction: an upsert that
 * creates the workspace's row at 1 or adds 1 to it, and returns the new value. Writers are serialised
 * (src/db/client.ts), so 30 concurrent creates get 30 distinct consecutive numbers; and a create that rolls
 * back takes its increment with it, so a refused order leaves no gap.
 */
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { orderCounters } from '../../db/schema'
import { isCalendarDate } from '../../lib/dates'
import { prepared } from '../../db/prepared'

const takeNumber = prepared((db) =>
  db
    .insert(orderCounters)
    .values({ workspace_id: sql.placeholder('workspaceId'), last: 1 })
    .onConflictDoUpdate({ target: orderCounters.workspace_id, set: { last: sql`${orderCounters.last} + 1` } })
    .returning({ last: orderCounters.last })
    .prepare(),
)

const NUMBER = /^SO-(\d{4})(\d{2})(\d{2})-([1-9]\d*)$/

/** `SO-20261125-17` from the local date `2026-11-25` and n 17. */
export function formatOrderNumber(localDate: string, n: number): string {
  if (!isCalendarDate(localDate)) throw new RangeError(`not a calendar date: ${localDate}`)
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`order number must be a positive integer, got ${n}`)
  return `SO-${localDate.replaceAll('-', '')}-${n}`
}

/** The local date and n of an order number, or null when it is not one (a bad date, a leading zero, n 0). */
export function parseOrderNumber(value: string): { date: string; n: number } | null {
  const match = NUMBER.exec(value)
  if (!match) return null
  const date = `${match[1]}-${match[2]}-${match[3]}`
  const n = Number(match[4])
  if (!isCalendarDate(date) || !Number.isSafeInteger(n)) return null
  return { date, n }
}

/** Takes the workspace's next `n`. Run it inside the transaction that inserts the order. */
export async function allocateOrderNumber(tx: Db, workspaceId: number): Promise<number> {
  const [row] = await takeNumber(tx).all({ workspaceId })
  return row.last
}
