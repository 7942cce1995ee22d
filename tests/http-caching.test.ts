/**
 * Conditional GET and compression (docs/API.md §Caching and compression): every GET answered 200 with
 * JSON carries a strong ETag of its exact bytes, `Cache-Control: private, no-cache` and `Vary:
 * Accept-Encoding`; a matching If-None-Match answers 304 without a body; JSON over 1 KiB is sent as
 * `br` or `gzip` as the request's Accept-Encoding allows. Errors and mutations are left alone, the
 * location ingest above all.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { RouteTable } from '../src/platform/http/http'
import { chooseCoding, COMPRESS_ABOVE_BYTES, noneMatchHits } from '../src/platform/http/representation'
import { PNG } from './factories'
import { expectError, unique, useRealSocket, useTestApp, type Session, type Workspace } from './harness'

const t = useTestApp()

const GROUPS = '/office/v1/outlets/channel-groups'
/** Enough groups that a page of them is well over 1 KiB of JSON. */
const GROUP_COUNT = 30

let ws: Workspace
let admin: string
let groupId: number

beforeAll(async () => {
  ws = await t.app.workspace()
  admin = ws.owner.token
  for (let i = 0; i < GROUP_COUNT; i++) {
    const reply = await t.app.post(GROUPS, { name: `Channel group number ${i} ${unique()}` }, { token: admin })
    if (reply.status !== 201) throw new Error(reply.text)
    groupId = reply.body.data.id
  }
})

