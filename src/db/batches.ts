/**
 * Large deletes in short transactions. Maintenance jobs remove rows a batch at a time, each batch
 * its own write transaction, so the one writer (and every request queued behind it) is never held
 * for the whole of a job: an hour of steady ingest leaves tens of thousands of expired idempotency
 * records, a day of retention hundreds of thousands of pings.
 */
import type { Db } from './client'

export type Write = (fn: (tx: Db) => Promise<number>) => Promise<number>

/**
 * Runs `removeSome(tx, batch)` (which removes at most `batch` rows and answers how many) in a write
 * transaction of its own, again and again until a run removes fewer than `batch`; answers the total.
 */
export async function removeInBatches(write: Write, batch: number, removeSome: (tx: Db, batch: number) => Promise<number>): Promise<number> {
  let removed = 0
  for (;;) {
    const count = await write((tx) => removeSome(tx, batch))
    removed += count
    if (count < batch) return removed
  }
}
