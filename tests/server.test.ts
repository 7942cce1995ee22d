/**
 * The real server on a free port, spoken to over HTTP, on both database drivers: the README's
 * promise that a fresh database serves the API end to end. And the real process (`bun src/server.ts`)
 * stopping on SIGTERM the way README.md describes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { shutdown } from '../src/shutdown'
import { createTestApp, type TestApp } from './harness'
import { placement } from '../scripts/lib/server-process'

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`HTTP end to end on ${driver}`, () => {
    let harness: TestApp
    let base: string

    beforeAll(async () => {
      harness = await createTestApp({ driver })
      harness.app.listen({ port: 0, hostname: '127.0.0.1' })
      base = `http://127.0.0.1:${harness.app.server!.port}/api`
    })
    afterAll(async () => {
      await harness.app.stop(true)
      await harness.close()
    })

    const call = async (method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      })
      const text = await response.text()
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null }
    }

    test('health, registration, master data, audit log and idempotency over a socket', async () => {
      const health = await call('GET', '/health')
      expect(health.body).toEqual({ success: true, message: 'Service is healthy', code: 'HEALTHY', data: { status: 'ok', db: 'ok' } })

      const registered = await call('POST', '/auth/register', {
        name: 'Rina',
        email: `rina-${driver}@example.com`,
        password: 'password123',
        workspace_name: 'Toko',
      })
      expect(registered.status).toBe(201)
      const token = registered.body.data.token

      const login = await call('POST', '/auth/login', { email: `rina-${driver}@example.com`, password: 'password123' }, undefined, {
        'user-agent': 'field-app/2.1',
      })
      expect(login.body.code).toBe('LOGIN_SUCCESS')

      const group = await call('POST', '/office/v1/outlets/channel-groups', { name: 'General Trade' }, token, { 'x-idempotency-key': 'key-1' })
      expect(group.status).toBe(201)
      const again = await call('POST', '/office/v1/outlets/channel-groups', { name: 'General Trade' }, token, { 'x-idempotency-key': 'key-1' })
      expect(again.status).toBe(204)
      expect(again.headers.get('x-idempotency-code')).toBe('IDEMPOTENT_DUPLICATE')

      const channel = await call('POST', '/office/v1/outlets/channels', { name: 'Warung', channel_group_id: group.body.data.id }, token)
      expect(channel.body.data.channel_group.name).toBe('General Trade')
      const list = await call('GET', '/office/v1/outlets/channels?keyword=war', undefined, token)
      expect(list.body.meta.total).toBe(1)

      const logs = await call('GET', '/office/v1/audit-logs?action=login', undefined, token)
      expect(logs.body.data.data[0].metadata).toMatchObject({ ip: '127.0.0.1', user_agent: 'field-app/2.1' })

      const missing = await call('GET', '/office/v1/outlets/channels/999', undefined, token)
      expect(missing.status).toBe(404)
      expect(missing.headers.get('x-request-id')).toBeString()
    })

    test('a body above the limit is refused by the server', async () => {
      const response = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'x@example.com', password: 'x'.repeat(11 * 1024 * 1024) }),
      })
      expect(response.status).toBe(413)
    })
  })
}

describe('graceful shutdown of the real process (SIGTERM)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-shutdown-'))
  const dbPath = join(dir, 'app.db')
  let server: ReturnType<typeof Bun.spawn> | null = null

  afterAll(() => {
    server?.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  /** Starts `bun src/server.ts` and resolves with its port once it logged that it listens. */
  async function start(): Promise<number> {
    server = Bun.spawn([process.execPath, 'src/server.ts'], {
      cwd: join(import.meta.dir, '..'),
      env: {
        ...process.env,
        NODE_ENV: 'production',
        ...placement(dbPath, 0),
        // Upstream mode: no prepared regional file opened on this first start.
        REGIONAL_SERVICE_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'info',
      },
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const reader = (server.stdout as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`the server exited before listening: ${text}`)
      text += decoder.decode(value)
      const started = text.split('\n').find((line) => line.includes('"server started"'))
      if (started) {
        // Keep draining stdout so the child never blocks on a full pipe.
        void (async () => {
          while (!(await reader.read()).done) {}
        })()
        return Number(new URL(JSON.parse(started).url).port)
      }
    }
  }

  /**
   * A raw HTTP request in flight: headers sent with `Expect: 100-continue`, and the body only once
   * `finish` is called. The server's `100 Continue` shows it is handling the request.
   */
  async function requestInFlight(port: number, path: string, body: string) {
    const socket: Socket = connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve())
      socket.once('error', reject)
    })
    let answer = ''
    const listeners = new Set<() => void>()
    socket.on('data', (chunk) => {
      answer += chunk.toString()
      for (const listener of listeners) listener()
    })
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        'Expect: 100-continue\r\nConnection: close\r\n\r\n',
    )
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!answer.startsWith('HTTP/1.1 100')) return
        listeners.delete(check)
        resolve()
      }
      listeners.add(check)
      void ended.then(() => reject(new Error(`closed before 100 Continue: ${answer}`)))
    })
    answer = ''
    return {
      async finish() {
        socket.write(body)
        await ended
        return answer
      },
      /** Sends only half the body: the request is in flight and can never finish. */
      async hang() {
        socket.write(body.slice(0, Math.floor(body.length / 2)))
        await ended
        return answer
      },
    }
  }

  test('a request that never finishes is cut at the drain deadline, and the database still closes checkpointed', async () => {
    const harness = await createTestApp()
    try {
      harness.app.listen({ port: 0, hostname: '127.0.0.1' })
      const port = harness.app.server!.port!
      const stuck = await requestInFlight(port, '/api/auth/login', JSON.stringify({ email: 'x@example.com', password: 'password123' }))
      const cut = stuck.hang()
      let jobsStopped = false
      const stop = async () => {
        jobsStopped = true
      }
      await shutdown({ app: harness.app, deps: harness.deps, jobs: { stop } }, 200)
      expect(jobsStopped).toBe(true)
      // The server closed the connection without an answer.
      expect(await cut).toBe('')
      const wal = join(harness.dir, 'app.db-wal')
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0)
    } finally {
      rmSync(harness.dir, { recursive: true, force: true })
    }
  }, 20_000)

  test('a job still running at shutdown is waited for before the database closes', async () => {
    const harness = await createTestApp()
    try {
      harness.app.listen({ port: 0, hostname: '127.0.0.1' })
      let jobsDone = false
      const doneAtClose: boolean[] = []
      const close = harness.deps.db.close
      harness.deps.db.close = async () => {
        doneAtClose.push(jobsDone)
        await close()
      }
      // A job that takes 50 ms to reach its next batch boundary.
      const stop = async () => {
        await Bun.sleep(50)
        jobsDone = true
      }
      await shutdown({ app: harness.app, deps: harness.deps, jobs: { stop } }, 2_000)
      expect(doneAtClose).toEqual([true])
    } finally {
      rmSync(harness.dir, { recursive: true, force: true })
    }
  }, 20_000)

  test('SIGTERM with a socket open and a request in flight: close 1001, the request answered, exit 0 within 5 s, WAL checkpointed', async () => {
    const port = await start()
    const base = `http://127.0.0.1:${port}/api`
    expect((await fetch(`${base}/health`)).status).toBe(200)
    const credentials = { email: 'stop@example.com', password: 'password123' }
    const registered = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stop', workspace_name: 'Stop', ...credentials }),
    })
    expect(registered.status).toBe(201)
    const { token } = (await registered.json()).data

    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`)
    await new Promise((resolve, reject) => {
      socket.onopen = resolve
      socket.onerror = reject
    })
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      socket.onclose = (event) => resolve({ code: event.code, reason: event.reason })
    })
    const login = await requestInFlight(port, '/api/auth/login', JSON.stringify(credentials))
    const exited = server!.exited

    const signalled = performance.now()
    server!.kill('SIGTERM')
    const timedOut = Bun.sleep(3_000).then(() => ({ code: -1, reason: 'not closed by the server' }))
    expect(await Promise.race([closed, timedOut])).toEqual({ code: 1001, reason: 'going away' })
    // No new connections once stopping.
    expect(
      await fetch(`${base}/health`).then(
        () => 'answered',
        () => 'refused',
      ),
    ).toBe('refused')
    // The request in flight still gets its answer, and its writes reach the database.
    const answer = await login.finish()
    expect(answer).toStartWith('HTTP/1.1 200')
    expect(answer).toContain('LOGIN_SUCCESS')

    const outcome = await Promise.race([exited, Bun.sleep(6_000).then(() => 'still running')])
    expect(outcome).toBe(0)
    expect(performance.now() - signalled).toBeLessThan(5_000)

    // Checkpointed: the WAL is gone or empty, the file is sound, and the last login is in it.
    const wal = `${dbPath}-wal`
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0)
    const db = new Database(dbPath, { readonly: true })
    try {
      expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
      expect(db.query("SELECT count(*) AS n FROM audit_logs WHERE action = 'login'").get()).toEqual({ n: 1 })
    } finally {
      db.close()
    }
  }, 20_000)
})

/**
 * Starts `bun src/server.ts` with `env` (on a fresh data directory unless env says otherwise) and
 * resolves once it either exited or logged "server started"; the caller stops a started one.
 */
async function bootServer(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-boot-'))
  const proc = Bun.spawn([process.execPath, 'src/server.ts'], {
    cwd: join(import.meta.dir, '..'),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ...placement(join(dir, 'app.db'), 0),
      // Upstream mode: no prepared regional file opened on a first start.
      REGIONAL_SERVICE_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let stdout = ''
  let stderr = ''
  const decoder = new TextDecoder()
  const readAll = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }))
  }
  const outDone = readAll(proc.stdout as ReadableStream<Uint8Array>, (text) => {
    stdout += text
  })
  const errDone = readAll(proc.stderr as ReadableStream<Uint8Array>, (text) => {
    stderr += text
  })
  // A bound for a start that neither fails nor serves (the code before the fix), not a timing assertion.
  for (let waited = 0; waited < 30_000 && proc.exitCode === null && !stdout.includes('"server started"'); waited += 25) await Bun.sleep(25)
  if (proc.exitCode !== null) await Promise.all([outDone, errDone])
  const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '')
  return {
    proc,
    dir,
    exitCode: proc.exitCode,
    stdoutLines: () => lines(stdout),
    stderrLines: () => lines(stderr),
    port: () => Number(new URL(JSON.parse(lines(stdout).find((line) => line.includes('"server started"'))!).url).port),
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      await proc.exited
      await Promise.all([outDone, errDone])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

describe('a refused start is one JSON line naming the setting, and exit code 1 (no stack trace)', () => {
  test('a second server on a taken PORT exits 1 with a line naming PORT; the first keeps serving every request', async () => {
    const first = await bootServer({})
    let second: Awaited<ReturnType<typeof bootServer>> | null = null
    try {
      expect(first.exitCode).toBeNull()
      const port = first.port()
      second = await bootServer({ PORT: String(port) })
      expect(second.exitCode).toBe(1)
      const [line, ...rest] = second.stderrLines()
      expect(rest).toEqual([])
      expect(JSON.parse(line!)).toMatchObject({ level: 'error', setting: 'PORT' })
      expect(JSON.parse(line!).message).toContain(`PORT ${port} is already in use`)
      expect(second.stdoutLines()).toEqual([])
      // The first one answers all of them (with a shared port some would have gone to the second process).
      for (let i = 0; i < 20; i++) expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200)
    } finally {
      await second?.stop()
      await first.stop()
    }
  }, 60_000)

  test('a start that runs but would surprise an operator warns in one JSON line each: PUBLIC_URL on localhost in production, /api/metrics open on a public interface', async () => {
    // Each server is stopped before its output is read, so every line it wrote is there.
    const boot = await bootServer({ NODE_ENV: 'production', HOST: '0.0.0.0' })
    const bootRan = boot.exitCode === null
    await boot.stop()
    expect(bootRan).toBe(true)
    // Stopped by its handler, not killed: "server started" is the last line of a start, written once the
    // signals are handled (a SIGTERM right after it once found no handler and took the warnings with it).
    expect(boot.proc.exitCode).toBe(0)
    expect(boot.stdoutLines().some((line) => line.includes('"server stopped"'))).toBe(true)
    // Only the start-up warnings (they name a setting): a loaded machine may add a shutdown line of its own.
    const startupLines = (lines: string[]) => lines.map((line) => JSON.parse(line)).filter((line) => 'setting' in line)
    expect(boot.stdoutLines().some((line) => line.includes('"server started"'))).toBe(true)
    const warnings = startupLines(boot.stderrLines())
    expect(warnings.map((line) => [line.level, line.setting])).toEqual([
      ['warn', 'PUBLIC_URL'],
      ['warn', 'METRICS_TOKEN'],
    ])
    const quiet = await bootServer({ NODE_ENV: 'production', HOST: '127.0.0.1', PUBLIC_URL: 'https://ops.example.com' })
    const quietRan = quiet.exitCode === null
    await quiet.stop()
    expect(quietRan).toBe(true)
    expect(quiet.stdoutLines().some((line) => line.includes('"server started"'))).toBe(true)
    expect(startupLines(quiet.stderrLines())).toEqual([])
  }, 60_000)

  for (const setting of ['DATABASE_URL', 'UPLOAD_DIR', 'EXPORT_DIR'] as const) {
    test(`${setting} under a regular file (uncreatable, also for root) → exit 1 with one line naming ${setting}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ffos-blocked-'))
      const blocker = join(dir, 'file.txt')
      writeFileSync(blocker, 'in the way')
      const value = setting === 'DATABASE_URL' ? `file:${join(blocker, 'data', 'app.db')}` : join(blocker, 'dir')
      const boot = await bootServer({ [setting]: value })
      try {
        expect(boot.exitCode).toBe(1)
        const lines = boot.stderrLines()
        expect(lines).toHaveLength(1)
        const logged = JSON.parse(lines[0]!)
        expect(logged).toMatchObject({ level: 'error', setting })
        expect(logged.message).toStartWith(`${setting}: the directory ${join(blocker, setting === 'DATABASE_URL' ? 'data' : 'dir')} cannot be created (ENOTDIR`)
        expect(boot.stdoutLines()).toEqual([])
      } finally {
        await boot.stop()
        rmSync(dir, { recursive: true, force: true })
      }
    }, 60_000)
  }
})

