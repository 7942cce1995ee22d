/**
 * Idempotent mutations (docs/API.md §Idempotency).
 *
 * 1. Before the handler (`claim`): the key is checked and reserved in this process. A request with a
 *    key that is still running answers 409 IDEMPOTENCY_KEY_IN_PROGRESS; a key whose stored first run
 *    succeeded less than 24 h ago answers 204 without running anything; a key seen with another
 *    fingerprint (user, method, path with query, body) answers 422 IDEMPOTENCY_KEY_REUSED.
 * 2. In the mutation's own transaction (`record`, called by withTransaction): the record is checked
 *    again under the write lock and written, so the key, the mutation and its audit entry commit or
 *    roll back together. A failed first run leaves no record, so the retry runs again.
 *    A request that creates a resource (`createdUnder`, see RouteTable in ./http.ts) also stores the
 *    created resource's path at the end of that transaction (`recordLocation`), from the `id` of what
 *    the transaction returns: the object the route answers as `data`. A replay sends it as Location.
 * 3. After the response (`release`): the in-process reservation is dropped.
 *
 * Expiry is checked at lookup; the hourly job only reclaims space.
 */
import { eq, gt, inArray, lt, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { removeInBatches, type Write } from '../../db/batches'
import { prepared } from '../../db/prepared'
import { idempotencyKeys } from '../../db/schema'
import { workspaceScoped } from './scope'
import type { Clock } from '../../lib/clock'
import { sha256Hex } from '../../lib/crypto'
import { AppError, IdempotentReplay, ValidationFailed } from '../../lib/errors'

/** Keys are unique per workspace: the same key in two workspaces names two requests. */
const idempotencyKeyScope = workspaceScoped(idempotencyKeys)

/** Operation extension of a route whose X-Idempotency-Key is required (../http/http.ts `idempotency: 'required'`). */
export const IDEMPOTENCY_REQUIRED = 'x-idempotency-key-required'
export const IDEMPOTENCY_HEADER = 'x-idempotency-key'
export const IDEMPOTENCY_KEY_MAX = 64
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** Expired records removed per write transaction by the hourly cleanup. */
export const CLEANUP_BATCH = 5_000
/**
 * The record in one statement: inserted, or replacing one that is expired (or answered non-2xx for
 * the same request, which re-runs). A fresh record is left alone and nothing is returned.
 */
const storeUnlessFresh = prepared((db) =>
  db
    .insert(idempotencyKeys)
    .values({
      workspace_id: sql.placeholder('workspaceId'),
      key: sql.placeholder('key'),
      fingerprint: sql.placeholder('fingerprint'),
      response_status: sql.placeholder('status'),
      created_at: sql.placeholder('now'),
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.workspace_id, idempotencyKeys.key],
      set: {
        fingerprint: sql`excluded.fingerprint`,
        response_status: sql`excluded.response_status`,
        location: sql`excluded.location`,
        created_at: sql`excluded.created_at`,
      },
      setWhere: sql`${idempotencyKeys.created_at} <= ${sql.placeholder('cutoff')}
        or (${idempotencyKeys.fingerprint} = excluded.fingerprint and ${idempotencyKeys.response_status} not between 200 and 299)`,
    })
    .returning({ id: idempotencyKeys.id })
    .prepare(),
)

const storeLocation = prepared((db) =>
  db
    .update(idempotencyKeys)
    .set({ location: sql`${sql.placeholder('location')}` })
    .where(idempotencyKeyScope.where(sql.placeholder('workspaceId'), eq(idempotencyKeys.key, sql.placeholder('key'))))
    .prepare(),
)

export const IDEMPOTENT_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

const VISIBLE_ASCII = /^[\x21-\x7e]+$/

const findFreshRecord = prepared((db) =>
  db
    .select({ fingerprint: idempotencyKeys.fingerprint, status: idempotencyKeys.response_status, location: idempotencyKeys.location })
    .from(idempotencyKeys)
    .where(
      idempotencyKeyScope.where(
        sql.placeholder('workspaceId'),
        eq(idempotencyKeys.key, sql.placeholder('key')),
        gt(idempotencyKeys.created_at, sql.placeholder('cutoff')),
      ),
    )
    .limit(1)
    .prepare(),
)

export interface IdempotencyClaim {
  workspaceId: number
  key: string
  fingerprint: string
  /** The status the route answers on success; stored as `response_status`. */
  successStatus: number
  /** Set once the record is committed, so a second transaction of the request does not re-check. */
  recorded: boolean
  /**
   * For a request that creates a resource: the path its id is appended to (`/api/office/v1/outlets/`).
   * Null (or absent) for every other request.
   */
  createdUnder?: string | null
}

