/**
 * The error catalogue (src/platform/errors.ts): services throw a code, the catalogue gives its status.
 * A code outside the catalogue does not compile (`ErrorCode` is a closed union); these tests hold the
 * catalogue and the client's copy, docs/API.md §Errors, to the same statuses.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AlreadyExists, AppError, codeToStatus, ERROR_CODES, type ErrorCode, NotFound } from '../src/lib/errors'
import { useTestApp } from './harness'

const t = useTestApp()
type Json = Record<string, any>

/** docs/API.md §Errors: `code` (or `<ENTITY>_…` template) → the status its row gives. */
function documentedStatuses(): Map<string, number> {
  const api = readFileSync(join(import.meta.dir, '../docs/API.md'), 'utf8')
  const section = api.slice(api.indexOf('## Errors'), api.indexOf('\n## ', api.indexOf('## Errors') + 1))
  const statuses = new Map<string, number>()
  for (const row of section.split('\n').filter((line) => /^\| \d{3} \|/.test(line))) {
    const [, status, codes] = row.split('|').map((cell) => cell.trim())
    for (const [, code] of codes!.matchAll(/`([A-Z<>_]+)`/g)) statuses.set(code!, Number(status))
  }
  return statuses
}

const templateOf = (code: string) => code.replace(/^[A-Z_]+?_(NOT_FOUND|ALREADY_EXISTS)$/, (_, suffix) => `<ENTITY>_${suffix}`)

describe('the error catalogue', () => {
  const documented = documentedStatuses()

  test('docs/API.md lists every code of the catalogue (or its <ENTITY>_… template) with the catalogue’s status', () => {
    const mismatches = ERROR_CODES.filter((code) => {
      const status = documented.get(code) ?? documented.get(templateOf(code))
      return status !== codeToStatus(code)
    }).map((code) => `${code}: catalogue ${codeToStatus(code)}, docs/API.md ${documented.get(code) ?? documented.get(templateOf(code))}`)
    expect(mismatches).toEqual([])
  })

  test('every code docs/API.md lists is in the catalogue', () => {
    const known = new Set<string>(ERROR_CODES.map(templateOf).concat(ERROR_CODES))
    expect([...documented.keys()].filter((code) => !known.has(code))).toEqual([])
  })

  test('the status follows from the code: the thrower never chooses it', () => {
    expect(new AppError('INVALID_VISIT_STATUS').status).toBe(409)
    expect(new AppError('OUTSIDE_GEOFENCE', 'you are 120 m away').status).toBe(422)
    expect(new AppError('RATE_LIMITED').status).toBe(429)
    expect(new AppError('SERVICE_BUSY').status).toBe(503)
    expect(new NotFound('CHANNEL_GROUP')).toMatchObject({ status: 404, code: 'CHANNEL_GROUP_NOT_FOUND', message: 'channel group not found' })
    expect(new AlreadyExists('USER', 'email')).toMatchObject({
      status: 409,
      code: 'USER_ALREADY_EXISTS',
      errors: { email: ['user with this email already exists'] },
    })
  })

  test('a code outside the catalogue does not compile', () => {
    // @ts-expect-error: a misspelt code is not an ErrorCode (tsc --noEmit fails if this line compiles).
    const misspelt: ErrorCode = 'INVALID_VISIT_STATE'
    expect(ERROR_CODES).not.toContain(misspelt)
  })
})

/** Every documented operation with its error entries: status → the `code` enum listed there. */
/** A node of the document, with a `$ref` (to a shared response or a named schema) followed. */
const deref = (doc: Json, node: Json | undefined): Json | undefined =>
  node?.$ref
    ? deref(
        doc,
        (node.$ref as string)
          .slice(2)
          .split('/')
          .reduce((at: Json, key) => at?.[key], doc),
      )
    : node

async function documentedErrors() {
  const doc = (await t.app.get('/docs/json')).body as Json
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => {
      const codes = new Map<number, string[]>()
      const details = new Map<number, Json | undefined>()
      for (const [status, shared] of Object.entries((operation as Json).responses ?? {})) {
        const response = deref(doc, shared as Json)!
        const schema = deref(doc, (response as Json).content?.['application/json']?.schema)
        details.set(Number(status), deref(doc, schema?.properties?.errors))
        // An answer that is not the error envelope (the health check's 503 reply) has no error code.
        if (Number(status) >= 400 && !(schema && !schema.properties?.errors)) codes.set(Number(status), schema?.properties?.code?.enum ?? [])
      }
      return { path, method, public: (operation as Json)['x-permission'] === 'public', codes, details }
    }),
  )
}

