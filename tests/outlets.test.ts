/**
 * Outlets (docs/API.md §Other areas, §Envelopes, §Errors, §Audit log): create, list filters, update,
 * delete, permissions and mobile routes; the manager's team-scoped audit log (docs/API.md §Roles and
 * permissions), the audit entries outlets, forms, projects and teams write, and their workspace isolation.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/lib/clock'
import { ids, type Row, onWorkspace } from './factories'
import { expectError, unique, useTestApp, type Reply, type Session, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let other: Workspace
let field: Session
const token = () => ws.owner.token

const OFFICE = '/office/v1'
const MASTER = `${OFFICE}/outlets`
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const clock = () => t.app.clock as ManualClock

const { created, newAccount, newAccountIn, newSubArea, newOutlet, newForm, newProject, newTeam, newVisit, cancelVisit, checkIn, newUser } = onWorkspace(
  t,
  () => ws,
)

/** Audit entries of one entity, oldest first (read by the workspace owner, a super_admin). */
async function auditOf(entityType: string, entityId: number, as = token()): Promise<Row[]> {
  const reply = await t.app.get(`${OFFICE}/audit-logs?entity_type=${entityType}&entity_id=${entityId}&sort_by=id&sort_order=asc&limit=100`, { token: as })
  if (reply.status !== 200) throw new Error(`audit list failed: ${reply.status} ${reply.text}`)
  return reply.body.data.data
}

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  field = await t.app.member(ws, 'user')
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
    expect(adminEntry).toMatchObject({ actor_id: outsiderAdmin.user.id, workspace_id: mws.id })
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
