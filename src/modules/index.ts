/**
 * Every module of the service, in order: the one list the composition root (src/app.ts) walks.
 * Adding a module is one line here (README "Adding a resource"). The order is the order in which
 * GET /office/v1/permissions lists the modules' permission keys, in which services are built (the
 * export runner last: it uses the others) and in which routes are mounted. Where two modules' paths
 * overlap (master-data's /outlets/channels beside outlets' /outlets/:id, exports' /visits/export
 * beside visits' /visits/:id) Elysia's router takes the static segment first whatever the order.
 */
import type { DerivedObject } from '../db/derived'
import type { Module } from '../platform/manifest'
import { searchObjects } from '../platform/search-index'
import { syncTriggers } from '../platform/sync-feed'
import { attendanceManifest } from './attendance/attendance.manifest'
import { attendanceRoutes } from './attendance/attendance.routes'
import { auditLogsManifest } from './audit-logs/audit-logs.manifest'
import { auditLogRoutes } from './audit-logs/audit-logs.routes'
import { authManifest } from './auth/auth.manifest'
import { authRoutes } from './auth/auth.routes'
import { catalogueManifest } from './catalogue/catalogue.manifest'
import { catalogueRoutes } from './catalogue/catalogue.routes'
import { dashboardManifest } from './dashboard/dashboard.manifest'
import { dashboardRoutes } from './dashboard/dashboard.routes'
import { exportsManifest } from './exports/exports.manifest'
import { exportRoutes } from './exports/exports.routes'
import { ExportRunner } from './exports/exports.service'
import { filesManifest } from './files/files.manifest'
import { fileRoutes } from './files/files.routes'
import { formsManifest } from './forms/forms.manifest'
import { formRoutes } from './forms/forms.routes'
import { healthRoutes } from './health/health.routes'
import { metricsRoutes } from './health/metrics.routes'
import { locationsManifest } from './locations/locations.manifest'
import { locationRoutes } from './locations/locations.routes'
import { PingTrail } from './locations/ping-trail'
import { masterDataModule } from './master-data/master-data.entities'
import { masterDataManifest } from './master-data/master-data.manifest'
import { ordersManifest } from './orders/orders.manifest'
import { journeyPlansManifest } from './journey-plans/journey-plans.manifest'
import { notificationsManifest } from './notifications/notifications.manifest'
import { notificationRoutes } from './notifications/notifications.routes'
import { storeOnlySender } from './notifications/notifications.service'
import { outletsManifest } from './outlets/outlets.manifest'
import { outletRoutes } from './outlets/outlets.routes'
import { profileRoutes } from './profile/profile.routes'
import { projectsManifest } from './projects/projects.manifest'
import { projectRoutes } from './projects/projects.routes'
import { regionalManifest } from './regional/regional.manifest'
import { regionalRoutes } from './regional/regional.routes'
import { embeddedSource, upstreamSource } from './regional/regional.source'
import { reportRoutes } from './reports/reports.routes'
import { rolesManifest } from './roles/roles.manifest'
import { roleRoutes } from './roles/roles.routes'
import { syncManifest } from './sync/sync.manifest'
import { syncRoutes } from './sync/sync.routes'
import { teamsManifest } from './teams/teams.manifest'
import { teamRoutes } from './teams/teams.routes'
import { usersManifest } from './users/users.manifest'
import { userRoutes } from './users/users.routes'
import { visitsManifest } from './visits/visits.manifest'
import { visitRoutes } from './visits/visits.routes'
import { workspacesManifest } from './workspaces/workspaces.manifest'
import { workspaceRoutes } from './workspaces/workspaces.routes'

export const MODULES: readonly Module[] = [
  { name: 'health', routes: [healthRoutes, metricsRoutes] },
  { name: 'auth', manifest: authManifest, routes: [authRoutes] },
  { name: 'master-data', manifest: masterDataManifest, routes: [masterDataModule] },
  { name: 'outlets', manifest: outletsManifest, routes: [outletRoutes] },
  { name: 'forms', manifest: formsManifest, routes: [formRoutes] },
  { name: 'projects', manifest: projectsManifest, routes: [projectRoutes] },
  { name: 'teams', manifest: teamsManifest, routes: [teamRoutes] },
  { name: 'catalogue', manifest: catalogueManifest, routes: [catalogueRoutes] },
  { name: 'users', manifest: usersManifest, routes: [userRoutes] },
  { name: 'roles', manifest: rolesManifest, routes: [roleRoutes] },
  { name: 'workspaces', manifest: workspacesManifest, routes: [workspaceRoutes] },
  { name: 'audit-logs', manifest: auditLogsManifest, routes: [auditLogRoutes] },
  { name: 'visits', manifest: visitsManifest, routes: [visitRoutes] },
  { name: 'files', manifest: filesManifest, routes: [fileRoutes] },
  { name: 'orders', manifest: ordersManifest, routes: [] },
  { name: 'journey-plans', manifest: journeyPlansManifest, routes: [] },
  { name: 'locations', manifest: locationsManifest, routes: [locationRoutes], services: () => ({ pingTrail: new PingTrail() }) },
  {
    name: 'regional',
    manifest: regionalManifest,
    routes: [regionalRoutes],
    services: ({ config, db }) => ({
      regional: config.REGIONAL_SERVICE_URL
        ? upstreamSource(config.REGIONAL_SERVICE_URL, { timeoutMs: config.REGIONAL_TIMEOUT_MS })
        : embeddedSource(() => db.read),
    }),
  },
  { name: 'attendance', manifest: attendanceManifest, routes: [attendanceRoutes] },
  {
    name: 'notifications',
    manifest: notificationsManifest,
    routes: [notificationRoutes],
    services: (_deps, given) => ({ push: given.push ?? storeOnlySender }),
  },
  { name: 'dashboard', manifest: dashboardManifest, routes: [dashboardRoutes] },
  { name: 'reports', routes: [reportRoutes] },
  { name: 'exports', manifest: exportsManifest, routes: [exportRoutes], services: (deps) => ({ exports: new ExportRunner(deps) }) },
  { name: 'profile', routes: [profileRoutes] },
  { name: 'sync', manifest: syncManifest, routes: [syncRoutes] },
]

/** The database objects the modules' declarations derive: change-log triggers, search tables and triggers (src/db/derived.ts). */
export const derivedObjects = (modules: readonly Module[] = MODULES): DerivedObject[] => [
  ...syncTriggers(modules.flatMap((module) => module.manifest?.syncFeed ?? [])),
  ...searchObjects(modules.flatMap((module) => module.manifest?.searchIndex ?? [])),
]
