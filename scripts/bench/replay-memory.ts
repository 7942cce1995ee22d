/**
 * `bun scripts/bench/replay-memory.ts` — what the WebSocket replay log (src/ws/replay-log.ts) costs in
 * memory at the location-ingest benchmark's rate: `location.created` events shaped like the ones the
 * service publishes (50 per batch, ~3,000 batches/s) recorded into one workspace's log until it is
 * full and then for as long again, with the heap measured after a full collection. Prints the events
 * and bytes the log counts, the heap it really takes, and how many seconds of that rate it holds.
 */
import { heapStats } from 'bun:jsc'
import { pingBatch } from '../lib/pings'
import { ENTRY_OVERHEAD_BYTES, REPLAY_BOUNDS, ReplayLog } from '../../src/ws/replay-log'
import { topics } from '../../src/ws/hub'

const BATCHES_PER_SECOND = 3000
const PINGS = 50

function heapBytes(): number {
  Bun.gc(true)
  return heapStats().heapSize
}

/** A saved ping as the ingest path publishes it (src/modules/locations/locations.service.ts). */
function savedPings(seq: number, at: number) {
  const iso = new Date(at).toISOString()
  return pingBatch(seq).map((ping, i) => ({
    id: seq * PINGS + i + 1,
    workspace_id: 1,
    user_id: 2,
    visit_id: null,
    ...ping,
    recorded_at: iso,
    flags: [],
    created_at: iso,
    updated_at: iso,
  }))
}

const log = new ReplayLog(REPLAY_BOUNDS)
const topic = [topics.livemap(1)]
const start = Date.parse('2026-11-23T08:00:00Z')
const before = heapBytes()
let seq = 0
const payloadChars: number[] = []
// Twice what fills the log, at the benchmark's rate (the clock advances 1/3,000 s per batch).
const batches = Math.ceil((REPLAY_BOUNDS.locations.maxEvents / PINGS) * 2)
for (; seq < batches; seq++) {
  const now = start + Math.floor((seq * 1000) / BATCHES_PER_SECOND)
  for (const ping of savedPings(seq, now)) {
    const payload = log.record(1, topic, 'location.created', ping, now)
    if (payloadChars.length < 1000) payloadChars.push(payload.length)
  }
}
const after = heapBytes()
const events = log.events
const heap = after - before
const meanPayload = payloadChars.reduce((sum, n) => sum + n, 0) / payloadChars.length
console.log(
  JSON.stringify(
    {
      bounds: REPLAY_BOUNDS,
      events,
      countedBytes: log.bytes,
      heapBytes: heap,
      heapPerEvent: Math.round(heap / events),
      meanMessageChars: Math.round(meanPayload),
      countedPerEvent: Math.round(meanPayload + ENTRY_OVERHEAD_BYTES),
      secondsHeldAtRate: events / (BATCHES_PER_SECOND * PINGS),
      eventsPerTenMinutesAtRate: BATCHES_PER_SECOND * PINGS * 600,
    },
    null,
    2,
  ),
)
