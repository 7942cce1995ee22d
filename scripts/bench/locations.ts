/**
 * `bun run bench:locations` — POST /app/v1/locations/batch over HTTP against the real server on a
 * temporary database (50 pings per batch, a unique X-Idempotency-Key each, auth, validation,
 * idempotency and a live-map WebSocket listener all on), and in the same run the same batches into a
 * bare Bun.serve + bun:sqlite multi-row insert (the ceiling). Server on core 0, load on core 1.
 *
 * Options (env): CONCURRENCY (default 50), SECONDS (default 10).
 */
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, load, peakRssMiB, printTable, ROOT, startProcess, tempDir, waitFor, type Row } from './common'
import { pingBodies } from '../lib/pings'

const concurrency = Number(process.env.CONCURRENCY ?? 50)
const seconds = Number(process.env.SECONDS ?? 10)
const PINGS = 50
const { dir, remove } = tempDir('ffos-bench-loc-')
const dbPath = join(dir, 'app.db')
const running: Subprocess[] = []
const rows: Row[] = []

const bodies = pingBodies(500, PINGS)

async function post(base: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  return (await response.json()) as { data: any }
}

try {
  // 1. The service, with a live-map listener connected.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/api`
  const server = startProcess([process.execPath, join(ROOT, 'src/server.ts')], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `file:${dbPath}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ACCESS_TOKEN_TTL: '1h',
  })
  running.push(server)
  await waitFor(`${base}/health`)
  const owner = (await post(base, '/auth/register', { name: 'Bench', email: 'bench@example.com', password: 'password123', workspace_name: 'Bench' })).data
  const roles = await (await fetch(`${base}/office/v1/roles`, { headers: { authorization: `Bearer ${owner.token}` } })).json()
  const userRole = roles.data.find((role: { slug: string }) => role.slug === 'user').id
  await post(base, '/office/v1/users', { name: 'Field', email: 'field@example.com', password: 'password123', role_id: userRole }, owner.token)
  const field = (await post(base, '/auth/login', { email: 'field@example.com', password: 'password123' })).data

  // WS=0 measures without the live-map listener (to see what the fan-out costs).
  const withListener = process.env.WS !== '0'
  const listener = Bun.spawn([process.execPath, join(ROOT, 'scripts/bench/ws-listener.ts'), `ws://127.0.0.1:${port}/ws?token=${withListener ? owner.token : field.token}`], { stdout: 'pipe', stderr: 'inherit' })
  running.push(listener)
  const reader = listener.stdout.getReader()
  await reader.read() // "ready"

  const service = await load({
    url: `${base}/app/v1/locations/batch`,
    method: 'POST',
    headers: { authorization: `Bearer ${field.token}`, 'content-type': 'application/json' },
    bodies,
    uniqueIdempotencyKey: true,
    concurrency,
    seconds,
  })
  const serviceRss = peakRssMiB(server.pid)
  listener.kill('SIGTERM')
  const listened = JSON.parse(new TextDecoder().decode((await reader.read()).value ?? new Uint8Array()).trim() || '{"messages":0}')
  server.kill('SIGTERM')
  await server.exited
  rows.push({ scenario: `location batch, ${PINGS} pings`, target: 'service', result: service, rssMiB: serviceRss })

  // 2. The ceiling on the same database file.
  const ceilingPort = await freePort()
  const ceiling = startProcess([process.execPath, join(ROOT, 'scripts/bench/ceiling-locations.ts')], {
    PORT: String(ceilingPort),
    DB_PATH: dbPath,
    WORKSPACE_ID: String(owner.user.workspace_id),
    USER_ID: String(field.user.id),
  })
  running.push(ceiling)
  await waitFor(`http://127.0.0.1:${ceilingPort}/health`)
  const bare = await load({
    url: `http://127.0.0.1:${ceilingPort}/api/app/v1/locations/batch`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    bodies,
    concurrency,
    seconds,
  })
  rows.push({ scenario: `location batch, ${PINGS} pings`, target: 'ceiling', result: bare, rssMiB: peakRssMiB(ceiling.pid) })
  ceiling.kill('SIGTERM')
  await ceiling.exited

  console.log(`\nlocation ingest: ${concurrency} concurrent clients, ${seconds} s, ${PINGS} pings per batch, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores\n`)
  printTable(rows)
  const pingsPerSecond = (row: Row) => row.result.rps * PINGS
  console.log(`\n| server | pings/s |\n|---|---:|`)
  for (const row of rows) console.log(`| ${row.target} | ${pingsPerSecond(row).toFixed(0)} |`)
  console.log(`\nservice / ceiling (pings/s): ${((pingsPerSecond(rows[0]) / pingsPerSecond(rows[1])) * 100).toFixed(0)}%`)
  console.log(`live-map socket received ${listened.messages} location.created messages (${(listened.messages / PINGS).toFixed(0)} batches' worth)`)
} finally {
  for (const child of running) child.kill('SIGKILL')
  remove()
}
