/**
 * The kernel's route options (src/platform/http/http.ts): `idempotency: 'in-transaction'` next to `auth`
 * skips the key lookup before the handler (docs/API.md §Idempotency), whichever order the two are
 * written in, also once the routes are mounted under other plugins.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import type { Deps } from '../src/platform/context'
import { createPlatform, RouteTable } from '../src/platform/http/http'
import type { ClaimInput } from '../src/platform/data/idempotency'
import { useTestApp, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace

beforeAll(async () => {
  ws = await t.app.workspace()
})

describe("route option idempotency: 'in-transaction'", () => {
  test('the claim skips the lookup before the handler only on routes declaring it, in either order', async () => {
    const inputs = new Map<string, ClaimInput>()
    const store = t.app.deps.idempotency
    const spy = Object.create(store) as typeof store
    spy.claim = (key, input) => {
      inputs.set(input.target, input)
      return store.claim(key, input)
    }
    const platform = createPlatform({ ...t.app.deps, idempotency: spy } as Deps, new RouteTable())
    const routes = new Elysia({ prefix: '/office/v1' })
      .use(platform)
      .post('/first', () => ({ ok: true }), { auth: true, idempotency: 'in-transaction' })
      .post('/second', () => ({ ok: true }), { idempotency: 'in-transaction', auth: true })
      .post('/plain', () => ({ ok: true }), { auth: true })
    const app = new Elysia().use(platform).use(new Elysia({ prefix: '/api' }).use(platform).use(routes))

    for (const path of ['first', 'second', 'plain']) {
      const reply = await app.handle(
        new Request(`http://localhost/api/office/v1/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ws.owner.token}`, 'x-idempotency-key': crypto.randomUUID() },
        }),
      )
      expect(reply.status).toBe(200)
    }
    expect(inputs.get('/api/office/v1/first')?.checkBeforeHandler).toBe(false)
    expect(inputs.get('/api/office/v1/second')?.checkBeforeHandler).toBe(false)
    expect(inputs.get('/api/office/v1/plain')?.checkBeforeHandler).toBe(true)
  })
})
