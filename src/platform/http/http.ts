/**
 * The HTTP kernel: one named Elysia plugin every module uses. It holds no business rules, only what
 * every request goes through, in this order:
 *
 *   onRequest   request id, client IP, user agent, arrival time; 413 for a declared oversize body;
 *               X-Content-Type-Options: nosniff on every answer (the error answers below too)
 *   onParse     the body as raw bytes (kept for the idempotency fingerprint), then JSON; a malformed
 *               or non-JSON body is noted, not thrown, so authentication can answer first
 *   transform   macro `auth` / `public`: token → actor → permission → body problems → idempotency →
 *               path and query parameters (./request-shape.ts: compiled, Elysia's validator for the rest)
 *   validation  Elysia/TypeBox (the body); failures become 400 VALIDATION_ERROR with per-field errors
 *   handler     calls a service with `ctx`
 *   mapResponse a GET's JSON answer: ETag, 304 for a matching If-None-Match, Cache-Control
 *               private, no-cache, compression (./representation.ts); on other methods only
 *               Cache-Control: no-store on an answer carrying tokens
 *   onError     the only place errors become responses (./errors.ts)
 *
 * Routes declare `auth: 'channel_group.manage'` (key; access is `view` for *view keys, else `full`;
 * platform from the path: /office → web, /app → mobile), `auth: true` (any signed-in user) or
 * `public: true`; and, optionally, `idempotency: 'in-transaction'` (see IdempotencyMode).
 */
import { randomUUID } from 'node:crypto'
import type { TSchema } from '@sinclair/typebox'
import { TransformDecodeError } from '@sinclair/typebox/value'
import { Elysia, ElysiaCustomStatusResponse } from 'elysia'
import { authenticate } from '../actor'
import type { AuthedContext, Deps, RequestContext, RequestMeta } from '../context'
import { AppError, IdempotentReplay, ValidationFailed } from '../../lib/errors'
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_REQUIRED, IDEMPOTENT_METHODS, IdempotencyStore, type IdempotencyClaim } from '../data/idempotency'
import { JsonTooDeep, MAX_JSON_DEPTH, parseRequestJson } from '../../lib/json'
import { compress, noneMatchHits, represent } from './representation'
import { compileShaper, shapeOf, type Shaper } from './response-shape'
import { DECIMAL_INTEGER, prepareRequestSchema, type RequestPart, type RequestShaper } from './request-shape'
import { errorFields } from '../logger'
import { can, type Access, type Platform } from '../permissions'
import { fieldErrors, type ValueIssue } from './validation'

export const MAX_BODY_BYTES = 10 * 1024 * 1024
/**
 * What Bun.serve is told (`maxRequestBodySize`): no limit of its own. Bun refuses an oversize body
 * with a bare 413 before the app sees it (no envelope, no X-Request-Id), so the app enforces
 * MAX_BODY_BYTES itself: a declared Content-Length over it is refused without keeping a byte, and a
 * body without one (chunked) is kept only up to the limit. The 413 closes the connection.
 */
export const SERVER_MAX_REQUEST_BODY_SIZE = Number.MAX_SAFE_INTEGER
/**
 * Before the 413 of an oversize body is sent, the rest of that body is read and thrown away, up to
 * this many bytes in all and for at most DISCARD_MAX_MS. Closing the connection while the client is
 * still sending makes the kernel answer its next bytes with a reset, which discards the 413 the client
 * had not read yet: the client sees `EPIPE` / `ECONNRESET` instead of the envelope (Node clients
 * almost every time). A body declared larger than this is refused at once (nobody waits for a GiB).
 */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024
export const DISCARD_MAX_MS = 5_000
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
const CSV_TYPE = /^text\/csv\s*(?:;|$)/i

/**
 * Route option `idempotency`: `'in-transaction'` looks the X-Idempotency-Key up only inside the
 * mutation's transaction, not before the handler (see ClaimInput.checkBeforeHandler): for a route
 * whose handler refuses nothing before its transaction. `'required'`: the route refuses a request
 * without the header (400 IDEMPOTENCY_KEY_REQUIRED), for a write a phone must never make twice (an
 * order); the document marks the header required (IDEMPOTENCY_REQUIRED).
 */
export type IdempotencyMode = 'in-transaction' | 'required'

