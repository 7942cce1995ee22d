/**
 * `bun scripts/bench/list-ab.ts OTHER_TREE DEMO_DB` — one office list on two source trees in one
 * process: OTHER_TREE (e.g. `git archive REV | tar -x -C DIR`, with node_modules linked) and this one,
 * each its own app on its own copy of DEMO_DB (a database of `bun run seed:demo`, e.g. the suite's
 * cached data/bench/demo-…-outlets200000-….db), requests through `app.handle` as the demo owner, in
 * batches that take turns (the order flips every round). Prints µs per request per batch and the ratio
 * of the medians: a change's own effect, without HTTP and without the machine's drift between runs
 * (docs/PERFORMANCE.md "The outlet list prepared per shape").
 *
 * Options (env): LIST (default /office/v1/outlets), QUERIES (`|`-separated query strings, default
 * `keyword=OUT-01234&limit=20`), N (requests per batch, default 100), ROUNDS (default 6), LOGIN (whose
 * list: a demo user's email, default the owner; `field1@demo.example` for the phone's lists).
 */
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ROOT, tempDir } from './common'

const [otherTree, demoDb] = process.argv.slice(2)
if (!otherTree || !demoDb) {
  console.error('usage: bun scripts/bench/list-ab.ts OTHER_TREE DEMO_DB')
  process.exit(1)
}
const LIST = process.env.LIST ?? '/office/v1/outlets'
const QUERIES = (process.env.QUERIES ?? 'keyword=OUT-01234&limit=20').split('|')
const N = Number(process.env.N ?? 100)
const ROUNDS = Number(process.env.ROUNDS ?? 6)
const LOGIN = process.env.LOGIN ?? 'owner@demo.example'

type Handle = (path: string) => Promise<string>
const { dir, remove } = tempDir('ffos-list-ab-')

async function appOf(name: string, root: string): Promise<Handle> {
  const home = join(dir, name)
  copyFileSync(demoDb, `${home}.db`)
  const { loadConfig } = await import(join(root, 'src/config/env.ts'))
  const { openDatabase } = await import(join(root, 'src/db/client.ts'))
  const { createApp } = await import(join(root, 'src/app.ts'))
  const config = loadConfig({ DATABASE_URL: `file:${home}.db`, LOG_LEVEL: 'silent', UPLOAD_DIR: `${home}-uploads`, EXPORT_DIR: `${home}-exports` })
  const db = await openDatabase(config)
  await db.migrate()
  const { app } = await createApp({ db, config })
  const login = await app.handle(
    new Request('http://localhost/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: LOGIN, password: 'password123' }),
    }),
  )
  const token = ((await login.json()) as { data: { token: string } }).data.token
  return async (query) => {
    const response = await app.handle(new Request(`http://localhost/api${LIST}?${query}`, { headers: { authorization: `Bearer ${token}` } }))
    if (response.status !== 200) throw new Error(`${name}: ${response.status} for ${query}`)
    return response.text()
  }
}

try {
  const apps: Record<'other' | 'this', Handle> = { other: await appOf('other', resolve(otherTree)), this: await appOf('this', ROOT) }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  for (const query of QUERIES) {
    const [a, b] = [await apps.other(query), await apps.this(query)]
    if (a !== b) console.log(`${query}: the answers differ`)
    for (let i = 0; i < 50; i++) await Promise.all([apps.other(query), apps.this(query)])
    const micros: Record<'other' | 'this', number[]> = { other: [], this: [] }
    // The process's CPU time per request too: less swayed than the wall clock by other processes on the machine.
    const cpu: Record<'other' | 'this', number[]> = { other: [], this: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? (['this', 'other'] as const) : (['other', 'this'] as const)) {
        const started = performance.now()
        const usage = process.cpuUsage()
        for (let i = 0; i < N; i++) await apps[side](query)
        const used = process.cpuUsage(usage)
        micros[side].push(Math.round(((performance.now() - started) / N) * 1000))
        cpu[side].push(Math.round((used.user + used.system) / N))
      }
    }
    const ratio = (values: Record<'other' | 'this', number[]>) => (median(values.this) / median(values.other)).toFixed(2)
    console.log(
      `${query}\n  other tree µs/request ${micros.other.join(' · ')}\n  this tree  µs/request ${micros.this.join(' · ')}\n  this / other (medians) ${ratio(micros)}` +
        `\n  other tree CPU µs/request ${cpu.other.join(' · ')}\n  this tree  CPU µs/request ${cpu.this.join(' · ')}\n  this / other (CPU medians) ${ratio(cpu)}`,
    )
  }
} finally {
  remove()
}
process.exit(0)
