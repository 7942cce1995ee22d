/**
 * GET /api/docs (UI) and /api/docs/json (OpenAPI 3.1): every route is listed with its request and
 * response schemas and the permission it needs (README.md "Configuration"), the page works with no internet, and
 * the document validates, is the same on every fetch and carries the platform's own answers (§17).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { validate } from '@readme/openapi-parser'
import packageJson from '../package.json'
import { listedValues, scalarVersion } from '../src/platform/api-docs'
import { useTestApp } from './harness'

const t = useTestApp()

type Json = Record<string, any>
const MUTATIONS = ['post', 'put', 'patch', 'delete']

/** Every (property name, schema) pair anywhere in the document. */
function properties(node: unknown, found: [string, Json][] = []): [string, Json][] {
  if (Array.isArray(node)) {
    for (const item of node) properties(item, found)
  } else if (typeof node === 'object' && node !== null) {
    const object = node as Json
    if (object.properties && typeof object.properties === 'object') for (const entry of Object.entries(object.properties as Json)) found.push(entry)
    for (const value of Object.values(object)) properties(value, found)
  }
  return found
}
/** A nullable property is generated either as type [X, "null"] or as anyOf [X, null]: the X. */
const nonNull = (schema: Json): Json => (Array.isArray(schema.anyOf) ? schema.anyOf.find((option: Json) => option.type !== 'null') : schema)
const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({ path, method, operation: operation as Json })),
  )

describe('API documentation', () => {
  test('the UI and the OpenAPI document need no token', async () => {
    const ui = await t.app.get('/docs')
    expect(ui.status).toBe(200)
    expect(ui.headers.get('content-type')).toContain('text/html')
    const json = await t.app.get('/docs/json')
    expect(json.status).toBe(200)
    expect(json.body.openapi).toStartWith('3.1')
  })

  test('every route appears with its response schemas, body schema and permission', async () => {
    const doc = (await t.app.get('/docs/json')).body
    const missing: string[] = []
    for (const route of t.app.app.routes) {
      if (route.path.startsWith('/api/docs') || !route.path.startsWith('/api/')) continue
      const path = route.path.replace(/:([a-z_]+)/g, '{$1}')
      const operation = doc.paths[path]?.[route.method.toLowerCase()]
      if (!operation) {
        missing.push(`${route.method} ${path}: not documented`)
        continue
      }
      if (!operation.responses || !Object.keys(operation.responses).some((status) => status.startsWith('2')))
        missing.push(`${route.method} ${path}: no success schema`)
      const takesBody = (route.hooks as { body?: unknown }).body !== undefined
      if (takesBody && ['POST', 'PUT'].includes(route.method) && !operation.requestBody?.content?.['application/json']?.schema) {
        missing.push(`${route.method} ${path}: no JSON body schema`)
      }
      if (path !== '/api/health' && !operation['x-permission']) missing.push(`${route.method} ${path}: no x-permission`)
    }
    expect(missing).toEqual([])
  })
})

describe("the document describes calendar days as the workspace's local days (docs/API.md §Time zones)", () => {
  test('no date_from/date_to parameter says its day is UTC; the dashboard date_to defaults to the local today', async () => {
    const doc = (await t.app.get('/docs/json')).body
    const days = operations(doc).flatMap(({ path, method, operation }) =>
      ((operation.parameters ?? []) as Json[])
        .filter((parameter) => parameter.name === 'date_from' || parameter.name === 'date_to')
        .map((parameter) => ({
          at: `${method.toUpperCase()} ${path} ${parameter.name}`,
          text: String(parameter.description ?? (parameter.schema as Json)?.description ?? ''),
        })),
    )
    expect(days.length).toBeGreaterThan(0)
    expect(days.filter((day) => /\bUTC\b/.test(day.text)).map((day) => `${day.at}: ${day.text}`)).toEqual([])
    const dashboard = days.find((day) => day.at === 'GET /api/office/v1/dashboard/metrics date_to')
    expect(dashboard?.text).toContain("workspace's time zone")
  })
})

describe('the docs page works with no internet (README.md "Running in production")', () => {
  test('the page loads its only script from this service, the Scalar bundle of the exact version package.json pins, and asks for no web fonts', async () => {
    const html = (await t.app.get('/docs')).text
    const sources = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1])
    expect(sources).toEqual([`/api/docs/scalar.js?v=${scalarVersion}`])
    expect(html).not.toMatch(/https?:\/\//)
    expect(html).toContain('"withDefaultFonts":false')
    // Pinned exactly: a range would let two installs serve two different UIs.
    expect(packageJson.dependencies['@scalar/api-reference']).toBe(scalarVersion)

    const script = await t.app.app.handle(new Request(`http://localhost${sources[0]}`))
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toStartWith('text/javascript')
    const body = await script.text()
    expect(body.length).toBeGreaterThan(1_000_000)
    // The standalone bundle carries its styles (injected at load), so no stylesheet is fetched either.
    expect(body).toContain('scalar-style')
  })
})

