/**
 * The shared security suite, run over every route the app serves (new routes are picked up
 * automatically): no token → 401; a role without the route's permission → 403; another
 * workspace's ids → 404 with nothing changed. Unkey's common-tests and Cal.com's "an ordinary
 * member gets 403 on every endpoint" are the models.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { SignJWT } from 'jose'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'

const t = useTestApp()

interface RouteInfo {
  method: string
  path: string
  permission: string
}

function routes(): RouteInfo[] {
  return t.app.app.routes
    .map((route) => ({
      method: route.method,
      path: route.path,
      permission: ((route.hooks as { detail?: Record<string, unknown> }).detail?.['x-permission'] as string) ?? 'none',
    }))
    .filter((route) => !route.path.startsWith('/api/docs'))
}

const concrete = (path: string, id: number | string = 1) => path.replace(/^\/api/, '').replace(/:[a-z_]+/g, String(id))

let a: Workspace
let b: Workspace
let powerless: Session

beforeAll(async () => {
  a = await t.app.workspace()
  b = await t.app.workspace()
  powerless = await t.app.memberWithGrants(a, [])
})

describe('every route declares how it is protected', () => {
  test('each route is public, authenticated-only or names a permission', () => {
    const undeclared = routes().filter((r) => r.permission === 'none' && r.path !== '/api/health')
    expect(undeclared).toEqual([])
  })

  test('only the auth endpoints and health are reachable without a token', () => {
    const open = routes()
      .filter((r) => r.permission === 'public' || r.permission === 'none')
      .map((r) => r.path)
    expect(open.every((path) => path.startsWith('/api/auth/') || path === '/api/health')).toBe(true)
  })
})

describe('no token → 401', () => {
  test('every protected route answers 401 UNAUTHORIZED without a token', async () => {
    const failures: string[] = []
    for (const route of routes().filter((r) => r.permission !== 'public' && r.permission !== 'none')) {
      const reply = await t.app.request(route.method, concrete(route.path), { body: route.method === 'GET' ? undefined : {} })
      if (reply.status !== 401 || reply.body?.code !== 'UNAUTHORIZED') failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
    }
    expect(failures).toEqual([])
  })

  test('a bad, foreign-signed, alg:none or expired token is refused on every protected route', async () => {
    const foreign = await new SignJWT({ sub: String(a.owner.user.id), wid: a.id, role: 'super_admin', jti: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'))
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: String(a.owner.user.id), wid: a.id, role: 'super_admin', jti: 'x', exp: 9_999_999_999 }),
    ).toString('base64url')}.`
    const [{ value: secret }] = await t.app.db.pragma("SELECT value FROM app_settings WHERE key = 'jwt_secret'")
    const expired = await new SignJWT({ sub: String(a.owner.user.id), wid: a.id, role: 'super_admin', jti: 'y' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(String(secret)))
    const protectedRoutes = routes().filter((r) => r.permission !== 'public' && r.permission !== 'none')
    for (const token of ['garbage', foreign, none, `${a.owner.token}x`, expired]) {
      for (const route of protectedRoutes) {
        const reply = await t.app.request(route.method, concrete(route.path), { token, body: route.method === 'GET' ? undefined : {} })
        expect(`${route.method} ${route.path} ${reply.status}`).toBe(`${route.method} ${route.path} 401`)
      }
    }
  })
})

describe('missing permission → 403', () => {
  test('a user whose role grants nothing gets 403 FORBIDDEN on every permission-guarded route', async () => {
    const failures: string[] = []
    for (const route of routes().filter((r) => r.permission.includes(':'))) {
      const reply = await t.app.request(route.method, concrete(route.path), { token: powerless.token, body: route.method === 'GET' ? undefined : {} })
      if (reply.status !== 403 || reply.body?.code !== 'FORBIDDEN') failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
    }
    expect(failures).toEqual([])
  })

  test('the field user role gets 403 on every /office route that needs a permission', async () => {
    const fieldUser = await t.app.member(a, 'user')
    const failures: string[] = []
    for (const route of routes().filter((r) => r.path.startsWith('/api/office/') && r.permission.includes(':'))) {
      const reply = await t.app.request(route.method, concrete(route.path), { token: fieldUser.token, body: route.method === 'GET' ? undefined : {} })
      if (reply.status !== 403) failures.push(`${route.method} ${route.path} → ${reply.status}`)
    }
    expect(failures).toEqual([])
  })

  test('a manager gets 403 on every office write that needs a .manage key', async () => {
    const manager = await t.app.member(a, 'manager')
    const failures: string[] = []
    for (const route of routes().filter((r) => r.path.startsWith('/api/office/') && r.permission.includes('.manage'))) {
      const reply = await t.app.request(route.method, concrete(route.path), { token: manager.token, body: {} })
      if (reply.status !== 403) failures.push(`${route.method} ${route.path} → ${reply.status}`)
    }
    expect(failures).toEqual([])
  })
})

/**
 * For every route with an id in its path: how to create such a thing in workspace A, and a valid
 * body for writes. A route missing here fails the coverage test below.
 */
