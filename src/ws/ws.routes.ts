/**
 * GET /ws?token=ACCESS_TOKEN (docs/API.md §Real-time socket): the token is checked at the upgrade (bad or missing →
 * 401, no socket), then the socket joins the topics its permissions allow and lives as long as that
 * access does (./hub.ts). Messages are JSON `{type, data}`:
 *   {type:"ping"}                → {type:"pong"}
 *   {type:"auth", token:"<jwt>"} → {type:"auth.ok"}: a newer access token of the same user (and
 *                                  workspace) before the old one expires; the socket lives on until
 *                                  the new `exp`. Another user's, a bad or an expired token → close 4401.
 */
import { eq } from 'drizzle-orm'
import { Elysia, t } from 'elysia'
import { authEpoch } from '../db/schema'
import { authenticate, loadMember } from '../platform/actor'
import type { Deps } from '../platform/context'
import { AppError } from '../platform/errors'
import type { SocketAccess } from './hub'

interface SocketContext {
  access: SocketAccess
}

/** The access a token grants a socket; throws Unauthorized (code UNAUTHORIZED or TOKEN_EXPIRED). */
async function socketAccess(deps: Deps, token: string | null): Promise<SocketAccess> {
  const actor = await authenticate(deps.db.read, deps.tokens, token ? `Bearer ${token}` : null)
  // The token was just accepted, so this is a cache hit; it may have expired in between.
  const verified = await deps.tokens.verifyAccessToken(token!)
  if (verified.status !== 'valid') throw new AppError(401, 'TOKEN_EXPIRED', 'access token expired')
  return {
    userId: actor.userId,
    workspaceId: actor.workspaceId,
    roleId: actor.roleId,
    sessionId: verified.claims.sessionId,
    expiresAt: verified.claims.exp * 1000,
    permissions: actor.permissions,
  }
}

export const wsRoutes = (deps: Deps) => {
  deps.hub.watchAccess({
    clock: deps.clock,
    async loadAccess(userId, workspaceId) {
      const member = await loadMember(deps.db.read, userId, workspaceId)
      return member && { roleId: member.roleId, permissions: member.permissions }
    },
    async readEpoch() {
      const [row] = await deps.db.read.select({ value: authEpoch.value }).from(authEpoch).where(eq(authEpoch.id, 1))
      return row?.value ?? -1
    },
  })

  return new Elysia().ws('/ws', {
    query: t.Object({ token: t.Optional(t.String({ maxLength: 4096 })) }),
    async beforeHandle(c) {
      try {
        // The socket keeps the access of its upgrade; `open` reads it from the same context.
        ;(c as unknown as SocketContext).access = await socketAccess(deps, c.query.token ?? null)
      } catch {
        return c.status(401, { success: false, message: 'authentication required', code: 'UNAUTHORIZED', errors: {} })
      }
    },
    open(ws) {
      deps.hub.register(ws.raw, (ws.data as unknown as SocketContext).access)
    },
    close(ws) {
      deps.hub.unregister(ws.raw)
    },
    async message(ws, message) {
      const body = typeof message === 'object' && message !== null ? (message as { type?: unknown; token?: unknown }) : {}
      if (body.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }))
      else if (body.type === 'auth') {
        let access: SocketAccess
        try {
          access = await socketAccess(deps, typeof body.token === 'string' ? body.token : null)
        } catch (error) {
          deps.hub.close(ws.raw, error instanceof AppError && error.code === 'TOKEN_EXPIRED' ? 'TOKEN_EXPIRED' : 'UNAUTHORIZED')
          return
        }
        if (deps.hub.reauthorize(ws.raw, access)) ws.send(JSON.stringify({ type: 'auth.ok' }))
      }
    },
    detail: { summary: 'Live events: location.created, visit.updated, notification.created', security: [] },
  })
}
