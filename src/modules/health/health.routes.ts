import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { Elysia } from 'elysia'
import type { Deps } from '../../platform/context'
import type { PlatformPlugin } from '../../platform/http'
import { Envelope } from '../../platform/schema'

/** GET /api/health: no token; 200 when the database answers, 503 otherwise (for load balancers). */
export const healthRoutes = (platform: PlatformPlugin, deps: Deps) =>
  new Elysia({ tags: ['Health'] }).use(platform).get(
    '/health',
    async ({ status }) => {
      try {
        await deps.db.read.run(sql`select 1`)
        return { success: true, message: 'Service is healthy', code: 'HEALTHY', data: { status: 'ok', db: 'ok' } }
      } catch {
        return status(503, { success: false, message: 'Database unavailable', code: 'UNHEALTHY', data: { status: 'degraded', db: 'error' } })
      }
    },
    {
      response: {
        200: Envelope(Type.Object({ status: Type.String(), db: Type.String() })),
        503: Envelope(Type.Object({ status: Type.String(), db: Type.String() })),
      },
      detail: { summary: 'Liveness and database check', security: [] },
    },
  )
