import { Elysia } from 'elysia'
import type { Deps } from '../../platform/context'
import type { PlatformPlugin } from '../../platform/http/http'
import { metricsService } from './health.service'

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8'

/**
 * GET /api/metrics in the Prometheus text format. Operator-level, not tenant data: no user token;
 * open unless METRICS_TOKEN is set, then that bearer token is required.
 */
export const metricsRoutes = (platform: PlatformPlugin, deps: Deps) => {
  const metrics = metricsService(deps)
  return new Elysia({ tags: ['Health'] }).use(platform).get(
    '/metrics',
    async ({ request }) =>
      new Response(await metrics.render(request.headers.get('authorization')), {
        headers: { 'content-type': PROMETHEUS_TEXT, 'cache-control': 'no-store' },
      }),
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
