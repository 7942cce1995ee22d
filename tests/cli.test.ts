/**
 * The command line (src/cli.ts): `ffos create-workspace` makes the first workspace when registration is off.
 */
import { describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
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
