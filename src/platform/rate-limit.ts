/**
 * Rate limits of the public auth routes, counted in fixed windows in this process's memory: a
 * restart forgives the counts, and a second instance would keep counts of its own.
 *
 * The invariant every limiter here keeps: it DECIDES AND COUNTS IN ONE SYNCHRONOUS STEP. A request
 * is counted (or its slot reserved) in the same call that lets it through, before the caller awaits
 * anything. A "check, await the password hash, then count" would let 30 requests arriving together
 * all see "under the limit" and all pass.
 *
 * - RequestLimiter: every request counts (`tryConsume`). Register per IP, forgot-password per
 *   email and per IP.
 * - FailureLimiter: only failures count (`reserve` → settle the attempt once the outcome is
 *   known). A reservation holds a slot while the password is checked, so at most `limit` attempts
 *   can ever turn into failures within a window. Failed logins per email+IP (a success clears the
 *   failures) and failed password checks per IP (login or reset token, whatever the email: a
 *   success clears nothing, or one account of the sprayer's own would wipe the count).
 *
 * Expired windows are swept as new ones open, and each limiter holds at most `maxKeys` windows (the
 * entry caches' share of MEMORY_BUDGET_MB, src/config/memory-budget.ts): past it, expired windows are
 * swept at once and then the window opened longest ago is forgotten. That forgives its key early, the
 * price of a bound that a flood of new keys (addresses, emails) cannot push past.
 */
import type { Config } from '../config/env'
import type { Clock } from '../lib/clock'

export const LOGIN_FAILURE_LIMIT = 10
export const LOGIN_WINDOW_MS = 15 * 60 * 1000
export const HOUR_MS = 60 * 60 * 1000
export const FORGOT_PASSWORD_PER_EMAIL_PER_HOUR = 3
export const FORGOT_PASSWORD_PER_IP_PER_HOUR = 20
/** Failed password checks per client IP (PASSWORD_FAILURES_PER_IP) are counted in windows of this length. */
export const PASSWORD_FAILURES_WINDOW_MS = 15 * 60 * 1000
/**
 * Password checks of one client IP in progress at once; more wait their turn at the limiter. So one
 * address never fills the hashing gate's queue (src/platform/passwords.ts): a burst from it waits
 * here, and another address's login waits behind at most this many of its hashes.
 */
export const PASSWORD_CHECKS_IN_FLIGHT_PER_IP = 4

interface Window {
  /** Requests counted (RequestLimiter) or failures recorded (FailureLimiter). */
  count: number
  /** FailureLimiter only: attempts let through whose outcome is not known yet. */
  pending: number
  startedAt: number
}

/** Fixed windows per key, with the expiry and sweeping both limiters share. */
abstract class Windows {
  private readonly windows = new Map<string, Window>()
  private lastSweep = 0

  constructor(
    protected readonly clock: Clock,
    readonly limit: number,
    readonly windowMs: number,
    readonly maxKeys = Infinity,
  ) {}

  /** Windows held (at most `maxKeys`). */
  get size(): number {
    return this.windows.size
  }

  protected current(key: string, now: number): Window | null {
    const window = this.windows.get(key)
    if (!window) return null
    if (window.startedAt + this.windowMs <= now) {
      this.windows.delete(key)
      return null
    }
    return window
  }

  protected open(key: string, now: number): Window {
    this.sweep(now)
    if (this.windows.size >= this.maxKeys) {
      this.sweep(now, true)
      // Map order is opening order: the first is the oldest.
      while (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!)
    }
    const window = { count: 0, pending: 0, startedAt: now }
    this.windows.set(key, window)
    return window
  }

  protected drop(key: string, window: Window) {
    if (this.windows.get(key) === window) this.windows.delete(key)
  }

  protected retryAfterSeconds(window: Window, now: number): number {
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000))
  }

  private sweep(now: number, force = false) {
    if (!force && now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [key, window] of this.windows) if (window.startedAt + this.windowMs <= now) this.windows.delete(key)
  }
}

/** At most `limit` requests per key and window; a limit of 0 turns the limiter off. */
export class RequestLimiter extends Windows {
  /** Counts the request and returns 0, or returns the seconds until a request may pass (not counted). */
  tryConsume(key: string): number {
    if (this.limit <= 0) return 0
    const now = this.clock.now().getTime()
    const window = this.current(key, now) ?? this.open(key, now)
    if (window.count >= this.limit) return this.retryAfterSeconds(window, now)
    window.count += 1
    return 0
  }
}

/** The outcome of a login attempt let through by the FailureLimiter; settle it exactly once. */
export interface Attempt {
  /** Wrong credentials: the reserved slot becomes a failure. */
  failed(): void
  /** Right credentials: the window's failures are cleared. */
  succeeded(): void
  /** Neither (e.g. a disabled account, or an error): the slot is given back. */
  released(): void
}

export type Reservation = { attempt: Attempt; retryAfterSeconds: 0 } | { attempt: null; retryAfterSeconds: number }