/** A GET through app.handle with the raw Response (bodies may be compressed). */
async function raw(path: string, headers: Record<string, string> = {}, token = admin) {
  const response = await t.app.app.handle(new Request(`http://localhost/api${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } }))
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}

const LIST = `${GROUPS}?limit=100`
const detail = () => `${GROUPS}/${groupId}`
const STRONG_TAG = /^"[A-Za-z0-9_-]{22}(-br|-gz)?"$/

describe('GET answers of details and lists carry a strong ETag, Cache-Control: private, no-cache and Vary: Accept-Encoding', () => {
  test('a detail and a list: the tag is strong, stable across requests, and differs between them', async () => {
    const one = await t.app.get(detail(), { token: admin })
    const list = await t.app.get(LIST, { token: admin })
    for (const reply of [one, list]) {
      expect(reply.status).toBe(200)
      expect(reply.headers.get('etag')).toMatch(STRONG_TAG)
      expect(reply.headers.get('cache-control')).toBe('private, no-cache')
      expect(reply.headers.get('vary')).toBe('Accept-Encoding')
      expect(reply.headers.get('content-type')).toContain('application/json')
    }
    expect(one.headers.get('etag')).not.toBe(list.headers.get('etag'))
    expect((await t.app.get(detail(), { token: admin })).headers.get('etag')).toBe(one.headers.get('etag'))
  })

  test('error answers and mutation answers carry no ETag', async () => {
    const missing = await t.app.get(`${GROUPS}/999999`, { token: admin })
    expectError(missing, 404, 'CHANNEL_GROUP_NOT_FOUND')
    const unauthenticated = await t.app.get(LIST)
    expectError(unauthenticated, 401, 'UNAUTHORIZED')
    const invalid = await t.app.get(`${GROUPS}?page=0`, { token: admin })
    expectError(invalid, 400, 'VALIDATION_ERROR')
    const created = await t.app.post(GROUPS, { name: unique('Posted') }, { token: admin })
    expect(created.status).toBe(201)
    const updated = await t.app.put(`${GROUPS}/${created.body.data.id}`, { name: unique('Renamed') }, { token: admin })
    expect(updated.status).toBe(200)
    for (const reply of [missing, unauthenticated, invalid, created, updated]) {
      expect(reply.headers.get('etag')).toBeNull()
      expect(reply.headers.get('cache-control')).not.toBe('private, no-cache')
    }
  })
})

describe('If-None-Match: the current tag answers 304 without a body; anything else the full answer', () => {
  test('the current tag → 304, empty body, keeping ETag, Cache-Control, Vary and X-Request-Id', async () => {
    const first = await t.app.get(detail(), { token: admin })
    const tag = first.headers.get('etag')!
    const again = await t.app.get(detail(), { token: admin, headers: { 'if-none-match': tag, 'x-request-id': 'conditional-1' } })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(tag)
    expect(again.headers.get('cache-control')).toBe('private, no-cache')
    expect(again.headers.get('vary')).toBe('Accept-Encoding')
    expect(again.headers.get('x-request-id')).toBe('conditional-1')
    expect(again.headers.get('content-encoding')).toBeNull()
  })

  test('a change makes the old tag stale: 200 with the new body and a new tag, which then answers 304', async () => {
    const before = await t.app.get(detail(), { token: admin })
    const renamed = await t.app.put(detail(), { name: unique('Renamed group') }, { token: admin })
    expect(renamed.status).toBe(200)
    const after = await t.app.get(detail(), { token: admin, headers: { 'if-none-match': before.headers.get('etag')! } })
    expect(after.status).toBe(200)
    expect(after.body.data.name).toBe(renamed.body.data.name)
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
    expect((await t.app.get(detail(), { token: admin, headers: { 'if-none-match': after.headers.get('etag')! } })).status).toBe(304)
    // A list holding the row changes its tag too.
    const listBefore = await t.app.get(LIST, { token: admin })
    await t.app.put(detail(), { name: unique('Renamed again') }, { token: admin })
    expect((await t.app.get(LIST, { token: admin, headers: { 'if-none-match': listBefore.headers.get('etag')! } })).status).toBe(200)
  })

  test('a list of tags, a weak W/ form, and * match; other tags, unquoted tags and empty values do not', async () => {
    const tag = (await t.app.get(detail(), { token: admin })).headers.get('etag')!
    const status = async (value: string) => (await t.app.get(detail(), { token: admin, headers: { 'if-none-match': value } })).status
    expect(await status(`"stale", ${tag}`)).toBe(304)
    expect(await status(`${tag},"stale"`)).toBe(304)
    expect(await status(`W/${tag}`)).toBe(304)
    expect(await status(`"a" , W/${tag}`)).toBe(304)
    expect(await status('*')).toBe(304)
    expect(await status('"stale"')).toBe(200)
    expect(await status('"stale", W/"other"')).toBe(200)
    expect(await status(tag.slice(1, -1))).toBe(200)
    expect(await status('')).toBe(200)
    expect(await status(`"${tag.slice(1, -1)}-zz"`)).toBe(200)
  })

  test('* on a resource that does not exist is still its 404; a POST with If-None-Match runs normally', async () => {
    expectError(await t.app.get(`${GROUPS}/999999`, { token: admin, headers: { 'if-none-match': '*' } }), 404, 'CHANNEL_GROUP_NOT_FOUND')
    const tag = (await t.app.get(LIST, { token: admin })).headers.get('etag')!
    const created = await t.app.post(GROUPS, { name: unique('Conditional post') }, { token: admin, headers: { 'if-none-match': tag } })
    expect(created.status).toBe(201)
  })

  test('noneMatchHits compares the hash alone: W/, coding suffixes and list members', () => {
    expect(noneMatchHits('"abc"', 'abc')).toBe(true)
    expect(noneMatchHits('W/"abc-gz"', 'abc')).toBe(true)
    expect(noneMatchHits('"x", "abc-br"', 'abc')).toBe(true)
    expect(noneMatchHits('*', 'abc')).toBe(true)
    expect(noneMatchHits('"abcd"', 'abc')).toBe(false)
    expect(noneMatchHits('"ab-br"', 'ab-br')).toBe(true)
    expect(noneMatchHits('"ab-br-gz"', 'ab-br')).toBe(true)
    expect(noneMatchHits('abc', 'abc')).toBe(false)
    expect(noneMatchHits('"ab"c"', 'abc')).toBe(false)
    expect(noneMatchHits('', 'abc')).toBe(false)
  })

  test('an uploaded photo answers 304 to its own ETag', async () => {
    const field = await t.app.member(ws, 'user')
    const outlet = await t.app.post('/office/v1/outlets', { name: unique('Outlet'), latitude: -6.2, longitude: 106.8 }, { token: admin })
    const project = await t.app.post('/office/v1/projects', { name: unique('Project') }, { token: admin })
    const visit = await t.app.post('/app/v1/visits/self', { outlet_id: outlet.body.data.id, project_id: project.body.data.id }, { token: field.token })
    expect(visit.status).toBe(201)
    const checkedIn = await t.app.post(
      `/app/v1/visits/${visit.body.data.id}/check-in`,
      { latitude: -6.2, longitude: 106.8, check_in_photo: PNG },
      { token: field.token },
    )
    expect(checkedIn.status).toBe(200)
    const url = (checkedIn.body.data.check_in_photo ?? checkedIn.body.data.check_in_photo_url) as string
    expect(url).toMatch(/^\/api\/files\//)
    const photo = await t.app.get(url.replace(/^\/api/, ''), { token: field.token })
    expect(photo.status).toBe(200)
    const tag = photo.headers.get('etag')!
    const again = await t.app.get(url.replace(/^\/api/, ''), { token: field.token, headers: { 'if-none-match': tag } })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(tag)
    expect(again.headers.get('content-type')).toBeNull()
  })
})

describe('compression: JSON over 1 KiB as br or gzip, as Accept-Encoding allows', () => {
  test('chooseCoding follows q-values, prefers br on a tie, and refuses nothing it cannot send', () => {
    const big = COMPRESS_ABOVE_BYTES + 1
    const cases: [string | null, number, string][] = [
      [null, big, 'identity'],
      ['', big, 'identity'],
      ['br', big, 'br'],
      ['gzip', big, 'gzip'],
      ['x-gzip', big, 'gzip'],
      ['gzip, deflate, br', big, 'br'],
      ['GZIP;Q=1, BR;q=1', big, 'br'],
      ['br;q=0.5, gzip', big, 'gzip'],
      ['br;q=0, gzip;q=0', big, 'identity'],
      ['br;q=0', big, 'identity'],
      ['deflate', big, 'identity'],
      ['identity', big, 'identity'],
      ['*', big, 'br'],
      ['*, br;q=0', big, 'gzip'],
      ['gzip;q=0.5, identity', big, 'identity'],
      ['gzip;q=0.5, identity;q=0.5', big, 'gzip'],
      ['br;q=nonsense, gzip', big, 'gzip'],
      ['br', COMPRESS_ABOVE_BYTES, 'identity'],
      ['gzip, identity;q=0', 10, 'gzip'],
      ['br, *;q=0', 10, 'br'],
      ['identity;q=0', big, 'identity'],
      ['*;q=0', 10, 'identity'],
    ]
    for (const [header, bytes, expected] of cases)
      expect({ header, bytes, coding: chooseCoding(header, bytes) }).toEqual({ header, bytes, coding: expected as never })
  })

  test('a list over 1 KiB: br, gzip or identity as asked, each decoding to the same JSON, each with its own tag', async () => {
    const plain = await raw(LIST)
    const json = new TextDecoder().decode(plain.bytes)
    expect(plain.bytes.byteLength).toBeGreaterThan(COMPRESS_ABOVE_BYTES)
    expect(JSON.parse(json).data.length).toBeGreaterThanOrEqual(GROUP_COUNT)
    expect(plain.headers.get('content-encoding')).toBeNull()

    const br = await raw(LIST, { 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.bytes.byteLength).toBeLessThan(plain.bytes.byteLength)
    expect(new TextDecoder().decode(brotliDecompressSync(br.bytes))).toBe(json)

    const gzip = await raw(LIST, { 'accept-encoding': 'br;q=0.1, gzip' })
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    expect(new TextDecoder().decode(gunzipSync(gzip.bytes))).toBe(json)

    const refused = await raw(LIST, { 'accept-encoding': 'br;q=0, gzip;q=0' })
    expect(refused.headers.get('content-encoding')).toBeNull()
    expect(new TextDecoder().decode(refused.bytes)).toBe(json)

    const tags = [plain, br, gzip].map((reply) => reply.headers.get('etag')!)
    expect(tags[1]).toBe(`${tags[0].slice(0, -1)}-br"`)
    expect(tags[2]).toBe(`${tags[0].slice(0, -1)}-gz"`)
    for (const reply of [plain, br, gzip, refused]) expect(reply.headers.get('vary')).toBe('Accept-Encoding')
  })

  test('If-None-Match with any coding’s tag answers 304 with the tag of the coding this request would get', async () => {
    const identityTag = (await raw(LIST)).headers.get('etag')!
    const brTag = (await raw(LIST, { 'accept-encoding': 'br' })).headers.get('etag')!
    const viaIdentity = await raw(LIST, { 'accept-encoding': 'br', 'if-none-match': identityTag })
    expect(viaIdentity.status).toBe(304)
    expect(viaIdentity.headers.get('etag')).toBe(brTag)
    expect(viaIdentity.headers.get('content-encoding')).toBeNull()
    expect(viaIdentity.bytes.byteLength).toBe(0)
    const viaBr = await raw(LIST, { 'if-none-match': brTag })
    expect(viaBr.status).toBe(304)
    expect(viaBr.headers.get('etag')).toBe(identityTag)
  })

  test('an answer of 1 KiB or less goes uncompressed, still with Vary: Accept-Encoding', async () => {
    const small = await raw(detail(), { 'accept-encoding': 'br, gzip' })
    expect(small.bytes.byteLength).toBeLessThanOrEqual(COMPRESS_ABOVE_BYTES)
    expect(small.headers.get('content-encoding')).toBeNull()
    expect(small.headers.get('vary')).toBe('Accept-Encoding')
    expect(JSON.parse(new TextDecoder().decode(small.bytes)).data.id).toBe(groupId)
    // Unless the client refuses identity: then even a small answer is compressed.
    const forced = await raw(detail(), { 'accept-encoding': 'gzip, identity;q=0' })
    expect(forced.headers.get('content-encoding')).toBe('gzip')
    expect(JSON.parse(new TextDecoder().decode(gunzipSync(forced.bytes))).data.id).toBe(groupId)
  })

  test('the location ingest answer has no Content-Encoding, ETag or Vary, even when br is accepted', async () => {
    const field: Session = await t.app.member(ws, 'user')
    const pings = Array.from({ length: 50 }, (_, i) => ({ lat: -6.2 + i / 1000, lng: 106.8, is_mock: false }))
    const response = await t.app.app.handle(
      new Request('http://localhost/api/app/v1/locations/batch', {
        method: 'POST',
        body: JSON.stringify({ pings }),
        headers: {
          authorization: `Bearer ${field.token}`,
          'content-type': 'application/json',
          'x-idempotency-key': randomUUID(),
          'accept-encoding': 'br, gzip',
          'if-none-match': '*',
        },
      }),
    )
    expect(response.status).toBe(201)
    expect(response.headers.get('content-encoding')).toBeNull()
    expect(response.headers.get('etag')).toBeNull()
    expect(response.headers.get('vary')).toBeNull()
    expect((await response.json()).data.count).toBe(50)
  })
})

