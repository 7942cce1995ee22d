/**
 * `bun scripts/measure-rss.ts [--small | --budget=MiB] [--batches=N] [--outlets=N] [--rows=N] [--phases=abcd] [--no-socket] [--trace] [COMMAND…]` —
 * the memory of a server process, phase by phase, from /proc (`VmRSS` now and `VmHWM`, the high-water
 * mark of that phase: it is reset between phases by writing 5 to /proc/PID/clear_refs), in MiB:
 *   a. first start   an empty data directory to healthy (migrations, the regional data)
 *   b. ingest        a live-map WebSocket opened by the owner and read throughout, then `--batches`
 *                    (6,000) location batches of 20 pings from 8 concurrent clients
 *   c. search        `--outlets` (200,000) outlets written straight into the data file by this process
 *                    (one transaction; the database's triggers fill the keyword index), then keyword
 *                    searches: an indexed one (≥ 3 characters), a scanned one (2), one matching most rows
 *   d. pdf export    `--rows` (3,000) visits with a submission each written likewise, then a PDF export
 *                    of submissions requested, awaited and downloaded
 * One JSON line per phase, then a table. Without COMMAND it measures `npm start`'s process
 * (`bun src/server.ts`); `bun scripts/measure-rss.ts dist/ffos` measures the executable (`npm run build`).
 * `--small` runs the server with MEMORY_BUDGET_MB=128 (README.md "Memory"), `--budget=N` with N;
 * otherwise MEMORY_BUDGET_MB and SQLITE_CACHE_MB are passed through from this environment.
 * Each phase line also carries the server's own view (`/api/metrics`): the JavaScript heap and the
 * replay log's bytes. Figures go to docs/PERFORMANCE.md "Memory budget" and README.md "Memory".
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, placement, ROOT } from './lib/server-process'

const args = process.argv.slice(2)
const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1]
const commandArgs = args.filter((arg) => !arg.startsWith('--'))
const command = commandArgs.length > 0 ? commandArgs : [process.execPath, 'src/server.ts']
const budget = args.includes('--small') ? '128' : (option('budget') ?? process.env.MEMORY_BUDGET_MB)
const BATCHES = Number(option('batches') ?? 6_000)
const OUTLETS = Number(option('outlets') ?? 200_000)
const ROWS = Number(option('rows') ?? 3_000)
const CLIENTS = 8
/** `--phases=ab` runs only those (a always runs: it is the start). */
const PHASES = option('phases') ?? 'abcd'
const TRACE = args.includes('--trace')

function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  const mib = (key: string) => Math.round(kib(key) / 102.4) / 10
  // RssAnon: the heaps (JavaScript, the allocator's, SQLite's caches); RssFile: mapped files (the code);
  // RssShmem: shared mappings (SQLite's WAL index).
  return { rssMiB: mib('VmRSS'), hwmMiB: mib('VmHWM'), anonMiB: mib('RssAnon'), fileMiB: mib('RssFile'), shmemMiB: mib('RssShmem') }
}

/** Starts the next phase's high-water mark at the current RSS (Linux ≥ 4.0). */
function resetPeak(pid: number) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

const dataDir = mkdtempSync(join(tmpdir(), 'ffos-rss-'))
const dbPath = join(dataDir, 'app.db')
const port = await freePort()
const base = `http://127.0.0.1:${port}/api`
const server = Bun.spawn(command, {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...placement(dbPath, port),
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL: '2h',
    ...(budget ? { MEMORY_BUDGET_MB: budget } : {}),
    ...(process.env.SQLITE_CACHE_MB ? { SQLITE_CACHE_MB: process.env.SQLITE_CACHE_MB } : {}),
    // Without the embedded regional data's first load (an upstream URL the phases never call): the first
    // start as it will be once that data is a prepared file attached at start.
    ...(process.env.REGIONAL_SERVICE_URL ? { REGIONAL_SERVICE_URL: process.env.REGIONAL_SERVICE_URL } : {}),
    // The allocator's and the JavaScript engine's own knobs, for experiments (docs/PERFORMANCE.md "Memory budget").
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('BUN_JSC_') || key.startsWith('MIMALLOC_'))),
  },
  stdout: 'ignore',
  stderr: 'inherit',
})

const setting = budget ? `MEMORY_BUDGET_MB=${budget}` : process.env.SQLITE_CACHE_MB ? `SQLITE_CACHE_MB=${process.env.SQLITE_CACHE_MB}` : 'defaults'
const rows: Record<string, unknown>[] = []

