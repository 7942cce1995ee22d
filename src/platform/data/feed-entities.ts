/**
 * The entities the change feeds carry (GET /app/v1/sync, GET /office/v1/changes), gathered from the
 * modules' `syncFeed` declarations (./sync-feed.ts) when the composition root registers the manifests
 * (../manifest.ts). The sync module reads them from here, so it names no other module: an entity
 * joins the feeds by its owner's declaration alone (README "Adding a resource").
 */
import type { FeedLoader, SyncFeed } from './sync-feed'

export interface FeedEntity {
  name: string
  load: FeedLoader
  /** The mobile permission a phone caller needs to receive it; null: office feed only. */
  mobileKey: string | null
  /** The web permission the office feed's caller needs to receive it: the one its office list route needs. */
  webKey: string
  /**
   * How its rows reach a phone (./sync-feed.ts): `workspace`, every permitted phone; `assignees`, the
   * assignees of the row's visit (visits, submissions); `owner`, the one user the row names (sales orders).
   */
  reach: 'workspace' | 'assignees' | 'owner'
}

const registered: FeedEntity[] = []

/**
 * Called once per app with every module's declarations, in module order. A table whose rows are an
 * entity declared by another table too (a user is their `users` row and their membership) declares it
 * the same way both times; a second declaration that differs is a programming error.
 */
export function registerFeedEntities(feeds: readonly SyncFeed[]) {
  const byName = new Map<string, FeedEntity>()
  for (const { entity } of feeds) {
    if (!entity) continue
    const { name, load, webKey, mobileKey, reach } = entity
    const next: FeedEntity = { name, load, webKey, mobileKey, reach }
    const known = byName.get(name)
    if (known && (known.load !== load || known.webKey !== webKey || known.mobileKey !== mobileKey || known.reach !== reach)) {
      throw new Error(`the feed entity ${name} is declared twice, differently`)
    }
    if (!known) byName.set(name, next)
  }
  registered.length = 0
  registered.push(...byName.values())
}

/** Every entity of the feeds, in the order the modules declare them. */
export function feedEntities(): readonly FeedEntity[] {
  if (registered.length === 0) throw new Error('no feed entities registered: createApp registers the modules first')
  return registered
}
