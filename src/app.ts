/**
 * The composition root. createApp: the modules' manifests → dependencies → the platform kernel → the
 * API docs → each module's routes. Adding a resource means adding one module folder, its manifest
 * to MANIFESTS and one `.use(...)` line here; the platform itself names no module.
 */
import { Elysia } from 'elysia'
import type { Config } from './config/env'
import type { Database } from './db/client'
import { systemClock, type Clock } from './lib/clock'
import type { Deps, PlatformServices } from './platform/context'
import { createSealer } from './lib/crypto'
import { apiDocs } from './platform/http/api-docs'
import { Hub } from './platform/realtime/hub'
import { createPlatform, RouteTable } from './platform/http/http'
import { IdempotencyStore } from './platform/data/idempotency'
import { createTokenService, resolveJwtSecret } from './platform/jwt'
import { createLogger, type Logger } from './platform/logger'
import { createMailer } from './platform/mail'
import { type ModuleManifest, registerModules } from './platform/manifest'
import { Metrics } from './platform/observability'
import { createAuthLimits } from './platform/rate-limit'
import { auditLogRoutes, auditLogsManifest } from './modules/audit-logs'
import { authRoutes } from './modules/auth'
import { fileRoutes } from './modules/files'
import { formRoutes, formsManifest } from './modules/forms'
import { healthRoutes, metricsRoutes } from './modules/health'
import { masterDataManifest, masterDataModule } from './modules/master-data'
import { outletRoutes, outletsManifest } from './modules/outlets'
import { projectRoutes, projectsManifest } from './modules/projects'
import { roleRoutes, rolesManifest } from './modules/roles'
import { teamRoutes, teamsManifest } from './modules/teams'
import { userRoutes, usersManifest } from './modules/users'
import { visitRoutes, visitsManifest } from './modules/visits'
import { workspaceRoutes, workspacesManifest } from './modules/workspaces'
import { locationRoutes, locationsManifest, PingTrail } from './modules/locations'
import { notificationRoutes, type PushSender, storeOnlySender } from './modules/notifications'
import { attendanceManifest, attendanceRoutes } from './modules/attendance'
import { catalogueManifest, catalogueRoutes } from './modules/catalogue'
import { dashboardManifest, dashboardRoutes } from './modules/dashboard'
import { exportRoutes, ExportRunner, exportsManifest } from './modules/exports'
import { profileRoutes } from './modules/profile'
import { embeddedSource, regionalRoutes, upstreamSource } from './modules/regional'
import { reportRoutes } from './modules/reports'
import { syncRoutes } from './modules/sync'
import { WEBSOCKET_DOCS, wsRoutes } from './ws/ws.routes'

/** Every module's declarations, in the order GET /office/v1/permissions lists their keys. */
const MANIFESTS = [
  masterDataManifest,
  outletsManifest,
  formsManifest,
  projectsManifest,
  teamsManifest,
  catalogueManifest,
  usersManifest,
  rolesManifest,
  workspacesManifest,
  auditLogsManifest,
  visitsManifest,
  locationsManifest,
  attendanceManifest,
  dashboardManifest,
  exportsManifest,
]

/** What every module pushes over the socket, and to whom (their manifests' `socketChannels`). */
export const SOCKET_CHANNELS = MANIFESTS.flatMap((manifest: ModuleManifest) => manifest.socketChannels ?? [])
const COUNTERS = MANIFESTS.flatMap((manifest: ModuleManifest) => manifest.counters ?? [])

export interface AppOptions {
  db: Database
  config: Config
  clock?: Clock
  logger?: Logger
  /** Push delivery of notifications; store-only by default. */
  push?: PushSender
}

export async function createApp({ db, config, clock = systemClock, logger = createLogger(config.LOG_LEVEL), push = storeOnlySender }: AppOptions) {
  registerModules(MANIFESTS)
  const secret = await resolveJwtSecret(db, config.JWT_SECRET)
  const platformServices: PlatformServices = {
    db,
    config,
    clock,
    logger,
    mailer: createMailer({ db, clock, logger, smtpUrl: config.SMTP_URL, from: config.MAIL_FROM }),
    tokens: await createTokenService(secret, config.ACCESS_TOKEN_TTL, clock),
    sealer: createSealer(secret),
    idempotency: new IdempotencyStore(() => db.read, clock),
    limits: createAuthLimits(clock, config),
    hub: new Hub({ channels: SOCKET_CHANNELS }),
    metrics: new Metrics(COUNTERS),
  }
  // The modules' services (declared in their manifests); the export runner needs the rest first.
  const deps = {
    ...platformServices,
    push,
    pingTrail: new PingTrail(),
    regional: config.REGIONAL_SERVICE_URL
      ? upstreamSource(config.REGIONAL_SERVICE_URL, { timeoutMs: config.REGIONAL_TIMEOUT_MS })
      : embeddedSource(() => db.read),
  } as Deps
  deps.exports = new ExportRunner(deps)
  const routes = new RouteTable()
  const platform = createPlatform(deps, routes)

  // normalize 'typebox': unknown fields are removed after validation and wrong types are refused.
  // (The default exact-mirror normaliser reshapes values before validation: `{"n": "text"}` for an
  // object field would silently become `{}`.)
  const api = new Elysia({ prefix: '/api', normalize: 'typebox' })
    .use(platform)
    .use(
      apiDocs({
        documentation: {
          info: {
            title: 'Field Force Operations Service',
            version: '1.0.0',
            description:
              'Master data, visits, submissions, location tracking, audit logs and regional lookup for field-force teams. ' +
              'Send `Authorization: Bearer <token>` (from POST /api/auth/login) and, on mutations, an optional `X-Idempotency-Key`.' +
              WEBSOCKET_DOCS,
          },
          components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
          security: [{ bearerAuth: [] }],
        },
      }),
    )
    .use(healthRoutes(platform, deps))
    .use(metricsRoutes(platform, deps))
    .use(authRoutes(platform))
    .use(workspaceRoutes(platform))
    .use(roleRoutes(platform))
    .use(userRoutes(platform))
    .use(masterDataModule(platform))
    .use(teamRoutes(platform))
    .use(outletRoutes(platform))
    .use(formRoutes(platform))
    .use(projectRoutes(platform))
    .use(visitRoutes(platform))
    .use(fileRoutes(platform))
    .use(locationRoutes(platform))
    .use(regionalRoutes(platform))
    .use(catalogueRoutes(platform))
    .use(attendanceRoutes(platform))
    .use(notificationRoutes(platform))
    .use(dashboardRoutes(platform))
    .use(reportRoutes(platform))
    .use(exportRoutes(platform))
    .use(profileRoutes(platform))
    .use(auditLogRoutes(platform))
    .use(syncRoutes(platform))

  const app = new Elysia({
    normalize: 'typebox',
    // A slow or dead socket is closed by Bun, never waited for by a publisher (docs/API.md §Real-time socket).
    websocket: { idleTimeout: 120, backpressureLimit: 1024 * 1024, closeOnBackpressureLimit: true, sendPings: true },
  })
    .use(platform)
    .use(api)
    .use(wsRoutes(deps))
    .onStart(({ server }) => {
      if (server) deps.hub.attach(server)
    })
    .onStop(() => deps.hub.detach())

  routes.learn(app.routes)

  return { app, deps }
}

export type App = Awaited<ReturnType<typeof createApp>>['app']
