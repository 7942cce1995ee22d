/**
 * Operator checks: the liveness answer of GET /api/health and the Prometheus text of GET /api/metrics.
 * Neither is tenant data; they take the app's dependencies, not a caller.
 */
import { timingSafeEqual } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Deps } from '../../platform/context'
import { AppError } from '../../lib/errors'
import { fileBytes } from '../../platform/observability'

/** Whether the database answers a trivial query. */
export async function databaseAnswers(deps: Deps): Promise<boolean> {
  try {
    await deps.db.read.run(sql`select 1`)
    return true
  } catch {
    return false
  }
}

/**
 * The metrics of this process for a request's Authorization header: open unless METRICS_TOKEN is set,
 * then that bearer token is required (compared in constant time).
 */
export function metricsService(deps: Deps) {
  const expected = deps.config.METRICS_TOKEN ? Buffer.from(`Bearer ${deps.config.METRICS_TOKEN}`) : null
  const authorised = (header: string | null) => {
    if (!expected) return true
    const given = Buffer.from(header ?? '')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  const databaseBytes = async () => {
    const path = deps.config.database.path
    if (path) return fileBytes(path)
    const [row] = await deps.db.read.all<{ bytes: number }>(sql`select page_count * page_size as bytes from pragma_page_count(), pragma_page_size()`)
    return Number(row?.bytes ?? 0)
  }
  const wal = () => {
    const last = deps.db.checkpointer?.last
    // A pass that failed (busy) reports -1: nothing to show until the next one.
    return last && last.log >= 0 ? { frames: last.log, uncopied: last.log - last.checkpointed } : null
  }

  return {
    /** The Prometheus text; 401 without the token when one is configured. */
    render(authorization: string | null): Promise<string> {
      if (!authorised(authorization)) throw new AppError('UNAUTHORIZED', 'a valid metrics token is required')
      return deps.metrics.render({
        databaseBytes,
        websockets: () => deps.hub.connections,
        wal,
        replayLog: () => ({ bytes: deps.hub.replay.bytes, events: deps.hub.replay.events }),
        memoryBudgetBytes: deps.config.memory.budgetMb * 1024 * 1024,
      })
    },
  }
}
