/**
 * The catalogue visits stand on: outlets, forms, projects and teams (docs/API.md §Other areas,
 * docs/API.md §Envelopes, §Errors, §Audit log, §Other areas), team membership on users, the manager's team-scoped audit log
 * (docs/API.md §Roles and permissions) and the audit entries these resources write.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/platform/clock'
import { expectError, unique, useTestApp, type Reply, type Session, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let other: Workspace
let field: Session
let foreignUser: Session
const token = () => ws.owner.token

const OFFICE = '/office/v1'
const MASTER = `${OFFICE}/outlets`
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

type Row = Record<string, any>

const clock = () => t.app.clock as ManualClock
const today = () => t.app.clock.now().toISOString().slice(0, 10)

function created(reply: Reply, what: string): Row {
  if (reply.status !== 201) throw new Error(`create ${what} failed: ${reply.status} ${reply.text}`)
  return reply.body.data
}

async function newAccount(as = token(), name = unique('Account')) {
  const group = created(await t.app.post(`${MASTER}/channel-groups`, { name: unique('Group') }, { token: as }), 'group')
  const channel = created(await t.app.post(`${MASTER}/channels`, { name: unique('Channel'), channel_group_id: group.id }, { token: as }), 'channel')
  return created(await t.app.post(`${MASTER}/accounts`, { name, channel_id: channel.id }, { token: as }), 'account')
}
const newAccountIn = async (channelId: number, as = token(), name = unique('Account')) =>
  created(await t.app.post(`${MASTER}/accounts`, { name, channel_id: channelId }, { token: as }), 'account')
const newSubArea = async (as = token(), name = unique('SubArea')) => created(await t.app.post(`${MASTER}/sub-areas`, { name }, { token: as }), 'sub-area')
const newOutlet = async (body: Row = {}, as = token()) =>
  created(await t.app.post(`${OFFICE}/outlets`, { name: unique('Outlet'), ...body }, { token: as }), 'outlet')
const textField = (key = 'notes') => ({ key, label: `Label ${key}`, type: 'text' })
const newForm = async (body: Row = {}, as = token()) =>
  created(await t.app.post(`${OFFICE}/forms`, { title: unique('Form'), fields: [textField()], ...body }, { token: as }), 'form')
const newProject = async (body: Row = {}, as = token()) =>
  created(await t.app.post(`${OFFICE}/projects`, { name: unique('Project'), ...body }, { token: as }), 'project')
const newTeam = async (body: Row = {}, as = token()) => created(await t.app.post(`${OFFICE}/teams`, { name: unique('Team'), ...body }, { token: as }), 'team')
const newVisit = async (outletId: number, projectId: number, extra: Row = {}, as = token()) =>
  created(await t.app.post(`${OFFICE}/visits`, { outlet_id: outletId, project_id: projectId, visit_date: today(), ...extra }, { token: as }), 'visit')
const cancelVisit = async (visitId: number) => {
  const reply = await t.app.put(`${OFFICE}/visits/${visitId}/cancel`, { reason: 'not needed' }, { token: token() })
  if (reply.status !== 200) throw new Error(`cancel failed: ${reply.status} ${reply.text}`)
}
const checkIn = async (visitId: number, as: Session) => {
  const reply = await t.app.post(`/app/v1/visits/${visitId}/check-in`, { latitude: -6.2, longitude: 106.8 }, { token: as.token })
  if (reply.status !== 200) throw new Error(`check-in failed: ${reply.status} ${reply.text}`)
}
/** Creates a user through the API (no login). */
const newUser = async (body: Row = {}, as = token(), roleId = ws.roles.user) => {
  const email = `${unique('person')}@example.com`
  return t.app.post(`${OFFICE}/users`, { name: unique('Person'), email, password: 'password123', role_id: roleId, ...body }, { token: as })
}

/** Audit entries of one entity, oldest first (read by the workspace owner, a super_admin). */
async function auditOf(entityType: string, entityId: number, as = token()): Promise<Row[]> {
  const reply = await t.app.get(`${OFFICE}/audit-logs?entity_type=${entityType}&entity_id=${entityId}&sort_by=id&sort_order=asc&limit=100`, { token: as })
  if (reply.status !== 200) throw new Error(`audit list failed: ${reply.status} ${reply.text}`)
  return reply.body.data.data
}
const ids = (rows: Row[]) => rows.map((row) => row.id)

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  field = await t.app.member(ws, 'user')
  foreignUser = await t.app.member(other, 'user')
})

// ── Outlets ─────────────────────────────────────────────────────────────────────────────────────

