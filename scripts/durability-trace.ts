/**
 * `npm run test:durability` — proves, from the system calls of the real server, that every
 * acknowledged write was on stable storage before its answer left, and that one WAL sync serves a
 * whole group of concurrent requests.
 *
 * 1. Sets up a workspace over HTTP (field users with planned visits), then restarts the server on the
 *    same file under `strace -f` (recvfrom, sendto, write, writev, pwrite64, fsync, fdatasync, with
 *    file names and buffers).
 * 2. Fires waves of concurrent requests, each with its own idempotency key: a location batch (device
 *    times) per user and a check-in or check-out per user.
 * 3. Reads the trace. A request is its `recvfrom` on a socket (the key is in its headers), its answer
 *    the next `sendto`/`write`/`writev` on that socket. Its commit is found by its key, which it
 *    stores in the idempotency table in the same transaction: the first WAL page written that
 *    contains the key belongs to its group's commit, which ends with the next commit frame (a frame
 *    header whose "database size after commit" field is not zero). The request passes when an
 *    fsync/fdatasync of the `-wal` file was entered after that commit frame was written and returned
 *    before the answer was sent. Order is strace's own: a line is printed at a call's exit unless
 *    another thread's call came in between (then `<unfinished ...>` marks its entry), so line order is
 *    event order across threads.
 *
 * Only a group's own sync counts (`groupSyncs`): SQLite's own syncs of the WAL (a WAL started over,
 * a checkpoint of the worker or of the writer) do not, wherever they fall.
 * Under DURABILITY=full every acknowledged request must pass; under DURABILITY=normal none does, which
 * shows the check can fail.
 *
 * Options (env): DURABILITY (default full), USERS (default 20), WAVES (default 3), KEEP=1 (keep the
 * trace and print its path). Needs strace (Debian: `apt-get install -y strace`); without it, it says
 * so and exits 0.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pingBatch } from './lib/pings'
import { call, setupFieldWorkspace, startServer, tempDir, type ServerHandle } from './lib/server-process'

// ── Parsing strace's output ─────────────────────────────────────────────────────────────────────

export interface TraceCall {
  /** Line of the call's entry and of its exit (the same line unless it was interrupted). */
  entry: number
  exit: number
  pid: number
  name: string
  /** The file descriptor of the first argument. */
  fd: number
  /** The file the first argument names (`-y`): a path, or `socket:[…]`. */
  file: string
  /** The first string argument, decoded (as far as `-s` printed it). */
  data: Buffer
  result: number
}

const LINE = /^(\d+)\s+(\d+\.\d+)\s+(.*)$/
const CALL = /^([a-z0-9_]+)\((\d+)<([^>]*)>(.*)$/s

/** C-style string of strace (`"…"` with \n, \", \\, \xHH, \NNN) from `text` at `start` (the quote). */
function decodeString(text: string, start: number): Buffer {
  const bytes: number[] = []
  const simple: Record<string, number> = { n: 10, r: 13, t: 9, v: 11, f: 12, '"': 34, '\\': 92 }
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]
    if (c === '"') break
    if (c !== '\\') {
      bytes.push(c.charCodeAt(0) & 0xff)
      continue
    }
    const next = text[++i]
    if (next === 'x') {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16))
      i += 2
    } else if (next >= '0' && next <= '7') {
      let digits = next
      while (digits.length < 3 && text[i + 1] >= '0' && text[i + 1] <= '7') digits += text[++i]
      bytes.push(parseInt(digits, 8))
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0))
    }
  }
  return Buffer.from(bytes)
}

/** The calls of an `strace -f -ttt -T -x -y` output, unfinished calls joined with their resumption. */
export function parseTrace(text: string): TraceCall[] {
  const calls: TraceCall[] = []
  const unfinished = new Map<number, { entry: number; body: string }>()
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const match = LINE.exec(lines[index])
    if (!match) continue
    const pid = Number(match[1])
    let body = match[3]
    let entry = index
    if (body.endsWith('<unfinished ...>')) {
      unfinished.set(pid, { entry: index, body: body.slice(0, -'<unfinished ...>'.length) })
      continue
    }
    const resumed = /^<\.\.\. [a-z0-9_]+ resumed>(.*)$/s.exec(body)
    if (resumed) {
      const start = unfinished.get(pid)
      unfinished.delete(pid)
      if (!start) continue
      body = start.body + resumed[1]
      entry = start.entry
    }
    const parsed = CALL.exec(body)
    if (!parsed) continue
    const quote = parsed[4].indexOf('"')
    const result = /\)\s+=\s+(-?\d+)/.exec(parsed[4].slice(parsed[4].lastIndexOf(')')))
    calls.push({
      entry,
      exit: index,
      pid,
      name: parsed[1],
      fd: Number(parsed[2]),
      file: parsed[3],
      data: quote >= 0 ? decodeString(parsed[4], quote) : Buffer.alloc(0),
      result: result ? Number(result[1]) : -1,
    })
  }
  return calls
}

