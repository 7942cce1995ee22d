/**
 * What services receive instead of Elysia's Context: the app's dependencies, who is acting, and the
 * request's metadata. Jobs build the same shape with a system actor (`systemContext`).
 */
import type { Config } from '../config/env'
import type { Database } from '../db/client'
import type { Clock } from '../lib/clock'
import type { Hub } from './realtime/hub'
import type { IdempotencyClaim, IdempotencyStore } from './data/idempotency'
import type { Sealer } from '../lib/crypto'
import type { TokenService } from './jwt'
import type { Logger } from './logger'
import type { Mailer } from './mail'
import type { Metrics } from './observability'
import type { PermissionSet } from './permissions'
import type { AuthLimits } from './rate-limit'

/** The services of the platform itself: what every module may rely on. */
export interface PlatformServices {
  db: Database
  config: Config
  clock: Clock
  logger: Logger
  mailer: Mailer
  tokens: TokenService
  /** Seals what clients must hand back unread and unaltered (sync cursors); keyed from the JWT secret. */
  sealer: Sealer
  idempotency: IdempotencyStore
  /** Rate limits of login, register and forgot-password (in memory, per process). */
  limits: AuthLimits
  /** Pushes events to connected WebSocket clients (after commit). */
  hub: Hub
  /** Request counts, latencies and ingest counters for GET /api/metrics. */
  metrics: Metrics
}

/**
 * The services modules add. The platform names none of them: a module that offers one declares it
 * in its own `<module>.manifest.ts` by declaration merging,
 *
 *   declare module '../../platform/context' {
 *     interface ModuleServices { regional: RegionalSource }
 *   }
 *
 * and the composition root (src/app.ts) builds it. So dependencies point down (modules → platform)
 * while every module still reads every service as `ctx.deps.<service>`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so that modules can merge their services into it.
export interface ModuleServices {}

/** What services receive as `ctx.deps`: the platform's services and the modules'. */
export interface Deps extends PlatformServices, ModuleServices {}

export interface Actor {
  userId: number
  workspaceId: number
  name: string
  email: string
  roleId: number
  /** Role slug, e.g. `super_admin`; snapshot into audit entries as `actor_role`. */
  role: string
  permissions: PermissionSet
  /** The workspace's IANA time zone: whose local days "today" and dates mean. */
  timeZone: string
  /** The refresh-token family of the caller's session (from the access token), when known. */
  sessionId?: string | null
}

export interface RequestMeta {
  requestId: string
  ip: string | null
  userAgent: string | null
  /** When the request arrived (ISO 8601). */
  timestamp: string
}

export interface RequestContext {
  deps: Deps
  meta: RequestMeta
  actor: Actor | null
  idempotency: IdempotencyClaim | null
}

export interface AuthedContext extends RequestContext {
  actor: Actor
}

export function systemContext(deps: Deps, job: string): RequestContext {
  return {
    deps,
    actor: null,
    idempotency: null,
    meta: { requestId: `job:${job}`, ip: null, userAgent: null, timestamp: deps.clock.now().toISOString() },
  }
}
