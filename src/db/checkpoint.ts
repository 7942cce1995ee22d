/**
 * WAL checkpoints off the request path.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT of whichever transaction crosses the
 * threshold, adding milliseconds to that one request. The writer connection turns it off
 * (`wal_autocheckpoint = 0`) and this worker thread, with its own connection, runs a PASSIVE
 * checkpoint on a timer instead. PASSIVE never waits for or blocks the writer; once every frame is
 * copied back, the writer's next transaction restarts the WAL from the top and `journal_size_limit`
 * cuts the file back.
 *
 * A steady writer never leaves that moment: frames keep arriving while a pass copies, no pass ends
 * with everything copied, and the WAL grows without bound (1 GiB in 11 s of location ingest, every
 * read searching a longer WAL index). So the worker repeats its pass (up to five) until fewer than
 * 100 new frames remain, and when the WAL is past `catchUpAtFrames` the owner of the writer is told
 * (`onBehind`) and runs one more PASSIVE pass on the writer connection between two transactions: it
 * copies only the frames written since (about a millisecond), and the next transaction starts the
 * WAL over. PASSIVE never waits: if the
 * worker is copying at that instant, the catch-up is skipped until the next tick.
 */
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

export const CHECKPOINT_INTERVAL_MS = 250
/** 4 MiB of 4 KiB pages, SQLite's own automatic checkpoint threshold. */
export const CATCH_UP_AT_FRAMES = 1000

export interface CheckpointerOptions {
  intervalMs?: number
  catchUpAtFrames?: number
  /** Called when a pass left the WAL past `catchUpAtFrames`. */
  onBehind?: () => void
}

export function startCheckpointer(path: string, options: CheckpointerOptions = {}): Checkpointer {
  const { intervalMs = CHECKPOINT_INTERVAL_MS, catchUpAtFrames = CATCH_UP_AT_FRAMES, onBehind } = options
  const worker = new Worker(new URL('./checkpoint.worker.ts', import.meta.url))
  worker.unref()
  let last: CheckpointResult | null = null
  const waiting = new Map<number, (result: CheckpointResult | null) => void>()
  let nextRequest = 1
  let onStopped: (() => void) | null = null

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
  worker.postMessage({ type: 'start', path, intervalMs })

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
    stop: () =>
      new Promise<void>((resolve) => {
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
      }),
  }
}
