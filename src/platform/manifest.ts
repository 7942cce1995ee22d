/**
 * What a module declares to the kernel besides its routes, in its `<module>.manifest.ts`: the
 * permission keys its routes need, the entity types its audit entries name, the socket channels
 * it pushes events on and the counters it adds to the metrics page. The composition
 * root (src/app.ts) registers every module's manifest once, in catalogue order, before the routes
 * are built. (Services a module adds to `ctx.deps` are declared in the same file; see ./context.ts.)
 */
import type { AnyElysia } from 'elysia'
import { registerAuditEntityTypes } from './data/audit'
import type { Deps, ModuleServices } from './context'
import type { PlatformPlugin } from './http/http'
import type { SocketChannel } from './realtime/hub'
import type { CounterDeclaration } from './observability'
import { type PermissionDeclaration, registerPermissions } from './permissions'
import type { SearchIndexDeclaration } from './data/search-index'
import type { SyncFeed } from './data/sync-feed'
import { registerFeedEntities } from './data/feed-entities'

export interface ModuleManifest {
  /** In the order GET /office/v1/permissions lists them. */
  permissions?: readonly PermissionDeclaration[]
  /** Also declared to the compiler: see `AuditEntityTypes` in ./audit.ts. */
  auditEntityTypes?: readonly string[]
  /** Handed to the hub by the composition root (see `SocketChannel` in ./hub.ts). */
  socketChannels?: readonly SocketChannel[]
  /** Counters on GET /api/metrics, kept with `ctx.deps.metrics.add(name, n)` (./observability.ts). */
  counters?: readonly CounterDeclaration[]
  /**
   * Its tables in the change log (GET /app/v1/sync, GET /office/v1/changes): the triggers are generated from these
   * (./data/sync-feed.ts), and each entity's `load` is what the feeds carry of it (./data/feed-entities.ts).
   */
  syncFeed?: readonly SyncFeed[]
  /** Its tables' keyword-search indexes: FTS5 tables and triggers generated from these (./search-index.ts). */
  searchIndex?: readonly SearchIndexDeclaration[]
  /** Its workspace tables kept out of the change log on purpose: table → why (tests/registry.test.ts holds every one accounted for). */
  notSynced?: Readonly<Record<string, string>>
  /** Its tables with folded `*_key` columns that have no search index on purpose: table → why. */
  notSearched?: Readonly<Record<string, string>>
}

/** The platform's own workspace tables kept out of the change log (the modules declare theirs in their manifests). */
export const PLATFORM_NOT_SYNCED: Readonly<Record<string, string>> = {
  idempotency_keys: 'the replay store of mutations (answers kept for 24 h), not data of the workspace',
}

export function registerModules(manifests: readonly ModuleManifest[]) {
  registerPermissions(manifests.flatMap((manifest) => manifest.permissions ?? []))
  registerAuditEntityTypes(manifests.flatMap((manifest) => manifest.auditEntityTypes ?? []))
  registerFeedEntities(manifests.flatMap((manifest) => manifest.syncFeed ?? []))
}

/**
 * One entry of the module list (src/modules/index.ts): what the module declares, the routes it
 * mounts and the services it adds to `ctx.deps`. The composition root walks the list in order:
 * manifests are registered in that order (GET /office/v1/permissions lists their keys so), services
 * are built in that order (a later module's service may use an earlier one's), routes mounted so.
 */
export interface Module {
  /** The module's folder under src/modules/ (for messages and tests). */
  name: string
  manifest?: ModuleManifest
  /** Its route plugins; each gets the platform plugin and the finished `deps`. */
  routes?: readonly ((platform: PlatformPlugin, deps: Deps) => AnyElysia)[]
  /**
   * The services it adds to `ctx.deps` (declared to the compiler in its manifest file by merging into
   * `ModuleServices`). `given` holds the ones the caller of createApp passed in (tests: the push resolver).
   */
  services?: (deps: Deps, given: Partial<ModuleServices>) => Partial<ModuleServices>
}
