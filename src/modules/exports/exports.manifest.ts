/** What the exports module declares to the kernel (../../platform/manifest.ts) and adds to `ctx.deps`. */
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'
import type { ExportRunner } from './exports.service'

export const exportsManifest = {
  permissions: entityPermissions('export', 'exports', 'reports'),
  notSynced: { export_jobs: 'a user’s own background export jobs, polled by id' },
} satisfies ModuleManifest

declare module '../../platform/context' {
  interface ModuleServices {
    /** Background export jobs of this process. */
    exports: ExportRunner
  }
}
