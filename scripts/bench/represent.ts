/**
 * A JSON read as the service sends it (src/platform/http/representation.ts): its entity tag and, over
 * 1 KiB, the content coding the request accepts. The bare ceilings answer through this, so a ratio
 * does not charge the service for compressing bytes a ceiling would send raw — Bun's fetch, like
 * browsers and phone HTTP stacks, asks for `br`.
 */
import { compress, represent } from '../../src/platform/http/representation'

export function representedJson(request: Request, value: unknown): Response {
  const json = JSON.stringify(value)
  const { coding, headers } = represent(json, request.headers.get('accept-encoding'))
  const base = { 'content-type': 'application/json; charset=utf-8', ...headers }
  if (coding === 'identity') return new Response(json, { headers: base })
  return new Response(compress(json, coding), { headers: { ...base, 'content-encoding': coding } })
}
