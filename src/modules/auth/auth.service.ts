/**
 * Authentication (docs/API.md §Authentication): registration, login with a failed-login limit, refresh-token rotation
 * with reuse detection, logout, password reset by mail, and switching workspace.
 *
 * Refresh tokens are opaque random strings stored as SHA-256 hashes. Each login starts a family;
 * a refresh uses its token once and returns the next one of the family. Presenting a used token
 * means it was stolen or replayed: the whole family is revoked — with one exception for phones
 * that lose answers, the retry (see `refresh`).
 */
import { randomUUID } from 'node:crypto'
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'
import { memberships, passwordResets, refreshTokens, roles, users, workspaces } from '../../db/schema'
import { loadMember } from '../../platform/actor'
import type { Attempt } from '../../platform/rate-limit'
import type { AuthedContext, RequestContext } from '../../platform/context'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { AlreadyExists, AppError, NotFound, ValidationFailed } from '../../lib/errors'
import { withTransaction } from '../../platform/data/transaction'
import { phoneGrantsVersion } from '../sync'
import { voidPasswordResets } from '../users'
import { insertWorkspace } from '../workspaces'
import type {
  ForgotPasswordInput,
  LoginInput,
  RefreshInput,
  RegisterInput,
  ResetPasswordInput,
  Session,
  SessionUser,
  SwitchWorkspaceInput,
} from './auth.schemas'
import { hashPassword, verifyPassword } from '../../platform/passwords'

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000

/** A rotated token presented again this soon after its rotation, its successor never used, is a retry. */
export const REFRESH_RETRY_WINDOW_MS = 30_000

/** Inserts a refresh token (new family unless given); returns the opaque token. */
async function insertRefreshToken(ctx: RequestContext, tx: Db, userId: number, workspaceId: number, familyId: string = randomUUID()): Promise<RefreshGrant> {
  const token = randomToken(32)
  const now = ctx.deps.clock.now()
  const [row] = await tx
    .insert(refreshTokens)
    .values({
      user_id: userId,
      workspace_id: workspaceId,
      family_id: familyId,
      token_hash: sha256Hex(token),
      expires_at: new Date(now.getTime() + ctx.deps.config.REFRESH_TOKEN_TTL).toISOString(),
      created_at: now.toISOString(),
    })
    .returning({ id: refreshTokens.id })
  return { token, familyId, id: row.id }
}

interface RefreshGrant {
  token: string
  familyId: string
  id: number
}

const workspaceTimeZone = prepared((db) =>
  db
    .select({ timezone: workspaces.timezone })
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare(),
)

