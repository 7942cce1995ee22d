/**
 * `bun scripts/bench/price-lists.ts` — price lists on the real server over HTTP, per driver
 * (docs/PERFORMANCE.md "Price lists and the price sheet"):
 *
 * 1. The write of a list of TIERS tiers (default the limit, 2,000; one transaction with its audit entry and
 *    change-log rows): its own time, and how long another workspace's write waits meanwhile (the rule: no
 *    request delays another workspace's write by more than 250 ms). Then a PUT that changes every price
 *    (TIERS UPDATEs) and one that replaces every tier (TIERS DELETEs + INSERTs), measured the same way.
 * 2. The phone's price sheet of an outlet in a workspace of PRODUCTS products and LISTS lists (a default
 *    list, channel and account lists of ITEMS tiers each): p50 / p99 / max of RUNS requests.
 *
 * Prints the figures; asserts nothing (tests/price-lists.test.ts holds the behaviour).
 * Options (env): DRIVERS (default `bun-sqlite,libsql`), TIERS (2000), PRODUCTS (5000), LISTS (50), ITEMS (500), RUNS (50).
 */
import { join } from 'node:path'
import { call, expectCall, startServer, tempDir } from '../lib/server-process'

type Driver = 'bun-sqlite' | 'libsql'
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const figures = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return 'n = 0'
  return `n = ${sorted.length}: p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`
}

/** Runs `write` while another workspace creates channel groups one after another; its time and their waits. */
async function whileOthersWrite(base: string, other: string, label: string, write: () => Promise<Response>) {
  const started = performance.now()
  let writing = true
  const pending = write().finally(() => {
    writing = false
  })
  const waits: number[] = []
  for (let n = 0; writing; n++) {
    const began = performance.now()
    const reply = await call(base, 'POST', '/office/v1/outlets/channel-groups', { token: other, body: { name: `${label} ${n}` }, timeoutMs: 600_000 })
    if (reply.status !== 201) throw new Error(`the other workspace's write answered ${reply.status}`)
    waits.push(performance.now() - began)
    await Bun.sleep(2)
  }
  const response = await pending
  const ms = performance.now() - started
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${label} answered ${response.status}: ${text.slice(0, 300)}`)
  console.log(`  ${label}: ${response.status} in ${ms.toFixed(0)} ms; another workspace's write meanwhile ${figures(waits)}`)
  return JSON.parse(text)
}

async function run(driver: Driver, options: { tiers: number; products: number; lists: number; items: number; runs: number }) {
  const { dir, remove } = tempDir('ffos-price-lists-')
  const server = await startServer({ dbPath: join(dir, 'app.db'), env: { DATABASE_DRIVER: driver, REGIONAL_SERVICE_URL: 'http://127.0.0.1:9/' } })
  try {
    const base = server.base
    const register = async (tag: string) =>
      (
        await expectCall(base, 'POST', '/auth/register', 201, {
          body: { name: `Owner ${tag}`, email: `owner-${tag}@example.com`, password: 'password123', workspace_name: `Workspace ${tag}` },
        })
      ).body.data.token as string
    const token = await register('prices')
    const other = await register('other')
    const products: number[] = []
    for (let i = 0; i < options.products; i++) {
      const product = await expectCall(base, 'POST', '/office/v1/products', 201, { token, body: { name: `Product ${i}`, sku: `SKU-${i}`, price: 1_000 + i } })
      products.push(product.body.data.id)
    }
    const group = await expectCall(base, 'POST', '/office/v1/outlets/channel-groups', 201, { token, body: { name: 'Trade' } })
    const channel = await expectCall(base, 'POST', '/office/v1/outlets/channels', 201, {
      token,
      body: { name: 'Modern', channel_group_id: group.body.data.id },
    })
    const account = await expectCall(base, 'POST', '/office/v1/outlets/accounts', 201, { token, body: { name: 'Chain', channel_id: channel.body.data.id } })
    const outlet = await expectCall(base, 'POST', '/office/v1/outlets', 201, { token, body: { name: 'Toko', account_id: account.body.data.id } })

    console.log(`${driver}:`)
    const tiers = (priceOf: (i: number) => number) =>
      Array.from({ length: options.tiers }, (_, i) => ({
        product_id: products[i % products.length],
        price: priceOf(i),
        min_qty: 1 + Math.floor(i / products.length),
      }))
    const post = (path: string, method: string, body: unknown) =>
      fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })
    const big = await whileOthersWrite(base, other, `POST a list of ${options.tiers} tiers`, () =>
      post('/office/v1/price-lists', 'POST', { name: 'Big', items: tiers((i) => 500 + i) }),
    )
    const id = big.data.id
    await whileOthersWrite(base, other, 'PUT changing every price', () => post(`/office/v1/price-lists/${id}`, 'PUT', { items: tiers((i) => 600 + i) }))
    await whileOthersWrite(base, other, 'PUT replacing every tier', () =>
      post(`/office/v1/price-lists/${id}`, 'PUT', { items: tiers((i) => 700 + i).map((item) => ({ ...item, min_qty: item.min_qty + 10 })) }),
    )
    await expectCall(base, 'DELETE', `/office/v1/price-lists/${id}`, 200, { token })

    // The sheet's workspace: a default list, then channel and account lists, each of ITEMS tiers.
    for (let l = 0; l < options.lists; l++) {
      const level = l === 0 ? {} : l % 2 ? { channel_id: channel.body.data.id } : { account_id: account.body.data.id }
      const items = Array.from({ length: options.items }, (_, i) => ({ product_id: products[(l * 97 + i) % products.length], price: 100 + l + i }))
      await expectCall(base, 'POST', '/office/v1/price-lists', 201, {
        token,
        body: { name: `List ${l}`, valid_from: `2026-01-${String(1 + (l % 28)).padStart(2, '0')}`, ...level, items },
      })
    }
    await expectCall(base, 'POST', '/office/v1/users', 201, {
      token,
      body: {
        name: 'Field',
        email: 'field@example.com',
        password: 'password123',
        role_id: (await expectCall(base, 'GET', '/office/v1/roles', 200, { token })).body.data.find((r: { slug: string }) => r.slug === 'user').id,
      },
    })
    const fieldToken = (await expectCall(base, 'POST', '/auth/login', 200, { body: { email: 'field@example.com', password: 'password123' } })).body.data
      .token as string
    const times: number[] = []
    let size = 0
    for (let i = 0; i < options.runs; i++) {
      const began = performance.now()
      const sheet = await call(base, 'GET', `/app/v1/outlets/${outlet.body.data.id}/prices?date=2026-06-01`, { token: fieldToken })
      times.push(performance.now() - began)
      if (sheet.status !== 200) throw new Error(`the price sheet answered ${sheet.status}`)
      size = sheet.body.data.length
    }
    console.log(
      `  GET /app/v1/outlets/:id/prices (${options.products} products, ${options.lists} lists of ${options.items} tiers; ${size} rows): ${figures(times)}`,
    )
  } finally {
    await server.stop()
    remove()
  }
}

if (import.meta.main) {
  const drivers = (process.env.DRIVERS ?? 'bun-sqlite,libsql').split(',').map((name) => name.trim()) as Driver[]
  const options = {
    tiers: Number(process.env.TIERS ?? 2000),
    products: Number(process.env.PRODUCTS ?? 5000),
    lists: Number(process.env.LISTS ?? 50),
    items: Number(process.env.ITEMS ?? 500),
    runs: Number(process.env.RUNS ?? 50),
  }
  for (const driver of drivers) await run(driver, options)
}
