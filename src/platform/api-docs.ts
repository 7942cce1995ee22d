/**
 * GET /api/docs (the Scalar UI), /api/docs/scalar.js and /api/docs/json (OpenAPI 3.1).
 *
 * Works with no internet: the page loads the Scalar bundle from this service (the exact version
 * package.json pins, from node_modules or, in the compiled executable, embedded), never from a CDN,
 * and asks for no web fonts.
 *
 * The document is generated from the routes' own schemas (@elysiajs/openapi's generator), then
 * finished here, in one place, by rules that hold for every route because the platform kernel
 * (./http.ts) answers them, not the route:
 *  - every authenticated POST/PUT/PATCH/DELETE can answer 204 (X-Idempotency-Key replay),
 *    IDEMPOTENCY_KEY_IN_PROGRESS (409) and IDEMPOTENCY_KEY_REUSED (422);
 *  - every route that takes a body can answer PAYLOAD_TOO_LARGE (413);
 *  - each error entry's `code` is an enum of the codes that route can answer with under that status:
 *    the ones it declares with `responses(...)` (./schema.ts) and the kernel's own above;
 *  - timestamps (`*_at`) are `format: date-time`, calendar days (`*_date`, `date`) `format: date`, ids
 *    `integer`, and a string whose description lists its values ("pending, draft or completed") an `enum`;
 * Answers only a route knows (a rate limit's 429) it declares itself with `responses(...)`; the
 * WebSocket, which OpenAPI cannot describe as an operation, is described in the `info.description`
 * the composition root passes (src/ws/ws.routes.ts). It is serialised once, so every fetch gets the
 * same bytes.
 */
import { dirname, join } from 'node:path'
import { toOpenAPISchema } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
// Not in the package's exports map, so by path (npm installs it at the top of node_modules).
import { version as scalarVersion } from '../../node_modules/@scalar/api-reference/package.json'
import { embeddedAsset, IS_COMPILED } from './executable'
import { codeToStatus, type ErrorCode } from './errors'
import { ErrorEnvelope, errorResponses } from './schema'

export { scalarVersion }

/** The Scalar bundle; `npm run build` embeds it with `--asset`, which keeps a file's name, not its folders. */
const scalarBundlePath = () =>
  IS_COMPILED ? embeddedAsset('standalone.js') : join(dirname(Bun.resolveSync('@scalar/api-reference', import.meta.dir)), 'browser/standalone.js')

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
interface DocumentHead {
  info: { title: string; version: string; description?: string }
  components?: { schemas?: Record<string, unknown>; [field: string]: unknown }
  [field: string]: unknown
}

interface OpenApiDocument extends DocumentHead {
  paths: Record<string, Record<string, Operation>>
}

/**
 * Adds a code the kernel answers with to an operation's documented errors: into the `code` enum of
 * the status's entry when the route declared one, else as a new entry of that code alone.
 */
function addErrorCode(responses: Record<string, unknown>, code: ErrorCode) {
  const status = String(codeToStatus(code))
  const existing = responses[status] as { description?: string; content?: Record<string, { schema?: SchemaNode }> } | undefined
  const codeSchema = existing?.content?.['application/json']?.schema?.properties?.code
  if (!existing) responses[status] = errorResponses([code])[status]
  else if (Array.isArray(codeSchema?.enum) && !codeSchema.enum.includes(code)) {
    codeSchema.enum.push(code)
    existing.description = existing.description ? `${existing.description}, ${code}` : code
  }
}

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

/** The generated document → the published one (see the rules at the top of this file). */
export function finishDocument(document: OpenApiDocument): OpenApiDocument {
  document.components ??= {}
  document.components.schemas ??= {}
  document.components.schemas.ErrorEnvelope = JSON.parse(JSON.stringify(ErrorEnvelope))

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
    for (const [method, operation] of Object.entries(item)) {
      operation.responses ??= {}
      const responses = operation.responses
      const add = (status: number, response: object) => {
        responses[status] ??= response
      }
      const authenticated = operation['x-permission'] !== 'public'
      if (authenticated && MUTATIONS.has(method)) {
        add(204, {
          description: 'IDEMPOTENT_DUPLICATE: this X-Idempotency-Key already succeeded within 24 h; nothing ran again (no body, header x-idempotency-code)',
        })
        addErrorCode(responses, 'IDEMPOTENCY_KEY_IN_PROGRESS')
        addErrorCode(responses, 'IDEMPOTENCY_KEY_REUSED')
      }
      if (operation.requestBody) addErrorCode(responses, 'PAYLOAD_TOO_LARGE')
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
    }
  }
  refineSchemas(document.components.schemas)
  return document
}

const page = (title: string) => `<!doctype html>
<html>
  <head>
    <title>${title}</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-configuration='${JSON.stringify({ url: '/api/docs/json', withDefaultFonts: false, hideClientButton: true })}'></script>
    <script src="/api/docs/scalar.js?v=${scalarVersion}"></script>
  </body>
</html>`

export interface ApiDocsOptions {
  documentation: DocumentHead
}

/** Mount under the `/api` prefix, after the platform plugin (the routes are public and hidden). */
export function apiDocs({ documentation }: ApiDocsOptions) {
  const plugin = new Elysia({ name: 'api-docs' })
  let cached: { routes: number; body: string } | null = null
  const document = () => {
    // Generated on the first fetch, once every route is registered; again only if routes were added.
    const routes = (plugin as unknown as { getGlobalRoutes(): unknown[] }).getGlobalRoutes().length
    if (cached?.routes !== routes) {
      const generated = toOpenAPISchema(plugin) as unknown as Pick<OpenApiDocument, 'paths' | 'components'>
      const full = {
        openapi: '3.1.0',
        info: { ...documentation.info },
        ...(({ info, ...rest }) => rest)(documentation),
        paths: generated.paths,
        components: { ...documentation.components, schemas: { ...generated.components?.schemas, ...documentation.components?.schemas } },
      }
      cached = { routes, body: JSON.stringify(finishDocument(JSON.parse(JSON.stringify(full)))) }
    }
    return cached.body
  }
  const hidden = { detail: { hide: true } }

  return plugin
    .get('/docs', () => new Response(page(documentation.info.title), { headers: { 'content-type': 'text/html; charset=utf-8' } }), hidden)
    .get(
      '/docs/scalar.js',
      () =>
        new Response(Bun.file(scalarBundlePath()), {
          headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' },
        }),
      hidden,
    )
    .get('/docs/json', () => new Response(document(), { headers: { 'content-type': 'application/json; charset=utf-8' } }), hidden)
}
