/**
 * The only reader of process.env. Everything the service can be told from outside is declared here,
 * validated with zod, and handed to the rest of the code as a plain `Config` object. A bad value
 * stops the process at start (fail fast) instead of surfacing as a strange error later.
 */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { isTimeZone } from '../lib/time-zones'
import { DEFAULT_MEMORY_BUDGET_MB, MAX_MEMORY_BUDGET_MB, MIN_MEMORY_BUDGET_MB, memoryShares, type MemoryShares } from './memory-budget'

const DURATION = /^(\d+)(ms|s|m|h|d)$/
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** `15m`, `30d`, `900s` → milliseconds. */
export function parseDuration(value: string): number {
  const match = DURATION.exec(value)
  if (!match) throw new Error(`invalid duration: ${value}`)
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
}

const duration = z
  .string()
  .regex(DURATION, 'a number followed by ms, s, m, h or d (e.g. 15m)')
  .transform(parseDuration)
  .refine((ms) => ms > 0, 'must be greater than zero')

const flag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes')

const EnvSchema = z.object({
  /**
   * Only `production` changes anything (the start-up warnings in src/platform/startup-checks.ts). Any other
   * value (`staging`, a typo) is ignored as if unset, not fatal: NODE_ENV is shared with other tools.
   */
  NODE_ENV: z
    .string()
    .optional()
    .transform((value) => (value === 'production' || value === 'test' ? value : 'development')),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/, 'file:…, libsql://…, http(s)://… or ws(s)://…')
    .default('file:./data/app.db'),
  DATABASE_AUTH_TOKEN: z.string().min(1).optional(),
  /** Forces the libSQL client on a `file:` URL (the test suite exercises that path with it). */
  DATABASE_DRIVER: z.enum(['bun-sqlite', 'libsql']).optional(),
  /**
   * Of a `file:` database (either driver). `full`: no write is answered before it is on stable
   * storage (one WAL sync per commit group); `normal`: it survives a crash of the process, but the last
   * transactions before a power loss or host crash may be lost. A remote libSQL server keeps its own.
   */
  DURABILITY: z.enum(['full', 'normal']).default('full'),
  JWT_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  ACCESS_TOKEN_TTL: duration.default(parseDuration('15m')),
  REFRESH_TOKEN_TTL: duration.default(parseDuration('30d')),
  REGISTRATION_ENABLED: flag.default(true),
  /** The time zone of new workspaces (an IANA name): their "today" and calendar days. */
  DEFAULT_TIMEZONE: z.string().refine(isTimeZone, 'an IANA time zone name, e.g. Asia/Jakarta').default('UTC'),
  /** Registrations per client IP per hour; `0` turns the limit off (test harnesses). */
  REGISTER_LIMIT_PER_HOUR: z.coerce.number().int().min(0).max(1_000_000).default(10),
  /**
   * Failed password checks (wrong login, unknown reset token) per client IP per 15 minutes, whatever
   * the email; more answer 429. `0` turns the limit off (test harnesses).
   */
  PASSWORD_FAILURES_PER_IP: z.coerce.number().int().min(0).max(1_000_000).default(30),
  REGIONAL_SERVICE_URL: z.url().optional(),
  /** How long one upstream regional request may take before the answer is 503 REGIONAL_SERVICE_ERROR. */
  REGIONAL_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(3_000),
  UPLOAD_DIR: z.string().min(1).default('./data/uploads'),
  /** Where export files are written (removed after 7 days). */
  EXPORT_DIR: z.string().min(1).default('./data/exports'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'smtp://… or smtps://…')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Field Force <no-reply@localhost>'),
  /** Base URL put into e-mailed links (password reset). */
  PUBLIC_URL: z.url().default('http://localhost:3000'),
  /**
   * Which proxies to believe for the client IP (every limiter keys on it, audit entries record it).
   * `false` (`0`, `no`): none, the socket's address. A number N (`true`, `yes` = 1): N proxies of
   * yours each append the address they were reached from to X-Forwarded-For, so the client is the
   * N-th entry from the right; entries left of it are the client's own to write and never read.
   * `fly`: Fly.io's edge, whose Fly-Client-IP is the client (Fly appends the app's own address as the
   * right-most X-Forwarded-For entry, so a hop count is wrong there).
   */
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|yes|no|fly|[0-9]{1,2})$/, 'false, true, a number of proxy hops (0-99) or fly')
    .transform((value): number | 'fly' => {
      if (value === 'fly') return 'fly'
      if (value === 'true' || value === 'yes') return 1
      if (value === 'false' || value === 'no') return 0
      return Number(value)
    })
    .default(0),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /**
   * The memory the process may use, in MiB: every in-memory store (SQLite page caches, the socket replay
   * log, the caches) takes its share of it (./memory-budget.ts). 128 on a 256 MB machine (README.md "Memory").
   */
  MEMORY_BUDGET_MB: z.coerce
    .number()
    .int(`a whole number of MiB from ${MIN_MEMORY_BUDGET_MB} to ${MAX_MEMORY_BUDGET_MB} (128 on a 256 MB machine)`)
    .min(MIN_MEMORY_BUDGET_MB, `at least ${MIN_MEMORY_BUDGET_MB} (MiB): the runtime alone needs most of that`)
    .max(MAX_MEMORY_BUDGET_MB, `at most ${MAX_MEMORY_BUDGET_MB} (MiB)`)
    .default(DEFAULT_MEMORY_BUDGET_MB),
  /** Page cache of each of the two SQLite connections, in MiB; unset, MEMORY_BUDGET_MB decides it (README.md "Memory"). */
  SQLITE_CACHE_MB: z.coerce.number().int().min(1).max(4096).optional(),
  /** When set, GET /api/metrics requires `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open. */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * Push through Firebase Cloud Messaging (android and ios tokens): a Google service-account JSON, inline
   * or the path of its file. Unset: those tokens are stored only (README.md "Push notifications").
   */
  FCM_SERVICE_ACCOUNT: z.string().optional(),
  /** Where FCM's HTTP v1 API is (tests point it at a fake). */
  FCM_BASE_URL: z.url().default('https://fcm.googleapis.com'),
  /** Web Push (web tokens): the VAPID key pair (`npm run push:vapid-keys`) and a `mailto:` or `https:` contact. All three or none. */
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{87}$/, 'an uncompressed P-256 public key in base64url (npm run push:vapid-keys)')
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'a P-256 private key in base64url (npm run push:vapid-keys)')
    .optional(),
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)\S+$/, 'mailto:you@example.com or an https: URL')
    .optional(),
  /** Test harnesses only: Web Push endpoints on private or loopback addresses, and http:, are accepted. */
  PUSH_ALLOW_PRIVATE_ENDPOINTS: flag.default(false),
})

