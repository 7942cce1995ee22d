/**
 * What the feeds carry (GET /app/v1/sync, GET /office/v1/changes): each entity a module's `syncFeed` declares,
 * with its loader — the owning module's "detail as answered" over a page of ids, so `upsert.data` is exactly
 * what the entity's detail route answers — and the permissions that let a caller see it. The composition
 * root registers the manifests in module order (../manifest.ts, `registerModules`); the sync module reads the
 * entities from here and names no other module.
 *
 * An entity may be declared by more than one table (its rows live in one, a link table refreshes it): the
 * declarations must then agree, or the start is refused.
 */
import type { FeedLoader, SyncFeed } from './sync-feed'

export interface FeedEntity {
  name: string
  load: FeedLoader
  /** The mobile permission a phone caller needs to receive it; null: office feed only. */
  mobileKey: string | null
  /** The web permission the office feed's caller needs to receive it: the one its office list route needs. */
  webKey: string
  /** Reaches only the assignees of the row's visit (visits, submissions): a phone caller sees only theirs. */
  assigned: boolean
}

const registered: FeedEntity[] = []

/** Sets the entities from the modules' feed declarations, in declaration order (registering again replaces them). */
export function registerFeedEntities(feeds: readonly SyncFeed[]) {
  const byName = new Map<string, FeedEntity>()
  for (const feed of feeds) {
    const entity = feed.entity
    if (!entity) continue
    const next: FeedEntity = { name: entity.name, load: entity.load, mobileKey: entity.mobileKey, webKey: entity.webKey, assigned: entity.reach === 'assignees' }
    const known = byName.get(entity.name)
    if (known) {
      if (known.load !== next.load || known.mobileKey !== next.mobileKey || known.webKey !== next.webKey || known.assigned !== next.assigned)
        throw new Error(`the feed entity ${entity.name} is declared twice, differently`)
      continue
    }
    byName.set(entity.name, next)
  }
  registered.length = 0
  registered.push(...byName.values())
}

/** The registered entities, in module order. */
export const feedEntities = (): readonly FeedEntity[] => registered
