/**
 * Users (docs/API.md §Roles and permissions, §Errors, §Audit log): user CRUD with its escalation and
 * self-lockout guards, who may change another user's credentials, giving users roles, the list's
 * filters and last login. Tenancy: another workspace's id behaves as a missing one.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/lib/clock'
import * as make from './factories'
import { data, grant, ids, manualClock, newEmail, PASSWORD, type Row, sorted } from './factories'
import { expectError, unique, useRealSocket, useTestApp, type Reply, type Session, type Workspace } from './harness'

const t = useTestApp()

const NOW = '2026-03-10T10:00:00.000Z'

const createUser = (ws: Workspace, overrides: Record<string, unknown> = {}, token = ws.owner.token) => make.newUser(t.app, ws, overrides, token)
const addUser = (ws: Workspace, role = 'user', overrides: Record<string, unknown> = {}) => make.addUser(t.app, ws, role, overrides)
/** Audit rows of one entity, oldest first, with their JSON columns parsed. */
const auditOf = (entityType: string, entityId: number, action?: string) => make.auditRows(t.app, entityType, entityId, action)
const membership = (workspaceId: number, userId: number) => make.membership(t.app, workspaceId, userId)

/** Every object key at any depth of a JSON value. */
function keysDeep(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) keysDeep(item, into)
  } else if (value && typeof value === 'object') {
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
    // Sending the unchanged email, or editing this workspace's membership fields, is no change to the person.
    const unchanged = await call('PUT', `/office/v1/users/${victim.user.id}`, { email: victim.user.email, team_ids: [] }, coAdmin.token)
    expect(unchanged.status).toBe(200)
  })

  test("nor rename or re-phone them (403 errors.name / errors.phone): the person's fields are seen by every workspace; nothing changes, no audit entry", async () => {
    const { victim, coAdmin } = await victimWithTwoWorkspaces()
    const detail = async () => (await t.app.get(`/office/v1/users/${victim.user.id}`, { token: coAdmin.token })).body.data
    const before = await detail()
    const audits = await t.app.count('audit_logs')
    for (const body of [{ name: 'Renamed By Co-admin' }, { phone: '0812-attacker' }, { name: 'Both', phone: '0812-both' }]) {
      const errors = expectError(await call('PUT', `/office/v1/users/${victim.user.id}`, body, coAdmin.token), 403, 'FORBIDDEN')
      expect(Object.keys(errors).sort()).toEqual(Object.keys(body).sort())
    }
    expect(await detail()).toEqual(before)
    expect(await t.app.count('audit_logs')).toBe(audits)
    // The same name sent back, and the membership fields (role, active flag, teams) of this workspace, stay the co-admin's to change.
    const team = await t.app.post('/office/v1/teams', { name: unique('Team') }, { token: coAdmin.token })
    const membershipOnly = await call('PUT', `/office/v1/users/${victim.user.id}`, { name: before.name, team_ids: [team.body.data.id] }, coAdmin.token)
    expect(membershipOnly.status).toBe(200)
    expect(membershipOnly.body.data.team_ids).toEqual([team.body.data.id])
  })

  test('a rename and re-phone are allowed when the caller manages the user in every workspace the user belongs to', async () => {
    const { privateId, victim, coAdmin } = await victimWithTwoWorkspaces()
    await t.app.db.pragma(
      `INSERT INTO memberships (workspace_id, user_id, role_id, is_active, created_at, updated_at)
       SELECT ${privateId}, ${coAdmin.user.id}, id, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM roles WHERE workspace_id = ${privateId} AND slug = 'super_admin'`,
    )
    const reply = await call('PUT', `/office/v1/users/${victim.user.id}`, { name: 'Agreed New Name', phone: '0812-agreed' }, coAdmin.token)
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ name: 'Agreed New Name', phone: '0812-agreed' })
    expect((await auditOf('user', victim.user.id, 'updated')).length).toBeGreaterThan(0)
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
    // The new password ended the victim's sessions: they sign in again with it.
    const relogged = await t.app.login(victim.user.email, 'agreed-new-pass-1')
    expect(relogged.user.id).toBe(victim.user.id)
    // An ordinary user of only the shared workspace: its admins may reset them (regression).
    const sharedNow = { ...shared, owner: relogged }
    const admin = await t.app.member(sharedNow, 'admin')
    const { id, email } = await addUser(sharedNow, 'user')
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

