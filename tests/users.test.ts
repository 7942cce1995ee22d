/**
 * Users, roles, permissions and workspaces (docs/API.md §Roles and permissions, §Errors, §Audit log): user CRUD with its escalation and
 * self-lockout guards, built-in and custom roles, the permission check every route goes through,
 * and multi-workspace access. Tenancy: another workspace's id behaves as a missing one.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/platform/clock'
import { expectError, unique, useRealSocket, useTestApp, type Reply, type Session, type Workspace } from './harness'

const t = useTestApp()

const PASSWORD = 'password123'
const newEmail = (prefix = 'person') => `${unique(prefix)}@example.com`

type Grant = { key: string; platform: 'web' | 'mobile'; access: 'full' | 'view' }

function createUser(ws: Workspace, overrides: Record<string, unknown> = {}, token = ws.owner.token) {
  return t.app.post('/office/v1/users', { name: unique('User'), email: newEmail('user'), password: PASSWORD, role_id: ws.roles.user, ...overrides }, { token })
}

/** Creates a user and returns their id, email and name (not logged in). */
async function addUser(ws: Workspace, role = 'user', overrides: Record<string, unknown> = {}) {
  const email = newEmail(role)
  const name = unique(`Name ${role}`)
  const reply = await createUser(ws, { name, email, role_id: ws.roles[role] ?? role, ...overrides })
  if (reply.status !== 201) throw new Error(`create user failed: ${reply.status} ${reply.text}`)
  return { id: reply.body.data.id as number, email: reply.body.data.email as string, name }
}

const parse = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

/** Audit rows of one entity, oldest first, with their JSON columns parsed. */
async function auditOf(entityType: string, entityId: number, action?: string) {
  const rows = await t.app.db.pragma(
    `SELECT * FROM audit_logs WHERE entity_type = '${entityType}' AND entity_id = '${entityId}'${action ? ` AND action = '${action}'` : ''} ORDER BY id`,
  )
  return rows.map(
    (row): Record<string, any> => ({ ...row, old_values: parse(row.old_values), new_values: parse(row.new_values), metadata: parse(row.metadata) }),
  )
}

/** Every object key at any depth of a JSON value. */
function keysDeep(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => keysDeep(item, into))
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      into.push(key)
      keysDeep(inner, into)
    }
  }
  return into
}

function expectNoSecrets(reply: Reply, ...plaintexts: string[]) {
  for (const plaintext of plaintexts) expect(reply.text).not.toContain(plaintext)
  expect(reply.text).not.toContain('$argon2')
  expect(keysDeep(reply.body).filter((key) => /password|hash/i.test(key))).toEqual([])
}

const membership = async (workspaceId: number, userId: number) =>
  (await t.app.db.pragma(`SELECT * FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND deleted_at IS NULL`))[0]

