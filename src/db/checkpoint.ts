/**
 * WAL checkpoints off the request path.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT of whichever transaction crosses the
 * threshold, adding milliseconds to that one request. The writer connection turns it off
 * (`wal_autocheckpoint = 0`) and this worker thread, with its own connection, runs a PASSIVE
 * checkpoint on a timer instead. PASSIVE never waits for or blocks the writer.
 *
 * Small and often: one pass every 50 ms. The worker shares the server's core, and a pass is CPU
 * (every new page read from the WAL and written to the database file): rarer, larger passes hold
 * the core long enough for every request in flight to wait for them (docs/PERFORMANCE.md).
 * A tick with nothing committed since the last pass (`PRAGMA data_version` unchanged) does nothing,
 * so an idle server is not woken twenty times a second.
 *
 * Starting the WAL over: once every frame is copied back, the writer's next transaction restarts
 * the WAL from the top and `journal_size_limit` cuts the file back. A steady writer never leaves
 * that moment (frames keep arriving while a pass copies), and the WAL would grow without bound
 * (quickly under location ingest, every read searching a longer WAL index). So when the WAL
 * holds `catchUpAtFrames` frames (4,096: one WAL-index hash table, 16 MiB) the owner of the writer is
 * told (`onBehind`) and runs one PASSIVE pass on the writer connection between two transactions: it
 * copies only what the worker has not (at most one tick's frames, a millisecond or two), and the next
 * transaction starts the WAL over. If the worker is copying at that instant, the catch-up is
 * skipped until its next report.
 */
import { embeddedAsset, IS_COMPILED } from '../lib/executable'

export interface CheckpointResult {
  /** Frames in the WAL when the checkpoint ran. */
  log: number
  /** Frames copied back into the database file. */
  checkpointed: number
  at: number
}

export interface Checkpointer {
  readonly last: CheckpointResult | null
  /** Runs a checkpoint now and resolves with its result (tests and shutdown). */
  runNow(): Promise<CheckpointResult | null>
  stop(): Promise<void>
}

export const CHECKPOINT_INTERVAL_MS = 50
/** 16 MiB of 4 KiB pages: one hash table of the WAL index, so a read looks up pages in one table. */
export const CATCH_UP_AT_FRAMES = 4096

export interface CheckpointerOptions {
  intervalMs?: number
  catchUpAtFrames?: number
  /** Called when a pass left the WAL past `catchUpAtFrames`. */
  onBehind?: () => void
  /** The worker connection's page cache, in KiB: its share of MEMORY_BUDGET_MB (../config/memory-budget.ts). */
  cacheKib?: number
}

export function startCheckpointer(path: string, options: CheckpointerOptions = {}): Checkpointer {
  const { intervalMs = CHECKPOINT_INTERVAL_MS, catchUpAtFrames = CATCH_UP_AT_FRAMES, onBehind, cacheKib = 2048 } = options
  // In the compiled executable the worker is an entry point of its own (`npm run build` lists it),
  // found by its path under src/, not beside the bundled code that starts it.
  const worker = new Worker(IS_COMPILED ? embeddedAsset('db/checkpoint.worker.ts') : new URL('./checkpoint.worker.ts', import.meta.url))
  // A worker that cannot load would leave the WAL growing without a word: say so.
  worker.addEventListener('error', (event) => console.error(JSON.stringify({ level: 'error', message: 'checkpoint worker failed', error: event.message })))
  worker.unref()
  let last: CheckpointResult | null = null
  const waiting = new Map<number, (result: CheckpointResult | null) => void>()
  let nextRequest = 1
  let onStopped: (() => void) | null = null
  let stopping: Promise<void> | null = null

  worker.onmessage = (event: MessageEvent) => {
    const message = event.data as { type: 'result'; result: CheckpointResult; request?: number } | { type: 'stopped' }
    if (message.type === 'result') {
      last = message.result
      if (message.result.log >= catchUpAtFrames) onBehind?.()
      if (message.request) {
        waiting.get(message.request)?.(message.result)
        waiting.delete(message.request)
      }
    } else onStopped?.()
  }
  worker.postMessage({ type: 'start', path, intervalMs, cacheKib })

  return {
    get last() {
      return last
    },
    runNow: () =>
      new Promise((resolve) => {
        const request = nextRequest++
        waiting.set(request, resolve)
        worker.postMessage({ type: 'run', request })
      }),
    // Idempotent: a second stop (a test's, then close's) waits for the first.
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        const timeout = setTimeout(finish, 1_000)
        function finish() {
          clearTimeout(timeout)
          worker.terminate()
          for (const resolveWaiting of waiting.values()) resolveWaiting(null)
          waiting.clear()
          resolve()
        }
        onStopped = finish
        worker.postMessage({ type: 'stop' })
      })),
  }
}
