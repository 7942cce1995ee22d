/**
 * Scheduled jobs: started by the server on croner, stoppable, and each callable directly.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { betweenBatches, MAINTENANCE_PAUSE_MS } from '../src/db/batches'
import { JOBS, startJobs, type JobDefinition } from '../src/jobs'
import { MISSED_BATCH, notifyMissedVisits } from '../src/jobs/missed-visits.job'
import type { ManualClock } from '../src/lib/clock'
import type { Logger } from '../src/platform/logger'
import { newTeam, newVisit, ok, visitSite } from './factories'
import { unique, useTestApp } from './harness'

const t = useTestApp()

describe('job scheduling', () => {
  test('the idempotency cleanup is scheduled hourly', () => {
    const jobs = startJobs(t.app.deps)
    try {
      const cleanup = jobs.scheduled.find((cron) => cron.name === 'idempotency-cleanup')!
      expect(cleanup.getPattern()).toBe(JOBS.find((job) => job.name === 'idempotency-cleanup')?.schedule)
      const [first, second] = cleanup.nextRuns(2)
      expect(second!.getTime() - first!.getTime()).toBe(60 * 60 * 1000)
      expect(JOBS.map((job) => job.name)).toContain('idempotency-cleanup')
    } finally {
      jobs.stop()
    }
  })

  test('patterns are read in DEFAULT_TIMEZONE: the daily maintenance runs at night there', () => {
    const jakarta = { ...t.app.deps, config: { ...t.app.deps.config, DEFAULT_TIMEZONE: 'Asia/Jakarta' } }
    const jobs = startJobs(jakarta)
    try {
      const retention = jobs.scheduled.find((cron) => cron.name === 'location-retention')!
      const [next] = retention.nextRuns(1)
      // 03:17 in Jakarta (UTC+7) is 20:17 UTC.
      expect(next!.toISOString().slice(11, 16)).toBe('20:17')
      const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jakarta', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      for (const name of ['location-retention', 'export-cleanup', 'change-log-retention']) {
        const hour = Number(local.format(jobs.scheduled.find((cron) => cron.name === name)!.nextRuns(1)[0]!).slice(0, 2))
        expect(hour).toBe(3)
      }
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

  test('stop() during a run: the job ends at its next batch boundary, keeps what it did, and stop() resolves after it', async () => {
    const { deps, logged } = failingJob()
    let batches = 0
    let started: () => void = () => {}
    const running = new Promise<void>((resolve) => (started = resolve))
    const endless: JobDefinition = {
      name: 'endless',
      schedule: '0 0 1 1 *',
      run: async (_deps, signal) => {
        for (;;) {
          batches += 1
          started()
          await betweenBatches(signal)
        }
      },
    }
    const jobs = startJobs(deps, [endless])
    const run = jobs.scheduled[0].trigger()
    await running
    const stopAt = performance.now()
    await jobs.stop()
    // Within one pause (MAINTENANCE_PAUSE_MS), not after the endless job.
    expect(performance.now() - stopAt).toBeLessThan(1000)
    await run
    const done = batches
    expect(done).toBeGreaterThanOrEqual(1)
    expect(logged).toEqual([{ message: 'job stopped for shutdown', fields: { job: 'endless' } }])
    await Bun.sleep(3 * MAINTENANCE_PAUSE_MS)
    expect(batches).toBe(done)
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

/**
 * Missed visits (src/jobs/missed-visits.job.ts, docs/API.md §Missed visits): after a workspace's local
 * midnight, each visit of the day just ended that is still scheduled is reported once to its team's
 * leader, the leaders of its assignees' teams and the workspace's admins. Zones at both ends of the
 * clock (UTC+14, UTC−11) under a controlled clock; the job is called directly, as its schedule would.
 */
