/**
 * Workspaces (docs/API.md §Roles and permissions, §Errors): settings, multi-workspace access and
 * switching. Tenancy: another workspace's id behaves as a missing one.
 */
import { describe, expect, test } from 'bun:test'
import * as make from './factories'
import { expectError, unique, useTestApp, type Workspace } from './harness'

const t = useTestApp()

const createUser = (ws: Workspace, overrides: Record<string, unknown> = {}, token = ws.owner.token) => make.newUser(t.app, ws, overrides, token)
const membership = (workspaceId: number, userId: number) => make.membership(t.app, workspaceId, userId)

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

describe('workspace currency and journey plan horizon (docs/API.md §Workspaces)', () => {
  test('a new workspace has currency IDR and a 7-day horizon; both are set through the settings and audited with old and new values', async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const [listed] = (await t.app.get('/office/v1/workspaces', { token })).body.data
    expect(listed).toMatchObject({ id: ws.id, currency: 'IDR', journey_plan_horizon_days: 7 })
    const changed = await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, { currency: 'USD', journey_plan_horizon_days: 14 }, { token })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ code: 'WORKSPACE_UPDATED', data: { currency: 'USD', journey_plan_horizon_days: 14 } })
    const log = await t.app.get('/office/v1/audit-logs?entity_type=workspace&action=updated', { token })
    const [entry] = log.body.data.data
    expect(entry.old_values).toEqual({ currency: 'IDR', journey_plan_horizon_days: 7 })
    expect(entry.new_values).toEqual({ currency: 'USD', journey_plan_horizon_days: 14 })
  })

  test('a currency is ISO 4217 in upper case: "idr", "rupiah", "XYZ" → 400 errors.currency; a horizon outside 1–31 → 400; nothing changes', async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const before = await t.app.rows('workspaces')
    for (const currency of ['idr', 'rupiah', 'XYZ', 'Rp', '', 42, null]) {
      const errors = expectError(await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, { currency }, { token }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['currency'])
    }
    for (const days of [0, 32, 1.5, '7']) {
      const errors = expectError(
        await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, { journey_plan_horizon_days: days }, { token }),
        400,
        'VALIDATION_ERROR',
      )
      expect(Object.keys(errors)).toEqual(['journey_plan_horizon_days'])
    }
    expect(await t.app.rows('workspaces')).toEqual(before)
  })
})
