/** What the locations module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const locationsManifest = {
  permissions: [
    { key: 'livemap:view', group: 'tracking', description: 'See field users on the live map and their history', grants: { manager: 'view' } },
    { key: 'location:create', group: 'tracking', description: 'Upload own location pings', grants: { fieldUser: 'full' } },
  ],
} satisfies ModuleManifest
