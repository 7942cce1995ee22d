/**
 * Who is calling: the access token's user in the token's workspace, loaded fresh on every request,
 * so a deactivated or deleted user, or a changed role, takes effect at once (docs/API.md §Roles and permissions).
 * The token's session (`sid`, its refresh-token family) must still be live too: a logout, a password
 * change or reset, a deactivation or a detected reuse revokes the session's refresh tokens, and from
 * then on its access tokens answer 401, before their `exp`.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { prepared } from '../db/prepared'
import { authEpoch, memberships, refreshTokens, roles, users, workspaces } from '../db/schema'
import { workspaceScoped } from './data/scope'
import type { Actor } from './context'
import { AppError } from '../lib/errors'
import type { TokenService } from './jwt'
import { BUILTIN_GRANTS, compileGrants, isBuiltinRoleSlug, type Grant, type PermissionSet } from './permissions'

const membershipScope = workspaceScoped(memberships)

const findMember = prepared((db) =>
  db
    .select({
      userId: users.id,
      name: users.name,
      email: users.email,
      roleId: roles.id,
      role: roles.slug,
      isBuiltin: roles.is_builtin,
      // Raw JSON: it is the cache key of the compiled grants, parsed only on a miss.
      grants: sql<string>`${roles.permissions}`,
      isActive: memberships.is_active,
      timeZone: workspaces.timezone,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    // The membership's workspace is the one asked for: its row is read by the same placeholder.
    .innerJoin(workspaces, eq(workspaces.id, sql.placeholder('workspaceId')))
    .where(membershipScope.where(sql.placeholder('workspaceId'), eq(memberships.user_id, sql.placeholder('userId')), isNull(users.deleted_at)))
    .limit(1)
    .prepare(),
)

/**
 * Compiled grants keyed by the role's grant list as stored, so any change to a role (by this
 * process or another one on the same database) is a different key. Built-in roles use code's grants.
 */
const compiled = new Map<string, PermissionSet>()

export function permissionsOf(role: { role: string; isBuiltin: boolean; grants: string }) {
  const cacheKey = role.isBuiltin ? `builtin:${role.role}` : role.grants
  let permissions = compiled.get(cacheKey)
  if (!permissions) {
    const grants = role.isBuiltin && isBuiltinRoleSlug(role.role) ? BUILTIN_GRANTS[role.role] : (JSON.parse(role.grants) as Grant[])
    permissions = compileGrants(grants)
    if (compiled.size >= cacheEntries) compiled.delete(compiled.keys().next().value!)
    compiled.set(cacheKey, permissions)
  }
  return permissions
}

const readEpoch = prepared((db) => db.select({ value: authEpoch.value }).from(authEpoch).where(eq(authEpoch.id, 1)).prepare())

/**
 * Active members by `user:workspace`, each with the auth epoch it was read at. The epoch row changes
 * with every write to users, memberships or roles (database triggers, whichever process writes), so
 * a hit is as fresh as a lookup: one read of a one-row table instead of a three-table join, which
 * matters under write load, when every read starts on a cold page cache. Only members are kept.
 */
type MemberCache = Map<string, { epoch: number; actor: Omit<Actor, 'sessionId'> }>
/** Per database handle: ids only mean something within one database. */
const caches = new WeakMap<Db, MemberCache>()
/**
 * Entries each of the caches of this file (members, live sessions, compiled grants) may hold: the
 * entry caches' share of MEMORY_BUDGET_MB (src/config/memory-budget.ts), set by src/app.ts. Per process,
 * as the configuration is.
 */
let cacheEntries = 10_000

/** Sets the entries each cache here may hold (src/app.ts, from the memory budget). */
export function setAuthCacheEntries(entries: number) {
  cacheEntries = entries
}

/** Entries the caches of `db` hold now (tests check they stay within the budget). */
export function authCacheSizes(db: Db) {
  return { members: caches.get(db)?.size ?? 0, sessions: liveSessionCaches.get(db)?.size ?? 0, grants: compiled.size }
}

/** The auth epoch: changes with every write to users, memberships, roles, and every revoked refresh token. */
export async function currentAuthEpoch(db: Db): Promise<number> {
  const [epochRow] = await readEpoch(db).all()
  return epochRow?.value ?? -1
}