describe('a body over 10 MiB: the 413 reaches the client every time (the rest of the body is read and discarded, not reset)', () => {
  /**
   * One client in another process: writes the headers and all 12 MiB, then reads. Closing the socket
   * while it still sends would reset the connection and drop the unread 413 (`EPIPE`, `ECONNRESET`).
   * Node's own net module runs it when `node` is installed (it met the reset almost every time);
   * otherwise Bun runs the same script.
   */
  const CLIENT = `
    import { connect } from 'node:net'
    const [mode, port, attempts] = process.argv.slice(-3)
    const chunked = mode === 'chunked'
    const body = Buffer.alloc(12 * 1024 * 1024, 'x')
    const head = chunked ? 'Transfer-Encoding: chunked' : 'Content-Length: ' + body.length
    const results = []
    for (let i = 0; i < Number(attempts); i++) {
      results.push(await new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: Number(port) })
        let answer = ''
        let error = null
        socket.on('data', (chunk) => { answer += chunk })
        socket.on('error', (e) => { error = e.code ?? e.message })
        socket.on('close', () => resolve({ error, answer }))
        socket.write('POST /api/auth/login HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\n' + head + '\\r\\n\\r\\n')
        if (!chunked) socket.write(body)
        else for (let at = 0; at < body.length; at += 1024 * 1024) socket.write((1024 * 1024).toString(16) + '\\r\\n' + body.subarray(at, at + 1024 * 1024) + '\\r\\n')
        if (chunked) socket.write('0\\r\\n\\r\\n')
        socket.end()
      }))
    }
    console.log(JSON.stringify(results))
  `

  test('20 times 12 MiB with a Content-Length and 20 times chunked, from a separate client process: 40 envelopes with X-Request-Id, no EPIPE or reset', async () => {
    const { startServer, tempDir } = await import('../scripts/lib/server-process')
    const data = tempDir('ffos-413-')
    const server = await startServer({ dbPath: join(data.dir, 'app.db'), env: { REGIONAL_SERVICE_URL: 'http://127.0.0.1:9' } })
    try {
      const script = join(data.dir, 'client.mjs')
      writeFileSync(script, CLIENT)
      const runtime = Bun.which('node') ?? process.execPath
      const results: { error: string | null; answer: string }[] = []
      for (const mode of ['content-length', 'chunked']) {
        const client = Bun.spawn([runtime, script, mode, String(server.port), '20'], { stdout: 'pipe', stderr: 'pipe' })
        const [out, err, code] = await Promise.all([new Response(client.stdout).text(), new Response(client.stderr).text(), client.exited])
        expect(err).toBe('')
        expect(code).toBe(0)
        results.push(...JSON.parse(out))
      }
      const failures = results
        .map((result, attempt) => ({ attempt, ...result }))
        .filter(
          ({ error, answer }) =>
            error !== null || !answer.startsWith('HTTP/1.1 413') || !/\r\nx-request-id: /i.test(answer) || !answer.includes('"code":"PAYLOAD_TOO_LARGE"'),
        )
        .map(({ attempt, error, answer }) => `attempt ${attempt}: ${error ?? ''} ${answer.slice(0, 60)}`)
      expect(failures).toEqual([])
      expect(results).toHaveLength(40)
    } finally {
      await server.stop()
      data.remove()
    }
  }, 120_000)
})