/** The answer of every call that hands out tokens; `user` also carries the workspace's time zone and the sync grants version. */
async function sessionFor(ctx: RequestContext, user: SessionUser, refresh: RefreshGrant): Promise<Session> {
  const token = await ctx.deps.tokens.signAccessToken({ userId: user.id, workspaceId: user.workspace_id, role: user.role, sessionId: refresh.familyId })
  const [workspace] = await workspaceTimeZone(ctx.deps.db.read).all({ id: user.workspace_id })
  const member = await loadMember(ctx.deps.db.read, user.id, user.workspace_id)
  const grants_version = phoneGrantsVersion(member?.permissions ?? new Set())
  return {
    token,
    refresh_token: refresh.token,
    expires_in: ctx.deps.tokens.accessTtlSeconds,
    user: { ...user, timezone: workspace?.timezone ?? 'UTC', grants_version },
  }
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase()

const rateLimited = (message: string, retryAfterSeconds: number) => new AppError('RATE_LIMITED', message, {}, { 'retry-after': String(retryAfterSeconds) })

async function findLiveUserByEmail(db: Db, email: string) {
  const [user] = await db
    .select()
    .from(users)
    .where(and(eq(users.email, email), isNull(users.deleted_at)))
    .limit(1)
  return user
}

export async function register(ctx: RequestContext, input: RegisterInput): Promise<Session> {
  if (!ctx.deps.config.REGISTRATION_ENABLED) throw new AppError('REGISTRATION_DISABLED', 'registration is disabled')
  // Every attempt counts, decided before any await (see platform/rate-limit.ts).
  const retryAfterSeconds = ctx.deps.limits.register.tryConsume(ctx.meta.ip ?? 'unknown')
  if (retryAfterSeconds > 0) throw rateLimited('too many registrations from this address, try again later', retryAfterSeconds)
  const email = normalizeEmail(input.email)
  const passwordHash = await hashPassword(input.password)
  const { user, refreshToken } = await withTransaction(ctx, async ({ tx, audit }) => {
    if (await findLiveUserByEmail(tx, email)) throw new AlreadyExists('USER', 'email', 'a user with this email already exists')
    const now = ctx.deps.clock.now().toISOString()
    const { workspace, roles: builtins } = await insertWorkspace(tx, input.workspace_name, now, input.timezone ?? ctx.deps.config.DEFAULT_TIMEZONE)
    const [user] = await tx
      .insert(users)
      .values({ email, name: input.name, password_hash: passwordHash, last_workspace_id: workspace.id, created_at: now, updated_at: now })
      .returning()
    await tx.insert(memberships).values({
      workspace_id: workspace.id,
      user_id: user.id,
      role_id: builtins.super_admin.id,
      created_at: now,
      updated_at: now,
    })
    const actor = { id: user.id, name: user.name, role: 'super_admin', workspaceId: workspace.id }
    await audit({ entityType: 'workspace', entityId: workspace.id, entityName: workspace.name, action: 'created', newValues: workspace, actor })
    await audit({
      entityType: 'user',
      entityId: user.id,
      entityName: user.name,
      action: 'created',
      newValues: { id: user.id, name: user.name, email: user.email, role: 'super_admin' },
      actor,
    })
    const sessionUser = { id: user.id, email, name: user.name, role: 'super_admin', workspace_id: workspace.id }
    return { user: sessionUser, refreshToken: await insertRefreshToken(ctx, tx, user.id, workspace.id) }
  })
  return sessionFor(ctx, user, refreshToken)
}

/** The workspace a plain login lands in: the last one used if still reachable, else the first. */
async function landingMembership(db: Db, userId: number, preferredWorkspaceId: number | null) {
  const rows = await db
    .select({ workspaceId: memberships.workspace_id, isActive: memberships.is_active, role: roles.slug })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.role_id))
    .where(and(eq(memberships.user_id, userId), isNull(memberships.deleted_at)))
    .orderBy(asc(memberships.workspace_id))
  const active = rows.filter((row) => row.isActive)
  return {
    membership: active.find((row) => row.workspaceId === preferredWorkspaceId) ?? active[0] ?? null,
    onlyInactive: active.length === 0 && rows.length > 0,
  }
}

const tooManyFromAddress = (retryAfterSeconds: number) => rateLimited('too many failed password checks from this address, try again later', retryAfterSeconds)

/**
 * Slots in both login limiters: failed password checks per IP first (whatever the email), then failed
 * logins per email+IP; always in that order, so no two logins wait on each other. Settled once: a
 * failure counts in both, a success clears the email's count only.
 */
async function reserveLogin(ctx: RequestContext, email: string): Promise<Attempt> {
  const ip = ctx.meta.ip ?? 'unknown'
  const byIp = await ctx.deps.limits.passwordFailuresByIp.reserve(ip)
  if (!byIp.attempt) throw tooManyFromAddress(byIp.retryAfterSeconds)
  const byEmail = await ctx.deps.limits.login.reserve(`${email}|${ip}`)
  if (!byEmail.attempt) {
    byIp.attempt.released()
    throw rateLimited('too many failed logins, try again later', byEmail.retryAfterSeconds)
  }
  const [perIp, perEmail] = [byIp.attempt, byEmail.attempt]
  return {
    failed: () => {
      perIp.failed()
      perEmail.failed()
    },
    succeeded: () => {
      perIp.succeeded()
      perEmail.succeeded()
    },
    released: () => {
      perIp.released()
      perEmail.released()
    },
  }
}

