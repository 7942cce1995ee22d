/**
 * The composition root. createApp: the modules' manifests → dependencies → the platform kernel → the
 * API docs → each module's routes, all from the module list (./modules/index.ts). Adding a resource
 * means adding one module folder and one line to that list; neither this file nor the platform names a module.
 */
import { Elysia } from 'elysia'
import type { Config } from './config/env'
import type { Database } from './db/client'
import { systemClock, type Clock } from './lib/clock'
import type { Deps, ModuleServices, PlatformServices } from './platform/context'
import { createSealer } from './lib/crypto'
import { apiDocs } from './platform/http/api-docs'
import { Hub } from './platform/realtime/hub'
import { createPlatform, RouteTable } from './platform/http/http'
import { IdempotencyStore } from './platform/data/idempotency'
import { createTokenService, resolveJwtSecret } from './platform/jwt'
import { setAuthCacheEntries } from './platform/actor'
import { passwordWork, setPasswordCost } from './platform/passwords'
import { REPLAY_BOUNDS } from './platform/realtime/replay-log'
import { createLogger, type Logger } from './platform/logger'
import { createMailer } from './platform/mail'
import { type ModuleManifest, registerModules } from './platform/manifest'
import { Metrics } from './platform/observability'
import { createAuthLimits } from './platform/rate-limit'
import { installDerived } from './db/derived'
import { derivedObjects, MODULES } from './modules/index'
import { WEBSOCKET_DOCS, wsRoutes } from './ws/ws.routes'

const MANIFESTS = MODULES.flatMap((module) => (module.manifest ? [module.manifest] : []))

/** What every module pushes over the socket, and to whom (their manifests' `socketChannels`). */
export const SOCKET_CHANNELS = MANIFESTS.flatMap((manifest: ModuleManifest) => manifest.socketChannels ?? [])
const COUNTERS = MANIFESTS.flatMap((manifest: ModuleManifest) => manifest.counters ?? [])

export interface AppOptions {
  db: Database
  config: Config
  clock?: Clock
  logger?: Logger
  /** Module services given instead of the modules' own (tests: the resolver of Web Push hosts, a push worker). */
  services?: Partial<ModuleServices>
}

export async function createApp({ db, config, clock = systemClock, logger = createLogger(config.LOG_LEVEL), services = {} }: AppOptions) {
  registerModules(MANIFESTS)
  // After drizzle's migrations: the change-log and search triggers as the modules declare them (./db/derived.ts).
  const installed = await installDerived(db, derivedObjects())
  if (installed.length) logger.info('derived database objects installed', { statements: installed.length })
  const secret = await resolveJwtSecret(db, config.JWT_SECRET)
  // Every in-memory store takes its share of MEMORY_BUDGET_MB (./config/memory-budget.ts).
  setAuthCacheEntries(config.memory.cacheEntries)
  passwordWork.resize(config.memory.passwordHashes)
  setPasswordCost(config.memory.passwordCost)
  const platformServices: PlatformServices = {
    db,
    config,
    clock,
    logger,
    mailer: createMailer({ db, clock, logger, smtpUrl: config.SMTP_URL, from: config.MAIL_FROM }),
    tokens: await createTokenService(secret, config.ACCESS_TOKEN_TTL, clock, config.memory.cacheEntries),
    sealer: createSealer(secret, config.memory.cacheEntries),
    idempotency: new IdempotencyStore(() => db.read, clock),
    limits: createAuthLimits(clock, config),
    hub: new Hub({ channels: SOCKET_CHANNELS, replay: { ...REPLAY_BOUNDS, ...config.memory.replay } }),
    metrics: new Metrics(COUNTERS),
  }
  // The modules' services (declared in their manifests), in list order: a later one may use an earlier one.
  const deps = { ...platformServices } as Deps
  for (const module of MODULES) Object.assign(deps, module.services?.(deps, services))
  const routes = new RouteTable()
  const platform = createPlatform(deps, routes)

  // normalize 'typebox': unknown fields are removed after validation and wrong types are refused.
  // (The default exact-mirror normaliser reshapes values before validation: `{"n": "text"}` for an
  // object field would silently become `{}`.)
  const api = new Elysia({ prefix: '/api', normalize: 'typebox' }).use(platform).use(
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
  for (const module of MODULES) for (const routes of module.routes ?? []) api.use(routes(platform, deps))

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
