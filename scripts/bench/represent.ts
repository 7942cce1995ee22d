/**
 * A JSON read as the service sends it (src/platform/representation.ts): its entity tag and, over
 * 1 KiB, the content coding the request accepts. The bare ceilings answer through this, so a ratio
 * does not charge the service for compressing bytes a ceiling would send raw — Bun's fetch, like
 * browsers and phone HTTP stacks, asks for `br`.
 */
import { chooseCoding, compress, COMPRESS_ABOVE_BYTES, contentHash, entityTag } from '../../src/platform/representation'

export function representedJson(request: Request, value: unknown): Response {
  const json = JSON.stringify(value)
  const bytes = json.length > COMPRESS_ABOVE_BYTES ? json.length : Buffer.byteLength(json)
  const coding = chooseCoding(request.headers.get('accept-encoding'), bytes)
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    etag: entityTag(contentHash(json), coding),
    'cache-control': 'private, no-cache',
    vary: 'Accept-Encoding',
  }
  if (coding === 'identity') return new Response(json, { headers })
  return new Response(compress(json, coding), { headers: { ...headers, 'content-encoding': coding } })
}