/** What the kernel's route options (macros) say about one route, gathered when the route is built. */
interface RouteOptions {
  checkInTransaction: boolean
  keyRequired?: boolean
  /** Path and query parameters the route declares as integers (see `notDecimal`). */
  integers?: { params: readonly string[]; query: readonly string[] }
  /** The kernel's readers of the route's path and query parameters, where it reads them (./request-shape.ts). */
  readers?: Partial<Record<RequestPart, RequestShaper>>
}

/**
 * One RouteOptions per route, keyed by the route's hook object. Elysia hands a macro only its own
 * option's value, and applies a route's macros in the order they are written; each macro's
 * `introspect` receives the route's hook object, so `auth` and `idempotency` meet here in either order.
 */
const routeOptions = new WeakMap<object, RouteOptions>()
function optionsOf(hook: object): RouteOptions {
  let options = routeOptions.get(hook)
  if (!options) {
    const { params, query } = hook as { params?: unknown; query?: unknown }
    options = { checkInTransaction: false, integers: { params: integerFields(params), query: integerFields(query) }, readers: takeReaders(hook) }
    routeOptions.set(hook, options)
  }
  return options
}

/**
 * The route's path and query parameter schemas the kernel reads itself (./request-shape.ts): Elysia is
 * given a stand-in that checks nothing, and the kernel runs the reader at the end of `prepare`, where
 * Elysia's check ran (after the transform hooks, before the body's).
 */
function takeReaders(hook: object): RouteOptions['readers'] {
  const schemas = hook as Partial<Record<RequestPart, TSchema>>
  const readers: RouteOptions['readers'] = {}
  for (const part of ['params', 'query'] as const) {
    const schema = schemas[part]
    const prepared = schema && typeof schema === 'object' ? prepareRequestSchema(part, schema) : null
    if (!prepared) continue
    schemas[part] = prepared.standIn
    readers[part] = prepared.shaper
  }
  return readers
}

interface FieldSchema {
  type?: string
  anyOf?: FieldSchema[]
  properties?: Record<string, FieldSchema>
}

const isInteger = (schema: FieldSchema): boolean => schema.type === 'integer' || (schema.anyOf?.some(isInteger) ?? false)

function integerFields(schema: unknown): string[] {
  const properties = (schema as FieldSchema | undefined)?.properties ?? {}
  return Object.keys(properties).filter((name) => isInteger(properties[name]))
}

export type AuthRequirement = true | string | { key: string; access: Access }

/**
 * Route detail value naming where a creating route's resource is read, when that is not the GET
 * route `<its own path>/:id` (docs/API.md §Idempotency): the detail route's path as the module
 * declares it (`'/app/v1/visits/me/:id'`), or `false` for none.
 */
export const CREATED_LOCATION = 'x-created-location'

interface RouteInfo {
  method: string
  path: string
  hooks: unknown
}

/**
 * Success status per route (`POST /api/office/v1/...` → 201) and where a created resource is read,
 * learnt by createApp from the built routes (`learn`): both need a route's method and path, which
 * no route option is told.
 */
export class RouteTable {
  private readonly statuses = new Map<string, number>()
  /** `GET <route>` → status → the schema its answer is shaped by (./response-shape.ts), and the compiled shapers. */
  private readonly shapes = new Map<string, Map<number, TSchema>>()
  private readonly shapers = new Map<string, Shaper>()
  /** `POST <route>` → the path of the GET route that reads what it creates; its last segment is the new id. */
  private readonly createdLocations = new Map<string, string>()

  /** The idempotency record stores the status a route answers on success: its lowest 2xx schema. */
  learn(all: readonly RouteInfo[]) {
    for (const route of all) {
      const response = (route.hooks as { response?: Record<string, unknown> }).response ?? {}
      const declared = Object.keys(response)
        .map(Number)
        .filter((status) => status >= 200 && status < 300)
      if (declared.length > 0) this.register(route.method, route.path, Math.min(...declared))
      for (const [status, schema] of Object.entries(response)) {
        const shape = shapeOf(schema)
        if (!shape) continue
        const key = `${route.method} ${route.path}`
        if (!this.shapes.has(key)) this.shapes.set(key, new Map())
        this.shapes.get(key)!.set(Number(status), shape)
      }
    }
    this.linkCreatedLocations(all)
  }

  register(method: string, path: string, status: number) {
    this.statuses.set(`${method} ${path}`, status)
  }

