/**
 * `bun run bench:orders` — "order at a visit": `POST /app/v1/visits/:id/sales-orders` with 20 lines (20
 * distinct products) and a fresh X-Idempotency-Key per request, over HTTP against the real server on a
 * temporary database, next to a bare Bun.serve + bun:sqlite ceiling (scripts/bench/ceiling-orders.ts) doing
 * the same SQL work per request on the same file in the same run, with the same durability (the ceiling's
 * header says what is matched). Server on core 0, load generator on core 1.
 *
 * Seed: one workspace, 500 products, 50 price lists (of the outlet's account, its channel, the default,
 * expired and future ones, and those of other accounts and channels) with quantity tiers, one outlet of an
 * account of a channel, and CONCURRENCY field users each with one visit in progress there; each client is
 * one of them and orders at its visit again and again (orders may be many per visit).
 *
 * The two take turns: ROUNDS rounds of service then ceiling, each a fresh process; the ratio reported is
 * the median of the per-round ratios (the machine's drift stays out of it).
 *
 * Options (env): CONCURRENCY (default 16), SECONDS per round (default 8), ROUNDS (default 3),
 * DURABILITY (`full`, the service's default, or `normal`: both servers alike), PROFILE=DIR (the service runs
 * under `bun --cpu-prof-md`, one Markdown CPU profile per round written to DIR when it stops), KEEP_DB=FILE (a copy
 * of the seeded database is left there, with the seed's ids in FILE.json, for measuring single statements).
 */
import { Database } from 'bun:sqlite'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { expectCall } from '../lib/server-process'
import { freePort, peakRssMiB, ROOT, startProcess, startReadyService, startService, tempDir, waitFor } from './common'
import { type LoadPlan, runLoad, type SuiteLoadResult } from './suite'

const concurrency = Number(process.env.CONCURRENCY ?? 16)
const seconds = Number(process.env.SECONDS ?? 8)
const rounds = Number(process.env.ROUNDS ?? 3)
const durability = process.env.DURABILITY === 'normal' ? 'normal' : 'full'
const profileDir = process.env.PROFILE
const PRODUCTS = 500
const LISTS = 50
const LINES = 20
const BODIES = 200

const { dir, remove } = tempDir('ffos-bench-orders-')
const dbPath = join(dir, 'app.db')
const running: Subprocess[] = []

type Target = 'service' | 'ceiling'
interface Seeded {
  workspaceId: number
  users: { id: number; token: string; visitId: number }[]
  accountId: number
  channelId: number
  otherAccounts: number[]
  otherChannels: number[]
  productIds: number[]
}

