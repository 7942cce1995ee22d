/**
 * Large deletes in short transactions. Maintenance jobs remove rows a batch at a time, each batch
 * its own write transaction, so the one writer (and every request queued behind it) is never held
 * for the whole of a job: an hour of steady ingest leaves tens of thousands of expired idempotency
 * records, a day of retention hundreds of thousands of pings.
 *
 * Between two batches a job waits MAINTENANCE_PAUSE_MS. Every read and write of the embedded database
 * is synchronous, so a batch holds the event loop while it runs; the pause lets requests in and lets
 * the checkpoint worker copy what the batch wrote to the WAL before the next batch adds more. Without
 * it a large delete outran the worker, and the writer's own catch-up checkpoint held the event loop
 * for up to 210 ms (docs/PERFORMANCE.md "Maintenance jobs and the event loop").
 */
import type { Db } from './client'

export type Write = (fn: (tx: Db) => Promise<number>) => Promise<number>

/** The wait between two batches of a maintenance job (see above). */
export const MAINTENANCE_PAUSE_MS = 10

/** A job told to stop (the server shuts down) at its next batch boundary; what it did so far stays done. */
export class JobStopped extends Error {
  constructor() {
    super('job stopped before its end: the server is shutting down')
  }
}

/**
 * What a maintenance job awaits between two of its write transactions; throws JobStopped once
 * `signal` is aborted, so a job ends within one batch of a shutdown.
 */
export async function betweenBatches(signal?: AbortSignal) {
  if (signal?.aborted) throw new JobStopped()
  await Bun.sleep(MAINTENANCE_PAUSE_MS)
  if (signal?.aborted) throw new JobStopped()
}

/**
 * Runs `removeSome(tx, batch)` (which removes at most `batch` rows and answers how many) in a write
 * transaction of its own, again and again until a run removes fewer than `batch`, with a pause between
 * (`betweenBatches`); answers the total.
 */
export async function removeInBatches(
  write: Write,
  batch: number,
  removeSome: (tx: Db, batch: number) => Promise<number>,
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0
  for (;;) {
    const count = await write((tx) => removeSome(tx, batch))
    removed += count
    if (count < batch) return removed
    await betweenBatches(signal)
  }
}