  /**
   * `value` as the route answers it with `status`: checked and reduced to its declared fields
   * (./response-shape.ts); unchanged for a route or status the kernel does not shape. Compiled at
   * the route's first answer with that status.
   */
  shapeAnswer(method: string, path: string | undefined, status: number, value: unknown): unknown {
    if (!path) return value
    const key = `${method} ${path} ${status}`
    let shaper = this.shapers.get(key)
    if (!shaper) {
      const schema = this.shapes.get(`${method} ${path}`)?.get(status)
      if (!schema) return value
      shaper = compileShaper(schema, `${method} ${path} (${status})`)
      this.shapers.set(key, shaper)
    }
    return shaper(value)
  }

  successStatus(method: string, path: string | undefined): number {
    return (path && this.statuses.get(`${method} ${path}`)) || 200
  }

  /**
   * Which routes create a resource that has a place of its own: every POST answering 201 whose
   * resource is read at `GET <its path>/:param` (the collection's detail route), or at the GET route
   * its detail declares under CREATED_LOCATION. Bulk creates and imports have no such route, nor
   * have the location batch, clock-in or registration, so their replays carry no Location. A
   * declaration that names no GET route fails here, at start-up.
   */
  linkCreatedLocations(all: readonly RouteInfo[]) {
    const reads = all.filter((route) => route.method === 'GET' && /\/:[^/]+$/.test(route.path)).map((route) => route.path)
    for (const route of all) {
      if (route.method !== 'POST' || this.successStatus('POST', route.path) !== 201) continue
      const declared = (route.hooks as { detail?: Record<string, unknown> }).detail?.[CREATED_LOCATION]
      if (declared === false) continue
      const detail =
        typeof declared === 'string' ? reads.find((path) => path.endsWith(declared)) : reads.find((path) => path.slice(0, path.lastIndexOf('/')) === route.path)
      if (typeof declared === 'string' && !detail) throw new Error(`${CREATED_LOCATION} of POST ${route.path}: no GET route ${declared}`)
      if (detail) this.createdLocations.set(route.path, detail)
    }
  }

  /**
   * The path the created resource's id is appended to, for a request on `route` with these path
   * parameters (`/api/office/v1/visits/5/submissions/`); null for routes that create nothing.
   */
  createdUnder(method: string, route: string | undefined, params: Record<string, unknown> | undefined): string | null {
    const detail = method === 'POST' && route ? this.createdLocations.get(route) : undefined
    if (!detail) return null
    const parent = detail.slice(0, detail.lastIndexOf('/') + 1)
    return parent.replace(/:([^/]+)/g, (_, name: string) => encodeURIComponent(String(params?.[name] ?? '')))
  }
}

/**
 * Per-request state the kernel keeps, found by the request it belongs to. Not on Elysia's context
 * object: a hook that hands the context to a function makes Elysia assume every hook reads
 * everything (its "sucrose" inference reads each hook's source), and its compiled handler then
 * copies every request's headers into an object and parses its cookies, which nothing here reads:
 * ~45 µs of a phone's incremental sync (docs/PERFORMANCE.md "Reads at their ceiling", sixth pass).
 * So every hook below takes only the context fields it names, and tests/http-kernel.test.ts checks
 * that no route's compiled handler parses cookies or copies headers.
 */
interface KernelState {
  meta: RequestMeta
  rawBody: ArrayBuffer | null
  /** Why the body cannot be used; thrown after authentication, so a stranger learns nothing. */
  bodyProblem: AppError | null
  ctx: RequestContext | null
  claim: IdempotencyClaim | null
  /** performance.now() at arrival, for the request log and the latency histogram; unset: not seen arriving. */
  started: number | undefined
  /** The status an error answer carries (Elysia's `set.status` does not see it). */
  failedWith: number
}

/** The context fields `prepare` reads. */
interface Arrival {
  request: Request
  path: string
  route?: string
  params?: Record<string, unknown>
  query?: Record<string, unknown>
}

const states = new WeakMap<Request, KernelState>()
/** The request's state; a request the kernel's onRequest never saw (none should) gets an empty one. */
function stateOf(request: Request): KernelState {
  let s = states.get(request)
  if (!s) {
    s = { meta: undefined as unknown as RequestMeta, rawBody: null, bodyProblem: null, ctx: null, claim: null, started: undefined, failedWith: 0 }
    states.set(request, s)
  }
  return s
}

