/**
 * Test harness: a real app on a real SQLite file in a temporary directory, driven in-process with
 * `app.handle(new Request(...))`, plus factories that build workspaces and users through the API.
 * One harness per test file (`useTestApp()` wires beforeAll/afterAll).
 */
import { afterAll, beforeAll } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, type App } from '../src/app'
import { loadConfig } from '../src/config/env'
import { openDatabase } from '../src/db/client'
import { ManualClock, type Clock } from '../src/lib/clock'
import type { Deps, ModuleServices } from '../src/platform/context'
import type { Logger } from '../src/platform/logger'
import { HOUR_MS, RequestLimiter } from '../src/platform/rate-limit'

export interface HarnessOptions {
  driver?: 'bun-sqlite' | 'libsql'
  env?: Record<string, string>
  /** A ManualClock by default, starting at the real current time, so tests can move time. */
  clock?: Clock
  /** Where the app logs (silent by default). */
  logger?: Logger
  /**
   * Keep the forgot-password limits (3 per email, 20 per IP per hour). Off by default: in-process
   * requests all come from one unknown IP, and suites mint many reset tokens for one owner. (The
   * register limit and the per-IP limit of failed password checks are off by default through
   * REGISTER_LIMIT_PER_HOUR=0 and PASSWORD_FAILURES_PER_IP=0 in `env`; pass another value to keep them.)
   */
  forgotPasswordLimits?: boolean
  /** Module services given instead of the modules' own (the Web Push host resolver of tests/push.test.ts). */
  services?: Partial<ModuleServices>
}

export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface RequestOptions {
  token?: string
  body?: unknown
  /** Sent as is (for malformed JSON and wrong content types). */
  raw?: string
  headers?: Record<string, string>
  idempotencyKey?: string
}

export interface Session {
  token: string
  refresh_token: string
  user: { id: number; email: string; name: string; role: string; workspace_id: number; timezone: string }
}

export interface Workspace {
  id: number
  owner: Session
  /** Role ids by slug. */
  roles: Record<string, number>
}

let sequence = 0
export const unique = (prefix = 'x') => `${prefix}-${process.pid}-${++sequence}`

export class TestApp {
  constructor(
    readonly app: App,
    readonly deps: Deps,
    readonly dir: string,
    readonly clock: Clock,
  ) {}

  get db() {
    return this.deps.db
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers }
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.idempotencyKey) headers['x-idempotency-key'] = options.idempotencyKey
    const response = await this.app.handle(new Request(`http://localhost/api${path}`, { method, body, headers }))
    const text = await response.text()
    let parsed: unknown = null
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      parsed = null
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text }
  }

  get = (path: string, options?: RequestOptions) => this.request('GET', path, options)
  post = (path: string, body?: unknown, options?: RequestOptions) => this.request('POST', path, { ...options, body })
  put = (path: string, body?: unknown, options?: RequestOptions) => this.request('PUT', path, { ...options, body })
  delete = (path: string, options?: RequestOptions) => this.request('DELETE', path, options)

  /** Registers a new workspace (in `timezone` when given); its owner is a super_admin. */
  async workspace(name = unique('Workspace'), options: { timezone?: string } = {}): Promise<Workspace> {
    const email = `${unique('owner')}@example.com`
    const reply = await this.post('/auth/register', { name: `Owner of ${name}`, email, password: 'password123', workspace_name: name, ...options })
    if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${reply.text}`)
    const owner = reply.body.data as Session
    const roles = await this.get('/office/v1/roles', { token: owner.token })
    return {
      id: owner.user.workspace_id,
      owner,
      roles: Object.fromEntries(roles.body.data.map((role: { slug: string; id: number }) => [role.slug, role.id])),
    }
  }

  /** Creates a user with a role (slug or id) in the workspace and logs them in. */
  async member(workspace: Workspace, role: string | number, overrides: { name?: string; email?: string } = {}): Promise<Session> {
    const email = overrides.email ?? `${unique(String(role))}@example.com`
    const roleId = typeof role === 'number' ? role : workspace.roles[role]
    const created = await this.post(
      '/office/v1/users',
      { name: overrides.name ?? `User ${email}`, email, password: 'password123', role_id: roleId },
      { token: workspace.owner.token },
    )
    if (created.status !== 201) throw new Error(`create user failed: ${created.status} ${created.text}`)
    return this.login(email)
  }

  async login(email: string, password = 'password123'): Promise<Session> {
    const reply = await this.post('/auth/login', { email, password })
    if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${reply.text}`)
    return reply.body.data as Session
  }

  /** A custom role with exactly these grants, and a user holding it. */
  async memberWithGrants(workspace: Workspace, permissions: { key: string; platform: 'web' | 'mobile'; access: 'full' | 'view' }[]) {
    const role = await this.post('/office/v1/roles', { name: unique('Role'), permissions }, { token: workspace.owner.token })
    if (role.status !== 201) throw new Error(`create role failed: ${role.status} ${role.text}`)
    return this.member(workspace, role.body.data.id as number)
  }

  /** Rows of a table, straight from the database (for "nothing changed" checks). */
  async rows(table: string): Promise<Record<string, unknown>[]> {
    return this.db.pragma(`SELECT * FROM ${table} ORDER BY id`)
  }

  async count(table: string, where = '1 = 1'): Promise<number> {
    const [row] = await this.db.pragma(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
    return Number(row.n)
  }

  async close() {
    await this.db.close()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * A migrated database, built once per test process and copied for each app (copying the file takes a
 * few milliseconds, migrating a new one much longer). The regional areas are not in it: every app
 * reads the prepared read-only database (README.md "Regional data"), which `npm test` builds first
 * when missing (its `pretest`), as does the first app of a process started without it.
 */
let template: Promise<string> | null = null
function templateDatabase(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-template-'))
    const path = join(dir, 'template.db')
    const db = await openDatabase(loadConfig({ DATABASE_URL: `file:${path}` }))
    await db.migrate()
    await db.close()
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    return path
  })()
  return template
}