// ── Checking the order ──────────────────────────────────────────────────────────────────────────

export interface RequestCheck {
  key: string
  status: number | null
  /** Line of the write that ended the request's commit (its commit frame), or null if none was seen. */
  committedAt: number | null
  /** Line at which the answer was sent. */
  answeredAt: number | null
  /** The WAL sync (its entry line) that covers this answer, or null. */
  syncedBy: number | null
}

export interface TraceReport {
  requests: RequestCheck[]
  /** Acknowledged (2xx) requests without a WAL sync between their commit and their answer. */
  violations: string[]
  /** All fsync/fdatasync calls on the WAL while the requests ran. */
  walSyncs: number
  /** Distinct WAL syncs that served at least one acknowledged request, and how many each served. */
  servingSyncs: number[]
}

const isWal = (file: string) => file.endsWith('-wal')
const isSocket = (file: string) => file.startsWith('socket:') || file.startsWith('TCP') || file.startsWith('UNIX')
const SYNC_CALLS = new Set(['fsync', 'fdatasync'])
const ANSWER_CALLS = new Set(['sendto', 'write', 'writev', 'sendmsg'])

/** A WAL frame header (24 bytes) whose "database size after commit" is not zero ends a commit. */
const isCommitFrameHeader = (call: TraceCall) => call.data.length === 24 && call.data.readUInt32BE(4) !== 0

/**
 * The WAL syncs that are a commit group's own (DURABILITY=full's WalSync, on a descriptor of its own
 * through which nothing is written). SQLite's own syncs of the WAL are not, and never count for a
 * request, wherever they fall (they fall where SQLite's or the checkpoint worker's timing puts them,
 * and a run of DURABILITY=normal looked synced when one landed between a commit and its answers):
 * - a sync through the descriptor that WAL frames are written through: the writer connection's own
 *   (the header of a WAL started over, a catch-up checkpoint, the checkpoint at shutdown);
 * - a checkpoint's (`isCheckpointSync`): the checkpoint worker's connection syncs the WAL, then copies
 *   its pages into the database file.
 */
export function groupSyncs(calls: TraceCall[]): TraceCall[] {
  const writtenThrough = new Set(calls.filter((call) => call.name === 'pwrite64' && isWal(call.file)).map((call) => `${call.fd}<${call.file}>`))
  return calls.filter(
    (call, position) =>
      SYNC_CALLS.has(call.name) &&
      isWal(call.file) &&
      call.result === 0 &&
      !writtenThrough.has(`${call.fd}<${call.file}>`) &&
      !isCheckpointSync(calls, position),
  )
}

/**
 * Whether the WAL sync at `position` is a checkpoint's: a checkpoint syncs the WAL, then copies its
 * pages into the database file, so the next write of the same thread (before it syncs the WAL again)
 * is a write of the database file (the WAL's name without `-wal`). A commit group's sync is followed
 * by no write of its thread.
 */
export function isCheckpointSync(calls: TraceCall[], position: number): boolean {
  const sync = calls[position]
  for (const call of calls.slice(position + 1)) {
    if (call.pid !== sync.pid) continue
    if (call.name === 'pwrite64') return `${call.file}-wal` === sync.file
    if (SYNC_CALLS.has(call.name) && call.file === sync.file) return false
  }
  return false
}

/**
 * Checks every request whose idempotency key matches `keyPattern` (not global) in `calls`: its
 * commit, then a WAL sync entered after the commit and finished before the answer.
 */
