/**
 * docs/API.md §Master data, §Errors, §Audit log for ChannelGroup, Channel, Account and SubArea.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { newAccount, newChannel, newChannelGroup } from './factories'
import { expectError, unique, useTestApp, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let other: Workspace
const token = () => ws.owner.token

const base = '/office/v1/outlets'
const createGroup = (name = unique('Group'), as = token()) => newChannelGroup(t.app, as, { name })
const createChannel = (groupId: number, name = unique('Channel'), as = token()) => newChannel(t.app, as, { name, channel_group_id: groupId })
const createAccount = (channelId: number, name = unique('Account'), as = token()) => newAccount(t.app, as, { name, channel_id: channelId })

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
})

describe('create', () => {
  test('creates each entity with 201, its documented code, a lower-case message and the entity fields', async () => {
    const group = await t.app.post(`${base}/channel-groups`, { name: 'Modern Trade' }, { token: token() })
    expect(group.status).toBe(201)
    expect(group.body).toMatchObject({ success: true, code: 'CHANNEL_GROUP_CREATED', message: 'channel group created' })
    expect(group.body.data).toMatchObject({ name: 'Modern Trade', workspace_id: ws.id, deleted_at: null })
    expect(group.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(group.body.data).not.toHaveProperty('name_key')

    const channel = await t.app.post(`${base}/channels`, { name: 'Minimarket', channel_group_id: group.body.data.id }, { token: token() })
    expect(channel.status).toBe(201)
    expect(channel.body.code).toBe('CHANNEL_CREATED')
    expect(channel.body.data.channel_group).toEqual({ id: group.body.data.id, name: 'Modern Trade' })

    const account = await t.app.post(`${base}/accounts`, { name: 'Indomaret', channel_id: channel.body.data.id }, { token: token() })
    expect(account.status).toBe(201)
    expect(account.body.code).toBe('ACCOUNT_CREATED')
    expect(account.body.data.channel).toEqual({
      id: channel.body.data.id,
      name: 'Minimarket',
      created_at: channel.body.data.created_at,
      updated_at: channel.body.data.updated_at,
    })

    const subArea = await t.app.post(`${base}/sub-areas`, { name: 'Jakarta North' }, { token: token() })
    expect(subArea.status).toBe(201)
    expect(subArea.body.code).toBe('SUB_AREA_CREATED')
  })

  test('workspace_id, id and created_at in the body change nothing', async () => {
    const reply = await t.app.post(
      `${base}/channel-groups`,
      { name: unique('G'), workspace_id: other.id, id: 999_999, created_at: '2000-01-01T00:00:00.000Z' },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.data.workspace_id).toBe(ws.id)
    expect(reply.body.data.id).not.toBe(999_999)
    expect(reply.body.data.created_at).not.toBe('2000-01-01T00:00:00.000Z')
    expect(await t.app.count('channel_groups', `workspace_id = ${other.id}`)).toBe(0)
  })

  test('names are trimmed; blank names are missing', async () => {
    const trimmed = await t.app.post(`${base}/sub-areas`, { name: `  ${'Padded'}  ` }, { token: token() })
    expect(trimmed.body.data.name).toBe('Padded')
    for (const name of ['', '   ', '\t\n']) {
      const errors = expectError(await t.app.post(`${base}/sub-areas`, { name }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors.name).toBeArray()
    }
    expectError(await t.app.post(`${base}/sub-areas`, {}, { token: token() }), 400, 'VALIDATION_ERROR')
  })

  test('name is at most 255 characters', async () => {
    expect((await t.app.post(`${base}/channel-groups`, { name: 'n'.repeat(255) }, { token: token() })).status).toBe(201)
    const errors = expectError(await t.app.post(`${base}/channel-groups`, { name: 'n'.repeat(256) }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.name).toEqual(['must be at most 255 characters'])
  })

  test('parents are required, must be integers and must exist in the caller workspace', async () => {
    const foreignGroup = await createGroup(unique('Foreign'), other.owner.token)
    const cases: [unknown, string][] = [
      [undefined, 'is required'],
      ['5', 'must be an integer'],
      [1.5, 'must be an integer'],
      [0, 'must be at least 1'],
      [99_999_999, 'does not exist'],
      [foreignGroup.id, 'does not exist'],
    ]
    const before = await t.app.count('channels')
    for (const [value, message] of cases) {
      const errors = expectError(await t.app.post(`${base}/channels`, { name: 'C', channel_group_id: value }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(String(errors.channel_group_id)).toContain(message)
    }
    expect(await t.app.count('channels')).toBe(before)
  })

  test('a soft-deleted parent cannot be assigned', async () => {
    const group = await createGroup()
    await t.app.delete(`${base}/channel-groups/${group.id}`, { token: token() })
    expectError(await t.app.post(`${base}/channels`, { name: 'C', channel_group_id: group.id }, { token: token() }), 400, 'VALIDATION_ERROR')
  })
})

describe('unique names', () => {
  test('channel group and sub-area names are unique case-insensitively among live rows', async () => {
    for (const segment of ['channel-groups', 'sub-areas']) {
      const name = unique('Unique Name')
      expect((await t.app.post(`${base}/${segment}`, { name }, { token: token() })).status).toBe(201)
      const code = segment === 'channel-groups' ? 'CHANNEL_GROUP_ALREADY_EXISTS' : 'SUB_AREA_ALREADY_EXISTS'
      const errors = expectError(await t.app.post(`${base}/${segment}`, { name: ` ${name.toUpperCase()} ` }, { token: token() }), 409, code)
      expect(errors.name).toBeArray()
    }
  })

  test('uniqueness folds Unicode case too', async () => {
    const name = `Ölmarkt ${unique()}`
    expect((await t.app.post(`${base}/sub-areas`, { name }, { token: token() })).status).toBe(201)
    expectError(await t.app.post(`${base}/sub-areas`, { name: name.toUpperCase() }, { token: token() }), 409, 'SUB_AREA_ALREADY_EXISTS')
  })

  test('a deleted name can be used again; another workspace may use the same name', async () => {
    const name = unique('Reusable')
    const first = await createGroup(name)
    await t.app.delete(`${base}/channel-groups/${first.id}`, { token: token() })
    expect((await t.app.post(`${base}/channel-groups`, { name }, { token: token() })).status).toBe(201)
    expect((await t.app.post(`${base}/channel-groups`, { name }, { token: other.owner.token })).status).toBe(201)
  })

  test('renaming onto a taken name is a conflict; renaming to the own name is not', async () => {
    const a = await createGroup()
    const b = await createGroup()
    expectError(await t.app.put(`${base}/channel-groups/${b.id}`, { name: a.name.toLowerCase() }, { token: token() }), 409, 'CHANNEL_GROUP_ALREADY_EXISTS')
    const same = await t.app.put(`${base}/channel-groups/${b.id}`, { name: b.name.toUpperCase() }, { token: token() })
    expect(same.status).toBe(200)
    expect(same.body.data.name).toBe(b.name.toUpperCase())
  })

  test('channel and account names need not be unique', async () => {
    const group = await createGroup()
    expect((await t.app.post(`${base}/channels`, { name: 'Same', channel_group_id: group.id }, { token: token() })).status).toBe(201)
    expect((await t.app.post(`${base}/channels`, { name: 'Same', channel_group_id: group.id }, { token: token() })).status).toBe(201)
  })
})

describe('read', () => {
  test('get by id answers SUCCESS with the nested parent', async () => {
    const group = await createGroup()
    const channel = await createChannel(group.id)
    const reply = await t.app.get(`${base}/channels/${channel.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'SUCCESS', data: { id: channel.id, channel_group: { id: group.id, name: group.name } } })
  })

  test('another workspace id, a deleted row and an unknown id are all 404 <ENTITY>_NOT_FOUND', async () => {
    const foreign = await createGroup(unique('F'), other.owner.token)
    const deleted = await createGroup()
    await t.app.delete(`${base}/channel-groups/${deleted.id}`, { token: token() })
    for (const id of [foreign.id, deleted.id, 987_654_321]) {
      expectError(await t.app.get(`${base}/channel-groups/${id}`, { token: token() }), 404, 'CHANNEL_GROUP_NOT_FOUND')
    }
    expectError(await t.app.get(`${base}/sub-areas/987654321`, { token: token() }), 404, 'SUB_AREA_NOT_FOUND')
    expectError(await t.app.get(`${base}/accounts/987654321`, { token: token() }), 404, 'ACCOUNT_NOT_FOUND')
    expectError(await t.app.get(`${base}/channels/987654321`, { token: token() }), 404, 'CHANNEL_NOT_FOUND')
  })

  test('a non-numeric id is a 400', async () => {
    expectError(await t.app.get(`${base}/channel-groups/abc`, { token: token() }), 400, 'VALIDATION_ERROR')
  })

  test('the mobile read-only routes answer the same data', async () => {
    const user = await t.app.member(ws, 'user')
    const group = await createGroup()
    const mobile = await t.app.get(`/app/v1/outlets/channel-groups/${group.id}`, { token: user.token })
    expect(mobile.status).toBe(200)
    expect(mobile.body.data).toEqual((await t.app.get(`${base}/channel-groups/${group.id}`, { token: token() })).body.data)
    for (const segment of ['channel-groups', 'channels', 'accounts', 'sub-areas']) {
      expect((await t.app.get(`/app/v1/outlets/${segment}`, { token: user.token })).status).toBe(200)
      // No writes on the mobile paths.
      expectError(await t.app.post(`/app/v1/outlets/${segment}`, { name: 'x' }, { token: user.token }), 404, 'ROUTE_NOT_FOUND')
    }
  })
})

describe('lists', () => {
  let listWs: Workspace
  beforeAll(async () => {
    listWs = await t.app.workspace()
    const clock = t.app.clock as import('../src/lib/clock').ManualClock
    for (const name of ['Alpha Mart', 'beta store', 'Gamma MART', 'Delta', 'Epsilon']) {
      clock.advance(1000)
      await t.app.post(`${base}/sub-areas`, { name }, { token: listWs.owner.token })
    }
  })
  const list = (query: string) => t.app.get(`${base}/sub-areas?${query}`, { token: listWs.owner.token })

  test('envelope and defaults: LIST_OK, page 1, limit 50, newest first', async () => {
    const reply = await list('')
    expect(reply.body).toMatchObject({ success: true, code: 'LIST_OK', meta: { page: 1, limit: 50, total: 5, total_pages: 1 } })
    expect(reply.body.data.map((r: { name: string }) => r.name)).toEqual(['Epsilon', 'Delta', 'Gamma MART', 'beta store', 'Alpha Mart'])
  })

  test('keyword is a case-insensitive partial match on name', async () => {
    const reply = await list('keyword=mart')
    expect(reply.body.data.map((r: { name: string }) => r.name).sort()).toEqual(['Alpha Mart', 'Gamma MART'])
    expect(reply.body.meta.total).toBe(2)
    expect((await list('keyword=%25')).body.data).toEqual([])
    expect((await list("keyword=' OR 1=1 --")).body.data).toEqual([])
  })

  test('pagination and total_pages', async () => {
    const page2 = await list('page=2&limit=2')
    expect(page2.body.meta).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 })
    expect(page2.body.data).toHaveLength(2)
    const beyond = await list('page=9&limit=2')
    expect(beyond.body.data).toEqual([])
    expect(beyond.body.meta.total).toBe(5)
  })

  test('limit above 100 is clamped to 100', async () => {
    expect((await list('limit=1000')).body.meta.limit).toBe(100)
  })

  test('page or limit below 1, or not a number, is a 400 naming the field', async () => {
    for (const [query, field] of [
      ['page=0', 'page'],
      ['limit=0', 'limit'],
      ['page=abc', 'page'],
      ['limit=-5', 'limit'],
      ['page=1.5', 'page'],
    ]) {
      const errors = expectError(await list(query), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual([field])
    }
  })

  test('sort_by accepts created_at, updated_at, name, id; anything else is a 400', async () => {
    const byName = await list('sort_by=name&sort_order=asc')
    expect(byName.body.data.map((r: { name: string }) => r.name)).toEqual(['Alpha Mart', 'beta store', 'Delta', 'Epsilon', 'Gamma MART'])
    const byIdAsc = await list('sort_by=id&sort_order=asc')
    const ids = byIdAsc.body.data.map((r: { id: number }) => r.id)
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b))
    expectError(await list('sort_by=password'), 400, 'VALIDATION_ERROR')
    expectError(await list('sort_order=sideways'), 400, 'VALIDATION_ERROR')
  })

  test('lists never show soft-deleted rows or another workspace', async () => {
    const all = await list('')
    const victim = all.body.data[0]
    await t.app.post(`${base}/sub-areas`, { name: 'Foreign' }, { token: other.owner.token })
    await t.app.delete(`${base}/sub-areas/${victim.id}`, { token: listWs.owner.token })
    const after = await list('')
    expect(after.body.meta.total).toBe(4)
    expect(after.body.data.find((r: { id: number }) => r.id === victim.id)).toBeUndefined()
    expect(after.body.data.every((r: { workspace_id: number }) => r.workspace_id === listWs.id)).toBe(true)
  })

  test('channels filter by channel_group_id and accounts by channel_id', async () => {
    const g1 = await createGroup(unique('G1'), listWs.owner.token)
    const g2 = await createGroup(unique('G2'), listWs.owner.token)
    const c1 = await createChannel(g1.id, 'c1', listWs.owner.token)
    await createChannel(g2.id, 'c2', listWs.owner.token)
    await createAccount(c1.id, 'a1', listWs.owner.token)
    const channels = await t.app.get(`${base}/channels?channel_group_id=${g1.id}`, { token: listWs.owner.token })
    expect(channels.body.data.map((c: { name: string }) => c.name)).toEqual(['c1'])
    expect(channels.body.data[0].channel_group).toEqual({ id: g1.id, name: g1.name })
    const accounts = await t.app.get(`${base}/accounts?channel_id=${c1.id}`, { token: listWs.owner.token })
    expect(accounts.body.data.map((a: { name: string }) => a.name)).toEqual(['a1'])
    expectError(await t.app.get(`${base}/channels?channel_group_id=x`, { token: listWs.owner.token }), 400, 'VALIDATION_ERROR')
  })
})

describe('update', () => {
  test('PUT answers the updated object with <ENTITY>_UPDATED', async () => {
    const group = await createGroup()
    const reply = await t.app.put(`${base}/channel-groups/${group.id}`, { name: `Renamed${unique()}` }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('CHANNEL_GROUP_UPDATED')
    expect(reply.body.data.name).toStartWith('Renamed')
    expect(reply.body.data.updated_at >= group.updated_at).toBe(true)
  })

  test('a channel can move to another group of the same workspace only', async () => {
    const g1 = await createGroup()
    const g2 = await createGroup()
    const foreign = await createGroup(unique('F'), other.owner.token)
    const channel = await createChannel(g1.id)
    const moved = await t.app.put(`${base}/channels/${channel.id}`, { channel_group_id: g2.id }, { token: token() })
    expect(moved.body.data.channel_group).toEqual({ id: g2.id, name: g2.name })
    expectError(await t.app.put(`${base}/channels/${channel.id}`, { channel_group_id: foreign.id }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect((await t.app.get(`${base}/channels/${channel.id}`, { token: token() })).body.data.channel_group_id).toBe(g2.id)
  })

  test('an empty name, an empty body or only unknown fields is a 400 and changes nothing', async () => {
    const group = await createGroup()
    for (const body of [{ name: '  ' }, {}, { colour: 'red' }]) {
      expectError(await t.app.put(`${base}/channel-groups/${group.id}`, body, { token: token() }), 400, 'VALIDATION_ERROR')
    }
    expect((await t.app.get(`${base}/channel-groups/${group.id}`, { token: token() })).body.data).toEqual(group)
  })

  test('updating another workspace row is a 404 and changes nothing', async () => {
    const foreign = await createGroup(unique('F'), other.owner.token)
    expectError(await t.app.put(`${base}/channel-groups/${foreign.id}`, { name: 'hijacked' }, { token: token() }), 404, 'CHANNEL_GROUP_NOT_FOUND')
    expect((await t.app.get(`${base}/channel-groups/${foreign.id}`, { token: other.owner.token })).body.data.name).toBe(foreign.name)
  })
})

describe('delete', () => {
  test('soft delete answers the deleted object with deleted_at set', async () => {
    const subArea = (await t.app.post(`${base}/sub-areas`, { name: unique('S') }, { token: token() })).body.data
    const reply = await t.app.delete(`${base}/sub-areas/${subArea.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUB_AREA_DELETED')
    expect(reply.body.data.id).toBe(subArea.id)
    expect(reply.body.data.deleted_at).toBeString()
    const [row] = await t.app.db.pragma(`SELECT deleted_at FROM sub_areas WHERE id = ${subArea.id}`)
    expect(row.deleted_at).toBe(reply.body.data.deleted_at)
    expectError(await t.app.delete(`${base}/sub-areas/${subArea.id}`, { token: token() }), 404, 'SUB_AREA_NOT_FOUND')
  })

  test('a channel group with live channels cannot be deleted: 409 with errors.channel_count', async () => {
    const group = await createGroup()
    await createChannel(group.id)
    await createChannel(group.id)
    const errors = expectError(await t.app.delete(`${base}/channel-groups/${group.id}`, { token: token() }), 409, 'CHANNEL_GROUP_HAS_CHILDREN')
    expect(errors.channel_count).toBe(2)
    expect((await t.app.get(`${base}/channel-groups/${group.id}`, { token: token() })).status).toBe(200)
  })

  test('a channel with live accounts cannot be deleted: 409 CHANNEL_HAS_CHILDREN', async () => {
    const channel = await createChannel((await createGroup()).id)
    await createAccount(channel.id)
    const errors = expectError(await t.app.delete(`${base}/channels/${channel.id}`, { token: token() }), 409, 'CHANNEL_HAS_CHILDREN')
    expect(errors.account_count).toBe(1)
  })

  test('soft-deleted children do not block a delete and are not counted', async () => {
    const group = await createGroup()
    const c1 = await createChannel(group.id)
    const c2 = await createChannel(group.id)
    await t.app.delete(`${base}/channels/${c1.id}`, { token: token() })
    const errors = expectError(await t.app.delete(`${base}/channel-groups/${group.id}`, { token: token() }), 409, 'CHANNEL_GROUP_HAS_CHILDREN')
    expect(errors.channel_count).toBe(1)
    await t.app.delete(`${base}/channels/${c2.id}`, { token: token() })
    expect((await t.app.delete(`${base}/channel-groups/${group.id}`, { token: token() })).status).toBe(200)
  })

  test('deleting another workspace row is a 404 and leaves it live', async () => {
    const foreign = (await t.app.post(`${base}/sub-areas`, { name: unique('F') }, { token: other.owner.token })).body.data
    expectError(await t.app.delete(`${base}/sub-areas/${foreign.id}`, { token: token() }), 404, 'SUB_AREA_NOT_FOUND')
    expect((await t.app.get(`${base}/sub-areas/${foreign.id}`, { token: other.owner.token })).status).toBe(200)
  })
})

describe('concurrency', () => {
  test('two concurrent creates of the same name: one 201, one 409', async () => {
    const name = unique('Race')
    const replies = await Promise.all([1, 2].map(() => t.app.post(`${base}/channel-groups`, { name }, { token: token() })))
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409])
  })
})
