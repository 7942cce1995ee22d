/**
 * The OpenAPI document as published at /api/docs/json (./api-docs.ts serves it): the generated one,
 * finished here, in one place, by rules that hold for every route because the platform kernel
 * (./http.ts) answers them, not the route:
 *  - every authenticated POST/PUT/PATCH/DELETE takes the X-Idempotency-Key header and can answer 204
 *    (a replay: no body, `X-Idempotency-Code`, `Location` when the first run created something), 409 (that
 *    key still running) and 422 (that key reused with another request);
 *  - every GET answering JSON carries an `ETag`, takes `If-None-Match` and can answer 304;
 *  - every route that takes a body can answer 413 (over 10 MiB); every 429 carries `Retry-After`; every
 *    POST/PUT/PATCH/DELETE can answer 503 SERVICE_BUSY (the database stayed locked) with `Retry-After`;
 *  - timestamps (`*_at`) are `format: date-time`, calendar days (`*_date`, `date`) `format: date`, ids
 *    `integer`, and a string whose description lists its values ("pending, draft or completed") an `enum`;
 *  - coercing path and query parameters (`t.Integer`) are their value's type (`integer, minimum 1`), not
 *    `anyOf` text-or-number; validator-only keywords (TypeBox's `error` message) are dropped;
 *  - the `/outlet-visits` aliases of the visit routes are `deprecated`, with summaries of their own;
 *  - a schema named with `named('Visit', …)` (./schema.ts) is listed once in `components.schemas` and
 *    referred to; so are the error envelope, and the answers and parameters many operations repeat
 *    (`components.responses`, `components.parameters`). A client generator gets one `Visit` type.
 * Answers only a route knows (a rate limit's 429) it declares itself with `responses(...)`; the
 * WebSocket, which OpenAPI cannot describe as an operation, is described in the `info.description`
 * the composition root passes (src/ws/ws.routes.ts).
 */
import { codeToStatus, type ErrorCode } from '../../lib/errors'
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_REQUIRED } from '../data/idempotency'
import { ErrorEnvelope, errorResponses } from './schema'

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
const MUTATIONS = new Set(['post', 'put', 'patch', 'delete'])

/** A JSON Schema node as the generator emits it; walked and rewritten in place. */
interface SchemaNode {
  type?: string | string[]
  anyOf?: SchemaNode[]
  format?: string
  enum?: unknown[]
  description?: unknown
  const?: unknown
  properties?: Record<string, SchemaNode>
  [keyword: string]: unknown
}

interface Operation {
  responses?: Record<string, unknown>
  requestBody?: unknown
  'x-permission'?: unknown
  [field: string]: unknown
}

/** What createApp states about the service (info, security); the paths are generated. */
export interface DocumentHead {
  info: { title: string; version: string; description?: string }
  components?: { schemas?: Record<string, unknown>; [field: string]: unknown }
  [field: string]: unknown
}

export interface OpenApiDocument extends DocumentHead {
  paths: Record<string, Record<string, Operation>>
}

const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope'
const header = (description: string, schema: object = { type: 'string' }) => ({ description, schema })
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before trying again', { type: 'integer', minimum: 1 }) }

/** The header every authenticated mutation honours (docs/API.md §Idempotency). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'X-Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a second request with the same key within 24 h runs nothing and answers 204 (IDEMPOTENT_DUPLICATE); the same key with another request answers 422 IDEMPOTENCY_KEY_REUSED',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x21-\\x7e]+$' },
}
const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag of an earlier answer: 304 with no body while the answer is unchanged',
  schema: { type: 'string' },
}

/** The listing every visit route is also published under, kept for older phones (docs/API.md §Visits). */
const VISIT_ALIAS = '/outlet-visits'

/** `pending, draft or completed` (optionally followed by `; …`) → the listed values; else null. */
export function listedValues(description: unknown): string[] | null {
  if (typeof description !== 'string') return null
  const match = /^([a-z][a-z0-9_.]*(?:, [a-z][a-z0-9_.]*)*) or ([a-z][a-z0-9_.]*)(?:;.*)?$/.exec(description)
  return match ? [...match[1]!.split(', '), match[2]!] : null
}

