/**
 * A route's path and query parameters, read by compiled code the kernel builds once per schema
 * instead of Elysia's validator on every request. Elysia checks them with `normalize: 'typebox'`
 * (src/app.ts) as TypeBox's `Value.Clean`, the compiled check, then `Decode` twice: `t.Integer`,
 * `t.Numeric` and `t.BooleanString` are Transforms, and TypeBox decodes those by walking the schema
 * interpretively. Reading a phone sync's `limit` and `cursor` took 137 µs of its 2.8 ms on the server
 * (24 µs here), in a request that runs too seldom for the runtime's optimising compilers
 * (docs/PERFORMANCE.md "Reads at their ceiling", sixth pass); a detail route's `:id` paid the same.
 *
 * Here a parameter object whose every field is one of the kinds below is read directly:
 *
 * - `t.Integer`: a decimal string (`-?\d+`), as a number;
 * - `t.Numeric`, or a plain number (Elysia coerces those alike): a plain decimal string (`-?\d+` with an
 *   optional fraction), as a number;
 * - `t.BooleanString`, or a plain boolean: exactly `true` or `false`, as a boolean;
 * - a string, a string literal, or a union of string literals: the text as it came.
 *
 * Fields the schema does not name are dropped (what `Value.Clean` did), and the decoded object is
 * checked by TypeBox's compiled check of the decoded kinds (bounds, lengths, formats, literals).
 *
 * It is an accelerator only, never a second validator: whatever it does not accept (a missing
 * field, `1e3`, a bound broken, a value that is not text) goes through Elysia's own validator of the
 * same schema, built with the options Elysia gives path and query validators, exactly as Elysia's
 * compiled handler runs it (clean, check, decode), and throws the error Elysia would. So an answer,
 * an error and its envelope are the same either way; tests/request-shape.test.ts compares the two
 * over every route's parameter schemas and a corpus of hostile values.
 *
 * A schema with a field of any other kind (an array, an object, a plain TypeBox integer, a default) is
 * left to Elysia: `prepareRequestSchema` returns null and the route keeps its schema.
 */
import { Kind, OptionalKind, TransformKind, type TSchema, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { TransformDecodeError } from '@sinclair/typebox/value'
import { getSchemaValidator, ValidationError } from 'elysia'
import { Opaque } from './schema'

export type RequestPart = 'params' | 'query'

/**
 * Reads one part of a request: the decoded object, or throws Elysia's validation error (its
 * ValidationError, or the error a Transform's decode raised). On the way to an error `raw` is cleaned
 * in place, as Elysia's validator does (TypeBox's `Value.Clean` is mutable): the error answer names
 * fields by what is left (./http.ts errorAnswer).
 */
export type RequestShaper = (raw: Record<string, unknown>) => Record<string, unknown>

/** Not read here: Elysia's own validator decides. */
const FALL_BACK = Symbol('fall back')
type Decoder = (raw: unknown) => unknown

/** How an integer path or query parameter is written: decimal digits only (./http.ts `notDecimal` refuses any other spelling). */
export const DECIMAL_INTEGER = /^-?\d+$/
const DECIMAL = /^-?\d+(?:\.\d+)?$/

interface FieldReader {
  name: string
  decode: Decoder
  required: boolean
}

type Node = TSchema & { anyOf?: TSchema[]; format?: string; const?: unknown; properties?: Record<string, TSchema>; required?: string[] }

const isText = (raw: unknown): raw is string => typeof raw === 'string'
const decodeNumeric: Decoder = (raw) => (isText(raw) && DECIMAL.test(raw) ? Number(raw) : FALL_BACK)
const decodeBoolean: Decoder = (raw) => (raw === 'true' ? true : raw === 'false' ? false : FALL_BACK)

/**
 * Elysia's coercing transforms (elysia/dist/type-system: a union of a formatted string and the
 * decoded kind): which one `schema` is, with the decoded kind its value is then checked by.
 */
function coercion(schema: Node): { decode: Decoder; decoded: TSchema } | null {
  if (!(TransformKind in schema) || schema.anyOf?.length !== 2) return null
  const [first, second] = schema.anyOf as Node[]
  if (first[Kind] === 'String' && first.format === 'integer' && second[Kind] === 'Integer') {
    return { decode: (raw) => (isText(raw) && DECIMAL_INTEGER.test(raw) ? Number(raw) : FALL_BACK), decoded: second }
  }
  if (first[Kind] === 'String' && first.format === 'numeric' && second[Kind] === 'Number') return { decode: decodeNumeric, decoded: second }
  if (first[Kind] === 'Boolean' && second[Kind] === 'String' && second.format === 'boolean') return { decode: decodeBoolean, decoded: first }
  return null
}

const isStringLiteral = (schema: Node) => schema[Kind] === 'Literal' && typeof schema.const === 'string'

/** How one field is read, and the kind its decoded value is checked by; null: not a kind read here. */
function fieldOf(schema: Node): { decode: Decoder; decoded: TSchema } | null {
  if ('default' in schema) return null
  const coerced = coercion(schema)
  if (coerced) return coerced
  if (TransformKind in schema) return null
  // Elysia coerces a plain number or boolean field of a path or query object as `t.Numeric` and
  // `t.BooleanString` (getSchemaValidator's `coerce`).
  if (schema[Kind] === 'Number') return { decode: decodeNumeric, decoded: schema }
  if (schema[Kind] === 'Boolean') return { decode: decodeBoolean, decoded: schema }
  const text = (raw: unknown) => (isText(raw) ? raw : FALL_BACK)
  if (schema[Kind] === 'String' || isStringLiteral(schema)) return { decode: text, decoded: schema }
  if (schema[Kind] === 'Union' && schema.anyOf?.every((branch) => isStringLiteral(branch as Node))) return { decode: text, decoded: schema }
  return null
}

/** Elysia's validator of `schema` for `part`, with the options its route validators get (elysia/dist/index: createParams, createQuery). */
function elysiaValidator(schema: TSchema) {
  // Their extra coercions turn nested objects and arrays into JSON text or repeated keys; a schema read
  // here has neither, so they would change nothing.
  return getSchemaValidator(schema, { normalize: 'typebox', coerce: true, additionalCoerce: [] })!
}

/** What Elysia's compiled handler runs for a part (elysia/dist/compose): clean, check, decode. */
function elysiaReads(part: RequestPart, validator: ReturnType<typeof elysiaValidator>): RequestShaper {
  return (raw) => {
    const cleaned = (validator.Clean?.(raw) ?? raw) as Record<string, unknown>
    if (validator.Check(cleaned) === false) throw new ValidationError(part, validator, cleaned, false)
    try {
      return validator.Decode(cleaned) as Record<string, unknown>
    } catch (error) {
      // A Transform's decode that refused (`t.Integer`'s bounds): what it carries is the validation
      // error. Elysia tells it by its class's name, which the minified executable does not keep.
      if (error instanceof TransformDecodeError) throw error.error ?? new ValidationError(part, validator, cleaned, false)
      throw error
    }
  }
}

/** The compiled reader of an object schema whose every field is read here; null otherwise. */
function compileReader(schema: Node): ((raw: Record<string, unknown>) => Record<string, unknown> | typeof FALL_BACK) | null {
  if (schema[Kind] !== 'Object' || TransformKind in schema || !schema.properties) return null
  const additional = (schema as { additionalProperties?: unknown }).additionalProperties
  if (additional !== undefined && additional !== false) return null
  const required = new Set(schema.required ?? [])
  const fields: FieldReader[] = []
  const decoded: Record<string, TSchema> = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = fieldOf(property as Node)
    if (!field) return null
    const isRequired = required.has(name) && (property as Node)[OptionalKind] !== 'Optional'
    fields.push({ name, decode: field.decode, required: isRequired })
    decoded[name] = isRequired ? field.decoded : Type.Optional(field.decoded)
  }
  const check = TypeCompiler.Compile(Type.Object(decoded))
  return (raw) => {
    const value: Record<string, unknown> = {}
    for (const { name, decode, required: needed } of fields) {
      const given = raw[name]
      if (given === undefined) {
        if (needed) return FALL_BACK
        continue
      }
      const read = decode(given)
      if (read === FALL_BACK) return FALL_BACK
      value[name] = read
    }
    return check.Check(value) ? value : FALL_BACK
  }
}

