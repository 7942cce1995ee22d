/**
 * Graceful shutdown on SIGTERM/SIGINT, in this order:
 *   1. scheduled jobs stop (a running one at its next batch boundary: what it did stays done, the
 *      rest is for its next run) and the server stops accepting connections;
 *   2. every WebSocket is closed with 1001 (going away) — an open socket would otherwise keep the
 *      server waiting until its idle timeout;
 *   3. requests in flight (and the running export) may finish until DRAIN_MS has passed; whatever
 *      is still open then is cut;
 *   4. the push worker stops: sends in flight are aborted and their rows stay pending for the next start;
 *   5. the database closes: the checkpoint worker stops, a final TRUNCATE checkpoint copies the WAL
 *      into the database file, the connections close.
 * The process exits 0 when all of that is done, well within SHUTDOWN_DEADLINE_MS; if something still
 * hangs at the deadline it exits 1 anyway (the WAL is replayed on the next start).
 */
import type { App } from './app'
import type { Deps } from './platform/context'

/** The longest a stop may take, signal to exit. */
export const SHUTDOWN_DEADLINE_MS = 5_000
/** How long requests in flight may still run; the rest of the deadline is for the checkpoint. */
export const DRAIN_MS = 4_000
export const GOING_AWAY = 1001

export interface Running {
  app: App
  deps: Deps
  jobs: { stop(): Promise<void> }
}

/** Resolves true when `work` settles before `deadline` (a performance.now() time), false otherwise. */
async function settlesBy(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()))
  })
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

export async function shutdown({ app, deps, jobs }: Running, drainMs = DRAIN_MS): Promise<void> {
  const drainBy = performance.now() + drainMs
  const jobsStopped = jobs.stop()
  const server = app.server
  // Stops listening at once; resolves when the open connections are done.
  const drained = app.stop(false)
  deps.hub.closeAll(GOING_AWAY, 'going away')
  if (!(await settlesBy(drained, drainBy))) {
    deps.logger.warn('requests still in flight at the drain deadline were cut', { drain_ms: drainMs })
    await server?.stop(true)
  }
  await settlesBy(deps.exports.idle(), drainBy)
  if (!(await settlesBy(jobsStopped, drainBy))) deps.logger.warn('a job still running at the drain deadline was cut', { drain_ms: drainMs })
  await settlesBy(deps.push.stop(), drainBy)
  await deps.db.close()
}

/** Runs `shutdown` once per process on SIGTERM/SIGINT, then exits. */
export function exitOnSignals(running: Running) {
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    running.deps.logger.info('server stopping', { signal })
    setTimeout(() => {
      running.deps.logger.error('shutdown deadline passed; exiting without a clean stop', { deadline_ms: SHUTDOWN_DEADLINE_MS })
      process.exit(1)
    }, SHUTDOWN_DEADLINE_MS).unref()
    try {
      await shutdown(running)
    } catch (error) {
      running.deps.logger.error('shutdown failed', { error: String(error) })
      process.exit(1)
    }
    running.deps.logger.info('server stopped', { signal })
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}