const typesOf = (schema: SchemaNode): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [])

/** The property rules, applied to every schema of the document (recursively). */
function refineProperty(name: string, schema: SchemaNode) {
  if (typeof schema !== 'object' || schema === null) return
  // A nullable property generated as anyOf [X, null]: the rules apply to X.
  if (Array.isArray(schema.anyOf)) for (const option of schema.anyOf) if (typesOf(option)[0] !== 'null') refineProperty(name, option)
  const types = typesOf(schema)
  if (types.includes('string')) {
    if (/_at$/.test(name) || schema.format === 'iso-date-time') schema.format = 'date-time'
    else if (/(^|_)date$/.test(name) || schema.format === 'calendar-date') schema.format = 'date'
    const values = schema.enum ? null : listedValues(schema.description)
    if (values) schema.enum = types.includes('null') ? [...values, null] : values
  }
  if ((name === 'id' || name.endsWith('_id')) && types.includes('number'))
    schema.type = Array.isArray(schema.type) ? schema.type.map((t) => (t === 'number' ? 'integer' : t)) : 'integer'
}

function refineSchemas(node: unknown) {
  if (Array.isArray(node)) return node.forEach(refineSchemas)
  if (typeof node !== 'object' || node === null) return
  const object = node as SchemaNode
  // Unions of string literals (anyOf [{const: a}, {const: b}]) read better as one enum.
  if (Array.isArray(object.anyOf) && object.anyOf.length > 0 && object.anyOf.every((option) => typeof option?.const === 'string')) {
    object.type = 'string'
    object.enum = object.anyOf.map((option) => option.const)
    delete object.anyOf
  }
  if (object.properties && typeof object.properties === 'object') {
    for (const [name, schema] of Object.entries(object.properties)) refineProperty(name, schema)
  }
  for (const value of Object.values(object)) refineSchemas(value)
}

/** The named schemas (`{title: 'Visit'}` on a TypeBox schema, platform/schema.ts `named`), each moved once into components. */
function hoistNamed(root: unknown, schemas: Record<string, unknown>, conflicts: Set<string>) {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (typeof node !== 'object' || node === null) return node
    const object = node as SchemaNode
    for (const [key, value] of Object.entries(object)) object[key] = visit(value)
    if (typeof object.title !== 'string' || (object.type === undefined && object.anyOf === undefined)) return object
    const name = object.title
    // A Nullable(Named) comes out as `type: [object, null]`: the component is the object, the use site nullable.
    const nullable = Array.isArray(object.type) && object.type.includes('null')
    const body: SchemaNode = { ...object }
    if (nullable) {
      const types = (object.type as string[]).filter((type) => type !== 'null')
      body.type = types.length === 1 ? types[0] : types
    }
    const known = schemas[name]
    if (known === undefined) schemas[name] = body
    else if (JSON.stringify(known) !== JSON.stringify(body)) {
      conflicts.add(name)
      return object
    }
    const ref = { $ref: `#/components/schemas/${name}` }
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref
  }
  return visit(root)
}

/** True for a copy of the error envelope (platform/schema.ts `responses` writes one per status). */
function isErrorEnvelope(schema: unknown): boolean {
  const properties = (schema as SchemaNode | null)?.properties
  return (
    typeof properties === 'object' &&
    Object.keys(properties).sort().join() === 'code,errors,message,success' &&
    (properties.success as SchemaNode).const === false
  )
}

/**
 * A coercing query or path parameter (`t.Integer`, `t.Numeric`, `t.Boolean`) is generated as
 * `anyOf [string with a format, the value]` (with a `default` of 0 for the string): the parameter is the value.
 */
function parameterSchema(schema: SchemaNode): SchemaNode {
  if (!Array.isArray(schema.anyOf) || schema.anyOf.length !== 2) return schema
  const text = schema.anyOf.find((option) => option.type === 'string' && ['integer', 'numeric', 'boolean'].includes(String(option.format)))
  const value = schema.anyOf.find((option) => option !== text)
  if (!text || !value || !['integer', 'number', 'boolean'].includes(String(value.type))) return schema
  const { anyOf, default: _default, ...rest } = schema
  return { ...rest, ...value }
}