/** The live, active member of `workspaceId`, or null. */
export async function loadMember(db: Db, userId: number, workspaceId: number): Promise<Actor | null> {
  // The epoch is read before the member: the member data is then at least as new as the epoch it
  // is stored under (read the other way round, a change in between could be cached as current).
  return memberAt(db, await currentAuthEpoch(db), userId, workspaceId)
}

async function memberAt(db: Db, epoch: number, userId: number, workspaceId: number): Promise<Actor | null> {
  let members = caches.get(db)
  if (!members) {
    members = new Map()
    caches.set(db, members)
  }
  const cacheKey = `${userId}:${workspaceId}`
  const known = members.get(cacheKey)
  if (known && known.epoch === epoch) return { ...known.actor }

  const [member] = await findMember(db).all({ userId, workspaceId })
  if (!member?.isActive) {
    members.delete(cacheKey)
    return null
  }
  const actor = {
    userId: member.userId,
    workspaceId,
    name: member.name,
    email: member.email,
    roleId: member.roleId,
    role: member.role,
    permissions: permissionsOf(member),
    timeZone: member.timeZone,
  }
  while (members.size >= cacheEntries && !members.has(cacheKey)) members.delete(members.keys().next().value!)
  members.set(cacheKey, { epoch, actor })
  return { ...actor }
}

const liveSessionToken = prepared((db) =>
  db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.family_id, sql.placeholder('sessionId')), isNull(refreshTokens.revoked_at)))
    .limit(1)
    .prepare(),
)

/**
 * Sessions found live, each with the auth epoch it was read at. A revoked refresh token bumps the
 * epoch (migration 0019), so a hit at the current epoch is as fresh as a lookup: the usual request
 * costs no query beyond the epoch read it already makes. A session never comes back to life (no
 * refresh token is added to a family whose tokens are all revoked), so only live ones are kept.
 */
const liveSessionCaches = new WeakMap<Db, Map<string, number>>()

/** Whether the session (refresh-token family) still has a refresh token that is not revoked. */
async function sessionLiveAt(db: Db, epoch: number, sessionId: string): Promise<boolean> {
  let live = liveSessionCaches.get(db)
  if (!live) {
    live = new Map()
    liveSessionCaches.set(db, live)
  }
  if (live.get(sessionId) === epoch) return true
  const [row] = await liveSessionToken(db).all({ sessionId })
  if (!row) {
    live.delete(sessionId)
    return false
  }
  while (live.size >= cacheEntries && !live.has(sessionId)) live.delete(live.keys().next().value!)
  live.set(sessionId, epoch)
  return true
}

/** Which of `sessionIds` are still live (the socket hub's re-check: one query per 500 sessions). */
export async function liveSessions(db: Db, sessionIds: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(sessionIds)]
  const live = new Set<string>()
  for (let start = 0; start < unique.length; start += 500) {
    const rows = await db
      .selectDistinct({ family: refreshTokens.family_id })
      .from(refreshTokens)
      .where(and(inArray(refreshTokens.family_id, unique.slice(start, start + 500)), isNull(refreshTokens.revoked_at)))
    for (const row of rows) live.add(row.family)
  }
  return live
}

export function bearerToken(authorization: string | null): string | null {
  if (!authorization) return null
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(authorization)
  return match ? match[1] : null
}

export async function authenticate(db: Db, tokens: TokenService, authorization: string | null): Promise<Actor> {
  const token = bearerToken(authorization)
  if (!token) throw new AppError('UNAUTHORIZED')
  const verified = await tokens.verifyAccessToken(token)
  if (verified.status === 'expired') throw new AppError('TOKEN_EXPIRED', 'access token expired')
  if (verified.status === 'invalid') throw new AppError('UNAUTHORIZED', 'invalid access token')
  // Every token this service issues names its session; one that does not could never be signed out.
  const { sessionId } = verified.claims
  if (!sessionId) throw new AppError('UNAUTHORIZED', 'invalid access token')
  const epoch = await currentAuthEpoch(db)
  const actor = await memberAt(db, epoch, verified.claims.userId, verified.claims.workspaceId)
  if (!actor) throw new AppError('UNAUTHORIZED', 'user is not active in this workspace')
  if (!(await sessionLiveAt(db, epoch, sessionId))) throw new AppError('UNAUTHORIZED', 'this session has ended: sign in again')
  actor.sessionId = sessionId
  return actor
}
