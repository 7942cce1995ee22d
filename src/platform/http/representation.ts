/**
 * How a JSON read answer is sent (docs/API.md §Caching and compression): its entity tag, the
 * conditional GET, and its content coding. Pure functions; the HTTP kernel (./http.ts) applies them
 * to every `GET` answered 200 with JSON, once, after the route's response schema has shaped the value.
 *
 * - The tag is a SHA-256 of the exact JSON bytes (128 bits, base64url), strong. A representation is
 *   the bytes on the wire, so each content coding has its own tag: `"<hash>"` identity, `"<hash>-br"`,
 *   `"<hash>-gz"` (RFC 9110 §8.8.3: a strong tag changes with the content coding).
 * - `If-None-Match` compares by the hash alone: the coding suffix and a `W/` prefix are ignored (the
 *   weak comparison RFC 9110 §13.1.2 prescribes for If-None-Match, extended across codings, because
 *   all codings of one hash decode to the same JSON). So a client whose gzip answer was stored by a
 *   proxy as `W/"…-gz"` still gets its 304. `*` matches whenever the resource answers 200.
 * - Compression: over COMPRESS_ABOVE_BYTES, `br` (quality BROTLI_QUALITY) or `gzip`, chosen by the
 *   request's Accept-Encoding with its q-values; `br` wins a tie. When the request refuses `identity`
 *   (`identity;q=0`, or `*;q=0` without `identity`) an acceptable coding is used at any size; when
 *   nothing is acceptable the answer goes uncompressed anyway (RFC 9110 §12.5.3 lets a server do so
 *   rather than answer 406).
 */
import { brotliCompressSync, constants } from 'node:zlib'

/** Smaller JSON goes uncompressed: the coding's framing would eat most of the saving. */
export const COMPRESS_ABOVE_BYTES = 1024
/**
 * Brotli's quality, chosen for a request path (docs/PERFORMANCE.md, "Compression and conditional GET";
 * `bun run bench:brotli`). Higher qualities (the library's default is 11) cost far more CPU for few
 * fewer bytes. 3, not 4: quality 4's encoder zeroes a 512 KiB table for every answer over 4 KiB, however
 * small, and after idle (the allocator has handed that memory back) faults it in anew; 3 takes half
 * the time or less, for a few percent more bytes.
 */
export const BROTLI_QUALITY = 3

export type Coding = 'br' | 'gzip' | 'identity'

const SUFFIX: Record<Coding, string> = { br: '-br', gzip: '-gz', identity: '' }

/** The coding-free part of a tag: base64url of the first 16 bytes of SHA-256 over the JSON bytes. */
export function contentHash(json: string): string {
  return new Bun.CryptoHasher('sha256').update(json).digest().subarray(0, 16).toString('base64url')
}

export const entityTag = (hash: string, coding: Coding) => `"${hash}${SUFFIX[coding]}"`

/**
 * True when `If-None-Match` names the current representation: `*`, or any listed tag whose hash
 * (after dropping `W/` and a `-br`/`-gz` suffix) is `hash`. A malformed member matches nothing.
 */
export function noneMatchHits(header: string, hash: string): boolean {
  for (const member of header.split(',')) {
    let tag = member.trim()
    if (tag === '*') return true
    if (tag.startsWith('W/')) tag = tag.slice(2)
    if (tag.length < 2 || tag[0] !== '"' || tag[tag.length - 1] !== '"') continue
    tag = tag.slice(1, -1)
    // A hash may itself end in `-br` (base64url has `-`): the tag as sent is compared first.
    if (tag === hash || ((tag.endsWith('-br') || tag.endsWith('-gz')) && tag.slice(0, -3) === hash)) return true
  }
  return false
}

/**
 * The coding for a body of `bytes` bytes under the request's Accept-Encoding (RFC 9110 §12.5.3):
 * each coding's q is its own entry's, else `*`'s, else 0 (`x-gzip` counts as `gzip`). No header, or
 * an empty one, means identity.
 */
export function chooseCoding(acceptEncoding: string | null, bytes: number): Coding {
  if (!acceptEncoding) return 'identity'
  let br: number | undefined
  let gzip: number | undefined
  let identity: number | undefined
  let star: number | undefined
  for (const member of acceptEncoding.split(',')) {
    const [name, ...params] = member.split(';')
    const coding = name.trim().toLowerCase()
    if (!coding) continue
    let q = 1
    for (const param of params) {
      const [key, value] = param.split('=')
      if (key.trim().toLowerCase() !== 'q') continue
      const parsed = Number(value?.trim())
      q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0
    }
    if (coding === 'br') br = q
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q)
    else if (coding === 'identity') identity = q
    else if (coding === '*') star = q
  }
  const brQ = br ?? star ?? 0
  const gzipQ = gzip ?? star ?? 0
  const best: Coding = brQ >= gzipQ ? 'br' : 'gzip'
  const bestQ = Math.max(brQ, gzipQ)
  if (bestQ === 0) return 'identity'
  const identityRefused = identity === 0 || (identity === undefined && star === 0)
  if (identityRefused) return best
  if (bytes <= COMPRESS_ABOVE_BYTES) return 'identity'
  // An explicit identity preferred over every coding the client takes wins; a tie compresses.
  return identity !== undefined && identity > bestQ ? 'identity' : best
}

/**
 * How a JSON read answers a request: the hash its tag is made of, the coding, and the headers every
 * answer of it carries (a 304 too). The body is the JSON itself, or `compress(json, coding)`.
 */
export function represent(json: string, acceptEncoding: string | null) {
  // Bytes ≥ UTF-16 units, so only a short string with non-ASCII text needs counting.
  const bytes = json.length > COMPRESS_ABOVE_BYTES ? json.length : Buffer.byteLength(json)
  const coding = chooseCoding(acceptEncoding, bytes)
  const hash = contentHash(json)
  const headers = { etag: entityTag(hash, coding), 'cache-control': 'private, no-cache', vary: 'Accept-Encoding' }
  return { hash, coding, headers }
}

export function compress(json: string, coding: Exclude<Coding, 'identity'>): Uint8Array<ArrayBuffer> {
  if (coding === 'gzip') return Bun.gzipSync(json) as Uint8Array<ArrayBuffer>
  return brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }) as Uint8Array<ArrayBuffer>
}