/** Small deterministic generator, so every run seeds and orders the same. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

async function inChunks<T, R>(items: T[], size: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let start = 0; start < items.length; start += size)
    out.push(...(await Promise.all(items.slice(start, start + size).map((item, i) => fn(item, start + i)))))
  return out
}

/** Over HTTP: the workspace, master data, products, field users and their visits in progress. */
async function seedOverHttp(base: string): Promise<Seeded> {
  const registered = await expectCall(base, 'POST', '/auth/register', 201, {
    body: { name: 'Bench Owner', email: 'owner-orders@example.com', password: 'password123', workspace_name: 'Orders bench' },
  })
  const owner = { token: registered.body.data.token as string }
  const workspaceId = registered.body.data.user.workspace_id as number
  const post = async (path: string, body: unknown) => (await expectCall(base, 'POST', path, 201, { ...owner, body })).body.data
  const group = await post('/office/v1/outlets/channel-groups', { name: 'Modern trade' })
  const channels = await inChunks([0, 1, 2], 3, (_, i) => post('/office/v1/outlets/channels', { name: `Channel ${i}`, channel_group_id: group.id }))
  const accounts = await inChunks([0, 1, 2, 3, 4], 5, (_, i) => post('/office/v1/outlets/accounts', { name: `Account ${i}`, channel_id: channels[i % 3].id }))
  const outlet = await post('/office/v1/outlets', { name: 'Toko Bench', code: 'BENCH-1', latitude: -6.2, longitude: 106.8, account_id: accounts[0].id })
  const project = await post('/office/v1/projects', { name: 'Orders project', code: 'P-ORD' })
  const next = random(7)
  const products = await inChunks(
    Array.from({ length: PRODUCTS }, (_, i) => i),
    25,
    (_, i) =>
      post('/office/v1/products', {
        name: `Product ${i}`,
        sku: `SKU-${String(i).padStart(4, '0')}`,
        unit: 'pcs',
        price: 1_000 + Math.floor(next() * 99) * 500,
      }),
  )
  const roles = await expectCall(base, 'GET', '/office/v1/roles', 200, owner)
  const roleId = (roles.body.data as { id: number; slug: string }[]).find((role) => role.slug === 'user')!.id
  const today = new Date().toISOString().slice(0, 10)
  // Password hashing is the slow part: two at a time.
  const users = await inChunks(
    Array.from({ length: concurrency }, (_, i) => i),
    2,
    async (_, i) => {
      const email = `field-orders-${i}@example.com`
      const made = await post('/office/v1/users', { name: `Field ${i}`, email, password: 'password123', role_id: roleId })
      const login = await expectCall(base, 'POST', '/auth/login', 200, { body: { email, password: 'password123' } })
      const token = login.body.data.token as string
      const visit = await post('/office/v1/visits', { outlet_id: outlet.id, project_id: project.id, visit_date: today, user_ids: [made.id] })
      await expectCall(base, 'POST', `/app/v1/visits/${visit.id}/check-in`, 200, { token, body: { latitude: -6.2, longitude: 106.8 } })
      return { id: made.id as number, token, visitId: visit.id as number }
    },
  )
  return {
    workspaceId,
    users,
    accountId: accounts[0].id,
    channelId: channels[0].id,
    otherAccounts: accounts.slice(1).map((a: { id: number }) => a.id),
    otherChannels: channels.slice(1).map((c: { id: number }) => c.id),
    productIds: products.map((p: { id: number }) => p.id),
  }
}

/**
 * The price lists, straight into the file (there is no route for them yet), with the service stopped: for the
 * outlet an older and a newer account list, a channel list, a default list (all valid today, with tiers), and
 * expired or future ones that must not price; the rest belong to other accounts and channels.
 */
function seedPriceLists(seeded: Seeded): number {
  const db = new Database(dbPath, { strict: true })
  db.run('PRAGMA foreign_keys = ON')
  const next = random(11)
  const now = new Date().toISOString()
  const insertList = db.query(
    `INSERT INTO price_lists (workspace_id, name, channel_id, account_id, valid_from, valid_to, created_at, updated_at)
     VALUES ($w, $name, $channel, $account, $from, $to, $now, $now) RETURNING id`,
  )
  const insertItem = db.query('INSERT INTO price_list_items (price_list_id, product_id, price, min_qty) VALUES (?, ?, ?, ?)')
  const { productIds: ids } = seeded
  type Spec = { account?: number; channel?: number; from?: string; to?: string; products: number[]; tiers: number[] }
  const range = (from: number, to: number) => ids.slice(from, to)
  const specs: Spec[] = [
    { account: seeded.accountId, products: range(0, 300), tiers: [1, 12] },
    { account: seeded.accountId, from: '2024-01-01', products: range(0, 200), tiers: [1, 12, 48] },
    { account: seeded.accountId, to: '2021-12-31', products: range(0, 500), tiers: [1] },
    { channel: seeded.channelId, products: range(100, 350), tiers: [1, 24] },
    { channel: seeded.channelId, from: '2099-01-01', products: range(0, 500), tiers: [1] },
    { products: range(0, 500), tiers: [1, 10] },
    { from: '2000-01-01', to: '2001-01-01', products: range(0, 500), tiers: [1] },
  ]
  for (let i = specs.length; i < LISTS; i++) {
    const start = Math.floor(next() * 200)
    const other =
      i % 2 === 0 ? { account: seeded.otherAccounts[i % seeded.otherAccounts.length] } : { channel: seeded.otherChannels[i % seeded.otherChannels.length] }
    specs.push({ ...other, products: range(start, start + 300), tiers: [1, 12] })
  }
  let items = 0
  db.transaction(() => {
    for (const [n, spec] of specs.entries()) {
      const { id } = insertList.get({
        w: seeded.workspaceId,
        name: `List ${n}`,
        channel: spec.channel ?? null,
        account: spec.account ?? null,
        from: spec.from ?? null,
        to: spec.to ?? null,
        now,
      }) as { id: number }
      for (const product of spec.products) {
        let price = 500 + Math.floor(next() * 200) * 250
        for (const tier of spec.tiers) {
          insertItem.run(id, product, price, tier)
          items++
          price = Math.floor(price * 0.95)
        }
      }
    }
  })()
  db.close()
  return items
}

