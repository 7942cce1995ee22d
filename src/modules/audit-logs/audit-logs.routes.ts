import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { ok } from '../../platform/http/reply'
import { Envelope, IdParams, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { AuditLogPage, AuditLogSchema, auditLogQuery } from './audit-logs.schemas'
import { getAuditLog, listAuditLogs } from './audit-logs.service'

export const auditLogRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/audit-logs', tags: ['Audit logs'] })
    .use(platform)
    .get('', async ({ ctx, query }) => ok(await listAuditLogs(ctx, query), 'AUDIT_LOG_LIST', 'Success'), {
      auth: 'audit_log.view',
      query: auditLogQuery(),
      response: responses({ 200: Envelope(AuditLogPage) }),
      detail: { summary: 'List audit log entries (nested envelope, see docs/API.md §Envelopes)' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getAuditLog(ctx, params.id), 'AUDIT_LOG_FOUND', 'Success'), {
      auth: 'audit_log.view',
      params: IdParams,
      response: responses({ 200: Envelope(AuditLogSchema) }, [...AUTHED_ERRORS, 'AUDIT_LOG_NOT_FOUND']),
      detail: { summary: 'Get one audit log entry' },
    })
