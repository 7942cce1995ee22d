/// <reference lib="webworker" />
// Runs PASSIVE WAL checkpoints for the embedded database; see ./checkpoint.ts for why.
import { Database } from 'bun:sqlite'

declare const self: Worker

let connection: Database | null = null
let timer: ReturnType<typeof setInterval> | null = null

type Row = { busy: number; log: number; checkpointed: number }

/** `PRAGMA data_version` when the last pass ran; it changes whenever another connection commits. */
let passedAtVersion: number | null = null

function checkpoint(request?: number) {
  if (!connection) return
  try {
    const { data_version: version } = connection.query('PRAGMA data_version').get() as { data_version: number }
    // Nothing committed since the last pass: nothing new to copy and nobody to wake, so an idle
    // server stays idle. A pass asked for (`runNow`) always runs.
    if (request === undefined && version === passedAtVersion) return
    // One pass: the timer is short, so each pass copies only what the last 50 ms wrote.
    const row = connection.query('PRAGMA wal_checkpoint(PASSIVE)').get() as Row
    passedAtVersion = version
    self.postMessage({ type: 'result', result: { log: row.log, checkpointed: row.checkpointed, at: Date.now() }, request })
  } catch (error) {
    // A busy database is retried on the next tick; nothing else is expected here.
    self.postMessage({ type: 'result', result: { log: -1, checkpointed: -1, at: Date.now(), error: String(error) }, request })
  }
}

self.onmessage = (event: MessageEvent) => {
  const message = event.data as { type: 'start'; path: string; intervalMs: number; cacheKib: number } | { type: 'run'; request: number } | { type: 'stop' }
  if (message.type === 'start') {
    connection = new Database(message.path, { readwrite: true, create: false })
    connection.run('PRAGMA busy_timeout = 5000')
    // Its share of the memory budget (src/config/memory-budget.ts): a checkpoint copies WAL frames to
    // the database file and reads few pages through the cache.
    connection.run(`PRAGMA cache_size = -${message.cacheKib}`)
    // `synchronous` stays at SQLite's default, FULL, whatever DURABILITY says: a checkpoint syncs the
    // WAL before copying it and the database file after, and the writer starts the WAL over only once
    // a checkpoint has copied all of it. So no frame is overwritten before its pages are on disk in the
    // database file. OFF would break that; NORMAL and FULL checkpoint alike.
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
