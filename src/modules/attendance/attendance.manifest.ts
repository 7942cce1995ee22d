/** What the attendance module declares to the kernel (../../platform/manifest.ts). */
import { attendancesByIds } from './attendance.service'
import type { ModuleManifest } from '../../platform/manifest'
import { entityPermissions } from '../../platform/permissions'

export const attendanceManifest = {
  permissions: [
    ...entityPermissions('attendance', 'attendances', 'attendance'),
    { key: 'attendance:clock', group: 'attendance', description: 'Clock in and out', grants: { fieldUser: 'full' } },
  ],
  auditEntityTypes: ['attendance'],
  syncFeed: [
    {
      table: 'attendances',
      entity: { name: 'attendance', reach: 'workspace', deletes: 'hard', webKey: 'attendance.view', mobileKey: null, load: attendancesByIds },
    },
  ],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'attendance', true> {}
}