export function checkTrace(calls: TraceCall[], keyPattern: RegExp): TraceReport {
  const requests = new Map<string, RequestCheck & { socket: string; firstWalWrite: number | null }>()
  const openOnSocket = new Map<string, string>()
  const syncs = groupSyncs(calls)
  let awaitingCommit: (RequestCheck & { firstWalWrite: number | null })[] = []
  let firstLine = Infinity
  let lastLine = -Infinity

  for (const [position, call] of calls.entries()) {
    if (call.name === 'recvfrom' && isSocket(call.file)) {
      const key = /x-idempotency-key: *([^\r\n]+)/i.exec(call.data.toString('latin1'))?.[1]
      if (!key || !keyPattern.test(key)) continue
      requests.set(key, { key, socket: call.file, status: null, committedAt: null, answeredAt: null, syncedBy: null, firstWalWrite: null })
      openOnSocket.set(call.file, key)
      firstLine = Math.min(firstLine, call.entry)
    } else if (ANSWER_CALLS.has(call.name) && isSocket(call.file)) {
      const key = openOnSocket.get(call.file)
      const text = call.data.toString('latin1')
      if (!key || !text.startsWith('HTTP/1.1 ')) continue
      openOnSocket.delete(call.file)
      const request = requests.get(key)!
      request.status = Number(text.slice(9, 12))
      request.answeredAt = call.entry
      lastLine = Math.max(lastLine, call.exit)
    } else if (call.name === 'pwrite64' && isWal(call.file)) {
      if (isCommitFrameHeader(call)) {
        // The commit frame's page follows its header: the commit is complete once that is written.
        const page = calls.slice(position + 1).find((next) => next.name === 'pwrite64' && next.pid === call.pid && isWal(next.file))
        for (const request of awaitingCommit) request.committedAt = page?.exit ?? call.exit
        awaitingCommit = []
        continue
      }
      // Searched for key by key: in a row the key is followed by other text (its fingerprint's hex
      // digits), so a pattern would read past its end.
      const page = call.data.toString('latin1')
      if (!keyPattern.test(page)) continue
      for (const request of requests.values()) {
        if (request.firstWalWrite !== null || !page.includes(request.key)) continue
        request.firstWalWrite = call.entry
        awaitingCommit.push(request)
      }
    }
  }

  const violations: string[] = []
  const served = new Map<number, number>()
  for (const request of requests.values()) {
    if (request.status === null || request.status < 200 || request.status > 299) continue
    const { committedAt, answeredAt } = request
    if (committedAt === null || answeredAt === null) {
      violations.push(`${request.key}: answered ${request.status} but no commit of it was found in the WAL writes`)
      continue
    }
    const sync = syncs.find((s) => s.entry > committedAt && s.exit < answeredAt)
    if (!sync) {
      violations.push(`${request.key}: answered ${request.status} (line ${answeredAt + 1}) with no WAL sync after its commit (line ${committedAt + 1})`)
      continue
    }
    request.syncedBy = sync.entry
    served.set(sync.entry, (served.get(sync.entry) ?? 0) + 1)
  }
  return {
    requests: [...requests.values()].map(({ key, status, committedAt, answeredAt, syncedBy }) => ({ key, status, committedAt, answeredAt, syncedBy })),
    violations,
    walSyncs: syncs.filter((s) => s.entry >= firstLine && s.entry <= lastLine).length,
    servingSyncs: [...served.values()],
  }
}

// ── Running the server under strace ─────────────────────────────────────────────────────────────

export function straceMissing(): string | null {
  const found = Bun.which('strace')
  if (!found) return 'strace is not installed (Debian: apt-get install -y strace)'
  const probe = Bun.spawnSync([found, '-f', '-qq', '-e', 'trace=fsync', '-o', '/dev/null', 'true'])
  if (probe.exitCode !== 0) return `strace cannot trace here: ${probe.stderr.toString().trim() || `exit ${probe.exitCode}`}`
  return null
}

export interface TraceRunOptions {
  durability: 'full' | 'normal'
  users?: number
  waves?: number
  env?: Record<string, string>
  keep?: boolean
  log?: (line: string) => void
}

export interface TraceRun extends TraceReport {
  durability: 'full' | 'normal'
  sent: number
  statuses: Record<string, number>
  traceFile: string | null
}

/** strace's child (the server) of the process `pid`. */
function childOf(pid: number): number | null {
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
    if (children) return Number(children.split(' ')[0])
  }
  return null
}