describe('users: create', () => {
  let ws: Workspace
  let other: Workspace
  beforeAll(async () => {
    ws = await t.app.workspace()
    other = await t.app.workspace()
  })

  test('POST /office/v1/users answers 201 USER_CREATED with the user and their role; the user can log in', async () => {
    const email = newEmail('Created')
    const reply = await createUser(ws, { name: '  Siti Rahma  ', email: `  ${email.toUpperCase()} `, role_id: ws.roles.manager, phone: '+62 811 0000' })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ success: true, code: 'USER_CREATED' })
    const user = reply.body.data
    expect(user).toMatchObject({
      name: 'Siti Rahma',
      email: email.toLowerCase(),
      phone: '+62 811 0000',
      role_id: ws.roles.manager,
      is_active: true,
    })
    expect(user.role).toMatchObject({ id: ws.roles.manager, slug: 'manager' })
    expect(await t.app.count('users', `id = ${user.id} AND email = '${email.toLowerCase()}'`)).toBe(1)
    expect(await t.app.count('memberships', `user_id = ${user.id} AND workspace_id = ${ws.id} AND role_id = ${ws.roles.manager}`)).toBe(1)
    const session = await t.app.login(email)
    expect(session.user).toMatchObject({ id: user.id, role: 'manager', workspace_id: ws.id })
  })

  test('phone is optional', async () => {
    const reply = await createUser(ws)
    expect(reply.status).toBe(201)
    expect(reply.body.data.phone ?? null).toBeNull()
  })

  test('user answers and audit entries never contain the password or its hash', async () => {
    const secret = 'Zebra-Secret-Passphrase-42'
    const created = await createUser(ws, { password: secret })
    expect(created.status).toBe(201)
    const id = created.body.data.id
    expectNoSecrets(created, secret)
    expectNoSecrets(await t.app.get(`/office/v1/users/${id}`, { token: ws.owner.token }), secret)
    expectNoSecrets(await t.app.get('/office/v1/users?limit=100', { token: ws.owner.token }), secret)
    const changed = await t.app.put(`/office/v1/users/${id}`, { password: 'Other-Secret-Phrase-77' }, { token: ws.owner.token })
    expect(changed.status).toBe(200)
    expectNoSecrets(changed, secret, 'Other-Secret-Phrase-77')
    const deleted = await t.app.delete(`/office/v1/users/${id}`, { token: ws.owner.token })
    expect(deleted.status).toBe(200)
    expectNoSecrets(deleted, secret, 'Other-Secret-Phrase-77')
    const audit = JSON.stringify(await auditOf('user', id))
    expect(audit).not.toContain(secret)
    expect(audit).not.toContain('Other-Secret-Phrase-77')
    expect(audit).not.toContain('$argon2')
  })

  test('a taken email answers 409 USER_ALREADY_EXISTS, case-insensitively and across workspaces, and creates nothing', async () => {
    const { email } = await addUser(ws)
    const users = await t.app.count('users')
    expectError(await createUser(ws, { email }), 409, 'USER_ALREADY_EXISTS')
    expectError(await createUser(ws, { email: email.toUpperCase() }), 409, 'USER_ALREADY_EXISTS')
    expectError(await createUser(other, { email }), 409, 'USER_ALREADY_EXISTS')
    expectError(await createUser(ws, { email: other.owner.user.email }), 409, 'USER_ALREADY_EXISTS')
    expect(await t.app.count('users')).toBe(users)
  })

  test('an unknown role_id or another workspace’s role_id answers 400 VALIDATION_ERROR with errors.role_id', async () => {
    const users = await t.app.count('users')
    for (const role_id of [987654, other.roles.user, other.roles.admin]) {
      const errors = expectError(await createUser(ws, { role_id }), 400, 'VALIDATION_ERROR')
      expect(errors.role_id).toBeArray()
    }
    expect(await t.app.count('users')).toBe(users)
  })

  test('missing name, bad email, short password or missing role_id answer 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '   ' }, 'name'],
      [{ name: undefined }, 'name'],
      [{ email: 'not-an-email' }, 'email'],
      [{ password: '1234567' }, 'password'],
      [{ password: 'p'.repeat(129) }, 'password'],
      [{ role_id: undefined }, 'role_id'],
    ]
    const users = await t.app.count('users')
    for (const [overrides, field] of cases) {
      const errors = expectError(await createUser(ws, overrides), 400, 'VALIDATION_ERROR')
      expect(errors[field]).toBeArray()
    }
    expect(await t.app.count('users')).toBe(users)
  })

  test('creating a user writes a `created` audit entry with the new user and no old values', async () => {
    const { id, name, email } = await addUser(ws, 'manager')
    const entries = await auditOf('user', id)
    expect(entries).toHaveLength(1)
    const [entry] = entries
    expect(entry).toMatchObject({ action: 'created', workspace_id: ws.id, actor_id: ws.owner.user.id, actor_role: 'super_admin', entity_name: name })
    expect(entry.old_values).toBeNull()
    expect(entry.new_values).toMatchObject({ id, name, email })
  })
})

describe('users: list and read', () => {
  let ws: Workspace
  const ids: Record<string, number> = {}
  beforeAll(async () => {
    ws = await t.app.workspace()
    await t.app.workspace() // another workspace's users must never show
    ids.alpha = (await addUser(ws, 'manager', { name: 'Alpha Manager' })).id
    ids.beta = (await addUser(ws, 'user', { name: 'Beta Fieldworker' })).id
    ids.gamma = (await addUser(ws, 'user', { name: 'Gamma Fieldworker' })).id
    const off = await t.app.put(`/office/v1/users/${ids.gamma}`, { is_active: false }, { token: ws.owner.token })
    if (off.status !== 200) throw new Error(off.text)
  })

  const list = (query = '') => t.app.get(`/office/v1/users${query}`, { token: ws.owner.token })
  const idsOf = (reply: Reply) => reply.body.data.map((user: { id: number }) => user.id).sort((a: number, b: number) => a - b)
  const sorted = (...values: number[]) => values.sort((a, b) => a - b)

  test('GET /office/v1/users lists the workspace’s users with LIST_OK and pagination meta (default limit 10)', async () => {
    const reply = await list()
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'LIST_OK' })
    expect(idsOf(reply)).toEqual(sorted(ws.owner.user.id, ids.alpha, ids.beta, ids.gamma))
    expect(reply.body.meta).toEqual({ page: 1, limit: 10, total: 4, total_pages: 1 })
  })

  test('keyword filters by name, case-insensitively and partially', async () => {
    expect(idsOf(await list('?keyword=FIELDWORK'))).toEqual(sorted(ids.beta, ids.gamma))
    expect(idsOf(await list('?keyword=alpha'))).toEqual([ids.alpha])
    const none = await list('?keyword=nobody-has-this')
    expect(none.body.data).toEqual([])
    expect(none.body.meta).toMatchObject({ total: 0, total_pages: 0 })
  })

  test('role_id and is_active filter the list, also combined', async () => {
    expect(idsOf(await list(`?role_id=${ws.roles.user}`))).toEqual(sorted(ids.beta, ids.gamma))
    expect(idsOf(await list(`?role_id=${ws.roles.manager}`))).toEqual([ids.alpha])
    expect(idsOf(await list('?is_active=false'))).toEqual([ids.gamma])
    expect(idsOf(await list('?is_active=true'))).toEqual(sorted(ws.owner.user.id, ids.alpha, ids.beta))
    expect(idsOf(await list(`?role_id=${ws.roles.user}&is_active=true`))).toEqual([ids.beta])
  })

  test('page and limit paginate; limit above 100 is clamped to 100', async () => {
    const first = await list('?limit=3&page=1')
    const second = await list('?limit=3&page=2')
    expect(first.body.data).toHaveLength(3)
    expect(second.body.data).toHaveLength(1)
    expect(second.body.meta).toEqual({ page: 2, limit: 3, total: 4, total_pages: 2 })
    expect(new Set([...idsOf(first), ...idsOf(second)]).size).toBe(4)
    expect((await list('?limit=1000')).body.meta.limit).toBe(100)
    expectError(await list('?limit=0'), 400, 'VALIDATION_ERROR')
    expectError(await list('?page=abc'), 400, 'VALIDATION_ERROR')
  })

  test('GET /office/v1/users/:id answers SUCCESS with the user', async () => {
    const reply = await t.app.get(`/office/v1/users/${ids.alpha}`, { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUCCESS')
    expect(reply.body.data).toMatchObject({ id: ids.alpha, name: 'Alpha Manager', role_id: ws.roles.manager, is_active: true })
    expectError(await t.app.get('/office/v1/users/987654', { token: ws.owner.token }), 404, 'USER_NOT_FOUND')
  })
})

