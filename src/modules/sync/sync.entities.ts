/**
 * What the feeds carry: each entity with its loader — the owning module's own "detail as answered"
 * function over a page of ids (one query per entity per page), so `upsert.data` is exactly what the
 * entity's detail route answers — and the permissions that let a caller see it, as the owning
 * module's manifest declares them (`syncFeed`, whose declarations also generate the triggers).
 */
import type { Db } from '../../db/client'
import { attendanceManifest, attendancesByIds } from '../attendance'
import { catalogueManifest, principalsByIds, productsByIds } from '../catalogue'
import { formsByIds, formsManifest } from '../forms'
import {
  accountDefinition,
  channelDefinition,
  channelGroupDefinition,
  type MasterDataDefinition,
  masterDataManifest,
  masterDataService,
  type MasterTable,
  subAreaDefinition,
} from '../master-data'
import { outletsByIds, outletsManifest } from '../outlets'
import { projectsByIds, projectsManifest } from '../projects'
import { presentRole, roleScope, rolesManifest } from '../roles'
import { teamsByIds, teamsManifest } from '../teams'
import { usersByIds, usersManifest } from '../users'
import { submissionsByIds, visitDetailsByIds, visitsManifest } from '../visits'
import { inArray } from 'drizzle-orm'
import { roles } from '../../db/schema'
import type { ModuleManifest } from '../../platform/manifest'
import type { SyncFeed } from '../../platform/data/sync-feed'

/**
 * Loads the live rows among `ids` as their detail answers them. `assignee` is the phone caller for
 * visits and submissions (only theirs), null on the office feed; other entities ignore it.
 */
export type Loader = (db: Db, workspaceId: number, ids: number[], assignee: number | null) => Promise<{ id: number }[]>

export const FEED_ENTITY_NAMES = [
  'channel_group',
  'channel',
  'account',
  'sub_area',
  'outlet',
  'form',
  'project',
  'product',
  'principal',
  'visit',
  'submission',
  'user',
  'team',
  'role',
  'attendance',
] as const
export type FeedEntityName = (typeof FEED_ENTITY_NAMES)[number]

export interface FeedEntity {
  name: FeedEntityName
  load: Loader
  /** The mobile permission a phone caller needs to receive it; null: office feed only. */
  mobileKey: string | null
  /** The web permission the office feed's caller needs to receive it: the one its office list route needs. */
  webKey: string
  /** Visits and submissions: a phone caller sees only those of visits assigned to them. */
  assigned?: boolean
}

/** The owners' `syncFeed` declarations of each entity (their manifests): who may view it, and whether it reaches only assignees. */
const declared = new Map<string, NonNullable<SyncFeed['entity']>>(
  (
    [
      masterDataManifest,
      outletsManifest,
      formsManifest,
      projectsManifest,
      catalogueManifest,
      visitsManifest,
      usersManifest,
      teamsManifest,
      rolesManifest,
      attendanceManifest,
    ] as ModuleManifest[]
  ).flatMap((manifest) => (manifest.syncFeed ?? []).flatMap((feed) => (feed.entity ? [[feed.entity.name, feed.entity] as const] : []))),
)
const feed = (name: FeedEntityName, load: Loader): FeedEntity => {
  const entity = declared.get(name)
  if (!entity) throw new Error(`no syncFeed declares the entity ${name}`)
  return { name, load, webKey: entity.webKey, mobileKey: entity.mobileKey, ...(entity.reach === 'assignees' ? { assigned: true } : {}) }
}

const masterData = <T extends MasterTable, C extends MasterTable>(definition: MasterDataDefinition<T, C>): Loader => {
  const service = masterDataService(definition)
  return (db, workspaceId, ids) => service.byIds(db, workspaceId, ids)
}

export const FEED_ENTITIES: readonly FeedEntity[] = [
  feed('channel_group', masterData(channelGroupDefinition)),
  feed('channel', masterData(channelDefinition)),
  feed('account', masterData(accountDefinition)),
  feed('sub_area', masterData(subAreaDefinition)),
  feed('outlet', outletsByIds),
  feed('form', formsByIds),
  feed('project', projectsByIds),
  feed('product', productsByIds),
  feed('principal', principalsByIds),
  feed('visit', visitDetailsByIds),
  feed('submission', submissionsByIds),
  feed('user', usersByIds),
  feed('team', teamsByIds),
  feed('role', async (db, workspaceId, ids) =>
    (
      await db
        .select()
        .from(roles)
        .where(roleScope.where(workspaceId, inArray(roles.id, ids)))
    ).map(presentRole),
  ),
  feed('attendance', attendancesByIds),
]

export const PHONE_ENTITY_NAMES = FEED_ENTITIES.filter((entity) => entity.mobileKey !== null).map((entity) => entity.name)
