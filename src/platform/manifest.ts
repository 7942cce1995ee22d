/**
 * What a module declares to the kernel besides its routes, in its `<module>.manifest.ts`: the
 * permission keys its routes need, the entity types its audit entries name, the socket channels
 * it pushes events on and the counters it adds to the metrics page. The composition
 * root (src/app.ts) registers every module's manifest once, in catalogue order, before the routes
 * are built. (Services a module adds to `ctx.deps` are declared in the same file; see ./context.ts.)
 */
import { registerAuditEntityTypes } from './data/audit'
import type { SocketChannel } from './realtime/hub'
import type { CounterDeclaration } from './observability'
import { type PermissionDeclaration, registerPermissions } from './permissions'

export interface ModuleManifest {
  /** In the order GET /office/v1/permissions lists them. */
  permissions?: readonly PermissionDeclaration[]
  /** Also declared to the compiler: see `AuditEntityTypes` in ./audit.ts. */
  auditEntityTypes?: readonly string[]
  /** Handed to the hub by the composition root (see `SocketChannel` in ./hub.ts). */
  socketChannels?: readonly SocketChannel[]
  /** Counters on GET /api/metrics, kept with `ctx.deps.metrics.add(name, n)` (./observability.ts). */
  counters?: readonly CounterDeclaration[]
}

export function registerModules(manifests: readonly ModuleManifest[]) {
  registerPermissions(manifests.flatMap((manifest) => manifest.permissions ?? []))
  registerAuditEntityTypes(manifests.flatMap((manifest) => manifest.auditEntityTypes ?? []))
}