interface Parameter {
  name: string
  in: string
  schema?: SchemaNode
  [field: string]: unknown
}

/** Properties a body schema marks `x-required` (the phone's coordinates): required and non-null in the document. */
function documentedRequired(node: unknown) {
  if (Array.isArray(node)) return node.forEach(documentedRequired)
  if (typeof node !== 'object' || node === null) return
  const object = node as SchemaNode
  const names = object['x-required']
  if (Array.isArray(names) && object.properties) {
    delete object['x-required']
    object.required = [...new Set([...((object.required as string[] | undefined) ?? []), ...names])]
    for (const name of names) {
      const property = object.properties[name]
      if (property && Array.isArray(property.type)) property.type = property.type.filter((type) => type !== 'null')[0]
    }
  }
  for (const value of Object.values(object)) documentedRequired(value)
}

/** Keywords the validator reads that are not JSON Schema (TypeBox's `error` message). */
function stripValidatorKeywords(node: unknown) {
  if (Array.isArray(node)) return node.forEach(stripValidatorKeywords)
  if (typeof node !== 'object' || node === null) return
  const object = node as SchemaNode
  if (typeof object.error === 'string') delete object.error
  for (const value of Object.values(object)) stripValidatorKeywords(value)
}

/** The alias of a visit route: deprecated, and summarised so that no two operations read the same. */
function markAlias(path: string, operation: Operation) {
  if (!path.includes(VISIT_ALIAS)) return
  operation.deprecated = true
  operation.summary = `${operation.summary ?? ''} (deprecated alias: use the same operation under /visits)`.trim()
}

/** A summary several operations share (one route under two sides) names its path on each: an SDK lists them apart. */
function distinctSummaries(document: OpenApiDocument) {
  const all = Object.entries(document.paths).flatMap(([path, item]) => Object.values(item).map((operation) => ({ path, operation })))
  const uses = new Map<unknown, number>()
  for (const { operation } of all) uses.set(operation.summary, (uses.get(operation.summary) ?? 0) + 1)
  for (const { path, operation } of all)
    if (typeof operation.summary === 'string' && (uses.get(operation.summary) ?? 0) > 1)
      operation.summary = `${operation.summary} (${path.replace(/^\/api/, '')})`
}

/** Names of the shared responses, by status (components.responses). */
const RESPONSE_NAMES: Record<string, string> = {
  '204': 'IdempotentDuplicate',
  '304': 'NotModified',
  '400': 'ValidationError',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '422': 'Unprocessable',
  '429': 'RateLimited',
  '503': 'ServiceBusy',
}

/**
 * Answers and parameters repeated across operations, listed once: per status the most frequent answer
 * becomes `components.responses.<name>`, per parameter name the most frequent definition
 * `components.parameters.<name>`; every identical occurrence refers to it (ties: the first met).
 */
