/**
 * Which client address the service believes (README.md §Configuration, TRUST_PROXY): only what a
 * trusted proxy wrote. Every limiter keys on that address and every audit entry records it, so a
 * client that could choose it would defeat the limits and falsify the audit trail.
 */
import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config/env'
import { clientIp } from '../src/platform/http/http'
import { auditRows } from './factories'
import { createTestApp, expectError, unique, type TestApp } from './harness'

const PASSWORD = 'password123'

/** A fresh app with TRUST_PROXY set, and one member who can log in. */
async function appTrusting(trustProxy: string) {
  const app = await createTestApp({ env: { TRUST_PROXY: trustProxy } })
  const ws = await app.workspace()
  const email = `${unique('member')}@example.com`
  const created = await app.post('/office/v1/users', { name: 'Member', email, password: PASSWORD, role_id: ws.roles.user }, { token: ws.owner.token })
  if (created.status !== 201) throw new Error(created.text)
  return { app, email, userId: created.body.data.id as number }
}

const loginFrom = (app: TestApp, email: string, password: string, headers: Record<string, string>) => app.post('/auth/login', { email, password }, { headers })

/** 10 wrong passwords (the email+IP limit), each with other `headers`; then the right one. */
async function failTenTimesThenLogin(app: TestApp, email: string, headersOf: (i: number) => Record<string, string>, last: Record<string, string>) {
  for (let i = 0; i < 10; i++) expectError(await loginFrom(app, email, 'wrong-password', headersOf(i)), 401, 'INVALID_CREDENTIALS')
  return loginFrom(app, email, PASSWORD, last)
}

describe('TRUST_PROXY reads false, true, a number of hops, or fly', () => {
  test('false/0/no: none (the default); true/yes/1: one hop; a number: that many hops; fly: Fly-Client-IP; anything else stops the start', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(0)
    for (const off of ['false', '0', 'no']) expect(loadConfig({ TRUST_PROXY: off }).TRUST_PROXY).toBe(0)
    for (const one of ['true', 'yes', '1']) expect(loadConfig({ TRUST_PROXY: one }).TRUST_PROXY).toBe(1)
    expect(loadConfig({ TRUST_PROXY: '3' }).TRUST_PROXY).toBe(3)
    expect(loadConfig({ TRUST_PROXY: 'fly' }).TRUST_PROXY).toBe('fly')
    for (const bad of ['-1', 'cloudflare', '1.5', '100']) expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError)
  })

  test('the client is the N-th X-Forwarded-For entry from the right; fewer entries fall back to the socket; Fly-Client-IP only with fly', () => {
    const headers = (values: Record<string, string>) => new Headers(values)
    const xff = headers({ 'x-forwarded-for': 'spoofed, 198.51.100.7, 10.0.0.2', 'fly-client-ip': '192.0.2.99' })
    expect(clientIp(xff, '10.0.0.1', 0)).toBe('10.0.0.1')
    expect(clientIp(xff, '10.0.0.1', 1)).toBe('10.0.0.2')
    expect(clientIp(xff, '10.0.0.1', 2)).toBe('198.51.100.7')
    expect(clientIp(xff, '10.0.0.1', 4)).toBe('10.0.0.1')
    expect(clientIp(xff, '10.0.0.1', 'fly')).toBe('192.0.2.99')
    expect(clientIp(headers({ 'x-forwarded-for': '198.51.100.7' }), '10.0.0.1', 'fly')).toBe('10.0.0.1')
    // Two header lines are one list, in order.
    const twoLines = new Headers()
    twoLines.append('x-forwarded-for', 'spoofed')
    twoLines.append('x-forwarded-for', '198.51.100.8')
    expect(clientIp(twoLines, null, 1)).toBe('198.51.100.8')
    expect(clientIp(new Headers(), null, 1)).toBe(null)
  })
})

describe('a client cannot choose its address by writing the headers a proxy writes', () => {
  test('TRUST_PROXY=true: rotating the left-most X-Forwarded-For entry does not escape the login limit, nor change the audited ip', async () => {
    const { app, email, userId } = await appTrusting('true')
    try {
      const via = (spoof: string) => ({ 'x-forwarded-for': `${spoof}, 203.0.113.5` })
      const reply = await failTenTimesThenLogin(app, email, (i) => via(`198.51.100.${i + 1}`), via('192.0.2.200'))
      expectError(reply, 429, 'RATE_LIMITED')
      // Another client address (the right-most entry the proxy appended) is another limiter key.
      const elsewhere = await loginFrom(app, email, PASSWORD, { 'x-forwarded-for': '198.51.100.1, 203.0.113.6' })
      expect(elsewhere.status).toBe(200)
      const [entry] = (await auditRows(app, 'user', userId, 'login')).slice(-1)
      expect(entry.metadata.ip).toBe('203.0.113.6')
    } finally {
      await app.close()
    }
  })

  test('Fly-Client-IP is ignored unless TRUST_PROXY=fly', async () => {
    const { app, email, userId } = await appTrusting('true')
    try {
      const via = (fly: string) => ({ 'fly-client-ip': fly, 'x-forwarded-for': '203.0.113.5' })
      expectError(await failTenTimesThenLogin(app, email, (i) => via(`198.51.100.${i + 1}`), via('192.0.2.200')), 429, 'RATE_LIMITED')
      expect((await loginFrom(app, email, PASSWORD, { 'fly-client-ip': '192.0.2.201', 'x-forwarded-for': '203.0.113.9' })).status).toBe(200)
      const [entry] = (await auditRows(app, 'user', userId, 'login')).slice(-1)
      expect(entry.metadata.ip).toBe('203.0.113.9')
    } finally {
      await app.close()
    }
  })

  test('TRUST_PROXY=fly: Fly-Client-IP is the client and X-Forwarded-For is not read', async () => {
    const { app, email, userId } = await appTrusting('fly')
    try {
      const via = (xff: string) => ({ 'fly-client-ip': '203.0.113.5', 'x-forwarded-for': `${xff}, 66.241.124.1` })
      expectError(await failTenTimesThenLogin(app, email, (i) => via(`198.51.100.${i + 1}`), via('192.0.2.200')), 429, 'RATE_LIMITED')
      const ok = await loginFrom(app, email, PASSWORD, { 'fly-client-ip': '203.0.113.6', 'x-forwarded-for': '203.0.113.5, 66.241.124.1' })
      expect(ok.status).toBe(200)
      const [entry] = (await auditRows(app, 'user', userId, 'login')).slice(-1)
      expect(entry.metadata.ip).toBe('203.0.113.6')
    } finally {
      await app.close()
    }
  })

  test('TRUST_PROXY=2: the second entry from the right is the client; the entries left of it are the client’s own and ignored', async () => {
    const { app, email, userId } = await appTrusting('2')
    try {
      const via = (spoof: string) => ({ 'x-forwarded-for': `${spoof}, 203.0.113.5, 10.0.0.2` })
      expectError(await failTenTimesThenLogin(app, email, (i) => via(`198.51.100.${i + 1}`), via('192.0.2.200')), 429, 'RATE_LIMITED')
      expect((await loginFrom(app, email, PASSWORD, { 'x-forwarded-for': '203.0.113.5, 203.0.113.7, 10.0.0.2' })).status).toBe(200)
      const [entry] = (await auditRows(app, 'user', userId, 'login')).slice(-1)
      expect(entry.metadata.ip).toBe('203.0.113.7')
    } finally {
      await app.close()
    }
  })
})