describe('users: update and delete', () => {
  let ws: Workspace
  beforeAll(async () => {
    ws = await t.app.workspace()
  })

  test('PUT answers 200 USER_UPDATED with the updated user', async () => {
    const { id } = await addUser(ws)
    const reply = await t.app.put(`/office/v1/users/${id}`, { name: 'Renamed Person', phone: '0812', role_id: ws.roles.manager }, { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('USER_UPDATED')
    expect(reply.body.data).toMatchObject({ id, name: 'Renamed Person', phone: '0812', role_id: ws.roles.manager })
    const stored = await t.app.get(`/office/v1/users/${id}`, { token: ws.owner.token })
    expect(stored.body.data).toMatchObject({ name: 'Renamed Person', phone: '0812', role: { slug: 'manager' } })
  })

  test('an update is audited with only the changed fields as old and new values, without updated_at', async () => {
    const { id, name } = await addUser(ws)
    // Let updated_at move, so leaving it out of the audit values is observable.
    ;(t.app.clock as ManualClock).advance(1000)
    expect((await t.app.put(`/office/v1/users/${id}`, { name: 'After Rename', phone: '0813' }, { token: ws.owner.token })).status).toBe(200)
    const entries = await auditOf('user', id, 'updated')
    expect(entries).toHaveLength(1)
    expect(entries[0].entity_name).toBe('After Rename')
    expect(entries[0].old_values).toEqual({ name, phone: null })
    expect(entries[0].new_values).toEqual({ name: 'After Rename', phone: '0813' })
  })

  test('an update to a taken email answers 409 USER_ALREADY_EXISTS and changes nothing', async () => {
    const first = await addUser(ws)
    const second = await addUser(ws)
    expectError(await t.app.put(`/office/v1/users/${second.id}`, { email: first.email.toUpperCase() }, { token: ws.owner.token }), 409, 'USER_ALREADY_EXISTS')
    expect(await t.app.count('users', `id = ${second.id} AND email = '${second.email}'`)).toBe(1)
  })

  test('an empty name in an update answers 400 errors.name', async () => {
    const { id, name } = await addUser(ws)
    const errors = expectError(await t.app.put(`/office/v1/users/${id}`, { name: '  ' }, { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
    expect(errors.name).toBeArray()
    expect(await t.app.count('users', `id = ${id} AND name = '${name}'`)).toBe(1)
  })

  test('DELETE answers 200 USER_DELETED with deleted_at; the user is gone from detail and list; audited as `deleted`', async () => {
    const { id, name, email } = await addUser(ws)
    const reply = await t.app.delete(`/office/v1/users/${id}`, { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('USER_DELETED')
    expect(reply.body.data).toMatchObject({ id, name })
    expect(typeof reply.body.data.deleted_at).toBe('string')
    expectError(await t.app.get(`/office/v1/users/${id}`, { token: ws.owner.token }), 404, 'USER_NOT_FOUND')
    const listed = await t.app.get('/office/v1/users?limit=100', { token: ws.owner.token })
    expect(listed.body.data.map((user: { id: number }) => user.id)).not.toContain(id)
    const entries = await auditOf('user', id, 'deleted')
    expect(entries).toHaveLength(1)
    expect(entries[0].new_values).toBeNull()
    expect(entries[0].old_values).toMatchObject({ id, name, email })
  })
})

describe('users: deactivation and deletion end access at once', () => {
  let ws: Workspace
  beforeAll(async () => {
    ws = await t.app.workspace()
  })

  test('deactivating a user makes their access token fail with 401 at once, their login 403 ACCOUNT_DISABLED, their refresh 401', async () => {
    const { id, email } = await addUser(ws, 'user')
    const session = await t.app.login(email)
    expect((await t.app.get('/app/v1/outlets/channel-groups', { token: session.token })).status).toBe(200)
    const reply = await t.app.put(`/office/v1/users/${id}`, { is_active: false }, { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.data.is_active).toBe(false)
    expectError(await t.app.get('/app/v1/outlets/channel-groups', { token: session.token }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/login', { email, password: PASSWORD }), 403, 'ACCOUNT_DISABLED')
    expectError(await t.app.post('/auth/refresh', { refresh_token: session.refresh_token }), 401, 'UNAUTHORIZED')
    // Reactivated, the user can log in again.
    expect((await t.app.put(`/office/v1/users/${id}`, { is_active: true }, { token: ws.owner.token })).status).toBe(200)
    const again = await t.app.login(email)
    expect((await t.app.get('/app/v1/outlets/channel-groups', { token: again.token })).status).toBe(200)
  })

  test('deleting a user makes their token fail with 401 at once and frees the email for a new user', async () => {
    const { id, email } = await addUser(ws, 'manager')
    const session = await t.app.login(email)
    expect((await t.app.get('/office/v1/outlets/channel-groups', { token: session.token })).status).toBe(200)
    expect((await t.app.delete(`/office/v1/users/${id}`, { token: ws.owner.token })).status).toBe(200)
    expectError(await t.app.get('/office/v1/outlets/channel-groups', { token: session.token }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/refresh', { refresh_token: session.refresh_token }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/login', { email, password: PASSWORD }), 401, 'INVALID_CREDENTIALS')
    const recreated = await createUser(ws, { email, password: 'a-new-password' })
    expect(recreated.status).toBe(201)
    expect(recreated.body.data.id).not.toBe(id)
    const fresh = await t.app.login(email, 'a-new-password')
    expect(fresh.user.id).toBe(recreated.body.data.id)
    // The old token stays dead even though its email lives again.
    expectError(await t.app.get('/office/v1/outlets/channel-groups', { token: session.token }), 401, 'UNAUTHORIZED')
  })
})

describe('users: escalation and self-lockout guards', () => {
  let ws: Workspace
  let admin: Session
  beforeAll(async () => {
    ws = await t.app.workspace()
    admin = await t.app.member(ws, 'admin')
  })

  test('an admin cannot create a super_admin: 403 FORBIDDEN, nothing created', async () => {
    const email = newEmail('escalate')
    const reply = await createUser(ws, { email, role_id: ws.roles.super_admin }, admin.token)
    expectError(reply, 403, 'FORBIDDEN')
    expect(await t.app.count('users', `email = '${email}'`)).toBe(0)
  })

  test('an admin cannot give an existing user the super_admin role: 403, role unchanged', async () => {
    const { id } = await addUser(ws, 'user')
    expectError(await t.app.put(`/office/v1/users/${id}`, { role_id: ws.roles.super_admin }, { token: admin.token }), 403, 'FORBIDDEN')
    expect((await membership(ws.id, id)).role_id).toBe(ws.roles.user)
  })

  test('an admin cannot edit, deactivate or delete a super_admin: 403, nothing changes', async () => {
    const ownerId = ws.owner.user.id
    expectError(await t.app.put(`/office/v1/users/${ownerId}`, { name: 'Hijacked' }, { token: admin.token }), 403, 'FORBIDDEN')
    expectError(await t.app.put(`/office/v1/users/${ownerId}`, { is_active: false }, { token: admin.token }), 403, 'FORBIDDEN')
    expectError(await t.app.put(`/office/v1/users/${ownerId}`, { password: 'taken-over-pw' }, { token: admin.token }), 403, 'FORBIDDEN')
    expectError(await t.app.delete(`/office/v1/users/${ownerId}`, { token: admin.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('users', `id = ${ownerId} AND name = '${ws.owner.user.name}' AND deleted_at IS NULL`)).toBe(1)
    expect((await membership(ws.id, ownerId)).is_active).toBe(1)
    expect((await t.app.get('/office/v1/roles', { token: ws.owner.token })).status).toBe(200)
    expectError(await t.app.post('/auth/login', { email: ws.owner.user.email, password: 'taken-over-pw' }), 401, 'INVALID_CREDENTIALS')
  })

  test('an admin may manage ordinary users, and a super_admin may grant super_admin (controls)', async () => {
    const { id } = await addUser(ws, 'user')
    expect((await t.app.put(`/office/v1/users/${id}`, { name: 'Edited By Admin' }, { token: admin.token })).status).toBe(200)
    const promoted = await createUser(ws, { role_id: ws.roles.super_admin })
    expect(promoted.status).toBe(201)
    expect(promoted.body.data.role.slug).toBe('super_admin')
  })

  test('nobody can deactivate, delete or change the role of themselves: 409 CANNOT_MODIFY_SELF, nothing changes', async () => {
    for (const session of [ws.owner, admin]) {
      const self = `/office/v1/users/${session.user.id}`
      const roleBefore = (await membership(ws.id, session.user.id)).role_id
      const otherRole = roleBefore === ws.roles.admin ? ws.roles.manager : ws.roles.admin
      expectError(await t.app.put(self, { is_active: false }, { token: session.token }), 409, 'CANNOT_MODIFY_SELF')
      expectError(await t.app.put(self, { role_id: otherRole }, { token: session.token }), 409, 'CANNOT_MODIFY_SELF')
      expectError(await t.app.delete(self, { token: session.token }), 409, 'CANNOT_MODIFY_SELF')
      const after = await membership(ws.id, session.user.id)
      expect(after).toMatchObject({ role_id: roleBefore, is_active: 1 })
      expect((await t.app.get('/office/v1/users', { token: session.token })).status).toBe(200)
    }
  })

  test('a user may still change their own name', async () => {
    const reply = await t.app.put(`/office/v1/users/${admin.user.id}`, { name: 'Admin Renamed' }, { token: admin.token })
    expect(reply.status).toBe(200)
    expect(reply.body.data.name).toBe('Admin Renamed')
  })
})

describe('users: workspace isolation', () => {
  test('another workspace’s user id answers 404 USER_NOT_FOUND on GET, PUT and DELETE, and nothing changes', async () => {
    const mine = await t.app.workspace()
    const theirs = await t.app.workspace()
    const victim = await addUser(theirs, 'user')
    const audits = await t.app.count('audit_logs')
    const path = `/office/v1/users/${victim.id}`
    expectError(await t.app.get(path, { token: mine.owner.token }), 404, 'USER_NOT_FOUND')
    expectError(await t.app.put(path, { name: 'Stolen', is_active: false }, { token: mine.owner.token }), 404, 'USER_NOT_FOUND')
    expectError(await t.app.delete(path, { token: mine.owner.token }), 404, 'USER_NOT_FOUND')
    expect(await t.app.count('audit_logs')).toBe(audits)
    expect(await t.app.count('users', `id = ${victim.id} AND name = '${victim.name}' AND deleted_at IS NULL`)).toBe(1)
    expect((await membership(theirs.id, victim.id)).is_active).toBe(1)
    expect(await t.app.count('memberships', `user_id = ${victim.id} AND workspace_id = ${mine.id}`)).toBe(0)
    expect((await t.app.login(victim.email)).user.workspace_id).toBe(theirs.id)
    const listed = await t.app.get('/office/v1/users?limit=100', { token: mine.owner.token })
    expect(listed.body.data.map((user: { id: number }) => user.id)).not.toContain(victim.id)
  })
})

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

describe('workspaces', () => {
  test('GET /office/v1/workspaces lists the accessible workspaces with the caller’s role in each', async () => {
    const ws = await t.app.workspace()
    await t.app.workspace() // a stranger's workspace must not show
    const second = await t.app.post('/office/v1/workspaces', { name: unique('Branch') }, { token: ws.owner.token })
    expect(second.status).toBe(201)
    const reply = await t.app.get('/office/v1/workspaces', { token: ws.owner.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('LIST_OK')
    expect(reply.body.meta.total).toBe(2)
    const rows = reply.body.data.map((row: { id: number; role: string; name: string }) => ({ id: row.id, role: row.role }))
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: ws.id, role: 'super_admin' },
        { id: second.body.data.id, role: 'super_admin' },
      ]),
    )
    expect(rows).toHaveLength(2)
    const manager = await t.app.member(ws, 'manager')
    const managerView = await t.app.get('/office/v1/workspaces', { token: manager.token })
    expect(managerView.body.data.map((row: { id: number; role: string }) => ({ id: row.id, role: row.role }))).toEqual([{ id: ws.id, role: 'manager' }])
  })

  test('POST /office/v1/workspaces by a super_admin answers 201 WORKSPACE_CREATED; the new workspace has the built-in roles and the caller as super_admin', async () => {
    const ws = await t.app.workspace()
    const before = await t.app.count('workspaces')
    const reply = await t.app.post('/office/v1/workspaces', { name: '  Jakarta Branch  ' }, { token: ws.owner.token })
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('WORKSPACE_CREATED')
    const id = reply.body.data.id
    expect(reply.body.data).toMatchObject({ name: 'Jakarta Branch', role: 'super_admin' })
    expect(await t.app.count('workspaces')).toBe(before + 1)
    expect(await t.app.count('roles', `workspace_id = ${id} AND is_builtin = 1`)).toBe(4)
    const member = await membership(id, ws.owner.user.id)
    expect(member.is_active).toBe(1)
    expect(await t.app.count('roles', `id = ${member.role_id} AND slug = 'super_admin'`)).toBe(1)
    expect(await t.app.count('audit_logs', `entity_type = 'workspace' AND entity_id = '${id}' AND action = 'created'`)).toBe(1)
  })

  test('POST /office/v1/workspaces by an admin answers 403 FORBIDDEN and creates nothing', async () => {
    const ws = await t.app.workspace()
    const admin = await t.app.member(ws, 'admin')
    const before = await t.app.count('workspaces')
    expectError(await t.app.post('/office/v1/workspaces', { name: unique('Rogue') }, { token: admin.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('workspaces')).toBe(before)
  })

  test('workspace_id and id in a body are ignored: a record lands in the caller’s workspace', async () => {
    const mine = await t.app.workspace()
    const theirs = await t.app.workspace()
    const groupName = unique('Planted')
    const group = await t.app.post('/office/v1/outlets/channel-groups', { name: groupName, workspace_id: theirs.id, id: 987654 }, { token: mine.owner.token })
    expect(group.status).toBe(201)
    expect(group.body.data.workspace_id).toBe(mine.id)
    expect(group.body.data.id).not.toBe(987654)
    expect(await t.app.count('channel_groups', `name = '${groupName}' AND workspace_id = ${mine.id}`)).toBe(1)
    expect(await t.app.count('channel_groups', `workspace_id = ${theirs.id}`)).toBe(0)
    expect(await t.app.count('channel_groups', 'id = 987654')).toBe(0)

    const role = await t.app.post('/office/v1/roles', { name: unique('Planted Role'), permissions: [], workspace_id: theirs.id }, { token: mine.owner.token })
    expect(role.status).toBe(201)
    expect(await t.app.count('roles', `id = ${role.body.data.id} AND workspace_id = ${mine.id}`)).toBe(1)

    const user = await createUser(mine, { workspace_id: theirs.id }, mine.owner.token)
    expect(user.status).toBe(201)
    expect(await t.app.count('memberships', `user_id = ${user.body.data.id} AND workspace_id = ${mine.id}`)).toBe(1)
    expect(await t.app.count('memberships', `user_id = ${user.body.data.id} AND workspace_id = ${theirs.id}`)).toBe(0)
  })
})

/** The grants of a custom role, as a `memberWithGrants` list. */
const grant = (key: string, access: 'full' | 'view' = 'full', platform: 'web' | 'mobile' = 'web'): Grant => ({ key, platform, access })

const passwordHashOf = async (userId: number) => (await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${userId}`))[0].password_hash
const liveRefreshTokens = (userId: number) => t.app.count('refresh_tokens', `user_id = ${userId} AND revoked_at IS NULL`)

describe("credentials belong to the person: another user's password or email changes only where the caller manages them everywhere", () => {
  // The takeover is replayed over a real socket, as an attacker would.
  const socket = useRealSocket(t)

  async function call(method: string, path: string, body?: unknown, token?: string): Promise<Reply> {
    const response = await fetch(`${socket.base}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, text }
  }

  /** The victim owns workspace A (shared with a co-super_admin) and workspace B (theirs alone). */
  async function victimWithTwoWorkspaces() {
    const shared = await t.app.workspace()
    const own = await t.app.post('/office/v1/workspaces', { name: unique('Private') }, { token: shared.owner.token })
    if (own.status !== 201) throw new Error(own.text)
    const coAdmin = await t.app.member(shared, 'super_admin')
    return { shared, privateId: own.body.data.id as number, victim: shared.owner, coAdmin }
  }

  test('the takeover is refused: a co-super_admin of one shared workspace cannot set the password of a super_admin who has another workspace (403 errors.password), cannot log in as them, cannot reach the other workspace', async () => {
    const { privateId, victim, coAdmin } = await victimWithTwoWorkspaces()
    const hash = await passwordHashOf(victim.user.id)
    const sessions = await liveRefreshTokens(victim.user.id)
    const audits = await t.app.count('audit_logs')

    const errors = expectError(await call('PUT', `/office/v1/users/${victim.user.id}`, { password: 'attacker-chosen-1' }, coAdmin.token), 403, 'FORBIDDEN')
    expect(errors.password).toBeArray()

    // Nothing changed: the hash, the victim's sessions, the audit log.
    expect(await passwordHashOf(victim.user.id)).toBe(hash)
    expect(await liveRefreshTokens(victim.user.id)).toBe(sessions)
    expect(await t.app.count('audit_logs')).toBe(audits)
    // The attacker's password does not open the victim's account; the victim's own still does.
    expectError(await call('POST', '/auth/login', { email: victim.user.email, password: 'attacker-chosen-1' }), 401, 'INVALID_CREDENTIALS')
    expect((await call('POST', '/auth/login', { email: victim.user.email, password: PASSWORD })).status).toBe(200)
    // And the attacker's own session cannot switch into the victim's other workspace.
    expectError(await call('POST', '/auth/switch-workspace', { workspace_id: privateId }, coAdmin.token), 404, 'WORKSPACE_NOT_FOUND')
  })

  test("the same co-super_admin cannot change that person's email either (403 errors.email): a reset mail would go to the attacker", async () => {
    const { victim, coAdmin } = await victimWithTwoWorkspaces()
    const stolen = newEmail('attacker')
    const errors = expectError(await call('PUT', `/office/v1/users/${victim.user.id}`, { email: stolen }, coAdmin.token), 403, 'FORBIDDEN')
    expect(errors.email).toBeArray()
    expect(await t.app.count('users', `id = ${victim.user.id} AND email = '${victim.user.email}'`)).toBe(1)
    expect(await t.app.count('users', `email = '${stolen}'`)).toBe(0)
    // Sending the unchanged email, or editing other fields, is no credential change.
    const renamed = await call('PUT', `/office/v1/users/${victim.user.id}`, { email: victim.user.email, phone: '0815' }, coAdmin.token)
    expect(renamed.status).toBe(200)
  })

  test('a password and email change are allowed when the caller manages the user in every workspace the user belongs to', async () => {
    const { shared, privateId, victim, coAdmin } = await victimWithTwoWorkspaces()
    // Made a super_admin of the victim's other workspace too (no route adds an existing person to a workspace).
    await t.app.db.pragma(
      `INSERT INTO memberships (workspace_id, user_id, role_id, is_active, created_at, updated_at)
       SELECT ${privateId}, ${coAdmin.user.id}, id, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM roles WHERE workspace_id = ${privateId} AND slug = 'super_admin'`,
    )
    const reply = await call('PUT', `/office/v1/users/${victim.user.id}`, { password: 'agreed-new-pass-1' }, coAdmin.token)
    expect(reply.status).toBe(200)
    expect((await t.app.login(victim.user.email, 'agreed-new-pass-1')).user.id).toBe(victim.user.id)
    // An ordinary user of only the shared workspace: its admins may reset them (regression).
    const admin = await t.app.member(shared, 'admin')
    const { id, email } = await addUser(shared, 'user')
    expect((await call('PUT', `/office/v1/users/${id}`, { password: 'reset-by-admin-1', email: `new-${email}` }, admin.token)).status).toBe(200)
    expect((await t.app.login(`new-${email}`, 'reset-by-admin-1')).user.id).toBe(id)
  })

  test('a workspace where the caller is deactivated, or holds less than the user, does not count as managed', async () => {
    const { shared, privateId, victim, coAdmin } = await victimWithTwoWorkspaces()
    const insert = (slug: string, active: 0 | 1) =>
      t.app.db.pragma(
        `INSERT INTO memberships (workspace_id, user_id, role_id, is_active, created_at, updated_at)
         SELECT ${privateId}, ${coAdmin.user.id}, id, ${active}, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM roles WHERE workspace_id = ${privateId} AND slug = '${slug}'`,
      )
    await insert('super_admin', 0)
    expectError(await call('PUT', `/office/v1/users/${victim.user.id}`, { password: 'attacker-chosen-2' }, coAdmin.token), 403, 'FORBIDDEN')
    await t.app.db.pragma(`DELETE FROM memberships WHERE workspace_id = ${privateId} AND user_id = ${coAdmin.user.id}`)
    await insert('admin', 1) // an admin there cannot manage the super_admin victim
    expectError(await call('PUT', `/office/v1/users/${victim.user.id}`, { password: 'attacker-chosen-2' }, coAdmin.token), 403, 'FORBIDDEN')
    expectError(await t.app.post('/auth/login', { email: victim.user.email, password: 'attacker-chosen-2' }), 401, 'INVALID_CREDENTIALS')
    // A deactivated membership of the victim still belongs to them.
    const other = await t.app.workspace()
    const target = await addUser(shared, 'user')
    await t.app.db.pragma(
      `INSERT INTO memberships (workspace_id, user_id, role_id, is_active, created_at, updated_at)
       SELECT ${other.id}, ${target.id}, id, 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM roles WHERE workspace_id = ${other.id} AND slug = 'user'`,
    )
    expectError(await call('PUT', `/office/v1/users/${target.id}`, { password: 'attacker-chosen-3' }, shared.owner.token), 403, 'FORBIDDEN')
  })

  test('nobody changes their own password here without the current one: 403 errors.password, the password stays', async () => {
    const ws = await t.app.workspace()
    const admin = await t.app.member(ws, 'admin')
    for (const session of [ws.owner, admin]) {
      const hash = await passwordHashOf(session.user.id)
      const errors = expectError(await call('PUT', `/office/v1/users/${session.user.id}`, { password: 'self-chosen-pass' }, session.token), 403, 'FORBIDDEN')
      expect(errors.password).toBeArray()
      expect(await passwordHashOf(session.user.id)).toBe(hash)
      expectError(await t.app.post('/auth/login', { email: session.user.email, password: 'self-chosen-pass' }), 401, 'INVALID_CREDENTIALS')
    }
  })

  test('30 simultaneous takeover attempts all answer 403 and change nothing', async () => {
    const { victim, coAdmin } = await victimWithTwoWorkspaces()
    const hash = await passwordHashOf(victim.user.id)
    const audits = await t.app.count('audit_logs')
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.app.put(`/office/v1/users/${victim.user.id}`, i % 2 ? { password: `attacker-pass-${i}` } : { email: newEmail(`attacker${i}`) }, {
          token: coAdmin.token,
        }),
      ),
    )
    expect(replies.map((reply) => `${reply.status} ${reply.body.code}`)).toEqual(Array(30).fill('403 FORBIDDEN'))
    expect(await passwordHashOf(victim.user.id)).toBe(hash)
    expect(await t.app.count('users', `id = ${victim.user.id} AND email = '${victim.user.email}'`)).toBe(1)
    expect(await t.app.count('audit_logs')).toBe(audits)
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

describe('no privilege beyond your own: giving users roles', () => {
  let ws: Workspace
  let manager: Session
  beforeAll(async () => {
    ws = await t.app.workspace()
    // Holds user.manage on web and nothing else.
    manager = await t.app.memberWithGrants(ws, [grant('user.manage')])
  })

  test('a holder of only user.manage cannot create an admin or a super_admin (403 errors.role_id), nothing created', async () => {
    const users = await t.app.count('users')
    for (const slug of ['admin', 'super_admin', 'manager', 'user']) {
      const errors = expectError(await createUser(ws, { role_id: ws.roles[slug] }, manager.token), 403, 'FORBIDDEN')
      expect(errors.role_id).toBeArray()
    }
    expect(await t.app.count('users')).toBe(users)
  })

  test('a holder of only user.manage cannot promote someone to admin or super_admin, nor touch an admin', async () => {
    const limited = await t.app.post('/office/v1/roles', { name: unique('Viewer'), permissions: [grant('user.view', 'view')] }, { token: ws.owner.token })
    const { id } = await addUser(ws, limited.body.data.id)
    for (const slug of ['admin', 'super_admin']) {
      const errors = expectError(await t.app.put(`/office/v1/users/${id}`, { role_id: ws.roles[slug] }, { token: manager.token }), 403, 'FORBIDDEN')
      expect(errors.role_id).toBeArray()
    }
    expect((await membership(ws.id, id)).role_id).toBe(limited.body.data.id)
    const admin = await addUser(ws, 'admin')
    expectError(await t.app.put(`/office/v1/users/${admin.id}`, { role_id: limited.body.data.id }, { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.app.put(`/office/v1/users/${admin.id}`, { is_active: false }, { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.app.delete(`/office/v1/users/${admin.id}`, { token: manager.token }), 403, 'FORBIDDEN')
    expect(await membership(ws.id, admin.id)).toMatchObject({ role_id: ws.roles.admin, is_active: 1 })
  })

  test('allowed: the holder creates and updates users with a role within their own grants', async () => {
    const limited = await t.app.post('/office/v1/roles', { name: unique('Within'), permissions: [grant('user.view', 'view')] }, { token: ws.owner.token })
    const created = await createUser(ws, { role_id: limited.body.data.id }, manager.token)
    expect(created.status).toBe(201)
    expect((await t.app.put(`/office/v1/users/${created.body.data.id}`, { name: 'Within Renamed' }, { token: manager.token })).status).toBe(200)
  })

  test('an admin still creates admins and promotes users to admin or manager (regression)', async () => {
    const admin = await t.app.member(ws, 'admin')
    expect((await createUser(ws, { role_id: ws.roles.admin }, admin.token)).status).toBe(201)
    const { id } = await addUser(ws, 'user')
    expect((await t.app.put(`/office/v1/users/${id}`, { role_id: ws.roles.manager }, { token: admin.token })).status).toBe(200)
    expect((await t.app.put(`/office/v1/users/${id}`, { role_id: ws.roles.admin }, { token: admin.token })).status).toBe(200)
    expect((await membership(ws.id, id)).role_id).toBe(ws.roles.admin)
  })

  test('30 simultaneous escalations (own role widened, admin created, user promoted) all answer 403 and change nothing', async () => {
    const own = await t.app.post(
      '/office/v1/roles',
      { name: unique('Self Widener'), permissions: [grant('role.manage'), grant('user.manage')] },
      { token: ws.owner.token },
    )
    const ownRoleId = own.body.data.id
    const widener = await t.app.member(ws, ownRoleId)
    const { id } = await addUser(ws, 'user')
    const before = { roles: await t.app.rows('roles'), memberships: await t.app.count('memberships'), audits: await t.app.count('audit_logs') }
    const attempts = Array.from({ length: 30 }, (_, i) => {
      if (i % 3 === 0)
        return t.app.put(
          `/office/v1/roles/${ownRoleId}`,
          { permissions: [grant('role.manage'), grant('user.manage'), grant('audit_log.view', 'view')] },
          { token: widener.token },
        )
      if (i % 3 === 1) return createUser(ws, { role_id: ws.roles.admin }, widener.token)
      return t.app.put(`/office/v1/users/${id}`, { role_id: ws.roles.super_admin }, { token: widener.token })
    })
    const replies = await Promise.all(attempts)
    expect(replies.map((reply) => `${reply.status} ${reply.body.code}`)).toEqual(Array(30).fill('403 FORBIDDEN'))
    expect(await t.app.rows('roles')).toEqual(before.roles)
    expect(await t.app.count('memberships')).toBe(before.memberships)
    expect(await t.app.count('audit_logs')).toBe(before.audits)
    expect((await membership(ws.id, id)).role_id).toBe(ws.roles.user)
  })
})
