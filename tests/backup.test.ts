/**
 * Online backup and offline restore of the database file (README.md), through the library and the
 * CLI against a real server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, ROOT, startServer } from '../scripts/lib/server-process'
import { BackupError, backupDatabase, restoreDatabase, verifyDatabaseFile } from '../src/db/backup'
import { createTestApp, unique, type TestApp, type Workspace } from './harness'

describe('backup and restore', () => {
  let t: TestApp
  let a: Workspace
  let dir: string
  beforeAll(async () => {
    t = await createTestApp()
    a = await t.workspace()
    dir = mkdtempSync(join(tmpdir(), 'ffos-backup-'))
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const groupNames = (file: string) => {
    const db = new Sqlite(file, { readonly: true })
    try {
      return db
        .query<{ name: string }, []>('select name from channel_groups order by id')
        .all()
        .map((row) => row.name)
    } finally {
      db.close()
    }
  }

  test('an online backup taken while writes go on holds exactly the rows committed when it started, and passes the integrity check', async () => {
    const names: string[] = []
    for (let i = 0; i < 20; i++) {
      const name = unique('Before')
      expect((await t.post('/office/v1/outlets/channel-groups', { name }, { token: a.owner.token })).status).toBe(201)
      names.push(name)
    }
    // Writers keep going while the backup runs (the copy is one consistent snapshot, not a torn file).
    let writing = true
    const writer = (async () => {
      while (writing) {
        await t.post('/office/v1/outlets/channel-groups', { name: unique('During') }, { token: a.owner.token })
        // In-process requests resolve on microtasks only: yield, or the timer below never fires.
        await Bun.sleep(0)
      }
    })()
    await Bun.sleep(5)
    const target = join(dir, 'online.db')
    let result: ReturnType<typeof backupDatabase>
    try {
      result = backupDatabase(t.deps.config.database.path!, target)
    } finally {
      writing = false
      await writer
    }
    expect(result.bytes).toBeGreaterThan(0)
    verifyDatabaseFile(target)
    const copied = groupNames(target)
    expect(copied.slice(0, names.length)).toEqual(names)
    expect(copied.slice(names.length).every((name) => name.includes('During'))).toBe(true)
    // Audit entries were copied with their rows (same transaction, same snapshot).
    const db = new Sqlite(target, { readonly: true })
    const audits = db.query<{ n: number }, []>("select count(*) as n from audit_logs where entity_type = 'channel_group' and action = 'created'").get()!.n
    db.close()
    expect(audits).toBe(copied.length)
  })

  test('backup refuses an existing target and a missing source, and leaves nothing behind', () => {
    const target = join(dir, 'exists.db')
    Bun.write(target, 'x')
    expect(() => backupDatabase(t.deps.config.database.path!, target)).toThrow(BackupError)
    expect(() => backupDatabase(join(dir, 'none.db'), join(dir, 'new.db'))).toThrow(BackupError)
    expect(existsSync(join(dir, 'new.db'))).toBe(false)
  })

  test('restore refuses while the database is open, and refuses a file that is not a sound database of this service', async () => {
    const backup = join(dir, 'for-restore.db')
    backupDatabase(t.deps.config.database.path!, backup)
    expect(() => restoreDatabase(backup, t.deps.config.database.path!)).toThrow(/in use/)
    const garbage = join(dir, 'garbage.db')
    await Bun.write(garbage, 'not a database at all, just text'.repeat(200))
    expect(() => restoreDatabase(garbage, join(dir, 'target.db'))).toThrow(BackupError)
    const foreign = join(dir, 'foreign.db')
    new Sqlite(foreign).close()
    expect(() => verifyDatabaseFile(foreign)).toThrow(/not a database of this service/)
  })

  test('the CLI against the real server: `bun run backup FILE` while it serves, `bun run restore FILE` refused until it stops, then the data of the backup is back', async () => {
    const work = mkdtempSync(join(dir, 'cli-'))
    const path = join(work, 'app.db')
    // Regional data is not what this test is about (upstream mode: no prepared regional file opened).
    const serverEnv = { REGIONAL_SERVICE_URL: 'http://127.0.0.1:9' }
    const env = { ...process.env, DATABASE_URL: `file:${path}`, LOG_LEVEL: 'warn' }
    const run = (args: string[]) => Bun.spawnSync([process.execPath, join(ROOT, 'scripts/backup.ts'), ...args], { env, cwd: ROOT })
    const credentials = (email: string) => ({ body: { name: 'Owner', email, password: 'password123', workspace_name: email } })

    let server = await startServer({ dbPath: path, env: serverEnv })
    try {
      expect((await call(server.base, 'POST', '/auth/register', credentials('kept@example.com'))).status).toBe(201)
      const backup = join(work, 'backup.db')
      const made = run([backup])
      expect(made.stdout.toString()).toContain('integrity ok')
      expect(made.exitCode).toBe(0)
      // After the backup the data moves on; restoring under a running server is refused.
      expect((await call(server.base, 'POST', '/auth/register', credentials('later@example.com'))).status).toBe(201)
      const refused = run(['--restore', backup])
      expect(refused.exitCode).toBe(1)
      expect(refused.stderr.toString()).toContain('stop the server')

      await server.stop()
      const restored = run(['--restore', backup])
      expect(restored.stderr.toString()).toBe('')
      expect(restored.exitCode).toBe(0)
      expect(restored.stdout.toString()).toContain('before-restore')

      server = await startServer({ dbPath: path, env: serverEnv })
      expect((await call(server.base, 'POST', '/auth/login', credentials('kept@example.com'))).status).toBe(200)
      expect((await call(server.base, 'POST', '/auth/login', credentials('later@example.com'))).status).toBe(401)
    } finally {
      await server.stop()
    }
    expect(run([]).exitCode).toBe(1)
  })
})