export async function login(ctx: RequestContext, input: LoginInput): Promise<Session> {
  const email = normalizeEmail(input.email)
  // Slots are reserved before the password is checked: each limiter decides and counts in one step
  // (see platform/rate-limit.ts), and the attempt is settled exactly once below.
  const attempt = await reserveLogin(ctx, email)
  let user: typeof users.$inferSelect | undefined
  let landing: Awaited<ReturnType<typeof landingMembership>> | null
  try {
    user = await findLiveUserByEmail(ctx.deps.db.read, email)
    // The hash is verified even for an unknown email, so timing does not reveal which emails exist.
    const passwordOk = await verifyPassword(input.password, user?.password_hash ?? null)
    landing = user && passwordOk ? await landingMembership(ctx.deps.db.read, user.id, user.last_workspace_id) : null
  } catch (error) {
    attempt.released()
    throw error
  }
  if (!user || !landing || (!landing.membership && !landing.onlyInactive)) {
    attempt.failed()
    throw new AppError('INVALID_CREDENTIALS', 'invalid email or password')
  }
  // The right password of a disabled account is not a failure, and not a success either.
  if (!landing.membership) {
    attempt.released()
    throw new AppError('ACCOUNT_DISABLED', 'this account is disabled')
  }
  attempt.succeeded()
  const { workspaceId, role } = landing.membership
  const refreshToken = await withTransaction(ctx, async ({ tx, audit }) => {
    const now = ctx.deps.clock.now().toISOString()
    await tx.update(users).set({ last_login_at: now, last_workspace_id: workspaceId }).where(eq(users.id, user.id))
    await audit({
      entityType: 'user',
      entityId: user.id,
      entityName: user.name,
      action: 'login',
      actor: { id: user.id, name: user.name, role, workspaceId },
    })
    return insertRefreshToken(ctx, tx, user.id, workspaceId)
  })
  return sessionFor(ctx, { id: user.id, email: user.email, name: user.name, role, workspace_id: workspaceId }, refreshToken)
}

/**
 * Rotation with reuse detection, and retries. Presenting token T:
 * - T unused, live, not expired: T is used (rotated) and its successor S issued; `T.replaced_by_id = S`.
 * - T rotated at most 30 s ago (REFRESH_RETRY_WINDOW_MS, from its first rotation) and its successor
 *   never used nor revoked: a retry of a phone that lost the answer. S is revoked, a new successor
 *   issued and answered, so only the newest refresh token of the family works.
 * - anything else about a rotated or revoked token (a revoked successor, a retry after 30 s, a retry
 *   after the successor was used): reuse — the whole family is revoked, 401.
 * The decision is read and written in one write transaction, and write transactions run one at a
 * time, so presentations of the same token at once are decided one after another: 30 retries at once
 * all answer 200, each revoking the successor the previous one issued, and the family ends with
 * exactly one live token, the one issued last. (Access tokens are not stored; each names its family
 * as `sid`, and once the family has no unrevoked token they answer 401: platform/actor.ts.)
 */
export async function refresh(ctx: RequestContext, input: RefreshInput): Promise<Session> {
  const tokenHash = sha256Hex(input.refresh_token)
  // The outcome is decided in the transaction; a reuse must commit its revocation before answering 401.
  const outcome = await withTransaction(
    ctx,
    async ({ tx }) => {
      const [stored] = await tx.select().from(refreshTokens).where(eq(refreshTokens.token_hash, tokenHash)).limit(1)
      if (!stored) return { ok: false as const }
      const now = ctx.deps.clock.now()
      const nowIso = now.toISOString()
      const revokeFamily = async () => {
        await tx
          .update(refreshTokens)
          .set({ revoked_at: nowIso })
          .where(and(eq(refreshTokens.family_id, stored.family_id), isNull(refreshTokens.revoked_at)))
        return { ok: false as const }
      }
      if (stored.revoked_at) return revokeFamily()
      if (stored.used_at) {
        const [successor] =
          stored.replaced_by_id === null ? [] : await tx.select().from(refreshTokens).where(eq(refreshTokens.id, stored.replaced_by_id)).limit(1)
        const isRetry =
          successor !== undefined &&
          successor.used_at === null &&
          successor.revoked_at === null &&
          now.getTime() - Date.parse(stored.used_at) <= REFRESH_RETRY_WINDOW_MS &&
          stored.expires_at > nowIso
        if (!isRetry) return revokeFamily()
        await tx.update(refreshTokens).set({ revoked_at: nowIso }).where(eq(refreshTokens.id, successor.id))
      } else if (stored.expires_at <= nowIso) {
        return { ok: false as const }
      }
      const member = await loadMember(tx, stored.user_id, stored.workspace_id)
      if (!member) return { ok: false as const }
      const next = await insertRefreshToken(ctx, tx, stored.user_id, stored.workspace_id, stored.family_id)
      // used_at keeps the first rotation, so the retry window never slides.
      await tx
        .update(refreshTokens)
        .set({ used_at: stored.used_at ?? nowIso, replaced_by_id: next.id })
        .where(eq(refreshTokens.id, stored.id))
      const user = { id: member.userId, email: member.email, name: member.name, role: member.role, workspace_id: member.workspaceId }
      return { ok: true as const, user, next }
    },
    { audit: 'none' },
  )
  if (!outcome.ok) throw new AppError('UNAUTHORIZED', 'invalid refresh token')
  return sessionFor(ctx, outcome.user, outcome.next)
}

