/**
 * Password hashing: argon2id through Bun.password, with OWASP's baseline cost (19 MiB, 2 passes).
 * Hashing takes tens of milliseconds; inside a write transaction every other workspace's write would
 * wait for it, so it is refused there (hash first, then open the transaction).
 *
 * Every hash and verification of the process goes through one gate (`passwordWork`): at most
 * PASSWORD_WORK_CONCURRENCY run at once, at most PASSWORD_WORK_QUEUE more wait their turn in arrival
 * order, and a call beyond that is refused at once with 429 RATE_LIMITED (`Retry-After: 1`). Without
 * the gate a burst of public requests (login, register, reset-password: each one hash) ran hundreds of
 * 19 MiB hashes at once: the CPU and memory went to them and a real login took 17 s. With it a burst
 * costs the length of the queue at most, and a login arriving behind it waits for
 * PASSWORD_WORK_QUEUE / PASSWORD_WORK_CONCURRENCY hashes (docs/PERFORMANCE.md, "Password hashing under a
 * burst"). Who may ask for a hash at all is the limiters' business (platform/rate-limit.ts).
 */
import { PASSWORD_COST_DEFAULT, type PasswordCost } from '../config/memory-budget'
import { insideWriteTransaction } from '../db/client'
import { AppError } from '../lib/errors'

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128

/** Hashes or verifications running at once: the box has few cores, and each hash holds 19 MiB. */
export const PASSWORD_WORK_CONCURRENCY = 2
/** Calls waiting for a turn; beyond them the answer is 429 at once instead of a longer wait. */
export const PASSWORD_WORK_QUEUE = 32

/** The cost of new hashes: OWASP's 19 MiB × 2 passes, or its 7 MiB × 5 on a small memory budget (set by src/app.ts). */
let cost: PasswordCost = PASSWORD_COST_DEFAULT
const options = () => ({ algorithm: 'argon2id' as const, ...cost })

/** Sets the argon2id cost of new hashes (src/config/memory-budget.ts); stored hashes carry their own and verify as they are. */
export function setPasswordCost(next: PasswordCost) {
  if (next.memoryCost !== cost.memoryCost || next.timeCost !== cost.timeCost) decoy = null
  cost = next
}

export class HashInsideTransaction extends Error {
  constructor() {
    super('password hashing inside a write transaction holds every writer: hash before withTransaction')
    this.name = 'HashInsideTransaction'
  }
}

/** A counting semaphore with a bounded FIFO queue; it decides admission synchronously, at the call. */
export class PasswordWork {
  private running = 0
  private readonly waiting: (() => void)[] = []
  /** Counters for tests and the metrics page: calls started (hashes + verifications), refused, and the most ever running at once. */
  readonly stats = { started: 0, refused: 0, maxRunning: 0 }

  constructor(
    public concurrency = PASSWORD_WORK_CONCURRENCY,
    readonly queue = PASSWORD_WORK_QUEUE,
  ) {}

  /**
   * Hashes at once within the memory budget's share for them (src/config/memory-budget.ts: each holds
   * 19 MiB while it runs, and the allocator keeps some of it after); set by src/app.ts. Calls already
   * running finish; the next ones wait for the new count.
   */
  resize(concurrency: number) {
    this.concurrency = concurrency
  }

  /** Runs `work` when a slot is free; throws 429 RATE_LIMITED at once when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queue) {
        this.stats.refused += 1
        throw new AppError('RATE_LIMITED', 'the server is busy checking passwords, try again in a moment', {}, { 'retry-after': '1' })
      }
      // The slot is handed over by the call that frees it (`running` is not decremented in between).
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running += 1
    }
    this.stats.started += 1
    this.stats.maxRunning = Math.max(this.stats.maxRunning, this.running)
    try {
      return await work()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running -= 1
    }
  }

  get inFlight() {
    return { running: this.running, waiting: this.waiting.length }
  }
}

/** The gate of this process (the CPU is the process's, whichever app or request asks). */
export const passwordWork = new PasswordWork()

/** Verified against when the email is unknown, so both paths cost the same. Made once, outside the gate. */
let decoy: Promise<string> | null = null

function refuseInsideTransaction() {
  if (insideWriteTransaction()) throw new HashInsideTransaction()
}

export async function hashPassword(password: string): Promise<string> {
  refuseInsideTransaction()
  return passwordWork.run(() => Bun.password.hash(password, options()))
}

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  refuseInsideTransaction()
  if (hash) return passwordWork.run(() => Bun.password.verify(password, hash).catch(() => false))
  decoy ??= Bun.password.hash(crypto.randomUUID(), options())
  const against = await decoy
  await passwordWork.run(() => Bun.password.verify(password, against))
  return false
}
