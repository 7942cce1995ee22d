/** What the notifications module adds to `ctx.deps` (../../platform/context.ts). */
import type { PushSender } from './notifications.service'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Push delivery of notifications (default: store only). */
    push: PushSender
  }
}
