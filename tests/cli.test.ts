/**
 * The command line (src/cli.ts): `ffos create-workspace` makes the first workspace when registration is off.
 */
import { describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../scripts/lib/server-process'

describe('ffos create-workspace (the first workspace when registration is off)', () => {
  test('creates the workspace, its super_admin and their audit entries from flags plus a password on stdin; refuses a password flag, a weak password and a taken email', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-create-'))
    const path = join(dir, 'app.db')
    const env = { ...process.env, DATABASE_URL: `file:${path}`, REGISTRATION_ENABLED: 'false', LOG_LEVEL: 'warn' }
    const run = (args: string[], stdin: string) => {
      const result = Bun.spawnSync([process.execPath, join(ROOT, 'src/cli.ts'), 'create-workspace', ...args], {
        env,
        cwd: ROOT,
        stdin: new TextEncoder().encode(stdin),
      })
      return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() }
    }
    const flags = ['--workspace', 'Acme Field', '--name', 'Ana Owner', '--email', 'Ana@Example.com']
    try {
      expect(run([...flags, '--password', 'password123'], '').err).toContain('unknown option --password')
      expect(run(flags, 'short\n')).toMatchObject({ code: 1 })
      const created = run(flags, 'password123\n')
      expect(created.err).toBe('')
      expect(created.code).toBe(0)
      expect(created.out).toContain('ana@example.com')
      const taken = run(flags, 'password123\n')
      expect(taken.code).toBe(1)
      expect(taken.err).toContain('USER_ALREADY_EXISTS')

      const db = new Sqlite(path, { readonly: true })
      try {
        const owner = db
          .query<{ email: string; role: string; workspace: string }, []>(
            'select u.email, r.slug as role, w.name as workspace from users u join memberships m on m.user_id = u.id join roles r on r.id = m.role_id join workspaces w on w.id = m.workspace_id',
          )
          .all()
        expect(owner).toEqual([{ email: 'ana@example.com', role: 'super_admin', workspace: 'Acme Field' }])
        const audits = db.query<{ entity_type: string }, []>("select entity_type from audit_logs where action = 'created' order by id").all()
        expect(audits.map((row) => row.entity_type)).toEqual(['workspace', 'user'])
      } finally {
        db.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

/** `bun src/cli.ts ARGS` with `env` added to the environment; optional stdin. */
function cli(args: string[], env: Record<string, string>, stdin = '') {
  const result = Bun.spawnSync([process.execPath, join(ROOT, 'src/cli.ts'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    cwd: ROOT,
    stdin: new TextEncoder().encode(stdin),
  })
  return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() }
}

describe('ffos backup FILE (README: `ffos backup backups/2026-11-22.db`)', () => {
  test('into a folder that does not exist yet: the folder is created and the backup written; where no folder can be made: one line, exit 1, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-backup-cli-'))
    const env = { DATABASE_URL: `file:${join(dir, 'app.db')}` }
    try {
      expect(cli(['create-workspace', '--workspace', 'Acme', '--name', 'Ana', '--email', 'ana@example.com'], env, 'password123\n').code).toBe(0)
      const target = join(dir, 'backups', 'nightly', '2026-11-22.db')
      const made = cli(['backup', target], env)
      expect(made.err).toBe('')
      expect(made.code).toBe(0)
      expect(existsSync(target)).toBe(true)

      // A regular file where the folder should be: refused for root too.
      writeFileSync(join(dir, 'file.txt'), 'in the way')
      const blocked = cli(['backup', join(dir, 'file.txt', 'backup.db')], env)
      expect(blocked.code).toBe(1)
      expect(blocked.err.trim().split('\n')).toHaveLength(1)
      expect(blocked.err).toContain(`the folder ${join(dir, 'file.txt')} cannot be created (EEXIST: a file, not a directory`)
      expect(blocked.err).not.toMatch(/^\s+at /m)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('create-workspace with DATABASE_URL under a regular file: one line naming DATABASE_URL, exit 1, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffos-create-blocked-'))
    try {
      writeFileSync(join(dir, 'file.txt'), 'in the way')
      const result = cli(
        ['create-workspace', '--workspace', 'Acme', '--name', 'Ana', '--email', 'ana@example.com'],
        {
          DATABASE_URL: `file:${join(dir, 'file.txt', 'app.db')}`,
        },
        'password123\n',
      )
      expect(result.code).toBe(1)
      expect(result.err.trim().split('\n')).toHaveLength(1)
      expect(result.err).toStartWith('DATABASE_URL: ')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('ffos health (the container HEALTHCHECK)', () => {
  test('exit 0 while the server on PORT answers healthy; 1 when it answers otherwise or nothing listens', async () => {
    const { startServer, tempDir } = await import('../scripts/lib/server-process')
    const data = tempDir('ffos-health-')
    const server = await startServer({ dbPath: join(data.dir, 'app.db'), env: { REGIONAL_SERVICE_URL: 'http://127.0.0.1:9' } })
    let stopped = false
    try {
      // HOST as in the container (a wildcard): the command asks 127.0.0.1.
      const up = cli(['health'], { PORT: String(server.port), HOST: '0.0.0.0' })
      expect(up).toMatchObject({ code: 0, err: '' })
      expect(up.out).toBe(`healthy: http://127.0.0.1:${server.port}/api/health\n`)
      expect(await server.stop()).toBe(0)
      stopped = true
      const down = cli(['health'], { PORT: String(server.port), HOST: '127.0.0.1' })
      expect(down.code).toBe(1)
      expect(down.err).toStartWith(`unhealthy: http://127.0.0.1:${server.port}/api/health: `)
    } finally {
      if (!stopped) await server.stop()
      data.remove()
    }

    // Something else on the port answers 503 (the database did not answer): unhealthy.
    const other = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => Response.json({ success: false, data: { status: 'error', db: 'error' } }, { status: 503 }),
    })
    try {
      // Spawned without blocking: the stand-in server answers from this process.
      const child = Bun.spawn([process.execPath, join(ROOT, 'src/cli.ts'), 'health'], {
        env: { ...process.env, PORT: String(other.port), HOST: '127.0.0.1' },
        cwd: ROOT,
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [code, err] = await Promise.all([child.exited, new Response(child.stderr).text()])
      const sick = { code, err }
      expect(sick.code).toBe(1)
      expect(sick.err).toBe(`unhealthy: http://127.0.0.1:${other.port}/api/health answered 503 (db: error)\n`)
    } finally {
      other.stop(true)
    }
  }, 60_000)
})

describe('create-workspace on a terminal: the password is not shown', () => {
  // `script` (util-linux) runs the command on a pseudo-terminal; without it this cannot be shown here.
  test.skipIf(!Bun.which('script'))(
    'typed at the prompt on a pseudo-terminal, the password is not echoed, and it is the one stored',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ffos-tty-'))
      try {
        const command = `'${process.execPath}' '${join(ROOT, 'src/cli.ts')}' create-workspace --workspace Acme --name Ana --email ana@example.com`
        const child = Bun.spawn(['script', '-q', '-e', '-c', command, '/dev/null'], {
          env: { ...process.env, DATABASE_URL: `file:${join(dir, 'app.db')}`, LOG_LEVEL: 'warn' },
          cwd: ROOT,
          stdin: 'pipe',
          stdout: 'pipe',
          stderr: 'pipe',
        })
        // Everything the terminal showed (the pseudo-terminal's output, echo included).
        let screen = ''
        const reader = (child.stdout as ReadableStream<Uint8Array>).getReader()
        const decoder = new TextDecoder()
        const readUntil = async (text: string) => {
          while (!screen.includes(text)) {
            const { value, done } = await reader.read()
            if (done) return
            screen += decoder.decode(value, { stream: true })
          }
        }
        // Keys are typed only once the prompt is shown, as a person would.
        await readUntil('Password:')
        child.stdin.write('secret-pass-123\r')
        child.stdin.flush()
        await readUntil('created workspace')
        child.stdin.end()
        await readUntil('\u0000 the end of the output')
        expect(await child.exited).toBe(0)
        expect(screen).toContain('Password:')
        expect(screen).toContain('created workspace')
        expect(screen).not.toContain('secret')

        const db = new Sqlite(join(dir, 'app.db'), { readonly: true })
        try {
          const { password_hash } = db.query<{ password_hash: string }, []>("select password_hash from users where email = 'ana@example.com'").get()!
          expect(await Bun.password.verify('secret-pass-123', password_hash)).toBe(true)
        } finally {
          db.close()
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
