/**
 * Building blocks for request and response schemas. One TypeBox definition serves validation, the
 * TypeScript types and the OpenAPI document.
 *
 * Bodies are strict JSON: an integer field takes a JSON number, never the string "5" (Elysia's own
 * `t.Integer` would coerce it), so these use plain TypeBox types. Query strings and path params are
 * text by nature and use Elysia's coercing `t.Integer` / `t.Numeric`.
 */
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox'
import { type DocumentDecoration, t } from 'elysia'
import { codeToStatus, ERROR_CODES, type ErrorCode } from '../../lib/errors'
import { PASSWORD_MAX, PASSWORD_MIN } from '../passwords'
import { declareShaped } from './response-shape'

export const MAX_ID = Number.MAX_SAFE_INTEGER
export const NAME_MAX = 255

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** The largest amount of money: 2^53 − 1, the largest integer JSON carries exactly. */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER

/** An amount of money: a strict JSON integer ≥ 0 in the smallest unit of the workspace currency (IDR: whole rupiah); 1.5 is refused. */
export const Amount = (options: { description?: string } = {}) => Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, ...options })

/** A strict JSON integer id (≥ 1). */
export const Id = (options: { description?: string } = {}) => Type.Integer({ minimum: 1, maximum: MAX_ID, ...options })

/**
 * Control characters in text (docs/API.md §Envelopes): a name, code or title is one line and holds none
 * of C0 (U+0000–U+001F) or DEL (U+007F); a multi-line text (notes, a reason, an address) may hold tab,
 * line feed and carriage return, nothing else of them. They print as nothing, break exports (GPX is XML,
 * which cannot hold most of them at all) and hide what a name says, so they are refused at write time.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/
// Judged on the text as stored (trimmed): a phone's trailing newline is trimming's business, not an error.
FormatRegistry.Set('single-line', (value) => !SINGLE_LINE_FORBIDDEN.test(value.trim()))
FormatRegistry.Set('text', (value) => !MULTI_LINE_FORBIDDEN.test(value.trim()))
export const TEXT_FORMAT_MESSAGES: Record<string, string> = {
  'single-line': 'must not contain control characters (U+0000–U+001F, U+007F)',
  text: 'must not contain control characters other than tab and line breaks',
}

interface TextOptions {
  description?: string
  examples?: string[]
  /** Whether tab and line breaks are allowed (notes, reasons, addresses); names and codes are one line. */
  multiline?: boolean
}
const textFormat = (multiline: boolean) => (multiline ? 'text' : 'single-line')

/** A required string: trimmed, and empty after trimming counts as missing. One line unless `multiline`. */
export const RequiredText = (maxLength = NAME_MAX, { multiline = false, ...options }: TextOptions = {}) =>
  t
    .Transform(Type.String({ maxLength, pattern: '\\S', format: textFormat(multiline), ...options }))
    .Decode((value) => value.trim())
    .Encode((value) => value)

/** An optional free text: trimmed; empty after trimming is stored as null. Multi-line unless `multiline: false`. */
export const OptionalText = (maxLength = NAME_MAX, { multiline = true, ...options }: TextOptions = {}) =>
  Type.Optional(
    t
      .Transform(Type.Union([Type.String({ maxLength, format: textFormat(multiline), ...options }), Type.Null()]))
      .Decode((value) => (value === null ? null : value.trim() || null))
      .Encode((value) => value),
  )

export const Bool = Type.Boolean

/**
 * `schema` as the OpenAPI document shows it, but of kind Any for the response normaliser and check:
 * for a field of an answer holding JSON the service itself wrote, whose every key the schema keeps
 * anyway (an audit entry's old and new values and metadata, a sync change's entity). The normaliser
 * walked such a value key by key, testing each against the schema, and could never remove anything:
 * on a page of 50 audit entries that was ~160 of ~215 µs of normalising (docs/PERFORMANCE.md "Reads
 * at their ceiling"). Never for a field that holds rows read from a table: there the normaliser is
 * what keeps a column the schema does not name out of the answer.
 */
export const Opaque = <T extends TSchema>(schema: T): T => Type.Any({ ...schema }) as unknown as T

/**
 * A resource's schema under its name: the OpenAPI document lists it once in `components.schemas` and
 * refers to it wherever it is used (platform/api-docs.ts). A `title` is an annotation: validation is unchanged.
 */
export const named = <T extends TSchema>(name: string, schema: T): T => Object.assign(schema, { title: name })

/**
 * One of a fixed set of strings. (Elysia's `t.UnionEnum` adds its first value as a default, which
 * would silently fill absent query parameters.)
 */
export const OneOf = <const T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  )

/** `:id` in a path, coerced from text. */
export const IdParams = t.Object({ id: t.Integer({ minimum: 1, maximum: MAX_ID }) })

/** An optional id in a query string (a filter: `?team_id=3`), coerced from text. */
export const QueryId = (description?: string) => t.Optional(t.Integer({ minimum: 1, maximum: MAX_ID, ...(description && { description }) }))

/** ISO 8601 UTC timestamp as the service writes it. */
export const Timestamp = (options: { description?: string } = {}) => Type.String({ examples: ['2026-11-21T08:15:00.000Z'], ...options })

export const NullableTimestamp = (options: { description?: string } = {}) => Type.Union([Timestamp(options), Type.Null()])

export const PageMeta = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
})

/** `{success, message, code, data}` */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Boolean(), message: Type.String(), code: Type.String(), data })

/** `{success, message, code, data: [...], meta}` */
export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({
    success: Type.Boolean(),
    message: Type.String(),
    code: Type.String(),
    data: Type.Array(item),
    meta: PageMeta,
  })

