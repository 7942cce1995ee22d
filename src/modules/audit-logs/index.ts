/**
 * The face of the audit-logs module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { auditLogRoutes } from './audit-logs.routes'
export { auditLogsManifest } from './audit-logs.manifest'
export { auditLogList } from './audit-logs.service'
