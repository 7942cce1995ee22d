/**
 * `bun run bench:brotli [DEMO_DB]` — what each brotli quality costs on the service's own answers
 * (src/platform/http/representation.ts BROTLI_QUALITY; docs/PERFORMANCE.md "Compression and
 * conditional GET"). DEMO_DB defaults to the demo database of `bun run bench` (its
 * `ensureDemoDatabase`: today's in data/bench/, seeded first when it is not there).
 *
 * The service is started on a copy of the demo database and asked for five answers a
 * client really gets: a first-sync page (limit=1000), the outlet list at 50 and 100 rows, the audit log
 * at 50 and a field user's visits. Each is then compressed here at qualities 1 to 5:
 *
 * - bytes out;
 * - warm: the median of back-to-back compressions (the allocator's memory and the caches warm);
 * - after idle: the median of 8 compressions each made after other work freed memory and 250 ms of
 *   idle, with the minor page faults each took (/proc/self/stat). Bun's allocator hands freed memory
 *   back to the system ~100 ms after it is freed, so a server that did anything else between two
 *   answers (an office's writes, another phone) meets this case on every one: each page of the
 *   encoder's tables is then faulted in and zeroed again.
 *
 * Qualities are compared in this one process, each with the same work around it.
 */
import { brotliCompressSync, constants } from 'node:zlib'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { BROTLI_QUALITY } from '../../src/platform/http/representation'
import { expectCall } from '../lib/server-process'
import { freePort, minorFaults, ROOT, startReadyService, tempDir } from './common'
import { ensureDemoDatabase } from './suite'

const QUALITIES = [1, 2, 3, 4, 5]
const IDLE_MS = 250
const AFTER_IDLE_SAMPLES = 8

/** The answers, as JSON text, read from a service on a copy of `cache`. */
async function answers(cache: string): Promise<{ name: string; json: string }[]> {
  const { dir, remove } = tempDir('ffos-bench-brotli-')
  const file = join(dir, 'brotli.db')
  copyFileSync(cache, file)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const server = await startReadyService(file, port, ROOT, { PUBLIC_URL: base })
  try {
    const login = async (email: string) =>
      (await expectCall(`${base}/api`, 'POST', '/auth/login', 200, { body: { email, password: 'password123' } })).body.data.token as string
    const owner = await login('owner@demo.example')
    const field = await login('field1@demo.example')
    // The text as the service serialised it (fetch undoes any content coding).
    const read = async (name: string, path: string, token: string) => ({ name, json: (await expectCall(`${base}/api`, 'GET', path, 200, { token })).text })
    return [
      await read('first-sync page', '/app/v1/sync?limit=1000', field),
      await read('outlets, 100', '/office/v1/outlets?limit=100', owner),
      await read('outlets, 50', '/office/v1/outlets?limit=50', owner),
      await read('audit log, 50', '/office/v1/audit-logs?limit=50', owner),
      await read('my visits', '/app/v1/visits/me', field),
    ]
  } finally {
    server.kill('SIGTERM')
    await server.exited
    remove()
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]

/** Other work's allocations, freed: what a server does between two answers. */
function otherWork() {
  for (let i = 0; i < 1000; i++) new TextDecoder().decode(new Uint8Array(2000))
}

async function measure(json: string, quality: number) {
  const compress = () => brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } })
  for (let i = 0; i < 10; i++) compress()
  const runs = json.length > 100_000 ? 20 : 200
  const warm: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    compress()
    warm.push(performance.now() - started)
  }
  const idle: number[] = []
  const faults: number[] = []
  for (let i = 0; i < AFTER_IDLE_SAMPLES; i++) {
    otherWork()
    await Bun.sleep(IDLE_MS)
    const before = minorFaults(process.pid)
    const started = performance.now()
    compress()
    idle.push(performance.now() - started)
    faults.push(minorFaults(process.pid) - before)
  }
  return { bytes: compress().length, warmUs: median(warm) * 1000, idleUs: median(idle) * 1000, faults: median(faults) }
}

if (import.meta.main) {
  const cache = process.argv[2] ?? (await ensureDemoDatabase())
  console.log(`answers from ${cache}; the service's quality: ${BROTLI_QUALITY}\n`)
  console.log('| answer | JSON bytes | quality | br bytes | warm µs | after idle µs | faults after idle |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const { name, json } of await answers(cache)) {
    for (const quality of QUALITIES) {
      const m = await measure(json, quality)
      const mark = quality === BROTLI_QUALITY ? `**${quality}**` : String(quality)
      console.log(
        `| ${name} | ${json.length.toLocaleString('en')} | ${mark} | ${m.bytes.toLocaleString('en')} | ${m.warmUs.toFixed(0)} | ${m.idleUs.toFixed(0)} | ${m.faults} |`,
      )
    }
  }
}
