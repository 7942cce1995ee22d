/** What the regional module adds to `ctx.deps` (../../platform/context.ts). */
import type { RegionalSource } from './regional.source'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Provinces → villages: embedded tables or the upstream regional service. */
    regional: RegionalSource
  }
}