/**
 * The client's address as TRUST_PROXY says to find it (src/config/env.ts): only what a trusted proxy
 * wrote counts. X-Forwarded-For grows to the right, each proxy appending the address it was reached
 * from, so the client is the `hops`-th entry from the right; whatever the client sent itself stands
 * left of it and is never read. With fewer entries than hops (not through the proxies), the socket's.
 */
export function clientIp(headers: Headers, socketAddress: string | null, trustProxy: number | 'fly'): string | null {
  if (trustProxy === 'fly') return headers.get('fly-client-ip')?.trim() || socketAddress
  if (trustProxy > 0) {
    // Several X-Forwarded-For lines arrive joined with ", " in their order: still one list.
    const entries = (headers.get('x-forwarded-for') ?? '').split(',').map((entry) => entry.trim())
    const hop = entries.length >= trustProxy ? entries[entries.length - trustProxy] : ''
    if (hop) return hop
  }
  return socketAddress
}

function platformOf(path: string): Platform | null {
  if (path.startsWith('/api/office/')) return 'web'
  if (path.startsWith('/api/app/')) return 'mobile'
  return null
}

export function createPlatform(deps: Deps, routes: RouteTable) {
  const { clock, config, logger, db, tokens, idempotency, metrics } = deps
  // The request line is built only when it would be written (LOG_LEVEL debug or info).
  const logRequests = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'info'

  /** The transform step of a route (macro `auth` / `public`). */
  async function prepare(c: Arrival, requirement: AuthRequirement | null, options?: RouteOptions) {
    const s = stateOf(c.request)
    const actor = requirement === null ? null : await authenticate(db.read, tokens, c.request.headers.get('authorization'))
    if (actor && requirement !== true && requirement !== null) {
      const { key, access } =
        typeof requirement === 'string' ? { key: requirement, access: (requirement.endsWith('view') ? 'view' : 'full') as Access } : requirement
      const platform = platformOf(c.path)
      if (!platform || !can(actor.permissions, key, platform, access)) throw new AppError('FORBIDDEN')
    }
    if (s.bodyProblem) throw s.bodyProblem
    const repeated = repeatedQueryKeys(c.request.url)
    if (repeated) throw new ValidationFailed(repeated)
    const malformed = options?.integers && notDecimal(c, options.integers)
    if (malformed) throw new ValidationFailed(malformed)

    let claim: IdempotencyClaim | null = null
    const method = c.request.method
    if (actor && IDEMPOTENT_METHODS.has(method)) {
      const key = IdempotencyStore.parseKey(c.request.headers.get(IDEMPOTENCY_HEADER))
      if (key === null && options?.keyRequired) throw new AppError('IDEMPOTENCY_KEY_REQUIRED')
      if (key !== null) {
        const url = new URL(c.request.url)
        claim = await idempotency.claim(key, {
          workspaceId: actor.workspaceId,
          userId: actor.userId,
          method,
          target: url.pathname + url.search,
          rawBody: s.rawBody,
          successStatus: routes.successStatus(method, c.route),
          createdUnder: routes.createdUnder(method, c.route, c.params),
          checkBeforeHandler: !options?.checkInTransaction,
        })
      }
    }
    s.claim = claim
    s.ctx = { deps, meta: s.meta, actor, idempotency: claim }
    readParameters(c, options)
  }

  const release = ({ request }: { request: Request }) => {
    const claim = states.get(request)?.claim
    if (claim) idempotency.release(claim)
  }

  return (
    new Elysia({ name: 'platform' })
      .onRequest(({ request, set, server }) => {
        const incoming = request.headers.get('x-request-id')
        const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID()
        states.set(request, {
          started: performance.now(),
          failedWith: 0,
          meta: {
            requestId,
            ip: clientIp(request.headers, server?.requestIP(request)?.address ?? null, config.TRUST_PROXY),
            userAgent: request.headers.get('user-agent')?.slice(0, 512) ?? null,
            timestamp: clock.now().toISOString(),
          },
          rawBody: null,
          bodyProblem: null,
          ctx: null,
          claim: null,
        })
        set.headers['x-request-id'] = requestId
        set.headers['x-content-type-options'] = 'nosniff'
        const length = Number(request.headers.get('content-length') ?? 0)
        if (length > MAX_BODY_BYTES) throw payloadTooLarge()
      })
      // Draining an oversize body before its 413 (DISCARD_MAX_BYTES) needs a wait, which onRequest, kept
      // synchronous for every request, cannot do: this wrapper around the whole handler does it only for them.
      .wrap((handle, request) => {
        const length = Number(request.headers.get('content-length') ?? 0)
        if (length <= MAX_BODY_BYTES || length > DISCARD_MAX_BYTES) return handle
        return ((r: Request) => discardBody(r, length).then(() => handle(r))) as unknown as ReturnType<typeof handle>
      })
      .onParse({ as: 'global' }, async ({ request }) => await parseBody(request, stateOf(request)))
      // Elysia reads a hook's source to tell whether to wait for it: no call right after `return` keeps
      // this one synchronous, as the error path always was.
      .onError({ as: 'global' }, ({ code, error, query, params, request, path }) => {
        release({ request })
        const answer = errorAnswer({ code, error, query, params, request, path }, logger)
        return answer
      })
      .mapResponse({ as: 'global' }, ({ request, responseValue: returned, set, route }) => {
        // Error answers and replays (already Responses, built by onError above) pass untouched.
        if (states.get(request)?.failedWith) return
        const status = set.status ?? 200
        // Checked and reduced to the fields its schema declares (./response-shape.ts); a mismatch throws (500).
        // A status set by name matches no declared schema (Elysia's own check skipped those too).
        const value = returned instanceof Response || typeof status !== 'number' ? returned : routes.shapeAnswer(request.method, route, status, returned)
        if (request.method !== 'GET') {
          // An answer carrying tokens (register, login, refresh, switch-workspace) is never stored by a cache.
          // Mutation answers are sent as they are: no tag, no compression (docs/API.md §Caching and compression).
          if (carriesTokens(value)) set.headers['cache-control'] = 'no-store'
          // A shaped copy is sent as Elysia sends an object (Response.json; the status and headers set are merged in).
          return value === returned ? undefined : Response.json(value)
        }
        return representRead(request, value, set)
      })
      .onAfterResponse({ as: 'global' }, ({ request, set, route, path }) => {
        // After the answer is handed to the socket: one log line and one observation per request.
        const s = states.get(request)
        if (s?.started === undefined) return
        const seconds = (performance.now() - s.started) / 1000
        const status = s.failedWith || (typeof set.status === 'number' ? set.status : 200)
        metrics.observe(request.method, route || undefined, status, seconds)
        if (!logRequests) return
        const actor = s.ctx?.actor
        logger.info('request', {
          request_id: s.meta?.requestId,
          method: request.method,
          route: route || null,
          path: path.length > 512 ? `${path.slice(0, 512)}…` : path,
          status,
          duration_ms: Math.round(seconds * 100_000) / 100,
          user_id: actor?.userId ?? null,
          workspace_id: actor?.workspaceId ?? null,
          ip: s.meta?.ip ?? null,
        })
      })
      .macro({
        auth: (requirement: AuthRequirement) => {
          let options: RouteOptions | undefined
          return {
            // Bodies are JSON (the parser above does the work; this tells the OpenAPI document).
            parse: 'json' as never,
            // Shown in the OpenAPI document and read by the security test suite.
            detail: { security: [{ bearerAuth: [] }], 'x-permission': describeRequirement(requirement) } as never,
            introspect(hook: object) {
              options = optionsOf(hook)
            },
            // Hooks are arrow functions, never methods (`async transform(c) {`): Elysia reads a hook's source to
            // infer what it uses, and cannot parse a minified method (the executable), printing a
            // "[Sucrose] warning" that is not a JSON line on stdout at the first request.
            transform: async ({ request, path, route, params, query }) => {
              await prepare({ request, path, route, params, query }, requirement, options)
            },
            resolve: ({ request }) => ({ ctx: stateOf(request).ctx as AuthedContext }),
            afterResponse: release,
          }
        },
        idempotency: (mode: IdempotencyMode) => ({
          ...(mode === 'required' && { detail: { [IDEMPOTENCY_REQUIRED]: true } as never }),
          introspect(hook: object) {
            const options = optionsOf(hook)
            options.checkInTransaction = mode === 'in-transaction'
            options.keyRequired = mode === 'required'
          },
        }),
        public: (enabled: boolean) => {
          let options: RouteOptions | undefined
          return {
            parse: 'json' as never,
            detail: { security: [], 'x-permission': 'public' } as never,
            introspect(hook: object) {
              options = optionsOf(hook)
            },
            transform: async ({ request, path, route, params, query }) => {
              if (enabled) await prepare({ request, path, route, params, query }, null, options)
              else readParameters({ request, path, route, params, query }, options)
            },
            resolve: ({ request }) => ({ ctx: stateOf(request).ctx as RequestContext }),
          }
        },
      })
  )
}