function shareRepeated(document: OpenApiDocument) {
  const most = <T>(groups: Map<string, Map<string, { value: T; count: number }>>) => {
    const chosen = new Map<string, string>()
    for (const [key, variants] of groups) {
      let best: [string, number] | null = null
      for (const [json, { count }] of variants) if (count > 1 && (!best || count > best[1])) best = [json, count]
      if (best) chosen.set(key, best[0])
    }
    return chosen
  }
  const count = <T>(groups: Map<string, Map<string, { value: T; count: number }>>, key: string, value: T) => {
    const json = JSON.stringify(value)
    const variants = groups.get(key) ?? new Map()
    groups.set(key, variants)
    const seen = variants.get(json)
    if (seen) seen.count++
    else variants.set(json, { value, count: 1 })
  }
  const responses = new Map<string, Map<string, { value: unknown; count: number }>>()
  const parameters = new Map<string, Map<string, { value: unknown; count: number }>>()
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item))
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) if (RESPONSE_NAMES[status]) count(responses, status, response)
    for (const parameter of (operation.parameters as Parameter[] | undefined) ?? []) count(parameters, `${parameter.in}:${parameter.name}`, parameter)
  }
  const sharedResponses = most(responses)
  const sharedParameters = most(parameters)
  const parameterName = (key: string) => {
    const [place, name] = key.split(':') as [string, string]
    const base = name.replace(/(^|[-_])([a-zA-Z])/g, (_, _sep: string, letter: string) => letter.toUpperCase())
    return place === 'path' ? `${base}Path` : base
  }
  const components = document.components as NonNullable<DocumentHead['components']>
  components.responses = Object.fromEntries(
    [...sharedResponses].map(([status, json]) => [RESPONSE_NAMES[status], JSON.parse(json)]).sort(([a], [b]) => a.localeCompare(b)),
  )
  components.parameters = Object.fromEntries(
    [...sharedParameters].map(([key, json]) => [parameterName(key), JSON.parse(json)]).sort(([a], [b]) => a.localeCompare(b)),
  )
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses ?? {}))
      if (sharedResponses.get(status) === JSON.stringify(response)) operation.responses![status] = { $ref: `#/components/responses/${RESPONSE_NAMES[status]}` }
    if (Array.isArray(operation.parameters))
      operation.parameters = (operation.parameters as Parameter[]).map((parameter) => {
        const key = `${parameter.in}:${parameter.name}`
        return sharedParameters.get(key) === JSON.stringify(parameter) ? { $ref: `#/components/parameters/${parameterName(key)}` } : parameter
      })
  }
}

type Response = { description?: string; headers?: object; content?: Record<string, { schema?: unknown }> }

/**
 * Adds a code the kernel answers with to an operation's documented errors: into the `code` enum of
 * the status's entry when the route declared one, else as a new entry of that code alone.
 */
function addErrorCode(responses: Record<string, Response>, code: ErrorCode) {
  const status = String(codeToStatus(code))
  const existing = responses[status]
  const properties = (existing?.content?.['application/json']?.schema as SchemaNode | undefined)?.properties
  const codeSchema = properties?.code as SchemaNode | undefined
  if (!existing) responses[status] = errorResponses([code])[status] as Response
  else if (properties && Array.isArray(codeSchema?.enum) && !codeSchema.enum.includes(code)) {
    codeSchema.enum.push(code)
    existing.description = existing.description ? `${existing.description}, ${code}` : code
    // The kernel's codes carry no details: an entry documenting fixed ones now also allows the open object.
    const open = ErrorEnvelope.properties.errors as unknown as SchemaNode
    const details = properties.errors as SchemaNode
    if (details.type !== 'object' || details.properties !== undefined)
      properties.errors = { anyOf: [...(details.anyOf ?? [details]), JSON.parse(JSON.stringify(open))] }
  }
}