/**
 * Ends the session of the presented refresh token, when it is the caller's: every refresh token of
 * its family is revoked, and with them every access token of that session answers 401 from the next
 * request on (platform/actor.ts), on every process of the database. This process's sockets of the
 * session close at once; another process's when its hub's sweep sees the auth epoch move
 * (platform/realtime/hub.ts). An unknown refresh token, or another user's, ends nothing (a harmless no-op).
 */
export function logout(ctx: AuthedContext, input: RefreshInput) {
  return withTransaction(ctx, async ({ tx, audit, afterCommit }) => {
    const [stored] = await tx
      .select({ family: refreshTokens.family_id })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.token_hash, sha256Hex(input.refresh_token)), eq(refreshTokens.user_id, ctx.actor.userId)))
      .limit(1)
    const families = stored ? [stored.family] : []
    if (families.length > 0) {
      await tx
        .update(refreshTokens)
        .set({ revoked_at: ctx.deps.clock.now().toISOString() })
        .where(and(eq(refreshTokens.user_id, ctx.actor.userId), inArray(refreshTokens.family_id, families), isNull(refreshTokens.revoked_at)))
    }
    afterCommit(() => ctx.deps.hub.endSessions(ctx.actor.userId, families))
    await audit({ entityType: 'user', entityId: ctx.actor.userId, entityName: ctx.actor.name, action: 'logout' })
    return {}
  })
}

/**
 * Always succeeds (no account enumeration); a live user gets a one-hour, single-use reset token.
 * At most 3 requests per email and 20 per IP per hour send mail; beyond them the answer is the same
 * and nothing is sent. Both counts are taken before any await; an IP over its limit does not count
 * against the email.
 */
export async function forgotPassword(ctx: RequestContext, input: ForgotPasswordInput) {
  const email = normalizeEmail(input.email)
  const { forgotPasswordByIp, forgotPasswordByEmail } = ctx.deps.limits
  const allowed = forgotPasswordByIp.tryConsume(ctx.meta.ip ?? 'unknown') === 0 && forgotPasswordByEmail.tryConsume(email) === 0
  if (!allowed) return
  const user = await findLiveUserByEmail(ctx.deps.db.read, email)
  if (!user) return
  const token = randomToken(32)
  await withTransaction(
    ctx,
    async ({ tx }) => {
      const now = ctx.deps.clock.now()
      await tx.insert(passwordResets).values({
        user_id: user.id,
        token_hash: sha256Hex(token),
        expires_at: new Date(now.getTime() + RESET_TOKEN_TTL_MS).toISOString(),
        created_at: now.toISOString(),
      })
      const link = new URL(`/reset-password?token=${encodeURIComponent(token)}`, ctx.deps.config.PUBLIC_URL).toString()
      await ctx.deps.mailer.queue(tx, {
        to: user.email,
        subject: 'Reset your password',
        body: [
          `Hello ${user.name},`,
          '',
          'Someone asked to reset the password of your Field Force account.',
          `Reset it within one hour: ${link}`,
          `Or send this token to POST /api/auth/reset-password: ${token}`,
          '',
          'If this was not you, ignore this message.',
        ].join('\n'),
      })
    },
    { audit: 'none' },
  )
  await ctx.deps.mailer.flush()
}

