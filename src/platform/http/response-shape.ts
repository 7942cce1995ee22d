/**
 * A route's success answer, shaped to its declared schema: checked (a value of the wrong type is a
 * 500, never sent) and copied with only the fields the schema names (a column a handler read but the
 * schema does not declare never reaches the client). The kernel (./http.ts) does this once per
 * answer, after the handler, for every route whose responses are declared with `responses()`
 * (./schema.ts), which gives Elysia an Opaque stand-in for each success schema (kind Any: Elysia's
 * own normaliser and check pass the value through; the OpenAPI document shows the same schema).
 *
 * Why not Elysia's normaliser: with `normalize: 'typebox'` (src/app.ts, for what it does to request
 * bodies) it runs TypeBox's `Value.Clean` on every answer, which walks the schema interpretively and
 * tests every member of every union by value: ~50 µs of a page of 20 visits, a tenth of the request
 * (docs/PERFORMANCE.md "Reads at their ceiling"). Here both steps are compiled once per route and status:
 *
 * 1. TypeBox's compiled check of the value as the handler returned it (the schemas leave
 *    additionalProperties open, so fields the schema does not name do not fail it);
 * 2. exact-mirror (Elysia's own compiled normaliser, given TypeBox's compiler so that a union takes
 *    the member the value matches) copies the declared fields. For a value that passed the check its
 *    result is `Value.Clean`'s (tests/response-shape.test.ts compares the two over every route's schemas).
 *    A value that also passes the closed check (the schema with every object's additionalProperties
 *    false: nothing undeclared anywhere, as presenters build their answers) is sent as it is, uncopied.
 *
 * A value that fails the check is given `Value.Clean` and checked again, exactly what Elysia did, so a
 * schema that closes its properties still has them removed first; failing again, it is refused.
 */
import { Kind, type TSchema, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { HasTransform, Value } from '@sinclair/typebox/value'
import { createMirror } from 'exact-mirror'

/** The schema each Opaque stand-in given to Elysia stands for (`declareShaped`, `shapeOf`). */
const standIns = new WeakMap<TSchema, TSchema>()

/** Records that `standIn` (what Elysia validates) stands for `schema` (what the kernel shapes by). */
export function declareShaped(standIn: TSchema, schema: TSchema) {
  standIns.set(standIn, schema)
}

/** The schema the kernel shapes an answer declared with `declared` by; undefined when Elysia does it. */
export const shapeOf = (declared: unknown): TSchema | undefined =>
  typeof declared === 'object' && declared !== null ? standIns.get(declared as TSchema) : undefined

export class ResponseShapeError extends Error {
  constructor(where: string, problem: string) {
    super(`the answer of ${where} does not match its schema: ${problem}`)
    this.name = 'ResponseShapeError'
  }
}

export type Shaper = (value: unknown) => unknown

/** Compiles the check and the copy for `schema`; `where` names the route and status in errors. */
export function compileShaper(schema: TSchema, where: string): Shaper {
  const check = TypeCompiler.Compile(schema)
  // The answer as presenters usually build it, with nothing undeclared: then it is sent as it is, no copy.
  const closedSchema = closed(schema)
  const exact = closedSchema ? TypeCompiler.Compile(closedSchema) : null
  const mirror = createMirror(forMirror(schema), { TypeCompiler }) as Shaper
  const copy = (valid: unknown) => (typeof valid === 'object' && valid !== null ? mirror(valid) : valid)
  const refuse = (value: unknown): never => {
    const first = check.Errors(value).First()
    throw new ResponseShapeError(where, first ? `${first.path || '/'} ${first.message}` : 'unknown')
  }
  if (HasTransform(schema, [])) {
    // A schema with a transform (a text field's trimming, shared with a request body): its Encode runs
    // first, and checks, as Elysia's did.
    return (value) => {
      try {
        return copy(check.Encode(value))
      } catch {
        const cleaned = Value.Clean(schema, value)
        try {
          return check.Encode(cleaned)
        } catch {
          return refuse(cleaned)
        }
      }
    }
  }
  return (value) => {
    if (exact?.Check(value)) return value
    if (check.Check(value)) return copy(value)
    const cleaned = Value.Clean(schema, value)
    return check.Check(cleaned) ? cleaned : refuse(cleaned)
  }
}

/** Keys under which a schema holds the schemas of its parts: by name, in a list, or one (or a tuple's list). */
const NAMED_PARTS = ['properties', 'patternProperties'] as const
const LISTED_PARTS = ['anyOf', 'allOf', 'oneOf'] as const
const SINGLE_PARTS = ['items', 'additionalProperties'] as const

/**
 * A shallow copy of `schema` with each of its parts replaced by `map(part)`; null as soon as one part
 * maps to null. The one walk over a schema's parts that `forMirror` and `closed` share.
 */
function mapParts(schema: TSchema, map: (part: TSchema) => TSchema | null): TSchema | null {
  const copy: TSchema = { ...schema }
  const all = (parts: TSchema[]) => {
    const mapped = parts.map(map)
    return mapped.includes(null) ? null : (mapped as TSchema[])
  }
  for (const key of NAMED_PARTS) {
    const parts = schema[key] as Record<string, TSchema> | undefined
    if (!parts) continue
    const mapped = all(Object.values(parts))
    if (!mapped) return null
    copy[key] = Object.fromEntries(Object.keys(parts).map((name, i) => [name, mapped[i]]))
  }
  for (const key of LISTED_PARTS) {
    const parts = schema[key] as TSchema[] | undefined
    if (!parts) continue
    const mapped = all(parts)
    if (!mapped) return null
    copy[key] = mapped
  }
  for (const key of SINGLE_PARTS) {
    const part = schema[key] as TSchema | boolean | TSchema[] | undefined
    if (typeof part !== 'object' || part === null) continue
    const mapped = Array.isArray(part) ? all(part) : map(part)
    if (!mapped) return null
    copy[key] = mapped
  }
  return copy
}

/**
 * `schema` as exact-mirror should see it: every part of kind Any or Unknown (an Opaque field, JSON the
 * service wrote itself) a bare `Type.Any()`, which it passes through untouched as `Value.Clean` does.
 * An Opaque part keeps its schema's `type` and `properties` for the document, and exact-mirror, which
 * reads `type`, would otherwise copy only the named keys of it, or fail on a record.
 */
function forMirror(schema: TSchema): TSchema {
  if (schema[Kind] === 'Any' || schema[Kind] === 'Unknown') return Type.Any()
  return mapParts(schema, forMirror)!
}

/**
 * `schema` with no room for undeclared keys: every object's `additionalProperties` false, Opaque parts
 * (kind Any) left open. Null where that cannot be said part by part (an intersection, a reference):
 * such a schema is always copied.
 */
function closed(schema: TSchema): TSchema | null {
  const kind = schema[Kind]
  if (kind === 'Any' || kind === 'Unknown') return schema
  if (kind === 'Intersect' || kind === 'Ref' || kind === 'This' || kind === 'Import') return null
  const copy = mapParts(schema, closed)
  if (copy && kind === 'Object') copy.additionalProperties = false
  return copy
}