/** The server's own figures: JavaScript heap, external memory and the replay log. */
async function serverView() {
  const text = await fetch(`${base}/metrics`).then(
    (r) => r.text(),
    () => '',
  )
  const metric = (name: string) => {
    const value = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text)?.[1]
    return value === undefined ? null : Math.round(Number(value) / 104857.6) / 10
  }
  return {
    heapUsedMiB: metric('nodejs_heap_size_used_bytes'),
    heapTotalMiB: metric('nodejs_heap_size_total_bytes'),
    externalMiB: metric('nodejs_external_memory_bytes'),
    replayLogMiB: metric('ffos_replay_log_bytes'),
  }
}

async function phase(name: string, run: () => Promise<Record<string, unknown> | undefined>) {
  if (!PHASES.includes(name[0])) return
  resetPeak(server.pid)
  const started = performance.now()
  // When in the phase the resident memory was highest (sampled every 50 ms): at its start (code
  // compiled, caches filled), or growing throughout.
  // With `--trace`, also the split and the server's view at that sample (a request to /api/metrics per
  // new highest sample: it adds a little load, so the figures of the table are taken without it).
  let sampled = { rss: 0, at: 0 }
  let atPeak: Record<string, unknown> = {}
  const sampler = setInterval(() => {
    const now = memory(server.pid)
    if (now.rssMiB > sampled.rss) {
      sampled = { rss: now.rssMiB, at: Math.round((performance.now() - started) / 100) / 10 }
      if (TRACE) void serverView().then((view) => (atPeak = { anonMiB: now.anonMiB, fileMiB: now.fileMiB, ...view }))
    }
  }, 50)
  const extra = (await run().finally(() => clearInterval(sampler))) ?? {}
  const row = {
    phase: name,
    ...memory(server.pid),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    highestSampledAt: sampled.at,
    ...(TRACE ? { atPeak } : {}),
    ...extra,
    ...(await serverView()),
    setting,
    command: command.join(' '),
  }
  rows.push(row)
  console.log(JSON.stringify(row))
}

type Reply = { status: number; body: any }
const request = (method: string, path: string, body?: unknown, token?: string, key?: string): Promise<Reply> =>
  fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(key ? { 'x-idempotency-key': key } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }))
const post = (path: string, body: unknown, token?: string, key?: string) => request('POST', path, body, token, key)
const get = (path: string, token: string) => request('GET', path, undefined, token)
function expectStatus(what: string, reply: Reply, status: number) {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body
}

