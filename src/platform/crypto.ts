/** Small crypto helpers: opaque tokens and their stored hashes. */
import { createHash, randomBytes } from 'node:crypto'

/** A URL-safe random token with `bytes` bytes of entropy. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url')

export const sha256Hex = (data: string | Uint8Array | ArrayBuffer) =>
  createHash('sha256')
    .update(data instanceof ArrayBuffer ? new Uint8Array(data) : data)
    .digest('hex')
