/**
 * Submission exports as background jobs (docs/API.md §Other areas). A request records a `queued` job and answers
 * 202 at once; the in-process runner takes jobs one at a time (`running` → `done` or `failed`) and
 * writes the file under EXPORT_DIR:
 *   - CSV: streamed in pages of 500 rows, so 100k rows never sit in memory;
 *     A product matrix is flattened to one column per product and column (exports.matrix.ts);
 *   - PDF (pdfkit, exports.pdf.ts): a readable report with a header, the filters used, a table of
 *     submissions and their answers, matrices as grids. Its times are the workspace's local wall
 *     clock with the offset; the CSV keeps stored instants as ISO UTC (`…Z`), for the machines that read it.
 * The job runs with its requester's current access (a requester who lost it gets a failed job).
 * Jobs left queued or running by a restart are picked up again at start. Files and jobs older than
 * 7 days are removed by a daily job.
 *
 * A file is written under a temporary name in its own directory and renamed into place only once it
 * is complete (`writeInPlace`): a path can be used again (job ids start over after a restore from a
 * backup; two databases may share EXPORT_DIR), and writing over an older, longer file in place would
 * leave its tail after the new rows. A download sees the old file or the whole new one, never a mix.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { stringify } from 'csv-stringify/sync'
import { and, eq, inArray, lt } from 'drizzle-orm'
import { exportJobs, type FormField } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'
import { loadMember } from '../../platform/actor'
import type { AuthedContext, Deps } from '../../platform/context'
import { AppError, NotFound } from '../../lib/errors'
import { errorFields } from '../../platform/logger'
import { can } from '../../platform/permissions'
import { DEFAULT_LIST } from '../../platform/data/pagination'
import { defineList } from '../../platform/data/list'
import { withTransaction } from '../../platform/data/transaction'
import type { SubmissionListQuery } from '../visits'
import { answersWithoutMatrices, MatrixLayout } from './exports.matrix'
import { writePdf } from './exports.pdf'
import { type ExportedSubmission, learnForms, matrixPage, pagesOf, SUBMISSION_COLUMNS, submissionsPage } from './exports.queries'
import { type OfficeOrderQuery, ORDER_EXPORT_COLUMNS, orderLinesPage } from '../orders'
import type { ExportFormat, ExportQuery, JobsQuery } from './exports.schemas'

export const EXPORT_TTL_MS = 7 * 86_400_000

type Job = typeof exportJobs.$inferSelect
const present = ({ path: _path, filters, ...job }: Job) => ({
  ...job,
  filters,
  download_url: job.status === 'done' ? `/api/office/v1/export/jobs/${job.id}/download` : null,
})
export type PresentedJob = ReturnType<typeof present>

/** Runs queued jobs one after another in this process. */
export class ExportRunner {
  private queue: number[] = []
  private running: Promise<void> | null = null

  constructor(private readonly deps: Deps) {}

  enqueue(id: number) {
    this.queue.push(id)
    this.running ??= this.drain().finally(() => {
      this.running = null
    })
  }

  /** Resolves when every job queued so far has finished (tests, shutdown). */
  async idle() {
    while (this.running) await this.running
  }

  /** Jobs a restart interrupted. */
  async resume() {
    const pending = await this.deps.db.read
      .select({ id: exportJobs.id })
      .from(exportJobs)
      .where(inArray(exportJobs.status, ['queued', 'running']))
      .orderBy(exportJobs.id)
    for (const job of pending) this.enqueue(job.id)
  }

  private async drain() {
    for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) {
      await runJob(this.deps, id).catch((error) => this.deps.logger.error('export runner failed', { job: id, ...errorFields(error) }))
    }
  }
}

const setJob = (deps: Deps, id: number, values: Partial<typeof exportJobs.$inferInsert>) =>
  deps.db.transaction(async (tx) => {
    await tx.update(exportJobs).set(values).where(eq(exportJobs.id, id))
  })

async function runJob(deps: Deps, id: number) {
  const [job] = await deps.db.read.select().from(exportJobs).where(eq(exportJobs.id, id))
  if (!job || job.status === 'done' || job.status === 'failed') return
  await setJob(deps, id, { status: 'running', started_at: deps.clock.now().toISOString() })
  // A random part: job ids start over after a restore, and two databases may share EXPORT_DIR; without
  // it one database's job could replace (and so serve) the other's file of the same workspace and id.
  const path = join(String(job.workspace_id), `${job.kind}-${job.id}-${randomBytes(8).toString('hex')}.${job.format}`)
  const absolute = resolve(deps.config.EXPORT_DIR, path)
  try {
    const actor = await loadMember(deps.db.read, job.user_id, job.workspace_id)
    if (!actor || !mayExport(actor.permissions, job.kind)) throw new ExportRefused('the requester no longer has access to exports of this workspace')
    const ctx: AuthedContext = {
      deps,
      actor,
      idempotency: null,
      meta: { requestId: `export:${id}`, ip: null, userAgent: null, timestamp: deps.clock.now().toISOString() },
    }
    await mkdir(dirname(absolute), { recursive: true })
    const rows = await writeInPlace(absolute, (temporary) => writerOf(job)(ctx, temporary))
    await setJob(deps, id, { status: 'done', row_count: rows, path, finished_at: deps.clock.now().toISOString() })
  } catch (error) {
    // writeInPlace removed its temporary file; whatever was at `absolute` before is not this job's.
    // The job's `error` is shown to the client: only a refusal's own words, never a file system error,
    // which names server paths. The log line has the details. (The job ends `failed` whatever went wrong.)
    const shown = error instanceof ExportRefused ? error.message : EXPORT_WRITE_FAILED
    await setJob(deps, id, { status: 'failed', error: shown, finished_at: deps.clock.now().toISOString() })
    deps.logger.warn('export failed', { job: id, path: absolute, ...errorFields(error) })
  }
}

