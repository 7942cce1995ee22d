/**
 * `bun scripts/bench/photo-exif.ts [REV]` — does one hostile photo stall every tenant? The real server
 * on a real socket (core 0); each round, 4 field users check in at once, each with the hostile 4.8 MiB PNG
 * (11 EXIF texts each claiming 5,000,000 bytes, tests/support/exif.ts `hostilePng`), while
 * this script asks `/api/health` again and again, one request after the other, until all 4 are
 * answered (then they check out, unmeasured). Prints the health latencies (p50, p99, max) and the check-ins' own, over ROUNDS rounds
 * (default 5). With REV, the same on git revision REV (a temporary worktree), to compare.
 * Figures: docs/PERFORMANCE.md, "A hostile photo and /api/health".
 */
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { hostilePng, pngDataUri } from '../../tests/support/exif'
import { setupFieldWorkspace } from '../lib/server-process'
import { freePort, ROOT, startReadyService, tempDir } from './common'

const revision = process.argv[2] ?? null
const rounds = Number(process.env.ROUNDS ?? 5)
const UPLOADS = 4
const { dir, remove } = tempDir('ffos-bench-photo-')
const worktree = join(dir, 'worktree')

function git(...args: string[]) {
  const result = Bun.spawnSync(['git', ...args], { cwd: ROOT, stderr: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.toString().trim()}`)
  return result.stdout.toString().trim()
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}
const ms = (value: number) => `${value.toFixed(1)} ms`

let root = ROOT
if (revision) {
  git('worktree', 'add', '--detach', worktree, revision)
  symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'))
  root = worktree
}
const port = await freePort()
const server = await startReadyService(join(dir, 'bench.db'), port, root)
try {
  const base = `http://127.0.0.1:${port}/api`
  const workspace = await setupFieldWorkspace(base, { fieldUsers: UPLOADS, visitsPerUser: rounds, tag: 'photo' })
  const body = JSON.stringify({ latitude: -6.2, longitude: 106.8, check_in_photo: pngDataUri(hostilePng({ takenAt: '2026:11:22 10:00:00' })) })
  const health: number[] = []
  const uploads: number[] = []
  const statuses = new Map<number, number>()
  for (let round = 0; round < rounds; round++) {
    let pending = UPLOADS
    const checkIns = workspace.users.map(async (user) => {
      const started = performance.now()
      const reply = await fetch(`${base}/app/v1/visits/${user.visitIds[round]}/check-in`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body,
      })
      await reply.arrayBuffer()
      uploads.push(performance.now() - started)
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
      pending--
    })
    while (pending > 0) {
      const started = performance.now()
      await (await fetch(`${base}/health`)).arrayBuffer()
      health.push(performance.now() - started)
    }
    await Promise.all(checkIns)
    // Out again (outside the measured window) so each user may check in to the next round's visit.
    for (const user of workspace.users) {
      await fetch(`${base}/app/v1/visits/${user.visitIds[round]}/check-out`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ latitude: -6.2, longitude: 106.8 }),
      })
    }
  }
  console.log(`build: ${revision ? `${revision} (${git('rev-parse', '--short', revision)})` : 'working tree'}`)
  console.log(`${rounds} rounds × ${UPLOADS} simultaneous check-ins with the 4.8 MiB hostile PNG; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
  console.log(
    `/api/health during the uploads: n=${health.length} p50 ${ms(percentile(health, 50))} p99 ${ms(percentile(health, 99))} max ${ms(Math.max(...health))}`,
  )
  console.log(`check-ins: p50 ${ms(percentile(uploads, 50))} max ${ms(Math.max(...uploads))}`)
} finally {
  server.kill('SIGTERM')
  await server.exited
  if (revision) git('worktree', 'remove', '--force', worktree)
  remove()
}