/**
 * The body as the kernel reads it: its raw bytes (kept for the idempotency fingerprint), then JSON,
 * or text for a CSV upload. Problems are noted in `bodyProblem`, not thrown: Elysia would turn a
 * throw here into a generic parse error, and authentication answers first.
 */
async function parseBody(request: Request, s: KernelState): Promise<unknown> {
  const bytes = await readBody(request)
  if (bytes === null) {
    s.bodyProblem = payloadTooLarge()
    return null
  }
  s.rawBody = bytes
  if (bytes.byteLength === 0) return null
  const contentType = request.headers.get('content-type') ?? ''
  // CSV uploads (visit import) arrive as text; a JSON route then refuses a string body.
  if (CSV_TYPE.test(contentType)) return new TextDecoder().decode(bytes)
  if (!JSON_TYPE.test(contentType)) {
    s.bodyProblem = ValidationFailed.field('content-type', 'must be application/json')
    return null
  }
  try {
    const value = parseRequestJson(new TextDecoder().decode(bytes))
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
    s.bodyProblem = ValidationFailed.field('body', 'must be a JSON object')
  } catch (error) {
    s.bodyProblem = ValidationFailed.field('body', error instanceof JsonTooDeep ? `is nested more than ${MAX_JSON_DEPTH} levels deep` : 'is not valid JSON')
  }
  return null
}

