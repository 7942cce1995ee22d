/**
 * Audit logs (docs/API.md §Audit log, §Envelopes, §Roles and permissions): one entry per successful
 * mutation, snapshots and metadata, the nested list envelope with its filters, who sees which
 * entries, and immutability.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { changedFields, type AuditEntry } from '../src/platform/data/audit'
import type { ManualClock } from '../src/lib/clock'
import * as make from './factories'
import { created } from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'

const t = useTestApp()
const clock = () => t.app.clock as ManualClock

const MASTER = '/office/v1/outlets'
const AUDIT = '/office/v1/audit-logs'
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

type Entry = {
  id: number
  workspace_id: number
  actor_id: number | null
  actor_name: string
  actor_role: string
  entity_type: string
  entity_id: string
  entity_name: string
  action: string
  old_values: Record<string, unknown> | null
  new_values: Record<string, unknown> | null
  metadata: { ip: string | null; user_agent: string | null; request_id: string; timestamp: string }
  created_at: string
}

/** The main workspace: its owner (super_admin) and an admin who makes most of the mutations. */
let home: Workspace
let admin: Session

beforeAll(async () => {
  home = await t.app.workspace()
  admin = await t.app.member(home, 'admin', { name: 'Audit Admin' })
})

// ---------------------------------------------------------------------------------------------
// helpers

const create = (token: string, segment: string, body: Record<string, unknown>) => created(t.app, `${MASTER}/${segment}`, body, token)

const newGroup = (token: string, name = unique('Group')) => make.newChannelGroup(t.app, token, { name })
const newChannel = (token: string, name = unique('Channel')) => make.newChannel(t.app, token, { name })
const newAccount = (token: string, name = unique('Account')) => make.newAccount(t.app, token, { name })
const newSubArea = (token: string, name = unique('SubArea')) => make.newSubArea(t.app, token, { name })

interface EntityCase {
  type: string
  segment: string
  make(token: string): Promise<Record<string, any>>
}

const ENTITIES: EntityCase[] = [
  { type: 'channel_group', segment: 'channel-groups', make: (token) => newGroup(token) },
  { type: 'channel', segment: 'channels', make: (token) => newChannel(token) },
  { type: 'account', segment: 'accounts', make: (token) => newAccount(token) },
  { type: 'sub_area', segment: 'sub-areas', make: (token) => newSubArea(token) },
]

