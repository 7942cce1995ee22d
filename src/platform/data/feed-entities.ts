/**
 * What the feeds carry (GET /app/v1/sync, GET /office/v1/changes): each entity a module's manifest
 * declares in its `syncFeed` (./sync-feed.ts), with its loader — the owning module's own "detail as
 * answered" function over a page of ids, so `upsert.data` is exactly what the entity's detail route
 * answers — and the permissions that let a caller see it. Gathered once at registration
 * (../manifest.ts `registerModules`), in module order; the sync module names no other module.
 */
import type { FeedLoader, SyncFeed } from './sync-feed'

export interface FeedEntity {
  name: string
  load: FeedLoader
  /** The mobile permission a phone caller needs to receive it; null: office feed only. */
  mobileKey: string | null
  /** The web permission the office feed's caller needs to receive it: the one its office list route needs. */
  webKey: string
  /** Visits and submissions: a phone caller sees only those of visits assigned to them. */
  assigned: boolean
}

const registered: FeedEntity[] = []

/**
 * Sets the entities from the modules' feed declarations, in order. An entity may be declared by
 * several tables, but alike (same loader and permissions); a differing second declaration is refused,
 * so a start never serves one entity two ways. Registering the same declarations again changes nothing.
 */
export function registerFeedEntities(feeds: readonly SyncFeed[]) {
  const byName = new Map<string, FeedEntity>()
  for (const feed of feeds) {
    if (!feed.entity) continue
    const { name, load, webKey, mobileKey, reach } = feed.entity
    const entity: FeedEntity = { name, load, webKey, mobileKey, assigned: reach === 'assignees' }
    const earlier = byName.get(name)
    if (!earlier) byName.set(name, entity)
    else if (earlier.load !== load || earlier.webKey !== webKey || earlier.mobileKey !== mobileKey || earlier.assigned !== entity.assigned)
      throw new Error(`the feed entity ${name} is declared twice, differently`)
  }
  registered.length = 0
  registered.push(...byName.values())
}

/** The registered entities, in module order. */
export const feedEntities = (): readonly FeedEntity[] => registered
