import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { MAX_PAGE, UpdatedSinceParam } from '../../platform/data/pagination'
import { named, Nullable, NullableTimestamp, OneOf, Timestamp } from '../../platform/http/schema'
import { SubmissionQuery } from '../visits'
import { OfficeOrderQuery } from '../orders'

export const JobSchema = named(
  'ExportJob',
  Type.Object({
    id: Type.Integer(),
    workspace_id: Type.Integer(),
    user_id: Type.Integer(),
    kind: Type.String({ enum: ['submissions', 'sales_orders'] }),
    format: Type.String({ description: 'csv or pdf' }),
    filters: Type.Record(Type.String(), Type.Unknown()),
    status: Type.String({ description: 'queued, running, done or failed' }),
    row_count: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    download_url: Nullable(Type.String()),
    created_at: Timestamp(),
    started_at: NullableTimestamp(),
    finished_at: NullableTimestamp(),
  }),
)

export const QueuedExport = Type.Object({ id: Type.Integer(), status: Type.String({ description: 'queued, running, done or failed' }) })

export const ExportFormatParams = t.Object({ format: OneOf(['csv', 'pdf']) })
export type ExportFormat = Static<typeof ExportFormatParams>['format']
/** Sales orders export as CSV only (one row per line; a PDF of lines would help nobody). */
export const OrderExportFormatParams = t.Object({ format: OneOf(['csv']) })

/** The submission-list filters (paging and sorting do not apply to an export). */
const { page: _p, limit: _l, keyword: _k, sort_by: _s, sort_order: _o, ...filterProperties } = SubmissionQuery.properties
export const ExportQuery = t.Object(filterProperties)
export type ExportQuery = Static<typeof ExportQuery>

/** The sales-order list filters (paging and sorting do not apply to an export). */
const { page: _op, limit: _ol, sort_by: _os, sort_order: _oo, ...orderFilterProperties } = OfficeOrderQuery.properties
export const OrderExportQuery = t.Object(orderFilterProperties)

export const JobsQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE })),
  limit: t.Optional(t.Integer({ minimum: 1 })),
  updated_since: UpdatedSinceParam,
})
export type JobsQuery = Static<typeof JobsQuery>
