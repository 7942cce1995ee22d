/**
 * What a caller may receive on each feed, and its grants version: a short digest of exactly that
 * (the entity types it may view there). A cursor carries the version it was issued under and is
 * refused under another one (./sync.service.ts), so a grant lost or gained never leaves rows on a
 * replica the caller may no longer see, nor rows missing that they may see now. The phone's version
 * is also answered as `user.grants_version` by login and the profile, so an app can tell that its
 * copy is about to be refused (docs/API.md §Sync and change feed).
 */
import { createHash } from 'node:crypto'
import { can, type PermissionSet } from '../../platform/permissions'
import { type FeedEntity, feedEntities } from '../../platform/data/feed-entities'

/** The phone's entities: those its role may view on mobile. */
export const phoneEntities = (permissions: PermissionSet): FeedEntity[] =>
  feedEntities().filter((entity) => entity.mobileKey !== null && can(permissions, entity.mobileKey, 'mobile', 'view'))

/** The office feed's entities: those whose office list the caller may read on the web. */
export const officeEntities = (permissions: PermissionSet): FeedEntity[] => feedEntities().filter((entity) => can(permissions, entity.webKey, 'web', 'view'))

export function grantsVersion(feed: 'phone' | 'office', entities: readonly FeedEntity[]): string {
  const names = entities.map((entity) => entity.name).sort()
  return createHash('sha256')
    .update(`${feed}:${names.join(',')}`)
    .digest('base64url')
    .slice(0, 16)
}

/** `user.grants_version` of login and the profile: the version of the caller's phone feed. */
export const phoneGrantsVersion = (permissions: PermissionSet) => grantsVersion('phone', phoneEntities(permissions))
