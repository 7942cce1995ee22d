import { Type } from '@sinclair/typebox'
import { Elysia, status, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/pagination'
import { listed, ok } from '../../platform/reply'
import { Envelope, IdParams, ListEnvelope, Nullable, NullableTimestamp, OneOf, responses, Timestamp } from '../../platform/schema'
import { SubmissionQuery } from '../visits/visits.schemas'
import { downloadExport, getExportJob, listExportJobs, requestExport } from './exports.service'

const JobSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  user_id: Type.Integer(),
  kind: Type.String(),
  format: Type.String({ description: 'csv or pdf' }),
  filters: Type.Record(Type.String(), Type.Unknown()),
  status: Type.String({ description: 'queued, running, done or failed' }),
  row_count: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  download_url: Nullable(Type.String()),
  created_at: Timestamp(),
  started_at: NullableTimestamp(),
  finished_at: NullableTimestamp(),
})

/** The submission-list filters (paging and sorting do not apply to an export). */
const { page: _p, limit: _l, keyword: _k, sort_by: _s, sort_order: _o, ...filterProperties } = SubmissionQuery.properties
const ExportQuery = t.Object(filterProperties)

export const exportRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/export', tags: ['Exports'] })
    .use(platform)
    .get(
      '/submissions/:format',
      async ({ ctx, params, query }) => status(202, ok(await requestExport(ctx, params.format, query), 'EXPORT_QUEUED', 'export queued')),
      {
        auth: 'export.view',
        params: t.Object({ format: OneOf(['csv', 'pdf']) }),
        query: ExportQuery,
        response: responses({ 202: Envelope(Type.Object({ id: Type.Integer(), status: Type.String() })) }),
        detail: { summary: 'Start an export of submissions (csv or pdf) with the submission-list filters' },
      },
    )
    .get('/jobs', async ({ ctx, query }) => listed(await listExportJobs(ctx, query)), {
      auth: 'export.view',
      query: t.Object({
        page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
        limit: t.Optional(t.Integer({ minimum: 1 })),
        updated_since: UpdatedSinceParam,
      }),
      response: responses({ 200: ListEnvelope(JobSchema) }),
      detail: { summary: 'Your export jobs, newest first' },
    })
    .get('/jobs/:id', async ({ ctx, params }) => ok(await getExportJob(ctx, params.id)), {
      auth: 'export.view',
      params: IdParams,
      response: responses({ 200: Envelope(JobSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'One of your export jobs' },
    })
    .get('/jobs/:id/download', ({ ctx, params }) => downloadExport(ctx, params.id), {
      auth: 'export.view',
      params: IdParams,
      detail: {
        summary: 'Download a finished export (409 EXPORT_NOT_READY before, 409 EXPORT_FAILED if it failed)',
        responses: {
          200: {
            description: 'text/csv or application/pdf',
            content: { 'text/csv': { schema: { type: 'string' } }, 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
          404: { description: 'EXPORT_JOB_NOT_FOUND' },
          409: { description: 'EXPORT_NOT_READY or EXPORT_FAILED' },
        },
      },
    })
