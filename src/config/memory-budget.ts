/**
 * The memory budget: ONE setting, MEMORY_BUDGET_MB (README.md "Memory"), from which every store the
 * process keeps in memory takes its share. The runtime itself (Bun, the code, the JIT, the JavaScript
 * heap of the requests in flight) holds RUNTIME_RESERVE_MB whatever is stored (measured: the executable
 * after a first start without the regional load, 95–98 MiB; docs/PERFORMANCE.md "Memory budget"); the
 * rest, `stores`, is divided:
 *
 *   SQLite page cache        stores × 2/13 for the read connection (every read outside a transaction:
 *                            the lists, counts, searches and dashboards the cache is for); stores / 26
 *                            for the writer, which reads only the keys and index paths its transactions
 *                            touch and mostly appends; the checkpoint worker's connection stores / 416
 *                            (at least 256 KiB, at most 2 MiB: a checkpoint copies WAL frames, it reads
 *                            few pages through its cache)
 *   compiled statements      each bun:sqlite connection keeps the statements Drizzle runs without
 *                            preparing them ahead compiled, at most stores × 128 / 416 (at least 16):
 *                            up to ~90 KiB each for an UPDATE whose table has triggers (../db/client.ts)
 *   replay log (sockets)     stores × 4/13 in all; per workspace a quarter of that for the bulk stream
 *                            (the live map) and a sixteenth for the others (../platform/realtime/replay-log.ts)
 *   entry caches             each cache that grows with load (verified tokens, members, live sessions,
 *                            compiled role grants, the newest ping of each user, each rate limiter's
 *                            windows) at most stores × 10,000 / 416 entries (a few hundred bytes to
 *                            ~1 KiB each)
 *   password hashing         stores / 8 for the argon2id hashes running at once (19 MiB each,
 *                            src/platform/passwords.ts): one, or two (the gate's number, for the
 *                            box's few cores) once the share holds two — from a budget of 400 on.
 *                            Below a share of 19 MiB new hashes take OWASP's equivalent of less
 *                            memory, 7 MiB and 5 passes instead of 19 MiB and 2 (the memory an
 *                            argon2 hash touched stays with the allocator's thread after it ends, so
 *                            each 19 MiB hash grew a small box's high-water mark by as much); a hash
 *                            carries its own cost, so every stored hash verifies whatever the budget
 *   headroom                 the rest: garbage between collections, a PDF being drawn (below the
 *                            default a PDF export collects at every page: pdfPagesPerCollection)
 *
 * The default, 512 (stores: 416 MiB), gives the sizes the service had before the budget existed (64 MiB
 * of page cache for the reads, a 128 MiB replay log, 10,000 entries per cache, two hashes), which the
 * benchmarks in docs/PERFORMANCE.md were measured with, except the writer's page cache: 16 MiB instead
 * of 64, so that both caches filled stay under 200 MiB of resident memory (docs/PERFORMANCE.md "Memory
 * budget"), and 128 compiled statements per connection. 128 is the setting of a 256 MB machine (the
 * rest is the kernel's, including its cache of the database file): 4.9 MiB of page cache for reads,
 * 1.2 for the writer, a 9.8 MiB replay log, 769 entries per cache, 16 compiled statements, one hash at
 * a time. SQLITE_CACHE_MB, when set, still decides the page cache of each of the two connections alone
 * (it predates the budget); a libSQL file, one connection for reads and writes, takes the reader's share.
 *
 * Pure: tests/memory-budget.test.ts checks the division.
 */

/** What the process holds before anything is stored (code, JIT, the runtime's allocator, request heap). */
export const RUNTIME_RESERVE_MB = 96
/** The smallest budget accepted: the reserve plus 16 MiB for the stores. */
export const MIN_MEMORY_BUDGET_MB = 112
export const MAX_MEMORY_BUDGET_MB = 65_536
export const DEFAULT_MEMORY_BUDGET_MB = 512

const MiB = 1024 * 1024
/** What one argon2id hash holds while it runs (src/platform/passwords.ts: OWASP's 19 MiB). */
const PASSWORD_HASH_MB = 19
/** src/platform/passwords.ts PASSWORD_WORK_CONCURRENCY: more hashes at once would wait for the CPU anyway. */
const PASSWORD_HASHES_AT_MOST = 2
/**
 * Below the default budget: a full collection at every new page of a PDF (ms each; see MemoryShares). Every
 * second page until 2026-11-26: the 128 MiB box's PDF peak had crept to 124–129 MiB (docs/PERFORMANCE.md "Memory budget").
 */
const PDF_PAGES_PER_COLLECTION = 1

