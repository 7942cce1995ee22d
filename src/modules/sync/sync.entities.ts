/**
 * What the feeds carry: each entity with its loader — the owning module's own "detail as answered"
 * function over a page of ids (one query per entity per page), so `upsert.data` is exactly what the
 * entity's detail route answers — and, for the phone, the permission that lets a caller see it.
 */
import type { Db } from '../../db/client'
import { attendancesByIds } from '../attendance'
import { principalsByIds, productsByIds } from '../catalogue'
import { formsByIds } from '../forms'
import {
  accountDefinition,
  channelDefinition,
  channelGroupDefinition,
  type MasterDataDefinition,
  masterDataService,
  type MasterTable,
  subAreaDefinition,
} from '../master-data'
import { outletsByIds } from '../outlets'
import { projectsByIds } from '../projects'
import { presentRole, roleScope } from '../roles'
import { teamsByIds } from '../teams'
import { usersByIds } from '../users'
import { submissionsByIds, visitDetailsByIds } from '../visits'
import { inArray } from 'drizzle-orm'
import { roles } from '../../db/schema'

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

const masterData = <T extends MasterTable, C extends MasterTable>(definition: MasterDataDefinition<T, C>): Loader => {
  const service = masterDataService(definition)
  return (db, workspaceId, ids) => service.byIds(db, workspaceId, ids)
}

export const FEED_ENTITIES: readonly FeedEntity[] = [
  { name: 'channel_group', webKey: 'channel_group.view', mobileKey: 'channel_group.view', load: masterData(channelGroupDefinition) },
  { name: 'channel', webKey: 'channel.view', mobileKey: 'channel.view', load: masterData(channelDefinition) },
  { name: 'account', webKey: 'account.view', mobileKey: 'account.view', load: masterData(accountDefinition) },
  { name: 'sub_area', webKey: 'sub_area.view', mobileKey: 'sub_area.view', load: masterData(subAreaDefinition) },
  { name: 'outlet', webKey: 'outlet.view', mobileKey: 'outlet.view', load: outletsByIds },
  { name: 'form', webKey: 'form.view', mobileKey: 'form.view', load: formsByIds },
  { name: 'project', webKey: 'project.view', mobileKey: 'project.view', load: projectsByIds },
  { name: 'product', webKey: 'product.view', mobileKey: 'product.view', load: productsByIds },
  { name: 'principal', webKey: 'principal.view', mobileKey: 'principal.view', load: principalsByIds },
  { name: 'visit', webKey: 'visit:view', mobileKey: 'visit:view', assigned: true, load: visitDetailsByIds },
  { name: 'submission', webKey: 'visit:view', mobileKey: 'visit:view', assigned: true, load: submissionsByIds },
  { name: 'user', webKey: 'user.view', mobileKey: null, load: usersByIds },
  { name: 'team', webKey: 'team.view', mobileKey: null, load: teamsByIds },
  {
    name: 'role',
    webKey: 'role.view',
    mobileKey: null,
    load: async (db, workspaceId, ids) =>
      (
        await db
          .select()
          .from(roles)
          .where(roleScope.where(workspaceId, inArray(roles.id, ids)))
      ).map(presentRole),
  },
  { name: 'attendance', webKey: 'attendance.view', mobileKey: null, load: attendancesByIds },
]

export const PHONE_ENTITY_NAMES = FEED_ENTITIES.filter((entity) => entity.mobileKey !== null).map((entity) => entity.name)
