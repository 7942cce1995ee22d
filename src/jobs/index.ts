/**
 * Scheduled jobs on croner. Each job is a plain async function of the app's dependencies, so tests
 * call it directly on rows with controlled timestamps; the schedule only decides when it runs.
 * `protect` keeps a slow run from overlapping the next one.
 *
 * Patterns are read in the server's DEFAULT_TIMEZONE, so the daily maintenance (retention, export and
 * change-log and push-delivery cleanup, 03:17–03:52) runs in the night of the deployment's main zone — in UTC it fell at
 * 10:17 in Jakarta, the middle of the field day. Each of them works in short transactions anyway
 * (tens of milliseconds), so a workspace in another zone gets it without a stall.
 */
import { Cron } from 'croner'
import type { Deps } from '../platform/context'
import { JobStopped } from '../db/batches'
import { errorFields } from '../platform/logger'
import { cleanupIdempotencyKeys } from './idempotency-cleanup.job'
import { purgeExpiredLocations } from './location-retention.job'
import { notifyMissedVisits } from './missed-visits.job'
import { generateJourneyPlanVisits } from './journey-plans.job'
import { purgeOldExports } from '../modules/exports'
import { purgeOldTombstones } from '../modules/sync'
import { purgeOldPushDeliveries } from '../modules/notifications'

export interface JobDefinition {
  name: string
  /** Cron pattern, in the server's DEFAULT_TIMEZONE. */
  schedule: string
  /** `signal` is aborted when the server shuts down: a job in batches stops at the next one. */
  run(deps: Deps, signal: AbortSignal): Promise<unknown>
}

export const JOBS: JobDefinition[] = [
  { name: 'idempotency-cleanup', schedule: '7 * * * *', run: cleanupIdempotencyKeys },
  { name: 'location-retention', schedule: '17 3 * * *', run: purgeExpiredLocations },
  { name: 'export-cleanup', schedule: '37 3 * * *', run: purgeOldExports },
  { name: 'missed-visits', schedule: '*/15 * * * *', run: notifyMissedVisits },
  { name: 'change-log-retention', schedule: '47 3 * * *', run: purgeOldTombstones },
  { name: 'journey-plans', schedule: '*/10 * * * *', run: generateJourneyPlanVisits },
  { name: 'push-deliveries-retention', schedule: '52 3 * * *', run: purgeOldPushDeliveries },
]

/**
 * Schedules `jobs`. `stop()` ends the schedules, tells running jobs to stop at their next batch
 * boundary, and resolves once none runs (the shutdown waits for it before closing the database).
 */
export function startJobs(deps: Deps, jobs: JobDefinition[] = JOBS) {
  const stopping = new AbortController()
  const running = new Set<Promise<void>>()
  const scheduled = jobs.map(
    (job) =>
      new Cron(job.schedule, { name: job.name, timezone: deps.config.DEFAULT_TIMEZONE, protect: true, unref: true }, async () => {
        const run = (async () => {
          try {
            await job.run(deps, stopping.signal)
          } catch (error) {
            if (error instanceof JobStopped) deps.logger.info('job stopped for shutdown', { job: job.name })
            else deps.logger.error('job failed', { job: job.name, ...errorFields(error) })
          }
        })()
        running.add(run)
        await run
        running.delete(run)
      }),
  )
  return {
    scheduled,
    async stop(): Promise<void> {
      for (const cron of scheduled) cron.stop()
      stopping.abort()
      await Promise.all(running)
    },
  }
}
