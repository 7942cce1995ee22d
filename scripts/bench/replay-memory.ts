/**
 * `bun scripts/bench/replay-memory.ts` — what the WebSocket replay log (src/platform/realtime/replay-log.ts) costs in
 * memory: `location.created` events shaped like the ones the service publishes (50 per batch) recorded
 * into one workspace's log at the location-ingest benchmark's rate (~3,000 batches/s) and at field
 * rates, with the heap measured after a full collection. Prints the events and bytes the log counts,
 * the heap it really takes, and how many seconds of that rate it holds.
 */
import { heapStats } from 'bun:jsc'
import { pingBatch } from '../lib/pings'
import { ENTRY_OVERHEAD_BYTES, REPLAY_BOUNDS, ReplayLog } from '../../src/platform/realtime/replay-log'
import { SOCKET_CHANNELS } from '../../src/app'
import { livemapTopic } from '../../src/modules/locations'
import { bulkTypesOf } from '../../src/platform/realtime/hub'

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

/** Records `seconds` of `perSecond` events into one workspace's log; what it then holds. */
function measure(perSecond: number, seconds: number) {
  const log = new ReplayLog(REPLAY_BOUNDS, bulkTypesOf(SOCKET_CHANNELS))
  const topic = [livemapTopic(1)]
  const start = Date.parse('2026-11-23T08:00:00Z')
  const before = heapBytes()
  const batches = Math.ceil((perSecond * seconds) / PINGS)
  let chars = 0
  for (let seq = 0; seq < batches; seq++) {
    const now = start + Math.floor((seq * PINGS * 1000) / perSecond)
    for (const ping of savedPings(seq, now)) chars += log.record(1, topic, 'location.created', ping, now).length
  }
  const heap = heapBytes() - before
  const events = log.events
  return {
    eventsPerSecond: perSecond,
    seconds,
    eventsHeld: events,
    secondsHeld: Number((events / perSecond).toFixed(2)),
    countedBytes: log.bytes,
    heapBytes: heap,
    heapPerEvent: events ? Math.round(heap / events) : null,
    meanMessageChars: Math.round(chars / (batches * PINGS)),
    countedPerEvent: events ? Math.round(log.bytes / events) : null,
  }
}

console.log(`bounds: ${JSON.stringify(REPLAY_BOUNDS)}, entry overhead ${ENTRY_OVERHEAD_BYTES} B`)
// The ingest benchmark's rate, for 2 s (a flood: nothing is kept).
console.log(JSON.stringify(measure(BATCHES_PER_SECOND * PINGS, 2)))
// 1,000 field users pinging every 10 s, for 10 minutes: everything is kept.
console.log(JSON.stringify(measure(100, 600)))
// 2,000 users every 10 s, for 10 minutes: the byte bound keeps the newest ~6 minutes.
console.log(JSON.stringify(measure(200, 600)))