describe('outlets: create', () => {
  test('create answers 201 OUTLET_CREATED with the fields, nested account {id, name, channel_id} and sub_area {id, name}', async () => {
    const account = await newAccount()
    const subArea = await newSubArea()
    const before = await t.app.count('outlets', `workspace_id = ${ws.id}`)
    const reply = await t.app.post(
      `${OFFICE}/outlets`,
      {
        name: '  Toko Sumber Rejeki  ',
        code: 'TSR-001',
        address: 'Jl. Merdeka 1',
        latitude: -6.2,
        longitude: 106.81,
        account_id: account.id,
        sub_area_id: subArea.id,
        city_id: 3171,
        workspace_id: other.id,
      },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ success: true, code: 'OUTLET_CREATED', message: 'outlet created' })
    const outlet = reply.body.data
    expect(outlet).toMatchObject({
      workspace_id: ws.id,
      name: 'Toko Sumber Rejeki',
      code: 'TSR-001',
      address: 'Jl. Merdeka 1',
      latitude: -6.2,
      longitude: 106.81,
      account_id: account.id,
      sub_area_id: subArea.id,
      city_id: 3171,
      is_active: true,
      deleted_at: null,
    })
    expect(outlet.account).toEqual({ id: account.id, name: account.name, channel_id: account.channel_id })
    expect(outlet.sub_area).toEqual({ id: subArea.id, name: subArea.name })
    expect(outlet.created_at).toMatch(TIMESTAMP)
    expect(outlet).not.toHaveProperty('name_key')
    expect(outlet).not.toHaveProperty('code_key')
    expect(await t.app.count('outlets', `workspace_id = ${ws.id}`)).toBe(before + 1)
    expect(await t.app.count('outlets', `workspace_id = ${other.id}`)).toBe(0)
    // Detail answers the same object.
    const detail = await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() })
    expect(detail.status).toBe(200)
    expect(detail.body.code).toBe('SUCCESS')
    expect(detail.body.data).toEqual(outlet)
  })

  test('workspace_id, id, created_at and deleted_at in a body change nothing, on create and update', async () => {
    const stamp = '2000-01-01T00:00:00.000Z'
    const reply = await t.app.post(
      `${OFFICE}/outlets`,
      { name: unique('Sneaky'), id: 987_654_321, workspace_id: other.id, created_at: stamp, deleted_at: stamp },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ workspace_id: ws.id, deleted_at: null })
    expect(reply.body.data.id).not.toBe(987_654_321)
    expect(reply.body.data.created_at).not.toBe(stamp)
    const id = reply.body.data.id
    const put = await t.app.put(`${OFFICE}/outlets/${id}`, { name: 'Sneaky 2', workspace_id: other.id, deleted_at: stamp }, { token: token() })
    expect(put.status).toBe(200)
    expect(await t.app.count('outlets', `id = ${id} AND workspace_id = ${ws.id} AND deleted_at IS NULL AND name = 'Sneaky 2'`)).toBe(1)
  })

  test('an outlet without account or sub-area has account and sub_area null', async () => {
    const outlet = await newOutlet()
    expect(outlet.account_id).toBeNull()
    expect(outlet.account).toBeNull()
    expect(outlet.sub_area).toBeNull()
  })

  test('code is unique per workspace case-insensitively: 409 OUTLET_ALREADY_EXISTS with errors.code, nothing stored', async () => {
    const code = unique('Code')
    await newOutlet({ code })
    const before = await t.app.count('outlets')
    const errors = expectError(
      await t.app.post(`${OFFICE}/outlets`, { name: 'Dup', code: code.toUpperCase() }, { token: token() }),
      409,
      'OUTLET_ALREADY_EXISTS',
    )
    expect(errors.code).toBeArray()
    expect(await t.app.count('outlets')).toBe(before)
    // Renaming another outlet's code onto the taken one is refused too.
    const second = await newOutlet({ code: unique('Other') })
    expectError(await t.app.put(`${OFFICE}/outlets/${second.id}`, { code: code.toLowerCase() }, { token: token() }), 409, 'OUTLET_ALREADY_EXISTS')
    expect((await t.app.get(`${OFFICE}/outlets/${second.id}`, { token: token() })).body.data.code).toBe(second.code)
  })

  test('another workspace may use the same code, and the code of a deleted outlet may be reused', async () => {
    const code = unique('Shared')
    const first = await newOutlet({ code })
    expect((await t.app.post(`${OFFICE}/outlets`, { name: 'Elsewhere', code }, { token: other.owner.token })).status).toBe(201)
    const deleted = await t.app.delete(`${OFFICE}/outlets/${first.id}`, { token: token() })
    expect(deleted.status).toBe(200)
    const again = await t.app.post(`${OFFICE}/outlets`, { name: 'Again', code: code.toLowerCase() }, { token: token() })
    expect(again.status).toBe(201)
    expect(again.body.data.code).toBe(code.toLowerCase())
  })

  test('an account or sub-area of another workspace, deleted or unknown is a 400 naming the field; nothing stored', async () => {
    const foreignAccount = await newAccount(other.owner.token)
    const foreignSubArea = await newSubArea(other.owner.token)
    const deletedAccount = await newAccount()
    expect((await t.app.delete(`${MASTER}/accounts/${deletedAccount.id}`, { token: token() })).status).toBe(200)
    const deletedSubArea = await newSubArea()
    expect((await t.app.delete(`${MASTER}/sub-areas/${deletedSubArea.id}`, { token: token() })).status).toBe(200)
    const before = await t.app.count('outlets')
    for (const id of [foreignAccount.id, deletedAccount.id, 987_654_321]) {
      const errors = expectError(await t.app.post(`${OFFICE}/outlets`, { name: 'X', account_id: id }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors.account_id).toBeArray()
    }
    for (const id of [foreignSubArea.id, deletedSubArea.id, 987_654_321]) {
      const errors = expectError(await t.app.post(`${OFFICE}/outlets`, { name: 'X', sub_area_id: id }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors.sub_area_id).toBeArray()
    }
    expect(await t.app.count('outlets')).toBe(before)
    // The same on update: the outlet keeps its references.
    const outlet = await newOutlet()
    const errors = expectError(
      await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { account_id: foreignAccount.id }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors.account_id).toBeArray()
    expect((await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).body.data.account_id).toBeNull()
  })

  test('latitude without longitude (or the reverse) is a 400, also on update', async () => {
    const before = await t.app.count('outlets')
    expectError(await t.app.post(`${OFFICE}/outlets`, { name: 'X', latitude: -6.2 }, { token: token() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.post(`${OFFICE}/outlets`, { name: 'X', longitude: 106.8 }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('outlets')).toBe(before)
    const outlet = await newOutlet({ latitude: -6.2, longitude: 106.8 })
    expectError(await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { longitude: null }, { token: token() }), 400, 'VALIDATION_ERROR')
    const plain = await newOutlet()
    expectError(await t.app.put(`${OFFICE}/outlets/${plain.id}`, { latitude: 1 }, { token: token() }), 400, 'VALIDATION_ERROR')
    const kept = (await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).body.data
    expect([kept.latitude, kept.longitude]).toEqual([-6.2, 106.8])
    // Both together, or moving just one of a stored pair, is fine.
    expect((await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { latitude: -7 }, { token: token() })).body.data.latitude).toBe(-7)
  })

  test('out-of-range coordinates are a 400 naming the field', async () => {
    const before = await t.app.count('outlets')
    for (const [latitude, longitude, fieldName] of [
      [90.5, 0, 'latitude'],
      [-91, 0, 'latitude'],
      [0, 180.01, 'longitude'],
      [0, -181, 'longitude'],
    ] as const) {
      const errors = expectError(await t.app.post(`${OFFICE}/outlets`, { name: 'X', latitude, longitude }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors[fieldName]).toBeArray()
    }
    expect(await t.app.count('outlets')).toBe(before)
    expect((await t.app.post(`${OFFICE}/outlets`, { name: 'Edge', latitude: -90, longitude: 180 }, { token: token() })).status).toBe(201)
  })
})

describe('outlets: list filters, pagination and sorting', () => {
  let listWs: Workspace
  const byName: Record<string, Row> = {}
  let a1: Row
  let a2: Row
  let a3: Row
  let s1: Row
  let s2: Row
  const list = (query = '') => t.app.get(`${OFFICE}/outlets?${query}`, { token: listWs.owner.token })
  const names = (reply: Reply) => reply.body.data.map((row: Row) => row.name).sort()

  beforeAll(async () => {
    listWs = await t.app.workspace()
    const as = listWs.owner.token
    a1 = await newAccount(as, 'Account One')
    a2 = await newAccount(as, 'Account Two')
    a3 = await newAccountIn(a1.channel_id, as, 'Account Three') // same channel as a1
    s1 = await newSubArea(as, 'North')
    s2 = await newSubArea(as, 'South')
    const specs: Row[] = [
      { name: 'Toko Maju', code: 'TM-001', account_id: a1.id, sub_area_id: s1.id, city_id: 3171 },
      { name: 'Warung Sejahtera', code: 'WS-002', account_id: a2.id, sub_area_id: s2.id, city_id: 3172, is_active: false },
      { name: 'Maju Jaya Mart', code: 'MJ-003', account_id: a3.id, sub_area_id: s2.id, city_id: 3171 },
      { name: 'Alfa Store', code: 'AX-MAJU', sub_area_id: s1.id },
    ]
    for (let i = 1; i <= 8; i++) specs.push({ name: `Filler ${String(i).padStart(2, '0')}`, code: `F-${String(i).padStart(2, '0')}` })
    for (const spec of specs) {
      clock().advance(1000)
      byName[spec.name] = await newOutlet(spec, as)
    }
  })

  test('default page 1 and limit 10, LIST_OK with meta, newest first', async () => {
    const reply = await list()
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'LIST_OK' })
    expect(reply.body.meta).toEqual({ page: 1, limit: 10, total: 12, total_pages: 2 })
    expect(reply.body.data).toHaveLength(10)
    expect(reply.body.data[0].name).toBe('Filler 08')
    expect(reply.body.data[0].workspace_id).toBe(listWs.id)
    const second = await list('page=2')
    expect(second.body.meta).toEqual({ page: 2, limit: 10, total: 12, total_pages: 2 })
    expect(second.body.data.map((row: Row) => row.name)).toEqual(['Warung Sejahtera', 'Toko Maju'])
  })

  test('keyword matches name and code case-insensitively', async () => {
    const maju = await list('keyword=MAJU')
    expect(names(maju)).toEqual(['Alfa Store', 'Maju Jaya Mart', 'Toko Maju'])
    expect(maju.body.meta.total).toBe(3)
    expect(names(await list('keyword=ws-002'))).toEqual(['Warung Sejahtera'])
    expect(names(await list('keyword=sejahtera'))).toEqual(['Warung Sejahtera'])
    expect((await list('keyword=nothing-like-this')).body.meta.total).toBe(0)
  })

  test('account_id filter', async () => {
    expect(names(await list(`account_id=${a1.id}`))).toEqual(['Toko Maju'])
  })

  test('channel_id filter goes through the account', async () => {
    expect(names(await list(`channel_id=${a1.channel_id}`))).toEqual(['Maju Jaya Mart', 'Toko Maju'])
    expect(names(await list(`channel_id=${a2.channel_id}`))).toEqual(['Warung Sejahtera'])
  })

  test('sub_area_id and city_id filters', async () => {
    expect(names(await list(`sub_area_id=${s1.id}`))).toEqual(['Alfa Store', 'Toko Maju'])
    expect(names(await list(`sub_area_id=${s2.id}`))).toEqual(['Maju Jaya Mart', 'Warung Sejahtera'])
    expect(names(await list('city_id=3171'))).toEqual(['Maju Jaya Mart', 'Toko Maju'])
  })

  test('is_active filter', async () => {
    expect(names(await list('is_active=false'))).toEqual(['Warung Sejahtera'])
    expect((await list('is_active=true&limit=100')).body.meta.total).toBe(11)
  })

  test('filters combine', async () => {
    expect(names(await list(`sub_area_id=${s2.id}&is_active=true`))).toEqual(['Maju Jaya Mart'])
    expect(names(await list(`keyword=maju&city_id=3171&account_id=${a3.id}`))).toEqual(['Maju Jaya Mart'])
  })

  test('sort_by code and name', async () => {
    const byCode = await list('sort_by=code&sort_order=asc&limit=3')
    expect(byCode.body.data.map((row: Row) => row.code)).toEqual(['AX-MAJU', 'F-01', 'F-02'])
    const byNameDesc = await list('sort_by=name&sort_order=desc&limit=2')
    expect(byNameDesc.body.data.map((row: Row) => row.name)).toEqual(['Warung Sejahtera', 'Toko Maju'])
    expectError(await list('sort_by=address'), 400, 'VALIDATION_ERROR')
  })

  test('a bad filter value is a 400', async () => {
    expectError(await list('account_id=abc'), 400, 'VALIDATION_ERROR')
    expectError(await list('is_active=maybe'), 400, 'VALIDATION_ERROR')
  })
})

