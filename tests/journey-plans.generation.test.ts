/**
 * Generation of journey-plan visits on the write path, on both drivers: exactly one visit per (plan,
 * outlet, date) under 30 concurrent generate requests, and after a run that failed half-way — a part
 * that failed inside its transaction (a trigger aborts the Nth insert: the part rolls back, the parts
 * before it stay) and a run stopped between parts (shutdown) — a re-run creates the missing visits and
 * no duplicates. Asserted by counts, never by time.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { JobStopped } from '../src/db/batches'
import type { ManualClock } from '../src/lib/clock'
import { GENERATION_PART_VISITS, generateVisits, planAuthorContext } from '../src/modules/journey-plans'
import { systemContext } from '../src/platform/context'
import { createTestApp, type Session, type TestApp, unique, type Workspace } from './harness'
import { data, newForm, newOutlet, newProject, type Row } from './factories'

const PLANS = '/office/v1/journey-plans'
// Wednesday 2026-11-25 in UTC; the plan's range is the three weeks before: 2026-11-02 … 2026-11-22.
const NOW = '2026-11-25T08:00:00.000Z'
const RANGE = { date_from: '2026-11-02', date_to: '2026-11-22' }
/** 4 outlets × 5 weekdays × 3 weeks: six parts of GENERATION_PART_VISITS (10) visits. */
const EXPECTED = 60

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`${driver}: each (plan, outlet, date) once`, () => {
    let app: TestApp
    let ws: Workspace
    let manager: Session
    let field: Session
    let project: Row
    let outlets: Row[]

    beforeAll(async () => {
      app = await createTestApp({ driver })
      ;(app.clock as ManualClock).set(NOW)
      ws = await app.workspace(unique('Gen'))
      manager = await app.member(ws, 'manager')
      field = await app.member(ws, 'user')
      const form = await newForm(app, ws.owner.token, { title: unique('Form'), fields: [{ key: 'note', label: 'Note', type: 'text' }] })
      project = await newProject(app, ws.owner.token, { forms: [{ form_id: form.id, is_required: true }] })
      outlets = []
      for (let i = 0; i < 4; i++) outlets.push(await newOutlet(app, ws.owner.token, { code: unique('OUT') }))
    }, 60_000)
    afterAll(() => app.close())

    /** A plan starting on 2026-11-02 whose stops fall on Monday–Friday; its horizon (from today on) generates nothing, being past end_date. */
    const newPlan = async () =>
      data(
        await app.post(
          PLANS,
          {
            user_id: field.user.id,
            project_id: project.id,
            start_date: '2026-11-02',
            end_date: '2026-11-22',
            stops: [1, 2, 3, 4, 5].flatMap((weekday) => outlets.map((outlet, i) => ({ outlet_id: outlet.id, weekday, sequence: i + 1 }))),
          },
          { token: manager.token },
        ),
      )

    /** Visits of the plan, and the (outlet, date) pairs that occur more than once, and their submissions. */
    async function state(planId: number) {
      const [counts] = await app.db.pragma(
        `SELECT count(*) AS visits, count(DISTINCT outlet_id || ':' || visit_date) AS pairs FROM visits WHERE journey_plan_id = ${planId} AND deleted_at IS NULL`,
      )
      const [forms] = await app.db.pragma(`SELECT count(*) AS n FROM submissions WHERE visit_id IN (SELECT id FROM visits WHERE journey_plan_id = ${planId})`)
      const [assignees] = await app.db.pragma(
        `SELECT count(*) AS n FROM visit_assignees WHERE visit_id IN (SELECT id FROM visits WHERE journey_plan_id = ${planId})`,
      )
      const [audits] = await app.db.pragma(
        `SELECT count(*) AS n FROM audit_logs WHERE entity_type = 'visit' AND action = 'created' AND entity_id IN (SELECT CAST(id AS TEXT) FROM visits WHERE journey_plan_id = ${planId})`,
      )
      return {
        visits: Number(counts.visits),
        pairs: Number(counts.pairs),
        submissions: Number(forms.n),
        assignees: Number(assignees.n),
        audits: Number(audits.n),
      }
    }
    const whole = { visits: EXPECTED, pairs: EXPECTED, submissions: EXPECTED, assignees: EXPECTED, audits: EXPECTED }

    const authorContext = async (plan: Row) => {
      const [row] = await app.db.pragma(`SELECT * FROM journey_plans WHERE id = ${plan.id}`)
      const ctx = await planAuthorContext(app.deps, systemContext(app.deps, 'test'), { id: ws.id, timeZone: 'UTC' }, {
        ...row,
        active: Boolean(row.active),
      } as never)
      if (!ctx) throw new Error('no author')
      return ctx
    }

    test('30 concurrent generate requests create each visit once; the created counts add up to the visits', async () => {
      const plan = await newPlan()
      expect((await state(plan.id)).visits).toBe(0)
      const replies = await Promise.all(Array.from({ length: 30 }, () => app.post(`${PLANS}/${plan.id}/generate`, RANGE, { token: manager.token })))
      for (const reply of replies) expect(reply.status).toBe(200)
      expect(replies.reduce((sum, reply) => sum + reply.body.data.created, 0)).toBe(EXPECTED)
      for (const reply of replies) expect(reply.body.data.created + reply.body.data.skipped).toBe(EXPECTED)
      expect(await state(plan.id)).toEqual(whole)
    })

    test('a part that fails inside its transaction rolls back alone; the re-run creates the rest, no duplicates', async () => {
      const plan = await newPlan()
      // The 50th insert of this plan's visits fails: four parts (40 visits) have committed, the fifth fails after 9 inserts.
      await app.db.pragma(
        `CREATE TRIGGER test_crash_after_n BEFORE INSERT ON visits WHEN NEW.journey_plan_id = ${plan.id} AND (SELECT count(*) FROM visits WHERE journey_plan_id = ${plan.id}) >= 49 BEGIN SELECT RAISE(ABORT, 'simulated crash'); END`,
      )
      const ctx = await authorContext(plan)
      try {
        await expect(generateVisits(ctx, plan.id, { from: RANGE.date_from, to: RANGE.date_to })).rejects.toThrow() // libSQL wraps the trigger's 'simulated crash' in its own message
      } finally {
        await app.db.pragma('DROP TRIGGER test_crash_after_n')
      }
      expect(await state(plan.id)).toEqual({ visits: 40, pairs: 40, submissions: 40, assignees: 40, audits: 40 })
      expect(await generateVisits(ctx, plan.id, { from: RANGE.date_from, to: RANGE.date_to })).toEqual({ created: 20, skipped: 40 })
      expect(await state(plan.id)).toEqual(whole)
    })

    test('a run stopped between parts (shutdown) leaves whole parts; the next run completes it', async () => {
      const plan = await newPlan()
      const ctx = await authorContext(plan)
      const stopping = new AbortController()
      stopping.abort()
      await expect(generateVisits(ctx, plan.id, { from: RANGE.date_from, to: RANGE.date_to }, stopping.signal)).rejects.toBeInstanceOf(JobStopped)
      expect((await state(plan.id)).visits).toBe(GENERATION_PART_VISITS)
      const replies = await Promise.all(Array.from({ length: 5 }, () => app.post(`${PLANS}/${plan.id}/generate`, RANGE, { token: manager.token })))
      expect(replies.reduce((sum, reply) => sum + reply.body.data.created, 0)).toBe(EXPECTED - GENERATION_PART_VISITS)
      expect(await state(plan.id)).toEqual(whole)
    })
  })
}
