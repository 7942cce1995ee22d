/**
 * The caller's own profile (mobile): name and phone, and the password. Changing the password needs
 * the current one, voids every outstanding reset token, and signs out every other session (their
 * refresh tokens are revoked; this session's family, `sid` of the access token, stays: the caller
 * has just proven the current password in it).
 */
import { and, eq, isNull, ne } from 'drizzle-orm'
import { refreshTokens, users } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { ValidationFailed } from '../../lib/errors'
import { withTransaction } from '../../platform/data/transaction'
import { hashPassword, verifyPassword } from '../../platform/passwords'
import { phoneGrantsVersion } from '../sync'
import { getUser, userById, voidPasswordResets } from '../users'
import type { PasswordChangeInput, ProfileInput } from './profile.schemas'

/** The caller's user and the grants version of their phone sync (docs/API.md §Sync and change feed). */
const withGrantsVersion = <T extends object>(ctx: AuthedContext, user: T) => ({ ...user, grants_version: phoneGrantsVersion(ctx.actor.permissions) })

export const getProfile = async (ctx: AuthedContext) => withGrantsVersion(ctx, await getUser(ctx, ctx.actor.userId))

export function updateProfile(ctx: AuthedContext, input: ProfileInput) {
  return withTransaction(ctx, async ({ tx, audit }) => {
    const [before] = await tx.select({ name: users.name, phone: users.phone }).from(users).where(eq(users.id, ctx.actor.userId))
    const [after] = await tx
      .update(users)
      .set({ ...input, updated_at: ctx.deps.clock.now().toISOString() })
      .where(eq(users.id, ctx.actor.userId))
      .returning({ name: users.name, phone: users.phone })
    await audit({ entityType: 'user', entityId: ctx.actor.userId, entityName: after.name, action: 'updated', before, after })
    return withGrantsVersion(ctx, await userById(tx, ctx.actor.workspaceId, ctx.actor.userId))
  })
}

export async function changePassword(ctx: AuthedContext, input: PasswordChangeInput) {
  const [user] = await ctx.deps.db.read.select({ hash: users.password_hash }).from(users).where(eq(users.id, ctx.actor.userId))
  if (!user || !(await verifyPassword(input.current_password, user.hash))) throw ValidationFailed.field('current_password', 'is incorrect')
  if (input.current_password === input.new_password) throw ValidationFailed.field('new_password', 'must differ from the current password')
  const hash = await hashPassword(input.new_password)
  await withTransaction(ctx, async ({ tx, audit }) => {
    const now = ctx.deps.clock.now().toISOString()
    await tx.update(users).set({ password_hash: hash, updated_at: now }).where(eq(users.id, ctx.actor.userId))
    await voidPasswordResets(tx, ctx.actor.userId, now)
    await tx
      .update(refreshTokens)
      .set({ revoked_at: now })
      .where(
        and(
          eq(refreshTokens.user_id, ctx.actor.userId),
          isNull(refreshTokens.revoked_at),
          ctx.actor.sessionId ? ne(refreshTokens.family_id, ctx.actor.sessionId) : undefined,
        ),
      )
    await audit({
      entityType: 'user',
      entityId: ctx.actor.userId,
      entityName: ctx.actor.name,
      action: 'updated',
      // Only the password hash changed, and an entry never holds one: no values, the change is noted in metadata.
      before: {},
      after: {},
      metadata: { credentials: 'changed by the user; other sessions signed out' },
    })
  })
}
