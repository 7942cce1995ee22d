/**
 * Turns Elysia/TypeBox validation failures into docs/API.md §Envelopes's per-field map: dot paths
 * (`pings.3.lat`, `name`) to arrays of short, human messages. One message per field: the first
 * problem found is the one worth fixing first.
 */
import type { StaticDecode, TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { TransformDecodeCheckError } from '@sinclair/typebox/value'
import { FORMAT_MESSAGES } from '../../lib/dates'
import { ValidationFailed } from '../../lib/errors'
import { TEXT_FORMAT_MESSAGES } from './schema'

interface SchemaLike {
  type?: string | string[]
  format?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minItems?: number
  maxItems?: number
  minProperties?: number
  pattern?: string
  enum?: unknown[]
  const?: unknown
  anyOf?: SchemaLike[]
  error?: unknown
  [key: string]: unknown
}

export interface ValueIssue {
  path: string
  value?: unknown
  message?: string
  schema?: SchemaLike
}

/** `/pings/3/lat` → `pings.3.lat`; the root becomes `fallback` (body, query, params, headers). */
export function toFieldPath(pointer: string, fallback: string): string {
  if (!pointer || pointer === '/') return fallback
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.')
}

/**
 * `root` is where the issues come from (body, query, params, headers). Elysia checks the bounds of a
 * coerced query/path integer after conversion and reports it without a path (root `property`);
 * `raw` (the request's query and params) lets such an issue be put back on the field it came from.
 */
export function fieldErrors(issues: Iterable<ValueIssue>, root: string, raw: Record<string, unknown> = {}): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  for (const issue of issues) {
    const fields =
      root === 'property' && issue.path === ''
        ? Object.keys(raw).filter((key) => raw[key] !== '' && Number(raw[key]) === issue.value)
        : [toFieldPath(issue.path, root)]
    if (fields.length === 0) fields.push('query')
    for (const field of fields) if (!errors[field]) errors[field] = [describe({ ...issue, value: issue.value }, root)]
  }
  return errors
}

