/**
 * Failed-login limiter (CONTRACT §4): the first 10 failures for one email+IP within 15 minutes
 * answer 401, the next ones 429 with Retry-After until the window passes; a success resets the count.
 * Kept in memory: the service runs as one process, and a restart forgiving counts is acceptable.
 * Expired windows are swept as new ones open, so the map cannot grow without bound.
 */
import type { Clock } from './clock'

export const LOGIN_FAILURE_LIMIT = 10
export const LOGIN_WINDOW_MS = 15 * 60 * 1000

interface Window {
  failures: number
  startedAt: number
}

export class FailureLimiter {
  private readonly windows = new Map<string, Window>()
  private lastSweep = 0

  constructor(
    private readonly clock: Clock,
    private readonly limit = LOGIN_FAILURE_LIMIT,
    private readonly windowMs = LOGIN_WINDOW_MS,
  ) {}

  /** Seconds until the caller may try again, or 0 when not blocked. */
  retryAfterSeconds(key: string): number {
    const window = this.current(key)
    if (!window || window.failures < this.limit) return 0
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - this.clock.now().getTime()) / 1000))
  }

  recordFailure(key: string): void {
    const now = this.clock.now().getTime()
    this.sweep(now)
    const window = this.current(key)
    if (window) window.failures += 1
    else this.windows.set(key, { failures: 1, startedAt: now })
  }

  reset(key: string): void {
    this.windows.delete(key)
  }

  private current(key: string): Window | null {
    const window = this.windows.get(key)
    if (!window) return null
    if (window.startedAt + this.windowMs <= this.clock.now().getTime()) {
      this.windows.delete(key)
      return null
    }
    return window
  }

  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [key, window] of this.windows) if (window.startedAt + this.windowMs <= now) this.windows.delete(key)
  }
}
