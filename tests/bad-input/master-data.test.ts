/**
 * Hostile input for Master data (channel groups, channels, accounts, sub-areas) (src/modules/master-data): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  createChannel,
  createdData,
  createGroup,
  deleted,
  type FieldSpec,
  foreign,
  parentId,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  t,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Master data ----------------------------------------------------------------------------------

interface MasterEntity {
  segment: string
  label: string
  parent?: { field: string; create: (rc: RouteCtx) => Promise<number>; segment: string; foreign: () => number }
}

const MASTER: MasterEntity[] = [
  { segment: 'channel-groups', label: 'Group' },
  {
    segment: 'channels',
    label: 'Channel',
    parent: { field: 'channel_group_id', create: (rc) => createGroup(rc.token), segment: 'outlets/channel-groups', foreign: () => foreign.channel_group_id },
  },
  {
    segment: 'accounts',
    label: 'Account',
    parent: { field: 'channel_id', create: (rc) => createChannel(rc.token), segment: 'outlets/channels', foreign: () => foreign.channel_id },
  },
  { segment: 'sub-areas', label: 'SubArea' },
]

for (const entity of MASTER) {
  const base = `/office/v1/outlets/${entity.segment}`
  const body = (rc: RouteCtx) => ({ name: unique(entity.label), ...(entity.parent ? { [entity.parent.field]: rc.parent } : {}) })
  const setup = async (rc: RouteCtx) => {
    if (!entity.parent) return
    rc.parent = await entity.parent.create(rc)
    rc.deletedParent = await deleted(entity.parent.segment, await entity.parent.create(rc), rc.token)
  }
  const fields = (required: boolean): Record<string, FieldSpec> => ({
    name: { mutations: requiredText(255), required },
    ...(entity.parent
      ? { [entity.parent.field]: { mutations: parentId({ foreign: entity.parent.foreign, deleted: (rc) => rc.deletedParent }), required } }
      : {}),
  })
  const readBack = async (rc: RouteCtx, id: number) => (await t.app.get(`${base}/${id}`, { token: rc.token })).body.data

  SPECS[`POST /api${base}`] = {
    family: 'master data',
    setup,
    baseline: async (rc) => ({ path: base, body: body(rc), token: rc.token }),
    fields: fields(true),
    readBack: (rc, reply) => readBack(rc, reply.body.data.id),
  }
  SPECS[`PUT /api${base}/:id`] = {
    family: 'master data',
    setup: async (rc) => {
      await setup(rc)
      rc.target = createdData(await t.app.post(base, body(rc), { token: rc.token }), entity.label).id
    },
    baseline: async (rc) => ({ path: `${base}/${rc.target}`, body: body(rc), token: rc.token }),
    fields: fields(false),
    readBack: (rc) => readBack(rc, rc.target),
  }
}

badInputTests('master-data', { specs: SPECS })
