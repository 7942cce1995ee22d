/**
 * Permissions: the catalogue of keys, the grants of the built-in roles, and the one check every
 * route goes through.
 *
 * A route needs `(key, platform, access)`. `/office/v1/*` routes need platform `web`, `/app/v1/*`
 * need `mobile`. A grant with access `full` includes `view`, and a `<entity>.manage` grant also
 * satisfies `<entity>.view` on the same platform (docs/API.md §Roles and permissions).
 */
export type Platform = 'web' | 'mobile'
export type Access = 'full' | 'view'

export interface Grant {
  key: string
  platform: Platform
  access: Access
}

export interface PermissionInfo {
  key: string
  group: string
  description: string
}

/** Keys no custom role may hold: they stay with the built-in super_admin role. */
export const SUPER_ADMIN_ONLY_KEYS = new Set(['workspace.manage'])

const entity = (prefix: string, label: string, group: string): PermissionInfo[] => [
  { key: `${prefix}.view`, group, description: `List and read ${label}` },
  { key: `${prefix}.manage`, group, description: `Create, update and delete ${label}` },
]

export const PERMISSIONS: readonly PermissionInfo[] = [
  ...entity('channel_group', 'channel groups', 'master_data'),
  ...entity('channel', 'channels', 'master_data'),
  ...entity('account', 'accounts', 'master_data'),
  ...entity('sub_area', 'sub-areas', 'master_data'),
  ...entity('outlet', 'outlets', 'outlets'),
  ...entity('form', 'forms', 'forms'),
  ...entity('project', 'projects', 'projects'),
  ...entity('team', 'teams', 'teams'),
  ...entity('principal', 'principals', 'catalogue'),
  ...entity('product', 'products', 'catalogue'),
  ...entity('user', 'users', 'administration'),
  ...entity('role', 'roles', 'administration'),
  { key: 'workspace.manage', group: 'administration', description: 'Create workspaces and change their settings' },
  { key: 'audit_log.view', group: 'administration', description: 'Read audit logs' },
  { key: 'visit:view', group: 'visits', description: 'Read visits and their submissions' },
  { key: 'visit:create', group: 'visits', description: 'Plan, assign, cancel and close visits' },
  { key: 'visit:execute', group: 'visits', description: 'Check in, submit forms and check out of own visits' },
  { key: 'submission:approve', group: 'visits', description: 'Approve or reject submissions' },
  { key: 'livemap:view', group: 'tracking', description: 'See field users on the live map and their history' },
  { key: 'location:create', group: 'tracking', description: 'Upload own location pings' },
  ...entity('attendance', 'attendances', 'attendance'),
  { key: 'attendance:clock', group: 'attendance', description: 'Clock in and out' },
  { key: 'dashboard.view', group: 'reports', description: 'See dashboard metrics' },
  ...entity('export', 'exports', 'reports'),
]

export const PERMISSION_KEYS = new Set(PERMISSIONS.map((p) => p.key))

export const BUILTIN_ROLE_SLUGS = ['super_admin', 'admin', 'manager', 'user'] as const
export type BuiltinRoleSlug = (typeof BUILTIN_ROLE_SLUGS)[number]

export const BUILTIN_ROLE_NAMES: Record<BuiltinRoleSlug, string> = {
  super_admin: 'Super Admin',
  admin: 'Admin',
  manager: 'Manager',
  user: 'Field User',
}

const grantAll = (keys: Iterable<string>, platform: Platform, access: Access): Grant[] => [...keys].map((key) => ({ key, platform, access }))

const everywhere = (keys: Iterable<string>): Grant[] => [...grantAll(keys, 'web', 'full'), ...grantAll(keys, 'mobile', 'full')]

/** What a field user may do on the phone: read the data a visit needs, act on own work. */
const FIELD_USER_MOBILE: Grant[] = [
  ...grantAll(
    [
      'channel_group.view',
      'channel.view',
      'account.view',
      'sub_area.view',
      'outlet.view',
      'form.view',
      'project.view',
      'principal.view',
      'product.view',
      'visit:view',
    ],
    'mobile',
    'view',
  ),
  ...grantAll(['visit:create', 'visit:execute', 'location:create', 'attendance:clock'], 'mobile', 'full'),
]

/** Web: view of all business data, plus planning visits and approving submissions. */
const MANAGER_WEB: Grant[] = [
  ...grantAll([...PERMISSIONS.filter((p) => p.key.endsWith('.view')).map((p) => p.key), 'visit:view', 'livemap:view'], 'web', 'view'),
  ...grantAll(['visit:create', 'submission:approve'], 'web', 'full'),
]

export const BUILTIN_GRANTS: Record<BuiltinRoleSlug, Grant[]> = {
  super_admin: everywhere(PERMISSION_KEYS),
  admin: everywhere([...PERMISSION_KEYS].filter((key) => !SUPER_ADMIN_ONLY_KEYS.has(key))),
  manager: [...MANAGER_WEB, ...FIELD_USER_MOBILE],
  user: FIELD_USER_MOBILE,
}

export function isBuiltinRoleSlug(slug: string): slug is BuiltinRoleSlug {
  return (BUILTIN_ROLE_SLUGS as readonly string[]).includes(slug)
}

/** A compiled grant list: one Set lookup per check. */
export type PermissionSet = ReadonlySet<string>

const entry = (platform: Platform, key: string, access: Access) => `${platform}|${key}|${access}`

export function compileGrants(grants: readonly Grant[]): PermissionSet {
  const set = new Set<string>()
  for (const grant of grants) {
    const keys = [grant.key]
    if (grant.key.endsWith('.manage')) keys.push(`${grant.key.slice(0, -'.manage'.length)}.view`)
    for (const key of keys) {
      set.add(entry(grant.platform, key, 'view'))
      if (grant.access === 'full') set.add(entry(grant.platform, key, 'full'))
    }
  }
  return set
}

export function can(permissions: PermissionSet, key: string, platform: Platform, access: Access): boolean {
  return permissions.has(entry(platform, key, access))
}

/** What a role grants: a built-in's grants come from code, a custom role's are stored on it. */
export function grantsOfRole(role: { slug: string; is_builtin: boolean; permissions: Grant[] }): Grant[] {
  return role.is_builtin && isBuiltinRoleSlug(role.slug) ? BUILTIN_GRANTS[role.slug] : role.permissions
}

/**
 * No privilege beyond your own: the grants among `grants` that a holder of `held` does not hold
 * (empty when they hold every one). `held` is compiled, so a held `full` covers `view` and a held
 * `.manage` covers `.view`; super_admin's grants are every key on every platform, so it holds
 * every permission. Every path that hands out permissions (creating or updating a role, giving a
 * user a role) asks this one question, through `assertHoldsGrants` in the roles service.
 */
export function grantsBeyond(held: PermissionSet, grants: readonly Grant[]): Grant[] {
  return grants.filter((grant) => !can(held, grant.key, grant.platform, grant.access))
}

/** A custom role's slug is its name in lower snake case. */
export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'role'
  )
}
