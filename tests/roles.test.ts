/**
 * Roles and permissions (docs/API.md §Roles and permissions, §Errors, §Audit log): built-in and custom
 * roles, the permission check every route goes through, and no privilege beyond the caller's own.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/lib/clock'
import * as make from './factories'
import { grant, type Grant, newEmail, PASSWORD } from './factories'
import { expectError, unique, useTestApp, type Workspace } from './harness'

const t = useTestApp()

const createUser = (ws: Workspace, overrides: Record<string, unknown> = {}, token = ws.owner.token) => make.newUser(t.app, ws, overrides, token)
const addUser = (ws: Workspace, role = 'user', overrides: Record<string, unknown> = {}) => make.addUser(t.app, ws, role, overrides)
/** Audit rows of one entity, oldest first, with their JSON columns parsed. */
const auditOf = (entityType: string, entityId: number, action?: string) => make.auditRows(t.app, entityType, entityId, action)

describe('roles', () => {
  let ws: Workspace
  let other: Workspace
  beforeAll(async () => {
    ws = await t.app.workspace()
    other = await t.app.workspace()
  })

  const createRole = (name: string, permissions: Grant[], token = ws.owner.token) => t.app.post('/office/v1/roles', { name, permissions }, { token })
  const roleCount = (workspace: Workspace) => t.app.count('roles', `workspace_id = ${workspace.id} AND deleted_at IS NULL`)

  test('GET /office/v1/roles lists the four built-in roles with id, slug, name and permissions', async () => {
    const fresh = await t.app.workspace()
    const reply = await t.app.get('/office/v1/roles', { token: fresh.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LIST_OK')
    expect(reply.body.meta.total).toBe(4)
    expect(reply.body.data.map((role: { slug: string }) => role.slug).sort()).toEqual(['admin', 'manager', 'super_admin', 'user'])
    for (const role of reply.body.data) {
      expect(Number.isInteger(role.id)).toBe(true)
      expect(typeof role.slug).toBe('string')
      expect(typeof role.name).toBe('string')
      expect(role.permissions).toBeArray()
    }
    const user = reply.body.data.find((role: { slug: string }) => role.slug === 'user')
    // A field user works on mobile only.
    expect(user.permissions.length).toBeGreaterThan(0)
    expect(user.permissions.every((grant: Grant) => grant.platform === 'mobile')).toBe(true)
  })

  test('built-in roles cannot be changed or deleted: 403 ROLE_LOCKED, even by a super_admin', async () => {
    const before = await t.app.db.pragma(`SELECT * FROM roles WHERE workspace_id = ${ws.id} AND is_builtin = 1 ORDER BY id`)
    expect(before).toHaveLength(4)
    for (const slug of ['super_admin', 'admin', 'manager', 'user']) {
      const path = `/office/v1/roles/${ws.roles[slug]}`
      expectError(await t.app.put(path, { name: `Renamed ${slug}` }, { token: ws.owner.token }), 403, 'ROLE_LOCKED')
      expectError(
        await t.app.put(path, { permissions: [{ key: 'channel_group.view', platform: 'web', access: 'view' }] }, { token: ws.owner.token }),
        403,
        'ROLE_LOCKED',
      )
      expectError(await t.app.delete(path, { token: ws.owner.token }), 403, 'ROLE_LOCKED')
    }
    const after = await t.app.db.pragma(`SELECT * FROM roles WHERE workspace_id = ${ws.id} AND is_builtin = 1 ORDER BY id`)
    expect(after).toEqual(before)
  })

  test('a custom role is created: 201 ROLE_CREATED, slug = the name in lower snake case; audited as `created`', async () => {
    const permissions: Grant[] = [
      { key: 'channel_group.view', platform: 'web', access: 'view' },
      { key: 'channel.manage', platform: 'mobile', access: 'full' },
    ]
    const reply = await createRole('Area Sales Lead', permissions)
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('ROLE_CREATED')
    expect(Number.isInteger(reply.body.data.id)).toBe(true)
    expect(reply.body.data).toMatchObject({ slug: 'area_sales_lead', name: 'Area Sales Lead' })
    expect(reply.body.data.permissions).toHaveLength(2)
    expect(reply.body.data.permissions).toEqual(expect.arrayContaining(permissions))
    const id = reply.body.data.id
    expect(await t.app.count('roles', `id = ${id} AND workspace_id = ${ws.id} AND slug = 'area_sales_lead'`)).toBe(1)
    const listed = await t.app.get('/office/v1/roles', { token: ws.owner.token })
    expect(listed.body.data.map((role: { id: number }) => role.id)).toContain(id)
    const entries = await auditOf('role', id, 'created')
    expect(entries).toHaveLength(1)
    expect(entries[0].old_values).toBeNull()
    expect(entries[0].new_values).toMatchObject({ id, slug: 'area_sales_lead', name: 'Area Sales Lead' })
    expect((await createRole('QA Reviewer 2', [])).body.data.slug).toBe('qa_reviewer_2')
  })

  test('an unknown permission key answers 400 VALIDATION_ERROR with errors["permissions.N.key"], nothing created', async () => {
    const count = await roleCount(ws)
    let errors = expectError(await createRole(unique('Bad Key'), [{ key: 'channel_group.destroy', platform: 'web', access: 'full' }]), 400, 'VALIDATION_ERROR')
    expect(errors['permissions.0.key']).toBeArray()
    errors = expectError(
      await createRole(unique('Bad Second'), [
        { key: 'channel_group.view', platform: 'web', access: 'view' },
        { key: 'nope', platform: 'web', access: 'view' },
      ]),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['permissions.1.key']).toBeArray()
    expect(await roleCount(ws)).toBe(count)
  })

  test('a bad platform or access answers 400 naming the field', async () => {
    const count = await roleCount(ws)
    let errors = expectError(
      await createRole(unique('Bad Platform'), [{ key: 'channel_group.view', platform: 'desktop' as never, access: 'view' }]),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['permissions.0.platform']).toBeArray()
    errors = expectError(
      await createRole(unique('Bad Access'), [{ key: 'channel_group.view', platform: 'web', access: 'write' as never }]),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['permissions.0.access']).toBeArray()
    expect(await roleCount(ws)).toBe(count)
  })

  test('workspace.manage is refused in a custom role: 400 with errors["permissions.0.key"]', async () => {
    const count = await roleCount(ws)
    const errors = expectError(
      await createRole(unique('Workspace Boss'), [{ key: 'workspace.manage', platform: 'web', access: 'full' }]),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors['permissions.0.key']).toBeArray()
    expect(await roleCount(ws)).toBe(count)
    const role = await createRole(unique('Sneaky'), [])
    const update = await t.app.put(
      `/office/v1/roles/${role.body.data.id}`,
      { permissions: [{ key: 'workspace.manage', platform: 'web', access: 'full' }] },
      { token: ws.owner.token },
    )
    expectError(update, 400, 'VALIDATION_ERROR')
    expect((await t.app.get(`/office/v1/roles/${role.body.data.id}`, { token: ws.owner.token })).body.data.permissions).toEqual([])
  })

  test('a duplicate role name answers 409 ROLE_ALREADY_EXISTS, also in another case or a built-in’s name', async () => {
    expect((await createRole('Merchandiser Lead', [])).status).toBe(201)
    const count = await roleCount(ws)
    expectError(await createRole('Merchandiser Lead', []), 409, 'ROLE_ALREADY_EXISTS')
    expectError(await createRole('merchandiser lead', []), 409, 'ROLE_ALREADY_EXISTS')
    expectError(await createRole('Admin', []), 409, 'ROLE_ALREADY_EXISTS')
    expect(await roleCount(ws)).toBe(count)
    // Names are per workspace.
    expect((await createRole('Merchandiser Lead', [], other.owner.token)).status).toBe(201)
  })

  test('PUT a custom role answers 200 ROLE_UPDATED; the slug follows the name; audit holds only the changed fields', async () => {
    const created = await createRole('Route Planner', [{ key: 'channel.view', platform: 'web', access: 'view' }])
    const id = created.body.data.id
    ;(t.app.clock as ManualClock).advance(1000)
    const reply = await t.app.put(`/office/v1/roles/${id}`, { name: 'Route Supervisor' }, { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('ROLE_UPDATED')
    expect(reply.body.data).toMatchObject({ id, name: 'Route Supervisor', slug: 'route_supervisor' })
    expect(reply.body.data.permissions).toEqual([{ key: 'channel.view', platform: 'web', access: 'view' }])
    const [entry] = await auditOf('role', id, 'updated')
    expect(entry.entity_name).toBe('Route Supervisor')
    expect(entry.old_values).toEqual({ name: 'Route Planner', slug: 'route_planner' })
    expect(entry.new_values).toEqual({ name: 'Route Supervisor', slug: 'route_supervisor' })
  })

  test('a role’s changed permissions apply to its holders at once', async () => {
    const role = await createRole(unique('Growing'), [{ key: 'channel_group.view', platform: 'web', access: 'view' }])
    const holder = await t.app.member(ws, role.body.data.id)
    const post = () => t.app.post('/office/v1/outlets/channel-groups', { name: unique('Group') }, { token: holder.token })
    expectError(await post(), 403, 'FORBIDDEN')
    const granted = await t.app.put(
      `/office/v1/roles/${role.body.data.id}`,
      { permissions: [{ key: 'channel_group.manage', platform: 'web', access: 'full' }] },
      { token: ws.owner.token },
    )
    expect(granted.status).toBe(200)
    expect((await post()).status).toBe(201)
  })

  test('deleting a role still assigned answers 409 ROLE_IN_USE with errors.user_count; unassigned it is deleted', async () => {
    const role = await createRole(unique('Temporary'), [{ key: 'channel_group.view', platform: 'mobile', access: 'view' }])
    const id = role.body.data.id
    const holders = [await addUser(ws, id), await addUser(ws, id)]
    const errors = expectError(await t.app.delete(`/office/v1/roles/${id}`, { token: ws.owner.token }), 409, 'ROLE_IN_USE')
    expect(errors.user_count).toBe(2)
    expect(await t.app.count('roles', `id = ${id} AND deleted_at IS NULL`)).toBe(1)
    for (const holder of holders) {
      expect((await t.app.put(`/office/v1/users/${holder.id}`, { role_id: ws.roles.user }, { token: ws.owner.token })).status).toBe(200)
    }
    const deleted = await t.app.delete(`/office/v1/roles/${id}`, { token: ws.owner.token })
    expect(deleted.status).toBe(200)
    expect(deleted.body.code).toBe('ROLE_DELETED')
    expect(typeof deleted.body.data.deleted_at).toBe('string')
    expectError(await t.app.get(`/office/v1/roles/${id}`, { token: ws.owner.token }), 404, 'ROLE_NOT_FOUND')
    const listed = await t.app.get('/office/v1/roles', { token: ws.owner.token })
    expect(listed.body.data.map((r: { id: number }) => r.id)).not.toContain(id)
    expect(await auditOf('role', id, 'deleted')).toHaveLength(1)
    // A deleted role can no longer be given to anyone.
    expectError(await createUser(ws, { role_id: id }), 400, 'VALIDATION_ERROR')
  })

  test('another workspace’s role answers 404 ROLE_NOT_FOUND on GET, PUT and DELETE, and nothing changes', async () => {
    const theirs = await createRole(unique('Theirs'), [], other.owner.token)
    const id = theirs.body.data.id
    const path = `/office/v1/roles/${id}`
    expectError(await t.app.get(path, { token: ws.owner.token }), 404, 'ROLE_NOT_FOUND')
    expectError(await t.app.put(path, { name: 'Hijacked Role' }, { token: ws.owner.token }), 404, 'ROLE_NOT_FOUND')
    expectError(await t.app.delete(path, { token: ws.owner.token }), 404, 'ROLE_NOT_FOUND')
    expect(await t.app.count('roles', `id = ${id} AND name = '${theirs.body.data.name}' AND deleted_at IS NULL`)).toBe(1)
  })

  test('managing roles needs role.manage: a manager may list roles but not create one (403)', async () => {
    const manager = await t.app.member(ws, 'manager')
    expect((await t.app.get('/office/v1/roles', { token: manager.token })).status).toBe(200)
    const count = await roleCount(ws)
    expectError(await createRole(unique('By Manager'), [], manager.token), 403, 'FORBIDDEN')
    expect(await roleCount(ws)).toBe(count)
  })

  test('GET /office/v1/permissions lists every permission key with meta, default limit 100', async () => {
    const reply = await t.app.get('/office/v1/permissions', { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LIST_OK')
    expect(reply.body.meta.limit).toBe(100)
    expect(reply.body.meta.page).toBe(1)
    expect(reply.body.meta.total).toBe(reply.body.data.length)
    const keys = reply.body.data.map((permission: { key: string }) => permission.key)
    expect(new Set(keys).size).toBe(keys.length)
    expect(keys).toEqual(
      expect.arrayContaining([
        'channel_group.view',
        'channel_group.manage',
        'channel.view',
        'channel.manage',
        'account.view',
        'account.manage',
        'sub_area.view',
        'sub_area.manage',
        'audit_log.view',
        'livemap:view',
        'visit:create',
        'visit:view',
        'submission:approve',
        'user.manage',
        'role.manage',
      ]),
    )
    const paged = await t.app.get('/office/v1/permissions?limit=2&page=2', { token: ws.owner.token })
    expect(paged.body.data).toEqual(reply.body.data.slice(2, 4))
    expect(paged.body.meta).toEqual({ page: 2, limit: 2, total: keys.length, total_pages: Math.ceil(keys.length / 2) })
  })
})

describe('permission checks', () => {
  let ws: Workspace
  let groupId: number
  beforeAll(async () => {
    ws = await t.app.workspace()
    const group = await t.app.post('/office/v1/outlets/channel-groups', { name: 'Modern Trade' }, { token: ws.owner.token })
    if (group.status !== 201) throw new Error(group.text)
    groupId = group.body.data.id
  })

  const groups = () => t.app.count('channel_groups', `workspace_id = ${ws.id}`)
  const officeGroups = '/office/v1/outlets/channel-groups'

  test('channel_group.view on web may list and read channel groups but not create one (403 FORBIDDEN)', async () => {
    const viewer = await t.app.memberWithGrants(ws, [{ key: 'channel_group.view', platform: 'web', access: 'view' }])
    expect((await t.app.get(officeGroups, { token: viewer.token })).status).toBe(200)
    expect((await t.app.get(`${officeGroups}/${groupId}`, { token: viewer.token })).status).toBe(200)
    const before = await groups()
    expectError(await t.app.post(officeGroups, { name: unique('Nope') }, { token: viewer.token }), 403, 'FORBIDDEN')
    expectError(await t.app.put(`${officeGroups}/${groupId}`, { name: 'Renamed' }, { token: viewer.token }), 403, 'FORBIDDEN')
    expectError(await t.app.delete(`${officeGroups}/${groupId}`, { token: viewer.token }), 403, 'FORBIDDEN')
    expect(await groups()).toBe(before)
    expect(await t.app.count('channel_groups', `id = ${groupId} AND name = 'Modern Trade' AND deleted_at IS NULL`)).toBe(1)
  })

  test('channel_group.manage with full access on web may create, and also list (manage satisfies view)', async () => {
    const manager = await t.app.memberWithGrants(ws, [{ key: 'channel_group.manage', platform: 'web', access: 'full' }])
    const before = await groups()
    const created = await t.app.post(officeGroups, { name: unique('Managed') }, { token: manager.token })
    expect(created.status).toBe(201)
    expect(await groups()).toBe(before + 1)
    const listed = await t.app.get(officeGroups, { token: manager.token })
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((group: { id: number }) => group.id)).toContain(created.body.data.id)
    expect((await t.app.get(`${officeGroups}/${created.body.data.id}`, { token: manager.token })).status).toBe(200)
    expect((await t.app.put(`${officeGroups}/${created.body.data.id}`, { name: unique('Renamed') }, { token: manager.token })).status).toBe(200)
    expect((await t.app.delete(`${officeGroups}/${created.body.data.id}`, { token: manager.token })).status).toBe(200)
  })

  test('a grant on one entity opens nothing else', async () => {
    const manager = await t.app.memberWithGrants(ws, [{ key: 'channel_group.manage', platform: 'web', access: 'full' }])
    expectError(await t.app.get('/office/v1/outlets/sub-areas', { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/outlets/channels', { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/users', { token: manager.token }), 403, 'FORBIDDEN')
  })

  test('a mobile-only grant does not open the /office route (403) but opens the /app route', async () => {
    const mobile = await t.app.memberWithGrants(ws, [
      { key: 'channel_group.view', platform: 'mobile', access: 'view' },
      { key: 'channel_group.manage', platform: 'mobile', access: 'full' },
    ])
    expectError(await t.app.get(officeGroups, { token: mobile.token }), 403, 'FORBIDDEN')
    const before = await groups()
    expectError(await t.app.post(officeGroups, { name: unique('From Phone') }, { token: mobile.token }), 403, 'FORBIDDEN')
    expect(await groups()).toBe(before)
    const app = await t.app.get('/app/v1/outlets/channel-groups', { token: mobile.token })
    expect(app.status).toBe(200)
    expect(app.body.data.map((group: { id: number }) => group.id)).toContain(groupId)
  })

  test('a web-only grant does not open the /app route', async () => {
    const web = await t.app.memberWithGrants(ws, [{ key: 'channel_group.manage', platform: 'web', access: 'full' }])
    expectError(await t.app.get('/app/v1/outlets/channel-groups', { token: web.token }), 403, 'FORBIDDEN')
  })

  test('access "view" on a .manage key allows reading but not POST', async () => {
    const viewOfManage = await t.app.memberWithGrants(ws, [{ key: 'channel_group.manage', platform: 'web', access: 'view' }])
    expect((await t.app.get(officeGroups, { token: viewOfManage.token })).status).toBe(200)
    const before = await groups()
    expectError(await t.app.post(officeGroups, { name: unique('Nope') }, { token: viewOfManage.token }), 403, 'FORBIDDEN')
    expect(await groups()).toBe(before)
  })

  test('a role without grants gets 403 FORBIDDEN, not 401', async () => {
    const nobody = await t.app.memberWithGrants(ws, [])
    expectError(await t.app.get(officeGroups, { token: nobody.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/app/v1/outlets/channel-groups', { token: nobody.token }), 403, 'FORBIDDEN')
  })

  test('built-in manager: lists master data on web, cannot create it (403), reads audit logs', async () => {
    const manager = await t.app.member(ws, 'manager')
    const channel = await t.app.post('/office/v1/outlets/channels', { name: 'Supermarket', channel_group_id: groupId }, { token: ws.owner.token })
    expect(channel.status).toBe(201)
    const creates: [string, Record<string, unknown>, string][] = [
      ['channel-groups', { name: unique('M') }, 'channel_groups'],
      ['channels', { name: unique('M'), channel_group_id: groupId }, 'channels'],
      ['accounts', { name: unique('M'), channel_id: channel.body.data.id }, 'accounts'],
      ['sub-areas', { name: unique('M') }, 'sub_areas'],
    ]
    for (const [segment, body, table] of creates) {
      const listed = await t.app.get(`/office/v1/outlets/${segment}`, { token: manager.token })
      expect(`${segment} ${listed.status}`).toBe(`${segment} 200`)
      const before = await t.app.count(table)
      expectError(await t.app.post(`/office/v1/outlets/${segment}`, body, { token: manager.token }), 403, 'FORBIDDEN')
      expect(await t.app.count(table)).toBe(before)
    }
    const audit = await t.app.get('/office/v1/audit-logs', { token: manager.token })
    expect(audit.status).toBe(200)
    expect(audit.body.code).toBe('AUDIT_LOG_LIST')
    // Mobile like a field user.
    expect((await t.app.get('/app/v1/outlets/channel-groups', { token: manager.token })).status).toBe(200)
    // Not user management.
    expectError(await createUser(ws, {}, manager.token), 403, 'FORBIDDEN')
  })

  test('built-in user: 403 on every /office route tried, 200 on the /app/v1/outlets reads', async () => {
    const fieldUser = await t.app.member(ws, 'user')
    const office: [string, string, unknown?][] = [
      ['GET', '/office/v1/outlets/channel-groups'],
      ['GET', `/office/v1/outlets/channel-groups/${groupId}`],
      ['POST', '/office/v1/outlets/channel-groups', { name: unique('U') }],
      ['PUT', `/office/v1/outlets/channel-groups/${groupId}`, { name: unique('U') }],
      ['DELETE', `/office/v1/outlets/channel-groups/${groupId}`],
      ['GET', '/office/v1/outlets/channels'],
      ['GET', '/office/v1/outlets/accounts'],
      ['GET', '/office/v1/outlets/sub-areas'],
      ['POST', '/office/v1/outlets/sub-areas', { name: unique('U') }],
      ['GET', '/office/v1/users'],
      ['POST', '/office/v1/users', { name: 'X', email: newEmail('x'), password: PASSWORD, role_id: ws.roles.user }],
      ['GET', `/office/v1/users/${fieldUser.user.id}`],
      ['GET', '/office/v1/roles'],
      ['POST', '/office/v1/roles', { name: unique('R'), permissions: [] }],
      ['GET', '/office/v1/permissions'],
      ['GET', '/office/v1/audit-logs'],
      ['POST', '/office/v1/workspaces', { name: unique('W') }],
    ]
    const audits = await t.app.count('audit_logs')
    for (const [method, path, body] of office) {
      const reply = await t.app.request(method, path, { token: fieldUser.token, body })
      if (reply.status !== 403 || reply.body?.code !== 'FORBIDDEN') throw new Error(`${method} ${path} answered ${reply.status} ${reply.text}`)
    }
    expect(await t.app.count('audit_logs')).toBe(audits)
    for (const segment of ['channel-groups', 'channels', 'accounts', 'sub-areas']) {
      const reply = await t.app.get(`/app/v1/outlets/${segment}`, { token: fieldUser.token })
      expect(`${segment} ${reply.status}`).toBe(`${segment} 200`)
    }
    expect((await t.app.get(`/app/v1/outlets/channel-groups/${groupId}`, { token: fieldUser.token })).status).toBe(200)
  })
})

describe('no privilege beyond your own: roles', () => {
  let ws: Workspace
  beforeAll(async () => {
    ws = await t.app.workspace()
  })

  const roleRow = async (id: number) => (await t.app.db.pragma(`SELECT * FROM roles WHERE id = ${id}`))[0]
  const roleCount = () => t.app.count('roles', `workspace_id = ${ws.id} AND deleted_at IS NULL`)

  /** A custom role with these grants, a holder of it (logged in), and the role's id. */
  async function holderOf(grants: Grant[]) {
    const role = await t.app.post('/office/v1/roles', { name: unique('Holder Role'), permissions: grants }, { token: ws.owner.token })
    if (role.status !== 201) throw new Error(role.text)
    return { roleId: role.body.data.id as number, session: await t.app.member(ws, role.body.data.id) }
  }

  test('a holder of only role.manage cannot widen their own role, nor change its permissions at all (403 errors.permissions)', async () => {
    const { roleId, session } = await holderOf([grant('role.manage')])
    const before = await roleRow(roleId)
    for (const permissions of [[grant('role.manage'), grant('user.manage')], [grant('role.manage'), grant('channel.view', 'view')], []]) {
      const errors = expectError(await t.app.put(`/office/v1/roles/${roleId}`, { permissions }, { token: session.token }), 403, 'FORBIDDEN')
      expect(errors.permissions).toBeArray()
    }
    expect(await roleRow(roleId)).toEqual(before)
    // Renaming it, or sending its permissions unchanged, is no change of privilege.
    const renamed = await t.app.put(
      `/office/v1/roles/${roleId}`,
      { name: unique('Renamed Own'), permissions: [grant('role.manage')] },
      { token: session.token },
    )
    expect(renamed.status).toBe(200)
  })

  test('a holder of only role.manage cannot create a role, or give one, keys they lack; with keys they hold they can', async () => {
    const { session } = await holderOf([grant('role.manage'), grant('channel.view', 'view')])
    const count = await roleCount()
    for (const permissions of [
      [grant('user.manage')],
      [grant('channel.view', 'full')],
      [grant('channel.view', 'view', 'mobile')],
      [grant('role.manage'), grant('audit_log.view', 'view')],
    ]) {
      const errors = expectError(await t.app.post('/office/v1/roles', { name: unique('Wider'), permissions }, { token: session.token }), 403, 'FORBIDDEN')
      expect(errors.permissions).toBeArray()
    }
    expect(await roleCount()).toBe(count)
    // Allowed: a role within their own grants (role.manage covers role.view).
    const narrow = await t.app.post(
      '/office/v1/roles',
      { name: unique('Narrow'), permissions: [grant('role.view', 'view'), grant('channel.view', 'view')] },
      { token: session.token },
    )
    expect(narrow.status).toBe(201)
    const id = narrow.body.data.id
    const widened = await t.app.put(`/office/v1/roles/${id}`, { permissions: [grant('user.manage')] }, { token: session.token })
    expect(expectError(widened, 403, 'FORBIDDEN').permissions).toBeArray()
    expect((await t.app.put(`/office/v1/roles/${id}`, { permissions: [grant('role.manage')] }, { token: session.token })).status).toBe(200)
  })

  test('a role holding keys the caller lacks cannot be changed or deleted by them (403), even by renaming', async () => {
    const { session } = await holderOf([grant('role.manage')])
    const above = await t.app.post('/office/v1/roles', { name: unique('Above'), permissions: [grant('user.manage')] }, { token: ws.owner.token })
    const id = above.body.data.id
    const before = await roleRow(id)
    expectError(await t.app.put(`/office/v1/roles/${id}`, { name: unique('Taken') }, { token: session.token }), 403, 'FORBIDDEN')
    expectError(await t.app.put(`/office/v1/roles/${id}`, { permissions: [] }, { token: session.token }), 403, 'FORBIDDEN')
    expectError(await t.app.delete(`/office/v1/roles/${id}`, { token: session.token }), 403, 'FORBIDDEN')
    expect(await roleRow(id)).toEqual(before)
  })

  test('an admin still creates and changes custom roles with any key but workspace.manage; a super_admin holds every permission', async () => {
    const admin = await t.app.member(ws, 'admin')
    const everyKey = (await t.app.get('/office/v1/permissions', { token: ws.owner.token })).body.data
      .map((permission: { key: string }) => permission.key)
      .filter((key: string) => key !== 'workspace.manage')
    const all = everyKey.flatMap((key: string) => [grant(key), grant(key, 'full', 'mobile')])
    const byAdmin = await t.app.post('/office/v1/roles', { name: unique('Everything'), permissions: all }, { token: admin.token })
    expect(byAdmin.status).toBe(201)
    expect((await t.app.put(`/office/v1/roles/${byAdmin.body.data.id}`, { permissions: [grant('user.manage')] }, { token: admin.token })).status).toBe(200)
    const byOwner = await t.app.post('/office/v1/roles', { name: unique('Everything Owner'), permissions: all }, { token: ws.owner.token })
    expect(byOwner.status).toBe(201)
  })
})