/** The only place an error becomes a response: a replay's 204, or the error envelope (./errors.ts). */
function errorAnswer(
  c: { code: string | number; error: unknown; query: unknown; params: unknown; request: Request; path: string },
  logger: Deps['logger'],
): Response {
  const { code, error } = c
  const s = stateOf(c.request)
  if (error instanceof IdempotentReplay) {
    s.failedWith = 204
    const headers: Record<string, string> = {
      'x-request-id': s.meta?.requestId ?? '',
      'x-idempotency-code': 'IDEMPOTENT_DUPLICATE',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    }
    // The first run created this resource: a client that lost its answer learns the id here.
    if (error.location) headers.location = error.location
    return new Response(null, { status: 204, headers })
  }
  let failure: AppError
  try {
    failure = toAppError(code, error, { ...(c.query as object), ...(c.params as object) })
  } catch (mapping) {
    // The error could not even be described: still the envelope, never Bun's own 500 page.
    logger.error('error mapping failed', { request_id: s.meta?.requestId, ...errorFields(mapping) })
    failure = new AppError('INTERNAL_ERROR', 'an unexpected error occurred')
  }
  s.failedWith = failure.status
  if (failure.status >= 500) {
    logger.error('request failed', {
      request_id: s.meta?.requestId,
      method: c.request.method,
      path: c.path,
      ...errorFields(error),
    })
  }
  return new Response(JSON.stringify({ success: false, message: failure.message, code: failure.code, errors: failure.errors, ...failure.extra }), {
    status: failure.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': s.meta?.requestId ?? '',
      'x-content-type-options': 'nosniff',
      ...failure.headers,
    },
  })
}

/**
 * A GET's 200 answer (docs/API.md §Caching and compression, ./representation.ts): JSON gets its tag,
 * `Cache-Control: private, no-cache`, `Vary: Accept-Encoding` and, when large enough and accepted,
 * a content coding; a matching If-None-Match turns it into a 304 with those headers and no body. A
 * Response a route built itself with an ETag (a photo) gets the same 304. Runs after the route's
 * response schema has cleaned the value, so the tag covers exactly the bytes sent.
 */
