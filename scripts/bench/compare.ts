/**
 * `bun run bench:compare [REV]` — write scenarios on two builds of the service: git revision REV
 * (default HEAD) and this working tree, taking turns round by round (the order flips every round),
 * each round a fresh process on its own copy of a database the build set up for itself. Prints every
 * round and the medians: the way to tell whether a change helps when the machine's own speed drifts
 * by ±15% within minutes (docs/PERFORMANCE.md).
 *
 * With COMPARE=durability both sides are this working tree, started with DURABILITY=normal and
 * DURABILITY=full: they differ by that setting only (REV is ignored).
 *
 * Scenarios (SCENARIOS, comma-separated, default `ingest`):
 * - `ingest`: the location-ingest scenario of `bench:locations` (50-ping batches with device times,
 *   one field user, unique idempotency keys).
 * - `check-in-out`: each client its own field user walking its own visits: check-in, check-out, next
 *   (req/s counts both requests).
 *
 * Options (env): CONCURRENCY (default 50), SECONDS per round (default 6), ROUNDS per build
 * (default 4), WS=0 (no live-map listener; with it, the listener is the workspace owner's).
 */
import { copyFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, ROOT, startReadyService, tempDir } from './common'
import { ingestLoad, median, setUpIngestWorkspace, startListener, WARMUP_SECONDS, type IngestWorkspace } from './ingest'
import type { LoadResult } from './load'
import { runLoad } from './suite'
import { setupFieldWorkspace, type FieldWorkspace } from '../lib/server-process'

const durabilityOnly = process.env.COMPARE === 'durability'
const revision = durabilityOnly ? null : (process.argv[2] ?? 'HEAD')
const concurrency = Number(process.env.CONCURRENCY ?? 50)
const seconds = Number(process.env.SECONDS ?? 6)
const rounds = Number(process.env.ROUNDS ?? 4)
const scenarioKeys = (process.env.SCENARIOS ?? 'ingest').split(',').map((key) => key.trim())
for (const key of scenarioKeys) if (key !== 'ingest' && key !== 'check-in-out') throw new Error(`unknown scenario ${key} (ingest, check-in-out)`)
/** Visits per check-in client: enough for ~40 cycles/s per client over a round. */
const VISITS_PER_CLIENT = Math.min(500, Math.ceil((seconds + WARMUP_SECONDS) * 40))
const { dir, remove } = tempDir('ffos-bench-compare-')
const running: Subprocess[] = []

