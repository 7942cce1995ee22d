/** What the forms module declares to the kernel (../../platform/manifest.ts). */
import { formsByIds } from './forms.service'
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const formsManifest = {
  permissions: entityPermissions('form', 'forms', 'forms', { fieldUser: 'view' }),
  auditEntityTypes: ['form'],
  syncFeed: [workspaceFeed('forms', 'form', 'form.view', formsByIds)],
  notSearched: { forms: 'title_key is scanned (instr): a workspace holds few forms' },
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'form', true> {}
}
