/**
 * The push outbox keeps finished rows (sent, failed, pruned, skipped) for PUSH_DELIVERY_RETENTION_DAYS, so
 * admins can see how a recent notification was delivered (GET /office/v1/notifications/:id/deliveries),
 * then the nightly job removes them in short batches (../../db/batches.ts). Pending and sending rows are
 * never removed: they are the worker's, and a retry ends within an hour anyway.
 */
import { and, inArray, lt } from 'drizzle-orm'
import { removeInBatches } from '../../db/batches'
import { pushDeliveries } from '../../db/schema'
import type { Deps } from '../../platform/context'

export const PUSH_DELIVERY_RETENTION_DAYS = 30
const BATCH = 2_000
const DAY_MS = 86_400_000

export async function purgeOldPushDeliveries(deps: Deps, signal?: AbortSignal): Promise<{ removed: number }> {
  const cutoff = new Date(deps.clock.now().getTime() - PUSH_DELIVERY_RETENTION_DAYS * DAY_MS).toISOString()
  const removed = await removeInBatches(
    (fn) => deps.db.transaction(fn),
    BATCH,
    async (tx, batch) => {
      const old = tx
        .select({ id: pushDeliveries.id })
        .from(pushDeliveries)
        .where(and(inArray(pushDeliveries.status, ['sent', 'failed', 'pruned', 'skipped']), lt(pushDeliveries.updated_at, cutoff)))
        .limit(batch)
      const gone = await tx.delete(pushDeliveries).where(inArray(pushDeliveries.id, old)).returning({ id: pushDeliveries.id })
      return gone.length
    },
    signal,
  )
  deps.logger.info('push delivery retention', { removed })
  return { removed }
}
