/**
 * The `ffos` executable (`npm run build` → dist/ffos) and the npm scripts share these commands:
 *
 *   ffos                               serve (the same environment as `npm start`)
 *   ffos backup FILE                   online backup of the database into FILE (the server keeps running)
 *   ffos restore FILE                  puts FILE in place of the database; stop the server first
 *   ffos regional-export DIR           the embedded regional data as static JSON files (README.md)
 *   ffos health                        asks the running server (GET http://127.0.0.1:$PORT/api/health):
 *                                      exit 0 when it answers healthy within HEALTH_TIMEOUT_MS, 1 otherwise
 *                                      (the container's HEALTHCHECK; it opens no database and no file)
 *   ffos create-workspace --workspace NAME --name NAME --email EMAIL
 *                                      the first workspace and its super_admin, also when
 *                                      REGISTRATION_ENABLED=false; the password is read from stdin
 *                                      (one line; typed without echo on a terminal), never from the
 *                                      command line, where `ps` shows it
 *
 * The database is the one DATABASE_URL names (default ./data/app.db), as for `npm start`.
 */
import { dirname, resolve } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { ConfigError, loadConfig, type Config } from './config/env'
import { BackupError, backupDatabase, restoreDatabase } from './db/backup'
import { openDatabase } from './db/client'
import { StartupError, ensureWritableDirectory } from './startup'

/** A failure the user can fix: printed alone (no stack) and exit code 1. */
export class CliError extends Error {}

const USAGE = `usage:
  ffos                          serve
  ffos backup FILE              online backup into FILE
  ffos restore FILE             restore FILE (server stopped)
  ffos regional-export DIR      write the regional data as JSON files
  ffos health                   exit 0 when the server on PORT answers healthy, 1 otherwise
  ffos create-workspace --workspace NAME --name NAME --email EMAIL   (password on stdin)`

type Print = (line: string) => void

export interface CliIo {
  out: Print
  err: Print
  /** The first line of standard input (the password of create-workspace). */
  readLine(prompt: string): Promise<string | null>
}

const processIo: CliIo = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  readLine: async (prompt) => {
    if (process.stdin.isTTY) return readWithoutEcho(prompt)
    for await (const line of console) return line
    return null
  },
}

/**
 * One line typed on the terminal, not shown (a password; someone may be looking at the screen or
 * recording the session). Raw mode turns the terminal's echo off, so the keys are handled here:
 * Enter ends the line, Backspace removes a character, Ctrl-C stops the command (exit 130), Ctrl-D on
 * an empty line is the end of input. The prompt is written once echo is off, so nothing typed after
 * it can be shown.
 */
function readWithoutEcho(prompt: string): Promise<string | null> {
  const stdin = process.stdin
  stdin.setRawMode(true)
  stdin.resume()
  process.stderr.write(prompt)
  return new Promise((resolve) => {
    let line = ''
    const finish = (value: string | null) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      resolve(value)
    }
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n') return finish(line)
        if (char === '\u0003') {
          finish(null)
          process.exit(130)
        }
        if (char === '\u0004') {
          if (line === '') return finish(null)
          continue
        }
        if (char === '\u007f' || char === '\b') line = Array.from(line).slice(0, -1).join('')
        else if (char >= ' ') line += char
      }
    }
    stdin.on('data', onData)
  })
}

/** Runs one command; resolves with the exit code. `serve` never resolves (the server runs). */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command = 'serve', ...args] = argv
  try {
    switch (command) {
      case 'serve':
        // server.ts boots on import (it is also `npm start`'s entry point) and stops on SIGTERM/SIGINT.
        await import('./server')
        return await new Promise<number>(() => {})
      case 'backup':
        return backup(config(), single(args, 'FILE'), io)
      case 'restore':
        return restore(config(), single(args, 'FILE'), io)
      case 'regional-export': {
        const dir = resolve(single(args, 'DIR'))
        const { exportRegionalTree } = await import('./modules/regional/regional.export')
        io.out(JSON.stringify({ dir, ...exportRegionalTree(dir) }))
        return 0
      }
      case 'create-workspace':
        return await createWorkspace(config(), options(args), io)
      case 'health':
        if (args.length) throw new CliError(`health takes no arguments\n${USAGE}`)
        return await health(config(), io)
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return 0
      default:
        throw new CliError(`unknown command: ${command}\n${USAGE}`)
    }
  } catch (error) {
    if (error instanceof CliError || error instanceof BackupError || error instanceof ConfigError || error instanceof StartupError) {
      io.err(error.message)
      return 1
    }
    throw error
  }
}

function config(): Config {
  return loadConfig()
}