/**
 * At most `limit` failures per key and window; attempts beyond them are refused until it passes.
 * An attempt holds a slot while its outcome is unknown, so failures can never exceed the limit. When
 * every free slot is held, the next attempt waits for one to settle and then decides again (still in
 * one synchronous step): concurrent attempts get the answers they would get one after another, so
 * 30 right passwords at once all log in, and 30 wrong ones get 10 × 401 and 20 × 429.
 */
export class FailureLimiter extends Windows {
  private readonly waiting = new Map<Window, (() => void)[]>()

  /**
   * `limit` 0 turns the limiter off. `clearOnSuccess` false: a success only gives its slot back.
   * `maxPending`: attempts of one key in progress at once; more wait like those beyond the free slots.
   */
  constructor(
    clock: Clock,
    limit = LOGIN_FAILURE_LIMIT,
    windowMs = LOGIN_WINDOW_MS,
    private readonly options: { clearOnSuccess?: boolean; maxPending?: number; maxKeys?: number } = {},
  ) {
    super(clock, limit, windowMs, options.maxKeys)
  }

  async reserve(key: string): Promise<Reservation> {
    if (this.limit <= 0) return { attempt: UNLIMITED, retryAfterSeconds: 0 }
    for (;;) {
      const now = this.clock.now().getTime()
      const window = this.current(key, now) ?? this.open(key, now)
      if (window.count >= this.limit) return { attempt: null, retryAfterSeconds: this.retryAfterSeconds(window, now) }
      if (window.count + window.pending < this.limit && window.pending < (this.options.maxPending ?? Infinity)) {
        window.pending += 1
        return { attempt: this.attemptIn(key, window), retryAfterSeconds: 0 }
      }
      // Every free slot (or every slot of the key's in-flight share) is held by an attempt in progress
      // (each settles once its password check ends).
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(window)
        if (queue) queue.push(resolve)
        else this.waiting.set(window, [resolve])
      })
    }
  }

  private attemptIn(key: string, window: Window): Attempt {
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      window.pending -= 1
      outcome()
      if (window.count === 0 && window.pending === 0) this.drop(key, window)
      // Waiters decide again, in arrival order.
      const queue = this.waiting.get(window)
      this.waiting.delete(window)
      for (const wake of queue ?? []) wake()
    }
    return {
      failed: () =>
        settle(() => {
          const now = this.clock.now().getTime()
          // The window the slot was reserved in, unless it expired meanwhile.
          const target = this.current(key, now) === window ? window : (this.current(key, now) ?? this.open(key, now))
          target.count += 1
        }),
      succeeded: () =>
        settle(() => {
          if (this.options.clearOnSuccess ?? true) window.count = 0
        }),
      released: () => settle(() => {}),
    }
  }
}

/** The attempt of a limiter that is off: settling it does nothing. */
const UNLIMITED: Attempt = { failed() {}, succeeded() {}, released() {} }

/** The limiters of the auth routes, one set per app. */
export interface AuthLimits {
  /** Failed logins per email+IP: 10 per 15 minutes. */
  login: FailureLimiter
  /**
   * Failed password checks per IP, whatever the email: wrong logins and unknown reset tokens,
   * PASSWORD_FAILURES_PER_IP per 15 minutes (0 = off), at most PASSWORD_CHECKS_IN_FLIGHT_PER_IP of
   * them in progress at once. Stops spraying many emails from one address.
   */
  passwordFailuresByIp: FailureLimiter
  /** Registrations per IP per hour: REGISTER_LIMIT_PER_HOUR (0 = off). */
  register: RequestLimiter
  /** Password-reset requests per email and per IP per hour; over either, no mail goes out. */
  forgotPasswordByEmail: RequestLimiter
  forgotPasswordByIp: RequestLimiter
}

export function createAuthLimits(clock: Clock, config: Pick<Config, 'REGISTER_LIMIT_PER_HOUR' | 'PASSWORD_FAILURES_PER_IP' | 'memory'>): AuthLimits {
  const maxKeys = config.memory.cacheEntries
  return {
    login: new FailureLimiter(clock, LOGIN_FAILURE_LIMIT, LOGIN_WINDOW_MS, { maxKeys }),
    passwordFailuresByIp: new FailureLimiter(clock, config.PASSWORD_FAILURES_PER_IP, PASSWORD_FAILURES_WINDOW_MS, {
      clearOnSuccess: false,
      maxPending: PASSWORD_CHECKS_IN_FLIGHT_PER_IP,
      maxKeys,
    }),
    register: new RequestLimiter(clock, config.REGISTER_LIMIT_PER_HOUR, HOUR_MS, maxKeys),
    forgotPasswordByEmail: new RequestLimiter(clock, FORGOT_PASSWORD_PER_EMAIL_PER_HOUR, HOUR_MS, maxKeys),
    forgotPasswordByIp: new RequestLimiter(clock, FORGOT_PASSWORD_PER_IP_PER_HOUR, HOUR_MS, maxKeys),
  }
}