export type Env = z.infer<typeof EnvSchema>

/** The fields of a Google service-account key file that FCM's OAuth flow needs. */
export interface ServiceAccount {
  project_id: string
  client_email: string
  private_key: string
  private_key_id?: string
  token_uri: string
}

export interface Config extends Env {
  /** FCM_SERVICE_ACCOUNT read and checked; null when unset. */
  fcm: ServiceAccount | null
  /** The VAPID settings when all three are set; null when none is. */
  vapid: { publicKey: string; privateKey: string; subject: string } | null
  /** MEMORY_BUDGET_MB divided among the stores (./memory-budget.ts). */
  memory: MemoryShares
  database: {
    url: string
    authToken?: string
    driver: 'bun-sqlite' | 'libsql'
    /** Filesystem path of an embedded database, null for a remote libSQL server. */
    path: string | null
  }
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n  ${issues.join('\n  ')}`)
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "not set" (docker-compose and fly secrets often produce them).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''))
  const parsed = EnvSchema.safeParse(present)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  }
  const values = parsed.data
  const isFile = values.DATABASE_URL.startsWith('file:')
  const driver = values.DATABASE_DRIVER ?? (isFile ? 'bun-sqlite' : 'libsql')
  if (driver === 'bun-sqlite' && !isFile) {
    throw new ConfigError(['DATABASE_DRIVER: bun-sqlite needs a file: DATABASE_URL'])
  }
  const vapidSet = [values.VAPID_PUBLIC_KEY, values.VAPID_PRIVATE_KEY, values.VAPID_SUBJECT].filter(Boolean).length
  if (vapidSet !== 0 && vapidSet !== 3) throw new ConfigError(['VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT: set all three for Web Push, or none'])
  return {
    ...values,
    fcm: values.FCM_SERVICE_ACCOUNT ? readServiceAccount(values.FCM_SERVICE_ACCOUNT) : null,
    vapid:
      values.VAPID_PUBLIC_KEY && values.VAPID_PRIVATE_KEY && values.VAPID_SUBJECT
        ? { publicKey: values.VAPID_PUBLIC_KEY, privateKey: values.VAPID_PRIVATE_KEY, subject: values.VAPID_SUBJECT }
        : null,
    memory: memoryShares(values.MEMORY_BUDGET_MB, { sqliteCacheMb: values.SQLITE_CACHE_MB }),
    database: {
      url: values.DATABASE_URL,
      authToken: values.DATABASE_AUTH_TOKEN,
      driver,
      path: isFile ? filePathOf(values.DATABASE_URL) : null,
    },
  }
}

/**
 * The environment to start again with, with JavaScriptCore told the machine has `ramSizeBytes` of RAM
 * (./jsc-heap.ts); null when BUN_JSC_forceRAMSize is set already (by that restart, or by the operator,
 * whose value wins). Bun sets no such variable itself.
 */
export function environmentWithJscRamSize(
  ramSizeBytes: number,
  env: Record<string, string | undefined> = process.env,
): Record<string, string | undefined> | null {
  return env.BUN_JSC_forceRAMSize ? null : { ...env, BUN_JSC_forceRAMSize: String(ramSizeBytes) }
}

/** `file:./data/app.db`, `file:/abs/app.db`, `file:///abs/app.db` → a path; query options are dropped. */
function filePathOf(url: string): string {
  const rest = url.slice('file:'.length).split('?')[0]
  return rest.startsWith('//') ? rest.slice(2) : rest
}

/** FCM_SERVICE_ACCOUNT: inline JSON (starts with `{`) or the path of the key file; what FCM needs of it, or a ConfigError. */
function readServiceAccount(value: string): ServiceAccount {
  let text = value
  if (!value.trimStart().startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8')
    } catch (error) {
      throw new ConfigError([`FCM_SERVICE_ACCOUNT: the file ${value} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`])
    }
  }
  let account: Record<string, unknown>
  try {
    account = JSON.parse(text)
  } catch {
    throw new ConfigError(['FCM_SERVICE_ACCOUNT: not a JSON service-account key (inline JSON or the path of the file Google gives)'])
  }
  const missing = ['project_id', 'client_email', 'private_key', 'token_uri'].filter((key) => typeof account?.[key] !== 'string' || !account[key])
  if (missing.length) throw new ConfigError([`FCM_SERVICE_ACCOUNT: the service account lacks ${missing.join(', ')}`])
  if (!/^https?:\/\//.test(account.token_uri as string)) throw new ConfigError(['FCM_SERVICE_ACCOUNT: token_uri is not an http(s) URL'])
  if (!String(account.private_key).includes('BEGIN PRIVATE KEY')) throw new ConfigError(['FCM_SERVICE_ACCOUNT: private_key is not a PKCS#8 PEM key'])
  return {
    project_id: account.project_id as string,
    client_email: account.client_email as string,
    private_key: account.private_key as string,
    private_key_id: typeof account.private_key_id === 'string' ? account.private_key_id : undefined,
    token_uri: account.token_uri as string,
  }
}
