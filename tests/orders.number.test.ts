/**
 * Order numbers `SO-<YYYYMMDD local>-<n>` (src/modules/orders/order-number.ts; docs/API.md §Orders): the format,
 * and `n` taken in one statement inside the order's transaction, distinct and consecutive under 30 concurrent
 * creates on both drivers.
 */
import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { Database } from '../src/db/client'
import { orderCounters, workspaces } from '../src/db/schema'
import { allocateOrderNumber, formatOrderNumber, parseOrderNumber } from '../src/modules/orders'
import { withDatabase } from './support/database'

const now = '2026-11-25T01:00:00.000Z'
async function twoWorkspaces(db: Database): Promise<[number, number]> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .insert(workspaces)
      .values([
        { name: 'A', created_at: now, updated_at: now },
        { name: 'B', created_at: now, updated_at: now },
      ])
      .returning({ id: workspaces.id })
    return [rows[0].id, rows[1].id]
  })
}

describe('the order number format', () => {
  test('SO-, the local date without dashes, then n without padding', () => {
    expect(formatOrderNumber('2026-11-25', 1)).toBe('SO-20261125-1')
    expect(formatOrderNumber('2026-01-05', 1234)).toBe('SO-20260105-1234')
  })

  test('parses back what it formats', () => {
    expect(parseOrderNumber('SO-20261125-17')).toEqual({ date: '2026-11-25', n: 17 })
    expect(parseOrderNumber(formatOrderNumber('2028-02-29', 9_007_199_254_740_991))).toEqual({ date: '2028-02-29', n: 9_007_199_254_740_991 })
  })

  test('refuses what is not an order number', () => {
    for (const bad of [
      'SO-20261125-0',
      'SO-20261125-017',
      'SO-20260230-1',
      'SO-2026112-1',
      'so-20261125-1',
      'SO-20261125-',
      'SO-20261125-1 ',
      'SO-20261125-99999999999999999',
    ]) {
      expect(parseOrderNumber(bad)).toBeNull()
    }
    expect(() => formatOrderNumber('2026-02-30', 1)).toThrow(RangeError)
    expect(() => formatOrderNumber('2026-11-25', 0)).toThrow(RangeError)
    expect(() => formatOrderNumber('2026-11-25', 1.5)).toThrow(RangeError)
  })
})

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`order number allocation on ${driver}`, () => {
    test('30 concurrent orders get 30 distinct consecutive numbers, from 1, per workspace', async () => {
      await withDatabase(driver, async (db) => {
        const [a, b] = await twoWorkspaces(db)
        const taken = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            db.transaction(async (tx) => {
              const n = await allocateOrderNumber(tx, a)
              // The rest of an order's transaction happens after the number is taken; let the others interleave.
              await Bun.sleep(i % 3)
              return n
            }),
          ),
        )
        expect([...taken].sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
        expect(await db.transaction((tx) => allocateOrderNumber(tx, b))).toBe(1)
        expect(await db.transaction((tx) => allocateOrderNumber(tx, a))).toBe(31)
        expect(await db.read.select().from(orderCounters).orderBy(orderCounters.workspace_id)).toEqual([
          { workspace_id: a, last: 31 },
          { workspace_id: b, last: 1 },
        ])
      })
    })

    test('an order whose transaction rolls back gives its number back: no gap', async () => {
      await withDatabase(driver, async (db) => {
        const [a] = await twoWorkspaces(db)
        expect(await db.transaction((tx) => allocateOrderNumber(tx, a))).toBe(1)
        await expect(
          db.transaction(async (tx) => {
            expect(await allocateOrderNumber(tx, a)).toBe(2)
            throw new Error('line refused')
          }),
        ).rejects.toThrow('line refused')
        expect(await db.transaction((tx) => allocateOrderNumber(tx, a))).toBe(2)
        expect((await db.read.select().from(orderCounters).where(eq(orderCounters.workspace_id, a)))[0].last).toBe(2)
      })
    })
  })
}
