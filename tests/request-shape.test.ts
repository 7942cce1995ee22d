/**
 * Path and query parameters read by the kernel (src/platform/http/request-shape.ts): over every
 * parameter schema the service declares and a corpus of hostile values, the kernel's reading and
 * Elysia's own validator agree (the same value, or an error with the same envelope), and the direct
 * path, the one that skips Elysia, is taken for the values a client usually sends.
 */
import { describe, expect, test } from 'bun:test'
import { Kind, OptionalKind, TransformKind, type TSchema, Type } from '@sinclair/typebox'
import { t as elysiaTypes } from 'elysia'
import { toAppError } from '../src/platform/http/http'
import { directRequestReader, elysiaRequestReader, prepareRequestSchema, type RequestPart, requestSchemaOf } from '../src/platform/http/request-shape'
import { useTestApp } from './harness'

type Node = TSchema & {
  anyOf?: Node[]
  properties?: Record<string, Node>
  required?: string[]
  const?: unknown
  format?: string
  minimum?: number
  maximum?: number
}

const HOSTILE = ['', ' ', 'abc', "1' OR '1'='1", '%00', '\u0000', 'x'.repeat(5000), '[]', '{}', 'null', 'undefined', 'NaN', 'Infinity']
const NUMBERS = [
  '1',
  '0',
  '-1',
  '007',
  '-0',
  '1.0',
  '1.5',
  '.5',
  '5.',
  '1e3',
  '0x10',
  ' 1',
  '1 ',
  '+1',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999',
]

/** Raw values to try for one field (text, as a URL gives them), by the kind of the field. */
function candidates(schema: Node): string[] {
  const values = [...HOSTILE, ...NUMBERS, 'true', 'false', 'TRUE', '2026-11-26', '2026-11-26T08:00:00.000Z', '2026-02-30']
  const bounds = (node: Node) => [node.minimum, node.maximum].filter((n): n is number => n !== undefined).flatMap((n) => [n - 1, n, n + 1].map(String))
  if (schema.anyOf) for (const branch of schema.anyOf) values.push(...bounds(branch))
  values.push(...bounds(schema))
  const literals = (node: Node): string[] => (node[Kind] === 'Literal' ? [String(node.const)] : (node.anyOf ?? []).flatMap(literals))
  for (const literal of literals(schema)) values.push(literal, literal.toUpperCase(), `${literal} `)
  return [...new Set(values)]
}

/** One value each field accepts, to hold the others valid while one varies. */
function validOf(schema: Node): string | undefined {
  return candidates(schema).find((raw) => {
    const reader = elysiaRequestReader('query', { [Kind]: 'Object', type: 'object', properties: { v: schema }, required: ['v'] } as unknown as TSchema)
    try {
      reader({ v: raw })
      return true
    } catch {
      return false
    }
  })
}

/** The outcome as a client sees it: the value read, or the error envelope's status, code and fields. */
function outcome(read: () => Record<string, unknown>, raw: Record<string, unknown>) {
  try {
    return { value: { ...read() } }
  } catch (error) {
    const failure = toAppError((error as { code?: string }).code ?? 'UNKNOWN', error, { ...raw })
    return { status: failure.status, code: failure.code, errors: failure.errors }
  }
}

/** Inputs for a schema: each field in turn through its candidates (the others valid), each required field missing, an undeclared key. */
function inputs(schema: Node): Record<string, string>[] {
  const properties = schema.properties ?? {}
  const required = new Set((schema.required ?? []).filter((name) => properties[name][OptionalKind] !== 'Optional'))
  const base: Record<string, string> = {}
  for (const [name, property] of Object.entries(properties)) {
    const valid = validOf(property)
    if (valid !== undefined && required.has(name)) base[name] = valid
  }
  const all: Record<string, string>[] = [{ ...base }, { ...base, not_declared: 'x' }]
  for (const [name, property] of Object.entries(properties)) {
    for (const raw of candidates(property)) all.push({ ...base, [name]: raw })
    if (required.has(name)) {
      const { [name]: _, ...without } = base
      all.push(without)
    }
  }
  return all
}