describe('outlets: update', () => {
  test('PUT answers OUTLET_UPDATED with the changes stored and the nested account refreshed', async () => {
    const outlet = await newOutlet({ code: unique('U') })
    const account = await newAccount()
    clock().advance(1000)
    const reply = await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { name: 'Renamed Outlet', account_id: account.id, is_active: false }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('OUTLET_UPDATED')
    expect(reply.body.data).toMatchObject({ id: outlet.id, name: 'Renamed Outlet', code: outlet.code, account_id: account.id, is_active: false })
    expect(reply.body.data.account).toEqual({ id: account.id, name: account.name, channel_id: account.channel_id })
    expect(reply.body.data.updated_at > outlet.updated_at).toBe(true)
    expect((await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).body.data).toEqual(reply.body.data)
  })

  test('an empty body or a blank name is a 400 and changes nothing', async () => {
    const outlet = await newOutlet()
    expectError(await t.app.put(`${OFFICE}/outlets/${outlet.id}`, {}, { token: token() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { name: '  ' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect((await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).body.data).toEqual(outlet)
  })
})

describe('outlets: delete', () => {
  test('delete is soft: OUTLET_DELETED with deleted_at set; the outlet is gone from detail and list', async () => {
    const outlet = await newOutlet()
    const reply = await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('OUTLET_DELETED')
    expect(reply.body.data.id).toBe(outlet.id)
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    const [row] = await t.app.db.pragma(`SELECT deleted_at FROM outlets WHERE id = ${outlet.id}`)
    expect(row.deleted_at).toBe(reply.body.data.deleted_at)
    expectError(await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() }), 404, 'OUTLET_NOT_FOUND')
    expectError(await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() }), 404, 'OUTLET_NOT_FOUND')
    const listed = await t.app.get(`${OFFICE}/outlets?limit=100&keyword=${encodeURIComponent(outlet.name)}`, { token: token() })
    expect(listed.body.data).toEqual([])
  })

  test('a scheduled visit blocks the delete: 409 OUTLET_HAS_ACTIVE_VISITS with errors.visit_count', async () => {
    const outlet = await newOutlet()
    const project = await newProject()
    await newVisit(outlet.id, project.id)
    await newVisit(outlet.id, project.id)
    const errors = expectError(await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() }), 409, 'OUTLET_HAS_ACTIVE_VISITS')
    expect(errors.visit_count).toBe(2)
    expect((await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).status).toBe(200)
    expect(await t.app.count('outlets', `id = ${outlet.id} AND deleted_at IS NULL`)).toBe(1)
  })

  test('an in-progress visit blocks the delete', async () => {
    const outlet = await newOutlet()
    const project = await newProject()
    const visit = await newVisit(outlet.id, project.id, { user_ids: [field.user.id] })
    await checkIn(visit.id, field)
    const errors = expectError(await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() }), 409, 'OUTLET_HAS_ACTIVE_VISITS')
    expect(errors.visit_count).toBe(1)
    await cancelVisit(visit.id) // free the field user for other tests
    expect((await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).status).toBe(200)
  })

  test('a cancelled visit does not block the delete', async () => {
    const outlet = await newOutlet()
    const project = await newProject()
    const visit = await newVisit(outlet.id, project.id)
    await cancelVisit(visit.id)
    const reply = await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('OUTLET_DELETED')
    expect(await t.app.count('outlets', `id = ${outlet.id} AND deleted_at IS NOT NULL`)).toBe(1)
  })
})

