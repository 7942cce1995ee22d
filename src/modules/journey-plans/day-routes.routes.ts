/** The day route of a field user (docs/API.md §Journey plans, "The day route"). */
import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, Envelope, responses } from '../../platform/http/schema'
import { DayRouteQuery, DayRouteSchema, OptimizeBody } from './day-routes.schemas'
import { dayRoute, optimizeDayRoute } from './day-routes.service'

const OneRoute = Envelope(DayRouteSchema)

export const dayRouteRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/day-routes', tags: ['Journey plans'] })
    .use(platform)
    .get('', async ({ ctx, query }) => ok(await dayRoute(ctx, query)), {
      auth: 'visit:view',
      query: DayRouteQuery,
      response: responses({ 200: OneRoute }, [...AUTHED_ERRORS, 'USER_NOT_FOUND']),
      detail: { summary: 'A field user’s visits of a local day in route order, with straight-line legs' },
    })
    .post('/optimize', async ({ ctx, body }) => ok(await optimizeDayRoute(ctx, body), 'DAY_ROUTE_OPTIMIZED', 'route optimised'), {
      auth: 'visit:create',
      body: OptimizeBody,
      response: responses({ 200: OneRoute }),
      detail: { summary: 'Reorder a field user’s scheduled visits of a day to shorten the route, and store the order' },
    })
