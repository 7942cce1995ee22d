/**
 * The HTTP kernel every route goes through (src/platform/http/http.ts): request ids, body parsing, the
 * order of checks, and the one error mapper (docs/API.md §Envelopes, §Errors).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { TransformDecodeError } from '@sinclair/typebox/value'
import { Elysia, getSchemaValidator, t as types } from 'elysia'
import { createPlatform, MAX_BODY_BYTES, RouteTable, SERVER_MAX_REQUEST_BODY_SIZE, toAppError } from '../src/platform/http/http'
import { JsonTooDeep, jsonDepth, MAX_JSON_DEPTH, parseRequestJson, SCAN_FIRST_ABOVE_CHARS } from '../src/lib/json'
import { fieldErrors, toFieldPath } from '../src/platform/http/validation'
import { Opaque } from '../src/platform/http/schema'
import { PNG } from './factories'
import { expectError, useTestApp, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

beforeAll(async () => {
  ws = await t.app.workspace()
})

describe('X-Request-Id', () => {
  test('every answer carries one: success, 400, 401, 404', async () => {
    const replies = [
      await t.app.get('/health'),
      await t.app.post('/office/v1/outlets/sub-areas', { name: '' }, { token: ws.owner.token }),
      await t.app.get('/office/v1/outlets/sub-areas'),
      await t.app.get('/nowhere'),
    ]
    for (const reply of replies) expect(reply.headers.get('x-request-id')).toMatch(UUID)
  })

  test('a valid incoming id is kept; an invalid one is replaced', async () => {
    expect((await t.app.get('/health', { headers: { 'x-request-id': 'client-req.42:a_b' } })).headers.get('x-request-id')).toBe('client-req.42:a_b')
    for (const bad of ['x'.repeat(129), 'has space', 'semi;colon', '']) {
      expect((await t.app.get('/health', { headers: { 'x-request-id': bad } })).headers.get('x-request-id')).toMatch(UUID)
    }
  })
})

describe('security headers: every answer carries X-Content-Type-Options: nosniff; answers carrying tokens carry Cache-Control: no-store', () => {
  test('JSON, lists, errors (400, 401, 403, 404, 429), the idempotent-replay 204, photos, CSV, the docs page and document, health and metrics', async () => {
    const field = await t.app.member(ws, 'user')
    const photo = await t.app.post('/app/v1/attendances/clock-in', { latitude: -6.2, longitude: 106.8, photo: PNG }, { token: field.token })
    expect(photo.status).toBe(201)
    const created = { name: `Headers ${Date.now()}` }
    const key = `headers-${Date.now()}`
    expect((await t.app.post('/office/v1/outlets/sub-areas', created, { token: ws.owner.token, idempotencyKey: key })).status).toBe(201)
    const limitedEmail = `limited-${Date.now()}@example.com`
    for (let i = 0; i < 10; i++) await t.app.post('/auth/login', { email: limitedEmail, password: 'wrong-password' })
    const answers: [string, Awaited<ReturnType<typeof t.app.get>>, number][] = [
      ['JSON detail', await t.app.get('/office/v1/roles', { token: ws.owner.token }), 200],
      ['list', await t.app.get('/office/v1/outlets/sub-areas', { token: ws.owner.token }), 200],
      ['create', await t.app.post('/office/v1/outlets/sub-areas', { name: `Headers 2 ${Date.now()}` }, { token: ws.owner.token }), 201],
      ['400', await t.app.post('/office/v1/outlets/sub-areas', { name: '' }, { token: ws.owner.token }), 400],
      ['401', await t.app.get('/office/v1/outlets/sub-areas'), 401],
      ['403', await t.app.get('/office/v1/roles', { token: field.token }), 403],
      ['404', await t.app.get('/nowhere'), 404],
      ['429', await t.app.post('/auth/login', { email: limitedEmail, password: 'wrong-password' }), 429],
      ['replay 204', await t.app.post('/office/v1/outlets/sub-areas', created, { token: ws.owner.token, idempotencyKey: key }), 204],
      ['photo', await t.app.get(String(photo.body.data.check_in_photo_url).replace(/^\/api/, ''), { token: ws.owner.token }), 200],
      ['CSV', await t.app.get('/office/v1/visits/export', { token: ws.owner.token }), 200],
      ['docs page', await t.app.get('/docs'), 200],
      ['docs document', await t.app.get('/docs/json'), 200],
      ['health', await t.app.get('/health'), 200],
      ['metrics', await t.app.get('/metrics'), 200],
    ]
    for (const [what, reply, status] of answers) {
      expect(`${what}: ${reply.status}`).toBe(`${what}: ${status}`)
      expect(`${what}: ${reply.headers.get('x-content-type-options')}`).toBe(`${what}: nosniff`)
    }
  })

  test('register, login, refresh and switch-workspace answers carry Cache-Control: no-store; other answers do not', async () => {
    const email = `no-store-${Date.now()}@example.com`
    const register = await t.app.post('/auth/register', { name: 'No Store', email, password: 'password123', workspace_name: 'No Store' })
    expect(register.status).toBe(201)
    const login = await t.app.post('/auth/login', { email, password: 'password123' })
    expect(login.status).toBe(200)
    const refresh = await t.app.post('/auth/refresh', { refresh_token: login.body.data.refresh_token })
    expect(refresh.status).toBe(200)
    const switched = await t.app.post('/auth/switch-workspace', { workspace_id: login.body.data.user.workspace_id }, { token: login.body.data.token })
    expect(switched.status).toBe(200)
    for (const reply of [register, login, refresh, switched]) {
      expect(reply.headers.get('cache-control')).toBe('no-store')
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
    }
    expect((await t.app.get('/office/v1/roles', { token: login.body.data.token })).headers.get('cache-control')).not.toBe('no-store')
  })
})

describe('bodies', () => {
  const post = (raw: string, headers: Record<string, string> = { 'content-type': 'application/json' }, token = ws.owner.token) =>
    t.app.request('POST', '/office/v1/outlets/sub-areas', { raw, headers, token })

  test('malformed JSON is a 400 with errors.body, and nothing is written', async () => {
    const before = await t.app.count('sub_areas')
    for (const raw of ['{bad', '{"name": "x"', '{"name": "x"}}', 'nul']) {
      const errors = expectError(await post(raw), 400, 'VALIDATION_ERROR')
      expect(errors.body).toEqual(['is not valid JSON'])
    }
    expect(await t.app.count('sub_areas')).toBe(before)
  })

  test('a JSON body that is not an object is a 400', async () => {
    for (const raw of ['[]', '[{"name":"x"}]', '42', '"name"', 'null', 'true']) {
      const errors = expectError(await post(raw), 400, 'VALIDATION_ERROR')
      expect(errors.body).toEqual(['must be a JSON object'])
    }
  })

  test('a missing body is a 400', async () => {
    const errors = expectError(await t.app.request('POST', '/office/v1/outlets/sub-areas', { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
    expect(Object.keys(errors)).toEqual(['body'])
  })

  test('a body that is not application/json is a 400 naming content-type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const errors = expectError(await post('{"name":"x"}', { 'content-type': type }), 400, 'VALIDATION_ERROR')
      expect(errors['content-type']).toEqual(['must be application/json'])
    }
    expect((await post(JSON.stringify({ name: `Charset ${Date.now()}` }), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(201)
  })

  test('authentication is checked before the body: malformed JSON without a token is a 401', async () => {
    expectError(await post('{bad', { 'content-type': 'application/json' }, ''), 401, 'UNAUTHORIZED')
  })

  test('a body over 10 MiB is a 413 PAYLOAD_TOO_LARGE', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) })
    expectError(await post(raw), 413, 'PAYLOAD_TOO_LARGE')
  })

  test('deeply nested and huge values are refused without a 5xx', async () => {
    const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`
    expect((await post(deep)).status).toBe(400)
    expect((await post(JSON.stringify({ name: 'x'.repeat(1_000_000) }))).status).toBe(400)
    expect((await post(JSON.stringify({ name: { $gt: '' } }))).status).toBe(400)
  })
})

describe('a body over 10 MiB over a real socket: the JSON 413 envelope with X-Request-Id, also where Bun would refuse it itself', () => {
  let base: string
  const MiB = 1024 * 1024

  beforeAll(() => {
    // The listen options of src/server.ts.
    t.app.app.listen({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE })
    base = `http://127.0.0.1:${t.app.app.server!.port}/api`
  })
  afterAll(async () => {
    await t.app.app.stop(true)
  })

  async function send(path: string, body: BodyInit, token?: string) {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, text }
  }

  /** A JSON body of about `bytes` bytes, sent in 1 MiB chunks without a Content-Length (chunked). */
  function chunked(bytes: number) {
    const chunk = new TextEncoder().encode('x'.repeat(MiB))
    let sent = 0
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"email":"'))
        if (sent >= bytes) {
          controller.enqueue(new TextEncoder().encode('"}'))
          controller.close()
          return
        }
        controller.enqueue(chunk)
        sent += chunk.byteLength
      },
    })
  }

  function expectTooLarge(reply: { status: number; headers: Headers; body: any; text: string }) {
    expectError(reply as never, 413, 'PAYLOAD_TOO_LARGE')
    expect(reply.headers.get('x-request-id')).toMatch(UUID)
    expect(reply.headers.get('content-type')).toContain('application/json')
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
  }

  test('12 MiB and 10.5 MiB with a Content-Length: 413 PAYLOAD_TOO_LARGE envelope, and nothing is written', async () => {
    const before = await t.app.count('sub_areas')
    for (const size of [12 * MiB, 10.5 * MiB]) {
      const raw = JSON.stringify({ name: 'x'.repeat(size) })
      expectTooLarge(await send('/office/v1/outlets/sub-areas', raw, ws.owner.token))
      expectTooLarge(await send('/auth/login', raw))
    }
    expect(await t.app.count('sub_areas')).toBe(before)
  })

  test('a chunked body without a Content-Length is read only up to the limit: 12 MiB → 413 envelope; 1 MiB reaches the route', async () => {
    expectTooLarge(await send('/auth/login', chunked(12 * MiB)))
    expectTooLarge(await send('/office/v1/outlets/sub-areas', chunked(12 * MiB), ws.owner.token))
    const small = await send('/auth/login', chunked(MiB))
    expectError(small as never, 400, 'VALIDATION_ERROR')
    expect(Object.keys(small.body.errors)).toContain('password')
  })

  test('a declared 1 GiB body is refused before it is read, and the server closes the connection instead of draining it', async () => {
    const url = new URL(base)
    const { answer, closedByServer } = await new Promise<{ answer: string; closedByServer: boolean }>((resolve, reject) => {
      let answer = ''
      Bun.connect({
        hostname: url.hostname,
        port: Number(url.port),
        socket: {
          open(socket) {
            socket.write(`POST /api/auth/login HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * MiB}\r\n\r\n`)
            socket.write(new Uint8Array(MiB))
          },
          data(_socket, data) {
            answer += new TextDecoder().decode(data)
          },
          close() {
            resolve({ answer, closedByServer: true })
          },
          error(_socket, error) {
            reject(error)
          },
        },
      }).catch(reject)
    })
    expect(closedByServer).toBe(true)
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(answer.toLowerCase()).toContain('x-request-id:')
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"')
  })

  test('the server stays usable after refusing oversize bodies', async () => {
    const reply = await fetch(`${base}/health`)
    expect(reply.status).toBe(200)
  })
})

