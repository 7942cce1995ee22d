import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { listed } from '../../platform/http/reply'
import { ListEnvelope, responses } from '../../platform/http/schema'
import { FieldDayQuery, FieldDayRow, RetailExecutionQuery, RetailExecutionRow } from './reports.schemas'
import { fieldDayReport } from './reports.service'
import { retailExecutionReport } from './retail-execution'

export const reportRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/reports', tags: ['Reports'] })
    .use(platform)
    .get('/field-day', async ({ ctx, query }) => listed(await fieldDayReport(ctx, query)), {
      auth: 'visit:view',
      query: FieldDayQuery,
      response: responses({ 200: ListEnvelope(FieldDayRow) }),
      detail: { summary: 'Field day: distance, visits, time on site and activity of each field user for a local day' },
    })
    .get('/retail-execution', async ({ ctx, query }) => listed(await retailExecutionReport(ctx, query)), {
      auth: 'visit:view',
      query: RetailExecutionQuery,
      response: responses({ 200: ListEnvelope(RetailExecutionRow) }),
      detail: {
        summary: 'Retail execution: availability, out-of-stock outlets, facings and shelf price against list price per product over a period',
      },
    })
