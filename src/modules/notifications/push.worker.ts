/**
 * The push worker: delivers the push outbox (`push_deliveries`, written by `notify` in each
 * notification's own transaction) to FCM and Web Push, after commit, off the request path.
 *
 * Invariants (docs/API.md §Push notifications):
 *   - At least once. A row is claimed (`pending` → `sending`, one UPDATE in the single writer, so no two
 *     loops of this process ever hold the same row) before it is sent, and its outcome is written after.
 *     A crash between the two leaves it `sending`; `start()` makes every such row pending again, so it
 *     is sent again (the device may see a repeat: messages carry `notification_id` to drop it).
 *   - Never in a request's way: requests only insert rows and `wake()` the loop. At most `concurrency`
 *     sends are in flight, each bounded by `timeoutMs` (AbortSignal.timeout) and aborted at `stop()`;
 *     a slow or dead push service only delays its own rows.
 *   - Checked at send time: the token must still belong to the notification's user in that workspace
 *     (not deleted, not moved to someone else), and the user must still be an active member; otherwise
 *     the row is `skipped` without a request. Web Push endpoints are checked again (./push.endpoint.ts).
 *   - Retries: 429/5xx, network errors and timeouts are tried again after 30 s · 2^(n−1) (a little
 *     less, jittered), or after the push service's `Retry-After` (at most 60 s for the first retry),
 *     at most MAX_ATTEMPTS tries within RETRY_WINDOW_MS of the notification, then `failed`.
 *   - 404/410 and FCM's UNREGISTERED / INVALID_ARGUMENT: `pruned`, and the token is deleted.
 */
import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import type { Config } from '../../config/env'
import type { Database } from '../../db/client'
import { memberships, notifications, pushDeliveries, pushTokens, users } from '../../db/schema'
import type { Clock } from '../../lib/clock'
import { workspaceScoped } from '../../platform/data/scope'
import type { Logger } from '../../platform/logger'
import type { Metrics } from '../../platform/observability'
import { FcmChannel, type PushChannel, type PushMessage, type SendOutcome, WebPushChannel } from './push.channels'
import { type HostResolver, systemResolver } from './push.endpoint'

export const PUSH_DELIVERIES = 'ffos_push_deliveries_total'
export const PUSH_RESULTS = ['sent', 'retried', 'failed', 'pruned'] as const
export const MAX_ATTEMPTS = 6
export const RETRY_WINDOW_MS = 3_600_000
export const FIRST_RETRY_MS = 30_000
/** The longest `Retry-After` honoured for the first retry, and for later ones. */
export const FIRST_RETRY_AFTER_CAP_MS = 60_000
export const RETRY_AFTER_CAP_MS = 15 * 60_000

export type PushPlatform = 'android' | 'ios' | 'web'
type Delivery = typeof pushDeliveries.$inferSelect

const tokenScope = workspaceScoped(pushTokens)
const membershipScope = workspaceScoped(memberships)
const notificationScope = workspaceScoped(notifications)

/**
 * When the try after `attempts` failed ones is due, in ms from now; null when there is none (6 tries
 * made, or the next would fall outside the hour). `random` in [0, 1) jitters the backoff downwards.
 */
export function retryDelay(attempts: number, retryAfterMs: number | undefined, elapsedMs: number, random = Math.random()): number | null {
  if (attempts >= MAX_ATTEMPTS) return null
  const backoff = Math.round(FIRST_RETRY_MS * 2 ** (attempts - 1) * (0.8 + 0.2 * random))
  const delay = retryAfterMs === undefined ? backoff : Math.min(retryAfterMs, attempts <= 1 ? FIRST_RETRY_AFTER_CAP_MS : RETRY_AFTER_CAP_MS)
  return elapsedMs + delay > RETRY_WINDOW_MS ? null : delay
}

