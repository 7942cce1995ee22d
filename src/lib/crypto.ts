/** Small crypto helpers: opaque tokens, their stored hashes, and sealed texts. */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

/** A URL-safe random token with `bytes` bytes of entropy. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url')

export const sha256Hex = (data: string | Uint8Array | ArrayBuffer) =>
  createHash('sha256')
    .update(data instanceof ArrayBuffer ? new Uint8Array(data) : data)
    .digest('hex')

/**
 * Seals short texts the service hands out and must get back unchanged (sync cursors): encrypted and
 * authenticated with AES-256-GCM under a key derived (HKDF-SHA256) from the service secret and a
 * purpose, so a client can neither read nor forge nor alter one, and a text sealed for one purpose
 * does not open for another.
 *
 * Deterministic on purpose: the nonce is an HMAC of the text (a synthetic IV), so sealing the same
 * text gives the same token (an answer repeated for the same request is byte-identical) and distinct
 * texts never share a nonce. What this reveals is only whether two tokens hold the same text.
 */
export interface Sealer {
  seal(purpose: string, text: string): string
  /** The text, or null when `token` was not sealed by this service for this purpose. */
  open(purpose: string, token: string): string | null
  /** Texts and tokens remembered (at most the `memoEntries` given). */
  readonly memoized: number
}

const NONCE_BYTES = 12
const TAG_BYTES = 16
const SEALED = /^[A-Za-z0-9_-]+$/

/**
 * `memoEntries`: how many recent seals it remembers, both ways. Sealing is deterministic, so a
 * remembered token opens to exactly what the cipher would give, and a remembered text seals to the
 * same token: a phone's next sync sends back the cursor of its last answer, which then costs no
 * cipher (an AES-GCM and an HMAC each way cost a cold incremental sync ~120 µs; docs/PERFORMANCE.md
 * "Reads at their ceiling", sixth pass). Only the exact bytes of a token this process issued hit;
 * anything else is opened by the cipher as before. Oldest entries go first when full.
 */
export function createSealer(secret: string, memoEntries = 1024): Sealer {
  const keys = new Map<string, { mac: Buffer; enc: Buffer }>()
  // `s<purpose>\n<text>` → token, `o<purpose>\n<token>` → text.
  const memo = new Map<string, string>()
  const remember = (key: string, value: string) => {
    if (memoEntries <= 0) return
    while (memo.size >= memoEntries) memo.delete(memo.keys().next().value!)
    memo.set(key, value)
  }
  const keysOf = (purpose: string) => {
    let found = keys.get(purpose)
    if (!found) {
      const material = Buffer.from(hkdfSync('sha256', secret, 'ffos-sealer', `seal:${purpose}`, 64))
      found = { mac: material.subarray(0, 32), enc: material.subarray(32) }
      keys.set(purpose, found)
    }
    return found
  }
  const nonceOf = (mac: Buffer, text: Buffer) => createHmac('sha256', mac).update(text).digest().subarray(0, NONCE_BYTES)
  return {
    get memoized() {
      return memo.size
    },
    seal(purpose, text) {
      const sealedKey = `s${purpose}\n${text}`
      const known = memo.get(sealedKey)
      if (known !== undefined) return known
      const { mac, enc } = keysOf(purpose)
      const plain = Buffer.from(text, 'utf8')
      const nonce = nonceOf(mac, plain)
      const cipher = createCipheriv('aes-256-gcm', enc, nonce)
      const body = Buffer.concat([cipher.update(plain), cipher.final()])
      const token = Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')
      remember(sealedKey, token)
      remember(`o${purpose}\n${token}`, text)
      return token
    },
    open(purpose, token) {
      const known = memo.get(`o${purpose}\n${token}`)
      if (known !== undefined) return known
      if (!SEALED.test(token)) return null
      const raw = Buffer.from(token, 'base64url')
      if (raw.length <= NONCE_BYTES + TAG_BYTES || raw.toString('base64url') !== token) return null
      const { mac, enc } = keysOf(purpose)
      const nonce = raw.subarray(0, NONCE_BYTES)
      try {
        const decipher = createDecipheriv('aes-256-gcm', enc, nonce)
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
        const plain = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()])
        // Only the token this service would issue for the text (its own nonce) opens.
        return timingSafeEqual(nonceOf(mac, plain), nonce) ? plain.toString('utf8') : null
      } catch {
        return null
      }
    },
  }
}
