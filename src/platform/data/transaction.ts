/**
 * `withTransaction(ctx, fn)`: the one way to write. Inside a single write transaction it
 *   1. records the request's idempotency key (if any), after checking it again under the write lock;
 *   2. runs `fn` with the transaction and an `audit` function bound to it;
 *   3. refuses to commit a request's mutation that wrote no audit entry (unless the caller says the
 *      mutation is one docs/API.md §Audit log leaves unaudited, e.g. location batches);
 *   4. for a request that creates a resource, stores that resource's path with the key (the `id` of
 *      what `fn` returns; ./idempotency.ts), so a replay can name it.
 * So the mutation, its audit entry and its idempotency record commit or roll back together.
 *
 * Keep slow non-database work (password hashing, HTTP calls) outside `fn`: writers are serialised, so
 * every other workspace's write waits for it (hashing refuses to run inside; see platform/passwords.ts).
 * A withTransaction called inside `fn` fails at once with NestedTransaction (../db/client.ts) instead
 * of waiting for itself: pass `scope.tx` down to helpers.
 */
import type { Db } from '../../db/client'
import { insertAudit, type AuditEntry } from './audit'
import type { RequestContext } from '../context'
import type { IdempotencyClaim } from './idempotency'

export interface TxScope {
  tx: Db
  audit(entry: AuditEntry): Promise<void>
  /** Runs `effect` once the transaction has committed (pushes, mail); never if it rolls back. */
  afterCommit(effect: () => void): void
}

export interface TransactionOptions {
  /** `required` (default for requests) or `none` for mutations docs/API.md §Audit log leaves unaudited. */
  audit?: 'required' | 'none'
  /**
   * The idempotency record this transaction writes, instead of the request's own (`ctx.idempotency`):
   * a request written in several transactions records one per part and its own key with the last.
   */
  idempotency?: IdempotencyClaim | null
}

export class MissingAuditEntry extends Error {
  constructor() {
    super('a mutation transaction committed no audit entry')
    this.name = 'MissingAuditEntry'
  }
}

export async function withTransaction<T>(ctx: RequestContext, fn: (scope: TxScope) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const claim = options.idempotency !== undefined ? options.idempotency : ctx.idempotency
  const effects: (() => void)[] = []
  // The transaction that stores the request's record also stores where the created resource is.
  const recording = claim !== null && !claim.recorded
  const result = await ctx.deps.db.transaction(async (tx) => {
    effects.length = 0
    if (recording) await ctx.deps.idempotency.record(tx, claim)
    let entries = 0
    const value = await fn({
      tx,
      audit: async (entry) => {
        await insertAudit(tx, ctx, entry)
        entries += 1
      },
      afterCommit: (effect) => {
        effects.push(effect)
      },
    })
    const auditRequired = (options.audit ?? 'required') === 'required' && ctx.actor !== null
    if (auditRequired && entries === 0) throw new MissingAuditEntry()
    if (recording && claim.createdUnder) await ctx.deps.idempotency.recordLocation(tx, claim, value)
    return value
  })
  if (claim) {
    // Committed: from here a repeat finds the stored record (204), so the reservation can go.
    claim.recorded = true
    ctx.deps.idempotency.release(claim)
  }
  for (const effect of effects) {
    try {
      effect()
    } catch (error) {
      ctx.deps.logger.error('after-commit effect failed', { request_id: ctx.meta.requestId, error: String(error) })
    }
  }
  return result
}
