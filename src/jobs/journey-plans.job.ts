/**
 * Journey-plan generation (docs/API.md §Journey plans): each workspace's local night, the visits of the
 * next `journey_plan_horizon_days` days (today included) from every active plan.
 *
 * Runs every 10 minutes (UTC) and handles a workspace when its local date differs from the one this
 * process last generated for it, so each workspace is handled in the first run after its own midnight
 * (UTC+14 and UTC−11 alike), and once after a restart. That once is cheap and harmless: generation
 * creates only what is missing (src/modules/journey-plans/generation.ts), so a repeated, late or
 * overlapping run creates each visit exactly once; a run stopped half-way is completed by the next.
 *
 * The writer and the event loop stay free for requests: each plan is read on the read connection and
 * its visits written in parts of at most WRITE_PART_ROWS rows, one short transaction each, with a
 * pause (`betweenBatches`) between two parts and between two plans (docs/PERFORMANCE.md "Journey-plan
 * generation"). A plan's visits are made on its author's behalf (generation.ts `planAuthorContext`).
 */
import { betweenBatches } from '../db/batches'
import { workspaces } from '../db/schema'
import { localDate } from '../lib/time-zones'
import { systemContext, type Deps } from '../platform/context'
import { activePlans, generateVisits, horizonRange, planAuthorContext } from '../modules/journey-plans'

/** Per app (tests run several in one process): workspace id → the local date last generated. */
const generatedOn = new WeakMap<Deps, Map<number, string>>()

export interface GenerationRun {
  workspaces: number
  plans: number
  created: number
}

export async function generateJourneyPlanVisits(deps: Deps, signal?: AbortSignal): Promise<GenerationRun> {
  const done = generatedOn.get(deps) ?? new Map<number, string>()
  generatedOn.set(deps, done)
  const base = systemContext(deps, 'journey-plans')
  const all = await deps.db.read.select({ id: workspaces.id, timeZone: workspaces.timezone, days: workspaces.journey_plan_horizon_days }).from(workspaces)
  const run: GenerationRun = { workspaces: 0, plans: 0, created: 0 }
  for (const workspace of all) {
    const now = deps.clock.now()
    const today = localDate(now, workspace.timeZone)
    if (done.get(workspace.id) === today) continue
    const range = horizonRange(now, workspace.timeZone, workspace.days)
    for (const plan of await activePlans(deps.db.read, workspace.id)) {
      const ctx = await planAuthorContext(deps, base, workspace, plan)
      if (!ctx) continue
      await betweenBatches(signal)
      run.created += (await generateVisits(ctx, plan.id, range, signal)).created
      run.plans += 1
    }
    done.set(workspace.id, today)
    run.workspaces += 1
  }
  if (run.created) deps.logger.info('journey plan visits generated', { ...run })
  return run
}