describe('/api/docs/json (README.md "Running in production")', () => {
  let base: string
  beforeAll(() => {
    t.app.app.listen({ port: 0, hostname: '127.0.0.1' })
    base = `http://127.0.0.1:${t.app.app.server!.port}`
  })
  afterAll(async () => {
    await t.app.app.stop()
  })
  const fetchDocument = async () => (await fetch(`${base}/api/docs/json`)).text()

  test('over a socket the document is byte-identical on every fetch and a valid OpenAPI 3.1 document', async () => {
    const [first, ...others] = await Promise.all(Array.from({ length: 5 }, fetchDocument))
    for (const other of others) expect(other).toBe(first!)
    const doc = JSON.parse(first!)
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/)
    const result = await validate(doc)
    expect('errors' in result ? result.errors : []).toEqual([])
    expect(result.valid).toBe(true)
  })

  test('the WebSocket is described in info.description, not as a path or a `ws` operation', async () => {
    const doc = JSON.parse(await fetchDocument())
    expect(doc.paths['/ws']).toBeUndefined()
    for (const { method } of operations(doc)) expect(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']).toContain(method)
    expect(doc.info.description).toContain('/ws?token=')
    expect(doc.info.description).toContain('location.created')
  })

  test('timestamps are date-time, calendar days are date, ids are integers', async () => {
    const all = properties(JSON.parse(await fetchDocument()))
    const timestamps = all.filter(([name]) => name.endsWith('_at')).map(([name, schema]) => [name, nonNull(schema)] as const)
    expect(timestamps.length).toBeGreaterThan(100)
    expect(timestamps.filter(([, schema]) => schema.format !== 'date-time')).toEqual([])
    const days = all.filter(([name]) => name.endsWith('_date')).map(([name, schema]) => [name, nonNull(schema)] as const)
    expect(days.length).toBeGreaterThan(10)
    expect(days.filter(([, schema]) => schema.format !== 'date')).toEqual([])
    const ids = all.filter(([name, schema]) => (name === 'id' || name.endsWith('_id')) && [nonNull(schema).type].flat().includes('number'))
    expect(ids).toEqual([])
  })

  test('fixed vocabularies are enums: a description listing the values, and unions of literals', async () => {
    expect(listedValues('pending, draft or completed')).toEqual(['pending', 'draft', 'completed'])
    expect(listedValues('pending, approved or rejected; null until completed')).toEqual(['pending', 'approved', 'rejected'])
    expect(listedValues('Role slug')).toBeNull()
    const doc = JSON.parse(await fetchDocument())
    const all = properties(doc)
    const visitStatus = all.filter(([name, schema]) => name === 'status' && schema.description === 'pending, draft or completed')
    expect(visitStatus.length).toBeGreaterThan(0)
    for (const [, schema] of visitStatus) expect(schema.enum).toEqual(['pending', 'draft', 'completed'])
    const approval = all.find(([name]) => name === 'approval_status')![1]
    expect(approval.enum).toEqual(['pending', 'approved', 'rejected', null])
    // No string-literal union is left as anyOf of consts.
    expect(JSON.stringify(doc)).not.toMatch(/"anyOf":\[\{"const":"[^"]*","type":"string"\}/)
  })

  test('the answers of the platform are documented on every route that can give them: 204/409/422 on authenticated mutations, 413 with a body, 429 on login and register', async () => {
    const problems: string[] = []
    for (const { path, method, operation } of operations(JSON.parse(await fetchDocument()))) {
      const has = (status: number) => status in operation.responses
      if (MUTATIONS.includes(method) && operation['x-permission'] !== 'public') {
        for (const status of [204, 409, 422]) if (!has(status)) problems.push(`${method} ${path}: no ${status}`)
        expect(operation.responses['204'].content).toBeUndefined()
      }
      if (operation.requestBody && !has(413)) problems.push(`${method} ${path}: no 413`)
    }
    expect(problems).toEqual([])
    const doc = JSON.parse(await fetchDocument())
    for (const path of ['/api/auth/login', '/api/auth/register']) {
      // The error envelope: the shared schema, or the route's own copy of it.
      const schema = doc.paths[path].post.responses['429'].content['application/json'].schema
      const envelope = schema.$ref === '#/components/schemas/ErrorEnvelope' ? doc.components.schemas.ErrorEnvelope : schema
      expect(envelope.required).toEqual(expect.arrayContaining(['success', 'message', 'code', 'errors']))
      expect(envelope.properties.success.const).toBe(false)
    }
    expect(doc.paths['/api/auth/login'].post.responses['413'].content['application/json'].schema.properties.code.enum).toEqual(['PAYLOAD_TOO_LARGE'])
  })

  test('a real answer matches its documented status: an idempotent replay is a 204 listed for that route', async () => {
    const doc = JSON.parse(await fetchDocument())
    const owner = (await t.app.workspace()).owner
    const send = () => t.app.post('/office/v1/outlets/channel-groups', { name: 'Docs replay' }, { token: owner.token, idempotencyKey: 'docs-replay-1' })
    expect((await send()).status).toBe(201)
    const replay = await send()
    expect(replay.status).toBe(204)
    expect(doc.paths['/api/office/v1/outlets/channel-groups'].post.responses['204'].description).toStartWith('IDEMPOTENT_DUPLICATE')
  })
})
