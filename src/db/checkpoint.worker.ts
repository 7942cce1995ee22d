/// <reference lib="webworker" />
// Runs PASSIVE WAL checkpoints for the embedded database; see ./checkpoint.ts for why.
import { Database } from 'bun:sqlite'

declare const self: Worker

let connection: Database | null = null
let timer: ReturnType<typeof setInterval> | null = null

type Row = { busy: number; log: number; checkpointed: number }

/** Passes in a row while a steady writer keeps adding frames, and what counts as caught up. */
const MAX_PASSES = 5
const CAUGHT_UP_FRAMES = 100

function checkpoint(request?: number) {
  if (!connection) return
  try {
    let row = connection.query('PRAGMA wal_checkpoint(PASSIVE)').get() as Row
    // Each further pass copies only what was written during the previous one, so a few passes
    // leave the writer's own catch-up (./checkpoint.ts) a handful of frames instead of hundreds.
    for (let pass = 1; pass < MAX_PASSES; pass++) {
      const copied = row.checkpointed
      row = connection.query('PRAGMA wal_checkpoint(PASSIVE)').get() as Row
      if (row.log - copied <= CAUGHT_UP_FRAMES) break
    }
    self.postMessage({ type: 'result', result: { log: row.log, checkpointed: row.checkpointed, at: Date.now() }, request })
  } catch (error) {
    // A busy database is retried on the next tick; nothing else is expected here.
    self.postMessage({ type: 'result', result: { log: -1, checkpointed: -1, at: Date.now(), error: String(error) }, request })
  }
}

self.onmessage = (event: MessageEvent) => {
  const message = event.data as { type: 'start'; path: string; intervalMs: number } | { type: 'run'; request: number } | { type: 'stop' }
  if (message.type === 'start') {
    connection = new Database(message.path, { readwrite: true, create: false })
    connection.run('PRAGMA busy_timeout = 5000')
    timer = setInterval(() => checkpoint(), message.intervalMs)
  } else if (message.type === 'run') {
    checkpoint(message.request)
  } else {
    if (timer) clearInterval(timer)
    connection?.close()
    connection = null
    self.postMessage({ type: 'stopped' })
  }
}
