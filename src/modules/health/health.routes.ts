import { Elysia } from 'elysia'
import type { Deps } from '../../platform/context'
import type { PlatformPlugin } from '../../platform/http/http'
import { HealthReply } from './health.schemas'
import { databaseAnswers } from './health.service'

/** GET /api/health: no token; 200 when the database answers, 503 otherwise (for load balancers). */
export const healthRoutes = (platform: PlatformPlugin, deps: Deps) =>
  new Elysia({ tags: ['Health'] })
    .use(platform)
    .get(
      '/health',
      async ({ status }) =>
        (await databaseAnswers(deps))
          ? { success: true, message: 'Service is healthy', code: 'HEALTHY', data: { status: 'ok', db: 'ok' } }
          : status(503, { success: false, message: 'Database unavailable', code: 'UNHEALTHY', data: { status: 'degraded', db: 'error' } }),
      {
        response: { 200: HealthReply, 503: HealthReply },
        detail: { summary: 'Liveness and database check', security: [] },
      },
    )
