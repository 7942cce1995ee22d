/** Time comes from here, so tests can move it (token expiry, idempotency windows, rate limits). */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number

  constructor(start: Date | string = '2026-11-21T08:00:00.000Z') {
    this.current = new Date(start).getTime()
  }

  now(): Date {
    return new Date(this.current)
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime()
  }

  advance(ms: number): void {
    this.current += ms
  }
}

export const isoNow = (clock: Clock) => clock.now().toISOString()

export const isoAfter = (clock: Clock, ms: number) => new Date(clock.now().getTime() + ms).toISOString()
