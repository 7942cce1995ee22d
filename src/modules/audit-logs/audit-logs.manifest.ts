/** What the audit-logs module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const auditLogsManifest = {
  permissions: [{ key: 'audit_log.view', group: 'administration', description: 'Read audit logs' }],
  // No module writes it, but the filter has always accepted it: a client sending it keeps its answer.
  auditEntityTypes: ['sales_order'],
  notSynced: { audit_logs: 'append-only history for the office’s audit log; no phone keeps a copy' },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'sales_order', true> {}
}