describe('routing', () => {
  test('unknown paths and unserved methods are 404 ROUTE_NOT_FOUND, also without a token', async () => {
    expectError(await t.app.get('/office/v1/nothing-here'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.request('PATCH', '/office/v1/outlets/sub-areas'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.request('DELETE', '/office/v1/audit-logs'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.get('/office/v1/outlets/sub-areas/1/extra', { token: ws.owner.token }), 404, 'ROUTE_NOT_FOUND')
  })
})

describe("no route's compiled handler does work nothing reads", () => {
  test('cookies are never parsed, headers copied into an object only where a route declares a headers schema (the kernel keeps its state by request, and hooks name what they read)', () => {
    const wasted: string[] = []
    for (const route of t.app.app.routes as unknown as { method: string; path: string; hooks: { headers?: unknown }; compile?: () => unknown }[]) {
      const source = String(route.compile?.())
      if (source.includes('parseCookie')) wasted.push(`${route.method} ${route.path}: parses cookies`)
      if (source.includes('headers.toJSON') && !route.hooks.headers) wasted.push(`${route.method} ${route.path}: copies headers`)
    }
    // The socket's upgrade hands its context on whole, once per socket.
    expect(wasted).toEqual(['WS /ws: parses cookies', 'WS /ws: copies headers'])
  })
})

describe('integer path and query parameters are decimal digits', () => {
  test('another spelling of a number (hex, exponent, sign, spaces) is a 400 naming the parameter, never the row of that number', async () => {
    const token = ws.owner.token
    const made = await t.app.post('/office/v1/outlets/sub-areas', { name: 'Decimal only' }, { token })
    expect(made.status).toBe(201)
    const id = (made.body as { data: { id: number } }).data.id
    expect((await t.app.get(`/office/v1/outlets/sub-areas/${id}`, { token })).status).toBe(200)
    for (const spelling of [`0x${id.toString(16)}`, `${id}e0`, `+${id}`, `${id}.0`, `%20${id}`, `0b${id.toString(2)}`]) {
      const reply = await t.app.get(`/office/v1/outlets/sub-areas/${spelling}`, { token })
      expectError(reply, 400, 'VALIDATION_ERROR')
      expect((reply.body as { errors: Record<string, string[]> }).errors.id).toEqual(['Expected integer'])
    }
    // The workspace's own id, spelled in hex, must not reach its settings either.
    const settings = await t.app.put(`/office/v1/workspaces/0x${ws.id.toString(16)}/settings`, { name: 'Renamed' }, { token })
    expectError(settings, 400, 'VALIDATION_ERROR')
    for (const spelling of ['0x1', '1e0', '+1', ' 1']) {
      const reply = await t.app.get(`/office/v1/users?team_id=${encodeURIComponent(spelling)}`, { token })
      expectError(reply, 400, 'VALIDATION_ERROR')
      expect((reply.body as { errors: Record<string, string[]> }).errors.team_id).toEqual(['Expected integer'])
    }
    // A keyword that looks like a hex number is text, not an id.
    expect((await t.app.get('/office/v1/users?keyword=0x10', { token })).status).toBe(200)
  })
})

describe('the error mapper', () => {
  test('a Transform that refuses while decoding (t.Integer below its minimum) is a 400 naming the field, also when its error arrives wrapped (the minified executable: Elysia unwraps it by class name)', () => {
    const validator = getSchemaValidator(types.Object({ n: types.Integer({ minimum: 1 }) }), { normalize: 'typebox' })!
    let wrapped: unknown
    try {
      validator.Decode({ n: '0' })
    } catch (error) {
      wrapped = error
    }
    expect(wrapped).toBeInstanceOf(TransformDecodeError)
    for (const code of ['VALIDATION', 'UNKNOWN']) {
      const failure = toAppError(code, wrapped, { n: '0' })
      expect({ status: failure.status, code: failure.code, fields: Object.keys(failure.errors) }).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
        fields: ['n'],
      })
    }
  })

  test('an unexpected exception is a 500 INTERNAL_ERROR without stack or SQL', async () => {
    const platform = createPlatform(t.app.deps, new RouteTable())
    const app = new Elysia({ prefix: '/api' })
      .use(platform)
      .get('/boom', () => {
        throw new Error('SQLITE_ERROR: near "SELECT * FROM users WHERE password_hash"')
      })
      .get('/bad-response', () => ({ secret: 'x' }) as never, { response: { 200: Type.Object({ id: Type.Integer() }) } })
    for (const path of ['/api/boom', '/api/bad-response']) {
      const reply = await app.handle(new Request(`http://localhost${path}`))
      const text = await reply.text()
      expect(reply.status).toBe(500)
      expect(JSON.parse(text)).toEqual({ success: false, message: 'an unexpected error occurred', code: 'INTERNAL_ERROR', errors: {} })
      expect(text).not.toMatch(/SELECT|password|at |\.ts/)
      expect(reply.headers.get('x-request-id')).toMatch(UUID)
    }
  })

  test('an error that cannot even be described (reading it throws) is still the 500 envelope with a request id', async () => {
    const platform = createPlatform(t.app.deps, new RouteTable())
    // The mapper looks through driver errors for `extendedCode`; here reading it throws.
    const hostile = Object.defineProperty(new Error('x'), 'extendedCode', {
      get() {
        throw new TypeError('no default value')
      },
    })
    const app = new Elysia({ prefix: '/api' }).use(platform).get('/hostile', () => {
      throw hostile
    })
    const reply = await app.handle(new Request('http://localhost/api/hostile'))
    expect(reply.status).toBe(500)
    expect(await reply.json()).toEqual({ success: false, message: 'an unexpected error occurred', code: 'INTERNAL_ERROR', errors: {} })
    expect(reply.headers.get('x-request-id')).toMatch(UUID)
  })

  test('SQLite constraint and busy errors map to 409, 400 and 503 on either driver', () => {
    expect(toAppError('UNKNOWN', Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' })).status).toBe(409)
    expect(toAppError('UNKNOWN', Object.assign(new Error('UNIQUE constraint failed: t.x'), { code: 'SQLITE_CONSTRAINT' })).status).toBe(409)
    expect(toAppError('UNKNOWN', Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT' })).code).toBe('VALIDATION_ERROR')
    expect(toAppError('UNKNOWN', new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }) })).status).toBe(409)
    const busy = toAppError('UNKNOWN', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))
    expect([busy.status, busy.headers['retry-after']]).toEqual([503, '1'])
    expect(toAppError('UNKNOWN', new TypeError('x')).status).toBe(500)
  })

  test('validation issues become dot paths with one short message per field', () => {
    expect(toFieldPath('/pings/3/lat', 'body')).toBe('pings.3.lat')
    expect(toFieldPath('', 'body')).toBe('body')
    expect(
      fieldErrors(
        [
          { path: '/pings/3/lat', value: 91, schema: { type: 'number', maximum: 90 } },
          { path: '/pings/3/lat', value: 91, schema: { type: 'number' } },
          { path: '/name', value: undefined, schema: { type: 'string' } },
          { path: '/name2', value: 5, schema: { type: 'string' } },
          { path: '/source', value: 'x', schema: { anyOf: [{ const: 'gps' }, { const: 'network' }] } },
          { path: '/items', value: [], schema: { type: 'array', minItems: 1 } },
        ],
        'body',
      ),
    ).toEqual({
      'pings.3.lat': ['must be at most 90'],
      name: ['is required'],
      name2: ['must be a string'],
      source: ['must be one of: gps, network'],
      items: ['must have at least 1 item'],
    })
  })
})