export interface MemoryShares {
  budgetMb: number
  /** SQLite page cache, in KiB (what `PRAGMA cache_size = -N` takes). */
  sqlite: { readerCacheKib: number; writerCacheKib: number; checkpointCacheKib: number; statements: number }
  /** The replay log's bounds (./../platform/realtime/replay-log.ts ReplayBounds, without the window and flood rule). */
  replay: { maxTotalBytes: number; bulk: { maxEvents: number; maxBytes: number }; other: { maxEvents: number; maxBytes: number } }
  /** Entries each in-memory cache that grows with load may hold. */
  cacheEntries: number
  /** Password hashes that may run at once. */
  passwordHashes: number
  /** The argon2id cost of new hashes: OWASP's 19 MiB × 2 passes, or its 7 MiB × 5 on a small budget. */
  passwordCost: PasswordCost
  /**
   * A PDF export asks for a full garbage collection every this many new pages below the default budget
   * (drawing a page leaves ~0.5 MiB of garbage the engine lets pile up: ../modules/exports/exports.pdf.ts);
   * null at the default and above.
   */
  pdfPagesPerCollection: number | null
}

export interface PasswordCost {
  /** KiB of memory. */
  memoryCost: number
  timeCost: number
}
/** OWASP's argon2id baseline, and its equivalent with less memory (the Password Storage Cheat Sheet's list). */
export const PASSWORD_COST_DEFAULT: PasswordCost = { memoryCost: 19_456, timeCost: 2 }
export const PASSWORD_COST_SMALL: PasswordCost = { memoryCost: 7_168, timeCost: 5 }

/** Divides `budgetMb` (MEMORY_BUDGET_MB) into the shares above; `sqliteCacheMb` (SQLITE_CACHE_MB) overrides the page cache. */
export function memoryShares(budgetMb: number, options: { sqliteCacheMb?: number } = {}): MemoryShares {
  if (!Number.isInteger(budgetMb) || budgetMb < MIN_MEMORY_BUDGET_MB || budgetMb > MAX_MEMORY_BUDGET_MB) {
    throw new RangeError(`memory budget must be a whole number of MiB from ${MIN_MEMORY_BUDGET_MB} to ${MAX_MEMORY_BUDGET_MB}`)
  }
  const storesKib = (budgetMb - RUNTIME_RESERVE_MB) * 1024
  const readerCacheKib = options.sqliteCacheMb !== undefined ? options.sqliteCacheMb * 1024 : Math.floor((storesKib * 2) / 13)
  const writerCacheKib = options.sqliteCacheMb !== undefined ? options.sqliteCacheMb * 1024 : Math.floor(storesKib / 26)
  const checkpointCacheKib = Math.min(2048, Math.max(256, Math.floor(storesKib / 416)))
  const statements = Math.max(16, Math.floor(((budgetMb - RUNTIME_RESERVE_MB) * 128) / 416))
  const totalBytes = Math.floor((storesKib * 1024 * 4) / 13)
  const bulkBytes = Math.floor(totalBytes / 4)
  const otherBytes = Math.floor(totalBytes / 16)
  return {
    budgetMb,
    sqlite: { readerCacheKib, writerCacheKib, checkpointCacheKib, statements },
    replay: {
      maxTotalBytes: totalBytes,
      // The event counts keep the proportions of the bytes: 100,000 per 32 MiB, 20,000 per 8 MiB.
      bulk: { maxEvents: Math.floor((bulkBytes * 100_000) / (32 * MiB)), maxBytes: bulkBytes },
      other: { maxEvents: Math.floor((otherBytes * 20_000) / (8 * MiB)), maxBytes: otherBytes },
    },
    cacheEntries: Math.floor(((budgetMb - RUNTIME_RESERVE_MB) * 10_000) / 416),
    passwordHashes: Math.min(PASSWORD_HASHES_AT_MOST, Math.max(1, Math.floor((budgetMb - RUNTIME_RESERVE_MB) / 8 / PASSWORD_HASH_MB))),
    passwordCost: (budgetMb - RUNTIME_RESERVE_MB) / 8 >= PASSWORD_HASH_MB ? PASSWORD_COST_DEFAULT : PASSWORD_COST_SMALL,
    pdfPagesPerCollection: budgetMb < DEFAULT_MEMORY_BUDGET_MB ? PDF_PAGES_PER_COLLECTION : null,
  }
}

/**
 * The RAM JavaScriptCore is told the machine has (BUN_JSC_forceRAMSize, ./jsc-heap.ts): 5/8 of the
 * budget, at the default and below; null (the engine's own reading of the machine) above it. The
 * engine lets the heap grow to a quarter of that RAM before its first collections and then doubles it
 * while it is under a quarter: told the whole budget (128 MiB) it collected at 32 MiB, on top of a
 * runtime that already holds ~95 MiB of a 128 budget; told 80 MiB it collects at 20. Measured
 * (docs/PERFORMANCE.md "Memory budget", the ingest phase, executable): at 128, told 128 → peak 129–135
 * MiB, 80 → 118–120 in the same time (64 → 117–121, slower in two runs of three); at the default 512,
 * the engine's own reading of a 24 GiB machine → 186–195 MiB, told 320 → 177–182 in the same time, and
 * the read benchmarks' CPU per answer unchanged (192 was 15–20% slower).
 */
export function jscRamSizeBytes(budgetMb: number): number | null {
  return budgetMb <= DEFAULT_MEMORY_BUDGET_MB ? Math.floor((budgetMb * MiB * 5) / 8) : null
}
