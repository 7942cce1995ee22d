/**
 * `bun scripts/bench/password-burst.ts` — how long a real login takes while a burst of 300 requests
 * that each would hash a password hits the server (docs/PERFORMANCE.md, "Password
 * hashing under a burst"). Aim: the valid login answers 200 in under 2 s.
 *
 * Starts `bun src/server.ts` on a temporary database with TRUST_PROXY=1 (so the burst can come from
 * one address or from many, through X-Forwarded-For), registers one user, and then per scenario
 * fires BURST (300) requests at once and, while they are in flight, one login with the right password
 * from an address of its own, over a real socket:
 *   reset-bogus      300 reset-password with made-up tokens, one address
 *   spray-one-ip     300 wrong logins for 300 different emails, one address
 *   spray-many-ips   300 wrong logins for 300 different emails, 300 addresses (a botnet: no per-IP
 *                    limit helps; only the hashing gate bounds the work)
 * Prints, per scenario, the valid login's status and latency (and, if it was turned away with 429,
 * the time until a retry after Retry-After succeeded), the burst's answers by status, and how long
 * the burst took. Figures depend on the machine: record them with the date in docs/PERFORMANCE.md.
 */
import { join } from 'node:path'
import { startServer, tempDir } from '../lib/server-process'

// Bun's fetch holds requests beyond 256 open ones back on the client side, which would queue the
// valid login behind the burst before it ever reaches the server: the script runs itself with more.
if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
  const child = Bun.spawn([process.execPath, import.meta.path], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '4096' },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  process.exit(await child.exited)
}

const BURST = Number(process.env.BURST ?? 300)
const PASSWORD = 'password123'

interface Answer {
  status: number
  ms: number
  retryAfter: number
}

async function post(base: string, path: string, body: unknown, ip: string): Promise<Answer> {
  const started = performance.now()
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started, retryAfter: Number(response.headers.get('retry-after') ?? 0) }
}

const tally = (answers: Answer[]) => {
  const byStatus: Record<number, number> = {}
  for (const answer of answers) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1
  return byStatus
}

const scenarios = {
  'reset-bogus': (base: string, i: number) => post(base, '/auth/reset-password', { token: `made-up-token-${i}`, password: 'whatever-pass-1' }, '203.0.113.10'),
  'spray-one-ip': (base: string, i: number) => post(base, '/auth/login', { email: `nobody-${i}@example.com`, password: 'wrong-password' }, '203.0.113.11'),
  'spray-many-ips': (base: string, i: number) =>
    post(base, '/auth/login', { email: `nobody-${i}@example.com`, password: 'wrong-password' }, `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`),
} as const

const temp = tempDir('ffos-password-burst-')
const server = await startServer({ dbPath: join(temp.dir, 'app.db'), env: { TRUST_PROXY: '1' } })
try {
  const email = `owner-${Date.now()}@example.com`
  const registered = await post(server.base, '/auth/register', { name: 'Owner', email, password: PASSWORD, workspace_name: 'Burst' }, '192.0.2.1')
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`)
  let userIp = 0
  const validLogin = () => post(server.base, '/auth/login', { email, password: PASSWORD }, `192.0.2.${++userIp + 1}`)

  const idle = []
  for (let i = 0; i < 5; i++) idle.push((await validLogin()).ms)
  console.log(`idle: valid login ${idle.map((ms) => ms.toFixed(0)).join(' / ')} ms`)

  for (const [name, request] of Object.entries(scenarios)) {
    const burstStarted = performance.now()
    const burst = Array.from({ length: BURST }, (_, i) => request(server.base, i))
    // The valid login goes out while the whole burst is in flight.
    let login = await validLogin()
    const firstTry = login
    let untilSuccess = login.ms
    while (login.status === 429) {
      await Bun.sleep(login.retryAfter * 1000)
      login = await validLogin()
      untilSuccess = performance.now() - burstStarted
    }
    const answers = await Promise.all(burst)
    const burstMs = performance.now() - burstStarted
    const retried = firstTry.status === 429 ? `, 429 first, 200 after a retry at ${untilSuccess.toFixed(0)} ms` : ''
    console.log(
      `${name}: valid login ${firstTry.status} in ${firstTry.ms.toFixed(0)} ms${retried}; burst of ${BURST} ${JSON.stringify(tally(answers))} in ${burstMs.toFixed(0)} ms`,
    )
    if (login.status !== 200) throw new Error(`the valid login answered ${login.status}`)
  }
} finally {
  await server.stop()
  temp.remove()
}
