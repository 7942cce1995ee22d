/**
 * `bun run bench:compare [REV]` — the location-ingest scenario of `bench:locations` on two builds of
 * the service: git revision REV (default HEAD) and this working tree, taking turns round by round
 * (the order flips every round), each round a fresh process on its own copy of a database the build
 * set up for itself. Prints every round and the medians: the way to tell whether a change helps when
 * the machine's own speed drifts by ±15% within minutes (docs/PERFORMANCE.md).
 *
 * Options (env): CONCURRENCY (default 50), SECONDS per round (default 6), ROUNDS per build
 * (default 4), WS=0 (no live-map listener).
 */
import { copyFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, ROOT, startReadyService, tempDir } from './common'
import { ingestLoad, median, setUpIngestWorkspace, startListener, type IngestWorkspace } from './ingest'
import type { LoadResult } from './load'

const revision = process.argv[2] ?? 'HEAD'
const concurrency = Number(process.env.CONCURRENCY ?? 50)
const seconds = Number(process.env.SECONDS ?? 6)
const rounds = Number(process.env.ROUNDS ?? 4)
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
  setupDb: string
  workspace?: IngestWorkspace
  results: LoadResult[]
}

/** Starts `build` on `db` and waits until it answers. */
async function start(build: Build, db: string, port: number) {
  const server = await startReadyService(db, port, build.root)
  running.push(server)
  return server
}

const worktree = join(dir, 'worktree')
try {
  const commit = git('rev-parse', '--short', revision)
  git('worktree', 'add', '--detach', worktree, revision)
  symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'))
  const builds: Build[] = [
    { name: `${revision} (${commit})`, root: worktree, setupDb: join(dir, 'revision.db'), results: [] },
    { name: 'working tree', root: ROOT, setupDb: join(dir, 'working.db'), results: [] },
  ]
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/api`
  // Each build migrates and sets up its own database once: a newer schema may not suit the older build.
  for (const build of builds) {
    const server = await start(build, build.setupDb, port)
    build.workspace = await setUpIngestWorkspace(base)
    server.kill('SIGTERM')
    await server.exited
  }

  for (let round = 0; round < rounds; round++) {
    for (const build of round % 2 ? [...builds].reverse() : builds) {
      const db = join(dir, `round-${round}.db`)
      for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true })
      copyFileSync(build.setupDb, db)
      const server = await start(build, db, port)
      const { owner, field } = build.workspace!
      const listener = await startListener(port, process.env.WS === '0' ? field.token : owner.token)
      running.push(listener.process)
      const result = await ingestLoad(`${base}/app/v1/locations/batch`, field.token, concurrency, seconds)
      await listener.stop()
      server.kill('SIGTERM')
      await server.exited
      build.results.push(result)
      console.log(`round ${round + 1} ${build.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, errors ${result.errors}`)
    }
  }

  console.log(`\nlocation ingest, ${concurrency} clients, ${rounds} rounds of ${seconds} s per build, Bun ${Bun.version}\n`)
  console.log('| build | req/s per round | median req/s | median p50 ms | median p99 ms |')
  console.log('| --- | --- | ---: | ---: | ---: |')
  for (const build of builds) {
    const of = (pick: (result: LoadResult) => number) => median(build.results.map(pick))
    console.log(
      `| ${build.name} | ${build.results.map((r) => r.rps.toFixed(0)).join(' · ')} | ${of((r) => r.rps).toFixed(0)} | ${of((r) => r.p50).toFixed(1)} | ${of((r) => r.p99).toFixed(1)} |`,
    )
  }
  const [before, after] = builds.map((build) => median(build.results.map((r) => r.rps)))
  console.log(`\nworking tree / ${revision}: ${((after / before) * 100).toFixed(0)}% (median req/s)`)
} finally {
  for (const child of running) child.kill('SIGKILL')
  try {
    git('worktree', 'remove', '--force', worktree)
  } catch {
    // never added
  }
  remove()
}
