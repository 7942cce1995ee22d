/** What the regional module declares to the kernel (../../platform/manifest.ts) and adds to `ctx.deps` (../../platform/context.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import type { RegionalSource } from './regional.source'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Provinces → villages: embedded tables or the upstream regional service. */
    regional: RegionalSource
  }
}

export const regionalManifest = {
  notSearched: Object.fromEntries(
    ['regional_provinces', 'regional_cities', 'regional_districts', 'regional_villages'].map((table) => [
      table,
      'the embedded regional lookup (not workspace data): name_key is scanned (instr) among one parent’s children',
    ]),
  ),
} satisfies ModuleManifest
