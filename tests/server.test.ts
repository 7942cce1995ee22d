/**
 * The real server on a free port, spoken to over HTTP, on both database drivers: the README's
 * promise that a fresh database serves the API end to end.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from './harness'

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`HTTP end to end on ${driver}`, () => {
    let harness: TestApp
    let base: string

    beforeAll(async () => {
      harness = await createTestApp({ driver })
      harness.app.listen({ port: 0, hostname: '127.0.0.1' })
      base = `http://127.0.0.1:${harness.app.server!.port}/api`
    })
    afterAll(async () => {
      await harness.app.stop(true)
      await harness.close()
    })

    const call = async (method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      })
      const text = await response.text()
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null }
    }

    test('health, registration, master data, audit log and idempotency over a socket', async () => {
      const health = await call('GET', '/health')
      expect(health.body).toEqual({ success: true, message: 'Service is healthy', code: 'HEALTHY', data: { status: 'ok', db: 'ok' } })

      const registered = await call('POST', '/auth/register', { name: 'Rina', email: `rina-${driver}@example.com`, password: 'password123', workspace_name: 'Toko' })
      expect(registered.status).toBe(201)
      const token = registered.body.data.token

      const login = await call('POST', '/auth/login', { email: `rina-${driver}@example.com`, password: 'password123' }, undefined, { 'user-agent': 'field-app/2.1' })
      expect(login.body.code).toBe('LOGIN_SUCCESS')

      const group = await call('POST', '/office/v1/outlets/channel-groups', { name: 'General Trade' }, token, { 'x-idempotency-key': 'key-1' })
      expect(group.status).toBe(201)
      const again = await call('POST', '/office/v1/outlets/channel-groups', { name: 'General Trade' }, token, { 'x-idempotency-key': 'key-1' })
      expect(again.status).toBe(204)
      expect(again.headers.get('x-idempotency-code')).toBe('IDEMPOTENT_DUPLICATE')

      const channel = await call('POST', '/office/v1/outlets/channels', { name: 'Warung', channel_group_id: group.body.data.id }, token)
      expect(channel.body.data.channel_group.name).toBe('General Trade')
      const list = await call('GET', '/office/v1/outlets/channels?keyword=war', undefined, token)
      expect(list.body.meta.total).toBe(1)

      const logs = await call('GET', '/office/v1/audit-logs?action=login', undefined, token)
      expect(logs.body.data.data[0].metadata).toMatchObject({ ip: '127.0.0.1', user_agent: 'field-app/2.1' })

      const missing = await call('GET', '/office/v1/outlets/channels/999', undefined, token)
      expect(missing.status).toBe(404)
      expect(missing.headers.get('x-request-id')).toBeString()
    })

    test('a body above the limit is refused by the server', async () => {
      const response = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'x@example.com', password: 'x'.repeat(11 * 1024 * 1024) }),
      })
      expect(response.status).toBe(413)
    })
  })
}