let socket: WebSocket | null = null
try {
  // a. First start.
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
  // The first start's own peak: nothing was reset since the process began.
  const first = {
    phase: 'a first start',
    ...memory(server.pid),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    ...(await serverView()),
    setting,
    command: command.join(' '),
  }
  rows.push(first)
  console.log(JSON.stringify(first))

  const owner = expectStatus(
    'register',
    await post('/auth/register', { name: 'Owner', email: 'owner@example.com', password: 'password123', workspace_name: 'RSS' }),
    201,
  )
  const token = owner.data.token as string
  const workspaceId = owner.data.workspace?.id ?? owner.data.user?.workspace_id ?? 1
  const roles = expectStatus('roles', await get('/office/v1/roles', token), 200)
  const userRole = roles.data.find((role: { slug: string }) => role.slug === 'user').id
  expectStatus('user', await post('/office/v1/users', { name: 'Field', email: 'field@example.com', password: 'password123', role_id: userRole }, token), 201)
  const field = expectStatus('login', await post('/auth/login', { email: 'field@example.com', password: 'password123' }), 200).data.token as string

  // b. Ingest with the office's live map open and read.
  await phase('b ingest + socket', async () => {
    let received = 0
    let receivedBytes = 0
    if (args.includes('--no-socket')) socket = null
    else socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`)
    if (socket)
      socket.onmessage = (event) => {
        received += 1
        receivedBytes += String(event.data).length
      }
    await new Promise<void>((resolve, reject) => {
      if (!socket) return resolve()
      socket!.onopen = () => resolve()
      socket!.onerror = () => reject(new Error('the socket did not open'))
    })
    let next = 0
    const t0 = Date.now() - BATCHES * 20 * 1000
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let batch = next++; batch < BATCHES; batch = next++) {
          const pings = Array.from({ length: 20 }, (_, i) => ({
            lat: -6.2 + (batch * 20 + i) * 1e-5,
            lng: 106.8,
            is_mock: false,
            recorded_at: new Date(t0 + (batch * 20 + i) * 1000).toISOString(),
          }))
          expectStatus(`batch ${batch}`, await post('/app/v1/locations/batch', { pings }, field, crypto.randomUUID()), 201)
        }
      }),
    )
    // Until the socket has read what was pushed (or a little longer, if some was never sent).
    for (let wait = 0; socket && received < BATCHES * 20 && wait < 100; wait++) await Bun.sleep(50)
    return { batches: BATCHES, socketMessages: received, socketMiB: Math.round(receivedBytes / 104857.6) / 10 }
  })

  // c. Keyword search over many outlets, written straight into the file.
  await phase('c search', async () => {
    const seeding = performance.now()
    const db = new Database(dbPath)
    db.run('PRAGMA busy_timeout = 10000')
    const now = new Date().toISOString()
    const insert = db.prepare(
      'INSERT INTO outlets (workspace_id, name, name_key, code, code_key, address, latitude, longitude, is_active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)',
    )
    const words = ['Toko', 'Warung', 'Kios', 'Apotek', 'Minimarket', 'Grosir']
    const streets = ['Merdeka', 'Sudirman', 'Thamrin', 'Gatot Subroto', 'Diponegoro', 'Ahmad Yani']
    db.transaction(() => {
      for (let i = 0; i < OUTLETS; i++) {
        const name = `${words[i % words.length]} ${streets[(i * 7) % streets.length]} ${i}`
        const code = `OUT-${String(i).padStart(6, '0')}`
        insert.run(
          workspaceId,
          name,
          name.toLowerCase(),
          code,
          code.toLowerCase(),
          `Jl. ${streets[i % streets.length]} No. ${i % 500}`,
          -6.2 + (i % 1000) * 1e-4,
          106.8,
          now,
          now,
        )
      }
    })()
    db.close()
    const seedSeconds = Math.round((performance.now() - seeding) / 100) / 10
    // Only what the server does from here counts in this phase.
    resetPeak(server.pid)
    const searches: Record<string, number> = {}
    for (const keyword of ['sudirman 1234', 'merdeka', '99', 'o', 'toko']) {
      const body = expectStatus(`search ${keyword}`, await get(`/office/v1/outlets?keyword=${encodeURIComponent(keyword)}&limit=50`, token), 200)
      searches[keyword] = body.meta?.total ?? body.data.length
    }
    return { outlets: OUTLETS, seedSeconds, searches }
  })

  // d. A PDF export of submissions, written straight into the file likewise.
  await phase('d pdf export', async () => {
    const project = expectStatus('project', await post('/office/v1/projects', { name: 'RSS project' }, token), 201).data.id as number
    const form = expectStatus(
      'form',
      await post('/office/v1/forms', { title: 'RSS form', fields: [{ key: 'notes', label: 'Notes', type: 'text' }] }, token),
      201,
    ).data.id as number
    const db = new Database(dbPath)
    db.run('PRAGMA busy_timeout = 10000')
    const now = new Date().toISOString()
    const day = now.slice(0, 10)
    db.transaction(() => {
      db.run(
        `INSERT INTO visits (workspace_id, outlet_id, project_id, visit_date, status, source, created_at, updated_at)
         SELECT workspace_id, id, ?, ?, 'scheduled', 'manual', ?, ? FROM outlets WHERE workspace_id = ? ORDER BY id LIMIT ?`,
        [project, day, now, now, workspaceId, ROWS],
      )
      db.run(
        `INSERT INTO submissions (workspace_id, visit_id, form_id, title, is_required, "order", status, answers, submitted_at, created_at, updated_at)
         SELECT workspace_id, id, ?, 'RSS form', 0, 0, 'submitted', '{"notes":"A note of a few words about the shelf"}', ?, ?, ? FROM visits WHERE project_id = ?`,
        [form, now, now, now, project],
      )
    })()
    db.close()
    resetPeak(server.pid)
    const job = expectStatus('export', await get('/office/v1/export/submissions/pdf', token), 202).data.id as number
    let status = 'queued'
    for (let wait = 0; status !== 'done' && status !== 'failed' && wait < 2_400; wait++) {
      await Bun.sleep(50)
      status = expectStatus('job', await get(`/office/v1/export/jobs/${job}`, token), 200).data.status
    }
    if (status !== 'done') throw new Error(`export job ${job}: ${status}`)
    const file = await fetch(`${base}/office/v1/export/jobs/${job}/download`, { headers: { authorization: `Bearer ${token}` } })
    const bytes = (await file.arrayBuffer()).byteLength
    return { submissions: ROWS, pdfKiB: Math.round(bytes / 1024) }
  })

  const overall = memory(server.pid)
  console.log(`\n${setting} · ${command.join(' ')}`)
  console.log('| phase | VmRSS MiB | VmHWM MiB (phase) | s | JS heap used MiB | replay log MiB |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const row of rows)
    console.log(`| ${row.phase} | ${row.rssMiB} | ${row.hwmMiB} | ${row.seconds} | ${row.heapUsedMiB ?? '–'} | ${row.replayLogMiB ?? '–'} |`)
  console.log(`| highest phase peak | | ${Math.max(...rows.map((row) => row.hwmMiB as number))} | | | |`)
  void overall
} finally {
  ;(socket as WebSocket | null)?.close()
  server.kill('SIGTERM')
  await server.exited
  rmSync(dataDir, { recursive: true, force: true })
}