type RequestBodyDoc = Exclude<NonNullable<DocumentDecoration['requestBody']>, { $ref: string }>
/** The schema of one media type in an OpenAPI `detail` (a request body's or a response's content). */
export type MediaSchema = NonNullable<RequestBodyDoc['content'][string]['schema']>

/**
 * A TypeBox schema where a route's `detail` documents content by hand (a body checked by a compiled
 * check, GeoJSON answered as a Response): its JSON form, which is what the document publishes.
 */
export const documentedSchema = (schema: TSchema): MediaSchema => JSON.parse(JSON.stringify(schema))

/**
 * The error envelope's `code`: a string with the enum of the given codes (one code is still an enum,
 * never a `const`). A plain `Type.String` with `enum` as an option: Elysia compiles response schemas,
 * and its compiler knows no `Type.Unsafe`.
 */
const CodeOf = (codes: readonly ErrorCode[], description?: string) => Type.String({ enum: [...codes], ...(description && { description }) })

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    code: CodeOf(ERROR_CODES, 'One code of the catalogue (docs/API.md §Errors); each route lists the ones it can answer with'),
    errors: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Per-field messages (`{"name": ["is required"]}`) or details; `{}` when none',
    }),
  },
  { description: 'Error envelope' },
)

/** What a signed-in route can always answer: a bad input, no or an expired token, a missing permission. */
export const AUTHED_ERRORS = ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED', 'FORBIDDEN'] as const satisfies readonly ErrorCode[]

/** `{"name": ["is required"], "pings.3.lat": ["must be at most 90"]}`: a field's path → its messages. */
const FieldMessages = Type.Record(Type.String(), Type.Array(Type.String()), { description: 'A field path → its messages' })
const counts = (...keys: string[]) => Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Integer({ minimum: 1 })])))

/**
 * What `errors` holds for the codes whose details are fixed (docs/API.md §Errors), so a generated
 * client can read them by name; any other code's `errors` is the envelope's open object.
 */
export const ERROR_DETAILS: Partial<Record<ErrorCode, TSchema>> = {
  VALIDATION_ERROR: FieldMessages,
  LOCATION_REQUIRED: Type.Object({ latitude: Type.Optional(Type.Array(Type.String())), longitude: Type.Optional(Type.Array(Type.String())) }),
  SUBMISSION_REQUIRED: Type.Object({ form_ids: Type.Array(Type.Integer(), { description: 'The required forms not completed yet' }) }),
  OUTSIDE_GEOFENCE: Type.Object({ distance_m: Type.Array(Type.Number()), radius_m: Type.Array(Type.Number()) }),
  CHANNEL_GROUP_HAS_CHILDREN: counts('channel_count'),
  CHANNEL_HAS_CHILDREN: counts('account_count'),
  PROJECT_HAS_ACTIVE_VISITS: counts('visit_count'),
  OUTLET_HAS_ACTIVE_VISITS: counts('visit_count'),
  ROLE_IN_USE: counts('user_count'),
  FORM_IN_USE: counts('project_count'),
  PRINCIPAL_IN_USE: Type.Object({ product_count: Type.Integer({ minimum: 0 }), project_count: Type.Integer({ minimum: 0 }) }),
}

/** `errors` of an entry answering these codes: one of their fixed details, or the open object for a code without. */
function detailsOf(codes: readonly ErrorCode[]): TSchema {
  const known = codes.map((code) => ERROR_DETAILS[code] ?? ErrorEnvelope.properties.errors)
  const distinct = [...new Set(known)]
  return distinct.length === 1 ? distinct[0]! : Type.Union(distinct)
}

/** The error envelope of one status, its `code` an enum of the codes given (all of that status). */
export const errorEnvelopeOf = (codes: readonly ErrorCode[]) =>
  Type.Object({ ...ErrorEnvelope.properties, code: CodeOf(codes), errors: detailsOf(codes) }, { description: codes.join(', ') })

/**
 * Response schemas of a route: its success shape(s), and the error codes the route can answer with
 * (src/platform/errors.ts), documented under their statuses with `code` as an enum. Errors are
 * answered by the error handler, so only the documentation uses those entries. The kernel's own
 * answers to every mutation (idempotency, body size) are added by src/platform/api-docs.ts.
 */
export function responses<S extends Record<number, TSchema>>(success: S, errors: readonly ErrorCode[] = AUTHED_ERRORS) {
  const all: Record<number, TSchema> = {}
  // Success answers are checked and shaped by the kernel (./response-shape.ts); Elysia sees a stand-in.
  for (const [status, schema] of Object.entries(success)) {
    const standIn = Opaque(schema)
    declareShaped(standIn, schema)
    all[Number(status)] = standIn
  }
  const byStatus = Map.groupBy(new Set(errors), codeToStatus)
  for (const [status, codes] of byStatus) all[status] = errorEnvelopeOf(codes)
  return all as S
}

/** Trimmed and lower-cased; a plain shape check, the real proof is the mail reaching the inbox. */
export const Email = t
  .Transform(Type.String({ maxLength: 254, pattern: '^\\s*[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$', error: 'must be a valid email address' }))
  .Decode((value) => value.trim().toLowerCase())
  .Encode((value) => value)

/** Kept exactly as typed (never trimmed), but a password of only spaces counts as missing. */
export const Password = Type.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  pattern: '\\S',
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters, not only spaces`,
})

/** A route's error responses by status, for a route that documents its answers by hand (`detail.responses`). */
export function errorResponses(codes: readonly ErrorCode[]) {
  const entries = [...Map.groupBy(new Set(codes), codeToStatus)].map(([status, group]) => {
    const schema = documentedSchema(errorEnvelopeOf(group))
    return [status, { description: group.join(', '), content: { 'application/json': { schema } } }] as const
  })
  return Object.fromEntries(entries)
}