/** Why a job was refused, in words fit for the client. */
class ExportRefused extends Error {}
const EXPORT_WRITE_FAILED = 'the export file could not be written; the server log has the details'

/**
 * Runs `write` on a new temporary file next to `path` (same directory, so the rename cannot cross file
 * systems), then renames it over `path`, replacing whatever was there whole. On failure the temporary
 * file goes and `path` is left as it was.
 */
/** The names `writeInPlace` gives its temporary files. */
const TEMPORARY = /^\..+\.[0-9a-f]{12}\.tmp$/

export async function writeInPlace<T>(path: string, write: (temporary: string) => Promise<T>): Promise<T> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    const result = await write(temporary)
    await rename(temporary, path)
    return result
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** Keeps spreadsheets from running cell text as a formula (CSV injection). */
const safeCell = (value: unknown) => {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
}

/**
 * A CSV file streamed a page at a time (exports.queries.ts `pagesOf`): the header `columns`, then the rows `next(afterId)`
 * gives, in order of `keyOf` (each page starts after the last key of the one before), every cell guarded.
 */
async function writeCsvPages<R>(
  path: string,
  columns: readonly (keyof R & string)[],
  next: (afterId: number, limit: number) => Promise<R[]>,
  keyOf: (row: R) => number,
): Promise<number> {
  const file = Bun.file(path).writer()
  let total = 0
  file.write(stringify([], { header: true, columns: [...columns] }))
  for await (const rows of pagesOf(next, keyOf)) {
    file.write(stringify(rows.map((row) => columns.map((column) => safeCell(row[column])))))
    await file.flush()
    total += rows.length
  }
  await file.end()
  return total
}

/**
 * The submissions CSV: a first pass lays out the flattened matrix columns of what the export holds
 * (exports.matrix.ts), the second writes the rows, the matrices' cells in those columns.
 */
async function writeCsv(ctx: AuthedContext, filters: SubmissionListQuery, path: string) {
  const layout = new MatrixLayout()
  const forms = new Map<number, readonly FormField[] | undefined>()
  for await (const rows of pagesOf(
    (afterId, limit) => matrixPage(ctx, filters, afterId, limit),
    (row) => row.submission_id,
  )) {
    await learnForms(ctx, forms, rows)
    for (const row of rows) layout.add(row.rows, row.answers, forms.get(row.form_id))
  }
  const flat = ({ rows, form_id: _form, answers, ...row }: ExportedSubmission): Record<string, unknown> => ({
    ...row,
    answers: answersWithoutMatrices(answers, rows),
    ...layout.cells(rows, answers),
  })
  return writeCsvPages<Record<string, unknown>>(
    path,
    [...SUBMISSION_COLUMNS, ...layout.headers()],
    async (afterId, limit) => (await submissionsPage(ctx, filters, afterId, limit)).map(flat),
    (row) => row.submission_id as number,
  )
}

const writeOrdersCsv = (ctx: AuthedContext, filters: OfficeOrderQuery, path: string) =>
  writeCsvPages(
    path,
    ORDER_EXPORT_COLUMNS,
    (afterId, limit) => orderLinesPage(ctx, filters, afterId, limit),
    (row) => row.line_id,
  )

export type ExportKind = Job['kind']

/** What a job of each kind needs of its requester on the web: exports, and for orders the orders' view. */
const KIND_PERMISSIONS: Record<ExportKind, readonly string[]> = { submissions: ['export.view'], sales_orders: ['export.view', 'sales_order:view'] }
const mayExport = (permissions: Parameters<typeof can>[0], kind: ExportKind) => KIND_PERMISSIONS[kind].every((key) => can(permissions, key, 'web', 'view'))

/** The writer of a job: its kind and format (a sales-order export is CSV only: its route offers no other). */
function writerOf(job: Job): (ctx: AuthedContext, path: string) => Promise<number> {
  if (job.kind === 'sales_orders') return (ctx, path) => writeOrdersCsv(ctx, job.filters as OfficeOrderQuery, path)
  const filters = job.filters as SubmissionListQuery
  return job.format === 'csv' ? (ctx, path) => writeCsv(ctx, filters, path) : (ctx, path) => writePdf(ctx, filters, path)
}

