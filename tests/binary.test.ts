/**
 * The compiled executable (README.md "Running in production" in README.md): `npm run build` writes dist/ffos, which is
 * copied ALONE into an empty directory (no node_modules, no source tree, no drizzle/) and run there
 * on a temporary data directory: it migrates, copies its prepared regional database out beside the database file
 * (no row inserted), serves, keeps its WAL
 * bounded under ingest (the checkpoint worker runs inside it), writes a PDF export with its fonts,
 * serves the docs' script, takes an online backup, creates the first workspace with registration
 * off, and stops on SIGTERM with exit code 0.
 *
 * It builds and starts a real process and sends thousands of requests (a minute or more on a busy
 * machine), so it runs only with `npm run test:binary` (FFOS_BINARY_TEST=1), not in `bun test`.
 * It prints the executable's size, cold start and memory figures (docs/PERFORMANCE.md).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { call, expectCall, freePort, placement, ROOT, ServerLog } from '../scripts/lib/server-process'
import { regionalAssetPath, regionalFileName } from '../src/modules/regional'

const enabled = process.env.FFOS_BINARY_TEST === '1'
const MiB = 1024 * 1024
/** Location batches sent to load the WAL; each holds BATCH_PINGS pings. */
const BATCHES = 2_000
const BATCH_PINGS = 20
/**
 * The checkpoint worker copies the WAL back every 50 ms and the writer starts it over once it holds
 * 4,096 frames (16 MiB); `journal_size_limit` then cuts the file back to at most 64 MiB.
 */
const WAL_BOUND_BYTES = 64 * MiB

/** `VmRSS` and `VmHWM` (the high-water mark) of a process, in MiB. */
function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) }
}

async function drain(stream: ReadableStream<Uint8Array>, ...logs: ServerLog[]) {
  const decoder = new TextDecoder()
  let pending = ''
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true })
    const cut = pending.lastIndexOf('\n')
    if (cut < 0) continue
    for (const log of logs) log.push(pending.slice(0, cut))
    pending = pending.slice(cut + 1)
  }
  if (pending) for (const log of logs) log.push(pending)
}

