/**
 * GET /ws?token=ACCESS_TOKEN[&since=EVENT_ID] (docs/API.md §Real-time socket): the token is checked at
 * the upgrade (bad or missing → 401, no socket), then `since` (not a whole number of at most 16
 * digits → 400 VALIDATION_ERROR, no socket: a client bug is refused loudly rather than answered with a
 * resync it would loop on). The socket first replays the events after `since` it may see, or gets
 * {"type":"resync"}, then joins the topics its permissions allow and lives as long as that access does
 * (../platform/hub.ts). Pushed events are `{type, id, data}`. Messages are JSON:
 *   {type:"ping"}                → {type:"pong"}
 *   {type:"auth", token:"<jwt>"} → {type:"auth.ok"}: a newer access token of the same user (and
 *                                  workspace) before the old one expires; the socket lives on until
 *                                  the new `exp`. Another user's, a bad or an expired token → close 4401.
 */
import { eq } from 'drizzle-orm'
import { Elysia, t } from 'elysia'
import { authEpoch } from '../db/schema'
import { authenticate, liveSessions, loadMember } from '../platform/actor'
import type { Deps } from '../platform/context'
import { AppError } from '../lib/errors'
import type { SocketAccess } from '../platform/realtime/hub'

/** The socket, for the OpenAPI document's description (it has no WebSocket operation; docs/API.md §Real-time socket). */
export const WEBSOCKET_DOCS = `

## WebSocket: GET /ws?token=ACCESS_TOKEN[&since=EVENT_ID]

Live events over one socket (not listed under the paths below: OpenAPI has no WebSocket operation).
Connect to \`/ws\` (not under \`/api\`) with the access token as the \`token\` query parameter; a missing or
bad token is refused with 401 before the upgrade. Pushed messages are JSON \`{"type", "id", "data"}\`:
\`location.created\` (live map, for users with livemap:view), \`visit.updated\` (visits you may see) and
\`notification.created\` (your own); reconnect with \`since\` = the last \`id\` seen to get what was missed,
or \`{"type":"resync"}\` when it is no longer kept. Send \`{"type":"ping"}\` and the server answers
\`{"type":"pong"}\`; send \`{"type":"auth","token":"…"}\` with a newer access token to keep the socket open.`

interface SocketContext {
  access: SocketAccess
  since: number | undefined
}

/** An event id: a whole number of at most 16 digits that JavaScript holds exactly. */
function parseSince(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined
  if (!/^[0-9]{1,16}$/.test(value)) return null
  const since = Number(value)
  return Number.isSafeInteger(since) ? since : null
}

/** The access a token grants a socket; throws Unauthorized (code UNAUTHORIZED or TOKEN_EXPIRED). */
async function socketAccess(deps: Deps, token: string | null): Promise<SocketAccess> {
  const actor = await authenticate(deps.db.read, deps.tokens, token ? `Bearer ${token}` : null)
  // The token was just accepted, so this is a cache hit; it may have expired in between.
  const verified = await deps.tokens.verifyAccessToken(token!)
  if (verified.status !== 'valid') throw new AppError('TOKEN_EXPIRED', 'access token expired')
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
    liveSessions: (sessionIds) => liveSessions(deps.db.read, sessionIds),
    async readEpoch() {
      const [row] = await deps.db.read.select({ value: authEpoch.value }).from(authEpoch).where(eq(authEpoch.id, 1))
      return row?.value ?? -1
    },
  })

  return new Elysia().ws('/ws', {
    query: t.Object({ token: t.Optional(t.String({ maxLength: 4096 })), since: t.Optional(t.String()) }),
    // An arrow function, not a method: see the `transform` hooks in src/platform/http/http.ts (Elysia's source inference).
    beforeHandle: async (c) => {
      // The socket keeps the access and `since` of its upgrade; `open` reads them from the same context.
      const context = c as unknown as SocketContext
      try {
        context.access = await socketAccess(deps, c.query.token ?? null)
      } catch {
        return c.status(401, { success: false, message: 'authentication required', code: 'UNAUTHORIZED', errors: {} })
      }
      const since = parseSince(c.query.since)
      if (since === null) {
        const errors = { since: ['must be the id of an event this socket received: a whole number of at most 16 digits'] }
        return c.status(400, { success: false, message: 'Validation failed', code: 'VALIDATION_ERROR', errors })
      }
      context.since = since
    },
    open(ws) {
      const { access, since } = ws.data as unknown as SocketContext
      deps.hub.register(ws.raw, access, since)
    },
    drain(ws) {
      deps.hub.drained(ws.raw)
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
    detail: { summary: 'Live events (location.created, visit.updated, notification.created), replayed after ?since=<id>', security: [] },
  })
}
