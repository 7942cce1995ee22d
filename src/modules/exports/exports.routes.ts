import { Elysia, status } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { listed, ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, Envelope, errorResponses, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import { ExportFormatParams, ExportQuery, JobSchema, JobsQuery, OrderExportFormatParams, OrderExportQuery, QueuedExport } from './exports.schemas'
import { downloadExport, getExportJob, listExportJobs, requestExport } from './exports.service'

export const exportRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/export', tags: ['Exports'] })
    .use(platform)
    .get(
      '/submissions/:format',
      async ({ ctx, params, query }) => status(202, ok(await requestExport(ctx, 'submissions', params.format, query), 'EXPORT_QUEUED', 'export queued')),
      {
        auth: 'export.view',
        params: ExportFormatParams,
        query: ExportQuery,
        response: responses({ 202: Envelope(QueuedExport) }),
        detail: { summary: 'Start an export of submissions (csv or pdf) with the submission-list filters' },
      },
    )
    .get(
      '/sales-orders/:format',
      async ({ ctx, params, query }) => status(202, ok(await requestExport(ctx, 'sales_orders', params.format, query), 'EXPORT_QUEUED', 'export queued')),
      {
        auth: 'export.view',
        params: OrderExportFormatParams,
        query: OrderExportQuery,
        response: responses({ 202: Envelope(QueuedExport) }),
        detail: { summary: 'Start a CSV export of sales orders, one row per line, with the order-list filters (also needs sales_order:view)' },
      },
    )
    .get('/jobs', async ({ ctx, query }) => listed(await listExportJobs(ctx, query)), {
      auth: 'export.view',
      query: JobsQuery,
      response: responses({ 200: ListEnvelope(JobSchema) }),
      detail: { summary: 'Your export jobs, newest first' },
    })
    .get('/jobs/:id', async ({ ctx, params }) => ok(await getExportJob(ctx, params.id)), {
      auth: 'export.view',
      params: IdParams,
      response: responses({ 200: Envelope(JobSchema) }, [...AUTHED_ERRORS, 'EXPORT_JOB_NOT_FOUND']),
      detail: { summary: 'One of your export jobs' },
    })
    .get(
      '/jobs/:id/download',
      async ({ ctx, params }) => {
        const { file, contentType, filename } = await downloadExport(ctx, params.id)
        return new Response(file, {
          headers: { 'content-type': contentType, 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'private, no-store' },
        })
      },
      {
        auth: 'export.view',
        params: IdParams,
        detail: {
          summary: 'Download a finished export (409 EXPORT_NOT_READY before, 409 EXPORT_FAILED if it failed)',
          responses: {
            200: {
              description: 'text/csv or application/pdf',
              content: { 'text/csv': { schema: { type: 'string' } }, 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
            },
            ...errorResponses([...AUTHED_ERRORS, 'EXPORT_JOB_NOT_FOUND', 'EXPORT_NOT_READY', 'EXPORT_FAILED']),
          },
        },
      },
    )
