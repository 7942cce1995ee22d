/** What the dashboard module declares to the kernel (../../platform/manifest.ts). */
import type { ModuleManifest } from '../../platform/manifest'

export const dashboardManifest = {
  permissions: [{ key: 'dashboard.view', group: 'reports', description: 'See dashboard metrics' }],
} satisfies ModuleManifest