function single(args: string[], name: string): string {
  const values = args.filter((arg) => !arg.startsWith('--'))
  if (values.length !== 1) throw new CliError(`expected one ${name}\n${USAGE}`)
  return values[0]!
}

/** `--key value` and `--key=value` pairs. */
function options(args: string[]): Record<string, string> {
  const result: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(args[i]!)
    if (!match) throw new CliError(`unexpected argument: ${args[i]}\n${USAGE}`)
    const value = match[2] ?? args[++i]
    if (value === undefined) throw new CliError(`--${match[1]} needs a value`)
    result[match[1]!] = value
  }
  return result
}

/** How long `ffos health` waits for the answer: well under a container health check's own timeout. */
export const HEALTH_TIMEOUT_MS = 3_000

/**
 * GET /api/health of the server this environment describes (PORT; HOST when it names one address,
 * 127.0.0.1 when it is a wildcard): 0 when it answers 200 with `data.status: ok`, 1 otherwise.
 */
async function health(config: Config, io: CliIo): Promise<number> {
  const host = ['0.0.0.0', '::', '[::]'].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST
  const url = `http://${host}:${config.PORT}/api/health`
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) })
    const body = (await response.json().catch(() => null)) as { data?: { status?: string; db?: string } } | null
    if (response.status === 200 && body?.data?.status === 'ok') {
      io.out(`healthy: ${url}`)
      return 0
    }
    io.err(`unhealthy: ${url} answered ${response.status}${body?.data?.db ? ` (db: ${body.data.db})` : ''}`)
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${HEALTH_TIMEOUT_MS} ms` : (error as Error).message
    io.err(`unhealthy: ${url}: ${reason}`)
  }
  return 1
}

function embeddedPath(config: Config): string {
  const path = config.database.path
  if (!path) throw new CliError(`${config.database.url} is a libSQL server: back it up with the server's own tools`)
  return path
}

function backup(config: Config, file: string, io: CliIo): number {
  const source = embeddedPath(config)
  const result = backupDatabase(source, file)
  io.out(`backed up ${source} into ${result.file}: ${(result.bytes / 1024 / 1024).toFixed(1)} MiB in ${result.milliseconds} ms, integrity ok`)
  return 0
}

function restore(config: Config, file: string, io: CliIo): number {
  const target = embeddedPath(config)
  const { previous } = restoreDatabase(file, target)
  io.out(`restored ${file} into ${target}${previous ? ` (the replaced database is kept as ${previous})` : ''}`)
  return 0
}

/**
 * The same workspace, built-in roles, super_admin membership and audit entries as POST
 * /api/auth/register (it runs that service), with its input checked by the same body schema; the
 * REGISTRATION_ENABLED switch guards the public route, not the operator holding the database.
 */
async function createWorkspace(config: Config, given: Record<string, string>, io: CliIo): Promise<number> {
  const unknown = Object.keys(given).filter((key) => !['workspace', 'name', 'email'].includes(key))
  if (unknown.length) throw new CliError(`unknown option --${unknown[0]}\n${USAGE}`)
  const password = (await io.readLine('Password: '))?.replace(/\r$/, '') ?? ''
  const { RegisterBody } = await import('./modules/auth/auth.schemas')
  const candidate = { workspace_name: given.workspace, name: given.name, email: given.email, password }
  const problems = [...Value.Errors(RegisterBody, candidate)].map((error) => `${error.path.slice(1) || 'input'}: ${error.message}`)
  if (problems.length) throw new CliError(`invalid input (--workspace, --name, --email; the password on stdin):\n  ${problems.join('\n  ')}`)
  const input = Value.Decode(RegisterBody, candidate)

  if (config.database.path && config.database.path !== ':memory:') ensureWritableDirectory('DATABASE_URL', dirname(config.database.path))
  const db = await openDatabase(config)
  try {
    await db.migrate()
    const { createApp } = await import('./app')
    const { systemContext } = await import('./platform/context')
    const { register } = await import('./modules/auth/auth.service')
    const { AppError } = await import('./lib/errors')
    const { deps } = await createApp({ db, config: { ...config, REGISTRATION_ENABLED: true }, logger: silentLogger })
    try {
      const session = await register(systemContext(deps, 'create-workspace'), input)
      io.out(`created workspace ${session.user.workspace_id} "${input.workspace_name}" with super_admin ${session.user.email} (user ${session.user.id})`)
      return 0
    } catch (error) {
      if (error instanceof AppError) throw new CliError(`${error.code}: ${error.message}`)
      throw error
    }
  } finally {
    await db.close()
  }
}

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} }

if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2))
}
