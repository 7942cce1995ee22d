/** What the locations module declares to the kernel (../../platform/manifest.ts). */
import { topics } from '../../platform/realtime/hub'
import type { ModuleManifest } from '../../platform/manifest'
import { can } from '../../platform/permissions'
import type { PingTrail } from './ping-trail'

declare module '../../platform/context' {
  interface ModuleServices {
    /** Each user's newest stored device-time ping: what a batch's jump flags are measured against. */
    pingTrail: PingTrail
  }
}

/** The live map's topic: every `location.created` of the workspace, for livemap:view holders (web). */
export const livemapTopic = (workspaceId: number) => topics.workspace(workspaceId, 'livemap')

/** Pings stored (GET /api/metrics). */
export const PINGS_INGESTED = 'ffos_location_pings_ingested_total'

export const locationsManifest = {
  permissions: [
    { key: 'livemap:view', group: 'tracking', description: 'See field users on the live map and their history', grants: { manager: 'view' } },
    { key: 'location:create', group: 'tracking', description: 'Upload own location pings', grants: { fieldUser: 'full' } },
  ],
  counters: [{ name: PINGS_INGESTED, help: 'GPS pings stored by POST /app/v1/locations/batch (backlog duplicates excluded).' }],
  socketChannels: [
    {
      topics: (access) => (can(access.permissions, 'livemap:view', 'web', 'view') ? [livemapTopic(access.workspaceId)] : []),
      bulk: ['location.created'],
    },
  ],
  notSynced: {
    location_pings: 'tracking flows from the phone to the office (live map socket, history routes), never back',
    latest_locations: 'the live map’s newest ping per user, pushed over the socket',
  },
} satisfies ModuleManifest
