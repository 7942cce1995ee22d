/**
 * The memory budget (src/config/memory-budget.ts, README.md "Memory"): MEMORY_BUDGET_MB divides into
 * the documented shares, start-up refuses a bad value, and every store of a running app holds to its
 * share — counted in entries and bytes, never timed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, environmentWithJscRamSize, loadConfig } from '../src/config/env'
import {
  DEFAULT_MEMORY_BUDGET_MB,
  jscRamSizeBytes,
  MAX_MEMORY_BUDGET_MB,
  MIN_MEMORY_BUDGET_MB,
  memoryShares,
  RUNTIME_RESERVE_MB,
} from '../src/config/memory-budget'
import { authCacheSizes, permissionsOf } from '../src/platform/actor'
import { passwordWork } from '../src/platform/passwords'
import { type FailureLimiter, RequestLimiter } from '../src/platform/rate-limit'
import { PingTrail } from '../src/modules/locations/ping-trail'
import { REPLAY_BOUNDS, ReplayLog } from '../src/platform/realtime/replay-log'
import { ManualClock } from '../src/lib/clock'
import { data } from './factories'
import { createTestApp, unique, type Session, type TestApp, type Workspace } from './harness'
import { freePort, placement } from '../scripts/lib/server-process'

const MiB = 1024 * 1024

describe('MEMORY_BUDGET_MB divides into the documented shares', () => {
  test('the default (512) gives the sizes the service had before the budget (64 MiB of page cache for reads, a 128 MiB replay log, 10,000 entries per cache), the writer 16 MiB', () => {
    const shares = memoryShares(DEFAULT_MEMORY_BUDGET_MB)
    expect(shares.sqlite.readerCacheKib).toBe(64 * 1024)
    expect(shares.sqlite.writerCacheKib).toBe(16 * 1024)
    expect(shares.sqlite.checkpointCacheKib).toBe(1024)
    expect(shares.sqlite.statements).toBe(128)
    expect(shares.replay).toEqual({
      maxTotalBytes: 128 * MiB,
      bulk: { maxEvents: 100_000, maxBytes: 32 * MiB },
      other: { maxEvents: 20_000, maxBytes: 8 * MiB },
    })
    expect(shares.cacheEntries).toBe(10_000)
    expect(shares.passwordHashes).toBe(2)
    expect(shares.passwordCost).toEqual({ memoryCost: 19_456, timeCost: 2 })
    expect(shares.pdfPagesPerCollection).toBeNull()
  })

  test('128 (a 256 MB machine): of what is left after the runtime, 2/13 for the reader’s page cache, 1/26 for the writer’s, 4/13 for the replay log', () => {
    const shares = memoryShares(128)
    const storesKib = (128 - RUNTIME_RESERVE_MB) * 1024
    expect(shares.sqlite.readerCacheKib).toBe(Math.floor((storesKib * 2) / 13))
    expect(shares.sqlite.writerCacheKib).toBe(Math.floor(storesKib / 26))
    expect(shares.sqlite.checkpointCacheKib).toBe(256)
    // Compiled statements: 128 per 416 MiB of stores, never fewer than 16 (32 MiB of stores here would give 9).
    expect(shares.sqlite.statements).toBe(16)
    expect(memoryShares(96 + 416 * 2).sqlite.statements).toBe(256)
    expect(shares.replay.maxTotalBytes).toBe(Math.floor((storesKib * 1024 * 4) / 13))
    expect(shares.replay.bulk.maxBytes).toBe(Math.floor(shares.replay.maxTotalBytes / 4))
    expect(shares.replay.other.maxBytes).toBe(Math.floor(shares.replay.maxTotalBytes / 16))
    expect(shares.cacheEntries).toBe(769)
    // One argon2id hash at a time: two would not fit the eighth of the stores they may take; and it costs
    // OWASP's 7 MiB × 5 passes instead of 19 MiB × 2.
    expect(shares.passwordHashes).toBe(1)
    expect(shares.passwordCost).toEqual({ memoryCost: 7_168, timeCost: 5 })
    // The baseline cost from the budget whose eighth of the stores holds one 19 MiB hash.
    expect(memoryShares(96 + 8 * 19).passwordCost).toEqual({ memoryCost: 19_456, timeCost: 2 })
    expect(memoryShares(96 + 8 * 19 - 1).passwordCost).toEqual({ memoryCost: 7_168, timeCost: 5 })
    // A PDF export collects its garbage at every page below the default, never at it or above.
    expect(shares.pdfPagesPerCollection).toBe(1)
    expect(memoryShares(DEFAULT_MEMORY_BUDGET_MB - 1).pdfPagesPerCollection).toBe(1)
    expect(memoryShares(4096).pdfPagesPerCollection).toBeNull()
  })

  test('at every budget the stores together stay within what the runtime leaves, and a larger budget never gives a store less', () => {
    let previous = memoryShares(MIN_MEMORY_BUDGET_MB)
    for (let budget = MIN_MEMORY_BUDGET_MB; budget <= 8192; budget += 1) {
      const shares = memoryShares(budget)
      const pageCaches = (shares.sqlite.readerCacheKib + shares.sqlite.writerCacheKib + shares.sqlite.checkpointCacheKib) * 1024
      // Page caches and replay log: at most half the stores (plus the checkpoint worker's few hundred KiB).
      expect(pageCaches + shares.replay.maxTotalBytes).toBeLessThanOrEqual(((budget - RUNTIME_RESERVE_MB) * MiB) / 2 + 2 * MiB)
      expect(shares.replay.bulk.maxBytes + shares.replay.other.maxBytes).toBeLessThanOrEqual(shares.replay.maxTotalBytes)
      for (const value of [
        shares.sqlite.readerCacheKib,
        shares.sqlite.writerCacheKib,
        shares.replay.bulk.maxEvents,
        shares.replay.other.maxEvents,
        shares.cacheEntries,
        shares.sqlite.statements,
      ]) {
        expect(value).toBeGreaterThan(0)
      }
      expect(shares.sqlite.readerCacheKib).toBeGreaterThanOrEqual(previous.sqlite.readerCacheKib)
      expect(shares.sqlite.writerCacheKib).toBeGreaterThanOrEqual(previous.sqlite.writerCacheKib)
      expect(shares.replay.maxTotalBytes).toBeGreaterThanOrEqual(previous.replay.maxTotalBytes)
      expect(shares.cacheEntries).toBeGreaterThanOrEqual(previous.cacheEntries)
      expect(shares.sqlite.statements).toBeGreaterThanOrEqual(previous.sqlite.statements)
      previous = shares
    }
  })

  test('SQLITE_CACHE_MB, when set, decides the page cache of both connections alone; nothing else moves', () => {
    const shares = memoryShares(128, { sqliteCacheMb: 8 })
    expect(shares.sqlite.readerCacheKib).toBe(8 * 1024)
    expect(shares.sqlite.writerCacheKib).toBe(8 * 1024)
    expect({ ...shares, sqlite: null }).toEqual({ ...memoryShares(128), sqlite: null })
  })

  test('the JavaScript heap is sized to 5/8 of the budget at the default and below (above it the engine keeps its own reading)', () => {
    expect(jscRamSizeBytes(128)).toBe(80 * MiB)
    expect(jscRamSizeBytes(DEFAULT_MEMORY_BUDGET_MB - 1)).toBe(Math.floor(((DEFAULT_MEMORY_BUDGET_MB - 1) * MiB * 5) / 8))
    expect(jscRamSizeBytes(DEFAULT_MEMORY_BUDGET_MB)).toBe(320 * MiB)
    expect(jscRamSizeBytes(DEFAULT_MEMORY_BUDGET_MB + 1)).toBeNull()
    expect(jscRamSizeBytes(4096)).toBeNull()
  })

  test('the restart’s environment adds BUN_JSC_forceRAMSize to the rest; one already set (the restart’s own, or the operator’s) means no restart', () => {
    expect(environmentWithJscRamSize(128 * MiB, { PORT: '3000' })).toEqual({ PORT: '3000', BUN_JSC_forceRAMSize: String(128 * MiB) })
    expect(environmentWithJscRamSize(128 * MiB, { BUN_JSC_forceRAMSize: '1' })).toBeNull()
  })

  test('a budget outside its range is refused by the division itself', () => {
    expect(() => memoryShares(MIN_MEMORY_BUDGET_MB - 1)).toThrow(RangeError)
    expect(() => memoryShares(MAX_MEMORY_BUDGET_MB + 1)).toThrow(RangeError)
    expect(() => memoryShares(128.5)).toThrow(RangeError)
  })
})

describe('MEMORY_BUDGET_MB is validated at start like every setting', () => {
  test('default 512; a whole number from 112 to 65536 is read; anything else is a configuration error naming the setting', () => {
    expect(loadConfig({}).MEMORY_BUDGET_MB).toBe(512)
    expect(loadConfig({ MEMORY_BUDGET_MB: '128' }).memory).toEqual(memoryShares(128))
    expect(loadConfig({ MEMORY_BUDGET_MB: '' }).MEMORY_BUDGET_MB).toBe(512)
    for (const bad of ['64', '111', 'lots', '128.5', '-1', '100000', '128MB']) {
      let error: unknown
      try {
        loadConfig({ MEMORY_BUDGET_MB: bad })
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).issues.join('\n')).toMatch(/^MEMORY_BUDGET_MB: /m)
    }
    expect(() => loadConfig({ MEMORY_BUDGET_MB: '64' })).toThrow(/at least 112/)
  })

  test('the server refuses to start with a bad MEMORY_BUDGET_MB: exit 1, the setting named on stderr', () => {
    const run = Bun.spawnSync([process.execPath, join(import.meta.dir, '..', 'src', 'server.ts')], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BUDGET_MB: '32', PORT: '0', DATABASE_URL: 'file::memory:' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(run.exitCode).toBe(1)
    expect(run.stderr.toString()).toContain('MEMORY_BUDGET_MB: at least 112')
  })
})

describe('a small budget sizes the JavaScript heap to it (src/config/jsc-heap.ts)', () => {
  test('the server with MEMORY_BUDGET_MB=128 replaces itself once at start: the same process, BUN_JSC_forceRAMSize set to its share of the budget, healthy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-jsc-'))
    const port = await freePort()
    // A runtime flag (here --smol) survives the restart, as `bun --cpu-prof src/server.ts` must.
    const server = Bun.spawn([process.execPath, '--smol', join(import.meta.dir, '..', 'src', 'server.ts')], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        MEMORY_BUDGET_MB: '128',
        ...placement(join(dir, 'app.db'), port),
        LOG_LEVEL: 'silent',
        REGIONAL_SERVICE_URL: 'http://127.0.0.1:9',
      },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    try {
      let healthy = false
      while (!healthy && server.exitCode === null) {
        healthy = await fetch(`http://127.0.0.1:${port}/api/health`).then(
          (reply) => reply.ok,
          () => false,
        )
        if (!healthy) await Bun.sleep(50)
      }
      expect(healthy).toBe(true)
      // The process that answers is the one spawned (execve keeps the id), now with the variable.
      const environment = readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0')
      expect(environment).toContain(`BUN_JSC_forceRAMSize=${jscRamSizeBytes(128)}`)
      expect(environment).toContain('MEMORY_BUDGET_MB=128')
      expect(readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')).toContain('--smol')
    } finally {
      server.kill('SIGTERM')
      await server.exited
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a running app holds every store to its share (MEMORY_BUDGET_MB=112)', () => {
  let t: TestApp
  let port: number
  let w: Workspace
  let field: Session
  const shares = memoryShares(112)

  beforeAll(async () => {
    t = await createTestApp({ env: { MEMORY_BUDGET_MB: '112' } })
    t.app.listen({ port: 0, hostname: '127.0.0.1' })
    port = t.app.server!.port!
    w = await t.workspace()
    field = await t.member(w, 'user')
  })

  afterAll(async () => {
    await t?.app.stop(true)
    await t?.close()
  })

  test('the SQLite connections and the replay log take the budget’s shares', async () => {
    // Writer, then reader (bun:sqlite); a libSQL file has one connection, which takes the reader's share.
    const sizes = (await t.db.pragmaEverywhere('PRAGMA cache_size')).map((rows) => rows[0]!.cache_size)
    expect(sizes).toEqual(t.db.driver === 'bun-sqlite' ? [-shares.sqlite.writerCacheKib, -shares.sqlite.readerCacheKib] : [-shares.sqlite.readerCacheKib])
    expect(t.deps.hub.replay.bounds).toMatchObject(shares.replay)
    expect(t.deps.hub.replay.bounds.maxTotalBytes).toBeLessThan(10 * MiB)
    expect(passwordWork.concurrency).toBe(1)
  })

  test('password hashes run one at a time within the small budget: two logins at once never hash together', async () => {
    const before = passwordWork.stats.maxRunning
    passwordWork.stats.maxRunning = 0
    try {
      const logins = await Promise.all([t.login(field.user.email), t.login(w.owner.user.email)])
      expect(logins.every((session) => typeof session.token === 'string')).toBe(true)
      expect(passwordWork.stats.maxRunning).toBe(1)
    } finally {
      passwordWork.stats.maxRunning = Math.max(before, passwordWork.stats.maxRunning)
    }
  })

  test('new password hashes take the small budget’s cost (argon2id, 7 MiB × 5 passes); a hash of the default cost still verifies', async () => {
    const member = await t.member(w, 'user')
    const [row] = await t.db.pragma(`SELECT password_hash FROM users WHERE id = ${member.user.id}`)
    expect(String(row!.password_hash)).toMatch(/^\$argon2id\$v=19\$m=7168,t=5,p=1\$/)
    // A user whose hash was made at the default cost (before the budget was lowered) signs in as before.
    const stored = await Bun.password.hash('password123', { algorithm: 'argon2id', memoryCost: 19_456, timeCost: 2 })
    await t.db.pragma(`UPDATE users SET password_hash = '${stored}' WHERE id = ${member.user.id}`)
    const session = await t.login(member.user.email)
    expect(typeof session.token).toBe('string')
  })

  test('the replay log never holds more than its bound under a flood of pings; a socket that missed evicted events gets {"type":"resync"}', async () => {
    const messages: { type: string; id?: number }[] = []
    const live = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(w.owner.token)}`)
    live.onmessage = (event) => messages.push(JSON.parse(String(event.data)))
    await new Promise((resolve) => (live.onopen = resolve))
    data(
      await t.post('/app/v1/locations/batch', { pings: [{ lat: -6.2, lng: 106.8, is_mock: false }] }, { token: field.token, idempotencyKey: unique('batch') }),
      201,
      'a batch',
    )
    const firstId = t.deps.hub.replay.lastId(w.id, t.clock.now().getTime())

    // Past the bulk stream's bytes: 6,000 events of ~480 bytes over its ~1.2 MiB.
    let highest = 0
    for (let n = 0; n < 120; n++) {
      const pings = Array.from({ length: 50 }, (_, i) => ({ lat: -6.2 + (n * 50 + i) * 1e-5, lng: 106.8, is_mock: false }))
      data(await t.post('/app/v1/locations/batch', { pings }, { token: field.token, idempotencyKey: unique('batch') }), 201, 'a batch')
      highest = Math.max(highest, t.deps.hub.replay.bytes)
      expect(t.deps.hub.replay.bytes).toBeLessThanOrEqual(shares.replay.bulk.maxBytes)
    }
    expect(highest).toBeGreaterThan(0)
    live.close()

    const back = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(w.owner.token)}&since=${firstId}`)
    const first = await new Promise<unknown>((resolve) => (back.onmessage = (event) => resolve(JSON.parse(String(event.data)))))
    back.close()
    expect(first).toEqual({ type: 'resync' })
  })

  test('the caches never hold more entries than their share, however many keys a load loop brings', async () => {
    const max = shares.cacheEntries
    expect(max).toBe(384)
    // Verified tokens: twice the share of distinct tokens, each verified.
    for (let n = 0; n < 2 * max; n++) {
      const token = await t.deps.tokens.signAccessToken({ userId: field.user.id, workspaceId: w.id, role: 'user' })
      expect((await t.deps.tokens.verifyAccessToken(token)).status).toBe('valid')
    }
    expect(t.deps.tokens.cachedTokens).toBe(max)
    // Compiled grants of custom roles: one per distinct grant list.
    for (let n = 0; n < 2 * max; n++)
      permissionsOf({ role: `custom-${n}`, isBuiltin: false, grants: JSON.stringify([{ key: `k${n}`, platform: 'web', access: 'view' }]) })
    expect(authCacheSizes(t.db.read).grants).toBeLessThanOrEqual(max)
    // Every rate limiter the app built (the harness swaps the forgot-password ones for limiters that
    // are off): a key per request, twice the share.
    expect(t.deps.limits.login.maxKeys).toBe(max)
    expect(t.deps.limits.passwordFailuresByIp.maxKeys).toBe(max)
    expect(t.deps.limits.register.maxKeys).toBe(max)
    for (const limiter of Object.values(t.deps.limits)) {
      if (limiter.limit <= 0) continue
      for (let n = 0; n < 2 * max; n++) {
        if (limiter instanceof RequestLimiter) limiter.tryConsume(`10.0.${n >> 8}.${n & 255}`)
        else (await (limiter as FailureLimiter).reserve(`key-${n}`)).attempt?.failed()
      }
      expect(limiter.size).toBeLessThanOrEqual(max)
    }
    // The newest ping of each user.
    expect((t.deps as unknown as { pingTrail: PingTrail }).pingTrail.maxEntries).toBe(max)
  })
})

describe('the bounded stores keep their rules at the bound', () => {
  test('a flood is told before it fills the replay log: at 20,000 location events a second the log never holds half its bound', () => {
    const log = new ReplayLog(REPLAY_BOUNDS, ['location.created'])
    const t0 = Date.parse('2026-11-26T00:00:00Z')
    const data = { user_id: 7, lat: -6.2, lng: 106.8, accuracy: 5, recorded_at: '2026-11-26T00:00:00.000Z', blob: 'x'.repeat(300) }
    let highest = 0
    // Two seconds at that rate: ~19 MiB, inside the 32 MiB bound, which would otherwise all be kept.
    for (let n = 0; n < 40_000; n++) {
      log.record(1, ['w:1:livemap'], 'location.created', data, t0 + Math.floor(n / 20))
      highest = Math.max(highest, log.bytes)
    }
    expect(highest).toBeLessThan(REPLAY_BOUNDS.bulk.maxBytes / 2)
    expect(log.events).toBe(0)
    // A reconnect from before the flood resyncs.
    expect(log.covers(1, t0 * 1000 + 1, ['bulk'], t0 + 2000)).toBe(false)
  })

  test('a rate limiter at its bound forgets the window opened longest ago, and still limits the newest keys', () => {
    const clock = new ManualClock('2026-11-26T00:00:00Z')
    const limiter = new RequestLimiter(clock, 1, 60_000, 3)
    for (const key of ['a', 'b', 'c', 'd']) expect(limiter.tryConsume(key)).toBe(0)
    expect(limiter.size).toBe(3)
    expect(limiter.tryConsume('d')).toBeGreaterThan(0)
    expect(limiter.tryConsume('b')).toBeGreaterThan(0)
    // `a` was forgotten: counted afresh.
    expect(limiter.tryConsume('a')).toBe(0)
    expect(limiter.size).toBe(3)
  })

  test('the ping trail at its bound forgets the user written longest ago (read again from the database at their next batch)', () => {
    const trail = new PingTrail(2)
    trail.set(1, 1, { lat: 0, lng: 0, at: 1 })
    trail.set(1, 2, { lat: 0, lng: 0, at: 2 })
    trail.set(1, 1, { lat: 1, lng: 1, at: 3 })
    trail.set(1, 3, null)
    expect(trail.size).toBe(2)
    expect(trail.get(1, 2)).toBeUndefined()
    expect(trail.get(1, 1)).toEqual({ lat: 1, lng: 1, at: 3 })
    expect(trail.get(1, 3)).toBeNull()
  })

  test('the member and session caches start empty per database and are counted per database', async () => {
    const t = await createTestApp({ env: { MEMORY_BUDGET_MB: '112' } })
    try {
      expect(authCacheSizes(t.db.read)).toMatchObject({ members: 0, sessions: 0 })
      const w = await t.workspace()
      await t.member(w, 'user')
      expect(authCacheSizes(t.db.read).members).toBeLessThanOrEqual(memoryShares(112).cacheEntries)
    } finally {
      await t.close()
    }
  })
})