export interface PushWorkerOptions {
  db: Database
  config: Config
  clock: Clock
  logger: Logger
  metrics: Metrics
  /** How endpoint hosts are resolved at send (tests give one whose answers they control). */
  resolve?: HostResolver
  /** Sends in flight at once. */
  concurrency?: number
  /** How long one request to a push service may take. */
  timeoutMs?: number
  /** The longest the loop sleeps without a wake-up (it also wakes when the next retry is due). */
  idleMs?: number
}

export class PushWorker {
  readonly fcm: FcmChannel | null
  readonly web: WebPushChannel | null
  readonly concurrency: number
  readonly timeoutMs: number
  private readonly idleMs: number
  private readonly inFlight = new Set<Promise<void>>()
  private stopping = new AbortController()
  private running: Promise<void> | null = null
  private wakeUp: (() => void) | null = null
  private woken = false

  constructor(private readonly options: PushWorkerOptions) {
    const { config, clock } = options
    this.concurrency = options.concurrency ?? 8
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.idleMs = options.idleMs ?? 5_000
    this.fcm = config.fcm ? new FcmChannel(config.fcm, config.FCM_BASE_URL, clock, this.timeoutMs) : null
    this.web = config.vapid
      ? new WebPushChannel(config.vapid, { allowPrivate: config.PUSH_ALLOW_PRIVATE_ENDPOINTS, resolve: options.resolve ?? systemResolver, clock })
      : null
  }

  /** The platforms whose tokens are pushed to; the others' tokens are stored only. */
  get platforms(): PushPlatform[] {
    return [...(this.fcm ? (['android', 'ios'] as const) : []), ...(this.web ? (['web'] as const) : [])]
  }

  /** The one start-up line: which channels are configured. */
  describe(): { message: string; fields: Record<string, unknown> } {
    const fcm = this.fcm ? 'on' : 'off (FCM_SERVICE_ACCOUNT unset: android/ios tokens stored only)'
    const web = this.web ? 'on' : 'off (VAPID_* unset: web tokens stored only)'
    return {
      message: `push: FCM ${fcm}; Web Push ${web}`,
      fields: { fcm: Boolean(this.fcm), web_push: Boolean(this.web), private_endpoints_allowed: this.options.config.PUSH_ALLOW_PRIVATE_ENDPOINTS },
    }
  }

  private channelOf(platform: string): PushChannel | null {
    return platform === 'web' ? this.web : this.fcm
  }

  /** After a commit that queued rows: the loop looks now instead of at its next timer. */
  wake(): void {
    this.woken = true
    this.wakeUp?.()
  }

  /**
   * Starts the loop: rows a crash left `sending` are pending again, then every due row is sent. Also without
   * any channel configured: rows queued while one was (before a restart without it) end `skipped`, not pending forever.
   */
  start(): void {
    if (this.running) return
    this.running = this.loop().catch((error) => this.options.logger.error('push worker stopped on an error', { error: String(error) }))
  }

  /**
   * Stops the loop, aborts the sends in flight and resolves when none runs. An aborted send counts as a
   * try that met a network error: its row is pending, due after the usual backoff (at the next start).
   */
  async stop(): Promise<void> {
    this.stopping.abort()
    this.wakeUp?.()
    await this.running
    await Promise.all(this.inFlight)
    this.running = null
    // Ready for another start (or a runDue): the aborted signal stays with the sends it cut.
    this.stopping = new AbortController()
  }

  /** Rows left `sending` (a crash between claim and outcome) become pending, due now. Returns how many. */
  async resume(): Promise<number> {
    const now = this.options.clock.now().toISOString()
    const rows = await this.options.db.transaction((tx) =>
      tx
        .update(pushDeliveries)
        .set({ status: 'pending', next_attempt_at: now, updated_at: now })
        .where(eq(pushDeliveries.status, 'sending'))
        .returning({ id: pushDeliveries.id }),
    )
    if (rows.length) this.options.logger.info('push deliveries resumed after a restart', { deliveries: rows.length })
    return rows.length
  }

