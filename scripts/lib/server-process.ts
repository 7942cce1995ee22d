/**
 * The real server as a child process, and the HTTP plumbing the durability scripts share
 * (scripts/crash.ts, scripts/concurrency.ts, tests/durability.test.ts): start `bun src/server.ts`
 * on a database file, kill it with SIGKILL or stop it with SIGTERM, call it with idempotency keys and
 * request ids, and set up a workspace with field users and visits over HTTP only.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Subprocess } from 'bun'

export const ROOT = new URL('../..', import.meta.url).pathname

export function tempDir(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

/** Lines the server wrote (stdout and stderr), newest kept; scanned for SQLite lock errors. */
export class ServerLog {
  readonly lines: string[] = []
  constructor(private readonly max = 2_000) {}

  push(chunk: string) {
    for (const line of chunk.split('\n')) {
      if (!line.trim()) continue
      this.lines.push(line)
      if (this.lines.length > this.max) this.lines.shift()
    }
  }

  matching(pattern: RegExp) {
    return this.lines.filter((line) => pattern.test(line))
  }

  tail(count = 20) {
    return this.lines.slice(-count).join('\n')
  }
}

/** Anything that means SQLite refused a lock: must never reach a client or the log. */
export const LOCK_ERROR = /SQLITE_BUSY|SQLITE_LOCKED|database is locked|database table is locked/i

export interface ServerHandle {
  readonly proc: Subprocess
  readonly pid: number
  readonly port: number
  /** `http://127.0.0.1:PORT/api` */
  readonly base: string
  readonly log: ServerLog
  /** SIGKILL, then wait for the process to be gone. */
  kill9(): Promise<void>
  /** SIGTERM (clean shutdown), then wait; returns the exit code. */
  stop(): Promise<number>
}

/**
 * The settings that place a server: listening on 127.0.0.1:`port` (0: any), its database file `dbPath`,
 * its uploads and exports beside that file.
 */
export function placement(dbPath: string, port: number | string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `file:${dbPath}`,
    UPLOAD_DIR: join(dirname(dbPath), 'uploads'),
    EXPORT_DIR: join(dirname(dbPath), 'exports'),
  }
}

export interface StartOptions {
  dbPath: string
  env?: Record<string, string>
  startTimeoutMs?: number
  log?: ServerLog
  /** Runs the server under this command (e.g. `strace … --`). */
  prefix?: string[]
}

async function drain(stream: ReadableStream<Uint8Array>, log: ServerLog) {
  const decoder = new TextDecoder()
  let pending = ''
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true })
    const cut = pending.lastIndexOf('\n')
    if (cut >= 0) {
      log.push(pending.slice(0, cut))
      pending = pending.slice(cut + 1)
    }
  }
  if (pending) log.push(pending)
}

/**
 * Starts `bun src/server.ts` on `dbPath` (PORT, HOST=127.0.0.1, LOG_LEVEL=warn, NODE_ENV=production)
 * and resolves once GET /api/health answers 200. Throws with the server's output if it exits or does
 * not come up in time.
 */
export async function startServer(options: StartOptions): Promise<ServerHandle> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startServerOnce(options)
    } catch (error) {
      // Another process took the free port between freePort() and the server's bind: try another.
      if (attempt >= 3 || !/EADDRINUSE|address already in use|Is port \d+ in use/i.test(String((error as Error).message))) throw error
    }
  }
}

async function startServerOnce(options: StartOptions): Promise<ServerHandle> {
  const port = await freePort()
  const log = options.log ?? new ServerLog()
  const proc = Bun.spawn([...(options.prefix ?? []), process.execPath, join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...placement(options.dbPath, port),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ACCESS_TOKEN_TTL: '2h',
      ...options.env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const drained = Promise.all([drain(proc.stdout as ReadableStream<Uint8Array>, log), drain(proc.stderr as ReadableStream<Uint8Array>, log)]).catch(
    () => undefined,
  )
  const base = `http://127.0.0.1:${port}/api`
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000)
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await drained
      throw new Error(`server exited during start (code ${proc.exitCode}, signal ${proc.signalCode}):\n${log.tail()}`)
    }
    try {
      const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) })
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`server did not answer /api/health within ${options.startTimeoutMs ?? 60_000} ms:\n${log.tail()}`)
    }
    await Bun.sleep(25)
  }
  return {
    proc,
    pid: proc.pid,
    port,
    base,
    log,
    kill9: async () => {
      proc.kill('SIGKILL')
      await proc.exited
      await drained
    },
    stop: async () => {
      proc.kill('SIGTERM')
      const code = await proc.exited
      await drained
      return code
    },
  }
}

