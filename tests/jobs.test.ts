/**
 * Scheduled jobs: started by the server on croner, stoppable, and each callable directly.
 */
import { describe, expect, test } from 'bun:test'
import { JOBS, startJobs, type JobDefinition } from '../src/jobs'
import type { Logger } from '../src/platform/logger'
import { useTestApp } from './harness'

const t = useTestApp()

describe('job scheduling', () => {
  test('the idempotency cleanup is scheduled hourly in UTC', () => {
    const jobs = startJobs(t.app.deps)
    try {
      const cleanup = jobs.scheduled.find((cron) => cron.name === 'idempotency-cleanup')!
      expect(cleanup).toBeDefined()
      const [first, second] = cleanup.nextRuns(2)
      expect(second!.getTime() - first!.getTime()).toBe(60 * 60 * 1000)
      expect(JOBS.map((job) => job.name)).toContain('idempotency-cleanup')
    } finally {
      jobs.stop()
    }
  })

  /** A job that fails on every run, with a logger that records what the scheduler logs. */
  function failingJob() {
    const logged: { message: string; fields: Record<string, unknown> }[] = []
    const record = (message: string, fields: Record<string, unknown> = {}) => void logged.push({ message, fields })
    const logger: Logger = { debug: record, info: record, warn: record, error: record }
    let runs = 0
    let firstRun: () => void = () => {}
    const ranOnce = new Promise<void>((resolve) => (firstRun = resolve))
    const job: JobDefinition = {
      name: 'tick',
      schedule: '* * * * * *',
      run: async () => {
        runs += 1
        firstRun()
        throw new Error('job failure must not escape')
      },
    }
    return { job, deps: { ...t.app.deps, logger }, logged, ranOnce, runs: () => runs }
  }

  test('a scheduled job runs on its schedule (within the next second for a per-second pattern)', async () => {
    const { job, deps, ranOnce, runs } = failingJob()
    const jobs = startJobs(deps, [job])
    try {
      const [cron] = jobs.scheduled
      expect(cron.isRunning()).toBe(true)
      expect(cron.msToNext()!).toBeLessThanOrEqual(1000)
      // The first tick is awaited as an event, not slept for: it comes within one second.
      await ranOnce
      expect(runs()).toBeGreaterThanOrEqual(1)
    } finally {
      jobs.stop()
    }
  })

  test('a failing run is logged with the job name, not thrown', async () => {
    const { job, deps, logged, runs } = failingJob()
    const jobs = startJobs(deps, [job])
    try {
      // trigger() runs the scheduled callback now, exactly as a tick of the schedule would.
      await jobs.scheduled[0].trigger()
      expect(runs()).toBe(1)
      expect(logged).toEqual([{ message: 'job failed', fields: expect.objectContaining({ job: 'tick' }) }])
    } finally {
      jobs.stop()
    }
  })

  test('stop() ends every schedule: nothing is due any more', () => {
    const { job, deps } = failingJob()
    const jobs = startJobs(deps, [job, { ...job, name: 'tock' }])
    jobs.stop()
    for (const cron of jobs.scheduled) {
      expect(cron.isStopped()).toBe(true)
      expect(cron.nextRun()).toBeNull()
      expect(cron.msToNext()).toBeNull()
    }
  })
})
