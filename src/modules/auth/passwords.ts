/**
 * Password hashing: argon2id through Bun.password, with OWASP's baseline cost (19 MiB, 2 passes).
 * Hashing runs on Bun's thread pool, so call it outside write transactions.
 */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128

const OPTIONS = { algorithm: 'argon2id', memoryCost: 19_456, timeCost: 2 } as const

/** Verified against when the email is unknown, so both paths cost the same. */
let decoy: Promise<string> | null = null

export const hashPassword = (password: string) => Bun.password.hash(password, OPTIONS)

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash) return Bun.password.verify(password, hash).catch(() => false)
  decoy ??= hashPassword(crypto.randomUUID())
  await Bun.password.verify(password, await decoy)
  return false
}