/** Request bodies: 20 distinct products each, quantities across the tiers, some discounts. */
function orderBodies(productIds: number[]): string[] {
  const next = random(3)
  return Array.from({ length: BODIES }, () => {
    const chosen = new Set<number>()
    while (chosen.size < LINES) chosen.add(productIds[Math.floor(next() * productIds.length)])
    return JSON.stringify({
      lines: [...chosen].map((product_id, i) => ({
        product_id,
        quantity: 1 + Math.floor(next() * 60),
        ...(i % 4 === 0 && { discount_pct: [2.5, 5, 10, 12.5][Math.floor(next() * 4)] }),
      })),
      notes: 'deliver before noon',
    })
  })
}

const PATH = '/api/app/v1/visits/{id}/sales-orders'

/** What `startService` (./common.ts) gives the real server, for the profiled start that needs its own command line. */
const serviceEnv = (port: number) => ({
  PORT: String(port),
  HOST: '127.0.0.1',
  DATABASE_URL: `file:${dbPath}`,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  ACCESS_TOKEN_TTL: '2h',
  UPLOAD_DIR: join(dir, 'uploads'),
  EXPORT_DIR: join(dir, 'exports'),
})

function startTarget(target: Target, port: number, seeded: Seeded): Subprocess {
  if (target === 'service' && profileDir) {
    return startProcess([process.execPath, '--cpu-prof-md', `--cpu-prof-dir=${profileDir}`, join(ROOT, 'src/server.ts')], {
      ...serviceEnv(port),
      DURABILITY: durability,
    })
  }
  if (target === 'service') return startService(dbPath, port, ROOT, { DURABILITY: durability })
  return startProcess([process.execPath, join(ROOT, 'scripts/bench/ceiling-orders.ts')], {
    PORT: String(port),
    DB_PATH: dbPath,
    WORKSPACE_ID: String(seeded.workspaceId),
    DURABILITY: durability,
  })
}

function plan(target: Target, port: number, seeded: Seeded, bodies: string[]): LoadPlan {
  return {
    base: `http://127.0.0.1:${port}`,
    concurrency,
    seconds,
    warmupSeconds: 1,
    bodies,
    idempotencyKeys: true,
    clients: seeded.users.map((user) => ({
      headers: {
        'content-type': 'application/json',
        ...(target === 'service' ? { authorization: `Bearer ${user.token}` } : { 'x-user-id': String(user.id) }),
      } as Record<string, string>,
      ids: [user.visitId],
      steps: [{ method: 'POST' as const, path: PATH, rotateBody: true }],
    })),
  }
}

/** One order on `target` with the first body: what the service answers, the ceiling must answer too. */
async function oneOrder(target: Target, port: number, seeded: Seeded, body: string) {
  const user = seeded.users[0]
  const response = await fetch(`http://127.0.0.1:${port}${PATH.replace('{id}', String(user.visitId))}`, {
    method: 'POST',
    headers: { ...plan(target, port, seeded, []).clients[0].headers, 'x-idempotency-key': `check-${target}-${Date.now()}` },
    body,
  })
  const answer = (await response.json()) as { data: Record<string, unknown> & { lines: Record<string, unknown>[] } }
  if (response.status !== 201) throw new Error(`${target} answered ${response.status}: ${JSON.stringify(answer)}`)
  const { id: _id, number: _number, created_at: _c, updated_at: _u, ...rest } = answer.data
  return { json: JSON.stringify(rest), bytes: JSON.stringify(answer).length }
}