/** The unused, unexpired reset of `token` and its live user, or null. */
async function liveReset(db: Db, token: string, now: string) {
  const [reset] = await db
    .select()
    .from(passwordResets)
    .where(and(eq(passwordResets.token_hash, sha256Hex(token)), isNull(passwordResets.used_at), gt(passwordResets.expires_at, now)))
    .limit(1)
  const [user] = reset
    ? await db
        .select()
        .from(users)
        .where(and(eq(users.id, reset.user_id), isNull(users.deleted_at)))
        .limit(1)
    : []
  return reset && user ? { reset, user } : null
}

const invalidResetToken = () => ValidationFailed.field('token', 'is invalid or expired')

/**
 * The token is checked before the new password is hashed: an unknown token costs one indexed read,
 * never a hash, and counts as a failed password check of the caller's IP. The transaction checks
 * it again and decides (two resets with one token at once: one wins).
 */
export async function resetPassword(ctx: RequestContext, input: ResetPasswordInput) {
  const { attempt, retryAfterSeconds } = await ctx.deps.limits.passwordFailuresByIp.reserve(ctx.meta.ip ?? 'unknown')
  if (!attempt) throw tooManyFromAddress(retryAfterSeconds)
  let passwordHash: string
  try {
    if (!(await liveReset(ctx.deps.db.read, input.token, ctx.deps.clock.now().toISOString()))) {
      attempt.failed()
      throw invalidResetToken()
    }
    passwordHash = await hashPassword(input.password)
  } finally {
    // A failure was counted above; anything else (a valid token, an error) gives the slot back.
    attempt.released()
  }
  await withTransaction(ctx, async ({ tx, audit, afterCommit }) => {
    const now = ctx.deps.clock.now().toISOString()
    const found = await liveReset(tx, input.token, now)
    if (!found) throw invalidResetToken()
    const { user } = found
    // Every session of the user ended: their open sockets close now (other processes: the auth epoch sweep).
    afterCommit(() => ctx.deps.hub.revalidateUser(user.id))
    await tx.update(users).set({ password_hash: passwordHash, updated_at: now }).where(eq(users.id, user.id))
    await voidPasswordResets(tx, user.id, now)
    await tx
      .update(refreshTokens)
      .set({ revoked_at: now })
      .where(and(eq(refreshTokens.user_id, user.id), isNull(refreshTokens.revoked_at)))
    const landing = await landingMembership(tx, user.id, user.last_workspace_id)
    const membership = landing.membership
    if (membership) {
      await audit({
        entityType: 'user',
        entityId: user.id,
        entityName: user.name,
        action: 'updated',
        // Only the password hash changed, and an entry never holds one: no values, the change is noted in metadata.
        before: {},
        after: {},
        metadata: { credentials: 'reset by email' },
        actor: { id: user.id, name: user.name, role: membership.role, workspaceId: membership.workspaceId },
      })
    }
  })
}

export async function switchWorkspace(ctx: AuthedContext, input: SwitchWorkspaceInput): Promise<Session> {
  const member = await loadMember(ctx.deps.db.read, ctx.actor.userId, input.workspace_id)
  if (!member) throw new NotFound('WORKSPACE')
  const refreshToken = await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.update(users).set({ last_workspace_id: member.workspaceId }).where(eq(users.id, member.userId))
    await audit({
      entityType: 'user',
      entityId: member.userId,
      entityName: member.name,
      action: 'login',
      actor: { id: member.userId, name: member.name, role: member.role, workspaceId: member.workspaceId },
    })
    return insertRefreshToken(ctx, tx, member.userId, member.workspaceId)
  })
  return sessionFor(ctx, { id: member.userId, email: member.email, name: member.name, role: member.role, workspace_id: member.workspaceId }, refreshToken)
}
