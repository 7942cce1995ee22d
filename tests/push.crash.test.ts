/**
 * At least once across kill -9 (docs/API.md §Push notifications): the real server (`bun src/server.ts`)
 * sends a push to a fake FCM that holds the request, is killed with SIGKILL while it waits, and a restart
 * on the same database sends it again to a fake that now answers 200. The delivery ends `sent` exactly
 * once in the database; the phone saw the message twice at most (the repeat it drops by notification_id).
 * Nothing is decided by timing: each step waits (boundedly) for a state of the fake or of the process.
 */
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { systemClock } from '../src/lib/clock'
import { PushFake } from './support/push-fake'

const dir = mkdtempSync(join(tmpdir(), 'ffos-push-crash-'))
const dbPath = join(dir, 'app.db')
const fake = new PushFake(systemClock)
let server: ReturnType<typeof Bun.spawn> | null = null

afterAll(async () => {
  server?.kill('SIGKILL')
  await fake.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts the server on the shared database; resolves with its port and its stdout so far once it logged "server started". */
async function start(): Promise<{ port: number; lines: () => string[] }> {
  const proc = Bun.spawn([process.execPath, 'src/server.ts'], {
    cwd: join(import.meta.dir, '..'),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `file:${dbPath}`,
      UPLOAD_DIR: join(dir, 'uploads'),
      EXPORT_DIR: join(dir, 'exports'),
      // Upstream mode: no embedded regional data to load on the first start.
      REGIONAL_SERVICE_URL: 'http://127.0.0.1:9',
      REGISTER_LIMIT_PER_HOUR: '0',
      LOG_LEVEL: 'info',
      ...fake.env(),
    },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  server = proc
  let text = ''
  const decoder = new TextDecoder()
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  // Reads stdout for the life of the process (a full pipe would block the child).
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      text += decoder.decode(value, { stream: true })
    }
  })()
  void pump
  // Complete lines only: the last one may still be arriving.
  const lines = () => text.split('\n').slice(0, -1).filter(Boolean)
  const startedLine = () => lines().find((line) => line.includes('"server started"'))
  for (let i = 0; i < 1200 && !startedLine(); i++) {
    if (proc.exitCode !== null) throw new Error(`the server exited: ${text}`)
    await Bun.sleep(25)
  }
  const started = startedLine()
  if (!started) throw new Error(`the server did not start: ${text}`)
  return { port: Number(new URL(JSON.parse(started).url).port), lines }
}

async function call(port: number, method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`http://127.0.0.1:${port}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = (await response.json()) as { data: any }
  if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(json)}`)
  return json.data
}

const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 2000 && !ok(); i++) await Bun.sleep(10)
  if (!ok()) throw new Error(`never happened: ${what}`)
}

describe('push across kill -9', () => {
  test('a send in flight when the process is killed is sent again after the restart: one delivery, sent once in the database', async () => {
    const phoneToken = 'fcm-crash-phone-token'
    fake.answer(phoneToken, 'hang')
    const first = await start()
    // The one start-up line about the channels (logged right after "server started": waited for, not assumed read).
    const pushLines = () => first.lines().filter((line) => JSON.parse(line).message?.startsWith('push:'))
    await until('the push channels line', () => pushLines().length > 0)
    expect(pushLines().map((line) => JSON.parse(line).message)).toEqual(['push: FCM on; Web Push on'])

    const owner = await call(first.port, 'POST', '/auth/register', {
      name: 'Owner',
      email: 'owner@example.com',
      password: 'password123',
      workspace_name: 'Crash',
    })
    const roles = (await call(first.port, 'GET', '/office/v1/roles', undefined, owner.token)) as { slug: string; id: number }[]
    const role = roles.find((r) => r.slug === 'user')!.id
    await call(first.port, 'POST', '/office/v1/users', { name: 'Field', email: 'field@example.com', password: 'password123', role_id: role }, owner.token)
    const field = await call(first.port, 'POST', '/auth/login', { email: 'field@example.com', password: 'password123' })
    await call(first.port, 'POST', '/app/v1/notifications/tokens', { token: phoneToken, platform: 'android' }, field.token)
    const outlet = await call(first.port, 'POST', '/office/v1/outlets', { name: 'Toko' }, owner.token)
    const project = await call(first.port, 'POST', '/office/v1/projects', { name: 'Audit' }, owner.token)
    await call(
      first.port,
      'POST',
      '/office/v1/visits',
      { outlet_id: outlet.id, project_id: project.id, visit_date: new Date().toISOString().slice(0, 10), user_ids: [field.user.id] },
      owner.token,
    )

    // The worker sent it (woken by the commit) and the fake holds the request: kill the process now.
    await until('the fake holds the push', () => fake.holding === 1)
    server!.kill('SIGKILL')
    await server!.exited
    const db = new Database(dbPath, { readonly: true })
    const rows = () => db.query('SELECT notification_id, token, status, attempts FROM push_deliveries').all() as Record<string, unknown>[]
    expect(rows().map((row) => row.status)).toEqual(['sending'])
    fake.release()

    // The restart resumes it, and the fake now answers 200.
    const second = await start()
    await until('the push is sent again', () => fake.pushesTo(phoneToken).length === 2)
    await until('the delivery is recorded sent', () => rows()[0]?.status === 'sent')
    const [row] = rows()
    expect(rows()).toHaveLength(1)
    expect(row).toMatchObject({ token: phoneToken, status: 'sent', attempts: 2 })
    const pushes = fake.pushesTo(phoneToken)
    expect(pushes.map((push) => push.answered)).toEqual(['hang', 200])
    expect(new Set(pushes.map((push) => push.data.notification_id))).toEqual(new Set([String(row.notification_id)]))
    await until('the resume is logged', () => second.lines().some((line) => JSON.parse(line).message === 'push deliveries resumed after a restart'))

    // A clean stop sends nothing more.
    server!.kill('SIGTERM')
    expect(await server!.exited).toBe(0)
    expect(fake.pushesTo(phoneToken)).toHaveLength(2)
    expect(fake.rejected).toEqual([])
    db.close()
  }, 60_000)
})