export interface CallOptions {
  /** An object is sent as JSON; a string is sent as given (so a retry sends the same bytes). */
  body?: unknown
  token?: string
  idempotencyKey?: string
  requestId?: string
  timeoutMs?: number
}

export interface CallResult {
  status: number
  headers: Headers
  text: string
  body: any
}

/** One HTTP call. Throws on a connection error (refused, reset, timeout): the caller decides. */
export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = {}
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.token) headers.authorization = `Bearer ${options.token}`
  if (options.idempotencyKey) headers['x-idempotency-key'] = options.idempotencyKey
  if (options.requestId) headers['x-request-id'] = options.requestId
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  })
  const text = await response.text()
  let body: any = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = null
  }
  return { status: response.status, headers: response.headers, text, body }
}

/** Like `call`, but anything other than the expected status throws with the answer. */
export async function expectCall(base: string, method: string, path: string, status: number, options: CallOptions = {}) {
  const result = await call(base, method, path, options)
  if (result.status !== status) throw new Error(`${method} ${path} answered ${result.status} (expected ${status}): ${result.text.slice(0, 500)}`)
  return result
}

export interface FieldUser {
  id: number
  name: string
  email: string
  token: string
  /** Visits assigned to this user only, scheduled, in creation order. */
  visitIds: number[]
}

export interface FieldWorkspace {
  workspaceId: number
  ownerToken: string
  ownerId: number
  outletId: number
  projectId: number
  users: FieldUser[]
}

/**
 * Over HTTP only: registers a workspace owner, creates an outlet and a project without forms (so a
 * check-out needs no submission), `fieldUsers` users with the built-in `user` role (location:create,
 * visit:execute on mobile), logs them in, and plans `visitsPerUser` visits for each.
 */
export async function setupFieldWorkspace(base: string, options: { fieldUsers: number; visitsPerUser: number; tag?: string }): Promise<FieldWorkspace> {
  const tag = options.tag ?? 'dur'
  const registered = await expectCall(base, 'POST', '/auth/register', 201, {
    body: { name: 'Durability Owner', email: `owner-${tag}@example.com`, password: 'password123', workspace_name: `Durability ${tag}` },
  })
  const ownerToken = registered.body.data.token as string
  const workspaceId = registered.body.data.user.workspace_id as number
  const ownerId = registered.body.data.user.id as number
  const owner = { token: ownerToken }
  const outlet = await expectCall(base, 'POST', '/office/v1/outlets', 201, {
    ...owner,
    body: { name: 'Toko Durable', code: `DUR-${tag}`, latitude: -6.2, longitude: 106.8 },
  })
  const project = await expectCall(base, 'POST', '/office/v1/projects', 201, { ...owner, body: { name: 'Durability project', code: `P-${tag}` } })
  const roles = await expectCall(base, 'GET', '/office/v1/roles', 200, owner)
  const roleId = (roles.body.data as { id: number; slug: string }[]).find((role) => role.slug === 'user')!.id

  const users: FieldUser[] = []
  // Password hashing is the slow part; two at a time keeps both cores busy without starving the server.
  const indexes = Array.from({ length: options.fieldUsers }, (_, index) => index)
  for (let start = 0; start < indexes.length; start += 2) {
    const created = await Promise.all(
      indexes.slice(start, start + 2).map(async (index) => {
        const email = `field-${tag}-${index}@example.com`
        const name = `Field ${index}`
        const made = await expectCall(base, 'POST', '/office/v1/users', 201, { ...owner, body: { name, email, password: 'password123', role_id: roleId } })
        const login = await expectCall(base, 'POST', '/auth/login', 200, { body: { email, password: 'password123' } })
        return { id: made.body.data.id as number, name, email, token: login.body.data.token as string, visitIds: [] as number[] }
      }),
    )
    users.push(...created)
  }

  for (const user of users) {
    for (let planned = 0; planned < options.visitsPerUser; planned += 500) {
      const count = Math.min(500, options.visitsPerUser - planned)
      const visits = Array.from({ length: count }, () => ({
        outlet_id: outlet.body.data.id,
        project_id: project.body.data.id,
        visit_date: '2026-11-22',
        user_ids: [user.id],
      }))
      const bulk = await expectCall(base, 'POST', '/office/v1/visits/bulk', 201, { ...owner, body: { visits } })
      user.visitIds.push(...(bulk.body.data.ids as number[]))
    }
  }
  return { workspaceId, ownerToken, ownerId, outletId: outlet.body.data.id, projectId: project.body.data.id, users }
}