function representRead(request: Request, value: unknown, set: { status?: number | string; headers: Record<string, string | number> }) {
  if (value instanceof Response) {
    const tag = value.status === 200 ? value.headers.get('etag') : null
    const condition = tag ? request.headers.get('if-none-match') : null
    if (!condition || !noneMatchHits(condition, tag!.replace(/^W\//, '').slice(1, -1))) return
    const headers = new Headers(value.headers)
    for (const name of ['content-length', 'content-type', 'content-encoding']) headers.delete(name)
    set.status = 304
    return new Response(null, { status: 304, headers })
  }
  if ((set.status !== undefined && set.status !== 200) || typeof value !== 'object' || value === null) return
  if (value.constructor !== Object && !Array.isArray(value)) return
  const json = JSON.stringify(value)
  const { hash, coding, headers } = represent(json, request.headers.get('accept-encoding'))
  const condition = request.headers.get('if-none-match')
  if (condition !== null && noneMatchHits(condition, hash)) {
    set.status = 304
    return withHeadersOf(set, null, 304, headers)
  }
  const type = { ...headers, 'content-type': 'application/json; charset=utf-8' }
  if (coding === 'identity') return withHeadersOf(set, json, 200, type)
  return withHeadersOf(set, compress(json, coding), 200, { ...type, 'content-encoding': coding })
}

/**
 * A Response carrying the headers gathered in `set.headers` (request id, nosniff) and `headers`, which
 * leaves `set.headers` empty: Elysia copies a returned Response whose `set` still holds headers into a
 * new one to merge them, its body read back as a stream (~40 µs of a cold phone sync; docs/PERFORMANCE.md
 * "Reads at their ceiling", sixth pass).
 */
function withHeadersOf(
  set: { headers: Record<string, string | number> },
  body: string | Uint8Array<ArrayBuffer> | null,
  status: number,
  headers: Record<string, string>,
) {
  const all: Record<string, string> = {}
  for (const name of Object.keys(set.headers)) {
    all[name] = String(set.headers[name])
    delete set.headers[name]
  }
  return new Response(body, { status, headers: Object.assign(all, headers) })
}

/** A session envelope: its `data` holds a refresh token (a 201 arrives wrapped by `status()`). */
function carriesTokens(value: unknown): boolean {
  const envelope = value instanceof ElysiaCustomStatusResponse ? value.response : value
  const data = (envelope as { data?: { refresh_token?: unknown } } | null)?.data
  return typeof data?.refresh_token === 'string'
}

const payloadTooLarge = () => new AppError('PAYLOAD_TOO_LARGE', 'request body is larger than 10 MiB', {}, { connection: 'close' })

/**
 * The body's bytes, or null when it is larger than MAX_BODY_BYTES. With a Content-Length (already
 * checked against the limit on arrival) Bun delivers at most that many bytes; without one, the
 * stream is read only until it passes the limit, so memory stays bounded whatever the client sends.
 */
async function readBody(request: Request): Promise<ArrayBuffer | null> {
  if (request.headers.has('content-length') || !request.body) return request.arrayBuffer()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > MAX_BODY_BYTES) {
      await discardRest(reader, total, DISCARD_MAX_BYTES)
      return null
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0].buffer.slice(chunks[0].byteOffset, chunks[0].byteOffset + chunks[0].byteLength) as ArrayBuffer
  const joined = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.byteLength
  }
  return joined.buffer
}

/** Reads and throws away a request's body (its declared `length` at most; see DISCARD_MAX_BYTES). */
async function discardBody(request: Request, length: number): Promise<void> {
  if (request.body) await discardRest(request.body.getReader(), 0, length)
}

/** Reads `reader` to its end or until `limit` bytes in all or DISCARD_MAX_MS have passed, keeping nothing. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, already: number, limit: number): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), DISCARD_MAX_MS)
  try {
    for (let total = already; total <= limit; ) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
    }
  } catch {
    // The client went away or the time ran out: the 413 is sent (or not) all the same.
  } finally {
    clearTimeout(timer)
    await reader.cancel().catch(() => {})
  }
}

/**
 * An integer path or query parameter is written in decimal digits. Elysia converts it with
 * `Number()`, which would also read `0x10` as 16, `1e3` as 1000 and ` 7` as 7: another spelling of
 * an id must not reach the row of that number (docs/API.md §Errors).
 */
function notDecimal(c: Arrival, integers: NonNullable<RouteOptions['integers']>): Record<string, string[]> | null {
  let errors: Record<string, string[]> | null = null
  const check = (values: Record<string, unknown> | undefined, names: readonly string[]) => {
    for (const name of names) {
      const value = values?.[name]
      if (typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
        errors ??= {}
        errors[name] = ['Expected integer']
      }
    }
  }
  if (integers.params.length) check(c.params, integers.params)
  if (integers.query.length) check((c as { query?: Record<string, unknown> }).query, integers.query)
  return errors
}

/**
 * The route's path and query parameters read by the kernel (./request-shape.ts), where Elysia's own
 * check ran: after the transform step, before the body's. In place: the context's objects are the
 * handler's `params` and `query`.
 */
function readParameters(c: Arrival, options: RouteOptions | undefined) {
  const readers = options?.readers
  if (readers?.params && c.params) refill(c.params, readers.params(c.params))
  if (readers?.query && c.query) refill(c.query, readers.query(c.query))
}

/** `target` made to hold exactly `values`' entries (the read parameters replace the text ones). */
function refill(target: Record<string, unknown>, values: Record<string, unknown>) {
  if (target === values) return
  for (const key of Object.keys(target)) if (!(key in values)) delete target[key]
  Object.assign(target, values)
}

/** Query parameters are single-valued: `?page=1&page=2` is ambiguous and refused. */
function repeatedQueryKeys(url: string): Record<string, string[]> | null {
  const start = url.indexOf('?')
  if (start === -1) return null
  const seen = new Set<string>()
  let repeated: Record<string, string[]> | null = null
  for (const key of new URLSearchParams(url.slice(start + 1)).keys()) {
    if (seen.has(key)) {
      repeated ??= {}
      repeated[key] = ['must be given at most once']
    }
    seen.add(key)
  }
  return repeated
}

function describeRequirement(requirement: AuthRequirement): string {
  if (requirement === true) return 'authenticated'
  if (typeof requirement === 'string') return `${requirement}:${requirement.endsWith('view') ? 'view' : 'full'}`
  return `${requirement.key}:${requirement.access}`
}

export type PlatformPlugin = ReturnType<typeof createPlatform>

/** Everything thrown, mapped to the error envelope's status, code, message and details. */
export function toAppError(code: string | number, error: unknown, raw: Record<string, unknown> = {}): AppError {
  if (error instanceof AppError) return error
  // A Transform's decode that refused (`t.Integer`'s bounds in a body): Elysia unwraps it by its class's
  // name, which the minified executable does not keep, and passes it on whole; what it carries is the
  // validation error.
  if (error instanceof TransformDecodeError && error.error instanceof Error) return toAppError('VALIDATION', error.error, raw)
  switch (code) {
    case 'NOT_FOUND':
      return new AppError('ROUTE_NOT_FOUND', 'route not found')
    case 'PARSE':
      return new ValidationFailed({ body: ['is not valid JSON'] })
    case 'VALIDATION': {
      const validation = error as { type: string; all: ValueIssue[] }
      if (validation.type === 'response') break
      return new ValidationFailed(fieldErrors(validation.all, validation.type, raw))
    }
  }
  const sqlite = sqliteCode(error)
  if (sqlite?.startsWith('SQLITE_CONSTRAINT_UNIQUE') || sqlite?.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY')) {
    return new AppError('CONFLICT', 'a record with these values already exists')
  }
  if (sqlite?.startsWith('SQLITE_CONSTRAINT_FOREIGNKEY')) {
    return new ValidationFailed({ body: ['refers to a record that does not exist'] })
  }
  if (sqlite?.startsWith('SQLITE_BUSY') || sqlite?.startsWith('SQLITE_LOCKED')) {
    return new AppError('SERVICE_BUSY', 'the service is busy, retry shortly', {}, { 'retry-after': '1' })
  }
  return new AppError('INTERNAL_ERROR', 'an unexpected error occurred')
}

/** The SQLite extended result code of a driver error, looking through Drizzle's wrapping. */
function sqliteCode(error: unknown): string | null {
  for (let current = error as { code?: unknown; extendedCode?: unknown; cause?: unknown } | undefined, depth = 0; current && depth < 5; depth++) {
    const code = typeof current.extendedCode === 'string' ? current.extendedCode : current.code
    if (typeof code === 'string' && code.startsWith('SQLITE_')) {
      // libSQL reports the primary code and the message names the constraint kind.
      if (code === 'SQLITE_CONSTRAINT') {
        const message = String((current as { message?: unknown }).message ?? '')
        if (/UNIQUE/i.test(message)) return 'SQLITE_CONSTRAINT_UNIQUE'
        if (/FOREIGN KEY/i.test(message)) return 'SQLITE_CONSTRAINT_FOREIGNKEY'
      }
      return code
    }
    current = current.cause as typeof current
  }
  return null
}
