/**
 * The caller's profile (docs/API.md §Other areas, §Audit log): reading and changing one's own name,
 * photo, password and time zone.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { expectError, useTestApp, type Workspace } from './harness'
import { manualClock, data, auditRows } from './factories'

const NOW = '2026-03-10T10:00:00.000Z'

describe('Profile', () => {
  const t = useTestApp()
  let ws: Workspace

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
  })

  test("GET /app/v1/profile answers the caller's own data and never a password or hash", async () => {
    const me = await t.app.member(ws, 'user', { name: 'Pat Field' })
    await t.app.member(ws, 'user', { name: 'Someone Else' })
    const reply = await t.app.get('/app/v1/profile', { token: me.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      code: 'SUCCESS',
      data: { id: me.user.id, name: 'Pat Field', email: me.user.email, phone: null, role: { slug: 'user' }, is_active: true },
    })
    expect(reply.text).not.toMatch(/password|hash|\$argon2|\$2[aby]\$/i)
    const [stored] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${me.user.id}`)
    expect(reply.text).not.toContain(String(stored.password_hash))
  })

  test('PUT /app/v1/profile {name, phone} → 200 PROFILE_UPDATED; audit `updated` on the user with only the changed fields', async () => {
    const me = await t.app.member(ws, 'user', { name: 'Rina Field' })
    const reply = await t.app.put('/app/v1/profile', { name: 'Rina Field', phone: '0812-3456' }, { token: me.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ code: 'PROFILE_UPDATED', data: { id: me.user.id, name: 'Rina Field', phone: '0812-3456' } })
    expect(reply.text).not.toMatch(/password|hash/i)
    expect(data(await t.app.get('/app/v1/profile', { token: me.token }), 200).phone).toBe('0812-3456')

    // Fields other than name and phone are ignored, never stored.
    const [before] = await t.app.db.pragma(`SELECT email, password_hash FROM users WHERE id = ${me.user.id}`)
    const roleBefore = await t.app.db.pragma(`SELECT role_id, is_active FROM memberships WHERE user_id = ${me.user.id}`)
    const renamed = await t.app.put(
      '/app/v1/profile',
      { name: '  Rina Lapangan ', email: 'taken-over@example.com', role_id: ws.roles.super_admin, is_active: false, password_hash: 'x' },
      { token: me.token },
    )
    expect(await t.app.db.pragma(`SELECT email, password_hash FROM users WHERE id = ${me.user.id}`)).toEqual([before])
    expect(await t.app.db.pragma(`SELECT role_id, is_active FROM memberships WHERE user_id = ${me.user.id}`)).toEqual(roleBefore)
    expect(renamed.body).toMatchObject({ code: 'PROFILE_UPDATED', data: { name: 'Rina Lapangan', phone: '0812-3456' } })

    const log = (await auditRows(t.app, 'user', me.user.id)).filter((row) => row.action === 'updated')
    expect(log).toHaveLength(2)
    expect(log[0]).toMatchObject({ actor_id: me.user.id, old_values: { phone: null }, new_values: { phone: '0812-3456' } })
    expect(Object.keys(log[0].new_values)).toEqual(['phone'])
    expect(log[1]).toMatchObject({ entity_name: 'Rina Lapangan', old_values: { name: 'Rina Field' }, new_values: { name: 'Rina Lapangan' } })
    expect(Object.keys(log[1].new_values)).toEqual(['name'])
  })

  test('PUT /app/v1/profile with an empty body or a blank name → 400 VALIDATION_ERROR; nothing changes and nothing is audited', async () => {
    const me = await t.app.member(ws, 'user', { name: 'Steady Person' })
    const before = [await t.app.db.pragma(`SELECT name, phone, updated_at FROM users WHERE id = ${me.user.id}`), await t.app.count('audit_logs')]
    expectError(await t.app.put('/app/v1/profile', {}, { token: me.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put('/app/v1/profile', { name: '   ' }, { token: me.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put('/app/v1/profile', { email: 'new@example.com' }, { token: me.token }), 400, 'VALIDATION_ERROR')
    expect([await t.app.db.pragma(`SELECT name, phone, updated_at FROM users WHERE id = ${me.user.id}`), await t.app.count('audit_logs')]).toEqual(before)
  })

  test('PUT /app/v1/profile/password with a wrong current password → 400 errors.current_password; nothing changes', async () => {
    const me = await t.app.member(ws, 'user')
    const other = await t.app.login(me.user.email)
    const snapshot = async () => [
      await t.app.db.pragma(`SELECT password_hash, updated_at FROM users WHERE id = ${me.user.id}`),
      await t.app.count('refresh_tokens', `user_id = ${me.user.id} AND revoked_at IS NOT NULL`),
      await t.app.count('audit_logs'),
    ]
    const before = await snapshot()
    const errors = expectError(
      await t.app.put('/app/v1/profile/password', { current_password: 'not-my-password', new_password: 'brand-new-pass1' }, { token: me.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toEqual(['current_password'])
    expect(await snapshot()).toEqual(before)
    expect((await t.app.post('/auth/login', { email: me.user.email, password: 'password123' })).status).toBe(200)
    expectError(await t.app.post('/auth/login', { email: me.user.email, password: 'brand-new-pass1' }), 401, 'INVALID_CREDENTIALS')
    expect((await t.app.post('/auth/refresh', { refresh_token: other.refresh_token })).status).toBe(200)
  })

  test('password change → 200 PASSWORD_CHANGED: the new password logs in, the old does not; this session still refreshes, other sessions are revoked (401)', async () => {
    const first = await t.app.member(ws, 'user')
    const current = await t.app.login(first.user.email)
    const second = await t.app.login(first.user.email)
    const reply = await t.app.put('/app/v1/profile/password', { current_password: 'password123', new_password: 'brand-new-pass1' }, { token: current.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'PASSWORD_CHANGED' })

    expectError(await t.app.post('/auth/login', { email: first.user.email, password: 'password123' }), 401, 'INVALID_CREDENTIALS')
    expect((await t.app.post('/auth/login', { email: first.user.email, password: 'brand-new-pass1' })).status).toBe(200)

    const refreshed = await t.app.post('/auth/refresh', { refresh_token: current.refresh_token })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.code).toBe('TOKEN_REFRESHED')
    // The rotated token of this session keeps working too.
    expect((await t.app.post('/auth/refresh', { refresh_token: refreshed.body.data.refresh_token })).status).toBe(200)
    expectError(await t.app.post('/auth/refresh', { refresh_token: second.refresh_token }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/refresh', { refresh_token: first.refresh_token }), 401, 'UNAUTHORIZED')

    const log = (await auditRows(t.app, 'user', first.user.id)).filter((row) => row.action === 'updated')
    expect(log).toHaveLength(1)
    expect(JSON.stringify(log[0])).not.toMatch(/brand-new-pass1|password123|\$argon2/)
  })

  test('a password change made with an access token obtained by refresh keeps that session (its family) and revokes the others', async () => {
    const me = await t.app.member(ws, 'user')
    const elsewhere = await t.app.login(me.user.email)
    const refreshed = data(await t.app.post('/auth/refresh', { refresh_token: me.refresh_token }), 200)
    const reply = await t.app.put('/app/v1/profile/password', { current_password: 'password123', new_password: 'another-pass-9' }, { token: refreshed.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('PASSWORD_CHANGED')
    expect((await t.app.post('/auth/refresh', { refresh_token: refreshed.refresh_token })).status).toBe(200)
    expectError(await t.app.post('/auth/refresh', { refresh_token: elsewhere.refresh_token }), 401, 'UNAUTHORIZED')
  })
})