/** A route's parameter schema prepared once: the stand-in Elysia is given, and the kernel's reader. */
export interface PreparedRequestSchema {
  standIn: TSchema
  shaper: RequestShaper
}

/** The schema each stand-in stands for (the tests compare the kernel's reading of it with Elysia's). */
const standIns = new WeakMap<TSchema, TSchema>()
export const requestSchemaOf = (standIn: unknown): TSchema | undefined =>
  typeof standIn === 'object' && standIn !== null ? standIns.get(standIn as TSchema) : undefined

const prepared: Record<RequestPart, WeakMap<TSchema, PreparedRequestSchema | null>> = { params: new WeakMap(), query: new WeakMap() }

/**
 * For a route's `params` or `query` schema: a stand-in of kind Any for Elysia (it checks nothing and
 * the OpenAPI document shows the same schema, as for answers: ./response-shape.ts) and the reader the
 * kernel runs instead; null when the schema has a field of a kind not read here (Elysia keeps it).
 * A schema shared by many routes (`IdParams`) is prepared once per part.
 */
export function prepareRequestSchema(part: RequestPart, schema: TSchema): PreparedRequestSchema | null {
  const known = prepared[part].get(schema)
  if (known !== undefined) return known
  const reader = compileReader(schema as Node)
  let result: PreparedRequestSchema | null = null
  if (reader) {
    let fallback: RequestShaper | undefined
    const slow: RequestShaper = (raw) => {
      fallback ??= elysiaReads(part, elysiaValidator(schema))
      return fallback(raw)
    }
    const standIn = Opaque(schema)
    standIns.set(standIn, schema)
    result = {
      standIn,
      shaper: (raw) => {
        const value = reader(raw)
        return value === FALL_BACK ? slow(raw) : value
      },
    }
  }
  prepared[part].set(schema, result)
  return result
}

/** Elysia's reading of `schema` alone, and the kernel's without falling back (null: not a kind read here); for the tests. */
export const elysiaRequestReader = (part: RequestPart, schema: TSchema): RequestShaper => elysiaReads(part, elysiaValidator(schema))
export function directRequestReader(schema: TSchema): ((raw: Record<string, unknown>) => Record<string, unknown> | null) | null {
  const reader = compileReader(schema as Node)
  if (!reader) return null
  return (raw) => {
    const value = reader(raw)
    return value === FALL_BACK ? null : value
  }
}
