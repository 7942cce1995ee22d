/**
 * Access tokens: JWT HS256 with `sub` (user id), `wid` (workspace id), `role`, `exp`, `iat`, `jti`
 * and `sid` (the refresh-token family of the session: "sign out my other sessions" knows this one, and
 * once the family's refresh tokens are all revoked its access tokens are refused, platform/actor.ts)
 * (docs/API.md §Roles and permissions). Signing and verification go through @elysiajs/jwt; only HS256 is accepted, and an
 * expired but well-signed token is told apart from a bad one (TOKEN_EXPIRED vs UNAUTHORIZED).
 */
import { randomUUID } from 'node:crypto'
import { jwt } from '@elysiajs/jwt'
import { eq } from 'drizzle-orm'
import type { Database } from '../db/client'
import { appSettings } from '../db/schema'
import type { Clock } from '../lib/clock'
import { randomToken } from '../lib/crypto'

export interface AccessClaims {
  userId: number
  workspaceId: number
  role: string
  jti: string
  /** Refresh-token family of the session that issued the token. */
  sessionId: string | null
  /** Expiry, seconds since the epoch (a socket lives no longer than its token). */
  exp: number
}

export type VerifiedToken = { status: 'valid'; claims: AccessClaims } | { status: 'expired' } | { status: 'invalid' }

export interface TokenService {
  /** Lifetime of access tokens in seconds (`expires_in`). */
  readonly accessTtlSeconds: number
  signAccessToken(input: { userId: number; workspaceId: number; role: string; sessionId?: string }): Promise<string>
  verifyAccessToken(token: string): Promise<VerifiedToken>
  /** Verified tokens held in memory (at most the cache's share of the memory budget). */
  readonly cachedTokens: number
}

const ALGORITHMS = ['HS256']

/**
 * Verified tokens kept, so a phone's token is checked by signature once, not on every request: by
 * default 10,000; src/app.ts passes the entry caches' share of MEMORY_BUDGET_MB (src/config/memory-budget.ts).
 */
export async function createTokenService(secret: string, accessTtlMs: number, clock: Clock, cacheEntries = 10_000): Promise<TokenService> {
  // Imported once: handing jose the raw bytes would import the HMAC key again on every request.
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
  const { sign, verify } = jwt({ name: 'jwt', secret: key, alg: 'HS256' }).decorator.jwt
  const accessTtlSeconds = Math.floor(accessTtlMs / 1000)
  // Keyed by the whole token string (signature included): only the exact bytes that verified hit.
  // A hit still checks `exp` against the clock, as jose would; the user behind it is loaded fresh
  // by the caller on every request anyway. Oldest entries go first when full.
  const verified = new Map<string, { claims: AccessClaims; exp: number }>()

  return {
    accessTtlSeconds,
    get cachedTokens() {
      return verified.size
    },
    async signAccessToken({ userId, workspaceId, role, sessionId }) {
      const issuedAt = Math.floor(clock.now().getTime() / 1000)
      return sign({
        sub: String(userId),
        wid: workspaceId,
        role,
        ...(sessionId ? { sid: sessionId } : {}),
        jti: randomUUID(),
        exp: issuedAt + accessTtlSeconds,
      })
    },
    async verifyAccessToken(token) {
      const now = clock.now()
      const known = verified.get(token)
      if (known) {
        if (known.exp > Math.floor(now.getTime() / 1000)) return { status: 'valid', claims: known.claims }
        verified.delete(token)
        return { status: 'expired' }
      }
      const payload = await verify(token, { algorithms: ALGORITHMS, currentDate: now })
      if (payload) {
        const claims = toClaims(payload)
        if (!claims) return { status: 'invalid' }
        while (verified.size >= cacheEntries) verified.delete(verified.keys().next().value!)
        verified.set(token, { claims, exp: payload.exp as number })
        return { status: 'valid', claims }
      }
      // Signature and algorithm are checked before time: a token that verifies when time is ignored
      // is genuine but expired.
      const ignoringTime = await verify(token, { algorithms: ALGORITHMS, currentDate: new Date(0) })
      return ignoringTime && toClaims(ignoringTime) ? { status: 'expired' } : { status: 'invalid' }
    },
  }
}

function toClaims(payload: Record<string, unknown>): AccessClaims | null {
  const userId = Number(payload.sub)
  const { wid, role, jti, exp, sid } = payload
  if (!Number.isSafeInteger(userId) || userId < 1) return null
  if (typeof wid !== 'number' || !Number.isSafeInteger(wid) || wid < 1) return null
  if (typeof role !== 'string' || typeof jti !== 'string' || typeof exp !== 'number') return null
  return { userId, workspaceId: wid, role, jti, sessionId: typeof sid === 'string' ? sid : null, exp }
}

const JWT_SECRET_SETTING = 'jwt_secret'

/**
 * JWT_SECRET from the environment, or one generated on first start and persisted in the database so
 * tokens survive restarts and every process of the same database agrees on it.
 */
export async function resolveJwtSecret(db: Database, configured: string | undefined): Promise<string> {
  if (configured) return configured
  const read = async () => (await db.read.select({ value: appSettings.value }).from(appSettings).where(eq(appSettings.key, JWT_SECRET_SETTING)))[0]?.value
  const existing = await read()
  if (existing) return existing
  await db.transaction(async (tx) => {
    await tx
      .insert(appSettings)
      .values({ key: JWT_SECRET_SETTING, value: randomToken(48) })
      .onConflictDoNothing()
  })
  return (await read())!
}
