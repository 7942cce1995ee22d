/** What the sync module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const syncManifest = {
  notSynced: {
    changes: 'the change log itself (its triggers are the other modules’ feeds)',
    change_horizons: 'the change log’s retention horizon per workspace',
  },
} satisfies ModuleManifest
