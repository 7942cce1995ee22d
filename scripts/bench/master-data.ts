/**
 * `bun run bench:master-data` — master-data list (with and without keyword) and create, over HTTP
 * against the real server on a temporary database, next to a bare Bun.serve + bun:sqlite ceiling
 * doing the same queries on the same file in the same run. Server on core 0, load generator on core 1.
 * Reads are measured first on both servers, then writes, so both read the same rows.
 *
 * Options (env): CONCURRENCY (default 32), SECONDS (default 8), ROWS (default 2000).
 */
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import {
  differences,
  freePort,
  load,
  peakRssMiB,
  printTable,
  ROOT,
  refuseDifferences,
  startProcess,
  startService,
  tempDir,
  waitFor,
  type Row,
  writeShape,
} from './common'

const concurrency = Number(process.env.CONCURRENCY ?? 32)
const seconds = Number(process.env.SECONDS ?? 8)
const rowCount = Number(process.env.ROWS ?? 2000)
const WORDS = ['Modern', 'Trade', 'General', 'Mart', 'Grosir', 'Warung', 'Apotek', 'Kopi', 'Toko', 'Sentosa']

const { dir, remove } = tempDir('ffos-bench-')
const dbPath = join(dir, 'app.db')
const running: Subprocess[] = []

type Target = 'service' | 'ceiling'
let workspaceId = 0
let token = ''

/** Starts one server, runs `fn` against its base URL, stops it, and returns its peak RSS. */
async function withServer(target: Target, fn: (base: string) => Promise<void>): Promise<number> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/api`
  const child =
    target === 'service'
      ? startService(dbPath, port)
      : startProcess([process.execPath, join(ROOT, 'scripts/bench/ceiling-master-data.ts')], {
          PORT: String(port),
          DB_PATH: dbPath,
          WORKSPACE_ID: String(workspaceId),
        })
  running.push(child)
  await waitFor(`${base}/health`)
  await fn(base)
  const rss = peakRssMiB(child.pid)
  child.kill('SIGTERM')
  await child.exited
  return rss
}

async function seed(base: string) {
  const registered = await (
    await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'password123', workspace_name: 'Bench' }),
    })
  ).json()
  token = registered.data.token
  workspaceId = registered.data.user.workspace_id
  for (let start = 0; start < rowCount; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, rowCount - start) }, (_, i) => {
        const n = start + i
        const name = `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} ${n}`
        return fetch(`${base}/office/v1/outlets/channel-groups`, { method: 'POST', headers: headers(), body: JSON.stringify({ name }) })
      }),
    )
  }
}

const headers = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })

const reads = [
  { scenario: 'list, keyword "mart", limit 50', path: '/office/v1/outlets/channel-groups?keyword=mart&limit=50' },
  { scenario: 'list, page 3, limit 50', path: '/office/v1/outlets/channel-groups?page=3&limit=50' },
]
const writeScenario = 'create (with audit entry)'
/** A new name for every create of the run (warm-up included): 20,000 a second covers the ceiling's rate with room to spare, a repeat would answer 409. */
const bodies = (prefix: string) => Array.from({ length: 20_000 * (seconds + 2) }, (_, i) => JSON.stringify({ name: `${prefix} ${i}` }))

const results: Record<Target, Row[]> = { service: [], ceiling: [] }
/**
 * Each read's answer and a create's fields, fetched once from each server before its load: the ceiling
 * must answer what the service answers (./common.ts `differences`), or the run stops.
 */
const answers: Record<Target, unknown[]> = { service: [], ceiling: [] }
function compareAnswers() {
  refuseDifferences('master data', differences(answers.service, answers.ceiling))
}

async function measureReads(target: Target) {
  return withServer(target, async (base) => {
    if (target === 'service' && !token) await seed(base)
    else if (target === 'service') {
      // A fresh process: log in again for a token signed with the persisted secret.
      const login = await (
        await fetch(`${base}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'bench@example.com', password: 'password123' }),
        })
      ).json()
      token = login.data.token
    }
    for (const { path } of reads) answers[target].push(await (await fetch(`${base}${path}`, { headers: headers() })).json())
    for (const { scenario, path } of reads) {
      results[target].push({ scenario, target, result: await load({ url: `${base}${path}`, headers: headers(), concurrency, seconds }), rssMiB: 0 })
    }
  })
}

async function measureWrites(target: Target) {
  return withServer(target, async (base) => {
    if (target === 'service') {
      const login = await (
        await fetch(`${base}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'bench@example.com', password: 'password123' }),
        })
      ).json()
      token = login.data.token
    }
    const reply = await fetch(`${base}/office/v1/outlets/channel-groups`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ name: `${target} compared` }),
    })
    answers[target].push(reply.status, writeShape(await reply.json()))
    if (target === 'ceiling') compareAnswers()
    const result = await load({
      url: `${base}/office/v1/outlets/channel-groups`,
      method: 'POST',
      headers: headers(),
      bodies: bodies(target),
      concurrency,
      seconds,
    })
    results[target].push({ scenario: writeScenario, target, result, rssMiB: 0 })
  })
}

try {
  const rss: Record<Target, number> = { service: 0, ceiling: 0 }
  rss.service = Math.max(rss.service, await measureReads('service'))
  rss.ceiling = Math.max(rss.ceiling, await measureReads('ceiling'))
  rss.service = Math.max(rss.service, await measureWrites('service'))
  rss.ceiling = Math.max(rss.ceiling, await measureWrites('ceiling'))
  for (const target of ['service', 'ceiling'] as const) for (const row of results[target]) row.rssMiB = rss[target]

  console.log(
    `\nmaster data: ${rowCount} channel groups, ${concurrency} concurrent clients, ${seconds} s per scenario, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores\n`,
  )
  printTable(results.service.flatMap((row, i) => [row, results.ceiling[i]]))
  console.log('\n| scenario | service / ceiling (req/s) |\n|---|---:|')
  for (const [i, row] of results.service.entries()) console.log(`| ${row.scenario} | ${((row.result.rps / results.ceiling[i].result.rps) * 100).toFixed(0)}% |`)
} finally {
  for (const child of running) child.kill('SIGKILL')
  remove()
}