describe('missed visits', () => {
  const DAY = '2026-11-23'
  const clock = () => t.app.clock as ManualClock

  /** A workspace in `timezone` with an admin, two team leaders, a field user and four visits of DAY. */
  async function fieldWorkspace(timezone: string) {
    const ws = await t.app.workspace(unique('W'), { timezone })
    const token = ws.owner.token
    const admin = await t.app.member(ws, 'admin')
    const visitLeader = await t.app.member(ws, 'manager')
    const userLeader = await t.app.member(ws, 'manager')
    const bystander = await t.app.member(ws, 'manager')
    const field = await t.app.member(ws, 'user')
    const visitTeam = await newTeam(t.app, token, { leader_id: visitLeader.user.id })
    await newTeam(t.app, token, { leader_id: userLeader.user.id, user_ids: [field.user.id] })
    const { project, outlet } = await visitSite(t.app, token)
    const plan = (date = DAY) =>
      newVisit(t.app, token, {
        outlet_id: outlet.id,
        project_id: project.id,
        team_id: visitTeam.id,
        visit_date: date,
        user_ids: [field.user.id],
        submissions: [],
      })
    const missed = await plan()
    const started = await plan()
    ok(await t.app.post(`/app/v1/visits/${started.id}/check-in`, { latitude: -6.2, longitude: 106.8 }, { token: field.token }))
    const cancelled = await plan()
    ok(await t.app.put(`/office/v1/visits/${cancelled.id}/cancel`, { reason: 'shop closed' }, { token }))
    const tomorrow = await plan('2026-11-24')
    return {
      ws,
      missed,
      others: [started.id, cancelled.id, tomorrow.id],
      recipients: [ws.owner.user.id, admin.user.id, visitLeader.user.id, userLeader.user.id].sort((a, b) => a - b),
      notRecipients: [bystander.user.id, field.user.id],
    }
  }

  const reported = async (visitId: number) =>
    (
      await t.app.db.pragma(
        `SELECT user_id, title, body FROM notifications WHERE type = 'visit.missed' AND json_extract(data, '$.visit_id') = ${visitId} ORDER BY user_id`,
      )
    ).map((row) => Number(row.user_id))

  let east: Awaited<ReturnType<typeof fieldWorkspace>>
  let west: Awaited<ReturnType<typeof fieldWorkspace>>

  beforeAll(async () => {
    clock().set('2026-11-23T00:00:00.000Z')
    east = await fieldWorkspace('Pacific/Kiritimati') // UTC+14: DAY ends at 2026-11-23T10:00Z
    west = await fieldWorkspace('Pacific/Pago_Pago') // UTC−11: DAY ends at 2026-11-24T11:00Z
  })

  test('before a workspace’s local midnight nothing is reported', async () => {
    clock().set('2026-11-23T09:59:59.000Z')
    await notifyMissedVisits(t.app.deps)
    expect(await reported(east.missed.id)).toEqual([])
    expect(await reported(west.missed.id)).toEqual([])
  })

  test('after it: exactly one visit.missed per recipient (visit team leader, assignee’s team leader, admins) for each still-scheduled visit; a rerun reports nothing', async () => {
    clock().set('2026-11-23T10:01:00.000Z')
    await notifyMissedVisits(t.app.deps)
    expect(await reported(east.missed.id)).toEqual(east.recipients)
    for (const id of east.others) expect(await reported(id)).toEqual([])
    // The other end of the world is still in its day.
    expect(await reported(west.missed.id)).toEqual([])
    const [row] = await t.app.db.pragma(`SELECT missed_notified_at, status, updated_at FROM visits WHERE id = ${east.missed.id}`)
    expect(row).toMatchObject({ missed_notified_at: '2026-11-23T10:01:00.000Z', status: 'scheduled' })

    const again = await notifyMissedVisits(t.app.deps)
    expect(again.visits).toBe(0)
    expect(await reported(east.missed.id)).toEqual(east.recipients)
  })

  test('UTC−11: reported after its own midnight, once, with 30 runs at the same time', async () => {
    clock().set('2026-11-24T10:59:00.000Z')
    await notifyMissedVisits(t.app.deps)
    expect(await reported(west.missed.id)).toEqual([])
    clock().set('2026-11-24T11:00:30.000Z')
    const runs = await Promise.all(Array.from({ length: 30 }, () => notifyMissedVisits(t.app.deps)))
    expect(runs.reduce((sum, run) => sum + run.visits, 0)).toBe(1)
    expect(await reported(west.missed.id)).toEqual(west.recipients)
    for (const id of west.notRecipients) expect(await reported(west.missed.id)).not.toContain(id)
    for (const id of west.others.slice(0, 2)) expect(await reported(id)).toEqual([])
    // East's visit of the 24th is now past too (scheduled, never started): reported once as well.
    expect(await reported(east.others[2]!)).toEqual(east.recipients)
    expect(await reported(east.missed.id)).toEqual(east.recipients)
  })

  test('a backlog larger than a batch is reported whole, one batch per turn of the event loop', async () => {
    clock().set('2026-11-23T00:00:00.000Z')
    const ws = await t.app.workspace(unique('W'), { timezone: 'UTC' })
    const token = ws.owner.token
    const field = await t.app.member(ws, 'user')
    const { project, outlet } = await visitSite(t.app, token)
    const count = 2 * MISSED_BATCH + 7
    const body = { outlet_id: outlet.id, project_id: project.id, visit_date: DAY, user_ids: [field.user.id], submissions: [] }
    ok(await t.app.post('/office/v1/visits/bulk', { visits: Array.from({ length: count }, () => body) }, { token }), 201)
    clock().set('2026-11-24T00:05:00.000Z')
    // A timer of the next turn counts the turns the job leaves to others (requests, sockets).
    let turns = 0
    let counting = true
    const tick = () => {
      turns += 1
      if (counting) setImmediate(tick)
    }
    setImmediate(tick)
    const run = await notifyMissedVisits(t.app.deps).finally(() => {
      counting = false
    })
    expect(run.visits).toBeGreaterThanOrEqual(count)
    const [{ unreported }] = await t.app.db.pragma(
      `SELECT count(*) AS unreported FROM visits WHERE workspace_id = ${ws.id} AND status = 'scheduled' AND missed_notified_at IS NULL`,
    )
    expect(Number(unreported)).toBe(0)
    const [{ notices }] = await t.app.db.pragma(`SELECT count(*) AS notices FROM notifications WHERE workspace_id = ${ws.id} AND type = 'visit.missed'`)
    expect(Number(notices)).toBe(count) // the owner, the only admin, once per visit
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(count / MISSED_BATCH))
  })

  test('the job is scheduled every 15 minutes', () => {
    const job = JOBS.find((candidate) => candidate.name === 'missed-visits')!
    expect(job.schedule).toBe('*/15 * * * *')
    expect(job.run).toBe(notifyMissedVisits)
  })
})
