/**
 * What the start checks before it touches the database, so an ordinary mistake of the operator ends
 * the process with one JSON line naming the setting to fix (and exit code 1) instead of a stack trace,
 * a 500 at the first photo, or a second server quietly sharing the port:
 *
 *   - PORT is free. Bun binds with SO_REUSEPORT by default, so a second instance on a taken port would
 *     start without a word and the kernel would split the connections between the two processes (and,
 *     when they use different databases, between two sets of data). The port is probed without
 *     SO_REUSEPORT before the database is opened (a second instance must not resume the first one's
 *     export jobs), and the server itself binds with `reusePort: false` (./server.ts) for the race.
 *   - The directories of DATABASE_URL (a `file:` database), UPLOAD_DIR and EXPORT_DIR exist (created
 *     when missing) and a file can be written in each: a probe file is created and removed, which also
 *     catches a read-only mount that `access(W_OK)` would pass for root.
 *
 * And what it only warns about (one JSON line each at `warn`), because the service runs but an
 * operator would not want it so: PUBLIC_URL still pointing at localhost with NODE_ENV=production (the
 * password-reset links in e-mails would lead nowhere), and /api/metrics open (no METRICS_TOKEN) while
 * HOST is not a loopback address.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, resolve } from 'node:path'
import type { Config } from './config/env'
import { describeFsError } from './lib/fs-errors'

/** A start refused because of a setting; `message` is the one line the operator reads. */
export class StartupError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message)
  }
}

/** Throws StartupError when PORT is taken (or may not be bound) on HOST. PORT=0 (any free port) is always fine. */
export async function assertPortFree(config: Pick<Config, 'PORT' | 'HOST'>): Promise<void> {
  if (config.PORT === 0) return
  const failure = await new Promise<NodeJS.ErrnoException | null>((done) => {
    const probe = createServer()
    probe.once('error', (error) => done(error))
    // `exclusive`: no handle shared with a cluster; node:net never sets SO_REUSEPORT.
    probe.listen({ port: config.PORT, host: config.HOST, exclusive: true }, () => probe.close(() => done(null)))
  })
  if (failure) throw portError(config, failure)
}

/** The StartupError for a failed bind of PORT (the probe above, or the server's own listen). */
export function portError(config: Pick<Config, 'PORT' | 'HOST'>, error: unknown): StartupError {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (code === 'EADDRINUSE') {
    return new StartupError(
      'PORT',
      `PORT ${config.PORT} is already in use on ${config.HOST} (address already in use): another process (perhaps another ffos) listens there; stop it or set PORT to a free port`,
    )
  }
  if (code === 'EACCES') {
    return new StartupError('PORT', `PORT ${config.PORT} may not be bound on ${config.HOST} by this user (permission denied); use a port above 1023`)
  }
  const reason = error instanceof Error ? error.message : String(error)
  return new StartupError('PORT', `PORT ${config.PORT} could not be bound on ${config.HOST}: ${reason}`)
}

/** The directories the server writes to, by the setting that names them. */
export function writableDirectories(config: Config): { setting: string; dir: string }[] {
  const dirs: { setting: string; dir: string }[] = []
  const path = config.database.path
  if (path && path !== ':memory:') dirs.push({ setting: 'DATABASE_URL', dir: dirname(path) })
  dirs.push({ setting: 'UPLOAD_DIR', dir: config.UPLOAD_DIR }, { setting: 'EXPORT_DIR', dir: config.EXPORT_DIR })
  return dirs
}

/** Creates each directory the server writes to when missing and checks a file can be written there. */
export function prepareDirectories(config: Config): void {
  for (const { setting, dir } of writableDirectories(config)) ensureWritableDirectory(setting, dir)
}

export function ensureWritableDirectory(setting: string, dir: string): void {
  const absolute = resolve(dir)
  try {
    mkdirSync(absolute, { recursive: true })
  } catch (error) {
    throw new StartupError(
      setting,
      `${setting}: the directory ${absolute} cannot be created (${describeFsError(error)}); create it or point ${setting} elsewhere`,
    )
  }
  const probe = resolve(absolute, `.ffos-write-check-${process.pid}`)
  try {
    writeFileSync(probe, '')
    rmSync(probe, { force: true })
  } catch (error) {
    throw new StartupError(
      setting,
      `${setting}: no file can be written in ${absolute} (${describeFsError(error)}); make it writable for this user or point ${setting} elsewhere`,
    )
  }
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|\[::1\])$/i

/** Settings an operator would not want in production: each a message and its fields, logged at warn. */
export function startupWarnings(config: Config): { message: string; fields: Record<string, unknown> }[] {
  const warnings: { message: string; fields: Record<string, unknown> }[] = []
  const publicHost = new URL(config.PUBLIC_URL).hostname
  if (config.NODE_ENV === 'production' && LOOPBACK.test(publicHost)) {
    warnings.push({
      message: 'PUBLIC_URL still points at this machine: links in e-mails (password reset) will not reach users; set PUBLIC_URL to the address clients use',
      fields: { setting: 'PUBLIC_URL', value: config.PUBLIC_URL },
    })
  }
  if (!config.METRICS_TOKEN && !LOOPBACK.test(config.HOST)) {
    warnings.push({
      message: 'GET /api/metrics is open to anyone who reaches this port: set METRICS_TOKEN (16+ characters) to require it as a bearer token',
      fields: { setting: 'METRICS_TOKEN', host: config.HOST },
    })
  }
  return warnings
}
