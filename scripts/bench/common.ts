/**
 * Shared benchmark plumbing: start the real server (or a ceiling server) pinned to one core, drive
 * it with scripts/bench/load.ts pinned to the other, read the server's peak RSS, print a table.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { placement, ROOT } from '../lib/server-process'
import type { LoadResult, LoadSpec } from './load'

export { freePort, ROOT, tempDir } from '../lib/server-process'
const cores = navigator.hardwareConcurrency
/** Server on core 0, load generator on core 1 (on a 2-core machine); no pinning on one core. */
export const pin = (core: number) => (cores >= 2 ? ['taskset', '-c', String(core)] : [])

export async function waitFor(url: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not up yet
    }
    await Bun.sleep(50)
  }
  throw new Error(`${url} did not come up`)
}

export function startProcess(command: string[], env: Record<string, string>, core = 0): Subprocess {
  return Bun.spawn([...pin(core), ...command], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
}

/**
 * The real server (`src/server.ts` of `root`, this checkout by default) on core 0 with production
 * settings and quiet logs, on `dbPath` (uploads and exports next to it), plus `env`. Not yet ready:
 * wait for `/api/health`.
 */
export function startService(dbPath: string, port: number, root = ROOT, env: Record<string, string> = {}): Subprocess {
  // SERVICE_CPU_PROF=DIR: the service writes a CPU profile (.cpuprofile) into DIR when it stops.
  const profile = process.env.SERVICE_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.SERVICE_CPU_PROF] : []
  return startProcess([process.execPath, ...profile, join(root, 'src/server.ts')], {
    ...placement(dbPath, port),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL: '2h',
    ...env,
  })
}

/** `startService`, and answers once the server serves `/api/health`. */
export async function startReadyService(dbPath: string, port: number, root = ROOT, env: Record<string, string> = {}): Promise<Subprocess> {
  const server = startService(dbPath, port, root, env)
  try {
    await waitFor(`http://127.0.0.1:${port}/api/health`)
  } catch (error) {
    server.kill('SIGKILL')
    throw error
  }
  return server
}

/**
 * A /proc `stat` line (a process's, or one thread's under /proc/PID/task): its command name and the
 * fields after it (Linux; null elsewhere or once it is gone). The name is read to the last `)`, since
 * a name may itself hold one.
 */
function procStat(path: string): { name: string; fields: string[] } | null {
  try {
    const line = readFileSync(path, 'utf8')
    const end = line.lastIndexOf(')')
    return { name: line.slice(line.indexOf('(') + 1, end), fields: line.slice(end + 2).split(' ') }
  } catch {
    return null
  }
}

/** utime and stime (fields 14 and 15 of the line; 12 and 13 after the command), in clock ticks of 1/100 s. */
const cpuTicks = (fields: string[]) => Number(fields[11]) + Number(fields[12])

/**
 * CPU seconds a process (all its threads) has used so far (0 when unknown). A run's CPU time per answer
 * is the cost of a request on the server whatever else the machine runs: on a shared machine req/s
 * swings with the other processes, CPU per request much less.
 */
export function cpuSeconds(pid: number): number {
  const stat = procStat(`/proc/${pid}/stat`)
  return stat ? cpuTicks(stat.fields) / 100 : 0
}

/**
 * Clock ticks (1/100 s) used so far by each of a process's JIT compiler threads (JavaScriptCore's
 * `JITWorker`s), by thread id; empty when unknown. They compile on the core the server serves from, so
 * while they work a closed loop measures the compiler as much as the server. JavaScriptCore may end an
 * idle one and start another: compare two readings with `jitSecondsBetween`.
 */
export function jitTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>()
  let tasks: string[] = []
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return ticks
  }
  for (const task of tasks) {
    // null: the thread ended between the listing and the read.
    const stat = procStat(`/proc/${pid}/task/${task}/stat`)
    if (stat?.name === 'JITWorker') ticks.set(task, cpuTicks(stat.fields))
  }
  return ticks
}

/** JIT CPU seconds between two readings of `jitTicks` (a thread that ended between them takes its last ticks with it). */
export function jitSecondsBetween(before: Map<string, number>, after: Map<string, number>): number {
  let ticks = 0
  for (const [task, now] of after) ticks += Math.max(0, now - (before.get(task) ?? 0))
  return ticks / 100
}

/** Minor page faults of a process so far (0 when unknown): memory it had to fault in. */
export function minorFaults(pid: number): number {
  const stat = procStat(`/proc/${pid}/stat`)
  return stat ? Number(stat.fields[7]) : 0
}

/** Peak resident set size of a process in MiB (Linux VmHWM). */
export function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
    return Math.round((kb / 1024) * 10) / 10
  } catch {
    return 0
  }
}

export async function load(spec: LoadSpec): Promise<LoadResult> {
  const child = Bun.spawn([...pin(1), process.execPath, join(ROOT, 'scripts/bench/load.ts')], {
    stdin: new Blob([JSON.stringify(spec)]),
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const output = await new Response(child.stdout).text()
  await child.exited
  return JSON.parse(output.trim().split('\n').pop()!) as LoadResult
}

export interface Row {
  scenario: string
  target: string
  result: LoadResult
  rssMiB: number
}

export function printTable(rows: Row[]) {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  console.log(line(['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MiB']))
  console.log(line(['---', '---', '---:', '---:', '---:', '---:', '---:']))
  for (const row of rows) {
    console.log(
      line([
        row.scenario,
        row.target,
        row.result.rps.toFixed(0),
        row.result.p50.toFixed(2),
        row.result.p99.toFixed(2),
        String(row.result.errors),
        String(row.rssMiB),
      ]),
    )
  }
}

/**
 * Where two answers differ, as JSON paths with both values (key order aside), at most `max` of them; none
 * when they are the same. A ceiling that answers less (a field the service added since) does less work,
 * and its ratio flatters the service: until 2026-11-26 the visit reads' ceiling lacked eight of the
 * detail's fields and the outlet list's its geofence, which the row counts compared then could not see.
 */
export function differences(a: unknown, b: unknown, max = 8, path = '$', found: string[] = []): string[] {
  if (a === b || found.length >= max) return found
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    found.push(`${path}: ${JSON.stringify(a)?.slice(0, 80)} against ${JSON.stringify(b)?.slice(0, 80)}`)
    return found
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
    differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], max, Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`, found)
  return found
}

/** Stops the run when a ceiling answered otherwise than the service (`differing`, from `differences`). */
export function refuseDifferences(where: string, differing: readonly string[]) {
  if (differing.length) throw new Error(`${where}: a ceiling answers otherwise than the service (service first):\n  ${differing.join('\n  ')}`)
}

/**
 * What a write's answer says, for comparing two servers whose answers cannot be the same (new ids, times):
 * its envelope's code and message, and the JSON path of every field it has (array items as `[]`), so a
 * field one answer lacks shows in `differences` as `$.fields.<path>`.
 */
export function writeShape(answer: unknown): { code: unknown; message: unknown; fields: Record<string, true> } {
  const fields: Record<string, true> = {}
  const walk = (value: unknown, path: string) => {
    if (typeof value !== 'object' || value === null) return
    for (const [key, item] of Object.entries(value)) {
      const at = Array.isArray(value) ? `${path}[]` : `${path}.${key}`
      fields[at] = true
      walk(item, at)
    }
  }
  walk(answer, '$')
  const { code, message } = (answer ?? {}) as { code?: unknown; message?: unknown }
  return { code, message, fields }
}