export async function runDurabilityTrace(options: TraceRunOptions): Promise<TraceRun> {
  const users = options.users ?? 20
  const waves = options.waves ?? 3
  const log = options.log ?? console.log
  const { dir, remove } = tempDir('ffos-durability-trace-')
  const dbPath = join(dir, 'app.db')
  const traceFile = join(dir, 'strace.txt')
  const tag = `dt${process.pid}x${Date.now() % 100_000}`
  const env = { DURABILITY: options.durability, ...options.env }
  let server: ServerHandle | null = null
  try {
    server = await startServer({ dbPath, env })
    const workspace = await setupFieldWorkspace(server.base, { fieldUsers: users, visitsPerUser: 2, tag })
    await server.stop()
    server = await startServer({
      dbPath,
      env,
      prefix: [
        'strace',
        '-f',
        '-qq',
        '-ttt',
        '-T',
        '-x',
        '-y',
        '-s',
        '4200',
        '-o',
        traceFile,
        '-e',
        'trace=recvfrom,sendto,write,writev,sendmsg,pwrite64,fsync,fdatasync',
        '--',
      ],
    })
    log(`server under strace (DURABILITY=${options.durability}); ${waves} waves of ${users} location batches + ${users} visit transitions, all at once`)

    const statuses: Record<string, number> = {}
    let sent = 0
    const epoch = Date.now() - 3_600_000
    for (let wave = 0; wave < waves; wave++) {
      const requests = workspace.users.flatMap((user, u) => {
        const visit = user.visitIds[Math.floor(wave / 2)]
        const transition = wave % 2 === 0 ? 'check-in' : 'check-out'
        const seq = wave * users + u
        return [
          { path: '/app/v1/locations/batch', body: { pings: pingBatch(seq, { recordedFromMs: epoch + seq * 1000 }) }, token: user.token },
          { path: `/app/v1/visits/${visit}/${transition}`, body: { latitude: -6.2, longitude: 106.8 }, token: user.token },
        ]
      })
      const answers = await Promise.all(
        requests.map((request, i) => call(server!.base, 'POST', request.path, { ...request, idempotencyKey: `${tag}-${wave}-${i}`, timeoutMs: 60_000 })),
      )
      for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
      sent += requests.length
    }

    // SIGTERM to strace would only detach it: stop the server itself, then let strace finish.
    const serverPid = childOf(server.pid)
    if (serverPid) process.kill(serverPid, 'SIGTERM')
    await server.proc.exited
    server = null

    const report = checkTrace(parseTrace(readFileSync(traceFile, 'latin1')), new RegExp(`${tag}-\\d+-\\d+`))
    return { ...report, durability: options.durability, sent, statuses, traceFile: options.keep ? traceFile : null }
  } finally {
    if (server) await server.kill9()
    if (!options.keep) remove()
  }
}

export function summarizeTrace(run: TraceRun): string {
  const acknowledged = run.requests.filter((r) => r.status !== null && r.status >= 200 && r.status < 300).length
  const served = run.servingSyncs
  const lines = [
    `DURABILITY=${run.durability}: ${run.sent} requests sent, answers ${JSON.stringify(run.statuses)}; ${run.requests.length} found in the trace, ${acknowledged} acknowledged (2xx)`,
    `acknowledged after a WAL sync that followed their commit: ${acknowledged - run.violations.length} of ${acknowledged}; violations: ${run.violations.length}`,
    `WAL syncs while the requests ran: ${run.walSyncs}; syncs that served acknowledged requests: ${served.length}` +
      (served.length ? ` (requests per sync: mean ${(served.reduce((a, b) => a + b, 0) / served.length).toFixed(1)}, max ${Math.max(...served)})` : ''),
  ]
  for (const violation of run.violations.slice(0, 5)) lines.push(`  ${violation}`)
  if (run.violations.length > 5) lines.push(`  … ${run.violations.length - 5} more`)
  if (run.traceFile) lines.push(`trace: ${run.traceFile}`)
  return lines.join('\n')
}

if (import.meta.main) {
  const missing = straceMissing()
  if (missing) {
    console.log(`skipped: ${missing}`)
    process.exit(0)
  }
  const durability = process.env.DURABILITY === 'normal' ? 'normal' : 'full'
  const run = await runDurabilityTrace({
    durability,
    users: Number(process.env.USERS ?? 20),
    waves: Number(process.env.WAVES ?? 3),
    keep: process.env.KEEP === '1',
    // Regional lookups are not what is traced here (upstream mode: no prepared regional file opened).
    env: { REGIONAL_SERVICE_URL: 'http://127.0.0.1:9/' },
  })
  console.log(summarizeTrace(run))
  process.exit(durability === 'full' && run.violations.length ? 1 : 0)
}
