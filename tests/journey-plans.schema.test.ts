/**
 * Journey plan tables (src/db/schema/journey-plans.ts, migration 0021) on both drivers: a fresh database
 * migrates, and the partial unique index on visits keeps one visit per (plan, outlet, date) under 30
 * concurrent inserts of it. And an older database with visits upgrades: they become `manual`.
 */
import { describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database as SqliteDatabase } from 'bun:sqlite'
import { and, eq } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { loadConfig } from '../src/config/env'
import { type Database, MIGRATIONS_FOLDER, openDatabase } from '../src/db/client'
import { holidays, journeyPlans, journeyPlanStops, outlets, projects, users, visits, workspaces } from '../src/db/schema'
import { withDatabase } from './support/database'

const NOW = '2026-11-25T08:00:00.000Z'
const stamps = { created_at: NOW, updated_at: NOW }

/** A workspace with a user, a project, two outlets and a plan. */
async function seed(db: Database) {
  return db.transaction(async (tx) => {
    const [workspace] = await tx
      .insert(workspaces)
      .values({ name: 'W', ...stamps })
      .returning()
    const [user] = await tx
      .insert(users)
      .values({ email: 'field@example.com', name: 'Field', password_hash: 'x', ...stamps })
      .returning()
    const [project] = await tx
      .insert(projects)
      .values({ workspace_id: workspace!.id, name: 'P', name_key: 'p', ...stamps })
      .returning()
    const outletRows = await tx
      .insert(outlets)
      .values([1, 2].map((n) => ({ workspace_id: workspace!.id, name: `O${n}`, name_key: `o${n}`, ...stamps })))
      .returning()
    const [plan] = await tx
      .insert(journeyPlans)
      .values({ workspace_id: workspace!.id, user_id: user!.id, project_id: project!.id, start_date: '2026-11-23', ...stamps })
      .returning()
    return { workspace: workspace!, project: project!, outlets: outletRows, plan: plan! }
  })
}

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`journey plan tables on ${driver}`, () => {
    test('defaults: a plan is active with a 4-week cycle, a visit is manual without plan or sequence, the horizon is 7 days', async () => {
      await withDatabase(driver, async (db) => {
        const {
          workspace,
          project,
          outlets: [outlet],
          plan,
        } = await seed(db)
        expect(plan).toMatchObject({ cycle_weeks: 4, active: true, end_date: null, team_id: null, deleted_at: null })
        expect(workspace.journey_plan_horizon_days).toBe(7)
        const [visit] = await db.transaction((tx) =>
          tx
            .insert(visits)
            .values({ workspace_id: workspace.id, outlet_id: outlet!.id, project_id: project.id, visit_date: '2026-11-25', ...stamps })
            .returning(),
        )
        expect(visit).toMatchObject({ source: 'manual', journey_plan_id: null, route_sequence: null })
      })
    })

    test('30 concurrent inserts of the same (plan, outlet, date) visit leave exactly one row', async () => {
      await withDatabase(driver, async (db) => {
        const {
          workspace,
          project,
          outlets: [outlet, other],
          plan,
        } = await seed(db)
        const generated = (outletId: number, visit_date: string) => ({
          workspace_id: workspace.id,
          outlet_id: outletId,
          project_id: project.id,
          visit_date,
          journey_plan_id: plan.id,
          source: 'journey_plan' as const,
          route_sequence: 1,
          ...stamps,
        })
        // As generation will do it: INSERT … ON CONFLICT DO NOTHING, each run its own transaction.
        const runs = await Promise.allSettled(
          Array.from({ length: 30 }, () =>
            db.transaction((tx) => tx.insert(visits).values(generated(outlet!.id, '2026-11-26')).onConflictDoNothing().returning({ id: visits.id })),
          ),
        )
        expect(runs.every((run) => run.status === 'fulfilled')).toBe(true)
        expect(runs.filter((run) => run.status === 'fulfilled' && run.value.length === 1)).toHaveLength(1)
        // Without ON CONFLICT the index itself refuses the repeats.
        const plain = await Promise.allSettled(
          Array.from({ length: 30 }, () => db.transaction((tx) => tx.insert(visits).values(generated(outlet!.id, '2026-11-27')))),
        )
        expect(plain.filter((run) => run.status === 'fulfilled')).toHaveLength(1)
        const refused = plain.filter((run): run is PromiseRejectedResult => run.status === 'rejected')
        expect(refused).toHaveLength(29)
        for (const run of refused)
          expect(String(run.reason?.cause?.message ?? run.reason?.message)).toContain('UNIQUE constraint failed: visits.journey_plan_id')
        const rows = async (outletId: number, date: string) =>
          (
            await db.read
              .select()
              .from(visits)
              .where(and(eq(visits.outlet_id, outletId), eq(visits.visit_date, date)))
          ).length
        expect(await rows(outlet!.id, '2026-11-26')).toBe(1)
        expect(await rows(outlet!.id, '2026-11-27')).toBe(1)

        // Another outlet or date of the plan is another visit; visits without a plan are not constrained.
        await db.transaction(async (tx) => {
          await tx.insert(visits).values(generated(other!.id, '2026-11-26'))
          await tx.insert(visits).values(generated(outlet!.id, '2026-11-28'))
          const manual = { workspace_id: workspace.id, outlet_id: outlet!.id, project_id: project.id, visit_date: '2026-11-26', ...stamps }
          await tx.insert(visits).values([manual, manual])
        })
        expect(await rows(outlet!.id, '2026-11-26')).toBe(3)

        // A deleted generated visit still holds its (plan, outlet, date): generation does not bring it back.
        await db.transaction((tx) => tx.update(visits).set({ deleted_at: NOW }).where(eq(visits.visit_date, '2026-11-28')))
        const again = await db.transaction((tx) => tx.insert(visits).values(generated(outlet!.id, '2026-11-28')).onConflictDoNothing().returning())
        expect(again).toHaveLength(0)
        // Detached (as a plan edit does when it takes a visit away), the same outlet and day can be generated again.
        await db.transaction((tx) => tx.update(visits).set({ journey_plan_id: null }).where(eq(visits.visit_date, '2026-11-28')))
        expect(await db.transaction((tx) => tx.insert(visits).values(generated(outlet!.id, '2026-11-28')).onConflictDoNothing().returning())).toHaveLength(1)
      })
    })

    test('stops: weekday 1–7 and a weeks mask of 8 bits are enforced; holidays: one per workspace and date', async () => {
      await withDatabase(driver, async (db) => {
        const {
          workspace,
          outlets: [outlet],
          plan,
        } = await seed(db)
        const stop = { workspace_id: workspace.id, plan_id: plan.id, outlet_id: outlet!.id, created_at: NOW }
        await db.transaction((tx) => tx.insert(journeyPlanStops).values({ ...stop, weekday: 7, weeks: 0b1000_0101, sequence: 3 }))
        await expect(db.transaction((tx) => tx.insert(journeyPlanStops).values({ ...stop, weekday: 0 }))).rejects.toThrow()
        await expect(db.transaction((tx) => tx.insert(journeyPlanStops).values({ ...stop, weekday: 1, weeks: 256 }))).rejects.toThrow()
        await expect(db.transaction((tx) => tx.update(journeyPlans).set({ cycle_weeks: 9 }))).rejects.toThrow()
        const [saved] = await db.read.select().from(journeyPlanStops)
        expect(saved).toMatchObject({ weekday: 7, weeks: 133, sequence: 3 })

        const holiday = { workspace_id: workspace.id, date: '2026-12-25', name: 'Christmas', ...stamps }
        await db.transaction((tx) => tx.insert(holidays).values(holiday))
        await expect(db.transaction((tx) => tx.insert(holidays).values({ ...holiday, name: 'Again' }))).rejects.toThrow()
        // Deleted for good, the date can be declared again.
        await db.transaction((tx) => tx.delete(holidays))
        await db.transaction((tx) => tx.insert(holidays).values({ ...holiday, name: 'Again' }))
        expect((await db.read.select().from(holidays)).map((h) => h.name)).toEqual(['Again'])
      })
    })
  })
}

