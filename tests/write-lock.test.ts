/**
 * No request holds the single write lock for long (README "Writes and the write lock"): slow work —
 * an upstream HTTP call, a large import — never runs while another workspace's write waits.
 * Asserted by order of events and by structure, never by timing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type Workspace } from './harness'

/** A regional upstream on a real socket that holds each answer until the test lets it go. */
function heldUpstream() {
  let gate = Promise.withResolvers<void>()
  let arrival = Promise.withResolvers<void>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch() {
      arrival.resolve()
      await gate.promise
      return Response.json([
        { id: 11, code: '11', name: 'ACEH' },
        { id: 1101, code: '11.01', name: 'KABUPATEN SIMEULUE', type: 'kabupaten' },
      ])
    },
  })
  return {
    server,
    url: `http://127.0.0.1:${server.port}`,
    /** Resolves when a request has arrived (and is being held). */
    arrived: () => arrival.promise,
    release: () => gate.resolve(),
    /** Holds the next requests again. */
    rearm: () => {
      gate = Promise.withResolvers<void>()
      arrival = Promise.withResolvers<void>()
    },
  }
}

describe('an outlet whose regions are checked upstream does not hold the write lock while the upstream answers', () => {
  let upstream: ReturnType<typeof heldUpstream>
  let app: TestApp
  let ws: Workspace
  let other: Workspace

  beforeAll(async () => {
    upstream = heldUpstream()
    app = await createTestApp({ env: { REGIONAL_SERVICE_URL: upstream.url } })
    ws = await app.workspace()
    other = await app.workspace()
  })
  afterAll(async () => {
    upstream.release()
    await upstream.server.stop(true)
    await app.close()
  })

  for (const kind of ['create', 'update'] as const) {
    // Each case asks the upstream for a file it has not cached yet (provinces, then a province's cities).
    test(`${kind}: another workspace's write completes while the region lookup waits; the outlet is written after`, async () => {
      upstream.rearm()
      const events: string[] = []
      const existing = kind === 'update' ? (await app.post('/office/v1/outlets', { name: 'Shop', code: 'S-1' }, { token: ws.owner.token })).body.data : null
      const outlet =
        kind === 'create'
          ? app.post('/office/v1/outlets', { name: 'Toko Aceh', code: 'TA-1', province_id: 11 }, { token: ws.owner.token })
          : app.put(`/office/v1/outlets/${existing.id}`, { city_id: 1101 }, { token: ws.owner.token })
      const outletDone = outlet.then((reply) => events.push(`outlet ${reply.status}`))
      await upstream.arrived()
      events.push('upstream asked')
      // On a lookup inside the transaction this write would wait for the upstream, which answers
      // only after it: the outlet would end in the upstream timeout (503) before the write got through.
      const write = await app.post('/office/v1/outlets/channel-groups', { name: `Modern Trade ${kind}` }, { token: other.owner.token })
      events.push(`other write ${write.status}`)
      upstream.release()
      await outletDone
      expect(events).toEqual(['upstream asked', 'other write 201', 'outlet ' + (kind === 'create' ? 201 : 200)])
      expect((await outlet).body.data).toMatchObject(kind === 'create' ? { province_id: 11 } : { city_id: 1101 })
    })
  }
})
