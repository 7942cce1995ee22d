/**
 * Structured JSON lines on stdout/stderr. One object per event, so a log collector can filter by
 * request id, user or workspace without parsing prose.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

export function createLogger(level: LogLevel): Logger {
  const write =
    (at: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (RANK[at] < RANK[level]) return
      const line = JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })
      if (RANK[at] >= RANK.warn) process.stderr.write(`${line}\n`)
      else process.stdout.write(`${line}\n`)
    }
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') }
}

/** An error as log fields: message and stack for us, never for the client. */
export const errorFields = (error: unknown) => (error instanceof Error ? { error: error.message, stack: error.stack } : { error: String(error) })