describe('every path and query parameter schema the service declares', () => {
  const app = useTestApp()

  test('the kernel reads it as Elysia does, value for value and error for error; the direct path takes the usual values', () => {
    const schemas = new Map<TSchema, { part: RequestPart; where: string[] }>()
    const leftToElysia: string[] = []
    for (const route of app.app.app.routes) {
      for (const part of ['params', 'query'] as const) {
        const declared = (route.hooks as Record<string, unknown>)[part]
        if (!declared) continue
        const schema = requestSchemaOf(declared)
        if (!schema) {
          leftToElysia.push(`${route.method} ${route.path} ${part}`)
          continue
        }
        const entry = schemas.get(schema) ?? { part, where: [] }
        entry.where.push(`${route.method} ${route.path}`)
        schemas.set(schema, entry)
      }
    }
    // Only the socket's upgrade keeps Elysia's reading (it has no `auth` or `public` option: it authenticates itself).
    expect(leftToElysia).toEqual(['WS /ws query'])
    expect(schemas.size).toBeGreaterThan(40)

    let compared = 0
    let direct = 0
    for (const [schema, { part, where }] of schemas) {
      const shaper = prepareRequestSchema(part, schema)!.shaper
      const elysia = elysiaRequestReader(part, schema)
      const reader = directRequestReader(schema)!
      for (const raw of inputs(schema as Node)) {
        const ours = outcome(() => shaper({ ...raw }), raw)
        const theirs = outcome(() => elysia({ ...raw }), raw)
        expect({ where: where[0], part, raw, outcome: ours }).toEqual({ where: where[0], part, raw, outcome: theirs })
        compared++
        if (reader({ ...raw }) !== null) direct++
      }
      // A request with every field valid (or absent) is read without Elysia.
      const { not_declared: _, ...valid } = inputs(schema as Node)[0]
      expect({ where: where[0], direct: reader(valid) !== null }).toEqual({ where: where[0], direct: true })
    }
    expect(compared).toBeGreaterThan(5000)
    expect(direct).toBeGreaterThan(compared / 10)
  })
})

describe('what the kernel reads and what it leaves to Elysia', () => {
  const Integer = elysiaTypes.Integer({ minimum: 1 })
  test('integers, numbers, booleans, text and text choices are read; an array, a default or a plain TypeBox integer are not', () => {
    const object = (properties: Record<string, TSchema>) => elysiaTypes.Object(properties)
    expect(directRequestReader(object({ id: Integer, at: elysiaTypes.Numeric(), on: elysiaTypes.BooleanString(), q: elysiaTypes.String() }))).not.toBeNull()
    expect(directRequestReader(object({ ids: elysiaTypes.Array(elysiaTypes.String()) }))).toBeNull()
    expect(directRequestReader(object({ page: elysiaTypes.Integer({ default: 1 }) }))).toBeNull()
    expect(directRequestReader(object({ n: elysiaTypes.Number(), on: elysiaTypes.Boolean() }))).not.toBeNull()
    expect(directRequestReader(object({ n: Type.Integer() }))).toBeNull()
    expect(TransformKind in Integer).toBe(true)
  })

  test('a value outside the direct path goes through Elysia: 1e3 is a thousand there, as before', () => {
    const schema = elysiaTypes.Object({ limit: elysiaTypes.Optional(elysiaTypes.Numeric()) })
    const reader = directRequestReader(schema)!
    expect(reader({ limit: '1e3' })).toBeNull()
    expect(prepareRequestSchema('query', schema)!.shaper({ limit: '1e3' })).toEqual({ limit: 1000 })
    expect(reader({ limit: '12.5', other: 'x' })).toEqual({ limit: 12.5 })
  })
})