describe('over a real socket', () => {
  const socket = useRealSocket(t)

  test('fetch: 304 for the current tag; a br answer whose bytes decode to the JSON sent uncompressed', async () => {
    const headers = { authorization: `Bearer ${admin}` }
    const first = await fetch(`${socket.base}${LIST}`, { headers: { ...headers, 'accept-encoding': 'identity' } })
    expect(first.status).toBe(200)
    const json = await first.text()
    const tag = first.headers.get('etag')!
    expect(tag).toMatch(STRONG_TAG)

    const conditional = await fetch(`${socket.base}${LIST}`, { headers: { ...headers, 'if-none-match': tag } })
    expect(conditional.status).toBe(304)
    expect(await conditional.text()).toBe('')
    expect(conditional.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)

    const compressed = await fetch(`${socket.base}${LIST}`, { headers: { ...headers, 'accept-encoding': 'br' }, decompress: false } as RequestInit)
    expect(compressed.headers.get('content-encoding')).toBe('br')
    expect(new TextDecoder().decode(brotliDecompressSync(new Uint8Array(await compressed.arrayBuffer())))).toBe(json)
  })
})

describe('RouteTable: the Location of a creating route', () => {
  const routes = (list: [string, string, Record<string, unknown>?][]) => list.map(([method, path, detail]) => ({ method, path, hooks: { detail } }))

  test('the collection’s detail route by default, a declared one, none for routes without one; a declaration naming no route fails', () => {
    const table = new RouteTable()
    const all = routes([
      ['POST', '/api/office/v1/things'],
      ['GET', '/api/office/v1/things/:id'],
      ['POST', '/api/office/v1/things/bulk'],
      ['POST', '/api/office/v1/things/:id/parts'],
      ['GET', '/api/office/v1/things/:id/parts/:part_id'],
      ['POST', '/api/app/v1/things/self', { 'x-created-location': '/app/v1/things/me/:id' }],
      ['GET', '/api/app/v1/things/me/:id'],
      ['POST', '/api/app/v1/other', { 'x-created-location': false }],
      ['GET', '/api/app/v1/other/:id'],
      ['POST', '/api/app/v1/updates'],
      ['GET', '/api/app/v1/updates/:id'],
    ])
    for (const route of all) if (route.method === 'POST') table.register('POST', route.path, route.path.endsWith('updates') ? 200 : 201)
    table.linkCreatedLocations(all)
    expect(table.createdUnder('POST', '/api/office/v1/things', {})).toBe('/api/office/v1/things/')
    expect(table.createdUnder('POST', '/api/office/v1/things/bulk', {})).toBeNull()
    expect(table.createdUnder('POST', '/api/office/v1/things/:id/parts', { id: '7' })).toBe('/api/office/v1/things/7/parts/')
    expect(table.createdUnder('POST', '/api/app/v1/things/self', {})).toBe('/api/app/v1/things/me/')
    expect(table.createdUnder('POST', '/api/app/v1/other', {})).toBeNull()
    expect(table.createdUnder('POST', '/api/app/v1/updates', {})).toBeNull()
    expect(table.createdUnder('PUT', '/api/office/v1/things', {})).toBeNull()

    const broken = new RouteTable()
    const wrong = routes([['POST', '/api/app/v1/x', { 'x-created-location': '/app/v1/nowhere/:id' }]])
    broken.register('POST', '/api/app/v1/x', 201)
    expect(() => broken.linkCreatedLocations(wrong)).toThrow(/no GET route/)
  })
})
