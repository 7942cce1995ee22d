/**
 * Permissions: the catalogue of keys, the grants of the built-in roles, and the one check every
 * route goes through.
 *
 * A route needs `(key, platform, access)`. `/office/v1/*` routes need platform `web`, `/app/v1/*`
 * need `mobile`. A grant with access `full` includes `view`, and a `<entity>.manage` grant also
 * satisfies `<entity>.view` on the same platform (docs/API.md §Roles and permissions).
 *
 * The keys are the modules': each declares its own (`<module>.manifest.ts`), and the composition
 * root registers them, in catalogue order, before the first request (`registerPermissions`).
 */
import type { Access, Grant, Platform } from '../db/schema/identity'

// A grant is stored in roles.permissions, so its shape lives with that table (db/ is below platform/).
export type { Access, Grant, Platform }

export interface PermissionInfo {
  key: string
  group: string
  description: string
}

/** A module's permission key: its catalogue entry and what the built-in roles get of it. */
export interface PermissionDeclaration extends PermissionInfo {
  /**
   * Beyond the rules (super_admin holds every key, admin every key but the super_admin-only ones,
   * a manager views every `.view` key on the web): `fieldUser` is the access field users, and
   * managers, get on mobile; `manager` is the access managers get on the web.
   */
  grants?: { fieldUser?: Access; manager?: Access }
  /** No custom role may hold it, nor admin: it stays with the built-in super_admin role. */
  superAdminOnly?: boolean
}

/** `<prefix>.view` and `<prefix>.manage` of one entity; `viewGrants` are the `.view` key's role grants. */
export const entityPermissions = (prefix: string, label: string, group: string, viewGrants?: PermissionDeclaration['grants']): PermissionDeclaration[] => [
  { key: `${prefix}.view`, group, description: `List and read ${label}`, ...(viewGrants && { grants: viewGrants }) },
  { key: `${prefix}.manage`, group, description: `Create, update and delete ${label}` },
]

/** The catalogue, in the order GET /office/v1/permissions serves it (filled by `registerPermissions`). */
export const PERMISSIONS: readonly PermissionInfo[] = []
export const PERMISSION_KEYS: ReadonlySet<string> = new Set<string>()
/** Keys no custom role may hold: they stay with the built-in super_admin role. */
export const SUPER_ADMIN_ONLY_KEYS: ReadonlySet<string> = new Set<string>()

export const BUILTIN_ROLE_SLUGS = ['super_admin', 'admin', 'manager', 'user'] as const
export type BuiltinRoleSlug = (typeof BUILTIN_ROLE_SLUGS)[number]

export const BUILTIN_ROLE_NAMES: Record<BuiltinRoleSlug, string> = {
  super_admin: 'Super Admin',
  admin: 'Admin',
  manager: 'Manager',
  user: 'Field User',
}

export const BUILTIN_GRANTS: Readonly<Record<BuiltinRoleSlug, Grant[]>> = { super_admin: [], admin: [], manager: [], user: [] }

const grantAll = (keys: Iterable<string>, platform: Platform, access: Access): Grant[] => [...keys].map((key) => ({ key, platform, access }))

const everywhere = (keys: Iterable<string>): Grant[] => [...grantAll(keys, 'web', 'full'), ...grantAll(keys, 'mobile', 'full')]

/**
 * Sets the catalogue and the built-in roles' grants from the modules' declarations, in catalogue
 * order. The exported collections are filled in place, so every importer sees them; registering the
 * same declarations again (one app per test file) changes nothing.
 */
export function registerPermissions(declarations: readonly PermissionDeclaration[]) {
  const keysWith = (role: 'fieldUser' | 'manager', access: Access) => declarations.filter((d) => d.grants?.[role] === access).map((d) => d.key)
  const catalogue = PERMISSIONS as PermissionInfo[]
  catalogue.length = 0
  catalogue.push(...declarations.map(({ key, group, description }) => ({ key, group, description })))
  const keys = PERMISSION_KEYS as Set<string>
  keys.clear()
  for (const { key } of declarations) keys.add(key)
  const superAdminOnly = SUPER_ADMIN_ONLY_KEYS as Set<string>
  superAdminOnly.clear()
  for (const { key } of declarations.filter((d) => d.superAdminOnly)) superAdminOnly.add(key)

  /** What a field user may do on the phone: read the data a visit needs, act on own work. */
  const fieldUserMobile = [...grantAll(keysWith('fieldUser', 'view'), 'mobile', 'view'), ...grantAll(keysWith('fieldUser', 'full'), 'mobile', 'full')]
  /** Web: view of all business data, plus what the modules grant managers. */
  const managerWeb = [
    ...grantAll(
      [...catalogue.filter((p) => p.key.endsWith('.view')).map((p) => p.key), ...keysWith('manager', 'view').filter((key) => !key.endsWith('.view'))],
      'web',
      'view',
    ),
    ...grantAll(keysWith('manager', 'full'), 'web', 'full'),
  ]
  Object.assign(BUILTIN_GRANTS, {
    super_admin: everywhere(keys),
    admin: everywhere([...keys].filter((key) => !superAdminOnly.has(key))),
    manager: [...managerWeb, ...fieldUserMobile],
    user: fieldUserMobile,
  })
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
