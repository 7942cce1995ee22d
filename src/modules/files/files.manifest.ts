/** What the files module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const filesManifest = {
  notSynced: { files: 'uploads are fetched by URL from the records that name them (a submission’s photo answer)' },
} satisfies ModuleManifest
