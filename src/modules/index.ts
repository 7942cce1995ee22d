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
import { searchObjects } from '../platform/data/search-index'
import { syncTriggers } from '../platform/data/sync-feed'
import { attendanceManifest, attendanceRoutes } from './attendance'
import { auditLogRoutes, auditLogsManifest } from './audit-logs'
import { authManifest, authRoutes } from './auth'
import { catalogueManifest, catalogueRoutes } from './catalogue'
import { dashboardManifest, dashboardRoutes } from './dashboard'
import { exportRoutes, ExportRunner, exportsManifest } from './exports'
import { fileRoutes, filesManifest } from './files'
import { formRoutes, formsManifest } from './forms'
import { healthRoutes, metricsRoutes } from './health'
import { locationRoutes, locationsManifest, PingTrail } from './locations'
import { masterDataManifest, masterDataModule } from './master-data'
import { officeOrderRoutes, ordersManifest, phoneOrderRoutes, priceListRoutes } from './orders'
import { dayRouteRoutes, journeyPlanRoutes, journeyPlansManifest } from './journey-plans'
import { notificationRoutes, notificationsManifest, PushWorker, pushRoutes, systemResolver } from './notifications'
import { outletRoutes, outletsManifest } from './outlets'
import { profileRoutes } from './profile'
import { projectRoutes, projectsManifest } from './projects'
import { embeddedSource, preparedRegionalDatabase, regionalManifest, regionalRoutes, upstreamSource } from './regional'
import { reportRoutes } from './reports'
import { roleRoutes, rolesManifest } from './roles'
import { syncManifest, syncRoutes } from './sync'
import { teamRoutes, teamsManifest } from './teams'
import { userRoutes, usersManifest } from './users'
import { visitRoutes, visitsManifest } from './visits'
import { workspaceRoutes, workspacesManifest } from './workspaces'

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
  { name: 'orders', manifest: ordersManifest, routes: [priceListRoutes, phoneOrderRoutes, officeOrderRoutes] },
  { name: 'journey-plans', manifest: journeyPlansManifest, routes: [journeyPlanRoutes, dayRouteRoutes] },
  {
    name: 'locations',
    manifest: locationsManifest,
    routes: [locationRoutes],
    services: (deps) => ({ pingTrail: new PingTrail(deps.config.memory.cacheEntries) }),
  },
  {
    name: 'regional',
    manifest: regionalManifest,
    routes: [regionalRoutes],
    services: ({ config, logger }) => {
      if (config.REGIONAL_SERVICE_URL) return { regional: upstreamSource(config.REGIONAL_SERVICE_URL, { timeoutMs: config.REGIONAL_TIMEOUT_MS }) }
      // The prepared read-only database (README.md "Regional data"): opened, never loaded.
      const prepared = preparedRegionalDatabase(config, logger)
      return { regional: embeddedSource(() => prepared.db) }
    },
  },
  { name: 'attendance', manifest: attendanceManifest, routes: [attendanceRoutes] },
  {
    name: 'notifications',
    manifest: notificationsManifest,
    routes: [notificationRoutes, pushRoutes],
    services: (deps, given) => {
      const pushResolver = given.pushResolver ?? systemResolver
      return { pushResolver, push: given.push ?? new PushWorker({ ...deps, resolve: pushResolver }) }
    },
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
