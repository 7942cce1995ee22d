/**
 * GET /api/docs (UI) and /api/docs/json (OpenAPI 3.1): every route is listed with its request and
 * response schemas and the permission it needs (README.md "Configuration"), the page works with no internet, and
 * the document validates, is the same on every fetch and carries the platform's own answers (§17).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { validate } from '@readme/openapi-parser'
import packageJson from '../package.json'
import { SUBMISSION_STATUSES, VISIT_STATUSES } from '../src/db/schema'
import { feedEntities } from '../src/platform/data/feed-entities'
import { listedValues, scalarVersion } from '../src/platform/http/api-docs'
import { checkIn, checkOut, HERE, newVisit, visitSite } from './factories'
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
/** A `$ref` (`#/components/…`) → what it names; anything else as is. */
const resolve = (doc: Json, node: Json): Json =>
  typeof node?.$ref === 'string'
    ? (node.$ref as string)
        .slice(2)
        .split('/')
        .reduce((at: Json, key: string) => at[key], doc)
    : node
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
    expect(timestamps.length).toBeGreaterThan(50)
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
    const document = JSON.parse(await fetchDocument())
    for (const { path, method, operation } of operations(document)) {
      const has = (status: number) => status in operation.responses
      if (MUTATIONS.includes(method) && operation['x-permission'] !== 'public') {
        for (const status of [204, 409, 422]) if (!has(status)) problems.push(`${method} ${path}: no ${status}`)
        expect(resolve(document, operation.responses['204']).content).toBeUndefined()
      }
      if (operation.requestBody && !has(413)) problems.push(`${method} ${path}: no 413`)
    }
    expect(problems).toEqual([])
    const doc = JSON.parse(await fetchDocument())
    for (const path of ['/api/auth/login', '/api/auth/register']) {
      // The error envelope: the shared schema, or the route's own copy of it.
      const schema = resolve(doc, doc.paths[path].post.responses['429']).content['application/json'].schema
      const envelope = schema.$ref === '#/components/schemas/ErrorEnvelope' ? doc.components.schemas.ErrorEnvelope : schema
      expect(envelope.required).toEqual(expect.arrayContaining(['success', 'message', 'code', 'errors']))
      expect(envelope.properties.success.const).toBe(false)
    }
    const tooLarge = resolve(doc, doc.paths['/api/auth/login'].post.responses['413'])
    expect(resolve(doc, tooLarge.content['application/json'].schema).properties.code.enum).toEqual(['PAYLOAD_TOO_LARGE'])
  })

  test('a real answer matches its documented status: an idempotent replay is a 204 listed for that route', async () => {
    const doc = JSON.parse(await fetchDocument())
    const owner = (await t.app.workspace()).owner
    const send = () => t.app.post('/office/v1/outlets/channel-groups', { name: 'Docs replay' }, { token: owner.token, idempotencyKey: 'docs-replay-1' })
    expect((await send()).status).toBe(201)
    const replay = await send()
    expect(replay.status).toBe(204)
    const documented = resolve(doc, doc.paths['/api/office/v1/outlets/channel-groups'].post.responses['204'])
    expect(documented.description).toStartWith('IDEMPOTENT_DUPLICATE')
    // The replay of a create names what the first run created, as the document says it may.
    expect(replay.headers.get('location')).toStartWith('/api/office/v1/outlets/channel-groups/')
    expect(Object.keys(documented.headers)).toEqual(expect.arrayContaining(['Location', 'X-Idempotency-Code']))
  })
})