const resources: Record<string, { create(): Promise<number>; body?: Record<string, unknown>; table: string }> = {
  '/api/office/v1/outlets/channel-groups/:id': {
    table: 'channel_groups',
    create: async () => (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/outlets/channels/:id': {
    table: 'channels',
    create: async () => {
      const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data
      return (await t.app.post('/office/v1/outlets/channels', { name: unique('C'), channel_group_id: group.id }, { token: a.owner.token })).body.data.id
    },
    body: { name: 'hijacked' },
  },
  '/api/office/v1/outlets/accounts/:id': {
    table: 'accounts',
    create: async () => {
      const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data
      const channel = (await t.app.post('/office/v1/outlets/channels', { name: unique('C'), channel_group_id: group.id }, { token: a.owner.token })).body.data
      return (await t.app.post('/office/v1/outlets/accounts', { name: unique('A'), channel_id: channel.id }, { token: a.owner.token })).body.data.id
    },
    body: { name: 'hijacked' },
  },
  '/api/office/v1/outlets/sub-areas/:id': {
    table: 'sub_areas',
    create: async () => (await t.app.post('/office/v1/outlets/sub-areas', { name: unique('S') }, { token: a.owner.token })).body.data.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/roles/:id': {
    table: 'roles',
    create: async () => (await t.app.post('/office/v1/roles', { name: unique('Role'), permissions: [] }, { token: a.owner.token })).body.data.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/users/:id': {
    table: 'users',
    create: async () => (await t.app.member(a, 'user')).user.id,
    body: { name: 'hijacked' },
  },
  '/api/office/v1/audit-logs/:id': {
    table: 'audit_logs',
    create: async () => {
      const logs = await t.app.get('/office/v1/audit-logs?limit=1', { token: a.owner.token })
      return logs.body.data.data[0].id
    },
  },
}

describe("another workspace's ids → 404, nothing changed", () => {
  const idRoutes = () => routes().filter((r) => r.path.includes('/:') && r.permission !== 'public')
  const mirrored = (path: string) => path.replace('/api/app/', '/api/office/')

  test('every route with an id has a resource factory in this suite', () => {
    const missing = [...new Set(idRoutes().map((r) => mirrored(r.path)))].filter((path) => !resources[path])
    expect(missing).toEqual([])
  })

  test('GET, PUT and DELETE with workspace A ids from workspace B answer 404 and leave the row as it was', async () => {
    const failures: string[] = []
    for (const route of idRoutes()) {
      const resource = resources[mirrored(route.path)]
      if (!resource) continue
      const id = await resource.create()
      const [before] = await t.app.db.pragma(`SELECT * FROM ${resource.table} WHERE id = ${id}`)
      const reply = await t.app.request(route.method, concrete(route.path, id), {
        token: b.owner.token,
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : resource.body,
      })
      if (reply.status !== 404 || !String(reply.body?.code).endsWith('_NOT_FOUND')) {
        failures.push(`${route.method} ${route.path} → ${reply.status} ${reply.body?.code}`)
      }
      const [after] = await t.app.db.pragma(`SELECT * FROM ${resource.table} WHERE id = ${id}`)
      if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${route.method} ${route.path} changed the row`)
    }
    expect(failures).toEqual([])
  })

  test('an id of workspace A used as a parent from workspace B is refused with 400', async () => {
    const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: unique('G') }, { token: a.owner.token })).body.data
    const errors = expectError(
      await t.app.post('/office/v1/outlets/channels', { name: 'x', channel_group_id: group.id }, { token: b.owner.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(errors.channel_group_id).toBeArray()
  })
})