/** The rules of one operation: the kernel's answers, headers and parameters (see the top of this file). */
function finishOperation(path: string, method: string, operation: Operation) {
  operation.responses ??= {}
  const responses = operation.responses as Record<string, Response>
  for (const [status, response] of Object.entries(responses)) {
    const json = response.content?.['application/json']
    if (json && isErrorEnvelope(json.schema)) {
      const node = json.schema as SchemaNode
      const description = node.description
      if (typeof description === 'string' && /^Response for status/.test(response.description ?? '')) response.description = description
      // An entry whose `code` lists the codes the route answers with keeps that enum (`responses(…, codes)`,
      // ./schema.ts); an envelope without one is the shared component.
      if (!Array.isArray((node.properties?.code as SchemaNode | undefined)?.enum)) json.schema = { $ref: ERROR_ENVELOPE_REF }
    }
    if (status === '429') response.headers = { ...RETRY_AFTER, ...response.headers }
  }
  const add = (status: number, response: object) => {
    responses[status] ??= response as Response
  }
  const parameters = ((operation.parameters as Parameter[] | undefined) ?? []).map((parameter) =>
    parameter.schema ? { ...parameter, schema: parameterSchema(parameter.schema) } : parameter,
  )
  const authenticated = operation['x-permission'] !== 'public'
  if (authenticated && MUTATIONS.has(method)) {
    const required = operation[IDEMPOTENCY_REQUIRED] === true
    delete operation[IDEMPOTENCY_REQUIRED]
    parameters.push(
      required
        ? { ...IDEMPOTENCY_KEY_PARAMETER, required: true, description: `Required here. ${IDEMPOTENCY_KEY_PARAMETER.description}` }
        : IDEMPOTENCY_KEY_PARAMETER,
    )
    if (required) addErrorCode(responses, 'IDEMPOTENCY_KEY_REQUIRED')
    add(204, {
      description: 'IDEMPOTENT_DUPLICATE: this X-Idempotency-Key already succeeded within 24 h; nothing ran again (no body, header x-idempotency-code)',
      headers: {
        'X-Idempotency-Code': header('IDEMPOTENT_DUPLICATE', { type: 'string', enum: ['IDEMPOTENT_DUPLICATE'] }),
        Location: header('When the first run created a resource: where to read it'),
      },
    })
    addErrorCode(responses, 'IDEMPOTENCY_KEY_IN_PROGRESS')
    addErrorCode(responses, 'IDEMPOTENCY_KEY_REUSED')
  }
  if (method === 'get' && responses['200']?.content?.['application/json']) {
    parameters.push(IF_NONE_MATCH_PARAMETER)
    responses['200'].headers = { ETag: header('The representation’s tag: send it back as If-None-Match'), ...responses['200'].headers }
    add(304, { description: 'Not modified: the If-None-Match tag names the current answer (no body)', headers: { ETag: header('The same tag') } })
  }
  if (operation.requestBody) addErrorCode(responses, 'PAYLOAD_TOO_LARGE')
  // A write that found the database locked past its wait (./http.ts toAppError).
  if (MUTATIONS.has(method)) {
    addErrorCode(responses, 'SERVICE_BUSY')
    responses['503']!.headers = { ...RETRY_AFTER, ...responses['503']!.headers }
  }
  if (parameters.length > 0) operation.parameters = parameters
  markAlias(path, operation)
  // `postApiAppV1Outlet-visitsByIdCheck-in` → `postApiAppV1OutletVisitsByIdCheckIn`: a valid identifier in every SDK.
  if (typeof operation.operationId === 'string')
    operation.operationId = operation.operationId.replace(/[-_.]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase())
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
}

/** The generated document → the published one (see the rules at the top of this file). */
export function finishDocument(document: OpenApiDocument): OpenApiDocument {
  document.components ??= {}
  document.components.schemas ??= {}
  document.components.schemas.ErrorEnvelope = JSON.parse(JSON.stringify(ErrorEnvelope))
  document.servers ??= [{ url: '/', description: 'This service (every path starts with /api)' }]

  // First, so that a route's `code` union is already an `enum` the kernel's codes are added to.
  refineSchemas(document.paths)
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      if (!HTTP_METHODS.includes(method)) delete item[method]
    }
    if (Object.keys(item).length === 0) {
      delete document.paths[path]
      continue
    }
    for (const [method, operation] of Object.entries(item)) finishOperation(path, method, operation)
  }
  distinctSummaries(document)
  stripValidatorKeywords(document.paths)
  documentedRequired(document.paths)
  refineSchemas(document.paths)
  refineSchemas(document.components.schemas)
  const conflicts = new Set<string>()
  const named: Record<string, unknown> = {}
  document.paths = hoistNamed(document.paths, named, conflicts) as OpenApiDocument['paths']
  // Named schemas first met inside another named schema were hoisted with it; sorted for a stable document.
  document.components.schemas = Object.fromEntries(Object.entries({ ...document.components.schemas, ...named }).sort(([a], [b]) => a.localeCompare(b)))
  if (conflicts.size > 0) document['x-schema-name-conflicts'] = [...conflicts].sort()
  shareRepeated(document)
  return document
}
