/**
 * GET /ws?token=ACCESS_TOKEN (CONTRACT §10): the token is checked at the upgrade (bad or missing →
 * 401, no socket), then the socket joins the topics its permissions allow (./hub.ts). Messages are
 * JSON `{type, data}`; the client's `{type:"ping"}` is answered `{type:"pong"}`.
 */
import { Elysia, t } from 'elysia'
import { authenticate } from '../platform/actor'
import type { Actor, Deps } from '../platform/context'
import { can } from '../platform/permissions'
import { topics } from './hub'

interface SocketContext {
  actor: Actor
}

export function topicsFor(actor: Actor): string[] {
  const { workspaceId, userId, permissions } = actor
  const joined = [topics.user(workspaceId, userId)]
  if (can(permissions, 'livemap:view', 'web', 'view')) joined.push(topics.livemap(workspaceId))
  joined.push(can(permissions, 'visit:view', 'web', 'view') ? topics.visits(workspaceId) : topics.userVisits(workspaceId, userId))
  return joined
}

export const wsRoutes = (deps: Deps) =>
  new Elysia().ws('/ws', {
    query: t.Object({ token: t.Optional(t.String({ maxLength: 4096 })) }),
    async beforeHandle(c) {
      try {
        // The socket keeps the actor of its upgrade; `open` reads it from the same context.
        ;(c as unknown as SocketContext).actor = await authenticate(deps.db.read, deps.tokens, c.query.token ? `Bearer ${c.query.token}` : null)
      } catch {
        return c.status(401, { success: false, message: 'authentication required', code: 'UNAUTHORIZED', errors: {} })
      }
    },
    open(ws) {
      deps.hub.connections++
      for (const topic of topicsFor((ws.data as unknown as SocketContext).actor)) ws.subscribe(topic)
    },
    close() {
      deps.hub.connections--
    },
    message(ws, message) {
      const type = typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined
      if (type === 'ping') ws.send(JSON.stringify({ type: 'pong' }))
    },
    detail: { summary: 'Live events: location.created, visit.updated, notification.created', security: [] },
  })

