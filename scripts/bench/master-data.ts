/**
 * `bun run bench:master-data` — the master-data list (with and without keyword) and create, over
 * HTTP against the real server on a temporary database, next to a bare Bun.serve + bun:sqlite
 * ceiling doing the same queries in the same run. Server on core 0, load generator on core 1.
 *
 * Options (env): CONCURRENCY (default 32), SECONDS (default 8), ROWS (default 2000).
 */
import { join } from 'node:path'
import { freePort, load, peakRssMiB, printTable, ROOT, startProcess, tempDir, waitFor, type Row } from './common'

const concurrency = Number(process.env.CONCURRENCY ?? 32)
const seconds = Number(process.env.SECONDS ?? 8)
const rowCount = Number(process.env.ROWS ?? 2000)
const WORDS = ['Modern', 'Trade', 'General', 'Mart', 'Grosir', 'Warung', 'Apotek', 'Kopi', 'Toko', 'Sentosa']

const { dir, remove } = tempDir('ffos-bench-')
const dbPath = join(dir, 'app.db')
const rows: Row[] = []
const children: import('bun').Subprocess[] = []

try {
  // 1. The real service.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/api`
  const server = startProcess([process.execPath, join(ROOT, 'src/server.ts')], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `file:${dbPath}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  })
  children.push(server)
  await waitFor(`${base}/health`)
  const registered = await (
    await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'password123', workspace_name: 'Bench' }),
    })
  ).json()
  const token = registered.data.token as string
  const workspaceId = registered.data.user.workspace_id as number
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  for (let start = 0; start < rowCount; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, rowCount - start) }, (_, i) => {
        const n = start + i
        const name = `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} ${n}`
        return fetch(`${base}/office/v1/outlets/channel-groups`, { method: 'POST', headers: auth, body: JSON.stringify({ name }) })
      }),
    )
  }

  const scenarios = [
    { scenario: 'list, keyword "mart", limit 50', path: '/office/v1/outlets/channel-groups?keyword=mart&limit=50' },
    { scenario: 'list, page 3, limit 50', path: '/office/v1/outlets/channel-groups?page=3&limit=50' },
  ]
  const createBodies = Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ name: `Bench ${process.pid} ${i}` }))

  for (const { scenario, path } of scenarios) {
    rows.push({ scenario, target: 'service', result: await load({ url: `${base}${path}`, headers: auth, concurrency, seconds }), rssMiB: 0 })
  }
  rows.push({
    scenario: 'create (with audit entry)',
    target: 'service',
    result: await load({ url: `${base}/office/v1/outlets/channel-groups`, method: 'POST', headers: auth, bodies: createBodies, concurrency, seconds }),
    rssMiB: 0,
  })
  const serviceRss = peakRssMiB(server.pid)
  for (const row of rows) row.rssMiB = serviceRss
  server.kill('SIGTERM')
  await server.exited

  // 2. The ceiling, on the same database file.
  const ceilingPort = await freePort()
  const ceilingBase = `http://127.0.0.1:${ceilingPort}/api`
  const ceiling = startProcess([process.execPath, join(ROOT, 'scripts/bench/ceiling-master-data.ts')], {
    PORT: String(ceilingPort),
    DB_PATH: dbPath,
    WORKSPACE_ID: String(workspaceId),
  })
  children.push(ceiling)
  await waitFor(`${ceilingBase}/health`)
  const ceilingRows: Row[] = []
  for (const { scenario, path } of scenarios) {
    ceilingRows.push({ scenario, target: 'ceiling', result: await load({ url: `${ceilingBase}${path}`, concurrency, seconds }), rssMiB: 0 })
  }
  ceilingRows.push({
    scenario: 'create (with audit entry)',
    target: 'ceiling',
    result: await load({
      url: `${ceilingBase}/office/v1/outlets/channel-groups`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      bodies: createBodies.map((body) => body.replace('Bench', 'Ceiling')),
      concurrency,
      seconds,
    }),
    rssMiB: 0,
  })
  const ceilingRss = peakRssMiB(ceiling.pid)
  for (const row of ceilingRows) row.rssMiB = ceilingRss
  ceiling.kill('SIGTERM')
  await ceiling.exited

  console.log(`\nmaster data, ${rowCount} channel groups, ${concurrency} concurrent clients, ${seconds} s per scenario, bun ${Bun.version}\n`)
  printTable(rows.flatMap((row, i) => [row, ceilingRows[i]]))
  console.log('\n| scenario | service / ceiling (req/s) |\n|---|---:|')
  rows.forEach((row, i) => console.log(`| ${row.scenario} | ${((row.result.rps / ceilingRows[i].result.rps) * 100).toFixed(0)}% |`))
} finally {
  for (const child of children) child.kill('SIGKILL')
  remove()
}