export class KeyInProgress extends AppError {
  constructor() {
    super('IDEMPOTENCY_KEY_IN_PROGRESS', 'a request with this idempotency key is still being processed')
  }
}

export class KeyReused extends AppError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used for a different request')
  }
}

export interface ClaimInput {
  workspaceId: number
  userId: number
  method: string
  /** Path with query string, as requested. */
  target: string
  rawBody: ArrayBuffer | null
  successStatus: number
  /** See IdempotencyClaim.createdUnder. */
  createdUnder?: string | null
  /**
   * Look the key up before the handler runs (default). A route whose handler neither refuses nor
   * does anything before its transaction may skip it: `record` checks the key under the write lock at
   * the start of the transaction and answers the same 204 / 422 (one read less per request).
   */
  checkBeforeHandler?: boolean
}

export class IdempotencyStore {
  /** `workspace:key` → fingerprint of the request currently running with it. */
  private readonly running = new Map<string, string>()

  constructor(
    private readonly read: () => Db,
    private readonly clock: Clock,
  ) {}

  /** Validates the header value; null when the request carries none. */
  static parseKey(value: string | null): string | null {
    if (value === null) return null
    if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX || !VISIBLE_ASCII.test(value)) {
      throw ValidationFailed.field(IDEMPOTENCY_HEADER, `must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters`)
    }
    return value
  }

  async claim(key: string, input: ClaimInput): Promise<IdempotencyClaim> {
    const fingerprint = sha256Hex([input.userId, input.method, input.target, sha256Hex(input.rawBody ?? new ArrayBuffer(0))].join('\n'))
    const slot = `${input.workspaceId}:${key}`
    const running = this.running.get(slot)
    if (running !== undefined) throw running === fingerprint ? new KeyInProgress() : new KeyReused()
    // Reserved synchronously, before any await, so two concurrent requests cannot both get here.
    this.running.set(slot, fingerprint)
    try {
      const claim = {
        workspaceId: input.workspaceId,
        key,
        fingerprint,
        successStatus: input.successStatus,
        recorded: false,
        createdUnder: input.createdUnder ?? null,
      }
      if (input.checkBeforeHandler !== false) await this.check(this.read(), claim)
      return claim
    } catch (error) {
      this.running.delete(slot)
      throw error
    }
  }

  release(claim: IdempotencyClaim): void {
    this.running.delete(`${claim.workspaceId}:${claim.key}`)
  }

  /**
   * Inside the mutation's transaction, under the write lock: store the record in one statement
   * unless a fresh one stands in the way (then it decides: 204 replay or 422 reused key).
   */
  async record(tx: Db, claim: IdempotencyClaim): Promise<void> {
    if (claim.recorded) return
    const now = this.clock.now()
    const values = {
      workspaceId: claim.workspaceId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      status: claim.successStatus,
      now: now.toISOString(),
      cutoff: new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString(),
    }
    const [stored] = await storeUnlessFresh(tx).all(values)
    if (stored) return
    await this.check(tx, claim)
    // Under the write lock a fresh record either replays or conflicts, so this is never reached.
    throw new Error(`idempotency record for ${claim.key} neither stored nor found`)
  }

  /**
   * Step 2, at the end of the transaction that stored the record: the path of the resource the
   * request created, from the `id` of `created` (what the transaction returns). Nothing is stored
   * when there is no positive integer id to take.
   */
  async recordLocation(tx: Db, claim: IdempotencyClaim, created: unknown): Promise<void> {
    const id = (created as { id?: unknown } | null)?.id
    if (!claim.createdUnder || !Number.isSafeInteger(id) || (id as number) < 1) return
    await storeLocation(tx).run({ location: `${claim.createdUnder}${id}`, workspaceId: claim.workspaceId, key: claim.key })
  }

  /** Removes records past their 24 hours, `batch` per write transaction (../db/batches.ts); returns how many. */
  async removeExpired(write: Write, batch = CLEANUP_BATCH, signal?: AbortSignal): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS).toISOString()
    return removeInBatches(
      write,
      batch,
      async (tx, limit) => {
        const expired = tx.select({ id: idempotencyKeys.id }).from(idempotencyKeys).where(lt(idempotencyKeys.created_at, cutoff)).limit(limit)
        return (await tx.delete(idempotencyKeys).where(inArray(idempotencyKeys.id, expired)).returning({ id: idempotencyKeys.id })).length
      },
      signal,
    )
  }

  private async check(db: Db, claim: IdempotencyClaim): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS).toISOString()
    const [stored] = await findFreshRecord(db).all({ workspaceId: claim.workspaceId, key: claim.key, cutoff })
    if (!stored) return
    if (stored.fingerprint !== claim.fingerprint) throw new KeyReused()
    if (stored.status >= 200 && stored.status < 300) throw new IdempotentReplay(stored.location)
  }
}