describe('outlets: permissions and mobile routes', () => {
  test('the built-in user role reads outlets on /app/v1/outlets (list and detail)', async () => {
    const outlet = await newOutlet({ code: unique('M') })
    const listed = await t.app.get(`/app/v1/outlets?keyword=${encodeURIComponent(outlet.code)}`, { token: field.token })
    expect(listed.status).toBe(200)
    expect(listed.body.code).toBe('LIST_OK')
    expect(ids(listed.body.data)).toEqual([outlet.id])
    const detail = await t.app.get(`/app/v1/outlets/${outlet.id}`, { token: field.token })
    expect(detail.status).toBe(200)
    expect(detail.body.data).toEqual(outlet)
  })

  test('POST, PUT and DELETE on /app/v1/outlets are 404 ROUTE_NOT_FOUND and change nothing', async () => {
    const outlet = await newOutlet()
    const before = await t.app.rows('outlets')
    expectError(await t.app.post('/app/v1/outlets', { name: 'Phone Outlet' }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.put(`/app/v1/outlets/${outlet.id}`, { name: 'Hacked' }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.delete(`/app/v1/outlets/${outlet.id}`, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.post('/app/v1/outlets', { name: 'Phone Outlet' }, { token: token() }), 404, 'ROUTE_NOT_FOUND')
    expect(await t.app.rows('outlets')).toEqual(before)
  })

  test('outlet.view on web reads but cannot write (403); the user role has no office access', async () => {
    const viewer = await t.app.memberWithGrants(ws, [{ key: 'outlet.view', platform: 'web', access: 'full' }])
    const outlet = await newOutlet()
    expect((await t.app.get(`${OFFICE}/outlets`, { token: viewer.token })).status).toBe(200)
    expect((await t.app.get(`${OFFICE}/outlets/${outlet.id}`, { token: viewer.token })).status).toBe(200)
    const before = await t.app.rows('outlets')
    expectError(await t.app.post(`${OFFICE}/outlets`, { name: 'No' }, { token: viewer.token }), 403, 'FORBIDDEN')
    expectError(await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { name: 'No' }, { token: viewer.token }), 403, 'FORBIDDEN')
    expectError(await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: viewer.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`${OFFICE}/outlets`, { token: field.token }), 403, 'FORBIDDEN')
    expect(await t.app.rows('outlets')).toEqual(before)
  })

  test('outlet.manage on web creates, updates and deletes', async () => {
    const manager = await t.app.memberWithGrants(ws, [{ key: 'outlet.manage', platform: 'web', access: 'full' }])
    const reply = await t.app.post(`${OFFICE}/outlets`, { name: unique('By Manager') }, { token: manager.token })
    expect(reply.status).toBe(201)
    expect((await t.app.get(`${OFFICE}/outlets/${reply.body.data.id}`, { token: manager.token })).status).toBe(200)
    expect((await t.app.put(`${OFFICE}/outlets/${reply.body.data.id}`, { address: 'Somewhere' }, { token: manager.token })).status).toBe(200)
    expect((await t.app.delete(`${OFFICE}/outlets/${reply.body.data.id}`, { token: manager.token })).status).toBe(200)
  })
})

// ── Forms ───────────────────────────────────────────────────────────────────────────────────────

const ALL_TYPES = [
  { key: 'shop_name', label: 'Shop name', type: 'text', required: true, max: 100 },
  { key: 'remarks', label: 'Remarks', type: 'textarea' },
  { key: 'price', label: 'Price', type: 'number', min: 0 },
  { key: 'facings', label: 'Facings', type: 'integer', min: 0, max: 50 },
  { key: 'display', label: 'Display', type: 'select', options: ['Shelf', 'Chiller'] },
  { key: 'brands', label: 'Brands', type: 'multiselect', options: ['A', 'B', 'C'], max: 2 },
  { key: 'has_poster', label: 'Poster?', type: 'checkbox' },
  { key: 'expiry', label: 'Expiry date', type: 'date' },
  { key: 'opened_at', label: 'Opening time', type: 'time' },
  { key: 'shelf_photo', label: 'Shelf photo', type: 'photo', required: true },
  { key: 'owner_signature', label: 'Signature', type: 'signature' },
  { key: 'gps', label: 'Location', type: 'location' },
  { key: 'satisfaction', label: 'Satisfaction', type: 'rating', max: 5 },
]

describe('forms: fields', () => {
  const post = (fields: unknown) => t.app.post(`${OFFICE}/forms`, { title: unique('Form'), fields }, { token: token() })
  const refused = async (fields: unknown) => {
    const before = await t.app.count('forms')
    const errors = expectError(await post(fields), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('forms')).toBe(before)
    return errors
  }

  test('a form with a field of every type is created: 201 FORM_CREATED, fields kept in order, required defaults to false', async () => {
    const reply = await t.app.post(`${OFFICE}/forms`, { title: 'Shelf Audit', description: 'Monthly', fields: ALL_TYPES }, { token: token() })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ success: true, code: 'FORM_CREATED' })
    const form = reply.body.data
    expect(form).toMatchObject({ workspace_id: ws.id, title: 'Shelf Audit', description: 'Monthly', deleted_at: null })
    expect(form.fields).toEqual(ALL_TYPES.map((f) => ({ required: false, ...f })))
    expect(form).not.toHaveProperty('title_key')
    expect((await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() })).body.data).toEqual(form)
    expect((await t.app.get(`/app/v1/forms/${form.id}`, { token: field.token })).body.data).toEqual(form)
  })

  test('a field key must be lower snake case: 400 with errors["fields.N.key"]', async () => {
    for (const key of ['Shop', '1st', 'shop-name', 'shop name', '_x', '']) {
      const errors = await refused([textField('ok_key'), textField(key)])
      expect(errors['fields.1.key']).toBeArray()
    }
  })

  test('duplicate keys: 400 with errors["fields.1.key"]', async () => {
    const errors = await refused([textField('same'), { key: 'same', label: 'Again', type: 'number' }])
    expect(errors['fields.1.key']).toBeArray()
    expect(errors['fields.0.key']).toBeUndefined()
  })

  test('select and multiselect need options: 400 with errors["fields.N.options"]', async () => {
    for (const type of ['select', 'multiselect']) {
      const errors = await refused([textField('a'), { key: 'choice', label: 'Choice', type }])
      expect(errors['fields.1.options']).toBeArray()
      const empty = await refused([{ key: 'choice', label: 'Choice', type, options: [] }])
      expect(empty['fields.0.options']).toBeArray()
    }
  })

  test('options on a text field: 400 with errors["fields.N.options"]', async () => {
    const errors = await refused([{ key: 'name', label: 'Name', type: 'text', options: ['a'] }])
    expect(errors['fields.0.options']).toBeArray()
  })

  test('min above max: 400', async () => {
    const errors = await refused([{ key: 'qty', label: 'Qty', type: 'integer', min: 10, max: 5 }])
    expect(Object.keys(errors).some((key) => key.startsWith('fields.0.'))).toBe(true)
  })

  test('an unknown type: 400 with errors["fields.N.type"]', async () => {
    const errors = await refused([textField('a'), { key: 'colour', label: 'Colour', type: 'colour' }])
    expect(errors['fields.1.type']).toBeArray()
  })

  test('an empty or missing fields list: 400 with errors.fields', async () => {
    expect((await refused([])).fields).toBeArray()
    const before = await t.app.count('forms')
    const errors = expectError(await t.app.post(`${OFFICE}/forms`, { title: 'No fields' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.fields).toBeArray()
    expect(await t.app.count('forms')).toBe(before)
  })

  test('the same rules apply on update, which changes nothing when refused', async () => {
    const form = await newForm()
    const errors = expectError(
      await t.app.put(`${OFFICE}/forms/${form.id}`, { fields: [textField('a'), textField('a')] }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['fields.1.key']).toBeArray()
    expect((await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() })).body.data).toEqual(form)
  })
})

