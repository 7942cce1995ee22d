/**
 * Daily: tombstones (`op = 'delete'` rows of the change log) older than TOMBSTONE_RETENTION_DAYS are
 * removed, and each workspace's horizon records the highest one removed. A cursor below its
 * workspace's horizon may have missed a deletion, so sync refuses it (400, errors.cursor) and the
 * phone starts over; any newer cursor saw every removed tombstone already. Rows of live entities
 * are never removed: they are what a first sync reads.
 */
import { and, eq, lt, max, sql } from 'drizzle-orm'
import { changeHorizons, changes } from '../../db/schema'
import type { Deps } from '../../platform/context'
import { TOMBSTONE_RETENTION_DAYS } from './sync.service'

const DAY_MS = 86_400_000

export async function purgeOldTombstones(deps: Deps): Promise<{ removed: number }> {
  const cutoff = new Date(deps.clock.now().getTime() - TOMBSTONE_RETENTION_DAYS * DAY_MS).toISOString()
  const removed = await deps.db.transaction(async (tx) => {
    const old = and(eq(changes.op, 'delete'), lt(changes.created_at, cutoff))
    const tops = await tx
      .select({ workspaceId: changes.workspace_id, seq: max(changes.seq) })
      .from(changes)
      .where(old)
      .groupBy(changes.workspace_id)
    for (const { workspaceId, seq } of tops) {
      await tx
        .insert(changeHorizons)
        .values({ workspace_id: workspaceId, seq: seq! })
        .onConflictDoUpdate({ target: changeHorizons.workspace_id, set: { seq: sql`max(${changeHorizons.seq}, excluded.seq)` } })
    }
    return (await tx.delete(changes).where(old).returning({ seq: changes.seq })).length
  })
  deps.logger.info('change log retention', { removed })
  return { removed }
}