describe('the contract a client generator reads (docs/API.md "API contract")', () => {
  let doc: Json
  beforeAll(async () => {
    doc = (await t.app.get('/docs/json')).body
  })
  /** Every `$ref` in a node. */
  const refs = (node: unknown, found: string[] = []): string[] => {
    if (Array.isArray(node)) for (const item of node) refs(item, found)
    else if (typeof node === 'object' && node !== null) {
      const object = node as Json
      if (typeof object.$ref === 'string') found.push(object.$ref)
      for (const value of Object.values(object)) refs(value, found)
    }
    return found
  }
  const parametersOf = (operation: Json): Json[] => ((operation.parameters ?? []) as Json[]).map((parameter) => resolve(doc, parameter))

  test('each resource is one named schema in components.schemas, referred to wherever it is answered; every $ref resolves', () => {
    const names = Object.keys(doc.components.schemas)
    for (const name of [
      'Visit',
      'VisitListItem',
      'Submission',
      'Outlet',
      'Project',
      'Form',
      'Team',
      'User',
      'Role',
      'Attendance',
      'FeedChange',
      'ChannelGroup',
      'ErrorEnvelope',
    ])
      expect(names).toContain(name)
    expect(doc['x-schema-name-conflicts']).toBeUndefined()
    // A named schema is never left inline: a titled node in the paths would be one.
    const titled = (node: unknown): string[] =>
      Array.isArray(node)
        ? node.flatMap(titled)
        : typeof node === 'object' && node !== null
          ? [...(typeof (node as Json).title === 'string' ? [(node as Json).title as string] : []), ...Object.values(node).flatMap(titled)]
          : []
    expect(titled(doc.paths)).toEqual([])
    const checkIn = doc.paths['/api/app/v1/visits/{id}/check-in'].post.responses['200'].content['application/json'].schema
    expect(checkIn.properties.data).toEqual({ $ref: '#/components/schemas/Visit' })
    expect(doc.components.schemas.Visit.properties.submissions.items).toEqual({ $ref: '#/components/schemas/Submission' })
    const unresolved = [...new Set(refs(doc))].filter((ref) => resolve(doc, { $ref: ref }) === undefined)
    expect(unresolved).toEqual([])
  })

  test('closed vocabularies in answers are enums: visit and submission status, sync entity and op', () => {
    const { Visit, VisitListItem, Submission, FeedChange } = doc.components.schemas
    expect(Visit.properties.status.enum).toEqual([...VISIT_STATUSES])
    expect(VisitListItem.properties.status.enum).toEqual([...VISIT_STATUSES])
    expect(Submission.properties.status.enum).toEqual([...SUBMISSION_STATUSES])
    expect(FeedChange.properties.entity.enum).toEqual(feedEntities().map((entity) => entity.name))
    expect(FeedChange.properties.entity.enum).toHaveLength(19)
    expect(FeedChange.properties.op.enum).toEqual(['upsert', 'delete'])
  })

  test('check-in and check-out document latitude and longitude as required numbers; without them the answer is 400 LOCATION_REQUIRED', async () => {
    for (const step of ['check-in', 'check-out']) {
      const body = doc.paths[`/api/app/v1/visits/{id}/${step}`].post.requestBody.content['application/json'].schema
      expect(body.required).toEqual(expect.arrayContaining(['latitude', 'longitude']))
      expect(body.properties.latitude.type).toBe('number')
      expect(body.properties.longitude.type).toBe('number')
      expect(body['x-required']).toBeUndefined()
    }
    const ws = await t.app.workspace()
    const user = await t.app.member(ws, 'user')
    const site = await visitSite(t.app, ws.owner.token)
    const visit = await newVisit(t.app, ws.owner.token, { outlet_id: site.outlet.id, project_id: site.project.id, user_ids: [user.user.id] })
    for (const body of [{}, { latitude: null, longitude: 2 }]) {
      const reply = await checkIn(t.app, visit.id, user, body)
      expect([reply.status, reply.body.code]).toEqual([400, 'LOCATION_REQUIRED'])
    }
    expect((await checkIn(t.app, visit.id, user, HERE)).status).toBe(200)
    const reply = await checkOut(t.app, visit.id, user, {})
    expect([reply.status, reply.body.code]).toEqual([400, 'LOCATION_REQUIRED'])
  })

  test('path ids are integers ≥ 1, not text-or-number with a default; no parameter is an anyOf', () => {
    const problems: string[] = []
    for (const { path, method, operation } of operations(doc))
      for (const parameter of parametersOf(operation)) {
        if (parameter.schema.anyOf || 'default' in parameter.schema) problems.push(`${method} ${path} ${parameter.name}`)
        // A file's id is its storage name (text); every other path id is a row id.
        const rowId = parameter.in === 'path' && /(^|_)id$/.test(parameter.name) && !path.startsWith('/api/files/')
        if (rowId && (parameter.schema.type !== 'integer' || parameter.schema.minimum !== 1))
          problems.push(`${method} ${path} ${parameter.name}: ${JSON.stringify(parameter.schema)}`)
      }
    expect(problems).toEqual([])
  })

  test('the kernel’s headers are documented: X-Idempotency-Key on every authenticated mutation, ETag/If-None-Match/304 on JSON GETs, 503 on writes, Retry-After on 429 and 503', () => {
    const problems: string[] = []
    for (const { path, method, operation } of operations(doc)) {
      const names = parametersOf(operation).map((parameter) => parameter.name)
      if (MUTATIONS.includes(method) && operation['x-permission'] !== 'public' && !names.includes('X-Idempotency-Key'))
        problems.push(`${method} ${path}: no X-Idempotency-Key`)
      const ok = resolve(doc, operation.responses['200'] ?? {})
      if (method === 'get' && ok.content?.['application/json']) {
        if (!ok.headers?.ETag) problems.push(`${method} ${path}: no ETag`)
        if (!names.includes('If-None-Match')) problems.push(`${method} ${path}: no If-None-Match`)
        if (!operation.responses['304']) problems.push(`${method} ${path}: no 304`)
      }
      // A write's 503 is SERVICE_BUSY (retry); a read's own 503 (health, an unreachable regional service) is the route's.
      for (const status of MUTATIONS.includes(method) ? ['429', '503'] : ['429'])
        if (operation.responses[status] && !resolve(doc, operation.responses[status]).headers?.['Retry-After'])
          problems.push(`${method} ${path}: ${status} without Retry-After`)
      if (MUTATIONS.includes(method) && !operation.responses['503']) problems.push(`${method} ${path}: no 503 SERVICE_BUSY`)
    }
    expect(problems).toEqual([])
  })

  test('a documented conditional GET answers as documented: ETag, then 304 for If-None-Match', async () => {
    const owner = (await t.app.workspace()).owner
    expect(doc.paths['/api/office/v1/outlets'].get.responses['304']).toBeDefined()
    const first = await t.app.get('/office/v1/outlets', { token: owner.token })
    const tag = first.headers.get('etag')
    expect(tag).toBeTruthy()
    const again = await t.app.get('/office/v1/outlets', { token: owner.token, headers: { 'if-none-match': tag! } })
    expect(again.status).toBe(304)
  })

  test('the /outlet-visits aliases are deprecated; no two operations share a summary or an operationId, and operationIds are identifiers', () => {
    const all = operations(doc)
    const aliases = all.filter(({ path }) => path.includes('/outlet-visits'))
    expect(aliases.length).toBeGreaterThan(10)
    for (const { operation } of aliases) expect(operation.deprecated).toBe(true)
    expect(all.filter(({ path }) => !path.includes('/outlet-visits')).filter(({ operation }) => operation.deprecated)).toEqual([])
    const repeated = (values: string[]) => values.filter((value, index) => values.indexOf(value) !== index)
    expect(repeated(all.map(({ operation }) => operation.summary))).toEqual([])
    expect(repeated(all.map(({ operation }) => operation.operationId))).toEqual([])
    expect(all.map(({ operation }) => operation.operationId).filter((id) => !/^[a-zA-Z][a-zA-Z0-9]*$/.test(id))).toEqual([])
  })

  test('no validator-only keyword leaks into the document, and it names its server', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
    const leaks = properties(doc).filter(([, schema]) => typeof nonNull(schema)?.error === 'string' || typeof schema.error === 'string')
    expect(leaks.map(([name]) => name)).toEqual([])
  })
})