function git(...args: string[]) {
  const result = Bun.spawnSync(['git', ...args], { cwd: ROOT, stderr: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.toString().trim()}`)
  return result.stdout.toString().trim()
}

interface Build {
  name: string
  root: string
  env: Record<string, string>
  setupDb: string
  ingest?: IngestWorkspace
  field?: FieldWorkspace
  results: Record<string, LoadResult[]>
}

/** Starts `build` on `db` and waits until it answers. */
async function start(build: Build, db: string, port: number) {
  const server = await startReadyService(db, port, build.root, build.env)
  running.push(server)
  return server
}

/** One measured round of `scenario` on the running `build`. */
async function measure(scenario: string, build: Build, port: number): Promise<LoadResult> {
  const base = `http://127.0.0.1:${port}/api`
  if (scenario === 'ingest') {
    const { owner, field } = build.ingest!
    const listener = await startListener(port, process.env.WS === '0' ? field.token : owner.token)
    running.push(listener.process)
    const result = await ingestLoad(`${base}/app/v1/locations/batch`, field.token, concurrency, seconds)
    await listener.stop()
    return result
  }
  const workspace = build.field!
  const listener = await startListener(port, process.env.WS === '0' ? workspace.users[0].token : workspace.ownerToken)
  running.push(listener.process)
  const location = JSON.stringify({ latitude: -6.2001, longitude: 106.8002 })
  const result = await runLoad({
    base: `http://127.0.0.1:${port}`,
    concurrency,
    seconds,
    warmupSeconds: WARMUP_SECONDS,
    clients: workspace.users.map((user) => ({
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      ids: user.visitIds,
      steps: [
        { method: 'POST' as const, path: '/api/app/v1/visits/{id}/check-in', body: location },
        { method: 'POST' as const, path: '/api/app/v1/visits/{id}/check-out', body: location },
      ],
    })),
    once: true,
  })
  await listener.stop()
  if (result.exhausted) console.log(`  (${result.exhausted} clients ran out of visits before the end of the round)`)
  return result
}

const worktree = join(dir, 'worktree')
let worktreeAdded = false
try {
  const builds: Build[] = []
  if (revision === null) {
    for (const durability of ['normal', 'full'])
      builds.push({ name: `DURABILITY=${durability}`, root: ROOT, env: { DURABILITY: durability }, setupDb: join(dir, 'setup.db'), results: {} })
  } else {
    const commit = git('rev-parse', '--short', revision)
    git('worktree', 'add', '--detach', worktree, revision)
    worktreeAdded = true
    symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'))
    builds.push({ name: `${revision} (${commit})`, root: worktree, env: {}, setupDb: join(dir, 'revision.db'), results: {} })
    builds.push({ name: 'working tree', root: ROOT, env: {}, setupDb: join(dir, 'working.db'), results: {} })
  }
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/api`
  // Each build migrates and sets up its own database once: a newer schema may not suit the older
  // build. Two sides of one build share it.
  for (const [index, build] of builds.entries()) {
    const previous = builds[index - 1]
    if (previous?.setupDb === build.setupDb) {
      Object.assign(build, { ingest: previous.ingest, field: previous.field })
      continue
    }
    const server = await start(build, build.setupDb, port)
    if (scenarioKeys.includes('ingest')) build.ingest = await setUpIngestWorkspace(base)
    if (scenarioKeys.includes('check-in-out'))
      build.field = await setupFieldWorkspace(base, { fieldUsers: concurrency, visitsPerUser: VISITS_PER_CLIENT, tag: 'bench' })
    server.kill('SIGTERM')
    await server.exited
  }

  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarioKeys) {
      for (const build of round % 2 ? [...builds].reverse() : builds) {
        const db = join(dir, `round-${round}.db`)
        for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true })
        copyFileSync(build.setupDb, db)
        const server = await start(build, db, port)
        const result = await measure(scenario, build, port)
        server.kill('SIGTERM')
        await server.exited
        build.results[scenario] ??= []
        build.results[scenario].push(result)
        console.log(
          `round ${round + 1} ${scenario} ${build.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, errors ${result.errors}`,
        )
      }
    }
  }

  const listenerNote = process.env.WS === '0' ? 'no live-map listener' : 'live-map listener on'
  for (const scenario of scenarioKeys) {
    const what = scenario === 'ingest' ? 'location ingest (50-ping batches with device times)' : 'check-in + check-out (req/s counts both)'
    console.log(`\n${what}, ${concurrency} clients, ${listenerNote}, ${rounds} rounds of ${seconds} s per build, Bun ${Bun.version}\n`)
    console.log('| build | req/s per round | median req/s | median p50 ms | median p99 ms | errors |')
    console.log('| --- | --- | ---: | ---: | ---: | ---: |')
    for (const build of builds) {
      const results = build.results[scenario]
      const of = (pick: (result: LoadResult) => number) => median(results.map(pick))
      const errors = results.reduce((sum, r) => sum + r.errors, 0)
      console.log(
        `| ${build.name} | ${results.map((r) => r.rps.toFixed(0)).join(' · ')} | ${of((r) => r.rps).toFixed(0)} | ${of((r) => r.p50).toFixed(1)} | ${of((r) => r.p99).toFixed(1)} | ${errors} |`,
      )
    }
    const [before, after] = builds.map((build) => median(build.results[scenario].map((r) => r.rps)))
    const perRound = builds[1].results[scenario].map((r, i) => r.rps / builds[0].results[scenario][i].rps)
    console.log(
      `\n${builds[1].name} / ${builds[0].name}: ${((after / before) * 100).toFixed(0)}% (median req/s); per round ${perRound.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')}`,
    )
  }
} finally {
  for (const child of running) child.kill('SIGKILL')
  if (worktreeAdded) git('worktree', 'remove', '--force', worktree)
  remove()
}
