/** What the regional module declares to the kernel (../../platform/manifest.ts) and adds to `ctx.deps` (../../platform/context.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import type { RegionalSource } from './regional.source'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Provinces → villages: embedded tables or the upstream regional service. */
    regional: RegionalSource
  }
}

/**
 * Nothing to declare: the regional tables are not in the service's database (they are read from the
 * prepared read-only database, ./regional.database.ts), so no sync feed, search index or exemption names them.
 */
export const regionalManifest = {} satisfies ModuleManifest
