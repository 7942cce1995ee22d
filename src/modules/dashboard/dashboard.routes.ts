import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { ok } from '../../platform/http/reply'
import { Envelope, responses } from '../../platform/http/schema'
import { DashboardMetrics, DashboardSummary, RangeQuery } from './dashboard.schemas'
import { dashboardMetrics, dashboardSummary } from './dashboard.service'

export const dashboardRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/dashboard', tags: ['Dashboard'] })
    .use(platform)
    .get('/metrics', async ({ ctx, query }) => ok(await dashboardMetrics(ctx, query)), {
      auth: 'dashboard.view',
      query: RangeQuery,
      response: responses({ 200: Envelope(DashboardMetrics) }),
      detail: { summary: 'Visits by status, completion rate, approvals, active users and pings for a date range' },
    })
    .get('/summary', async ({ ctx, query }) => ok(await dashboardSummary(ctx, query)), {
      auth: 'dashboard.view',
      query: RangeQuery,
      response: responses({ 200: Envelope(DashboardSummary) }),
      detail: { summary: 'Per team and per user figures for a date range' },
    })
