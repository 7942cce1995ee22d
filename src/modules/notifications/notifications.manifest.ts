/** What the notifications module declares to the kernel (../../platform/manifest.ts) and adds to `ctx.deps` (../../platform/context.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import type { PushSender } from './notifications.service'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Push delivery of notifications (default: store only). */
    push: PushSender
  }
}

export const notificationsManifest = {
  notSynced: {
    notifications: 'each user’s inbox, read and marked on its own routes',
    push_tokens: 'device registrations for push delivery: server-side only',
  },
} satisfies ModuleManifest
