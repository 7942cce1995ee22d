import { timingSafeEqual } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { Elysia } from 'elysia'
import type { Deps } from '../../platform/context'
import { AppError } from '../../platform/errors'
import type { PlatformPlugin } from '../../platform/http'
import { fileBytes } from '../../platform/observability'

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8'

/**
 * GET /api/metrics in the Prometheus text format. Operator-level, not tenant data: no user token;
 * open unless METRICS_TOKEN is set, then that bearer token is required (compared in constant time).
 */
export const metricsRoutes = (platform: PlatformPlugin, deps: Deps) => {
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

  return new Elysia({ tags: ['Health'] }).use(platform).get(
    '/metrics',
    async ({ request }) => {
      if (!authorised(request.headers.get('authorization'))) throw new AppError(401, 'UNAUTHORIZED', 'a valid metrics token is required')
      const body = await deps.metrics.render({ databaseBytes, websockets: () => deps.hub.connections, wal })
      return new Response(body, { headers: { 'content-type': PROMETHEUS_TEXT, 'cache-control': 'no-store' } })
    },
    {
      public: true,
      detail: {
        summary: 'Prometheus metrics: requests and latency per route, pings ingested, database size',
        description: 'Open unless METRICS_TOKEN is set; then send `Authorization: Bearer <METRICS_TOKEN>`.',
        responses: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
  )
}
