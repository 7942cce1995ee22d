/**
 * Success answers shaped by the kernel (src/platform/http/response-shape.ts): the compiled check and
 * exact-mirror give what Elysia's normaliser gave (TypeBox's Value.Clean, then its check), over every
 * answer schema the service declares; and the kernel applies it to every route declared with `responses()`.
 */
import { describe, expect, test } from 'bun:test'
import { Kind, type TSchema, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { Elysia } from 'elysia'
import { compileShaper, ResponseShapeError, shapeOf } from '../src/platform/http/response-shape'
import { createPlatform, RouteTable } from '../src/platform/http/http'
import { Envelope, Nullable, Opaque, responses } from '../src/platform/http/schema'
import { useTestApp } from './harness'

const EXTRA = '__not_declared'

/**
 * Values `schema` accepts, each object with an undeclared key added: every optional property
 * present, each member of a union in turn (one sample per member at the top; nested unions take
 * their members in turn across the samples).
 */
function samples(schema: TSchema, depth = 0, extras = true): unknown[] {
  if (depth > 12) return [null]
  const kind = schema[Kind] as string
  switch (kind) {
    case 'Object': {
      const keys = Object.keys(schema.properties ?? {})
      const variants = keys.map((key) => samples(schema.properties[key], depth + 1, extras))
      const count = Math.max(1, ...variants.map((v) => v.length))
      return Array.from({ length: count }, (_, i) => {
        const value: Record<string, unknown> = Object.fromEntries(keys.map((key, k) => [key, variants[k][i % variants[k].length]]))
        if (extras && schema.additionalProperties !== false) value[EXTRA] = { secret: 'x' }
        return value
      })
    }
    case 'Array': {
      const items = samples(schema.items, depth + 1, extras)
      const full = Array.from({ length: Math.max(2, items.length, schema.minItems ?? 0) }, (_, i) => items[i % items.length])
      return (schema.minItems ?? 0) > 0 ? [full] : [full, []]
    }
    case 'Union':
      return (schema.anyOf as TSchema[]).flatMap((member) => samples(member, depth + 1, extras))
    case 'Intersect': {
      const parts = (schema.allOf as TSchema[]).map((part) => samples(part, depth + 1, extras)[0])
      return [Object.assign({}, ...parts)]
    }
    case 'Record': {
      const [, valueSchema] = Object.entries(schema.patternProperties as Record<string, TSchema>)[0]
      const key = Object.keys(schema.patternProperties)[0] === '^(0|[1-9][0-9]*)$' ? '7' : 'key'
      return samples(valueSchema, depth + 1, extras).map((value) => ({ [key]: value }))
    }
    case 'Literal':
      return [schema.const]
    case 'String':
      if (schema.enum) return [schema.enum[0]]
      if (schema.format === 'date') return ['2026-11-26']
      if (schema.format === 'date-time') return ['2026-11-26T08:00:00.000Z']
      return ['x'.repeat(Math.max(1, schema.minLength ?? 1))]
    case 'Integer':
      return [schema.minimum ?? 1]
    case 'Number':
      return [schema.minimum ?? 1.5]
    case 'Boolean':
      return [true]
    case 'Null':
      return [null]
    case 'Any':
    case 'Unknown':
      return [{ whole: { [EXTRA]: 1 } }]
    default:
      return [Value.Create(schema)]
  }
}

/** What Elysia's normaliser answered: Value.Clean of a copy. */
const cleaned = (schema: TSchema, value: unknown) => Value.Clean(schema, structuredClone(value))

describe('the shaper gives what Value.Clean gives, for values the schema accepts', () => {
  const cases: [string, TSchema, unknown][] = [
    ['a record of objects', Type.Record(Type.String(), Type.Object({ a: Type.Number() })), { k: { a: 1, [EXTRA]: 2 } }],
    [
      'a union of objects takes the member the value matches',
      Type.Union([Type.Object({ kind: Type.Literal('a'), x: Type.Number() }), Type.Object({ kind: Type.Literal('b'), y: Type.Number() })]),
      { kind: 'b', y: 1, x: 5, [EXTRA]: 3 },
    ],
    ['a nullable object', Nullable(Type.Object({ id: Type.Number() })), { id: 1, [EXTRA]: 1 }],
    ['an array of nullable objects', Type.Array(Nullable(Type.Object({ id: Type.Number() }))), [null, { id: 2, [EXTRA]: 1 }]],
    ['an intersection', Type.Intersect([Type.Object({ a: Type.Number() }), Type.Object({ b: Type.Number() })]), { a: 1, b: 2, [EXTRA]: 1 }],
    ['Any and Unknown pass whole', Type.Object({ o: Type.Any(), u: Type.Unknown() }), { o: { [EXTRA]: 1 }, u: [{ [EXTRA]: 1 }], [EXTRA]: 1 }],
    ['an Opaque part passes whole', Type.Object({ o: Opaque(Type.Object({ a: Type.Number() })) }), { o: { a: 1, [EXTRA]: 1 } }],
    ['an Opaque record passes whole', Type.Object({ o: Opaque(Nullable(Type.Record(Type.String(), Type.Unknown()))) }), { o: { k: { [EXTRA]: 1 } } }],
    ['an optional nested object', Type.Object({ n: Type.Optional(Type.Object({ a: Type.Number() })) }), { n: { a: 1, [EXTRA]: 1 } }],
    ['optional properties left out', Type.Object({ n: Type.Optional(Type.Object({ a: Type.Number() })), m: Type.Optional(Type.String()) }), {}],
    ['a nullable array', Type.Object({ rows: Nullable(Type.Array(Type.Object({ s: Type.String() }))) }), { rows: [{ s: 'x', [EXTRA]: 1 }] }],
    ['a tuple', Type.Tuple([Type.Number(), Type.Object({ a: Type.Number() })]), [1, { a: 1, [EXTRA]: 1 }]],
    [
      'a list envelope',
      Envelope(Type.Array(Type.Object({ id: Type.Integer(), team: Nullable(Type.Object({ id: Type.Integer() })) }))),
      {
        success: true,
        message: 'ok',
        code: 'OK',
        data: [
          { id: 1, team: { id: 2, [EXTRA]: 1 }, [EXTRA]: 1 },
          { id: 3, team: null },
        ],
        [EXTRA]: 1,
      },
    ],
  ]
  for (const [name, schema, value] of cases) {
    test(name, () => {
      const shaped = compileShaper(schema, 'test')(structuredClone(value))
      expect(shaped).toEqual(cleaned(schema, value))
    })
  }

  test('an answer with nothing undeclared is sent as it is (not copied); one with an undeclared key anywhere is copied without it', () => {
    const schema = Envelope(Type.Array(Type.Object({ id: Type.Integer(), team: Nullable(Type.Object({ id: Type.Integer() })), raw: Opaque(Type.Object({})) })))
    const shaper = compileShaper(schema, 'test')
    const exact = {
      success: true,
      message: 'ok',
      code: 'OK',
      data: [
        { id: 1, team: { id: 2 }, raw: { anything: 1 } },
        { id: 3, team: null, raw: {} },
      ],
    }
    expect(shaper(exact)).toBe(exact)
    const nested = structuredClone(exact) as typeof exact & { data: { team: Record<string, unknown> | null }[] }
    nested.data[0].team![EXTRA] = 1
    const shaped = shaper(nested) as typeof exact
    expect(shaped).not.toBe(nested)
    expect(shaped).toEqual(exact)
  })

  test('a closed object (additionalProperties: false) still has its extra keys removed, then passes', () => {
    const schema = Type.Object({ a: Type.Number() }, { additionalProperties: false })
    expect(compileShaper(schema, 'test')({ a: 1, [EXTRA]: 1 })).toEqual({ a: 1 })
  })

  test('a value of the wrong type is refused, naming the route and the field', () => {
    const shaper = compileShaper(Type.Object({ team: Nullable(Type.Object({ id: Type.Integer() })) }), 'GET /x (200)')
    expect(() => shaper({ team: 'Team A' })).toThrow(ResponseShapeError)
    expect(() => shaper({ team: 'Team A' })).toThrow(/GET \/x \(200\).*\/team/)
    expect(() => shaper({})).toThrow(ResponseShapeError)
  })

  test('a schema with a transform is encoded, checked and copied', () => {
    const Trimmed = Type.Transform(Type.String())
      .Decode((value) => value.trim())
      .Encode((value) => value.toUpperCase())
    const shaper = compileShaper(Type.Object({ name: Trimmed, n: Type.Optional(Type.Object({ a: Type.Number() })) }), 'test')
    expect(shaper({ name: 'ab', n: { a: 1, [EXTRA]: 1 }, [EXTRA]: 1 })).toEqual({ name: 'AB', n: { a: 1 } })
    expect(() => shaper({ name: 5 })).toThrow(ResponseShapeError)
  })
})

describe('every answer schema the service declares', () => {
  const t = useTestApp()

  test('the shaper and Value.Clean agree on samples of each, with an undeclared key in every object and without any', () => {
    const schemas = new Map<string, TSchema>()
    const byElysia: string[] = []
    for (const route of t.app.app.routes) {
      for (const [status, declared] of Object.entries((route.hooks as { response?: Record<string, unknown> }).response ?? {})) {
        const schema = shapeOf(declared)
        if (schema) schemas.set(`${route.method} ${route.path} (${status})`, schema)
        else if (Number(status) < 300) byElysia.push(`${route.method} ${route.path} (${status})`)
      }
    }
    // Every route declares its answers with responses(), so the kernel shapes them, but health (whose
    // 503 is an answer too, not an error envelope: Elysia's normaliser still shapes it).
    expect(byElysia).toEqual(['GET /api/health (200)'])
    expect(schemas.size).toBeGreaterThan(200)
    let compared = 0
    const skipped: string[] = []
    for (const [where, schema] of schemas) {
      const shaper = compileShaper(schema, where)
      // With an undeclared key in every object (the copy), and without any (sent as it is).
      for (const sample of [...samples(schema).slice(0, 24), ...samples(schema, 0, false).slice(0, 24)]) {
        if (!Value.Check(schema, sample)) {
          skipped.push(`${where}: ${Value.Errors(schema, sample).First()?.path}`)
          continue
        }
        const expected = cleaned(schema, sample)
        expect({ where, shaped: shaper(structuredClone(sample)) }).toEqual({ where, shaped: expected })
        compared++
      }
    }
    // Every sample is one the schema accepts (the generator knows the formats and bounds the answers use).
    expect(compared).toBeGreaterThan(schemas.size)
    expect([...new Set(skipped)]).toEqual([])
  })
})

describe('the kernel shapes what a route declared with responses() answers', () => {
  const t = useTestApp()
  const Item = Type.Object({ id: Type.Integer(), team: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })), raw: Opaque(Type.Object({})) })

  function appWith(answer: unknown) {
    const routes = new RouteTable()
    const app = new Elysia({ prefix: '/api', normalize: 'typebox' })
      .use(createPlatform(t.app.deps, routes))
      .get('/shaped', () => answer as never, { response: responses({ 200: Envelope(Type.Array(Item)) }, []) })
      .post('/shaped', ({ status }) => status(201, answer as never), { response: responses({ 201: Envelope(Item) }, []) })
    routes.learn(app.routes)
    return app
  }

  test('a GET answer loses every field its schema does not declare, at every depth; an Opaque part stays whole', async () => {
    const app = appWith({
      success: true,
      message: 'ok',
      code: 'OK',
      password_hash: 'x',
      data: [
        { id: 1, team: { id: 2, name: 'A', workspace_id: 9 }, raw: { kept: 1 }, password_hash: 'x' },
        { id: 3, team: null, raw: {} },
      ],
    })
    const reply = await app.handle(new Request('http://localhost/api/shaped'))
    expect(reply.status).toBe(200)
    expect(await reply.json()).toEqual({
      success: true,
      message: 'ok',
      code: 'OK',
      data: [
        { id: 1, team: { id: 2, name: 'A' }, raw: { kept: 1 } },
        { id: 3, team: null, raw: {} },
      ],
    })
  })

  test('a mutation answer (201) is shaped too, and keeps its status', async () => {
    const app = appWith({ success: true, message: 'created', code: 'CREATED', data: { id: 1, team: null, raw: {}, secret: 's' } })
    const reply = await app.handle(new Request('http://localhost/api/shaped', { method: 'POST' }))
    expect(reply.status).toBe(201)
    expect(await reply.json()).toEqual({ success: true, message: 'created', code: 'CREATED', data: { id: 1, team: null, raw: {} } })
  })

  test('an answer of the wrong type is the 500 envelope, and nothing of it is sent', async () => {
    const app = appWith({ success: true, message: 'ok', code: 'OK', data: [{ id: 'one', team: null, raw: {}, secret: 'password_hash' }] })
    const reply = await app.handle(new Request('http://localhost/api/shaped'))
    const text = await reply.text()
    expect(reply.status).toBe(500)
    expect(JSON.parse(text)).toEqual({ success: false, message: 'an unexpected error occurred', code: 'INTERNAL_ERROR', errors: {} })
    expect(text).not.toContain('password_hash')
  })
})