// ── Requests, lists, downloads ─────────────────────────────────────────────────────────────────

export function requestExport(ctx: AuthedContext, kind: ExportKind, format: ExportFormat, filters: ExportQuery | OfficeOrderQuery) {
  if (!mayExport(ctx.actor.permissions, kind)) throw new AppError('FORBIDDEN', 'exporting sales orders needs the permission to view them (sales_order:view)')
  return withTransaction(
    ctx,
    async ({ tx, afterCommit }) => {
      const [job] = await tx
        .insert(exportJobs)
        .values({
          workspace_id: ctx.actor.workspaceId,
          user_id: ctx.actor.userId,
          kind,
          format,
          filters: Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)),
          status: 'queued',
          created_at: ctx.deps.clock.now().toISOString(),
        })
        .returning()
      afterCommit(() => ctx.deps.exports.enqueue(job.id))
      return { id: job.id, status: job.status }
    },
    // Exports read data; they change nothing a business entity is made of (docs/API.md §Audit log).
    { audit: 'none' },
  )
}

/** A user's export jobs in the workspace (no soft delete: expired files are removed, jobs kept). */
const exportJobScope = workspaceScoped(exportJobs)
const ownJobs = (ctx: AuthedContext) => exportJobScope.where(ctx.actor.workspaceId, eq(exportJobs.user_id, ctx.actor.userId))

const exportJobList = defineList({
  scope: exportJobScope,
  visibleTo: (ctx) => eq(exportJobs.user_id, ctx.actor.userId),
  sort: { created_at: exportJobs.created_at },
  limits: DEFAULT_LIST,
  // A job changes when it is queued, started and finished.
  updatedSince: [exportJobs.created_at, exportJobs.started_at, exportJobs.finished_at],
})

export async function listExportJobs(ctx: AuthedContext, query: JobsQuery) {
  const result = await exportJobList(ctx, query)
  return { rows: result.rows.map(present), meta: result.meta }
}

async function findJob(ctx: AuthedContext, id: number) {
  const [job] = await ctx.deps.db.read
    .select()
    .from(exportJobs)
    .where(and(ownJobs(ctx), eq(exportJobs.id, id)))
    .limit(1)
  if (!job) throw new NotFound('EXPORT_JOB')
  return job
}

export const getExportJob = async (ctx: AuthedContext, id: number) => present(await findJob(ctx, id))

export async function downloadExport(ctx: AuthedContext, id: number) {
  const job = await findJob(ctx, id)
  // Access is checked at download too, as at the request and the run: a file of orders is not handed to
  // someone who may no longer view them.
  if (!mayExport(ctx.actor.permissions, job.kind)) throw new AppError('FORBIDDEN', 'downloading this export needs the permission to view what it holds')
  if (job.status === 'failed') throw new AppError('EXPORT_FAILED', `the export failed: ${job.error ?? 'unknown error'}`)
  if (job.status !== 'done' || !job.path) throw new AppError('EXPORT_NOT_READY', `the export is ${job.status}`, { status: [job.status] })
  const file = Bun.file(resolve(ctx.deps.config.EXPORT_DIR, job.path))
  if (!(await file.exists())) throw new NotFound('EXPORT_JOB', 'export file is no longer available')
  const contentType = job.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/pdf'
  return { file, contentType, filename: `${job.kind.replace('_', '-')}-${job.id}.${job.format}` }
}

/** Daily: exports (files and jobs) older than 7 days are removed, and temporary files a crash left (as old). */
export async function purgeOldExports(deps: Deps): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - EXPORT_TTL_MS).toISOString()
  const old = await deps.db.read.select().from(exportJobs).where(lt(exportJobs.created_at, cutoff))
  for (const job of old) if (job.path) await rm(resolve(deps.config.EXPORT_DIR, job.path), { force: true })
  if (old.length) {
    await deps.db.transaction(async (tx) => {
      await tx.delete(exportJobs).where(
        inArray(
          exportJobs.id,
          old.map((job) => job.id),
        ),
      )
    })
  }
  const leftovers = await removeStaleTemporaries(deps.config.EXPORT_DIR, Date.parse(cutoff))
  deps.logger.info('export cleanup', { removed: old.length, temporaries: leftovers })
  return old.length
}

/**
 * Temporary files of `writeInPlace` that a crash left behind (a job resumed after a restart writes a new
 * one), once older than the exports' TTL: by then no writer of any process sharing EXPORT_DIR is at them.
 */
async function removeStaleTemporaries(exportDir: string, cutoffMs: number): Promise<number> {
  let removed = 0
  const folders = await readdir(exportDir, { withFileTypes: true }).catch(() => [])
  for (const folder of folders) {
    if (!folder.isDirectory()) continue
    const dir = join(exportDir, folder.name)
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!TEMPORARY.test(name)) continue
      const info = await stat(join(dir, name)).catch(() => null)
      if (info && info.mtimeMs < cutoffMs) {
        await rm(join(dir, name), { force: true })
        removed++
      }
    }
  }
  return removed
}
