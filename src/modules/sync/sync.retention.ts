/**
 * Daily: tombstones (`op = 'delete'` rows of the change log) older than TOMBSTONE_RETENTION_DAYS are
 * removed, and each workspace's horizon records the highest one removed. A cursor below its
 * workspace's horizon may have missed a deletion, so sync refuses it (400, errors.cursor) and the
 * phone starts over; any newer cursor saw every removed tombstone already. Rows of live entities
 * are never removed: they are what a first sync reads.
 *
 * The log is walked in windows of TOMBSTONE_WINDOW sequence numbers (a primary-key range), each in
 * its own write transaction that removes the window's old tombstones and raises their workspaces'
 * horizons together — so a horizon never lags a removal, and no window holds the writer or the event
 * loop for long (one transaction over 100,000 tombstones held both for ~0.7 s; docs/PERFORMANCE.md
 * "Maintenance jobs and the event loop").
 */
import { and, eq, gt, lte, lt, max, min, sql } from 'drizzle-orm'
import { betweenBatches } from '../../db/batches'
import { changeHorizons, changes } from '../../db/schema'
import type { Deps } from '../../platform/context'
import { TOMBSTONE_RETENTION_DAYS } from './sync.service'

const DAY_MS = 86_400_000
/** Sequence numbers per transaction: at most this many rows read and removed at once. */
export const TOMBSTONE_WINDOW = 2_000

/** The lowest sequence number stored above `after`, or null. */
async function storedAfter(deps: Deps, after: number): Promise<number | null> {
  const [row] = await deps.db.read
    .select({ seq: min(changes.seq) })
    .from(changes)
    .where(gt(changes.seq, after))
  return row?.seq ?? null
}

export async function purgeOldTombstones(deps: Deps, signal?: AbortSignal): Promise<{ removed: number }> {
  const cutoff = new Date(deps.clock.now().getTime() - TOMBSTONE_RETENTION_DAYS * DAY_MS).toISOString()
  const [range] = await deps.db.read.select({ last: max(changes.seq) }).from(changes)
  let removed = 0
  if (range?.last != null) {
    // Each window starts at the next stored row: updates leave gaps in the sequence (an entity keeps
    // only its newest row), which are skipped instead of walked.
    for (let from = await storedAfter(deps, 0); from !== null && from <= range.last; from = await storedAfter(deps, from + TOMBSTONE_WINDOW - 1)) {
      const start = from - 1
      const count = await deps.db.transaction(async (tx) => {
        const gone = await tx
          .delete(changes)
          .where(and(gt(changes.seq, start), lte(changes.seq, start + TOMBSTONE_WINDOW), eq(changes.op, 'delete'), lt(changes.created_at, cutoff)))
          .returning({ workspaceId: changes.workspace_id, seq: changes.seq })
        const tops = new Map<number, number>()
        for (const { workspaceId, seq } of gone) tops.set(workspaceId, Math.max(tops.get(workspaceId) ?? 0, seq))
        for (const [workspaceId, seq] of tops) {
          await tx
            .insert(changeHorizons)
            .values({ workspace_id: workspaceId, seq })
            .onConflictDoUpdate({ target: changeHorizons.workspace_id, set: { seq: sql`max(${changeHorizons.seq}, excluded.seq)` } })
        }
        return gone.length
      })
      removed += count
      // A window without old tombstones wrote nothing: no WAL for the checkpoint worker to catch up on.
      if (count > 0) await betweenBatches(signal)
    }
  }
  deps.logger.info('change log retention', { removed })
  return { removed }
}
