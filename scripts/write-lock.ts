/**
 * `bun scripts/write-lock.ts` — the no-stall rule, measured on the real server over HTTP, on each
 * driver: how long another workspace's write waits while a large CSV visit import runs
 * (docs/PERFORMANCE.md "The write lock"). The rule: no request delays another workspace's write by
 * more than 250 ms.
 *
 * For each driver (`bun-sqlite`, then `libsql`, both on a `file:` URL) it starts `bun src/server.ts`
 * on a fresh database, sets up workspace A (FORMS forms, one project holding all of them, one outlet)
 * and workspace B over HTTP, then posts a ROWS-row CSV to `POST /office/v1/visits/import` in A while
 * a loop creates channel groups in B one after another (2 ms apart), timing each from this process,
 * which the server's event loop cannot hold up. Prints, per driver, the other write's p50 / p99 / max
 * and the import's own time. Asserts nothing: tests/write-lock.test.ts holds the structure.
 *
 * Options (env): DRIVERS (default `bun-sqlite,libsql`), ROWS (2000), FORMS (100: the most a project may have).
 */
import { join } from 'node:path'
import { call, expectCall, startServer, tempDir } from './lib/server-process'

type Driver = 'bun-sqlite' | 'libsql'

export interface WriteLockRun {
  driver: Driver
  rows: number
  forms: number
  importStatus: number
  importMs: number
  /** The other workspace's writes while the import ran, each in ms. */
  waits: number[]
  /** When the longest of them began, in ms after the import was sent. */
  longestAt: number
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]

export async function measureWriteLock(driver: Driver, rows: number, forms: number): Promise<WriteLockRun> {
  const { dir, remove } = tempDir('ffos-write-lock-')
  // Regional lookups are not what is measured here (upstream mode: no prepared regional file opened).
  const server = await startServer({ dbPath: join(dir, 'app.db'), env: { DATABASE_DRIVER: driver, REGIONAL_SERVICE_URL: 'http://127.0.0.1:9/' } })
  try {
    const base = server.base
    const register = async (tag: string) => {
      const reply = await expectCall(base, 'POST', '/auth/register', 201, {
        body: { name: `Owner ${tag}`, email: `owner-${tag}@example.com`, password: 'password123', workspace_name: `Workspace ${tag}` },
      })
      return reply.body.data.token as string
    }
    const importer = await register('importer')
    const other = await register('other')
    const formIds: number[] = []
    for (let i = 0; i < forms; i++) {
      const form = await expectCall(base, 'POST', '/office/v1/forms', 201, {
        token: importer,
        body: { title: `Form ${i}`, fields: [{ key: 'note', label: 'Note', type: 'text' }] },
      })
      formIds.push(form.body.data.id)
    }
    const project = await expectCall(base, 'POST', '/office/v1/projects', 201, {
      token: importer,
      body: { name: 'Big audit', code: 'BIG', forms: formIds.map((form_id) => ({ form_id, is_required: true })) },
    })
    const outlet = await expectCall(base, 'POST', '/office/v1/outlets', 201, { token: importer, body: { name: 'Toko', code: 'T-1' } })
    const csv = [
      'outlet_id,project_id,visit_date,notes',
      ...Array.from({ length: rows }, () => `${outlet.body.data.id},${project.body.data.id},2026-12-01,write lock`),
    ].join('\n')

    const started = performance.now()
    let importing = true
    const imported = fetch(`${base}/office/v1/visits/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', authorization: `Bearer ${importer}` },
      body: csv,
      signal: AbortSignal.timeout(600_000),
    }).finally(() => {
      importing = false
    })
    const waits: number[] = []
    let longestAt = 0
    for (let n = 0; importing; n++) {
      const began = performance.now()
      const write = await call(base, 'POST', '/office/v1/outlets/channel-groups', { token: other, body: { name: `Group ${n}` }, timeoutMs: 600_000 })
      if (write.status !== 201) throw new Error(`the other workspace's write answered ${write.status}: ${write.text.slice(0, 300)}`)
      // Every write begun while the import ran counts, also one it held up to its end.
      const wait = performance.now() - began
      if (wait > Math.max(0, ...waits)) longestAt = began - started
      waits.push(wait)
      await Bun.sleep(2)
    }
    const response = await imported
    const importMs = performance.now() - started
    await response.text()
    return { driver, rows, forms, importStatus: response.status, importMs, waits, longestAt }
  } finally {
    await server.stop()
    remove()
  }
}

export function summarizeWriteLock(run: WriteLockRun): string {
  const sorted = [...run.waits].sort((a, b) => a - b)
  const figure = (p: number) => (sorted.length ? percentile(sorted, p).toFixed(1) : '–')
  return (
    `${run.driver.padEnd(10)} import of ${run.rows} rows × ${run.forms} forms: ${run.importStatus} in ${(run.importMs / 1000).toFixed(1)} s; ` +
    `another workspace's write meanwhile (n = ${sorted.length}): p50 ${figure(0.5)} ms, p99 ${figure(0.99)} ms, max ${sorted.length ? sorted[sorted.length - 1].toFixed(1) : '–'} ms ` +
    `(begun ${(run.longestAt / 1000).toFixed(2)} s into the import)`
  )
}

if (import.meta.main) {
  const drivers = (process.env.DRIVERS ?? 'bun-sqlite,libsql').split(',').map((name) => name.trim()) as Driver[]
  const rows = Number(process.env.ROWS ?? 2000)
  const forms = Number(process.env.FORMS ?? 100)
  for (const driver of drivers) console.log(summarizeWriteLock(await measureWriteLock(driver, rows, forms)))
}
