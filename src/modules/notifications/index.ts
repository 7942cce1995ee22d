/**
 * The face of the notifications module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { type NotificationRow, notify, workspaceAdminIds } from './notifications.service'
export { notificationRoutes, pushRoutes } from './notifications.routes'
export { notificationsManifest } from './notifications.manifest'
export { PushWorker, type PushWorkerOptions, retryDelay } from './push.worker'
export { type HostResolver, systemResolver } from './push.endpoint'
export { fcmErrorCodes, parseRetryAfter, readBounded } from './push.channels'
export { PUSH_DELIVERY_RETENTION_DAYS, purgeOldPushDeliveries } from './push.retention'
