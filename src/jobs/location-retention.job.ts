/**
 * Daily: removes location pings older than each workspace's `location_retention_days` (default 90,
 * docs/API.md §Location tracking), in batches so the writer is never held for long, and drops a user from the live map
 * once their newest ping is past retention too.
 */
import { inArray, lt } from 'drizzle-orm'
import { removeInBatches } from '../db/batches'
import { latestLocations, locationPings, workspaces } from '../db/schema'
import { workspaceScoped } from '../platform/data/scope'
import type { Deps } from '../platform/context'

/** The job visits every workspace in turn, each with its own retention; within one, pings are read through their scope. */
const pingScope = workspaceScoped(locationPings)
const latestLocationScope = workspaceScoped(latestLocations)

const DAY_MS = 86_400_000
/**
 * Pings removed per write transaction: 1,000 hold the event loop ~20–30 ms on the demo database
 * (5,000 held it ~90 ms; docs/PERFORMANCE.md "Maintenance jobs and the event loop").
 */
export const RETENTION_BATCH = 1_000

export async function purgeExpiredLocations(deps: Deps, signal?: AbortSignal): Promise<{ removed: number; workspaces: number }> {
  const now = deps.clock.now().getTime()
  const all = await deps.db.read.select({ id: workspaces.id, days: workspaces.location_retention_days }).from(workspaces)
  let removed = 0
  for (const workspace of all) {
    const cutoff = new Date(now - workspace.days * DAY_MS).toISOString()
    removed += await removeInBatches(
      (fn) => deps.db.transaction(fn),
      RETENTION_BATCH,
      async (tx, limit) => {
        const expired = tx
          .select({ id: locationPings.id })
          .from(locationPings)
          .where(pingScope.where(workspace.id, lt(locationPings.recorded_at, cutoff)))
          .limit(limit)
        return (await tx.delete(locationPings).where(inArray(locationPings.id, expired)).returning({ id: locationPings.id })).length
      },
      signal,
    )
    await deps.db.transaction(async (tx) => {
      await tx.delete(latestLocations).where(latestLocationScope.where(workspace.id, lt(latestLocations.recorded_at, cutoff)))
    })
  }
  deps.logger.info('location retention', { removed, workspaces: all.length })
  return { removed, workspaces: all.length }
}
