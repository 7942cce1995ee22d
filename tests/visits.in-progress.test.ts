/**
 * "Another visit in progress" by one probe (migration 0027): each assignee row carries whether its visit is live
 * and in progress, kept by triggers whatever writes the visit, on both drivers; an older database is filled in as
 * it upgrades; the check-in's statement reads the partial index. The rule itself (409 ACTIVE_VISIT_EXISTS, also
 * under concurrent check-ins) is tested in tests/visits.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database as SqliteDatabase } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import type { Database } from '../src/db/client'
import { otherVisitInProgress } from '../src/modules/visits/visits.service'
import { migrationsUpTo, withDatabase } from './support/database'

const NOW = '2026-11-26T08:00:00.000Z'

/** A workspace, two users, an outlet, a project and three scheduled visits, as plain SQL (any writer keeps the flag). */
const SEED = [
  `insert into workspaces (id, name, created_at, updated_at) values (1, 'W', '${NOW}', '${NOW}')`,
  ...[1, 2].map(
    (id) =>
      `insert into users (id, email, name, password_hash, created_at, updated_at) values (${id}, 'u${id}@example.com', 'U${id}', 'x', '${NOW}', '${NOW}')`,
  ),
  `insert into outlets (id, workspace_id, name, name_key, created_at, updated_at) values (1, 1, 'O', 'o', '${NOW}', '${NOW}')`,
  `insert into projects (id, workspace_id, name, name_key, created_at, updated_at) values (1, 1, 'P', 'p', '${NOW}', '${NOW}')`,
  ...[1, 2, 3].map(
    (id) =>
      `insert into visits (id, workspace_id, outlet_id, project_id, visit_date, status, created_at, updated_at) values (${id}, 1, 1, 1, '2026-11-26', 'scheduled', '${NOW}', '${NOW}')`,
  ),
]

/** Every assignee row as `visit.user=flag`, in order. */
const flags = async (db: Database) =>
  (await db.pragma('select visit_id, user_id, in_progress from visit_assignees order by visit_id, user_id'))
    .map((row) => `${row.visit_id}.${row.user_id}=${Number(row.in_progress)}`)
    .join(' ')

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`visit_assignees.in_progress on ${driver}`, () => {
    test('follows its visit: assigned, checked in, deleted, restored, checked out; an assignee added to a visit in progress starts at 1', async () => {
      await withDatabase(driver, async (db) => {
        const run = (statement: string) => db.pragma(statement)
        for (const statement of SEED) await run(statement)
        await run(`insert into visit_assignees (visit_id, user_id, workspace_id, created_at) values (1, 1, 1, '${NOW}'), (2, 1, 1, '${NOW}')`)
        expect(await flags(db)).toBe('1.1=0 2.1=0')
        await run(`update visits set status = 'in_progress' where id = 1`)
        expect(await flags(db)).toBe('1.1=1 2.1=0')
        // The visit date still follows too (migration 0010's trigger, merged into the insert trigger).
        expect((await db.pragma('select visit_date from visit_assignees where visit_id = 1'))[0]!.visit_date).toBe('2026-11-26')
        await run(`insert into visit_assignees (visit_id, user_id, workspace_id, created_at) values (1, 2, 1, '${NOW}')`)
        expect(await flags(db)).toBe('1.1=1 1.2=1 2.1=0')
        await run(`update visits set deleted_at = '${NOW}' where id = 1`)
        expect(await flags(db)).toBe('1.1=0 1.2=0 2.1=0')
        await run(`update visits set deleted_at = null where id = 1`)
        expect(await flags(db)).toBe('1.1=1 1.2=1 2.1=0')
        await run(`update visits set status = 'completed' where id = 1`)
        expect(await flags(db)).toBe('1.1=0 1.2=0 2.1=0')
        // An update that leaves the state as it was leaves the flags too.
        await run(`update visits set notes = 'n', status = 'completed' where id = 1`)
        expect(await flags(db)).toBe('1.1=0 1.2=0 2.1=0')
      })
    })
  })
}

test('an older database is filled in as it upgrades: assignees of live visits in progress get 1, the others 0', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-in-progress-'))
  try {
    const before = migrationsUpTo(dir, '0027_visit_assignee_in_progress')
    const raw = new SqliteDatabase(join(dir, 'app.db'))
    migrate(drizzle({ client: raw }), { migrationsFolder: before.folder })
    for (const statement of SEED) raw.run(statement)
    raw.run(`update visits set status = 'in_progress' where id in (1, 3)`)
    raw.run(`update visits set deleted_at = '${NOW}' where id = 3`)
    raw.run(`insert into visit_assignees (visit_id, user_id, workspace_id, created_at) values (1, 1, 1, '${NOW}'), (2, 1, 1, '${NOW}'), (3, 2, 1, '${NOW}')`)
    const all = migrationsUpTo(dir, '0027_visit_assignee_in_progress', { including: true })
    migrate(drizzle({ client: raw }), { migrationsFolder: all.folder })
    expect(raw.query('select visit_id, in_progress from visit_assignees order by visit_id').values()).toEqual([
      [1, 1],
      [2, 0],
      [3, 0],
    ])
    raw.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("the check-in's statement reads the partial index, not the workspace's visits", async () => {
  await withDatabase('bun-sqlite', async (db) => {
    const { sql } = otherVisitInProgress(db.read).getQuery()
    const plan = (await db.pragma(`explain query plan ${sql.replaceAll('?', '1')}`)).map((row) => String(row.detail))
    expect(plan.join('\n')).toContain('visit_assignees_user_in_progress')
    expect(plan.join('\n')).not.toContain('visits')
  })
})
