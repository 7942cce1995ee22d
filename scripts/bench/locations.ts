/**
 * `bun run bench:locations` — POST /app/v1/locations/batch over HTTP against the real server on a
 * temporary database (50 pings per batch, a unique X-Idempotency-Key each, auth, validation,
 * idempotency and a live-map WebSocket listener all on), and in the same run the same batches into a
 * bare Bun.serve + bun:sqlite multi-row insert (the ceiling). Server on core 0, load on core 1.
 * Service and ceiling take turns for ROUNDS rounds, each on its own copy of the set-up database, and
 * the median round of each is reported: this machine's speed drifts by ±15% over a minute, which
 * one long run of each (one after the other) turned into noise in the ratio.
 *
 * Options (env): CONCURRENCY (default 50), SECONDS per round (default 6), ROUNDS (default 3).
 */
import { copyFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, peakRssMiB, printTable, ROOT, startProcess, startReadyService, tempDir, waitFor, type Row } from './common'
import { ingestLoad, median, PINGS, setUpIngestWorkspace, startListener, WARMUP_SECONDS } from './ingest'
import type { LoadResult } from './load'

const concurrency = Number(process.env.CONCURRENCY ?? 50)
const seconds = Number(process.env.SECONDS ?? 6)
const rounds = Number(process.env.ROUNDS ?? 3)
const { dir, remove } = tempDir('ffos-bench-loc-')
const dbPath = join(dir, 'app.db')
const ceilingDbPath = join(dir, 'ceiling.db')
const running: Subprocess[] = []
const rows: Row[] = []

/** The service on `path`, ready (killed at the end whatever happens). */
async function startReady(path: string, port: number) {
  const server = await startReadyService(path, port)
  running.push(server)
  return server
}

async function startCeiling(path: string, port: number, workspaceId: number, userId: number) {
  const ceiling = startProcess([process.execPath, join(ROOT, 'scripts/bench/ceiling-locations.ts')], {
    PORT: String(port),
    DB_PATH: path,
    WORKSPACE_ID: String(workspaceId),
    USER_ID: String(userId),
  })
  running.push(ceiling)
  await waitFor(`http://127.0.0.1:${port}/health`)
  return ceiling
}

try {
  // 1. One workspace with a field user, set up through the service; the ceiling gets a copy of
  //    that database, so both start from the same file and each writes only into its own.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/api`
  let server = await startReady(dbPath, port)
  const { owner, field } = await setUpIngestWorkspace(base)
  server.kill('SIGTERM')
  await server.exited
  copyFileSync(dbPath, ceilingDbPath)

  // 2. Rounds, service then ceiling, each on its own server process started for the round: drift
  //    of the machine between rounds hits both alike, and the medians are reported.
  const withListener = process.env.WS !== '0'
  const ceilingPort = await freePort()
  const serviceRounds: LoadResult[] = []
  const ceilingRounds: LoadResult[] = []
  let serviceRss = 0
  let ceilingRss = 0
  let listened = 0
  let walHighWater = 0
  for (let round = 1; round <= rounds; round++) {
    server = await startReady(dbPath, port)
    // WS=0 measures without the live-map listener (to see what the fan-out costs): its socket then
    // belongs to the field user, who does not see the live map.
    const listener = await startListener(port, withListener ? owner.token : field.token)
    running.push(listener.process)
    // The WAL's high-water mark while the service ingests: bounded by the checkpoints (src/db/checkpoint.ts).
    const walSampler = setInterval(() => {
      try {
        walHighWater = Math.max(walHighWater, statSync(`${dbPath}-wal`).size)
      } catch {
        // not there yet
      }
    }, 50)
    const service = await ingestLoad(`${base}/app/v1/locations/batch`, field.token, concurrency, seconds)
    clearInterval(walSampler)
    serviceRss = Math.max(serviceRss, peakRssMiB(server.pid))
    listened += await listener.stop()
    server.kill('SIGTERM')
    await server.exited
    serviceRounds.push(service)

    const ceiling = await startCeiling(ceilingDbPath, ceilingPort, owner.user.workspace_id, field.user.id)
    const bare = await ingestLoad(`http://127.0.0.1:${ceilingPort}/api/app/v1/locations/batch`, null, concurrency, seconds)
    ceilingRss = Math.max(ceilingRss, peakRssMiB(ceiling.pid))
    ceiling.kill('SIGTERM')
    await ceiling.exited
    ceilingRounds.push(bare)
    console.log(
      `round ${round}: service ${service.rps.toFixed(0)} req/s (p99 ${service.p99.toFixed(1)} ms), ceiling ${bare.rps.toFixed(0)} req/s (p99 ${bare.p99.toFixed(1)} ms): ${((service.rps / bare.rps) * 100).toFixed(0)}%`,
    )
  }

  // The round with the median req/s stands for each server.
  const pick = (results: LoadResult[]) => results.find((result) => result.rps === median(results.map((r) => r.rps)))!
  rows.push({ scenario: `location batch, ${PINGS} pings`, target: 'service', result: pick(serviceRounds), rssMiB: serviceRss })
  rows.push({ scenario: `location batch, ${PINGS} pings`, target: 'ceiling', result: pick(ceilingRounds), rssMiB: ceilingRss })

  console.log(
    `\nlocation ingest: ${concurrency} concurrent clients, ${rounds} rounds of ${seconds} s after ${WARMUP_SECONDS} s warm-up (median round shown), ${PINGS} pings per batch, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores\n`,
  )
  printTable(rows)
  const pingsPerSecond = (row: Row) => row.result.rps * PINGS
  console.log(`\n| server | pings/s |\n|---|---:|`)
  for (const row of rows) console.log(`| ${row.target} | ${pingsPerSecond(row).toFixed(0)} |`)
  const perRound = serviceRounds.map((service, i) => service.rps / ceilingRounds[i].rps)
  console.log(
    `\nservice / ceiling (pings/s), median of the rounds: ${(median(perRound) * 100).toFixed(0)}% (per round: ${perRound.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})`,
  )
  console.log(`service WAL high-water mark: ${(walHighWater / 1024 / 1024).toFixed(1)} MiB`)
  console.log(`live-map socket received ${listened} location.created messages (${(listened / PINGS).toFixed(0)} batches' worth)`)
} finally {
  for (const child of running) child.kill('SIGKILL')
  remove()
}