describe('request JSON: nesting limit and prototype-named keys (src/lib/json.ts)', () => {
  test('depth counts arrays and objects, not brackets inside strings or after escaped quotes', () => {
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4)
    expect(jsonDepth(`{"note":${JSON.stringify('[[[{{{'.repeat(100))}}`)).toBe(1)
    expect(jsonDepth(`{"note":"a \\" [[[[ b"}`)).toBe(1)
    expect(jsonDepth('[]')).toBe(1)
    // Told where to stop, the scan returns the first depth past it.
    expect(jsonDepth('[[[[[[]]]]]]', 3)).toBe(4)
    // A string that ends in an escaped backslash closes at its quote; the brackets after it count.
    expect(jsonDepth('["\\\\",[[]]]')).toBe(3)
    expect(jsonDepth('{"a":"x\\\\\\"[["}')).toBe(1)
    // Told where to stop, the scan returns the first depth past it.
    expect(jsonDepth('[[[[[[]]]]]]', 3)).toBe(4)
  })

  test(`exactly ${MAX_JSON_DEPTH} levels parse; one more is refused before any schema sees it`, () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
    expect(() => parseRequestJson(nested(MAX_JSON_DEPTH))).not.toThrow()
    expect(() => parseRequestJson(nested(MAX_JSON_DEPTH + 1))).toThrow(JsonTooDeep)
    expect(() => parseRequestJson('{"a":')).toThrow(SyntaxError)
  })

  test(`bodies over ${SCAN_FIRST_ABOVE_CHARS} characters (depth read from the text first) follow the same rules`, () => {
    const padded = (levels: number) => `${'['.repeat(levels - 1)}{"pad":"${' '.repeat(SCAN_FIRST_ABOVE_CHARS)}","x":1}${']'.repeat(levels - 1)}`
    expect(padded(MAX_JSON_DEPTH).length).toBeGreaterThan(SCAN_FIRST_ABOVE_CHARS)
    expect(() => parseRequestJson(padded(MAX_JSON_DEPTH))).not.toThrow()
    expect(() => parseRequestJson(padded(MAX_JSON_DEPTH + 1))).toThrow(JsonTooDeep)
    expect(() => parseRequestJson('['.repeat(SCAN_FIRST_ABOVE_CHARS * 2) + ']'.repeat(SCAN_FIRST_ABOVE_CHARS * 2))).toThrow(JsonTooDeep)
    const big = parseRequestJson(`{"__proto__":{"admin":true},"note":"${'n'.repeat(SCAN_FIRST_ABOVE_CHARS)}","ok":1}`) as Record<string, unknown>
    expect(Object.keys(big)).toEqual(['note', 'ok'])
  })

  test('keys named after Object.prototype members are dropped at any depth, escaped or not; other keys stay', () => {
    const parsed = parseRequestJson(
      '{"name":"x","__proto__":{"admin":true},"list":[{"constructor":{"prototype":{"p":1}},"ok":1}],"\\u0074oString":1}',
    ) as Record<string, any>
    expect(parsed).toEqual({ name: 'x', list: [{ ok: 1 }] })
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
    expect(parseRequestJson('{"proto":1,"constructors":2,"toStringX":3}')).toEqual({ proto: 1, constructors: 2, toStringX: 3 })
  })
})