describe.skipIf(!enabled)('the compiled executable, alone in an empty directory', () => {
  let binDir: string
  let dataDir: string
  let binary: string
  let proc: Subprocess
  let base: string
  let env: Record<string, string>
  const log = new ServerLog()
  /** Standard output alone: every line of it must be JSON (a log collector parses each). */
  const stdoutLog = new ServerLog(100_000)
  let stdoutDrained: Promise<void>
  const figures: Record<string, unknown> = {}

  /** `ffos ARGS` in the binary's directory, with the server's environment; optional stdin. */
  const run = (args: string[], stdin?: string) => {
    const result = Bun.spawnSync([binary, ...args], { cwd: binDir, env, stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin) })
    return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() }
  }

  beforeAll(async () => {
    const build = Bun.spawnSync([process.execPath, 'run', 'build'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`)
    binDir = mkdtempSync(join(tmpdir(), 'ffos-bin-'))
    dataDir = mkdtempSync(join(tmpdir(), 'ffos-data-'))
    binary = join(binDir, 'ffos')
    copyFileSync(join(ROOT, 'dist/ffos'), binary)
    figures.executableMiB = Math.round((statSync(binary).size / MiB) * 10) / 10
    expect(readdirSync(binDir)).toEqual(['ffos'])

    const port = await freePort()
    base = `http://127.0.0.1:${port}/api`
    // Only what an operator would set: no NODE_PATH, no bun on PATH that could hide a missing file.
    env = {
      PATH: '/usr/bin:/bin',
      HOME: binDir,
      ...placement(join(dataDir, 'app.db'), port),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      REGISTRATION_ENABLED: 'false',
      ACCESS_TOKEN_TTL: '2h',
      // `MEMORY_BUDGET_MB=128 npm run test:binary` measures the small setting (README.md "Memory").
      ...(process.env.MEMORY_BUDGET_MB ? { MEMORY_BUDGET_MB: process.env.MEMORY_BUDGET_MB } : {}),
      ...(process.env.SQLITE_CACHE_MB ? { SQLITE_CACHE_MB: process.env.SQLITE_CACHE_MB } : {}),
    }
    const started = performance.now()
    proc = Bun.spawn([binary], { cwd: binDir, env, stdout: 'pipe', stderr: 'pipe' })
    stdoutDrained = drain(proc.stdout as ReadableStream<Uint8Array>, log, stdoutLog)
    void drain(proc.stderr as ReadableStream<Uint8Array>, log)
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`ffos exited during start (${proc.exitCode}):\n${log.tail()}`)
      const healthy = await fetch(`${base}/health`).then(
        (response) => response.status === 200,
        () => false,
      )
      if (healthy) break
      if (performance.now() - started > 240_000) throw new Error(`ffos did not become healthy:\n${log.tail()}`)
      await Bun.sleep(50)
    }
    figures.firstStartToHealthyMs = Math.round(performance.now() - started)
    figures.firstStart = memoryOf(proc.pid)
  }, 300_000)

  afterAll(async () => {
    if (proc && proc.exitCode === null) proc.kill('SIGKILL')
    console.log(`binary figures: ${JSON.stringify(figures)}`)
    rmSync(binDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  let owner: string
  let fieldToken: string

  test('GET /api/health answers, and with registration off `ffos create-workspace` (password on stdin) makes the first super_admin', async () => {
    expect((await call(base, 'GET', '/health')).status).toBe(200)
    const refused = await call(base, 'POST', '/auth/register', { body: { name: 'A', email: 'a@example.com', password: 'password123', workspace_name: 'A' } })
    expect(refused.status).toBe(403)

    const created = run(['create-workspace', '--workspace', 'Binary Co', '--name', 'Owner', '--email', 'owner@example.com'], 'password123\n')
    expect(created.err).toBe('')
    expect(created.code).toBe(0)
    expect(created.out).toContain('owner@example.com')
    expect(created.out).not.toContain('password123')
    // The same email again is refused, and a short password never reaches the database.
    expect(run(['create-workspace', '--workspace', 'B', '--name', 'B', '--email', 'owner@example.com'], 'password123\n').code).toBe(1)
    const weak = run(['create-workspace', '--workspace', 'C', '--name', 'C', '--email', 'c@example.com'], 'short\n')
    expect(weak.code).toBe(1)
    expect(weak.err).toContain('password')

    const login = await expectCall(base, 'POST', '/auth/login', 200, { body: { email: 'owner@example.com', password: 'password123' } })
    expect(login.body.data.user.role).toBe('super_admin')
    owner = login.body.data.token
  })

  test('every line on stdout is JSON through the first requests and a WebSocket (no "[Sucrose] warning" blocks); `ffos health` answers 0', async () => {
    // A first request on routes with a body, a token, a query, and a socket with a ping.
    await call(base, 'POST', '/auth/login', { body: { email: 'owner@example.com', password: 'wrong-password' } })
    await expectCall(base, 'GET', '/office/v1/outlets?limit=5&keyword=x', 200, { token: owner })
    await expectCall(base, 'POST', '/office/v1/outlets/channel-groups', 201, { token: owner, body: { name: 'Modern Trade' } })
    const socket = new WebSocket(`${base.replace('http', 'ws').replace('/api', '')}/ws?token=${encodeURIComponent(owner)}`)
    const pong = await new Promise<string>((resolve, reject) => {
      socket.onopen = () => socket.send(JSON.stringify({ type: 'ping' }))
      socket.onmessage = (event) => resolve(String(event.data))
      socket.onerror = () => reject(new Error('socket error'))
    })
    expect(JSON.parse(pong)).toEqual({ type: 'pong' })
    socket.close()
    const health = run(['health'])
    expect(health.code).toBe(0)
    expect(health.out).toStartWith('healthy: ')
    // The lines themselves are checked once the process has exited and its output is all read (SIGTERM test).
  })

  test('path and query parameters are read in the minified executable as from the sources: a bound broken or a wrong type is a 400 naming the field, never a 500', async () => {
    for (const [path, field] of [
      ['/office/v1/outlets/0', 'id'],
      ['/office/v1/outlets/abc', 'id'],
      ['/office/v1/outlets?limit=0', 'limit'],
      ['/office/v1/outlets?limit=abc', 'limit'],
      ['/app/v1/sync?limit=0', 'limit'],
      ['/office/v1/users?is_active=maybe', 'is_active'],
    ]) {
      const reply = await expectCall(base, 'GET', path, 400, { token: owner })
      expect({ path, code: reply.body.code, fields: Object.keys(reply.body.errors) }).toEqual({ path, code: 'VALIDATION_ERROR', fields: [field] })
    }
    const listed = await expectCall(base, 'GET', '/office/v1/outlets?limit=5&not_declared=1', 200, { token: owner })
    expect(listed.body.meta.limit).toBe(5)
  })

  test('the regional data answers from the prepared file the first start copied out beside the database (README.md "Regional data"); the database holds no regional row', async () => {
    const provinces = await expectCall(base, 'GET', '/office/v1/regional/provinces?limit=100', 200, { token: owner })
    expect(provinces.body.data).toHaveLength(38)
    const villages = await expectCall(base, 'GET', '/app/v1/regional/villages?district_id=110101&limit=1000', 200, { token: owner })
    expect(villages.body.data[0]).toEqual({ id: 1101012001, code: '11.01.01.2001', name: expect.any(String) })
    // The copy: named by version, byte for byte the file `npm run build` embedded.
    const copies = readdirSync(dataDir).filter((name) => name.startsWith('regional-'))
    expect(copies).toEqual([regionalFileName()])
    expect(readFileSync(join(dataDir, copies[0])).equals(readFileSync(join(ROOT, regionalAssetPath())))).toBe(true)
    // The service's database, through a connection of its own: no regional table, no regional setting.
    const main = new Sqlite(join(dataDir, 'app.db'), { readonly: true })
    try {
      expect(main.query("SELECT name FROM sqlite_master WHERE name LIKE 'regional%'").all()).toEqual([])
      expect(main.query("SELECT key FROM app_settings WHERE key LIKE 'regional%'").all()).toEqual([])
    } finally {
      main.close()
    }
  })

  test('the docs page and its script come from the executable', async () => {
    const page = await call(base, 'GET', '/docs')
    expect(page.status).toBe(200)
    const script = await fetch(`${base}/docs/scalar.js`)
    expect(script.status).toBe(200)
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000)
    expect((await call(base, 'GET', '/docs/json')).body.openapi).toStartWith('3.1')
  })

  test(`under ${BATCHES} location batches the WAL stays bounded: the checkpoint worker runs inside the executable`, async () => {
    const roles = await expectCall(base, 'GET', '/office/v1/roles', 200, { token: owner })
    const roleId = (roles.body.data as { id: number; slug: string }[]).find((role) => role.slug === 'user')!.id
    await expectCall(base, 'POST', '/office/v1/users', 201, {
      token: owner,
      body: { name: 'Field', email: 'field@example.com', password: 'password123', role_id: roleId },
    })
    fieldToken = (await expectCall(base, 'POST', '/auth/login', 200, { body: { email: 'field@example.com', password: 'password123' } })).body.data.token
    figures.idle = memoryOf(proc.pid)

    let next = 0
    let walPeak = 0
    const wal = join(dataDir, 'app.db-wal')
    const sender = async () => {
      while (next < BATCHES) {
        const batch = next++
        const recordedAt = Date.now() - 3_600_000 + batch * 100
        const pings = Array.from({ length: BATCH_PINGS }, (_, i) => ({
          lat: -6.2 + i / 1e4,
          lng: 106.8,
          is_mock: false,
          recorded_at: new Date(recordedAt + i).toISOString(),
        }))
        await expectCall(base, 'POST', '/app/v1/locations/batch', 201, { token: fieldToken, idempotencyKey: `batch-${batch}`, body: { pings } })
        if (batch % 100 === 0 && existsSync(wal)) walPeak = Math.max(walPeak, statSync(wal).size)
      }
    }
    const started = performance.now()
    await Promise.all(Array.from({ length: 8 }, sender))
    figures.ingestSeconds = Math.round((performance.now() - started) / 100) / 10
    figures.loaded = memoryOf(proc.pid)
    figures.walPeakMiB = Math.round((walPeak / MiB) * 10) / 10

    expect(walPeak).toBeLessThan(WAL_BOUND_BYTES)
    const metrics = await fetch(`${base}/metrics`).then((response) => response.text())
    // The gauges exist only once the worker has reported a pass.
    const frames = Number(/^ffos_database_wal_frames (\d+)$/m.exec(metrics)?.[1])
    expect(Number.isInteger(frames)).toBe(true)
    expect(frames).toBeLessThan(WAL_BOUND_BYTES / 4096)
    expect(Number(/^ffos_location_pings_ingested_total (\d+)$/m.exec(metrics)?.[1])).toBe(BATCHES * BATCH_PINGS)
    expect(log.matching(/checkpoint worker failed/)).toEqual([])
  }, 300_000)

  test('a PDF export is written with the embedded fonts and downloads as a PDF', async () => {
    const queued = await expectCall(base, 'GET', '/office/v1/export/submissions/pdf', 202, { token: owner })
    const id = queued.body.data.id as number
    let job: { status: string } = { status: 'queued' }
    for (let i = 0; i < 600 && (job.status === 'queued' || job.status === 'running'); i++) {
      await Bun.sleep(50)
      job = (await expectCall(base, 'GET', `/office/v1/export/jobs/${id}`, 200, { token: owner })).body.data
    }
    expect(job).toMatchObject({ status: 'done' })
    const file = await fetch(`${base}/office/v1/export/jobs/${id}/download`, { headers: { authorization: `Bearer ${owner}` } })
    expect(file.status).toBe(200)
    const bytes = new Uint8Array(await file.arrayBuffer())
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-')
  }, 60_000)

  test('`ffos backup FILE` while the server runs writes a copy that passes integrity_check; `ffos regional-export DIR` writes the tree', () => {
    const target = join(dataDir, 'backup.db')
    const made = run(['backup', target])
    expect(made.err).toBe('')
    expect(made.code).toBe(0)
    expect(made.out).toContain('integrity ok')
    const copy = new Sqlite(target, { readonly: true })
    try {
      expect(copy.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
      expect((copy.query('select count(*) as n from location_pings').get() as { n: number }).n).toBe(BATCHES * BATCH_PINGS)
    } finally {
      copy.close()
    }
    expect(run(['backup', target]).code).toBe(1)
    // Restore is refused while the server holds the database.
    expect(run(['restore', target]).err).toContain('stop the server')

    const tree = join(dataDir, 'regional')
    const exported = run(['regional-export', tree])
    expect(exported.code).toBe(0)
    expect(JSON.parse(exported.out)).toMatchObject({ provinces: 38, cities: 514, districts: 7_285, villages: 83_762 })
  }, 60_000)

  test('SIGTERM stops it with exit code 0; every line it wrote on stdout (LOG_LEVEL=warn) is JSON', async () => {
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    await stdoutDrained
    const notJson = stdoutLog.lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object'
      } catch {
        return true
      }
    })
    expect(notJson).toEqual([])
  }, 30_000)

  test('a remote libSQL URL loads the pure-JavaScript client (no native addon needed): it fails on the connection, not on a missing module', async () => {
    const port = await freePort()
    const remote = Bun.spawn([binary], {
      cwd: binDir,
      env: { ...env, PORT: String(await freePort()), DATABASE_URL: `http://127.0.0.1:${port}` },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [code, out, err] = await Promise.all([remote.exited, new Response(remote.stdout).text(), new Response(remote.stderr).text()])
    expect(code).not.toBe(0)
    expect(`${out}${err}`).not.toMatch(/Cannot find (module|package)|\.node\b|ERR_DLOPEN/i)
    expect(`${out}${err}`).toMatch(/ECONNREFUSED|Unable to connect|fetch failed|connect/i)
  }, 60_000)
})
