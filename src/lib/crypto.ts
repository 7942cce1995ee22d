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
}

const NONCE_BYTES = 12
const TAG_BYTES = 16
const SEALED = /^[A-Za-z0-9_-]+$/

export function createSealer(secret: string): Sealer {
  const keys = new Map<string, { mac: Buffer; enc: Buffer }>()
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
    seal(purpose, text) {
      const { mac, enc } = keysOf(purpose)
      const plain = Buffer.from(text, 'utf8')
      const nonce = nonceOf(mac, plain)
      const cipher = createCipheriv('aes-256-gcm', enc, nonce)
      const body = Buffer.concat([cipher.update(plain), cipher.final()])
      return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')
    },
    open(purpose, token) {
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