describe('Opaque response fields (src/platform/http/schema.ts)', () => {
  const Shape = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])

  test('the document shows the schema as it is; the normaliser and the check leave the value whole and do not walk it', async () => {
    const { Value } = await import('@sinclair/typebox/value')
    const opaque = Opaque(Shape)
    expect(JSON.stringify(opaque)).toBe(JSON.stringify(Shape))
    const value = { a: 1, nested: { b: [1, 2] } }
    expect(Value.Clean(Type.Object({ v: opaque }), { v: value })).toEqual({ v: value })
    // Not walked: a value the schema would refuse passes (only JSON the service itself wrote is declared opaque).
    expect(Value.Check(opaque, 'text')).toBe(true)
    expect(Value.Check(Shape, 'text')).toBe(false)
  })

  test("an audit entry's old and new values and metadata are answered as written, extras included", async () => {
    const created = (await t.app.post('/office/v1/outlets/sub-areas', { name: `Opaque ${Date.now()}` }, { token: ws.owner.token })).body.data
    const reply = await t.app.get(`/office/v1/audit-logs?entity_type=sub_area&entity_id=${created.id}`, { token: ws.owner.token })
    expect(reply.status).toBe(200)
    const [entry] = reply.body.data.data
    expect(entry.new_values).toMatchObject({ id: created.id, name: created.name })
    expect(Object.keys(entry.metadata).sort()).toEqual(expect.arrayContaining(['ip', 'request_id', 'timestamp', 'user_agent']))
  })
})
