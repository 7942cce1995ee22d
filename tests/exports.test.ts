/**
 * Submission exports (docs/API.md §Other areas): CSV and PDF, synchronous and as background jobs, the
 * filters, cell guarding, permissions, workspace isolation and the purge of old files.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parse } from 'csv-parse/sync'
import { extractText, getDocumentProxy } from 'unpdf'
import { purgeOldExports, writeInPlace } from '../src/modules/exports'
import { expectError, useTestApp, type Session, type Workspace } from './harness'
import { type Row, manualClock, data, parseJson, ids, sorted, kit, planVisit, review, walkVisit } from './factories'

const NOW = '2026-03-10T10:00:00.000Z'

const CSV_HEADER = [
  'submission_id',
  'visit_id',
  'visit_date',
  'outlet_code',
  'outlet_name',
  'project_name',
  'team_name',
  'form_title',
  'status',
  'approval_status',
  'submitted_at',
  'submitted_by',
  'reviewed_at',
  'reviewed_by',
  'approval_notes',
  'answers',
]

describe('Exports', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  let admin2: Session
  let field: Session
  let manager: Session
  let t1: Row
  let t2: Row
  let s1: Row
  let s2: Row
  let s3: Row
  let s4: Row
  const admin = () => ws.owner.token

  /** Holds the runner: jobs requested inside `fn` stay queued until released. */
  async function holding<T>(fn: () => Promise<T>) {
    const runner = t.app.deps.exports as unknown as { enqueue: (id: number) => void }
    const original = runner.enqueue
    const held: number[] = []
    runner.enqueue = (id: number) => {
      held.push(id)
    }
    try {
      const result = await fn()
      return {
        result,
        release: () => {
          for (const id of held) original.call(runner, id)
        },
        held,
      }
    } finally {
      runner.enqueue = original
    }
  }

  const request = async (format: 'csv' | 'pdf', query = '', token = admin()) => {
    const reply = await t.app.get(`/office/v1/export/submissions/${format}${query}`, { token })
    if (reply.status !== 202) throw new Error(`export: ${reply.status} ${reply.text}`)
    return reply.body.data as { id: number; status: string }
  }
  const download = (id: number, token = admin()) =>
    t.app.app.handle(new Request(`http://localhost/api/office/v1/export/jobs/${id}/download`, { headers: { authorization: `Bearer ${token}` } }))
  const csvRows = async (query: string) => {
    const job = await request('csv', query)
    await t.app.deps.exports.idle()
    const response = await download(job.id)
    expect(response.status).toBe(200)
    const rows = parse(await response.text()) as string[][]
    expect(rows[0]).toEqual(CSV_HEADER)
    return rows.slice(1).map((row) => Object.fromEntries(CSV_HEADER.map((column, i) => [column, row[i]])))
  }
  const submissionIds = (rows: Row[]) => sorted(rows.map((row) => Number(row.submission_id)))

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
    admin2 = await t.app.member(ws, 'admin')
    manager = await t.app.member(ws, 'manager')
    field = await t.app.member(ws, 'user', { name: '+62 Budi' })
    t1 = data(await t.app.post('/office/v1/teams', { name: 'Team One', user_ids: [field.user.id] }, { token: admin() }))
    t2 = data(await t.app.post('/office/v1/teams', { name: 'Team Two' }, { token: admin() }))
    const shelf = await kit(t.app, admin(), { outletName: 'Toko Satu', outletCode: 'TS-1', formTitle: 'Shelf Check' })
    const price = await kit(t.app, admin(), { outletName: '=SUM(A1:A9)', outletCode: '-42', formTitle: 'Price Audit' })
    const third = { ...shelf, outlet: data(await t.app.post('/office/v1/outlets', { name: 'Warung Tiga', code: 'WT-3' }, { token: admin() })) }
    const fourth = { ...shelf, outlet: data(await t.app.post('/office/v1/outlets', { name: 'Kios Empat' }, { token: admin() })) }

    const v1 = await walkVisit(t.app, admin(), shelf, field, { visit_date: '2026-03-05', team_id: t1.id })
    await review(t.app, admin(), v1, 'approve', 'fine')
    const v2 = await walkVisit(t.app, admin(), price, field, { visit_date: '2026-03-08', team_id: t2.id }, { answers: { note: '=HYPERLINK("http://evil")' } })
    const v3 = await walkVisit(t.app, admin(), third, field, { visit_date: '2026-03-02', team_id: t1.id })
    await review(t.app, admin(), v3, 'reject', '@risky notes')
    const v4 = await planVisit(t.app, admin(), fourth, { visit_date: '2026-03-06', team_id: t1.id, user_ids: [field.user.id] })
    ;[s1, s2, s3, s4] = [v1, v2, v3, v4].map((visit) => visit.submissions[0])

    const foreignKit = await kit(t.app, other.owner.token, { outletName: 'Foreign Outlet' })
    const foreigner = await t.app.member(other, 'user')
    await walkVisit(t.app, other.owner.token, foreignKit, foreigner)
  })

  test('GET /office/v1/export/submissions/csv and /pdf → 202 EXPORT_QUEUED {id, status:"queued"}; the job is stored for the caller with the filters', async () => {
    for (const format of ['csv', 'pdf'] as const) {
      const reply = await t.app.get(`/office/v1/export/submissions/${format}?approval_status=pending&team_id=${t2.id}`, { token: admin() })
      expect(reply.status).toBe(202)
      expect(reply.body).toMatchObject({ success: true, code: 'EXPORT_QUEUED' })
      expect(Object.keys(reply.body.data).sort()).toEqual(['id', 'status'])
      expect(reply.body.data.status).toBe('queued')
      const [job] = await t.app.db.pragma(`SELECT * FROM export_jobs WHERE id = ${reply.body.data.id}`)
      expect(job).toMatchObject({ user_id: ws.owner.user.id, workspace_id: ws.id, format, kind: 'submissions' })
      expect(parseJson(job.filters)).toEqual({ approval_status: 'pending', team_id: t2.id })
    }
    await t.app.deps.exports.idle()
    expectError(await t.app.get('/office/v1/export/submissions/xlsx', { token: admin() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.get('/office/v1/export/submissions/csv?approval_status=maybe', { token: admin() }), 400, 'VALIDATION_ERROR')
  })

  test('download before the job is done → 409 EXPORT_NOT_READY; detail shows queued, then done with row_count and a download_url', async () => {
    const { result: job, release } = await holding(() => request('csv', '?approval_status=approved'))
    const queued = data(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() }), 200)
    expect(queued).toMatchObject({ id: job.id, status: 'queued', row_count: null, download_url: null, format: 'csv' })
    const early = await t.app.get(`/office/v1/export/jobs/${job.id}/download`, { token: admin() })
    expectError(early, 409, 'EXPORT_NOT_READY')
    release()
    await t.app.deps.exports.idle()
    const done = await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() })
    expect(done.body).toMatchObject({
      code: 'SUCCESS',
      data: { id: job.id, status: 'done', row_count: 1, error: null, download_url: `/api/office/v1/export/jobs/${job.id}/download` },
    })
    expect(['queued', 'running', 'done', 'failed']).toContain(done.body.data.status)
    expect((await download(job.id)).status).toBe(200)
  })

  test("the jobs list shows only the caller's own jobs, newest first; another user's job id → 404 on detail and download", async () => {
    const mine = await request('csv')
    const theirs = await request('pdf', '', admin2.token)
    await t.app.deps.exports.idle()
    const list = await t.app.get('/office/v1/export/jobs?limit=100', { token: admin() })
    expect(list.status).toBe(200)
    expect(list.body.code).toBe('LIST_OK')
    expect(list.body.data.every((job: Row) => job.user_id === ws.owner.user.id)).toBe(true)
    expect(ids(list.body.data)).toContain(mine.id)
    expect(ids(list.body.data)).not.toContain(theirs.id)
    expect(ids(list.body.data)).toEqual(sorted(ids(list.body.data)).reverse())
    expect(list.body.meta.total).toBe(await t.app.count('export_jobs', `user_id = ${ws.owner.user.id}`))
    expect(ids((await t.app.get('/office/v1/export/jobs', { token: admin2.token })).body.data)).toEqual([theirs.id])
    expectError(await t.app.get(`/office/v1/export/jobs/${theirs.id}`, { token: admin() }), 404, 'EXPORT_JOB_NOT_FOUND')
    expectError(await t.app.get(`/office/v1/export/jobs/${theirs.id}/download`, { token: admin() }), 404, 'EXPORT_JOB_NOT_FOUND')
    expectError(await t.app.get(`/office/v1/export/jobs/${mine.id}`, { token: other.owner.token }), 404, 'EXPORT_JOB_NOT_FOUND')
  })

  test('CSV: 200 text/csv with the header row and one row per submission matching the filters (approval_status, team_id, date range); other workspaces never included', async () => {
    const job = await request('csv')
    await t.app.deps.exports.idle()
    const response = await download(job.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/csv')
    const all = parse(await response.text()) as string[][]
    expect(all[0]).toEqual(CSV_HEADER)
    expect(all).toHaveLength(5)
    expect(data(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() }), 200).row_count).toBe(4)

    const rows = await csvRows('')
    expect(submissionIds(rows)).toEqual(sorted([s1.id, s2.id, s3.id, s4.id]))
    expect(rows.some((row) => row.outlet_name === 'Foreign Outlet')).toBe(false)
    const first = rows.find((row) => Number(row.submission_id) === s1.id)!
    expect(first).toMatchObject({
      visit_date: '2026-03-05',
      outlet_code: 'TS-1',
      outlet_name: 'Toko Satu',
      team_name: 'Team One',
      form_title: 'Shelf Check',
      status: 'completed',
      approval_status: 'approved',
      approval_notes: 'fine',
    })
    expect(JSON.parse(first.answers)).toEqual({ note: 'all good' })

    expect(submissionIds(await csvRows('?approval_status=pending'))).toEqual([s2.id])
    expect(submissionIds(await csvRows(`?team_id=${t1.id}`))).toEqual(sorted([s1.id, s3.id, s4.id]))
    expect(submissionIds(await csvRows('?date_from=2026-03-04&date_to=2026-03-07'))).toEqual(sorted([s1.id, s4.id]))
    expect(submissionIds(await csvRows(`?approval_status=rejected&team_id=${t1.id}&date_from=2026-03-01&date_to=2026-03-02`))).toEqual([s3.id])
    expect(await csvRows(`?approval_status=approved&team_id=${t2.id}`)).toEqual([])
  })

  test("CSV cells starting with = + - @ are prefixed with ' so spreadsheets do not run them", async () => {
    const rows = await csvRows('')
    const formula = rows.find((row) => Number(row.submission_id) === s2.id)!
    expect(formula.outlet_name).toBe("'=SUM(A1:A9)")
    expect(formula.outlet_code).toBe("'-42")
    expect(formula.submitted_by).toBe("'+62 Budi")
    expect(JSON.parse(formula.answers)).toEqual({ note: '=HYPERLINK("http://evil")' })
    expect(rows.find((row) => Number(row.submission_id) === s3.id)!.approval_notes).toBe("'@risky notes")
    expect(rows.find((row) => Number(row.submission_id) === s1.id)!.outlet_name).toBe('Toko Satu')
  })

  test('PDF: 200 application/pdf whose text has the title "Submissions report", the filters used and the outlet and form names of its rows', async () => {
    const job = await request('pdf', `?approval_status=approved&team_id=${t1.id}`)
    await t.app.deps.exports.idle()
    const response = await download(job.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/pdf')
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-')
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true })
    expect(text).toContain('Submissions report')
    expect(text).toContain('approval_status=approved')
    expect(text).toContain(`team_id=${t1.id}`)
    expect(text).toContain('Toko Satu')
    expect(text).toContain('Shelf Check')
    expect(text).not.toContain('Warung Tiga')
    expect(text).not.toContain('Price Audit')
    expect(data(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() }), 200)).toMatchObject({ status: 'done', row_count: 1, format: 'pdf' })
  })

  test('PDF: a cell too wide for its column stays on its line, cut with an ellipsis (pdfkit wrapped it into the line below whatever lineBreak said)', async () => {
    const wide = await t.app.workspace()
    const words = 'Toko Sumber Rejeki Makmur Jaya Abadi Sentosa Cabang Jalan Jenderal Sudirman Nomor Sembilan Belas'.split(' ')
    // 240 characters: wider than the summary's outlet column and than the answers' title line.
    const head = Array.from({ length: 24 }, (_, i) => words[i % words.length]).join(' ')
    const name = `${head.slice(0, 230)} Ujungnya`
    const wideKit = await kit(t.app, wide.owner.token, { outletName: name, formTitle: 'Wide Check' })
    const walker = await t.app.member(wide, 'user')
    await walkVisit(t.app, wide.owner.token, wideKit, walker)
    const job = await request('pdf', '', wide.owner.token)
    await t.app.deps.exports.idle()
    const response = await download(job.id, wide.owner.token)
    expect(response.status).toBe(200)
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await response.arrayBuffer())), { mergePages: true })
    // The head of the name, cut with an ellipsis, in the table (one line) and in the answers' title; its end nowhere.
    expect(text).toContain('Toko Sumber Rejeki')
    expect(text).toContain('Toko Sumber Rejeki Makmur Jaya…')
    expect(text).toMatch(/#\d+ · 2026-03-10 · Toko Sumber Rejeki [^\n]*…\n/)
    expect(text).not.toContain('Ujungnya')
    expect(text).toContain('Wide Check')
  })

  test('pdfkit draws with the standard fonts only, without fontkit (src/lib/pdfkit-fonts.ts: ~20 MiB less at the first PDF): a font file throws', async () => {
    // An export first: its PDF imports pdfkit as the server does; the import here is that same module.
    await request('pdf')
    await t.app.deps.exports.idle()
    const { default: PDFDocument } = await import('pdfkit')
    const doc = new PDFDocument()
    expect(() => doc.font(new Uint8Array([0, 1, 0, 0, 0, 0]))).toThrow('only the standard PDF fonts')
    expect(() => doc.font('Helvetica-Bold')).not.toThrow()
    doc.end()
  })

  test("PDF in the workspace's zone: a UTC+14 workspace's report prints local times with the zone (a submission at 10:00Z is the next day's 00:00 there); the CSV keeps ISO UTC", async () => {
    // NOW is 2026-03-10T10:00:00Z: in Pacific/Kiritimati (UTC+14) it is 2026-03-11 00:00.
    const east = await t.app.workspace(undefined, { timezone: 'Pacific/Kiritimati' })
    const eastField = await t.app.member(east, 'user')
    await walkVisit(t.app, east.owner.token, await kit(t.app, east.owner.token, { outletName: 'Toko Timur' }), eastField, { visit_date: '2026-03-11' })
    const reply = await t.app.get('/office/v1/export/submissions/pdf', { token: east.owner.token })
    await t.app.deps.exports.idle()
    const response = await download(reply.body.data.id, east.owner.token)
    expect(response.status).toBe(200)
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await response.arrayBuffer())), { mergePages: true })
    expect(text).toContain('Toko Timur')
    expect(text).toContain('Pacific/Kiritimati')
    // Generated and submitted at the same instant: the header, the table and the submission's answers read the local clock and its offset.
    expect(text.split('2026-03-11 00:00 UTC+14').length - 1).toBe(3)
    expect(text).not.toContain('2026-03-10 10:00')

    const csvJob = (await t.app.get('/office/v1/export/submissions/csv', { token: east.owner.token })).body.data
    await t.app.deps.exports.idle()
    const [, row] = parse(await (await download(csvJob.id, east.owner.token)).text()) as string[][]
    expect(row[CSV_HEADER.indexOf('submitted_at')]).toBe(NOW)
  })

  test("a job whose requester was deleted before it ran ends failed; a failed job's download → 409 EXPORT_FAILED", async () => {
    const leaver = await t.app.member(ws, 'admin')
    const { result: job, release } = await holding(() => request('csv', '', leaver.token))
    expect((await t.app.delete(`/office/v1/users/${leaver.user.id}`, { token: admin() })).status).toBe(200)
    release()
    await t.app.deps.exports.idle()
    const [row] = await t.app.db.pragma(`SELECT status, error, path, finished_at FROM export_jobs WHERE id = ${job.id}`)
    expect(row.status).toBe('failed')
    expect(row.path).toBeNull()
    expect(typeof row.error).toBe('string')
    expect(typeof row.finished_at).toBe('string')
    const folder = resolve(t.app.deps.config.EXPORT_DIR, String(ws.id))
    expect(existsSync(folder) ? readdirSync(folder).filter((name) => name.startsWith(`submissions-${job.id}-`)) : []).toEqual([])

    // The same with a requester who was deactivated, then let back in to look at the job.
    const paused = await t.app.member(ws, 'admin')
    const held = await holding(() => request('pdf', '', paused.token))
    data(await t.app.put(`/office/v1/users/${paused.user.id}`, { is_active: false }, { token: admin() }), 200)
    held.release()
    await t.app.deps.exports.idle()
    data(await t.app.put(`/office/v1/users/${paused.user.id}`, { is_active: true }, { token: admin() }), 200)
    const back = await t.app.login(paused.user.email)
    expect(data(await t.app.get(`/office/v1/export/jobs/${held.result.id}`, { token: back.token }), 200)).toMatchObject({
      status: 'failed',
      download_url: null,
      row_count: null,
    })
    expectError(await t.app.get(`/office/v1/export/jobs/${held.result.id}/download`, { token: back.token }), 409, 'EXPORT_FAILED')
  })

  test('a job whose requester lost export access (role changed to field user) before it ran ends failed', async () => {
    const demoted = await t.app.member(ws, 'admin')
    const { result: job, release } = await holding(() => request('csv', '', demoted.token))
    data(await t.app.put(`/office/v1/users/${demoted.user.id}`, { role_id: ws.roles.user }, { token: admin() }), 200)
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: demoted.token }), 403, 'FORBIDDEN')
    release()
    await t.app.deps.exports.idle()
    const [row] = await t.app.db.pragma(`SELECT status, path FROM export_jobs WHERE id = ${job.id}`)
    expect(row).toEqual({ status: 'failed', path: null })
  })

  test('permissions: a field user gets 403 on every export route; a manager may export', async () => {
    const job = await request('csv')
    await t.app.deps.exports.idle()
    const before = await t.app.count('export_jobs')
    expectError(await t.app.get('/office/v1/export/submissions/csv', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/export/submissions/pdf', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/export/jobs', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}/download`, { token: field.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('export_jobs')).toBe(before)
    expect((await t.app.get('/office/v1/export/submissions/csv', { token: manager.token })).status).toBe(202)
    await t.app.deps.exports.idle()
  })

  test("a job's file name has a random part: a job of the same id (ids start over after a restore; a shared EXPORT_DIR) never takes another's file", async () => {
    const first = await request('csv')
    await t.app.deps.exports.idle()
    const [row] = await t.app.db.pragma(`SELECT path FROM export_jobs WHERE id = ${first.id}`)
    expect(String(row.path)).toMatch(new RegExp(`^${ws.id}/submissions-${first.id}-[0-9a-f]{16}\\.csv$`))
  })

  test('a file written where an older, longer one stands (writeInPlace) holds exactly the new bytes; the download reads its own rows', async () => {
    for (const format of ['csv', 'pdf'] as const) {
      const { result: job, release } = await holding(() => request(format, '?approval_status=pending'))
      release()
      await t.app.deps.exports.idle()
      const [stored] = await t.app.db.pragma(`SELECT path FROM export_jobs WHERE id = ${job.id}`)
      const path = resolve(t.app.deps.config.EXPORT_DIR, String(stored.path))
      // The job's file rewritten in place over a longer stale one, as a reused path would be.
      const fresh = readFileSync(path)
      const stale = `${'stale,row,of,an,older,export\n'.repeat(200)}STALE-TAIL\n`
      writeFileSync(path, stale)
      await writeInPlace(path, async (temporary) => writeFileSync(temporary, fresh))
      const response = await download(job.id)
      expect(response.status).toBe(200)
      const bytes = new Uint8Array(await response.arrayBuffer())
      const text = new TextDecoder().decode(bytes)
      expect(text).not.toContain('STALE-TAIL')
      expect(text).not.toContain('stale,row')
      if (format === 'csv') {
        const rows = parse(text) as string[][]
        expect(rows[0]).toEqual(CSV_HEADER)
        expect(rows.slice(1).map((row) => Number(row[0]))).toEqual([s2.id])
      } else {
        expect(text.startsWith('%PDF-')).toBe(true)
        expect(text.trimEnd().endsWith('%%EOF')).toBe(true)
      }
      // Nothing but the finished files is left in the directory (no temporary file).
      expect(readdirSync(dirname(path)).filter((name) => name.endsWith('.tmp'))).toEqual([])
    }
  })

  test('a job that fails while writing leaves no temporary file and does not touch a file already at its path', async () => {
    const path = resolve(t.app.deps.config.EXPORT_DIR, String(ws.id), 'submissions-failing.csv')
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, 'kept\n')
    const failure = writeInPlace(path, async (temporary) => {
      writeFileSync(temporary, 'half of a new export')
      throw new Error('disk full (injected by the test)')
    })
    await expect(failure).rejects.toThrow('disk full')
    expect(readFileSync(path, 'utf8')).toBe('kept\n')
    expect(readdirSync(dirname(path)).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  // Last in this block: moves the clock.
  test('the export-cleanup job removes jobs and files older than 7 days and keeps newer ones', async () => {
    const old = await request('csv')
    await t.app.deps.exports.idle()
    manualClock(t.app).advance(2 * 86_400_000)
    ws.owner = await t.app.login(ws.owner.user.email)
    const recent = await request('csv')
    await t.app.deps.exports.idle()
    manualClock(t.app).advance(6 * 86_400_000)
    ws.owner = await t.app.login(ws.owner.user.email)
    const fresh = await request('pdf')
    await t.app.deps.exports.idle()

    const pathOf = async (id: number) => {
      const [row] = await t.app.db.pragma(`SELECT path FROM export_jobs WHERE id = ${id}`)
      return resolve(t.app.deps.config.EXPORT_DIR, String(row.path))
    }
    const files = { old: await pathOf(old.id), recent: await pathOf(recent.id), fresh: await pathOf(fresh.id) }
    expect(Object.values(files).every((path) => existsSync(path))).toBe(true)
    const expired = await t.app.count('export_jobs', `created_at < '${new Date(t.app.clock.now().getTime() - 7 * 86_400_000).toISOString()}'`)
    expect(expired).toBeGreaterThan(0)
    const total = await t.app.count('export_jobs')

    // A temporary file a crash left mid-export (older than the TTL) goes too; a fresh one may be a live writer's.
    const folder = resolve(t.app.deps.config.EXPORT_DIR, String(ws.id))
    const leftover = resolve(folder, '.submissions-999.csv.0123456789ab.tmp')
    const live = resolve(folder, '.submissions-998.csv.ba9876543210.tmp')
    writeFileSync(leftover, 'half')
    writeFileSync(live, 'half')
    const longAgo = new Date(t.app.clock.now().getTime() - 8 * 86_400_000)
    utimesSync(leftover, longAgo, longAgo)
    utimesSync(live, t.app.clock.now(), t.app.clock.now())

    expect(await purgeOldExports(t.app.deps)).toBe(expired)
    expect(existsSync(leftover)).toBe(false)
    expect(existsSync(live)).toBe(true)
    expect(await t.app.count('export_jobs')).toBe(total - expired)
    expect(await t.app.count('export_jobs', `id = ${old.id}`)).toBe(0)
    expect(existsSync(files.old)).toBe(false)
    expect(existsSync(files.recent)).toBe(true)
    expect(existsSync(files.fresh)).toBe(true)
    expectError(await t.app.get(`/office/v1/export/jobs/${old.id}`, { token: admin() }), 404, 'EXPORT_JOB_NOT_FOUND')
    expect((await download(recent.id)).status).toBe(200)
    expect((await download(fresh.id)).status).toBe(200)
    expect(await purgeOldExports(t.app.deps)).toBe(0)
  })
})

describe('an export that cannot be written (EXPORT_DIR unusable after the start)', () => {
  // A regular file where a directory is expected: mkdir fails for root too (unlike chmod).
  const blocker = join(mkdtempSync(join(tmpdir(), 'ffos-export-blocker-')), 'not-a-directory')
  writeFileSync(blocker, '')
  const t = useTestApp({ env: { EXPORT_DIR: join(blocker, 'exports') } })

  test('the job ends failed with a generic message: no server path reaches the client (the log has it)', async () => {
    const ws = await t.app.workspace()
    const queued = await t.app.get('/office/v1/export/submissions/csv', { token: ws.owner.token })
    expect(queued.status).toBe(202)
    await t.app.deps.exports.idle()
    const job = data(await t.app.get(`/office/v1/export/jobs/${queued.body.data.id}`, { token: ws.owner.token }), 200)
    expect(job).toMatchObject({ status: 'failed' })
    expect(job.error).toBe('the export file could not be written; the server log has the details')
    const refused = await t.app.get(`/office/v1/export/jobs/${queued.body.data.id}/download`, { token: ws.owner.token })
    expectError(refused, 409, 'EXPORT_FAILED')
    for (const text of [JSON.stringify(job), refused.text]) {
      expect(text).not.toContain(blocker)
      expect(text).not.toContain(tmpdir())
    }
  })
})
