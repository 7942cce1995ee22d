/** What the auth module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const authManifest = {
  notSynced: { refresh_tokens: 'credentials: never leave the server' },
} satisfies ModuleManifest