function query(params: Record<string, string | number | undefined>) {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

/** Lists audit entries (asserting the call succeeded); returns the items and meta. */
async function list(token: string, params: Record<string, string | number | undefined> = {}) {
  const reply = await t.app.get(`${AUDIT}${query(params)}`, { token })
  if (reply.status !== 200) throw new Error(`audit list failed: ${reply.status} ${reply.text}`)
  return reply.body.data as { data: Entry[]; meta: { page: number; limit: number; total: number; total_pages: number } }
}

/** Entries of one entity, oldest first. */
async function entriesOf(type: string, id: number | string, token = home.owner.token) {
  return (await list(token, { entity_type: type, entity_id: String(id), sort_by: 'id', sort_order: 'asc', limit: 100 })).data
}

const auditCount = () => t.app.count('audit_logs')

/** Runs a mutation and asserts it wrote exactly one audit entry. */
async function expectOneEntry<T>(mutation: () => Promise<T>): Promise<T> {
  const before = await auditCount()
  const result = await mutation()
  expect(await auditCount()).toBe(before + 1)
  return result
}

function expectActor(entry: Entry, session: Session, workspaceId: number) {
  expect(entry.workspace_id).toBe(workspaceId)
  expect(entry.actor_id).toBe(session.user.id)
  expect(entry.actor_name).toBe(session.user.name)
  expect(entry.actor_role).toBe(session.user.role)
}

// ---------------------------------------------------------------------------------------------

describe('every successful master-data mutation writes exactly one entry', () => {
  for (const entity of ENTITIES) {
    test(`creating a ${entity.type} writes one "created" entry: old_values null, new_values = the new ${entity.type}`, async () => {
      const name = unique(`Created ${entity.type}`)
      const body: Record<string, unknown> = { name }
      if (entity.type === 'channel') body.channel_group_id = (await newGroup(admin.token)).id
      if (entity.type === 'account') body.channel_id = (await newChannel(admin.token)).id
      // Parents are made first, so the count below covers this one create only.
      const reply = await expectOneEntry(() => t.app.post(`${MASTER}/${entity.segment}`, body, { token: admin.token }))
      expect(reply.status).toBe(201)
      const created = reply.body.data

      const entries = await entriesOf(entity.type, created.id)
      expect(entries).toHaveLength(1)
      const [entry] = entries
      expect(entry.action).toBe('created')
      expect(entry.entity_type).toBe(entity.type)
      expect(entry.entity_id).toBe(String(created.id))
      expect(entry.entity_name).toBe(name)
      expect(entry.old_values).toBeNull()
      expect(entry.new_values).toEqual(created)
      expectActor(entry, admin, home.id)
      expect(entry.created_at).toMatch(ISO_UTC)
    })

    test(`updating a ${entity.type} writes one "updated" entry with only the changed fields (no updated_at) and the new name`, async () => {
      const before = await entity.make(admin.token)
      clock().advance(1000) // so updated_at really changes and must be left out on purpose
      const renamed = unique(`Renamed ${entity.type}`)
      const reply = await expectOneEntry(() => t.app.put(`${MASTER}/${entity.segment}/${before.id}`, { name: renamed }, { token: admin.token }))
      expect(reply.status).toBe(200)
      expect(reply.body.data.updated_at).not.toBe(before.updated_at)

      const entries = await entriesOf(entity.type, before.id)
      expect(entries.map((e) => e.action)).toEqual(['created', 'updated'])
      const entry = entries[1]
      expect(entry.old_values).toEqual({ name: before.name })
      expect(entry.new_values).toEqual({ name: renamed })
      expect(entry.entity_name).toBe(renamed)
      expectActor(entry, admin, home.id)
    })

    test(`deleting a ${entity.type} writes one "deleted" entry: old_values = the ${entity.type}, new_values null`, async () => {
      const made = await entity.make(admin.token)
      const shown = (await t.app.get(`${MASTER}/${entity.segment}/${made.id}`, { token: admin.token })).body.data
      const reply = await expectOneEntry(() => t.app.delete(`${MASTER}/${entity.segment}/${made.id}`, { token: admin.token }))
      expect(reply.status).toBe(200)

      const entries = await entriesOf(entity.type, made.id)
      expect(entries.map((e) => e.action)).toEqual(['created', 'deleted'])
      const entry = entries[1]
      expect(entry.old_values).toEqual(shown)
      expect(entry.new_values).toBeNull()
      expect(entry.entity_name).toBe(made.name)
      expectActor(entry, admin, home.id)
    })
  }

  test('moving a channel to another group records only the parent fields that changed', async () => {
    const channel = await newChannel(admin.token)
    const target = await newGroup(admin.token)
    const reply = await expectOneEntry(() => t.app.put(`${MASTER}/channels/${channel.id}`, { channel_group_id: target.id }, { token: admin.token }))
    expect(reply.status).toBe(200)
    const [, entry] = await entriesOf('channel', channel.id)
    expect(entry.action).toBe('updated')
    expect(entry.old_values!.channel_group_id).toBe(channel.channel_group_id)
    expect(entry.new_values!.channel_group_id).toBe(target.id)
    for (const values of [entry.old_values!, entry.new_values!]) {
      expect(Object.keys(values)).not.toContain('name')
      expect(Object.keys(values)).not.toContain('updated_at')
      expect(Object.keys(values)).not.toContain('id')
    }
    expect(entry.entity_name).toBe(channel.name)
  })
})

describe('failed requests write no entry', () => {
  test('400 validation failures (missing name, blank name, unknown parent) write nothing', async () => {
    const before = await auditCount()
    expectError(await t.app.post(`${MASTER}/channel-groups`, {}, { token: admin.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.post(`${MASTER}/sub-areas`, { name: '   ' }, { token: admin.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.post(`${MASTER}/channels`, { name: unique('Orphan'), channel_group_id: 999_999 }, { token: admin.token }), 400, 'VALIDATION_ERROR')
    expectError(
      await t.app.post(`${MASTER}/channel-groups`, undefined, { token: admin.token, raw: '{not json', headers: { 'content-type': 'application/json' } }),
      400,
      'VALIDATION_ERROR',
    )
    const group = await newGroup(admin.token)
    const afterSetup = await auditCount()
    expectError(await t.app.put(`${MASTER}/channel-groups/${group.id}`, { name: '' }, { token: admin.token }), 400, 'VALIDATION_ERROR')
    expect(await auditCount()).toBe(afterSetup)
    expect(afterSetup).toBe(before + 1)
  })

  test('404 on update or delete of a missing id writes nothing', async () => {
    const before = await auditCount()
    for (const entity of ENTITIES) {
      expectError(await t.app.put(`${MASTER}/${entity.segment}/999999`, { name: 'x' }, { token: admin.token }), 404, `${entity.type.toUpperCase()}_NOT_FOUND`)
      expectError(await t.app.delete(`${MASTER}/${entity.segment}/999999`, { token: admin.token }), 404, `${entity.type.toUpperCase()}_NOT_FOUND`)
    }
    expect(await auditCount()).toBe(before)
  })

  test('409 conflicts (taken name, delete guards) write nothing', async () => {
    const group = await newGroup(admin.token)
    const other = await newGroup(admin.token)
    const channel = await create(admin.token, 'channels', { name: unique('Guarded'), channel_group_id: group.id })
    await create(admin.token, 'accounts', { name: unique('Child'), channel_id: channel.id })
    const before = await auditCount()

    expectError(await t.app.post(`${MASTER}/channel-groups`, { name: group.name.toUpperCase() }, { token: admin.token }), 409, 'CHANNEL_GROUP_ALREADY_EXISTS')
    expectError(await t.app.put(`${MASTER}/channel-groups/${other.id}`, { name: group.name }, { token: admin.token }), 409, 'CHANNEL_GROUP_ALREADY_EXISTS')
    expectError(await t.app.delete(`${MASTER}/channel-groups/${group.id}`, { token: admin.token }), 409, 'CHANNEL_GROUP_HAS_CHILDREN')
    expectError(await t.app.delete(`${MASTER}/channels/${channel.id}`, { token: admin.token }), 409, 'CHANNEL_HAS_CHILDREN')

    expect(await auditCount()).toBe(before)
    expect((await entriesOf('channel_group', other.id)).map((e) => e.action)).toEqual(['created'])
  })

  test('403 for a caller without the manage permission writes nothing', async () => {
    const manager = await t.app.member(home, 'manager')
    const before = await auditCount()
    expectError(await t.app.post(`${MASTER}/channel-groups`, { name: unique('Nope') }, { token: manager.token }), 403, 'FORBIDDEN')
    expect(await auditCount()).toBe(before)
  })
})

describe('entries keep snapshots of actor and entity', () => {
  test('renaming the actor later does not change actor_name of earlier entries; later entries carry the new name', async () => {
    const actor = await t.app.member(home, 'admin', { name: 'Name Before Rename' })
    const group = await newGroup(actor.token)
    const renamed = await t.app.put(`/office/v1/users/${actor.user.id}`, { name: 'Name After Rename' }, { token: home.owner.token })
    expect(renamed.status).toBe(200)

    const [createdEntry] = await entriesOf('channel_group', group.id)
    expect(createdEntry.actor_name).toBe('Name Before Rename')
    expect(createdEntry.actor_role).toBe('admin')

    const reply = await t.app.put(`${MASTER}/channel-groups/${group.id}`, { name: unique('Later') }, { token: actor.token })
    expect(reply.status).toBe(200)
    const entries = await entriesOf('channel_group', group.id)
    expect(entries.map((e) => e.actor_name)).toEqual(['Name Before Rename', 'Name After Rename'])
    // The detail endpoint shows the same stored snapshot.
    const detail = await t.app.get(`${AUDIT}/${createdEntry.id}`, { token: home.owner.token })
    expect(detail.body.data.actor_name).toBe('Name Before Rename')
  })

  test('changing the actor role later does not change actor_role of earlier entries', async () => {
    const actor = await t.app.member(home, 'admin')
    const group = await newGroup(actor.token)
    const changed = await t.app.put(`/office/v1/users/${actor.user.id}`, { role_id: home.roles.manager }, { token: home.owner.token })
    expect(changed.status).toBe(200)
    const [entry] = await entriesOf('channel_group', group.id)
    expect(entry.actor_role).toBe('admin')
  })

  test('renaming the entity later does not change entity_name of its earlier entries', async () => {
    const group = await newGroup(admin.token, unique('Original'))
    await t.app.put(`${MASTER}/channel-groups/${group.id}`, { name: unique('Changed') }, { token: admin.token })
    const [createdEntry] = await entriesOf('channel_group', group.id)
    expect(createdEntry.entity_name).toBe(group.name)
  })
})

describe('metadata holds ip, user agent, request id and timestamp', () => {
  test("metadata has exactly {ip, user_agent, request_id, timestamp}; user_agent from the header, request_id = the answer's X-Request-Id", async () => {
    const reply = await t.app.post(`${MASTER}/sub-areas`, { name: unique('Meta') }, { token: admin.token, headers: { 'user-agent': 'AuditTest/1.0 (probe)' } })
    expect(reply.status).toBe(201)
    const requestId = reply.headers.get('x-request-id')
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)

    const [entry] = await entriesOf('sub_area', reply.body.data.id)
    expect(Object.keys(entry.metadata).sort()).toEqual(['ip', 'request_id', 'timestamp', 'user_agent'])
    expect(entry.metadata.user_agent).toBe('AuditTest/1.0 (probe)')
    expect(entry.metadata.request_id).toBe(requestId!)
    expect(entry.metadata.timestamp).toMatch(ISO_UTC)
    expect(entry.metadata.timestamp).toBe(clock().now().toISOString())
    expect(entry.metadata.ip === null || typeof entry.metadata.ip === 'string').toBe(true)
  })

  test('a valid client X-Request-Id is kept: answer header and metadata.request_id both equal it', async () => {
    const sent = `client-${unique('req')}`
    const group = await newGroup(admin.token)
    const reply = await t.app.put(`${MASTER}/channel-groups/${group.id}`, { name: unique('WithId') }, { token: admin.token, headers: { 'x-request-id': sent } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-request-id')).toBe(sent)
    const [, entry] = await entriesOf('channel_group', group.id)
    expect(entry.metadata.request_id).toBe(sent)
  })

  test('an invalid client X-Request-Id is replaced, and metadata.request_id equals the replacement sent back', async () => {
    const group = await newGroup(admin.token)
    const reply = await t.app.delete(`${MASTER}/channel-groups/${group.id}`, { token: admin.token, headers: { 'x-request-id': 'has spaces <and> junk' } })
    expect(reply.status).toBe(200)
    const answered = reply.headers.get('x-request-id')
    expect(answered).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(answered).not.toBe('has spaces <and> junk')
    const [, entry] = await entriesOf('channel_group', group.id)
    expect(entry.metadata.request_id).toBe(answered!)
  })

  test('without a User-Agent header metadata.user_agent is null', async () => {
    const reply = await t.app.post(`${MASTER}/sub-areas`, { name: unique('NoAgent') }, { token: admin.token })
    const [entry] = await entriesOf('sub_area', reply.body.data.id)
    expect(entry.metadata.user_agent).toBeNull()
  })
})

describe('list envelope and paging', () => {
  let bulk: Workspace
  const BULK = 105

  beforeAll(async () => {
    bulk = await t.app.workspace()
    for (let i = 0; i < BULK; i++) await newSubArea(bulk.owner.token, `Bulk ${i}`)
  })

  const bulkTotal = () => t.app.count('audit_logs', `workspace_id = ${bulk.id}`)

  test('the list answers the nested envelope {success, message:"Success", code:"AUDIT_LOG_LIST", data:{data, meta}}', async () => {
    const reply = await t.app.get(AUDIT, { token: bulk.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.success).toBe(true)
    expect(reply.body.message).toBe('Success')
    expect(reply.body.code).toBe('AUDIT_LOG_LIST')
    expect(reply.body.meta).toBeUndefined()
    expect(Array.isArray(reply.body.data.data)).toBe(true)
    expect(Object.keys(reply.body.data.meta).sort()).toEqual(['limit', 'page', 'total', 'total_pages'])
  })

  test('default limit is 50, page 1, newest first; total and total_pages count every visible entry', async () => {
    const total = await bulkTotal()
    expect(total).toBeGreaterThan(BULK)
    const { data, meta } = await list(bulk.owner.token)
    expect(meta).toEqual({ page: 1, limit: 50, total, total_pages: Math.ceil(total / 50) })
    expect(data).toHaveLength(50)
    const ids = data.map((e) => e.id)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    expect(data[0].entity_name).toBe(`Bulk ${BULK - 1}`)
  })

  test('limit above 100 is clamped to 100', async () => {
    const { data, meta } = await list(bulk.owner.token, { limit: 1000 })
    expect(meta.limit).toBe(100)
    expect(data).toHaveLength(100)
    expect(meta.total_pages).toBe(Math.ceil(meta.total / 100))
  })

  test('page walks through the entries without overlap', async () => {
    const total = await bulkTotal()
    const last = Math.ceil(total / 50)
    const first = await list(bulk.owner.token, { page: 1 })
    const final = await list(bulk.owner.token, { page: last })
    expect(final.meta.page).toBe(last)
    expect(final.data).toHaveLength(total - 50 * (last - 1))
    const firstIds = new Set(first.data.map((e) => e.id))
    expect(final.data.some((e) => firstIds.has(e.id))).toBe(false)
    expect((await list(bulk.owner.token, { page: last + 1 })).data).toEqual([])
  })

  test('page or limit below 1 or not a number → 400 VALIDATION_ERROR', async () => {
    for (const bad of ['page=0', 'limit=0', 'limit=abc', 'page=-1']) {
      expectError(await t.app.get(`${AUDIT}?${bad}`, { token: bulk.owner.token }), 400, 'VALIDATION_ERROR')
    }
  })
})

describe('list filters', () => {
  /**
   * A workspace with a known history (10 entries):
   *   owner: workspace created, owner created (register), "Filter Admin" created
   *   admin: login
   *   owner: Alpha Group created, renamed Alpha Prime (updated), Beta Area (sub_area) created
   *   admin: Gamma Group created, Delta Channel created, Delta Channel deleted
   */
  let ws: Workspace
  let filterAdmin: Session
  let alpha: Record<string, any>
  let gamma: Record<string, any>
  let delta: Record<string, any>

  beforeAll(async () => {
    ws = await t.app.workspace()
    filterAdmin = await t.app.member(ws, 'admin', { name: 'Filter Admin' })
    alpha = await newGroup(ws.owner.token, 'Alpha Group')
    await t.app.put(`${MASTER}/channel-groups/${alpha.id}`, { name: 'Alpha Prime' }, { token: ws.owner.token })
    await newSubArea(ws.owner.token, 'Beta Area')
    gamma = await newGroup(filterAdmin.token, 'Gamma Group')
    delta = await create(filterAdmin.token, 'channels', { name: 'Delta Channel', channel_group_id: gamma.id })
    await t.app.delete(`${MASTER}/channels/${delta.id}`, { token: filterAdmin.token })
  })

  const names = (entries: Entry[]) => entries.map((e) => `${e.action}:${e.entity_name}`).sort()
  const find = (params: Record<string, string | number | undefined>) => list(ws.owner.token, { limit: 100, ...params })

  test('without filters the workspace history is complete (10 entries)', async () => {
    const { meta } = await find({})
    expect(meta.total).toBe(10)
    expect(await t.app.count('audit_logs', `workspace_id = ${ws.id}`)).toBe(10)
  })

  test('entity_type keeps only entries of that type', async () => {
    const groups = await find({ entity_type: 'channel_group' })
    expect(names(groups.data)).toEqual(['created:Alpha Group', 'created:Gamma Group', 'updated:Alpha Prime'])
    expect(groups.meta.total).toBe(3)
    expect(names((await find({ entity_type: 'sub_area' })).data)).toEqual(['created:Beta Area'])
    expect(names((await find({ entity_type: 'channel' })).data)).toEqual(['created:Delta Channel', 'deleted:Delta Channel'])
    expect((await find({ entity_type: 'account' })).meta.total).toBe(0)
    const users = await find({ entity_type: 'user' })
    expect(users.data.every((e) => e.entity_type === 'user')).toBe(true)
    expect(users.meta.total).toBe(3)
  })

  test('an unknown entity_type → 400 VALIDATION_ERROR with errors.entity_type', async () => {
    const errors = expectError(await t.app.get(`${AUDIT}?entity_type=spaceship`, { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
    expect(errors.entity_type).toEqual(expect.arrayContaining([expect.any(String)]))
  })

  test('an unknown action → 400 VALIDATION_ERROR with errors.action', async () => {
    const errors = expectError(await t.app.get(`${AUDIT}?action=exploded`, { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
    expect(errors.action).toEqual(expect.arrayContaining([expect.any(String)]))
  })

  test('entity_id keeps only entries of that entity id', async () => {
    const { data } = await find({ entity_id: String(alpha.id) })
    expect(data.length).toBeGreaterThanOrEqual(2)
    expect(data.every((e) => e.entity_id === String(alpha.id))).toBe(true)
    expect(names(data.filter((e) => e.entity_type === 'channel_group'))).toEqual(['created:Alpha Group', 'updated:Alpha Prime'])
    expect((await find({ entity_id: '987654321' })).meta.total).toBe(0)
  })

  test('action keeps only entries of that action', async () => {
    const deleted = await find({ action: 'deleted' })
    expect(names(deleted.data)).toEqual(['deleted:Delta Channel'])
    const created = await find({ action: 'created' })
    expect(created.meta.total).toBe(7)
    expect(created.data.every((e) => e.action === 'created')).toBe(true)
    expect(names((await find({ action: 'login' })).data)).toEqual(['login:Filter Admin'])
  })

  test('actor_id keeps only entries made by that user', async () => {
    const mine = await find({ actor_id: filterAdmin.user.id })
    expect(names(mine.data)).toEqual(['created:Delta Channel', 'created:Gamma Group', 'deleted:Delta Channel', 'login:Filter Admin'])
    expect(mine.data.every((e) => e.actor_id === filterAdmin.user.id)).toBe(true)
    const owners = await find({ actor_id: ws.owner.user.id })
    expect(owners.meta.total).toBe(6)
    expect((await find({ actor_id: 987654321 })).meta.total).toBe(0)
  })

  test('keyword matches entity_name case-insensitively and partially', async () => {
    expect(names((await find({ keyword: 'ALPHA' })).data)).toEqual(['created:Alpha Group', 'updated:Alpha Prime'])
    expect(names((await find({ keyword: 'amm' })).data)).toEqual(['created:Gamma Group'])
    expect((await find({ keyword: 'no-such-text-anywhere' })).meta.total).toBe(0)
  })

  test('keyword matches actor_name too', async () => {
    const { data } = await find({ keyword: 'filter admin' })
    // Made by the admin (4) plus the owner's "created" entry of the admin user (entity_name).
    expect(names(data)).toEqual(['created:Delta Channel', 'created:Filter Admin', 'created:Gamma Group', 'deleted:Delta Channel', 'login:Filter Admin'])
  })

  test('filters combine (AND)', async () => {
    expect(names((await find({ entity_type: 'channel_group', action: 'created' })).data)).toEqual(['created:Alpha Group', 'created:Gamma Group'])
    expect(names((await find({ entity_type: 'channel_group', action: 'created', actor_id: filterAdmin.user.id })).data)).toEqual(['created:Gamma Group'])
    expect(names((await find({ keyword: 'alpha', action: 'updated' })).data)).toEqual(['updated:Alpha Prime'])
    expect(names((await find({ entity_type: 'channel', entity_id: String(delta.id), action: 'deleted' })).data)).toEqual(['deleted:Delta Channel'])
    expect((await find({ entity_type: 'channel', action: 'deleted', actor_id: ws.owner.user.id })).meta.total).toBe(0)
    const combined = await find({ entity_type: 'channel_group', action: 'created', limit: 1 })
    expect(combined.meta).toEqual({ page: 1, limit: 1, total: 2, total_pages: 2 })
  })
})

describe('date filters', () => {
  /** Entries on three days, made with the clock moved (tokens are issued at that time by a fresh login). */
  let ws: Workspace
  const DAY_ONE = '2021-03-01T10:00:00.000Z'
  const DAY_TWO_LAST_MS = '2021-03-02T23:59:59.999Z'
  const DAY_THREE_START = '2021-03-03T00:00:00.000Z'

  beforeAll(async () => {
    ws = await t.app.workspace()
    const saved = clock().now()
    try {
      for (const [at, name] of [
        [DAY_ONE, 'Day One'],
        [DAY_TWO_LAST_MS, 'Day Two'],
        [DAY_THREE_START, 'Day Three'],
      ]) {
        clock().set(at)
        const session = await t.app.login(ws.owner.user.email)
        await newGroup(session.token, name)
      }
    } finally {
      clock().set(saved)
    }
  })

  const groups = async (params: Record<string, string>) =>
    (await list(ws.owner.token, { entity_type: 'channel_group', sort_by: 'id', sort_order: 'asc', ...params })).data.map((e) => e.entity_name)

  test('entries are stamped with the time of the action', async () => {
    const { data } = await list(ws.owner.token, { entity_type: 'channel_group', sort_by: 'id', sort_order: 'asc' })
    expect(data.map((e) => e.created_at)).toEqual([DAY_ONE, DAY_TWO_LAST_MS, DAY_THREE_START])
  })

  test('date_from as a date starts at that day 00:00 UTC (inclusive)', async () => {
    expect(await groups({ date_from: '2021-03-02' })).toEqual(['Day Two', 'Day Three'])
    expect(await groups({ date_from: '2021-03-03' })).toEqual(['Day Three'])
    expect(await groups({ date_from: '2021-03-04' })).toEqual([])
  })

  test('date_to as a date includes that whole day (UTC)', async () => {
    expect(await groups({ date_to: '2021-03-02' })).toEqual(['Day One', 'Day Two'])
    expect(await groups({ date_to: '2021-03-01' })).toEqual(['Day One'])
    expect(await groups({ date_to: '2021-02-28' })).toEqual([])
  })

  test('date_from and date_to on the same date select exactly that day', async () => {
    expect(await groups({ date_from: '2021-03-02', date_to: '2021-03-02' })).toEqual(['Day Two'])
  })

  test('date-time bounds are inclusive to the millisecond', async () => {
    expect(await groups({ date_from: DAY_ONE, date_to: DAY_ONE })).toEqual(['Day One'])
    expect(await groups({ date_from: '2021-03-01T10:00:00.001Z' })).toEqual(['Day Two', 'Day Three'])
    expect(await groups({ date_to: '2021-03-02T23:59:59.998Z' })).toEqual(['Day One'])
    expect(await groups({ date_to: DAY_THREE_START })).toEqual(['Day One', 'Day Two', 'Day Three'])
  })

  test('date filters combine with the other filters', async () => {
    const { data, meta } = await list(ws.owner.token, { date_from: '2021-03-02', date_to: '2021-03-03', action: 'login' })
    expect(meta.total).toBe(2)
    expect(data.every((e) => e.action === 'login' && e.created_at >= '2021-03-02')).toBe(true)
  })

  test('a malformed date → 400 VALIDATION_ERROR naming the field', async () => {
    expect(expectError(await t.app.get(`${AUDIT}?date_from=yesterday`, { token: ws.owner.token }), 400, 'VALIDATION_ERROR').date_from).toEqual(
      expect.arrayContaining([expect.any(String)]),
    )
    expect(expectError(await t.app.get(`${AUDIT}?date_to=2021-13-01`, { token: ws.owner.token }), 400, 'VALIDATION_ERROR').date_to).toEqual(
      expect.arrayContaining([expect.any(String)]),
    )
    expect(expectError(await t.app.get(`${AUDIT}?date_from=01-03-2021`, { token: ws.owner.token }), 400, 'VALIDATION_ERROR').date_from).toEqual(
      expect.arrayContaining([expect.any(String)]),
    )
  })

  test('a calendar-impossible date (2021-02-30) → 400 VALIDATION_ERROR, not silently another day', async () => {
    expect(expectError(await t.app.get(`${AUDIT}?date_to=2021-02-30`, { token: ws.owner.token }), 400, 'VALIDATION_ERROR').date_to).toEqual(
      expect.arrayContaining([expect.any(String)]),
    )
  })
})

describe('detail', () => {
  test('GET /audit-logs/:id → 200 AUDIT_LOG_FOUND, message Success, data = the entry as listed', async () => {
    const group = await newGroup(admin.token)
    const [entry] = await entriesOf('channel_group', group.id)
    const reply = await t.app.get(`${AUDIT}/${entry.id}`, { token: admin.token })
    expect(reply.status).toBe(200)
    expect(reply.body.success).toBe(true)
    expect(reply.body.code).toBe('AUDIT_LOG_FOUND')
    expect(reply.body.message).toBe('Success')
    expect(reply.body.data).toEqual(entry)
  })

  test("another workspace's entry id → 404 AUDIT_LOG_NOT_FOUND (admin and super_admin alike)", async () => {
    const outsider = await t.app.workspace()
    const theirs = await newGroup(outsider.owner.token)
    const [theirEntry] = await entriesOf('channel_group', theirs.id, outsider.owner.token)
    expectError(await t.app.get(`${AUDIT}/${theirEntry.id}`, { token: admin.token }), 404, 'AUDIT_LOG_NOT_FOUND')
    expectError(await t.app.get(`${AUDIT}/${theirEntry.id}`, { token: home.owner.token }), 404, 'AUDIT_LOG_NOT_FOUND')

    const ours = await newGroup(admin.token)
    const [ourEntry] = await entriesOf('channel_group', ours.id)
    expectError(await t.app.get(`${AUDIT}/${ourEntry.id}`, { token: outsider.owner.token }), 404, 'AUDIT_LOG_NOT_FOUND')
  })

  test('an id that does not exist → 404 AUDIT_LOG_NOT_FOUND; a non-numeric id → 400', async () => {
    expectError(await t.app.get(`${AUDIT}/99999999`, { token: admin.token }), 404, 'AUDIT_LOG_NOT_FOUND')
    expectError(await t.app.get(`${AUDIT}/abc`, { token: admin.token }), 400, 'VALIDATION_ERROR')
  })
})

describe('who sees which entries', () => {
  /** A super_admin owning two workspaces (home + second), and an unrelated workspace. */
  let multi: Workspace
  let secondId: number
  let secondToken: string
  let secondGroup: Record<string, any>
  let homeGroup: Record<string, any>
  let outsider: Workspace
  let outsiderGroup: Record<string, any>
  let multiAdmin: Session
  let multiManager: Session

  beforeAll(async () => {
    multi = await t.app.workspace()
    outsider = await t.app.workspace()
    const created = await t.app.post('/office/v1/workspaces', { name: unique('Second') }, { token: multi.owner.token })
    if (created.status !== 201) throw new Error(`create workspace failed: ${created.status} ${created.text}`)
    secondId = created.body.data.id
    const switched = await t.app.post('/auth/switch-workspace', { workspace_id: secondId }, { token: multi.owner.token })
    if (switched.status !== 200) throw new Error(`switch failed: ${switched.status} ${switched.text}`)
    secondToken = switched.body.data.token
    secondGroup = await newGroup(secondToken, unique('In Second'))
    homeGroup = await newGroup(multi.owner.token, unique('In Home'))
    outsiderGroup = await newGroup(outsider.owner.token, unique('Outside'))
    multiAdmin = await t.app.member(multi, 'admin')
    multiManager = await t.app.member(multi, 'manager')
    // Something the admin did, which the manager must not see.
    await newSubArea(multiAdmin.token)
  })

  test('super_admin sees entries of every workspace they can access, and nothing of others', async () => {
    const { data, meta } = await list(multi.owner.token, { limit: 100 })
    const workspaces = new Set(data.map((e) => e.workspace_id))
    expect([...workspaces].sort()).toEqual([multi.id, secondId].sort())
    expect(meta.total).toBe(await t.app.count('audit_logs', `workspace_id IN (${multi.id}, ${secondId})`))
    const groupIds = data.filter((e) => e.entity_type === 'channel_group').map((e) => Number(e.entity_id))
    expect(groupIds).toContain(secondGroup.id)
    expect(groupIds).toContain(homeGroup.id)
    expect(groupIds).not.toContain(outsiderGroup.id)
    // The same holds from a token scoped to the second workspace.
    expect((await list(secondToken, { limit: 100 })).meta.total).toBe(meta.total)
  })

  test('super_admin narrows to one accessible workspace with workspace_id', async () => {
    const { data, meta } = await list(multi.owner.token, { workspace_id: secondId, limit: 100 })
    expect(data.length).toBeGreaterThan(0)
    expect(data.every((e) => e.workspace_id === secondId)).toBe(true)
    expect(meta.total).toBe(await t.app.count('audit_logs', `workspace_id = ${secondId}`))
    expect(data.some((e) => e.entity_type === 'channel_group' && Number(e.entity_id) === secondGroup.id)).toBe(true)
  })

  test("super_admin's workspace_id of a workspace they cannot access shows nothing", async () => {
    const { data, meta } = await list(multi.owner.token, { workspace_id: outsider.id })
    expect(meta.total).toBe(0)
    expect(data).toEqual([])
  })

  test('super_admin may read the detail of an entry in another workspace they can access', async () => {
    const [entry] = await entriesOf('channel_group', secondGroup.id, multi.owner.token)
    expect(entry.workspace_id).toBe(secondId)
    const reply = await t.app.get(`${AUDIT}/${entry.id}`, { token: multi.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.data.id).toBe(entry.id)
  })

  test('admin sees only their own workspace; the workspace_id filter is ignored', async () => {
    const own = await t.app.count('audit_logs', `workspace_id = ${multi.id}`)
    const plain = await list(multiAdmin.token, { limit: 100 })
    expect(plain.meta.total).toBe(own)
    expect(plain.data.every((e) => e.workspace_id === multi.id)).toBe(true)

    for (const other of [secondId, outsider.id]) {
      const filtered = await list(multiAdmin.token, { workspace_id: other, limit: 100 })
      expect(filtered.meta.total).toBe(own)
      expect(filtered.data.every((e) => e.workspace_id === multi.id)).toBe(true)
    }
    const [secondEntry] = await entriesOf('channel_group', secondGroup.id, multi.owner.token)
    expectError(await t.app.get(`${AUDIT}/${secondEntry.id}`, { token: multiAdmin.token }), 404, 'AUDIT_LOG_NOT_FOUND')
  })

  test('a manager sees only entries they made themselves', async () => {
    const mine = await t.app.count('audit_logs', `workspace_id = ${multi.id} AND actor_id = ${multiManager.user.id}`)
    expect(mine).toBeGreaterThan(0) // at least their login
    const { data, meta } = await list(multiManager.token, { limit: 100 })
    expect(meta.total).toBe(mine)
    expect(data.every((e) => e.actor_id === multiManager.user.id && e.workspace_id === multi.id)).toBe(true)
    expect(data.some((e) => e.action === 'login')).toBe(true)
    // Asking for someone else's entries, or another workspace, yields nothing more.
    expect((await list(multiManager.token, { actor_id: multiAdmin.user.id })).meta.total).toBe(0)
    expect((await list(multiManager.token, { workspace_id: secondId })).meta.total).toBe(mine)
  })

  test("a manager gets 404 for the detail of someone else's entry and 200 for their own", async () => {
    const { data } = await list(multi.owner.token, { actor_id: multiAdmin.user.id, workspace_id: multi.id })
    expect(data.length).toBeGreaterThan(0)
    expectError(await t.app.get(`${AUDIT}/${data[0].id}`, { token: multiManager.token }), 404, 'AUDIT_LOG_NOT_FOUND')
    const own = (await list(multiManager.token)).data[0]
    expect((await t.app.get(`${AUDIT}/${own.id}`, { token: multiManager.token })).status).toBe(200)
  })

  test('the built-in user role gets 403 FORBIDDEN on list and detail', async () => {
    const field = await t.app.member(multi, 'user')
    const { data } = await list(multi.owner.token, { actor_id: field.user.id })
    expectError(await t.app.get(AUDIT, { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`${AUDIT}/${data[0].id}`, { token: field.token }), 403, 'FORBIDDEN')
  })

  test('without a token → 401 UNAUTHORIZED', async () => {
    expectError(await t.app.get(AUDIT), 401, 'UNAUTHORIZED')
    expectError(await t.app.get(`${AUDIT}/1`), 401, 'UNAUTHORIZED')
  })
})

describe("a super_admin's list covers only workspaces where they hold audit_log.view today", () => {
  /** X: super_admin of A (registered) and of W2 (created by X); Y: a second super_admin of W2 who changes X's role there. */
  let a: Workspace
  let w2: number
  let w2Roles: Record<string, number>
  let y: Session
  let w2Entry: Entry

  beforeAll(async () => {
    a = await t.app.workspace()
    const created = await t.app.post('/office/v1/workspaces', { name: unique('W2') }, { token: a.owner.token })
    if (created.status !== 201) throw new Error(`create workspace failed: ${created.status} ${created.text}`)
    w2 = created.body.data.id
    const inW2 = (await t.app.post('/auth/switch-workspace', { workspace_id: w2 }, { token: a.owner.token })).body.data.token
    const roles = await t.app.get('/office/v1/roles', { token: inW2 })
    w2Roles = Object.fromEntries(roles.body.data.map((role: { slug: string; id: number }) => [role.slug, role.id]))
    await newGroup(inW2, unique('In W2'))
    const email = `${unique('second-owner')}@example.com`
    const made = await t.app.post('/office/v1/users', { name: 'Second Owner', email, password: 'password123', role_id: w2Roles.super_admin }, { token: inW2 })
    if (made.status !== 201) throw new Error(`create user failed: ${made.status} ${made.text}`)
    y = await t.app.login(email)
    expect(y.user.workspace_id).toBe(w2)
    ;[w2Entry] = (await list(a.owner.token, { workspace_id: w2, entity_type: 'channel_group' })).data
    expect(w2Entry.workspace_id).toBe(w2)
  })

  /** Y sets X's membership in W2; X keeps using the token of A. */
  async function setInW2(change: Record<string, unknown>) {
    const reply = await t.app.put(`/office/v1/users/${a.owner.user.id}`, change, { token: y.token })
    if (reply.status !== 200) throw new Error(`update failed: ${reply.status} ${reply.text}`)
  }

  async function expectW2Covered(covered: boolean) {
    const all = await list(a.owner.token, { limit: 100 })
    expect(all.data.some((entry) => entry.workspace_id === w2)).toBe(covered)
    expect(all.data.every((entry) => entry.workspace_id === a.id || entry.workspace_id === w2)).toBe(true)
    expect(all.meta.total).toBe(await t.app.count('audit_logs', covered ? `workspace_id IN (${a.id}, ${w2})` : `workspace_id = ${a.id}`))
    const filtered = await list(a.owner.token, { workspace_id: w2 })
    expect(filtered.meta.total > 0).toBe(covered)
    const detail = await t.app.get(`${AUDIT}/${w2Entry.id}`, { token: a.owner.token })
    if (covered) expect(detail.status).toBe(200)
    else expectError(detail, 404, 'AUDIT_LOG_NOT_FOUND')
  }

  test('as super_admin of both, A covers W2: list, workspace_id filter and detail', async () => {
    await expectW2Covered(true)
  })

  test('demoted to user in W2: W2 entries are invisible from A in the list, by workspace_id and in the detail', async () => {
    await setInW2({ role_id: w2Roles.user })
    await expectW2Covered(false)
  })

  test('made admin in W2 (which holds audit_log.view): W2 is covered again', async () => {
    await setInW2({ role_id: w2Roles.admin })
    await expectW2Covered(true)
  })

  test('made manager in W2 (audit_log.view limited to their teams there): W2 is not covered from A', async () => {
    await setInW2({ role_id: w2Roles.manager })
    await expectW2Covered(false)
  })

  test('deactivated in W2 as admin: W2 is not covered', async () => {
    await setInW2({ role_id: w2Roles.admin })
    await expectW2Covered(true)
    await setInW2({ is_active: false })
    await expectW2Covered(false)
  })
})

describe('entries are immutable', () => {
  const WRITES: [string, string][] = [
    ['POST', AUDIT],
    ['PUT', `${AUDIT}/1`],
    ['PATCH', `${AUDIT}/1`],
    ['DELETE', `${AUDIT}/1`],
    ['POST', `${AUDIT}/1`],
    ['PUT', AUDIT],
    ['DELETE', AUDIT],
  ]

  test('there are no write routes: POST/PUT/PATCH/DELETE on /audit-logs[/:id] → 404 ROUTE_NOT_FOUND, with or without a token', async () => {
    const before = await t.app.rows('audit_logs')
    for (const [method, path] of WRITES) {
      const body = method === 'DELETE' ? undefined : { actor_name: 'forged', action: 'created' }
      expectError(await t.app.request(method, path, { token: home.owner.token, body }), 404, 'ROUTE_NOT_FOUND')
      expectError(await t.app.request(method, path, { body }), 404, 'ROUTE_NOT_FOUND')
    }
    expect(await t.app.rows('audit_logs')).toEqual(before)
  })

  test('the database refuses UPDATE and DELETE on audit_logs', async () => {
    const before = await t.app.rows('audit_logs')
    expect(before.length).toBeGreaterThan(0)
    await expect(t.app.db.pragma("UPDATE audit_logs SET actor_name = 'forged'")).rejects.toThrow()
    await expect(t.app.db.pragma(`UPDATE audit_logs SET new_values = NULL WHERE id = ${before[0].id}`)).rejects.toThrow()
    await expect(t.app.db.pragma('DELETE FROM audit_logs')).rejects.toThrow()
    await expect(t.app.db.pragma(`DELETE FROM audit_logs WHERE id = ${before[0].id}`)).rejects.toThrow()
    expect(await t.app.rows('audit_logs')).toEqual(before)
  })
})

describe('entries never hold secrets', () => {
  test('after user creation, password change, login and logout no entry holds a password, hash or token', async () => {
    const createPassword = 'Create-Secret-Pa55word!'
    const changePassword = 'Change-Secret-Pa55word!'
    const email = `${unique('secret')}@example.com`
    const created = await t.app.post(
      '/office/v1/users',
      { name: 'Secret Keeper', email, password: createPassword, role_id: home.roles.admin },
      { token: home.owner.token },
    )
    expect(created.status).toBe(201)
    const userId = created.body.data.id
    const changed = await t.app.put(`/office/v1/users/${userId}`, { password: changePassword }, { token: home.owner.token })
    expect(changed.status).toBe(200)
    const session = await t.app.login(email, changePassword)
    const loggedOut = await t.app.post('/auth/logout', { refresh_token: session.refresh_token }, { token: session.token })
    expect(loggedOut.status).toBe(200)

    const entries = await entriesOf('user', userId)
    expect(entries.map((e) => e.action)).toEqual(['created', 'updated', 'login', 'logout'])

    const rows = await t.app.rows('audit_logs')
    const raw = JSON.stringify(rows)
    const [{ password_hash: hash }] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${userId}`)
    expect(typeof hash).toBe('string')
    for (const secret of [createPassword, changePassword, hash as string, session.token, session.refresh_token, home.owner.token, home.owner.refresh_token]) {
      expect(raw.includes(secret)).toBe(false)
    }
    expect(raw).not.toMatch(/\$argon2/)

    const secretKeys: string[] = []
    const walk = (value: unknown, path: string) => {
      if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (/password|token|hash|secret/i.test(key)) secretKeys.push(`${path}.${key}`)
          walk(inner, `${path}.${key}`)
        }
      }
    }
    for (const row of rows) {
      for (const column of ['old_values', 'new_values', 'metadata']) {
        const value = row[column]
        walk(typeof value === 'string' ? JSON.parse(value) : value, `${row.id}.${column}`)
      }
    }
    expect(secretKeys).toEqual([])

    // What the API shows of these entries holds no secrets either.
    const shown = JSON.stringify(entries)
    for (const secret of [createPassword, changePassword, hash as string]) expect(shown.includes(secret)).toBe(false)
  })
})

describe('`updated` entries hold exactly the changed fields, whatever entity was updated', () => {
  const SECRET = /password|hash|token|secret|name_key/i

  /** Every key at any depth of a value. */
  const keysDeep = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.flatMap(keysDeep)
      : value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, inner]) => [key, ...keysDeep(inner)])
        : []

  async function made(path: string, body: Record<string, unknown>) {
    const reply = await t.app.post(path, body, { token: home.owner.token })
    if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${reply.text}`)
    return reply.body.data as Record<string, any>
  }

  /**
   * One entity through a series of updates (some of them changing nothing): each answers 200 and
   * writes one `updated` entry whose two halves have the same keys, differ on every key, leave out
   * updated_at and secrets, and agree with the entity as the API showed it before and after.
   */
  async function walk(type: string, url: string, shownFirst: Record<string, any>, updates: Record<string, unknown>[]) {
    let shown = shownFirst
    const entries: Entry[] = []
    for (const body of updates) {
      clock().advance(1000)
      const reply = await expectOneEntry(() => t.app.put(url, body, { token: home.owner.token }))
      if (reply.status !== 200) throw new Error(`${type} ${JSON.stringify(body)}: ${reply.status} ${reply.text}`)
      const after = reply.body.data as Record<string, any>
      const entry = (await entriesOf(type, shownFirst.id)).at(-1)!
      expect(entry.action).toBe('updated')
      expect(entry.metadata.request_id).toBe(reply.headers.get('x-request-id')!)
      const [was, is] = [entry.old_values!, entry.new_values!]
      expect(Object.keys(was).sort()).toEqual(Object.keys(is).sort())
      for (const key of Object.keys(is)) {
        expect(Bun.deepEquals(was[key], is[key])).toBe(false)
        if (key in after) expect(is[key]).toEqual(after[key])
        if (key in shown) expect(was[key]).toEqual(shown[key])
      }
      // Every field the answer shows as changed is recorded (updated_at aside).
      for (const key of Object.keys(after)) {
        if (key !== 'updated_at' && !SECRET.test(key) && !Bun.deepEquals(shown[key], after[key])) expect(Object.keys(is)).toContain(key)
      }
      for (const values of [was, is]) {
        expect(keysDeep(values)).not.toContain('updated_at')
        expect(keysDeep(values).filter((key) => SECRET.test(key))).toEqual([])
      }
      expect(JSON.stringify(entry)).not.toMatch(/\$argon2|new-password-1/)
      expect(entry.entity_name).toBe(after.name)
      entries.push(entry)
      shown = after
    }
    return entries
  }

  test('outlet; an update that changes nothing writes one entry with {} and {}', async () => {
    const outlet = await made('/office/v1/outlets', { name: unique('Outlet'), code: unique('O') })
    const entries = await walk('outlet', `/office/v1/outlets/${outlet.id}`, outlet, [
      { name: unique('Renamed') },
      { address: 'Jl. Merdeka 1', latitude: -6.2, longitude: 106.8 },
      { address: 'Jl. Merdeka 1', latitude: -6.2 },
      { is_active: false, latitude: null, longitude: null },
    ])
    expect(entries[2].old_values).toEqual({})
    expect(entries[2].new_values).toEqual({})
  })

  test('user; a password change is noted in metadata, never in the values', async () => {
    const team = await made('/office/v1/teams', { name: unique('Team') })
    const user = await made('/office/v1/users', {
      name: unique('Person'),
      email: `${unique('person')}@example.com`,
      password: 'password123',
      role_id: home.roles.user,
    })
    const entries = await walk('user', `/office/v1/users/${user.id}`, user, [
      { name: unique('Renamed') },
      { phone: '0812345678' },
      { role_id: home.roles.manager, team_ids: [team.id] },
      { password: 'new-password-1' },
      { is_active: false },
      { phone: '0812345678' },
    ])
    expect(entries[3].old_values).toEqual({})
    expect(entries[3].new_values).toEqual({})
    expect(entries[3].metadata).toMatchObject({ credentials: 'changed by an administrator' })
    expect(entries[5].new_values).toEqual({})
  })

  test('team', async () => {
    const member = await t.app.member(home, 'user')
    const team = await made('/office/v1/teams', { name: unique('Team') })
    await walk('team', `/office/v1/teams/${team.id}`, team, [
      { name: unique('Renamed') },
      { description: 'north' },
      { leader_id: member.user.id, user_ids: [member.user.id] },
      { description: 'north' },
    ])
  })

  test('master data (channel group, channel)', async () => {
    const group = await newGroup(home.owner.token)
    await walk('channel_group', `${MASTER}/channel-groups/${group.id}`, group, [{ name: unique('Group') }, { name: unique('Group') }])
    const channel = await newChannel(home.owner.token)
    const target = await newGroup(home.owner.token)
    await walk('channel', `${MASTER}/channels/${channel.id}`, channel, [
      { channel_group_id: target.id },
      { name: unique('Channel'), channel_group_id: target.id },
    ])
  })

  test('role', async () => {
    const role = await made('/office/v1/roles', { name: unique('Role'), permissions: [{ key: 'outlet.view', platform: 'web', access: 'view' }] })
    const entries = await walk('role', `/office/v1/roles/${role.id}`, role, [
      { name: unique('Renamed') },
      { permissions: [{ key: 'outlet.view', platform: 'web', access: 'full' }] },
      { permissions: [{ key: 'outlet.view', platform: 'web', access: 'full' }] },
    ])
    expect(Object.keys(entries[0].new_values!).sort()).toEqual(['name', 'slug'])
    expect(entries[2].new_values).toEqual({})
  })

  test('workspace settings', async () => {
    const shown = (await t.app.get('/office/v1/workspaces', { token: home.owner.token })).body.data.find((w: { id: number }) => w.id === home.id)
    const entries = await walk('workspace', `/office/v1/workspaces/${home.id}/settings`, shown, [
      { location_retention_days: 30 },
      { name: unique('Home') },
      { location_retention_days: 30 },
    ])
    expect(entries[0].old_values).toEqual({ location_retention_days: shown.location_retention_days })
    expect(entries[2].new_values).toEqual({})
  })
})

describe('changedFields: the one comparison behind every `updated` entry', () => {
  test('keeps exactly the keys whose values differ, deep and order-insensitive, with a missing key read as null', () => {
    const before = { name: 'A', tags: { x: 1, y: [1, 2] }, note: null, gone: 'was', same: [1, { a: 1 }] }
    const after = { name: 'B', tags: { y: [1, 2], x: 1 }, note: undefined, added: 3, same: [1, { a: 1 }] }
    expect(changedFields(before, after)).toEqual({
      oldValues: { name: 'A', gone: 'was', added: null },
      newValues: { name: 'B', gone: null, added: 3 },
    })
  })

  test('leaves out updated_at and secrets even when they changed', () => {
    const before = { updated_at: '1', password_hash: 'h1', refresh_token: 'a', name_key: 'a', name: 'a' }
    const after = { updated_at: '2', password_hash: 'h2', refresh_token: 'b', name_key: 'b', name: 'b' }
    expect(changedFields(before, after)).toEqual({ oldValues: { name: 'a' }, newValues: { name: 'b' } })
  })

  test('nothing changed: {} and {}', () => {
    expect(changedFields({ a: 1, b: { c: [1] } }, { a: 1, b: { c: [1] } })).toEqual({ oldValues: {}, newValues: {} })
  })

  test('an `updated` entry cannot be given its values by hand (compile-time)', () => {
    // @ts-expect-error an `updated` entry takes before/after; its old and new values are computed from them
    const byHand: AuditEntry = { entityType: 'outlet', entityId: 1, entityName: 'x', action: 'updated', before: {}, after: {}, newValues: { name: 'x' } }
    expect(byHand.action).toBe('updated')
  })
})
