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
import { call, type ServerHandle, startServer } from '../scripts/lib/server-process'

const dir = mkdtempSync(join(tmpdir(), 'ffos-push-crash-'))
const dbPath = join(dir, 'app.db')
const fake = new PushFake(systemClock)
let server: ServerHandle | null = null

afterAll(async () => {
  await server?.kill9()
  await fake.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** The server on the shared database (scripts/lib/server-process.ts), its info lines kept, the fake as its push services. */
async function start(): Promise<ServerHandle> {
  server = await startServer({
    dbPath,
    // Upstream mode: no prepared regional file opened.
    env: { NODE_ENV: 'test', REGIONAL_SERVICE_URL: 'http://127.0.0.1:9', REGISTER_LIMIT_PER_HOUR: '0', LOG_LEVEL: 'info', ...fake.env() },
    startTimeoutMs: 30_000,
  })
  return server
}

/** The `data` of a 2xx answer (throws with the answer otherwise). */
async function send(at: ServerHandle, method: string, path: string, body?: unknown, token?: string) {
  const answer = await call(at.base, method, path, { body, token })
  if (answer.status >= 300) throw new Error(`${method} ${path} → ${answer.status} ${answer.text}`)
  return answer.body.data
}
/** The server's JSON log lines with this message. */
const logged = (at: ServerHandle, message: (text: string) => boolean) =>
  at.log.lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line).message as string)
    .filter((text) => typeof text === 'string' && message(text))

const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 2000 && !ok(); i++) await Bun.sleep(10)
  if (!ok()) throw new Error(`never happened: ${what}`)
}

describe('push across kill -9', () => {
  test('a send in flight when the process is killed is sent again after the restart: one delivery, sent once in the database', async () => {
    const phoneToken = 'fcm-crash-phone-token'
    fake.answer(phoneToken, 'hang')
    const first = await start()
    // The one start-up line about the channels (logged just before "server started": still waited for, not assumed read).
    const pushLines = () => logged(first, (text) => text.startsWith('push:'))
    await until('the push channels line', () => pushLines().length > 0)
    expect(pushLines()).toEqual(['push: FCM on; Web Push on'])

    const owner = await send(first, 'POST', '/auth/register', {
      name: 'Owner',
      email: 'owner@example.com',
      password: 'password123',
      workspace_name: 'Crash',
    })
    const roles = (await send(first, 'GET', '/office/v1/roles', undefined, owner.token)) as { slug: string; id: number }[]
    const role = roles.find((r) => r.slug === 'user')!.id
    await send(first, 'POST', '/office/v1/users', { name: 'Field', email: 'field@example.com', password: 'password123', role_id: role }, owner.token)
    const field = await send(first, 'POST', '/auth/login', { email: 'field@example.com', password: 'password123' })
    await send(first, 'POST', '/app/v1/notifications/tokens', { token: phoneToken, platform: 'android' }, field.token)
    const outlet = await send(first, 'POST', '/office/v1/outlets', { name: 'Toko' }, owner.token)
    const project = await send(first, 'POST', '/office/v1/projects', { name: 'Audit' }, owner.token)
    await send(
      first,
      'POST',
      '/office/v1/visits',
      { outlet_id: outlet.id, project_id: project.id, visit_date: new Date().toISOString().slice(0, 10), user_ids: [field.user.id] },
      owner.token,
    )

    // The worker sent it (woken by the commit) and the fake holds the request: kill the process now.
    await until('the fake holds the push', () => fake.holding === 1)
    await first.kill9()
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
    await until('the resume is logged', () => logged(second, (text) => text === 'push deliveries resumed after a restart').length > 0)

    // A clean stop sends nothing more.
    expect(await second.stop()).toBe(0)
    server = null
    expect(fake.pushesTo(phoneToken)).toHaveLength(2)
    expect(fake.rejected).toEqual([])
    db.close()
  }, 60_000)
})
