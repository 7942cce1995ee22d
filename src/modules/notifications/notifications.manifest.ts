/** What the notifications module declares to the kernel (../../platform/manifest.ts) and adds to `ctx.deps` (../../platform/context.ts). */
import type { ModuleManifest } from '../../platform/manifest'
import type { HostResolver } from './push.endpoint'
import { PUSH_DELIVERIES, PUSH_RESULTS, type PushWorker } from './push.worker'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Push delivery of notifications: the outbox worker (./push.worker.ts); sends nothing for unconfigured platforms. */
    push: PushWorker
    /** How Web Push endpoint hosts are resolved, at registration and at send (tests give their own). */
    pushResolver: HostResolver
  }
}

export const notificationsManifest = {
  counters: [
    {
      name: PUSH_DELIVERIES,
      help: 'Push sends by result: sent, retried (a retry scheduled), failed (given up, refused, or skipped), pruned (the token was dead and is deleted).',
      label: { name: 'result', values: PUSH_RESULTS },
    },
  ],
  notSynced: {
    notifications: 'each user’s inbox, read and marked on its own routes',
    push_tokens: 'device registrations for push delivery: server-side only',
    push_deliveries: 'the push outbox: server-side delivery state, read by admins on GET /office/v1/notifications/:id/deliveries',
  },
} satisfies ModuleManifest
