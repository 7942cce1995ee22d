/** What the locations module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import type { PingTrail } from './ping-trail'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Each user's newest stored device-time ping: what a batch's jump flags are measured against. */
    pingTrail: PingTrail
  }
}

export const locationsManifest = {
  permissions: [
    { key: 'livemap:view', group: 'tracking', description: 'See field users on the live map and their history', grants: { manager: 'view' } },
    { key: 'location:create', group: 'tracking', description: 'Upload own location pings', grants: { fieldUser: 'full' } },
  ],
} satisfies ModuleManifest
