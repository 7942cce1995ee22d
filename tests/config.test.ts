/**
 * Configuration (README.md "Configuration"): defaults, validation that fails fast, and the JWT secret that is
 * generated once and kept in the database when JWT_SECRET is not set.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig, parseDuration } from '../src/config/env'
import { openDatabase } from '../src/db/client'
import { ManualClock } from '../src/lib/clock'
import { createTokenService, resolveJwtSecret } from '../src/platform/jwt'
import { startupWarnings } from '../src/startup'
import { createTestApp } from './harness'

describe('environment', () => {
  test('defaults match README.md "Configuration"', () => {
    const config = loadConfig({})
    expect(config.PORT).toBe(3000)
    expect(config.DATABASE_URL).toBe('file:./data/app.db')
    expect(config.database).toEqual({ url: 'file:./data/app.db', authToken: undefined, driver: 'bun-sqlite', path: './data/app.db' })
    expect(config.ACCESS_TOKEN_TTL).toBe(15 * 60 * 1000)
    expect(config.REFRESH_TOKEN_TTL).toBe(30 * 24 * 60 * 60 * 1000)
    expect(config.REGISTRATION_ENABLED).toBe(true)
    expect(config.UPLOAD_DIR).toBe('./data/uploads')
    expect(config.SMTP_URL).toBeUndefined()
    expect(config.JWT_SECRET).toBeUndefined()
  })

  test('the driver follows the URL; DATABASE_DRIVER=libsql forces libSQL on a file', () => {
    expect(loadConfig({ DATABASE_URL: 'libsql://db.example.com' }).database.driver).toBe('libsql')
    expect(loadConfig({ DATABASE_URL: 'https://db.example.com' }).database).toMatchObject({ driver: 'libsql', path: null })
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/x.db', DATABASE_DRIVER: 'libsql' }).database).toMatchObject({ driver: 'libsql', path: '/tmp/x.db' })
    expect(loadConfig({ DATABASE_URL: 'file:///var/app.db?mode=rwc' }).database.path).toBe('/var/app.db')
  })

  test('bad values stop the start with every problem named', () => {
    try {
      loadConfig({ PORT: 'eighty', ACCESS_TOKEN_TTL: '15 minutes', JWT_SECRET: 'short', DATABASE_URL: 'postgres://x', REGISTRATION_ENABLED: 'maybe' })
      throw new Error('expected a ConfigError')
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      const issues = (error as ConfigError).issues.join('\n')
      for (const name of ['PORT', 'ACCESS_TOKEN_TTL', 'JWT_SECRET', 'DATABASE_URL', 'REGISTRATION_ENABLED']) expect(issues).toContain(name)
    }
    expect(() => loadConfig({ DATABASE_URL: 'libsql://x', DATABASE_DRIVER: 'bun-sqlite' })).toThrow(ConfigError)
  })

  test('push settings (README.md "Push notifications"): off by default; the service account inline or as a file, VAPID all three or none', () => {
    const unset = loadConfig({})
    expect([unset.fcm, unset.vapid, unset.FCM_BASE_URL, unset.PUSH_ALLOW_PRIVATE_ENDPOINTS]).toEqual([null, null, 'https://fcm.googleapis.com', false])
    const account = {
      type: 'service_account',
      project_id: 'p1',
      private_key_id: 'k1',
      private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
      client_email: 'push@p1.iam.gserviceaccount.com',
      token_uri: 'https://oauth2.googleapis.com/token',
    }
    const inline = loadConfig({ FCM_SERVICE_ACCOUNT: JSON.stringify(account) }).fcm
    expect(inline).toEqual({
      project_id: 'p1',
      client_email: account.client_email,
      private_key: account.private_key,
      private_key_id: 'k1',
      token_uri: account.token_uri,
    })
    const dir = mkdtempSync(join(tmpdir(), 'ffos-fcm-'))
    try {
      const path = join(dir, 'service-account.json')
      writeFileSync(path, JSON.stringify(account))
      expect(loadConfig({ FCM_SERVICE_ACCOUNT: path }).fcm).toEqual(inline)
      expect(() => loadConfig({ FCM_SERVICE_ACCOUNT: join(dir, 'missing.json') })).toThrow(/FCM_SERVICE_ACCOUNT: the file .* cannot be read/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(() => loadConfig({ FCM_SERVICE_ACCOUNT: '{"project_id":"p1"}' })).toThrow(/lacks client_email, private_key, token_uri/)
    expect(() => loadConfig({ FCM_SERVICE_ACCOUNT: '{not json' })).toThrow(/not a JSON service-account key/)
    const vapid = { VAPID_PUBLIC_KEY: `B${'a'.repeat(86)}`, VAPID_PRIVATE_KEY: 'b'.repeat(43), VAPID_SUBJECT: 'mailto:ops@example.com' }
    expect(loadConfig(vapid).vapid).toEqual({ publicKey: vapid.VAPID_PUBLIC_KEY, privateKey: vapid.VAPID_PRIVATE_KEY, subject: 'mailto:ops@example.com' })
    expect(() => loadConfig({ VAPID_PUBLIC_KEY: vapid.VAPID_PUBLIC_KEY })).toThrow(/set all three/)
    expect(() => loadConfig({ ...vapid, VAPID_SUBJECT: 'ops@example.com' })).toThrow(ConfigError)
    expect(loadConfig({ PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' }).PUSH_ALLOW_PRIVATE_ENDPOINTS).toBe(true)
  })

  test('flags and durations read the usual spellings; empty values count as unset', () => {
    expect(loadConfig({ REGISTRATION_ENABLED: 'false' }).REGISTRATION_ENABLED).toBe(false)
    expect(loadConfig({ REGISTRATION_ENABLED: '0' }).REGISTRATION_ENABLED).toBe(false)
    // TRUST_PROXY: the old flag spellings still read (true = one proxy hop); tests/client-ip.test.ts has the rest.
    expect(loadConfig({ TRUST_PROXY: 'yes' }).TRUST_PROXY).toBe(1)
    expect(loadConfig({ PORT: '' }).PORT).toBe(3000)
    expect(parseDuration('900s')).toBe(900_000)
    expect(parseDuration('2h')).toBe(7_200_000)
    expect(() => parseDuration('1w')).toThrow()
  })

  test('an unknown NODE_ENV (staging) is ignored, not fatal: the start goes on as if it were unset', () => {
    expect(loadConfig({ NODE_ENV: 'staging' }).NODE_ENV).toBe('development')
    expect(loadConfig({ NODE_ENV: 'production' }).NODE_ENV).toBe('production')
    expect(loadConfig({ NODE_ENV: 'test' }).NODE_ENV).toBe('test')
  })
})

describe('JWT secret', () => {
  test('generated once, persisted in the database, and the same for every process of that database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-config-'))
    try {
      const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'app.db')}` })
      const first = await openDatabase(config)
      await first.migrate()
      const secret = await resolveJwtSecret(first, undefined)
      expect(secret.length).toBeGreaterThanOrEqual(48)
      expect(await resolveJwtSecret(first, undefined)).toBe(secret)
      await first.close()

      const second = await openDatabase(config)
      expect(await resolveJwtSecret(second, undefined)).toBe(secret)
      // A configured secret wins.
      expect(await resolveJwtSecret(second, 'x'.repeat(40))).toBe('x'.repeat(40))
      await second.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('tokens signed by one process verify in another process using the same secret', async () => {
    const clock = new ManualClock()
    const a = await createTokenService('s'.repeat(40), 60_000, clock)
    const b = await createTokenService('s'.repeat(40), 60_000, clock)
    const token = await a.signAccessToken({ userId: 7, workspaceId: 3, role: 'admin' })
    expect(await b.verifyAccessToken(token)).toMatchObject({ status: 'valid', claims: { userId: 7, workspaceId: 3, role: 'admin' } })
    const other = await createTokenService('t'.repeat(40), 60_000, clock)
    expect((await other.verifyAccessToken(token)).status).toBe('invalid')
    clock.advance(61_000)
    expect((await b.verifyAccessToken(token)).status).toBe('expired')
  })
})

describe('settings for small machines and time zones', () => {
  test('SQLITE_CACHE_MB sets the page cache of every connection (unset: MEMORY_BUDGET_MB’s shares); out of range is a configuration error', async () => {
    const small = await createTestApp({ env: { SQLITE_CACHE_MB: '8' } })
    try {
      const sizes = (await small.db.pragmaEverywhere('PRAGMA cache_size')).map((rows) => rows[0]!.cache_size)
      expect(sizes).toEqual([-8 * 1024, -8 * 1024])
    } finally {
      await small.close()
    }
    // Unset, the page cache is MEMORY_BUDGET_MB's share: at the default budget 64 MiB for the reader, 16 for the writer.
    expect(loadConfig({}).SQLITE_CACHE_MB).toBeUndefined()
    expect(loadConfig({}).memory.sqlite).toMatchObject({ readerCacheKib: 64 * 1024, writerCacheKib: 16 * 1024 })
    expect(() => loadConfig({ SQLITE_CACHE_MB: '0' })).toThrow(/SQLITE_CACHE_MB/)
    expect(() => loadConfig({ SQLITE_CACHE_MB: 'lots' })).toThrow(/SQLITE_CACHE_MB/)
  })

  test('DEFAULT_TIMEZONE is an IANA zone (default UTC); anything else is a configuration error', () => {
    expect(loadConfig({}).DEFAULT_TIMEZONE).toBe('UTC')
    expect(loadConfig({ DEFAULT_TIMEZONE: 'Asia/Jakarta' }).DEFAULT_TIMEZONE).toBe('Asia/Jakarta')
    expect(() => loadConfig({ DEFAULT_TIMEZONE: 'Mars/Olympus_Mons' })).toThrow(/DEFAULT_TIMEZONE/)
  })
})

describe('start-up warnings (src/startup.ts): settings an operator would not want in production', () => {
  const warned = (env: Record<string, string>) => startupWarnings(loadConfig(env)).map((warning) => warning.fields.setting)

  test('PUBLIC_URL still on localhost with NODE_ENV=production; /api/metrics open (no METRICS_TOKEN) while HOST is not loopback', () => {
    expect(warned({ NODE_ENV: 'production' })).toEqual(['PUBLIC_URL', 'METRICS_TOKEN'])
    expect(warned({ NODE_ENV: 'production', PUBLIC_URL: 'http://127.0.0.1:3000', HOST: '127.0.0.1' })).toEqual(['PUBLIC_URL'])
    // Development and tests on a laptop: localhost is what PUBLIC_URL should be.
    expect(warned({ HOST: '127.0.0.1' })).toEqual([])
    expect(warned({ NODE_ENV: 'staging', HOST: '::1' })).toEqual([])
    // The metrics page is open on every interface: a warning whatever NODE_ENV says.
    expect(warned({ HOST: '0.0.0.0' })).toEqual(['METRICS_TOKEN'])
    expect(warned({ NODE_ENV: 'production', PUBLIC_URL: 'https://ops.example.com', METRICS_TOKEN: 'm'.repeat(16) })).toEqual([])
    expect(warned({ NODE_ENV: 'production', PUBLIC_URL: 'https://ops.example.com', HOST: 'localhost' })).toEqual([])
  })
})