describe('Users: last login and list filters', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  const admin = () => ws.owner.token

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
  })

  test('last_login_at is null until the first login and set to the login time on each login', async () => {
    const email = `${unique('login')}@example.com`
    const created = data(
      await t.app.post('/office/v1/users', { name: 'Late Logger', email, password: 'password123', role_id: ws.roles.user }, { token: admin() }),
    )
    expect(created.last_login_at).toBeNull()
    expect(data(await t.app.get(`/office/v1/users/${created.id}`, { token: admin() }), 200).last_login_at).toBeNull()

    manualClock(t.app).advance(60_000)
    await t.app.login(email)
    const firstLogin = t.app.clock.now().toISOString()
    expect(data(await t.app.get(`/office/v1/users/${created.id}`, { token: admin() }), 200).last_login_at).toBe(firstLogin)

    manualClock(t.app).advance(5 * 60_000)
    await t.app.login(email)
    const secondLogin = t.app.clock.now().toISOString()
    expect(data(await t.app.get(`/office/v1/users/${created.id}`, { token: admin() }), 200).last_login_at).toBe(secondLogin)
    // A failed login does not count.
    manualClock(t.app).advance(60_000)
    expectError(await t.app.post('/auth/login', { email, password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS')
    const listed = (await t.app.get(`/office/v1/users?keyword=${encodeURIComponent(email)}`, { token: admin() })).body.data
    expect(listed.map((user: Row) => [user.id, user.last_login_at])).toEqual([[created.id, secondLogin]])
  })

  test('user list filters: keyword (name and email, case-insensitive), role_id, team_id, is_active, combined', async () => {
    ws = await t.app.workspace()
    const make = async (name: string, email: string, role: string, workspace = ws) =>
      data(await t.app.post('/office/v1/users', { name, email, password: 'password123', role_id: workspace.roles[role] }, { token: workspace.owner.token }))
    const alpha = await make('Alpha Qxzebra', `${unique('alpha')}@example.com`, 'user')
    const beta = await make('Beta Person', `qxzebra-${unique('beta')}@example.com`, 'manager')
    const gamma = await make('Gamma Person', `${unique('gamma')}@example.com`, 'user')
    await make('Qxzebra Foreign', `${unique('foreign')}@example.com`, 'user', other)
    const team = data(await t.app.post('/office/v1/teams', { name: unique('Team'), user_ids: [alpha.id, gamma.id] }, { token: admin() }))
    data(await t.app.put(`/office/v1/users/${gamma.id}`, { is_active: false }, { token: admin() }), 200)

    const list = async (query: string) => {
      const reply = await t.app.get(`/office/v1/users?limit=100&${query}`, { token: admin() })
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe('LIST_OK')
      expect(reply.body.meta.total).toBe(reply.body.data.length)
      return sorted(ids(reply.body.data))
    }
    expect(await list('keyword=QXZEBRA')).toEqual(sorted([alpha.id, beta.id]))
    expect(await list('keyword=gamma person')).toEqual([gamma.id])
    expect(await list(`role_id=${ws.roles.manager}`)).toEqual([beta.id])
    expect(await list(`role_id=${ws.roles.user}`)).toEqual(sorted([alpha.id, gamma.id]))
    expect(await list(`team_id=${team.id}`)).toEqual(sorted([alpha.id, gamma.id]))
    expect(await list('is_active=false')).toEqual([gamma.id])
    expect(await list('is_active=true')).toEqual(sorted([ws.owner.user.id, alpha.id, beta.id]))
    expect(await list(`is_active=true&team_id=${team.id}`)).toEqual([alpha.id])
    expect(await list(`keyword=qxzebra&role_id=${ws.roles.user}`)).toEqual([alpha.id])
    expectError(await t.app.get('/office/v1/users?is_active=maybe', { token: admin() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.get('/office/v1/users?role_id=abc', { token: admin() }), 400, 'VALIDATION_ERROR')
  })
})