export async function createTestApp(options: HarnessOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-test-'))
  copyFileSync(await templateDatabase(), join(dir, 'app.db'))
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'app.db')}`,
    DATABASE_DRIVER: options.driver ?? 'bun-sqlite',
    LOG_LEVEL: 'silent',
    UPLOAD_DIR: join(dir, 'uploads'),
    EXPORT_DIR: join(dir, 'exports'),
    REGISTER_LIMIT_PER_HOUR: '0',
    // In-process requests all come from one unknown IP; tests/auth.hashing.test.ts turns this limit on.
    PASSWORD_FAILURES_PER_IP: '0',
    ...options.env,
  })
  const db = await openDatabase(config)
  await db.migrate()
  const clock = options.clock ?? new ManualClock(new Date())
  const { app, deps } = await createApp({ db, config, clock, logger: options.logger, services: options.services })
  if (!options.forgotPasswordLimits) {
    deps.limits.forgotPasswordByEmail = new RequestLimiter(clock, 0, HOUR_MS)
    deps.limits.forgotPasswordByIp = new RequestLimiter(clock, 0, HOUR_MS)
  }
  return new TestApp(app, deps, dir, clock)
}

/**
 * The setup hook's own timeout, so `bun test FILE` without `--timeout` (Bun's default is 5 s) does
 * not fail while the first setup of a process builds the template database (migrations), or the
 * prepared regional database when `bun test FILE` runs without `npm test`'s `pretest` on a fresh
 * clone, which takes longer than that on a loaded machine.
 */
export const SETUP_TIMEOUT_MS = 60_000

/** One app per test file: `const t = useTestApp()` then `t.app` inside tests. */
export function useTestApp(options: HarnessOptions = {}) {
  const holder = {} as { app: TestApp }
  beforeAll(async () => {
    holder.app = await createTestApp(options)
  }, SETUP_TIMEOUT_MS)
  afterAll(async () => {
    await holder.app?.close()
  })
  return holder
}

/**
 * Serves the file's app on a free port of 127.0.0.1 for the enclosing describe (the real-socket
 * tests of each area); `socket.base` is `http://127.0.0.1:PORT/api` once the describe's tests run.
 */
export function useRealSocket(holder: { app: TestApp }) {
  const socket = { base: '' }
  beforeAll(() => {
    holder.app.app.listen({ port: 0, hostname: '127.0.0.1' })
    socket.base = `http://127.0.0.1:${holder.app.app.server!.port}/api`
  })
  afterAll(async () => {
    await holder.app.app.stop(true)
  })
  return socket
}

/** Asserts the error envelope and returns its `errors`. */
export function expectError(reply: Reply, status: number, code: string) {
  if (reply.status !== status || reply.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${reply.text}`)
  }
  if (reply.body.success !== false || typeof reply.body.message !== 'string' || typeof reply.body.errors !== 'object') {
    throw new Error(`not an error envelope: ${reply.text}`)
  }
  return reply.body.errors as Record<string, unknown>
}