describe('forms: update, delete and list', () => {
  test('update replaces the fields: FORM_UPDATED', async () => {
    const form = await newForm({ fields: [textField('old_one'), textField('old_two')] })
    const fields = [{ key: 'fresh', label: 'Fresh', type: 'checkbox', required: true }]
    const reply = await t.app.put(`${OFFICE}/forms/${form.id}`, { fields }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('FORM_UPDATED')
    expect(reply.body.data.fields).toEqual(fields)
    expect(reply.body.data.title).toBe(form.title)
    expect((await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() })).body.data.fields).toEqual(fields)
  })

  test('a form used by a live project cannot be deleted: 409 FORM_IN_USE with errors.project_count; allowed once the projects are deleted', async () => {
    const form = await newForm()
    const p1 = await newProject({ forms: [{ form_id: form.id, is_required: true }] })
    const p2 = await newProject({ forms: [{ form_id: form.id, is_required: false }] })
    const errors = expectError(await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() }), 409, 'FORM_IN_USE')
    expect(errors.project_count).toBe(2)
    expect(await t.app.count('forms', `id = ${form.id} AND deleted_at IS NULL`)).toBe(1)
    expect((await t.app.delete(`${OFFICE}/projects/${p1.id}`, { token: token() })).status).toBe(200)
    expect(expectError(await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() }), 409, 'FORM_IN_USE').project_count).toBe(1)
    expect((await t.app.delete(`${OFFICE}/projects/${p2.id}`, { token: token() })).status).toBe(200)
    const reply = await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('FORM_DELETED')
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    expectError(await t.app.get(`${OFFICE}/forms/${form.id}`, { token: token() }), 404, 'FORM_NOT_FOUND')
  })

  test('keyword filters on title case-insensitively; default limit 10', async () => {
    const tag = unique('kw').toLowerCase()
    const a = await newForm({ title: `Shelf ${tag.toUpperCase()} Audit` })
    const b = await newForm({ title: `Price ${tag} check` })
    await newForm({ title: unique('Unrelated') })
    const reply = await t.app.get(`${OFFICE}/forms?keyword=${tag}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LIST_OK')
    expect(ids(reply.body.data).sort()).toEqual([a.id, b.id].sort())
    expect(reply.body.meta).toEqual({ page: 1, limit: 10, total: 2, total_pages: 1 })
    const mobile = await t.app.get(`/app/v1/forms?keyword=${tag}`, { token: field.token })
    expect(mobile.status).toBe(200)
    expect(ids(mobile.body.data).sort()).toEqual([a.id, b.id].sort())
  })

  test('the mobile forms routes are read-only', async () => {
    expectError(await t.app.post('/app/v1/forms', { title: 'x', fields: [textField()] }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
  })
})

// ── Projects ────────────────────────────────────────────────────────────────────────────────────

describe('projects: forms', () => {
  test('forms are attached and returned in their order with titles: 201 PROJECT_CREATED', async () => {
    const fa = await newForm({ title: 'Form A' })
    const fb = await newForm({ title: 'Form B' })
    const fc = await newForm({ title: 'Form C' })
    const reply = await t.app.post(
      `${OFFICE}/projects`,
      {
        name: 'Display Audit',
        forms: [
          { form_id: fa.id, is_required: false, order: 2 },
          { form_id: fb.id, is_required: true, order: 3 },
          { form_id: fc.id, is_required: true, order: 1 },
        ],
      },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('PROJECT_CREATED')
    const expected = [
      { form_id: fc.id, title: 'Form C', is_required: true, order: 1 },
      { form_id: fa.id, title: 'Form A', is_required: false, order: 2 },
      { form_id: fb.id, title: 'Form B', is_required: true, order: 3 },
    ]
    expect(reply.body.data.forms).toEqual(expected)
    expect((await t.app.get(`${OFFICE}/projects/${reply.body.data.id}`, { token: token() })).body.data.forms).toEqual(expected)
    expect((await t.app.get(`/app/v1/projects/${reply.body.data.id}`, { token: field.token })).body.data.forms).toEqual(expected)
    expect(await t.app.count('project_forms', `project_id = ${reply.body.data.id}`)).toBe(3)
  })

  test('without order the forms keep the order they were listed in', async () => {
    const f1 = await newForm()
    const f2 = await newForm()
    const project = await newProject({
      forms: [
        { form_id: f2.id, is_required: true },
        { form_id: f1.id, is_required: false },
      ],
    })
    expect(project.forms.map((f: Row) => f.form_id)).toEqual([f2.id, f1.id])
  })

  test('an unknown, foreign or deleted form is a 400 with errors["forms.N.form_id"]; nothing stored', async () => {
    const mine = await newForm()
    const foreign = await newForm({}, other.owner.token)
    const deleted = await newForm()
    expect((await t.app.delete(`${OFFICE}/forms/${deleted.id}`, { token: token() })).status).toBe(200)
    const before = await t.app.count('projects')
    for (const id of [987_654_321, foreign.id, deleted.id]) {
      const errors = expectError(
        await t.app.post(
          `${OFFICE}/projects`,
          {
            name: 'P',
            forms: [
              { form_id: mine.id, is_required: true },
              { form_id: id, is_required: true },
            ],
          },
          { token: token() },
        ),
        400,
        'VALIDATION_ERROR',
      )
      expect(errors['forms.1.form_id']).toBeArray()
    }
    expect(await t.app.count('projects')).toBe(before)
  })

  test('a form listed twice is a 400 with errors["forms.1.form_id"]', async () => {
    const form = await newForm()
    const before = await t.app.count('projects')
    const errors = expectError(
      await t.app.post(
        `${OFFICE}/projects`,
        {
          name: 'P',
          forms: [
            { form_id: form.id, is_required: true },
            { form_id: form.id, is_required: false },
          ],
        },
        { token: token() },
      ),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['forms.1.form_id']).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
  })

  test('update replaces the forms list', async () => {
    const f1 = await newForm()
    const f2 = await newForm()
    const project = await newProject({ forms: [{ form_id: f1.id, is_required: true }] })
    const reply = await t.app.put(`${OFFICE}/projects/${project.id}`, { forms: [{ form_id: f2.id, is_required: false, order: 0 }] }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('PROJECT_UPDATED')
    expect(reply.body.data.forms).toEqual([{ form_id: f2.id, title: f2.title, is_required: false, order: 0 }])
    expect(await t.app.count('project_forms', `project_id = ${project.id}`)).toBe(1)
  })
})

describe('projects: fields', () => {
  test('code is unique per workspace case-insensitively: 409 PROJECT_ALREADY_EXISTS; another workspace may reuse it', async () => {
    const code = unique('PRJ')
    await newProject({ code })
    const before = await t.app.count('projects')
    const errors = expectError(
      await t.app.post(`${OFFICE}/projects`, { name: 'Dup', code: code.toLowerCase() }, { token: token() }),
      409,
      'PROJECT_ALREADY_EXISTS',
    )
    expect(errors.code).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
    expect((await t.app.post(`${OFFICE}/projects`, { name: 'Elsewhere', code }, { token: other.owner.token })).status).toBe(201)
    const second = await newProject({ code: unique('PRJ') })
    expectError(await t.app.put(`${OFFICE}/projects/${second.id}`, { code }, { token: token() }), 409, 'PROJECT_ALREADY_EXISTS')
  })

  test('end_date before start_date is a 400 with errors.end_date', async () => {
    const before = await t.app.count('projects')
    const errors = expectError(
      await t.app.post(`${OFFICE}/projects`, { name: 'P', start_date: '2026-03-10', end_date: '2026-03-09' }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors.end_date).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
    const sameDay = await newProject({ start_date: '2026-03-10', end_date: '2026-03-10' })
    expect([sameDay.start_date, sameDay.end_date]).toEqual(['2026-03-10', '2026-03-10'])
  })

  test('on update, changing only one of the dates is checked against the stored other one', async () => {
    const project = await newProject({ start_date: '2026-03-01', end_date: '2026-03-31' })
    const early = expectError(await t.app.put(`${OFFICE}/projects/${project.id}`, { end_date: '2026-02-28' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(early.end_date).toBeArray()
    const late = expectError(await t.app.put(`${OFFICE}/projects/${project.id}`, { start_date: '2026-04-01' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(late.end_date).toBeArray()
    const stored = (await t.app.get(`${OFFICE}/projects/${project.id}`, { token: token() })).body.data
    expect([stored.start_date, stored.end_date]).toEqual(['2026-03-01', '2026-03-31'])
    expect((await t.app.put(`${OFFICE}/projects/${project.id}`, { end_date: '2026-04-15' }, { token: token() })).body.data.end_date).toBe('2026-04-15')
  })

  test('impossible or malformed dates are a 400 naming the field', async () => {
    const before = await t.app.count('projects')
    for (const [start_date, fieldName] of [
      ['2026-02-30', 'start_date'],
      ['2026-13-01', 'start_date'],
      ['2026-2-3', 'start_date'],
      ['2026-03-01T00:00:00Z', 'start_date'],
    ]) {
      const errors = expectError(await t.app.post(`${OFFICE}/projects`, { name: 'P', start_date }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors[fieldName]).toBeArray()
    }
    const errors = expectError(await t.app.post(`${OFFICE}/projects`, { name: 'P', end_date: '2025-02-29' }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.end_date).toBeArray()
    expect(await t.app.count('projects')).toBe(before)
    expect((await newProject({ start_date: '2028-02-29' })).start_date).toBe('2028-02-29')
  })

  test('status defaults to active; the list filters by status', async () => {
    const listWs = await t.app.workspace()
    const as = listWs.owner.token
    const active = await newProject({}, as)
    expect(active.status).toBe('active')
    const draft = await newProject({ status: 'draft' }, as)
    const archived = await newProject({ status: 'archived' }, as)
    expect(draft.status).toBe('draft')
    const reply = await t.app.get(`${OFFICE}/projects?status=draft`, { token: as })
    expect(reply.status).toBe(200)
    expect(ids(reply.body.data)).toEqual([draft.id])
    expect(ids((await t.app.get(`${OFFICE}/projects?status=active`, { token: as })).body.data)).toEqual([active.id])
    expect((await t.app.get(`${OFFICE}/projects`, { token: as })).body.meta).toEqual({ page: 1, limit: 10, total: 3, total_pages: 1 })
    expect((await t.app.put(`${OFFICE}/projects/${archived.id}`, { status: 'completed' }, { token: as })).body.data.status).toBe('completed')
    expectError(await t.app.get(`${OFFICE}/projects?status=paused`, { token: as }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.post(`${OFFICE}/projects`, { name: 'P', status: 'paused' }, { token: as }), 400, 'VALIDATION_ERROR')
  })
})

describe('projects: delete', () => {
  test('a scheduled visit blocks the delete: 409 PROJECT_HAS_ACTIVE_VISITS; after cancelling it the delete is soft', async () => {
    const project = await newProject()
    const outlet = await newOutlet()
    const visit = await newVisit(outlet.id, project.id)
    const errors = expectError(await t.app.delete(`${OFFICE}/projects/${project.id}`, { token: token() }), 409, 'PROJECT_HAS_ACTIVE_VISITS')
    expect(errors.visit_count).toBe(1)
    expect(await t.app.count('projects', `id = ${project.id} AND deleted_at IS NULL`)).toBe(1)
    await cancelVisit(visit.id)
    const reply = await t.app.delete(`${OFFICE}/projects/${project.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('PROJECT_DELETED')
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    expectError(await t.app.get(`${OFFICE}/projects/${project.id}`, { token: token() }), 404, 'PROJECT_NOT_FOUND')
  })
})