  private async loop(): Promise<void> {
    await this.resume()
    while (!this.stopping.signal.aborted) {
      this.woken = false
      try {
        await this.fill()
      } catch (error) {
        this.options.logger.error('push worker could not claim deliveries', { error: String(error) })
      }
      if (this.stopping.signal.aborted) break
      if (this.woken) continue
      const wait = await this.untilNextDue().catch(() => this.idleMs)
      // Looked at again after that read: a wake-up that came meanwhile must not wait for the timer.
      if (this.woken || this.stopping.signal.aborted) continue
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait)
        this.wakeUp = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.wakeUp = null
    }
  }

  /** Milliseconds until the next pending row is due (at most idleMs). */
  private async untilNextDue(): Promise<number> {
    const [next] = await this.options.db.read
      .select({ at: pushDeliveries.next_attempt_at })
      .from(pushDeliveries)
      .where(eq(pushDeliveries.status, 'pending'))
      .orderBy(asc(pushDeliveries.next_attempt_at))
      .limit(1)
    if (!next) return this.idleMs
    return Math.max(0, Math.min(this.idleMs, Date.parse(next.at) - this.options.clock.now().getTime()))
  }

  /** Claims as many due rows as there are free slots and starts their sends; each finished send wakes the loop. */
  private async fill(): Promise<void> {
    const free = this.concurrency - this.inFlight.size
    if (free <= 0) return
    for (const row of await this.claim(free)) {
      const send = this.deliver(row)
        .catch((error) => this.options.logger.error('push delivery failed unexpectedly', { delivery_id: row.id, error: String(error) }))
        .finally(() => {
          this.inFlight.delete(send)
          this.wake()
        })
      this.inFlight.add(send)
    }
  }

  /**
   * Sends every row due now and resolves when all are done (tests, and a manual drain): claims in
   * rounds of `concurrency`. Returns how many rows it handled.
   */
  async runDue(): Promise<number> {
    let handled = 0
    for (;;) {
      const rows = await this.claim(this.concurrency)
      if (!rows.length) return handled
      handled += rows.length
      await Promise.all(rows.map((row) => this.deliver(row)))
    }
  }

  /**
   * pending and due → sending, `attempts` + 1, in one UPDATE: a row is claimed by one caller only. The
   * outbox is drained for every workspace at once (no workspace condition); each row's own workspace
   * scopes the checks and reads made for it.
   */
  private async claim(limit: number): Promise<Delivery[]> {
    const now = this.options.clock.now().toISOString()
    const dueNow = (db: Database['read']) =>
      db
        .select({ id: pushDeliveries.id })
        .from(pushDeliveries)
        .where(and(eq(pushDeliveries.status, 'pending'), lte(pushDeliveries.next_attempt_at, now)))
        .orderBy(asc(pushDeliveries.next_attempt_at), asc(pushDeliveries.id))
        .limit(limit)
    // Looked for on the reader first: an idle outbox costs no write transaction (nor its WAL sync).
    if ((await dueNow(this.options.db.read)).length === 0) return []
    return this.options.db.transaction((tx) =>
      tx
        .update(pushDeliveries)
        .set({ status: 'sending', attempts: sql`${pushDeliveries.attempts} + 1`, updated_at: now })
        .where(and(inArray(pushDeliveries.id, dueNow(tx)), eq(pushDeliveries.status, 'pending')))
        .returning(),
    )
  }

  /** Why a claimed row must not be sent (its user deactivated, its token gone or moved), or null. */
  private async refusal(row: Delivery): Promise<string | null> {
    const read = this.options.db.read
    const [member] = await read
      .select({ active: memberships.is_active })
      .from(memberships)
      .innerJoin(users, and(eq(users.id, memberships.user_id), isNull(users.deleted_at)))
      .where(membershipScope.where(row.workspace_id, eq(memberships.user_id, row.user_id)))
      .limit(1)
    if (!member?.active) return 'the user is deactivated or no longer a member'
    const [token] = await read
      .select({ id: pushTokens.id })
      .from(pushTokens)
      .where(tokenScope.where(row.workspace_id, eq(pushTokens.token, row.token), eq(pushTokens.user_id, row.user_id)))
      .limit(1)
    if (!token) return 'the token is no longer registered to this user'
    return null
  }

  private async deliver(row: Delivery): Promise<void> {
    const refusal = await this.refusal(row)
    if (refusal) return this.finish(row, { result: 'failed', status: null, error: refusal }, 'skipped')
    const channel = this.channelOf(row.platform)
    if (!channel) return this.finish(row, { result: 'failed', status: null, error: `no push channel for ${row.platform} is configured` }, 'skipped')
    const [notification] = await this.options.db.read
      .select({ id: notifications.id, type: notifications.type, title: notifications.title, body: notifications.body })
      .from(notifications)
      .where(notificationScope.where(row.workspace_id, eq(notifications.id, row.notification_id)))
      .limit(1)
    if (!notification) return this.finish(row, { result: 'failed', status: null, error: 'the notification is gone' }, 'skipped')
    const message: PushMessage = { notificationId: notification.id, type: notification.type, title: notification.title, body: notification.body }
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stopping.signal])
    let outcome: SendOutcome
    try {
      outcome = await channel.send(row.token, message, signal)
    } catch (error) {
      outcome = { result: 'retry', status: null, error: String(error) }
    }
    await this.finish(row, outcome)
  }

  /** Writes a send's outcome (and prunes a dead token) in one transaction, then counts it. */
  private async finish(row: Delivery, outcome: SendOutcome, status?: 'skipped'): Promise<void> {
    const now = this.options.clock.now()
    const at = now.toISOString()
    let counted: (typeof PUSH_RESULTS)[number]
    let values: Partial<Delivery>
    if (status === 'skipped') {
      counted = 'failed'
      values = { status: 'skipped', last_error: 'error' in outcome ? outcome.error : null }
    } else if (outcome.result === 'sent') {
      counted = 'sent'
      values = { status: 'sent', sent_at: at, last_status: outcome.status, last_error: null }
    } else if (outcome.result === 'pruned') {
      counted = 'pruned'
      values = { status: 'pruned', last_status: outcome.status, last_error: outcome.error }
    } else if (outcome.result === 'retry') {
      const delay = retryDelay(row.attempts, outcome.retryAfterMs, now.getTime() - Date.parse(row.created_at))
      if (delay === null) {
        counted = 'failed'
        values = { status: 'failed', last_status: outcome.status, last_error: `gave up after ${row.attempts} tries: ${outcome.error}` }
      } else {
        counted = 'retried'
        values = { status: 'pending', next_attempt_at: new Date(now.getTime() + delay).toISOString(), last_status: outcome.status, last_error: outcome.error }
      }
    } else {
      counted = 'failed'
      values = { status: 'failed', last_status: outcome.status, last_error: outcome.error }
    }
    await this.options.db.transaction(async (tx) => {
      await tx
        .update(pushDeliveries)
        .set({ ...values, updated_at: at })
        .where(and(eq(pushDeliveries.id, row.id), eq(pushDeliveries.status, 'sending')))
      // A token the push service no longer knows is dead whoever holds it now: deleted, never used again.
      if (values.status === 'pruned') await tx.delete(pushTokens).where(eq(pushTokens.token, row.token))
    })
    this.options.metrics.add(PUSH_DELIVERIES, 1, counted)
    if (counted !== 'sent') {
      this.options.logger.info('push delivery', {
        delivery_id: row.id,
        notification_id: row.notification_id,
        platform: row.platform,
        result: values.status,
        error: values.last_error,
      })
    }
  }
}