test('upgrading a database with visits: every existing visit becomes source manual, without plan or sequence', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-plans-upgrade-'))
  try {
    // The migrations before 0021, applied as an older release would have.
    const before = join(dir, 'drizzle')
    cpSync(MIGRATIONS_FOLDER, before, { recursive: true })
    const journal = JSON.parse(readFileSync(join(before, 'meta/_journal.json'), 'utf8'))
    // Whatever its number becomes, the journey plans migration and those after it are left out.
    const plans = journal.entries.find((entry: { tag: string }) => entry.tag.endsWith('_journey_plans'))
    journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx < plans.idx)
    writeFileSync(join(before, 'meta/_journal.json'), JSON.stringify(journal))
    const file = join(dir, 'app.db')
    const raw = new SqliteDatabase(file)
    migrate(drizzle(raw), { migrationsFolder: before })
    raw.run(`INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (1, 'W', '${NOW}', '${NOW}')`)
    raw.run(`INSERT INTO projects (id, workspace_id, name, name_key, created_at, updated_at) VALUES (1, 1, 'P', 'p', '${NOW}', '${NOW}')`)
    raw.run(`INSERT INTO outlets (id, workspace_id, name, name_key, created_at, updated_at) VALUES (1, 1, 'O', 'o', '${NOW}', '${NOW}')`)
    raw.run(`INSERT INTO visits (workspace_id, outlet_id, project_id, visit_date, created_at, updated_at) VALUES (1, 1, 1, '2026-11-24', '${NOW}', '${NOW}')`)
    raw.close()

    const db = await openDatabase(loadConfig({ DATABASE_URL: `file:${file}`, DATABASE_DRIVER: 'bun-sqlite' }))
    try {
      await db.migrate()
      expect(await db.read.select({ source: visits.source, plan: visits.journey_plan_id, sequence: visits.route_sequence }).from(visits)).toEqual([
        { source: 'manual', plan: null, sequence: null },
      ])
      expect((await db.read.select({ days: workspaces.journey_plan_horizon_days }).from(workspaces))[0]?.days).toBe(7)
    } finally {
      await db.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
