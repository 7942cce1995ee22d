/**
 * `bun scripts/measure-rss.ts [COMMAND…]` — the memory of a server process through a first start on an
 * empty data directory and the load of tests/binary.test.ts (2,000 location batches of 20 pings from
 * 8 concurrent clients): `VmRSS` and `VmHWM` (high-water mark) from /proc, in MiB. Without COMMAND it
 * measures `npm start`'s process (`bun src/server.ts`); `bun scripts/measure-rss.ts dist/ffos`
 * measures the executable. SQLITE_CACHE_MB is passed through. Figures go to README.md "Memory".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const command = process.argv.length > 2 ? process.argv.slice(2) : [process.execPath, 'src/server.ts']

function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) }
}

const dataDir = mkdtempSync(join(tmpdir(), 'ffos-rss-'))
const port = 20_000 + Math.floor(Math.random() * 20_000)
const base = `http://127.0.0.1:${port}/api`
const server = Bun.spawn(command, {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `file:${join(dataDir, 'app.db')}`,
    UPLOAD_DIR: join(dataDir, 'uploads'),
    EXPORT_DIR: join(dataDir, 'exports'),
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL: '2h',
    ...(process.env.SQLITE_CACHE_MB ? { SQLITE_CACHE_MB: process.env.SQLITE_CACHE_MB } : {}),
  },
  stdout: 'ignore',
  stderr: 'inherit',
})

try {
  const started = performance.now()
  while (
    !(await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode})`)
    if (performance.now() - started > 240_000) throw new Error('the server did not become healthy')
    await Bun.sleep(50)
  }
  const toHealthyMs = Math.round(performance.now() - started)
  const firstStart = memory(server.pid)
  const post = (path: string, body: unknown, token?: string, key?: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(key ? { 'x-idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }))
  const owner = await post('/auth/register', { name: 'Owner', email: 'owner@example.com', password: 'password123', workspace_name: 'RSS' })
  if (owner.status !== 201) throw new Error(`register: ${owner.status}`)
  const token = owner.body.data.token as string
  const roles = await fetch(`${base}/office/v1/roles`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<any>)
  const userRole = roles.data.find((role: { slug: string }) => role.slug === 'user').id
  await post('/office/v1/users', { name: 'Field', email: 'field@example.com', password: 'password123', role_id: userRole }, token)
  const field = (await post('/auth/login', { email: 'field@example.com', password: 'password123' })).body.data.token as string

  const BATCHES = 2_000
  const CLIENTS = 8
  let next = 0
  const t0 = Date.now() - BATCHES * 20 * 1000
  const load = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let batch = next++; batch < BATCHES; batch = next++) {
        const pings = Array.from({ length: 20 }, (_, i) => ({
          lat: -6.2 + (batch * 20 + i) * 1e-5,
          lng: 106.8,
          is_mock: false,
          recorded_at: new Date(t0 + (batch * 20 + i) * 1000).toISOString(),
        }))
        const reply = await post('/app/v1/locations/batch', { pings }, field, crypto.randomUUID())
        if (reply.status !== 201) throw new Error(`batch ${batch}: ${reply.status}`)
      }
    }),
  )
  const loadSeconds = Math.round((performance.now() - load) / 100) / 10
  console.log(
    JSON.stringify({
      command: command.join(' '),
      toHealthyMs,
      firstStart,
      afterLoad: memory(server.pid),
      loadSeconds,
      cacheMb: process.env.SQLITE_CACHE_MB ?? '64 (default)',
    }),
  )
} finally {
  server.kill('SIGTERM')
  await server.exited
  rmSync(dataDir, { recursive: true, force: true })
}
