import type { Deps } from '../platform/context'

/** Removes idempotency records past their 24 hours (docs/API.md §Idempotency). Hourly. */
export async function cleanupIdempotencyKeys(deps: Deps, signal?: AbortSignal): Promise<number> {
  const removed = await deps.idempotency.removeExpired((fn) => deps.db.transaction(fn), undefined, signal)
  deps.logger.info('idempotency cleanup', { removed })
  return removed
}