// ── Teams ───────────────────────────────────────────────────────────────────────────────────────

describe('teams', () => {
  let leader: Row
  let alice: Row
  let bob: Row
  let carol: Row

  beforeAll(async () => {
    leader = created(await newUser({ name: 'Lena Leader' }, token(), ws.roles.manager), 'leader')
    alice = created(await newUser({ name: 'Alice Field' }), 'alice')
    bob = created(await newUser({ name: 'Bob Field' }), 'bob')
    carol = created(await newUser({ name: 'Carol Field' }), 'carol')
  })

  test('create with leader_id and user_ids: 201 TEAM_CREATED, leader {id, name} and members [{user_id, name}]', async () => {
    const reply = await t.app.post(
      `${OFFICE}/teams`,
      { name: unique('Jakarta Squad'), description: 'North', leader_id: leader.id, user_ids: [bob.id, alice.id, bob.id] },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('TEAM_CREATED')
    const team = reply.body.data
    expect(team).toMatchObject({ workspace_id: ws.id, description: 'North', leader_id: leader.id, deleted_at: null })
    expect(team.leader).toEqual({ id: leader.id, name: 'Lena Leader' })
    expect(team.members).toEqual([
      { user_id: alice.id, name: 'Alice Field' },
      { user_id: bob.id, name: 'Bob Field' },
    ])
    expect(team).not.toHaveProperty('name_key')
    expect(await t.app.count('team_members', `team_id = ${team.id}`)).toBe(2)
    expect((await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data).toEqual(team)
  })

  test('name is unique per workspace case-insensitively: 409 TEAM_ALREADY_EXISTS; another workspace or a deleted team frees it', async () => {
    const name = unique('Squad')
    const first = await newTeam({ name })
    const before = await t.app.count('teams')
    const errors = expectError(await t.app.post(`${OFFICE}/teams`, { name: ` ${name.toUpperCase()} ` }, { token: token() }), 409, 'TEAM_ALREADY_EXISTS')
    expect(errors.name).toBeArray()
    expect(await t.app.count('teams')).toBe(before)
    const second = await newTeam()
    expectError(await t.app.put(`${OFFICE}/teams/${second.id}`, { name: name.toLowerCase() }, { token: token() }), 409, 'TEAM_ALREADY_EXISTS')
    expect((await t.app.post(`${OFFICE}/teams`, { name }, { token: other.owner.token })).status).toBe(201)
    expect((await t.app.delete(`${OFFICE}/teams/${first.id}`, { token: token() })).status).toBe(200)
    expect((await t.app.post(`${OFFICE}/teams`, { name }, { token: token() })).status).toBe(201)
  })

  test('a leader or members from another workspace are a 400 naming leader_id / user_ids; nothing stored', async () => {
    const before = await t.app.count('teams')
    const leaderErrors = expectError(
      await t.app.post(`${OFFICE}/teams`, { name: unique('T'), leader_id: foreignUser.user.id }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(leaderErrors.leader_id).toBeArray()
    for (const userIds of [[alice.id, foreignUser.user.id], [987_654_321]]) {
      const errors = expectError(await t.app.post(`${OFFICE}/teams`, { name: unique('T'), user_ids: userIds }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors.user_ids).toBeArray()
    }
    expect(await t.app.count('teams')).toBe(before)
    const team = await newTeam({ user_ids: [alice.id] })
    expectError(await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [foreignUser.user.id] }, { token: token() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put(`${OFFICE}/teams/${team.id}`, { leader_id: foreignUser.user.id }, { token: token() }), 400, 'VALIDATION_ERROR')
    const stored = (await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data
    expect(stored.members.map((m: Row) => m.user_id)).toEqual([alice.id])
    expect(stored.leader_id).toBeNull()
  })

  test('update replaces the members: TEAM_UPDATED', async () => {
    const team = await newTeam({ leader_id: leader.id, user_ids: [alice.id, bob.id] })
    const reply = await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [carol.id] }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('TEAM_UPDATED')
    expect(reply.body.data.members).toEqual([{ user_id: carol.id, name: 'Carol Field' }])
    expect(reply.body.data.leader).toEqual({ id: leader.id, name: 'Lena Leader' })
    expect(await t.app.count('team_members', `team_id = ${team.id}`)).toBe(1)
    const cleared = await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [], leader_id: null }, { token: token() })
    expect(cleared.body.data.members).toEqual([])
    expect(cleared.body.data.leader).toBeNull()
  })

  test('the list filters by keyword, leader_id and user_id', async () => {
    const listWs = await t.app.workspace()
    const as = listWs.owner.token
    const boss = created(await newUser({ name: 'Boss' }, as, listWs.roles.manager), 'boss')
    const worker = created(await newUser({ name: 'Worker' }, as, listWs.roles.user), 'worker')
    const north = await newTeam({ name: 'North Squad', leader_id: boss.id }, as)
    const south = await newTeam({ name: 'South SQUAD', user_ids: [worker.id] }, as)
    const east = await newTeam({ name: 'East Crew', leader_id: boss.id, user_ids: [worker.id] }, as)
    const list = (query: string) => t.app.get(`${OFFICE}/teams?${query}`, { token: as })
    const all = await list('')
    expect(all.body.code).toBe('LIST_OK')
    expect(all.body.meta).toEqual({ page: 1, limit: 10, total: 3, total_pages: 1 })
    expect(ids((await list('keyword=squad')).body.data).sort()).toEqual([north.id, south.id].sort())
    expect(ids((await list(`leader_id=${boss.id}`)).body.data).sort()).toEqual([north.id, east.id].sort())
    expect(ids((await list(`user_id=${worker.id}`)).body.data).sort()).toEqual([south.id, east.id].sort())
    expect(ids((await list(`user_id=${worker.id}&keyword=east`)).body.data)).toEqual([east.id])
  })

  test('delete is soft: TEAM_DELETED with deleted_at; gone from detail and list', async () => {
    const team = await newTeam({ user_ids: [alice.id] })
    const reply = await t.app.delete(`${OFFICE}/teams/${team.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('TEAM_DELETED')
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    expect(await t.app.count('teams', `id = ${team.id} AND deleted_at IS NOT NULL`)).toBe(1)
    expectError(await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() }), 404, 'TEAM_NOT_FOUND')
    const listed = await t.app.get(`${OFFICE}/teams?keyword=${encodeURIComponent(team.name)}`, { token: token() })
    expect(listed.body.data).toEqual([])
    // A deleted team is no longer among the user's teams.
    expect((await t.app.get(`${OFFICE}/users/${alice.id}`, { token: token() })).body.data.team_ids).not.toContain(team.id)
  })
})

describe('users: team membership', () => {
  test('POST /office/v1/users accepts team_ids; the user shows team_ids and appears in the teams', async () => {
    const t1 = await newTeam()
    const t2 = await newTeam()
    const reply = await newUser({ team_ids: [t2.id, t1.id] })
    expect(reply.status).toBe(201)
    const user = reply.body.data
    expect(user.team_ids).toEqual([t1.id, t2.id].sort((a, b) => a - b))
    expect((await t.app.get(`${OFFICE}/users/${user.id}`, { token: token() })).body.data.team_ids).toEqual(user.team_ids)
    expect((await t.app.get(`${OFFICE}/teams/${t1.id}`, { token: token() })).body.data.members).toEqual([{ user_id: user.id, name: user.name }])
  })

  test('an unknown, foreign or deleted team in team_ids is a 400 with errors.team_ids; no user is created', async () => {
    const foreignTeam = await newTeam({}, other.owner.token)
    const deletedTeam = await newTeam()
    expect((await t.app.delete(`${OFFICE}/teams/${deletedTeam.id}`, { token: token() })).status).toBe(200)
    const before = await t.app.count('users')
    for (const id of [foreignTeam.id, deletedTeam.id, 987_654_321]) {
      const errors = expectError(await newUser({ team_ids: [id] }), 400, 'VALIDATION_ERROR')
      expect(errors.team_ids).toBeArray()
    }
    expect(await t.app.count('users')).toBe(before)
    const user = created(await newUser(), 'user')
    const errors = expectError(await t.app.put(`${OFFICE}/users/${user.id}`, { team_ids: [foreignTeam.id] }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.team_ids).toBeArray()
    expect(await t.app.count('team_members', `user_id = ${user.id}`)).toBe(0)
  })

  test('PUT /office/v1/users replaces team_ids', async () => {
    const t1 = await newTeam()
    const t2 = await newTeam()
    const user = created(await newUser({ team_ids: [t1.id] }), 'user')
    const reply = await t.app.put(`${OFFICE}/users/${user.id}`, { team_ids: [t2.id] }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.data.team_ids).toEqual([t2.id])
    expect((await t.app.get(`${OFFICE}/teams/${t1.id}`, { token: token() })).body.data.members).toEqual([])
    expect((await t.app.get(`${OFFICE}/teams/${t2.id}`, { token: token() })).body.data.members.map((m: Row) => m.user_id)).toEqual([user.id])
  })

  test('deleting a user who leads a team clears the leader (a leader must be a user of the workspace)', async () => {
    const boss = created(await newUser({ name: 'Departing Boss' }, token(), ws.roles.manager), 'boss')
    const member = created(await newUser(), 'member')
    const team = await newTeam({ leader_id: boss.id, user_ids: [member.id] })
    expect((await t.app.delete(`${OFFICE}/users/${boss.id}`, { token: token() })).status).toBe(200)
    const stored = (await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data
    expect(stored.leader_id).toBeNull()
    expect(stored.leader).toBeNull()
    expect(stored.members.map((m: Row) => m.user_id)).toEqual([member.id])
    expect((await t.app.get(`${OFFICE}/teams?leader_id=${boss.id}`, { token: token() })).body.meta.total).toBe(0)
  })

  test('GET /office/v1/users?team_id= lists the team members only', async () => {
    const team = await newTeam()
    const a = created(await newUser({ team_ids: [team.id] }), 'a')
    const b = created(await newUser(), 'b')
    expect((await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [a.id, b.id] }, { token: token() })).status).toBe(200)
    await newUser()
    const reply = await t.app.get(`${OFFICE}/users?team_id=${team.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(ids(reply.body.data).sort()).toEqual([a.id, b.id].sort())
    expect(reply.body.meta.total).toBe(2)
    expect(reply.body.data.every((u: Row) => u.team_ids.includes(team.id))).toBe(true)
  })

  test("deleting a user removes them from the workspace's teams", async () => {
    const team = await newTeam()
    const stay = created(await newUser({ team_ids: [team.id] }), 'stay')
    const leave = created(await newUser({ team_ids: [team.id] }), 'leave')
    expect((await t.app.delete(`${OFFICE}/users/${leave.id}`, { token: token() })).status).toBe(200)
    expect((await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data.members.map((m: Row) => m.user_id)).toEqual([stay.id])
    expect(await t.app.count('team_members', `user_id = ${leave.id}`)).toBe(0)
    expect(ids((await t.app.get(`${OFFICE}/users?team_id=${team.id}`, { token: token() })).body.data)).toEqual([stay.id])
    expect(ids((await t.app.get(`${OFFICE}/teams?user_id=${leave.id}`, { token: token() })).body.data)).toEqual([])
  })
})

// ── Manager audit scope ─────────────────────────────────────────────────────────────────────────

describe('manager audit scope (docs/API.md §Roles and permissions)', () => {
  let mws: Workspace
  let manager: Session
  let ledMember: Session // member of a team the manager leads
  let teamLeader: Session // leader of a team the manager belongs to
  let teammate: Session // fellow member of that team
  let outsiderAdmin: Session
  let stranger: Session // member of an unrelated team
  let ledTeam: Row
  let joinedTeam: Row

  const auditList = async (as: Session, query = '') => {
    const reply = await t.app.get(`${OFFICE}/audit-logs?limit=100${query}`, { token: as.token })
    if (reply.status !== 200) throw new Error(`audit list failed: ${reply.status} ${reply.text}`)
    return reply.body.data as { data: Row[]; meta: Row }
  }
  const actorsSeenBy = async (as: Session) => new Set((await auditList(as)).data.map((entry) => entry.actor_id))

  beforeAll(async () => {
    mws = await t.app.workspace()
    manager = await t.app.member(mws, 'manager')
    ledMember = await t.app.member(mws, 'user')
    teamLeader = await t.app.member(mws, 'manager')
    teammate = await t.app.member(mws, 'user')
    outsiderAdmin = await t.app.member(mws, 'admin')
    stranger = await t.app.member(mws, 'user')
    const as = mws.owner.token
    ledTeam = await newTeam({ leader_id: manager.user.id, user_ids: [ledMember.user.id] }, as)
    joinedTeam = await newTeam({ leader_id: teamLeader.user.id, user_ids: [manager.user.id, teammate.user.id] }, as)
    await newTeam({ leader_id: outsiderAdmin.user.id, user_ids: [stranger.user.id] }, as)
    // Entries by the admin outside the manager's teams, and by the manager.
    await newSubArea(outsiderAdmin.token)
    await newOutlet({}, outsiderAdmin.token)
    expect((await t.app.put(`${OFFICE}/teams/${ledTeam.id}`, { description: 'mine' }, { token: outsiderAdmin.token })).status).toBe(200)
  })

  test('a manager sees entries of themselves and of members and leaders of teams they lead or belong to', async () => {
    const visible = [manager, ledMember, teamLeader, teammate].map((s) => s.user.id)
    const { data, meta } = await auditList(manager)
    const actors = new Set(data.map((entry) => entry.actor_id))
    for (const id of visible) expect(actors.has(id)).toBe(true) // each has at least a login entry
    expect([...actors].every((id) => visible.includes(id))).toBe(true)
    expect(data.every((entry) => entry.workspace_id === mws.id)).toBe(true)
    expect(meta.total).toBe(await t.app.count('audit_logs', `workspace_id = ${mws.id} AND actor_id IN (${visible.join(',')})`))
  })

  test('a manager does not see other users of the workspace: an admin outside their teams, the owner, an unrelated team member', async () => {
    const actors = await actorsSeenBy(manager)
    for (const id of [outsiderAdmin.user.id, stranger.user.id, mws.owner.user.id]) expect(actors.has(id)).toBe(false)
    expect((await auditList(manager, `&actor_id=${outsiderAdmin.user.id}`)).meta.total).toBe(0)
    const adminEntry = (await auditList(outsiderAdmin, `&actor_id=${outsiderAdmin.user.id}`)).data[0]
    expect(adminEntry).toBeDefined()
    expectError(await t.app.get(`${OFFICE}/audit-logs/${adminEntry.id}`, { token: manager.token }), 404, 'AUDIT_LOG_NOT_FOUND')
    const leaderEntry = (await auditList(manager, `&actor_id=${teamLeader.user.id}`)).data[0]
    expect((await t.app.get(`${OFFICE}/audit-logs/${leaderEntry.id}`, { token: manager.token })).status).toBe(200)
  })

  test("adding a user to the manager's team makes that user's entries visible at once", async () => {
    expect((await actorsSeenBy(manager)).has(stranger.user.id)).toBe(false)
    const reply = await t.app.put(`${OFFICE}/teams/${ledTeam.id}`, { user_ids: [ledMember.user.id, stranger.user.id] }, { token: mws.owner.token })
    expect(reply.status).toBe(200)
    const seen = await auditList(manager, `&actor_id=${stranger.user.id}`)
    expect(seen.meta.total).toBe(await t.app.count('audit_logs', `workspace_id = ${mws.id} AND actor_id = ${stranger.user.id}`))
    expect(seen.meta.total).toBeGreaterThan(0)
  })

  test("a deleted team no longer widens the manager's view", async () => {
    const passerby = await t.app.member(mws, 'user')
    const team = await newTeam({ user_ids: [manager.user.id, passerby.user.id] }, mws.owner.token)
    expect((await actorsSeenBy(manager)).has(passerby.user.id)).toBe(true)
    expect((await t.app.delete(`${OFFICE}/teams/${team.id}`, { token: mws.owner.token })).status).toBe(200)
    expect((await actorsSeenBy(manager)).has(passerby.user.id)).toBe(false)
  })

  test("adding a user through users.team_ids also widens the manager's view at once", async () => {
    expect((await actorsSeenBy(manager)).has(outsiderAdmin.user.id)).toBe(false)
    const reply = await t.app.put(`${OFFICE}/users/${outsiderAdmin.user.id}`, { team_ids: [joinedTeam.id] }, { token: mws.owner.token })
    expect(reply.status).toBe(200)
    expect((await actorsSeenBy(manager)).has(outsiderAdmin.user.id)).toBe(true)
  })
})

// ── Audit entries ───────────────────────────────────────────────────────────────────────────────

describe('audit entries of outlets, forms, projects and teams', () => {
  const expectLifecycle = async (entityType: string, entity: Row, entityName: string, change: Row, expectedOld: Row, expectedNew: Row) => {
    const entries = await auditOf(entityType, entity.id)
    expect(entries.map((e) => e.action)).toEqual(['created', 'updated', 'deleted'])
    const [createdEntry, updatedEntry, deletedEntry] = entries
    for (const entry of entries) {
      expect(entry).toMatchObject({
        workspace_id: ws.id,
        entity_type: entityType,
        entity_id: String(entity.id),
        actor_id: ws.owner.user.id,
        actor_role: 'super_admin',
      })
    }
    expect(createdEntry.old_values).toBeNull()
    expect(createdEntry.new_values).toMatchObject({ id: entity.id, ...(entityType === 'form' ? { title: entityName } : { name: entityName }) })
    expect(updatedEntry.old_values).toEqual(expectedOld)
    expect(updatedEntry.new_values).toEqual(expectedNew)
    expect(updatedEntry.entity_name).toBe(Object.values(change)[0] as string)
    expect(deletedEntry.old_values).toMatchObject({ id: entity.id })
    expect(deletedEntry.new_values).toBeNull()
    for (const entry of entries) expect(JSON.stringify(entry)).not.toContain('_key"')
  }

  test('outlet: created, updated (only the changed fields), deleted', async () => {
    const outlet = await newOutlet({ name: 'Audit Outlet', code: unique('AO'), address: 'Old street' })
    const put = await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { name: 'Audit Outlet 2', address: 'New street', code: outlet.code }, { token: token() })
    expect(put.status).toBe(200)
    expect((await t.app.delete(`${OFFICE}/outlets/${outlet.id}`, { token: token() })).status).toBe(200)
    await expectLifecycle(
      'outlet',
      outlet,
      'Audit Outlet',
      { name: 'Audit Outlet 2' },
      { name: 'Audit Outlet', address: 'Old street' },
      { name: 'Audit Outlet 2', address: 'New street' },
    )
  })

  test('form: created, updated (only the changed fields), deleted', async () => {
    const form = await newForm({ title: 'Audit Form', description: 'same' })
    expect((await t.app.put(`${OFFICE}/forms/${form.id}`, { title: 'Audit Form 2', description: 'same' }, { token: token() })).status).toBe(200)
    expect((await t.app.delete(`${OFFICE}/forms/${form.id}`, { token: token() })).status).toBe(200)
    await expectLifecycle('form', form, 'Audit Form', { title: 'Audit Form 2' }, { title: 'Audit Form' }, { title: 'Audit Form 2' })
  })

  test('project: created, updated (only the changed fields), deleted', async () => {
    const project = await newProject({ name: 'Audit Project', start_date: '2026-01-01', status: 'draft' })
    const put = await t.app.put(`${OFFICE}/projects/${project.id}`, { name: 'Audit Project 2', status: 'draft', start_date: '2026-01-02' }, { token: token() })
    expect(put.status).toBe(200)
    expect((await t.app.delete(`${OFFICE}/projects/${project.id}`, { token: token() })).status).toBe(200)
    await expectLifecycle(
      'project',
      project,
      'Audit Project',
      { name: 'Audit Project 2' },
      { name: 'Audit Project', start_date: '2026-01-01' },
      { name: 'Audit Project 2', start_date: '2026-01-02' },
    )
  })

  test('team: created, updated (only the changed fields), deleted', async () => {
    const team = await newTeam({ name: 'Audit Team', description: 'kept' })
    expect((await t.app.put(`${OFFICE}/teams/${team.id}`, { name: 'Audit Team 2', description: 'kept' }, { token: token() })).status).toBe(200)
    expect((await t.app.delete(`${OFFICE}/teams/${team.id}`, { token: token() })).status).toBe(200)
    await expectLifecycle('team', team, 'Audit Team', { name: 'Audit Team 2' }, { name: 'Audit Team' }, { name: 'Audit Team 2' })
  })

  test('a team membership change is recorded as the changed members only', async () => {
    const member = created(await newUser({ name: 'Audited Member' }), 'member')
    const team = await newTeam({ description: 'x' })
    expect((await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [member.id] }, { token: token() })).status).toBe(200)
    const updated = (await auditOf('team', team.id)).find((e) => e.action === 'updated')!
    expect(updated.old_values).toEqual({ members: [] })
    expect(updated.new_values).toEqual({ members: [{ user_id: member.id, name: 'Audited Member' }] })
  })

  test('a refused mutation writes no audit entry', async () => {
    const outlet = await newOutlet()
    const before = await t.app.count('audit_logs', `entity_type = 'outlet' AND entity_id = '${outlet.id}'`)
    expectError(await t.app.put(`${OFFICE}/outlets/${outlet.id}`, { latitude: 5 }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('audit_logs', `entity_type = 'outlet' AND entity_id = '${outlet.id}'`)).toBe(before)
  })
})

// ── Workspace isolation ─────────────────────────────────────────────────────────────────────────

describe('workspace isolation', () => {
  const cases: [string, string, string, (as: string) => Promise<Row>, Row][] = [
    ['outlets', 'outlets', 'OUTLET_NOT_FOUND', (as) => newOutlet({}, as), { name: 'Hijacked' }],
    ['forms', 'forms', 'FORM_NOT_FOUND', (as) => newForm({}, as), { title: 'Hijacked' }],
    ['projects', 'projects', 'PROJECT_NOT_FOUND', (as) => newProject({}, as), { name: 'Hijacked' }],
    ['teams', 'teams', 'TEAM_NOT_FOUND', (as) => newTeam({}, as), { name: 'Hijacked' }],
  ]
  for (const [segment, table, code, make, change] of cases) {
    test(`another workspace's ${segment} id is 404 ${code} on GET, PUT and DELETE, and nothing changes`, async () => {
      const foreign = await make(other.owner.token)
      const rowsBefore = await t.app.rows(table)
      const auditBefore = await t.app.count('audit_logs')
      expectError(await t.app.get(`${OFFICE}/${segment}/${foreign.id}`, { token: token() }), 404, code)
      expectError(await t.app.put(`${OFFICE}/${segment}/${foreign.id}`, change, { token: token() }), 404, code)
      expectError(await t.app.delete(`${OFFICE}/${segment}/${foreign.id}`, { token: token() }), 404, code)
      if (segment !== 'teams') expectError(await t.app.get(`/app/v1/${segment}/${foreign.id}`, { token: field.token }), 404, code)
      expect(await t.app.rows(table)).toEqual(rowsBefore)
      expect(await t.app.count('audit_logs')).toBe(auditBefore)
      const own = await t.app.get(`${OFFICE}/${segment}/${foreign.id}`, { token: other.owner.token })
      expect(own.status).toBe(200)
      expect(own.body.data).toEqual(foreign)
    })
  }

  test("lists never show another workspace's rows", async () => {
    const marker = unique('isolation')
    await newOutlet({ name: marker }, other.owner.token)
    await newForm({ title: marker }, other.owner.token)
    await newProject({ name: marker }, other.owner.token)
    await newTeam({ name: marker }, other.owner.token)
    for (const segment of ['outlets', 'forms', 'projects', 'teams']) {
      const reply = await t.app.get(`${OFFICE}/${segment}?keyword=${marker}`, { token: token() })
      expect(reply.status).toBe(200)
      expect(reply.body.meta.total).toBe(0)
    }
  })
})
