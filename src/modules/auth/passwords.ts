/**
 * Password hashing: argon2id through Bun.password, with OWASP's baseline cost (19 MiB, 2 passes).
 * Hashing takes tens of milliseconds; inside a write transaction every other workspace's write would
 * wait for it, so it is refused there (hash first, then open the transaction).
 */
import { insideWriteTransaction } from '../../db/client'

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128

const OPTIONS = { algorithm: 'argon2id', memoryCost: 19_456, timeCost: 2 } as const

/** Verified against when the email is unknown, so both paths cost the same. */
let decoy: Promise<string> | null = null

export class HashInsideTransaction extends Error {
  constructor() {
    super('password hashing inside a write transaction holds every writer: hash before withTransaction')
    this.name = 'HashInsideTransaction'
  }
}

function refuseInsideTransaction() {
  if (insideWriteTransaction()) throw new HashInsideTransaction()
}

export async function hashPassword(password: string): Promise<string> {
  refuseInsideTransaction()
  return Bun.password.hash(password, OPTIONS)
}

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  refuseInsideTransaction()
  if (hash) return Bun.password.verify(password, hash).catch(() => false)
  decoy ??= hashPassword(crypto.randomUUID())
  await Bun.password.verify(password, await decoy)
  return false
}
