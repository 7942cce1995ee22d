/**
 * The four master-data entities, declared once each. Everything they share lives in
 * ./master-data.resource.ts.
 */
import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { accounts, channelGroups, channels, subAreas } from '../../db/schema'
import type { PlatformPlugin } from '../../platform/http/http'
import { Timestamp } from '../../platform/http/schema'
import { workspaceScoped } from '../../platform/data/scope'
import { masterDataRoutes } from './master-data.resource'
import { masterDataSchema } from './master-data.schemas'
import { defineMasterData } from './master-data.types'

export const channelGroupScope = workspaceScoped(channelGroups)
export const channelScope = workspaceScoped(channels)
export const accountScope = workspaceScoped(accounts)
export const subAreaScope = workspaceScoped(subAreas)

export const channelGroupDefinition = defineMasterData({
  entity: 'CHANNEL_GROUP',
  label: 'channel group',
  auditType: 'channel_group',
  segment: 'channel-groups',
  permission: 'channel_group',
  scope: channelGroupScope,
  uniqueName: true,
  children: {
    scope: channelScope,
    field: 'channel_group_id',
    code: 'CHANNEL_GROUP_HAS_CHILDREN',
    countKey: 'channel_count',
    message: 'channel group still has channels',
  },
})

export const channelDefinition = defineMasterData({
  entity: 'CHANNEL',
  label: 'channel',
  auditType: 'channel',
  segment: 'channels',
  permission: 'channel',
  scope: channelScope,
  uniqueName: false,
  parent: {
    field: 'channel_group_id',
    entity: 'CHANNEL_GROUP',
    scope: channelGroupScope,
    nestedAs: 'channel_group',
    nestedColumns: ['id', 'name'],
  },
  children: {
    scope: accountScope,
    field: 'channel_id',
    code: 'CHANNEL_HAS_CHILDREN',
    countKey: 'account_count',
    message: 'channel still has accounts',
  },
})

export const accountDefinition = defineMasterData({
  entity: 'ACCOUNT',
  label: 'account',
  auditType: 'account',
  segment: 'accounts',
  permission: 'account',
  scope: accountScope,
  uniqueName: false,
  parent: {
    field: 'channel_id',
    entity: 'CHANNEL',
    scope: channelScope,
    nestedAs: 'channel',
    nestedColumns: ['id', 'name', 'created_at', 'updated_at'],
  },
})

export const subAreaDefinition = defineMasterData({
  entity: 'SUB_AREA',
  label: 'sub-area',
  auditType: 'sub_area',
  segment: 'sub-areas',
  permission: 'sub_area',
  scope: subAreaScope,
  uniqueName: true,
})

const NestedChannel = Type.Object({ id: Type.Integer(), name: Type.String(), created_at: Timestamp(), updated_at: Timestamp() })

export const ChannelGroupSchema = masterDataSchema(channelGroupDefinition)
export const ChannelSchema = masterDataSchema(channelDefinition)
export const AccountSchema = masterDataSchema(accountDefinition, NestedChannel)
export const SubAreaSchema = masterDataSchema(subAreaDefinition)

export const masterDataModule = (platform: PlatformPlugin) =>
  new Elysia()
    .use(masterDataRoutes(channelGroupDefinition, platform, ChannelGroupSchema))
    .use(masterDataRoutes(channelDefinition, platform, ChannelSchema))
    .use(masterDataRoutes(accountDefinition, platform, AccountSchema))
    .use(masterDataRoutes(subAreaDefinition, platform, SubAreaSchema))