/** Codes any path can answer, documented once in docs/API.md §Errors rather than on every route. */
const ANY_PATH: ErrorCode[] = ['ROUTE_NOT_FOUND', 'INTERNAL_ERROR', 'SERVICE_BUSY']

describe('error codes in the OpenAPI document', () => {
  test('the errors of codes with fixed details are documented by name (ERROR_DETAILS), and real answers carry them', async () => {
    const documented = await documentedErrors()
    const entry = (method: string, path: string, status: number) => documented.find((one) => one.method === method && one.path === path)!.details.get(status)!
    // A route whose only 422 is SUBMISSION_REQUIRED: errors.form_ids, a list of form ids.
    expect(JSON.stringify(entry('post', '/api/app/v1/visits/{id}/check-out', 422))).toMatch(/"form_ids":\{[^}]*"type":"array","items":\{"type":"integer"\}/)
    // A master-data delete's 409: errors.channel_count.
    const channelGroupDelete = entry('delete', '/api/office/v1/outlets/channel-groups/{id}', 409)
    expect(JSON.stringify(channelGroupDelete)).toContain('channel_count')
    // VALIDATION_ERROR alone: field path → messages.
    expect(entry('post', '/api/office/v1/outlets/channel-groups', 400)).toMatchObject({
      type: 'object',
      patternProperties: { '^(.*)$': { type: 'array', items: { type: 'string' } } },
    })
    // And the answer itself has that shape.
    const ws = await t.app.workspace()
    const group = (await t.app.post('/office/v1/outlets/channel-groups', { name: 'Modern' }, { token: ws.owner.token })).body.data
    await t.app.post('/office/v1/outlets/channels', { name: 'Minimarket', channel_group_id: group.id }, { token: ws.owner.token })
    const refused = await t.app.delete(`/office/v1/outlets/channel-groups/${group.id}`, { token: ws.owner.token })
    expect(refused.status).toBe(409)
    expect(refused.body.errors).toEqual({ channel_count: 1 })
  })

  test('each route’s error entry lists, as an enum, only catalogue codes of that entry’s status', async () => {
    const problems: string[] = []
    for (const { path, method, codes } of await documentedErrors()) {
      for (const [status, listed] of codes) {
        if (listed.length === 0) problems.push(`${method} ${path} ${status}: no code enum`)
        for (const code of listed) {
          if (!ERROR_CODES.includes(code as ErrorCode)) problems.push(`${method} ${path}: ${code} is not in the catalogue`)
          else if (codeToStatus(code as ErrorCode) !== status) problems.push(`${method} ${path}: ${code} listed under ${status}`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  test('every code of the catalogue is documented on a route that can answer it (but the few any path can answer)', async () => {
    const documented = new Set((await documentedErrors()).flatMap(({ codes }) => [...codes.values()].flat()))
    expect(ERROR_CODES.filter((code) => !documented.has(code) && !ANY_PATH.includes(code))).toEqual([])
  })

  test('a real error answer of every route is documented for that route: no token, then an unknown id and an empty body', async () => {
    const owner = (await t.app.workspace()).owner
    const problems: string[] = []
    for (const { path, method, public: open, codes } of await documentedErrors()) {
      if (!path.startsWith('/api/') || path.startsWith('/api/docs')) continue
      const url = path.slice('/api'.length).replace(/\{[^}]+\}/g, '987654')
      const body = ['post', 'put', 'patch'].includes(method) ? {} : undefined
      for (const token of open ? [undefined] : [undefined, owner.token]) {
        const answer = await t.app.request(method.toUpperCase(), url, { token, body })
        if (answer.status < 400) continue
        const code = answer.body?.code
        if (!codes.get(answer.status)?.includes(code))
          problems.push(`${method} ${path}: answered ${answer.status} ${code}, documented ${JSON.stringify(codes.get(answer.status) ?? [])}`)
      }
    }
    expect(problems).toEqual([])
  })
})
