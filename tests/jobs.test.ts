/**
 * Scheduled jobs: started by the server on croner, stoppable, and each callable directly.
 */
import { describe, expect, test } from 'bun:test'
import { JOBS, startJobs } from '../src/jobs'
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

  test('a scheduled job runs on its schedule, a failing run is logged not thrown, and stop() ends it', async () => {
    let runs = 0
    const jobs = startJobs(t.app.deps, [
      {
        name: 'tick',
        schedule: '* * * * * *',
        run: async () => {
          runs += 1
          throw new Error('job failure must not escape')
        },
      },
    ])
    await Bun.sleep(2200)
    jobs.stop()
    const seen = runs
    expect(seen).toBeGreaterThanOrEqual(1)
    await Bun.sleep(1200)
    expect(runs).toBe(seen)
    expect(jobs.scheduled[0].isStopped()).toBe(true)
  })
})
