/** What the catalogue module declares to the kernel (../../platform/manifest.ts). */
import { principalsByIds, productsByIds } from './catalogue.service'
import type { ModuleManifest } from '../../platform/manifest'
import { workspaceFeed } from '../../platform/data/sync-feed'
import { entityPermissions } from '../../platform/permissions'

export const catalogueManifest = {
  permissions: [
    ...entityPermissions('principal', 'principals', 'catalogue', { fieldUser: 'view' }),
    ...entityPermissions('product', 'products', 'catalogue', { fieldUser: 'view' }),
  ],
  auditEntityTypes: ['principal', 'product'],
  syncFeed: [
    workspaceFeed('principals', 'principal', 'principal.view', principalsByIds),
    // A product shows its principal {id, name}.
    { ...workspaceFeed('products', 'product', 'product.view', productsByIds), shows: [{ table: 'principals', columns: ['name'], via: 'principal_id' }] },
  ],
  searchIndex: [
    { table: 'products', columns: ['name_key', 'sku_key'] },
    { table: 'principals', columns: ['name_key', 'code_key'] },
  ],
} satisfies ModuleManifest

declare module '../../platform/data/audit' {
  interface AuditEntityTypes extends Record<'principal' | 'product', true> {}
}
