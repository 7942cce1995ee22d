/**
 * `bun scripts/measure-first-start.ts [--rounds N] [TARGET…]` — a first start on an empty data directory,
 * nothing else: the time from spawning the process to the first healthy `GET /api/health`, and the
 * process's `VmHWM` (resident high-water mark, MiB) at that moment. TARGET is a directory holding the
 * service's sources (started as `bun src/server.ts` there, what `npm start` runs once its `prestart` is
 * done) or an executable (dist/ffos); the default is this repository's sources. With several targets
 * the rounds take turns (target 1, target 2, …, target 1, …), so a machine whose load changes during
 * the run weighs on each alike; to compare two commits, check the older one out elsewhere (`git
 * archive`) and pass both. Figures go to docs/PERFORMANCE.md; scripts/measure-rss.ts measures the
 * same start followed by an ingest load.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, placement } from './lib/server-process'

const args = process.argv.slice(2)
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 5
const targets = (args.length ? args : [join(import.meta.dir, '..')]).map((target) => resolve(target))

function command(target: string): { cwd: string; argv: string[] } {
  return statSync(target).isDirectory() ? { cwd: target, argv: [process.execPath, 'src/server.ts'] } : { cwd: tmpdir(), argv: [target] }
}

const peakMiB = (pid: number) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)

const results = new Map<string, { ms: number; peakMiB: number }[]>(targets.map((target) => [target, []]))
for (let round = 0; round < rounds; round++) {
  for (const target of targets) {
    const { cwd, argv } = command(target)
    const dataDir = mkdtempSync(join(tmpdir(), 'ffos-first-start-'))
    const port = await freePort()
    const started = performance.now()
    const server = Bun.spawn(argv, {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...placement(join(dataDir, 'app.db'), port), LOG_LEVEL: 'warn' },
      stdout: 'ignore',
      stderr: 'inherit',
    })
    try {
      while (
        !(await fetch(`http://127.0.0.1:${port}/api/health`).then(
          (response) => response.ok,
          () => false,
        ))
      ) {
        if (server.exitCode !== null) throw new Error(`${target}: the server exited (${server.exitCode})`)
        if (performance.now() - started > 240_000) throw new Error(`${target}: the server did not become healthy`)
        await Bun.sleep(20)
      }
      results.get(target)!.push({ ms: Math.round(performance.now() - started), peakMiB: peakMiB(server.pid) })
    } finally {
      server.kill('SIGTERM')
      await server.exited
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
for (const [target, runs] of results) {
  console.log(JSON.stringify({ target, toHealthyMs: runs.map((run) => run.ms), peakMiB: runs.map((run) => run.peakMiB), loadAverage: load }))
}
