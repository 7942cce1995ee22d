/**
 * The per-workspace hub: how the service pushes events to connected clients (CONTRACT §10) over
 * Bun's native WebSocket pub/sub. Every topic carries the workspace id, so nothing crosses workspaces.
 *
 *   w:<wid>:livemap        location.created         sockets of livemap:view holders (web)
 *   w:<wid>:visits         visit.updated            sockets of visit:view holders (web)
 *   w:<wid>:u:<uid>:visits visit.updated            a field user's sockets, for visits assigned to them
 *   w:<wid>:u:<uid>        notification.created     every socket of that user in that workspace
 *
 * A socket subscribes either to the workspace's visits topic or to its own, so an assignee who also
 * reads all visits gets each update once. Events are published after the transaction commits; a slow
 * or dead socket is Bun's to drop (backpressure limit, idle timeout), never the publisher's to wait for.
 */
import type { Server } from 'bun'

export type HubEventType = 'location.created' | 'visit.updated' | 'notification.created'

export interface HubEvent {
  type: HubEventType
  data: unknown
}

export const topics = {
  livemap: (workspaceId: number) => `w:${workspaceId}:livemap`,
  visits: (workspaceId: number) => `w:${workspaceId}:visits`,
  userVisits: (workspaceId: number, userId: number) => `w:${workspaceId}:u:${userId}:visits`,
  user: (workspaceId: number, userId: number) => `w:${workspaceId}:u:${userId}`,
}

export class Hub {
  private server: Pick<Server<unknown>, 'publish' | 'subscriberCount'> | null = null
  /** Open sockets (for the metrics page). */
  connections = 0

  attach(server: Pick<Server<unknown>, 'publish' | 'subscriberCount'>) {
    this.server = server
  }

  detach() {
    this.server = null
  }

  /** Whether any socket listens on `topic`: a batch of events for nobody is not even serialised. */
  hasListeners(topic: string): boolean {
    return this.server !== null && this.server.subscriberCount(topic) > 0
  }

  /** Sends to every socket subscribed to `topic`; a no-op while no server is listening. */
  publish(topic: string, event: HubEvent) {
    this.server?.publish(topic, JSON.stringify(event))
  }
}