function describe(issue: ValueIssue, root: string): string {
  let schema = issue.schema ?? {}
  // A nullable value that is not null is judged by its one non-null branch (format, bounds, length).
  const branches = schema.anyOf?.filter((branch) => branch.type !== 'null' && !branch.format?.match(/^(integer|numeric|boolean)$/))
  if (issue.value !== null && issue.value !== undefined && branches?.length === 1 && schema.anyOf!.some((b) => b.type === 'null')) {
    schema = { ...branches[0], anyOf: undefined, type: [branches[0].type as string, 'null'] }
  }
  if (typeof schema.error === 'string') return schema.error
  const value = issue.value
  if (value === undefined || (value === null && root !== 'body' && issue.path === '')) {
    return issue.path === '' && root === 'body' ? 'a JSON object body is required' : 'is required'
  }
  const expected = expectedType(schema)
  const coerces = Boolean(schema.anyOf?.some((s) => s.format === 'integer' || s.format === 'numeric' || s.format === 'boolean'))
  if (expected && !matchesType(value, expected, coerces)) return typeMessage(schema, expected)

  if (typeof value === 'string') {
    if (schema.pattern === '\\S' && value.trim() === '') return 'must not be empty'
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      return `must be at most ${schema.maxLength} characters`
    }
    if (schema.format) return FORMAT_MESSAGES[schema.format] ?? TEXT_FORMAT_MESSAGES[schema.format] ?? `must be a valid ${schema.format}`
    if (schema.pattern) return 'has an invalid format'
  }
  if (typeof value === 'number' || (typeof value === 'string' && isNumericSchema(schema))) {
    const number = Number(value)
    const min = schema.minimum ?? schema.anyOf?.find((s) => s.minimum !== undefined)?.minimum
    const max = schema.maximum ?? schema.anyOf?.find((s) => s.maximum !== undefined)?.maximum
    if (min !== undefined && number < min) return `must be at least ${min}`
    if (max !== undefined && number > max) return `must be at most ${max}`
    if (schema.exclusiveMinimum !== undefined && number <= schema.exclusiveMinimum) {
      return `must be greater than ${schema.exclusiveMinimum}`
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      return `must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `must have at most ${schema.maxItems} items`
  }
  if (schema.minProperties !== undefined) return 'at least one field is required'
  const choices = enumChoices(schema)
  if (choices) return `must be one of: ${choices.join(', ')}`
  return issue.message ? lowerFirst(issue.message) : 'is invalid'
}

type Expected = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null'

function expectedType(schema: SchemaLike): Expected | null {
  if (enumChoices(schema)) return null
  if (isNumericSchema(schema)) return schema.format === 'integer' || hasType(schema, 'integer') ? 'integer' : 'number'
  if (schema.anyOf?.some((s) => s.format === 'boolean')) return 'boolean'
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(Boolean) as string[]
  if (schema.anyOf) {
    const inner = schema.anyOf.map((s) => s.type).filter((t): t is string => typeof t === 'string' && t !== 'null')
    if (inner.length === 1) types.push(inner[0])
  }
  const type = types.find((t) => t !== 'null')
  return (type as Expected) ?? null
}

function isNumericSchema(schema: SchemaLike): boolean {
  return (
    hasType(schema, 'integer') ||
    hasType(schema, 'number') ||
    Boolean(schema.anyOf?.some((s) => s.format === 'integer' || s.format === 'numeric' || hasType(s, 'integer') || hasType(s, 'number')))
  )
}

const hasType = (schema: SchemaLike, type: string) => schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type))

/** Does the value have the expected type? Text counts only where the schema coerces it (query, path). */
function matchesType(value: unknown, expected: Expected, coerces: boolean): boolean {
  switch (expected) {
    case 'integer':
      return (typeof value === 'number' && Number.isInteger(value)) || (coerces && typeof value === 'string' && /^-?\d+$/.test(value))
    case 'number':
      return (
        (typeof value === 'number' && Number.isFinite(value)) || (coerces && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      )
    case 'boolean':
      return typeof value === 'boolean' || (coerces && (value === 'true' || value === 'false'))
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'null':
      return value === null
    default:
      return typeof value === expected
  }
}

function typeMessage(schema: SchemaLike, expected: Expected): string {
  const nullable = hasType(schema, 'null') || Boolean(schema.anyOf?.some((s) => s.type === 'null'))
  const base = {
    string: 'must be a string',
    integer: 'must be an integer',
    number: 'must be a number',
    boolean: 'must be true or false',
    object: 'must be an object',
    array: 'must be an array',
    null: 'must be null',
  }[expected]
  return nullable ? `${base} or null` : base
}

function enumChoices(schema: SchemaLike): string[] | null {
  if (schema.enum) return schema.enum.map(String)
  if (schema.anyOf && schema.anyOf.length > 0 && schema.anyOf.every((s) => 'const' in s)) {
    return schema.anyOf.map((s) => String(s.const))
  }
  return null
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)

/**
 * A body checker compiled once, for hot routes: the same TypeBox check and the same per-field errors
 * as Elysia's, and the schema's decoding (a text field trimmed, a blank optional text null), without its
 * normalisation pass (`Value.Clean` walks every value of every item, a large share of a batch's
 * validation). Only for services that read declared fields one by one, so that an unknown field is never
 * copied anywhere: they ignore it, as docs/API.md §Errors asks.
 */
export function compiledBody<T extends TSchema>(schema: T): (value: unknown) => StaticDecode<T> {
  const compiled = TypeCompiler.Compile(schema)
  return (value) => {
    try {
      // One check, then the transforms when the schema has any (TypeCheck.Decode).
      return compiled.Decode(value)
    } catch (error) {
      if (error instanceof TransformDecodeCheckError) throw new ValidationFailed(fieldErrors(compiled.Errors(value) as Iterable<ValueIssue>, 'body'))
      throw error
    }
  }
}