async function measure(target: Target, seeded: Seeded, bodies: string[], check: boolean) {
  const port = await freePort()
  const child = startTarget(target, port, seeded)
  running.push(child)
  await waitFor(`http://127.0.0.1:${port}/api/health`)
  const answer = check ? await oneOrder(target, port, seeded, bodies[0]) : null
  const result: SuiteLoadResult = await runLoad(plan(target, port, seeded, bodies))
  const rss = peakRssMiB(child.pid)
  child.kill('SIGTERM')
  await child.exited
  return { result, rss, answer }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

try {
  let seeded: Seeded
  {
    const port = await freePort()
    const server = await startReadyService(dbPath, port, ROOT, { DURABILITY: durability })
    running.push(server)
    seeded = await seedOverHttp(`http://127.0.0.1:${port}/api`)
    server.kill('SIGTERM')
    await server.exited
  }
  const items = seedPriceLists(seeded)
  if (process.env.KEEP_DB) {
    copyFileSync(dbPath, process.env.KEEP_DB)
    writeFileSync(`${process.env.KEEP_DB}.json`, JSON.stringify(seeded))
  }
  const bodies = orderBodies(seeded.productIds)

  const rows: { round: number; service: Awaited<ReturnType<typeof measure>>; ceiling: Awaited<ReturnType<typeof measure>> }[] = []
  for (let round = 1; round <= rounds; round++) {
    const service = await measure('service', seeded, bodies, round === 1)
    const ceiling = await measure('ceiling', seeded, bodies, round === 1)
    if (round === 1) {
      const same = service.answer!.json === ceiling.answer!.json
      console.log(
        `${same ? 'same answer' : 'ANSWERS DIFFER'} (but id, number, timestamps): service ${service.answer!.bytes} bytes, ceiling ${ceiling.answer!.bytes} bytes`,
      )
      if (!same) console.log(`service: ${service.answer!.json}\nceiling: ${ceiling.answer!.json}`)
    }
    rows.push({ round, service, ceiling })
    console.log(`round ${round}: service ${service.result.rps.toFixed(0)} req/s, ceiling ${ceiling.result.rps.toFixed(0)} req/s`)
  }

  console.log(
    `\norder at a visit: ${LINES} lines per order, ${PRODUCTS} products, ${LISTS} price lists (${items} items), ${concurrency} concurrent clients (one field user and visit each), ` +
      `${seconds} s per round after 1 s warm-up, ${rounds} rounds, DURABILITY=${durability}, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores\n`,
  )
  const line = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`)
  line(['round', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MiB', 'service / ceiling'])
  line(['---:', '---', '---:', '---:', '---:', '---:', '---:', '---:'])
  const ratios: number[] = []
  for (const { round, service, ceiling } of rows) {
    const ratio = service.result.rps / ceiling.result.rps
    ratios.push(ratio)
    for (const [name, m] of [
      ['service', service],
      ['ceiling', ceiling],
    ] as const)
      line([
        round,
        name,
        m.result.rps.toFixed(0),
        m.result.p50.toFixed(2),
        m.result.p99.toFixed(2),
        m.result.errors,
        m.rss,
        name === 'service' ? `${(ratio * 100).toFixed(0)}%` : '',
      ])
  }
  const errors = rows.flatMap((row) => [row.service, row.ceiling]).filter((m) => m.result.errors > 0)
  if (errors.length) console.log(`\nstatuses with errors: ${errors.map((m) => JSON.stringify(m.result.statuses)).join(' ')}`)
  console.log(
    `\nservice / ceiling (req/s), median of ${rounds} rounds: ${(median(ratios) * 100).toFixed(0)}% (per round ${ratios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})`,
  )
  console.log(
    `medians: service ${median(rows.map((r) => r.service.result.rps)).toFixed(0)} req/s, p50 ${median(rows.map((r) => r.service.result.p50)).toFixed(2)} ms, p99 ${median(rows.map((r) => r.service.result.p99)).toFixed(2)} ms; ` +
      `ceiling ${median(rows.map((r) => r.ceiling.result.rps)).toFixed(0)} req/s, p50 ${median(rows.map((r) => r.ceiling.result.p50)).toFixed(2)} ms, p99 ${median(rows.map((r) => r.ceiling.result.p99)).toFixed(2)} ms`,
  )
} finally {
  for (const child of running) child.kill('SIGKILL')
  remove()
}
