/**
 * The submissions PDF (pdfkit, A4 landscape): a header with the filters used, a table of the submissions (the first
 * PDF_MAX_ROWS; the CSV has them all), then the answers of the first PDF_DETAIL_MAX submissions, one block each:
 * every answered field as "label: value", and each product matrix as a grid — one line per frozen product (sku,
 * name), one column per matrix column, so each cell is the CSV's `<key>.<sku>.<column>` in a form a person reads
 * (40 products fill about a page). Times are the workspace's local wall clock with the offset (docs/API.md
 * §Time zones); the CSV keeps stored instants as ISO UTC.
 */
import { createWriteStream } from 'node:fs'
import { eq } from 'drizzle-orm'
import { type FormField, workspaces } from '../../db/schema'
import { usePdfkitWithoutFontkit } from '../../lib/pdfkit-fonts'
import { localDateTimeLabel } from '../../lib/time-zones'
import type { AuthedContext } from '../../platform/context'
import type { SubmissionListQuery } from '../visits'
import { answersWithoutMatrices, matrixRows } from './exports.matrix'
import { type ExportedSubmission, exportedSubmissions, learnForms, submissionsTotal } from './exports.queries'

/** Submissions in the PDF's table. */
export const PDF_MAX_ROWS = 2_000
/** Submissions whose answers the PDF prints after the table. */
export const PDF_DETAIL_MAX = 200

const FONT_SIZE = 8
const LINE = 13

/** A cell's text: yes/no for a checkbox, lists joined, anything else as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) return value.map(cellText).join(', ')
  return JSON.stringify(value)
}

const ELLIPSIS = '…'

/**
 * `text` on one line of at most `width` points in the document's current font: whitespace runs (line breaks
 * included) become one space, and a text too wide is cut with an ellipsis. Drawn with `lineBreak: false` and no
 * width, pdfkit writes it as it is: given a width, pdfkit wraps the text whatever `lineBreak` says (a long outlet
 * name ran into the line below) and applies `ellipsis` only under a height, and its line wrapper (an event
 * emitter, a word splitter) was most of the garbage of drawing a 2,000-row table (docs/PERFORMANCE.md "Memory
 * budget").
 */
export function fittedLine(doc: PDFKit.PDFDocument, text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (doc.widthOfString(line) <= width) return line
  // The longest prefix that fits with the ellipsis (width grows with length).
  let low = 0
  let high = line.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (doc.widthOfString(line.slice(0, middle).trimEnd() + ELLIPSIS) <= width) low = middle
    else high = middle - 1
  }
  return line.slice(0, low).trimEnd() + ELLIPSIS
}

/** Lines of fixed-width cells, a new page (with `header` again) when the page is full. */
class Table {
  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly widths: number[],
    private readonly header: string[] | null = null,
  ) {}

  private get left() {
    return this.doc.page.margins.left
  }

  private cells(cells: string[], bold: boolean) {
    const { doc } = this
    const y = doc.y
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(FONT_SIZE)
    let x = this.left
    cells.forEach((cell, i) => {
      doc.text(fittedLine(doc, cell, this.widths[i] - 4), x, y, { lineBreak: false })
      x += this.widths[i]
    })
    doc.x = this.left
    doc.y = y + LINE
  }

  /** The header line, on a new page when fewer than `keep` lines fit below it. */
  start(keep = 2) {
    if (!fits(this.doc, LINE * keep)) this.doc.addPage()
    if (this.header) this.cells(this.header, true)
  }

  line(cells: string[]) {
    if (!fits(this.doc, LINE)) {
      this.doc.addPage()
      if (this.header) this.cells(this.header, true)
    }
    this.cells(cells, false)
  }
}

const fits = (doc: PDFKit.PDFDocument, height: number) => doc.y + height <= doc.page.height - doc.page.margins.bottom

const SUMMARY_HEADERS = ['Visit date', 'Outlet', 'Project', 'Form', 'Status', 'Approval', 'Submitted by', 'Submitted at (local)']
const SUMMARY_WIDTHS = [62, 136, 104, 114, 56, 62, 100, 136]

export async function writePdf(ctx: AuthedContext, filters: SubmissionListQuery, path: string): Promise<number> {
  const [workspace] = await ctx.deps.db.read.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, ctx.actor.workspaceId))
  const total = await submissionsTotal(ctx, filters)
  const shown = Math.min(total, PDF_MAX_ROWS)

  // Imported at the first PDF, not at start: pdfkit and its fonts are resident memory a server that never draws a
  // PDF does not need (docs/PERFORMANCE.md "Memory budget").
  // Without fontkit, which only embedded fonts need (../../lib/pdfkit-fonts.ts).
  usePdfkitWithoutFontkit()
  const { default: PDFDocument } = await import('pdfkit')
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: 36, info: { Title: 'Submissions report' } })
  // pdfkit allocates several objects per character drawn (glyph names, advances, positions, content strings):
  // a page of the table leaves ~0.5 MiB of garbage, which the engine lets pile up before it collects. Below the
  // default memory budget every new page starts with a full collection (src/config/memory-budget.ts
  // pdfPagesPerCollection; the 2,000-row PDF's peak at 128: 124–129 MiB collecting at every second page, 124–126
  // at every page, the export 1.1 → 1.5–1.8 s, docs/PERFORMANCE.md "Memory budget").
  const pagesPerCollection = ctx.deps.config.memory.pdfPagesPerCollection
  let pages = 0
  if (pagesPerCollection) doc.on('pageAdded', () => ++pages % pagesPerCollection === 0 && Bun.gc(true))
  const out = createWriteStream(path)
  const finished = new Promise<void>((resolvePromise, reject) => {
    out.on('finish', resolvePromise)
    out.on('error', reject)
  })
  doc.pipe(out)
  doc.fontSize(18).text('Submissions report')
  doc.moveDown(0.3).fontSize(10).fillColor('#444')
  doc.text(`Workspace: ${workspace?.name ?? ''}`)
  // Times in the workspace's zone, each with its offset: a UTC+14 reader of a bare UTC clock would take a morning
  // visit for one of the day before.
  const zone = ctx.actor.timeZone
  const local = (at: string | null) => (at ? localDateTimeLabel(Date.parse(at), zone) : '')
  doc.text(`Generated: ${localDateTimeLabel(ctx.deps.clock.now(), zone)} by ${ctx.actor.name}`)
  doc.text(`Times are local to the workspace's time zone, ${zone}.`)
  const used = Object.entries(filters).filter(([, value]) => value !== undefined && value !== null)
  doc.text(`Filters: ${used.length ? used.map(([key, value]) => `${key}=${value}`).join(', ') : 'none'}`)
  doc.text(total > shown ? `Submissions: ${total} (showing the first ${shown}; the CSV export has all)` : `Submissions: ${total}`)
  doc.moveDown().fillColor('#000')

  const summary = new Table(doc, SUMMARY_WIDTHS, SUMMARY_HEADERS)
  summary.start()
  for await (const rows of exportedSubmissions(ctx, filters, shown)) {
    for (const row of rows) {
      summary.line([
        row.visit_date,
        row.outlet_name,
        row.project_name,
        row.form_title,
        row.status,
        row.approval_status ?? '',
        row.submitted_by ?? '',
        local(row.submitted_at),
      ])
    }
  }

  const detailed = Math.min(shown, PDF_DETAIL_MAX)
  if (detailed > 0) {
    doc.addPage()
    doc.font('Helvetica-Bold').fontSize(14).text('Answers')
    doc.font('Helvetica').fontSize(10).fillColor('#444')
    doc.text(detailed < total ? `The answers of the first ${detailed} submissions; the CSV export has every answer.` : 'The answers of every submission.')
    doc.fillColor('#000').moveDown(0.5)
    const forms = new Map<number, readonly FormField[] | undefined>()
    for await (const rows of exportedSubmissions(ctx, filters, detailed)) {
      await learnForms(ctx, forms, rows)
      for (const row of rows) answersBlock(doc, row, forms.get(row.form_id), local)
    }
  }
  doc.end()
  await finished
  return total
}

const USABLE_WIDTH = 842 - 72
const SKU_WIDTH = 90
const NAME_WIDTH = 190

/** One submission's answers: a title line, the answered fields in the form's order, then each matrix as a grid. */
function answersBlock(doc: PDFKit.PDFDocument, row: ExportedSubmission, fields: readonly FormField[] | undefined, local: (at: string | null) => string) {
  const left = doc.page.margins.left
  if (!fits(doc, LINE * 4)) doc.addPage()
  doc.moveDown(0.5).x = left
  const title = `#${row.submission_id} · ${row.visit_date} · ${row.outlet_name} · ${row.form_title} · ${row.status}`
  const by = [row.approval_status, row.submitted_by, local(row.submitted_at)].filter(Boolean).join(' · ')
  doc.font('Helvetica-Bold').fontSize(10)
  doc.text(fittedLine(doc, title, USABLE_WIDTH), left, doc.y, { lineBreak: false })
  doc.y += 14
  if (by) {
    doc.font('Helvetica').fontSize(FONT_SIZE).fillColor('#444')
    doc.text(fittedLine(doc, by, USABLE_WIDTH), left, doc.y, { lineBreak: false })
    doc.fillColor('#000').y += LINE
  }
  const labelOf = new Map((fields ?? []).map((field) => [field.key, field.label]))
  const order = new Map((fields ?? []).map((field, index) => [field.key, index]))
  const rank = (key: string) => order.get(key) ?? Number.MAX_SAFE_INTEGER
  const plain = Object.entries(answersWithoutMatrices(row.answers, row.rows))
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1))
  const answers = new Table(doc, [200, USABLE_WIDTH - 200])
  for (const [key, value] of plain) answers.line([labelOf.get(key) ?? key, cellText(value)])

  for (const key of Object.keys(row.rows ?? {}).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))) {
    const field = fields?.find((candidate) => candidate.key === key)
    const lines = matrixRows(row.rows, row.answers, key)
    const columns = field?.columns?.map((column) => ({ key: column.key, label: column.label })) ?? []
    const seen = new Set(columns.map((column) => column.key))
    for (const line of lines) for (const name of Object.keys(line.cells)) if (!seen.has(name) && seen.add(name)) columns.push({ key: name, label: name })
    const width = Math.max(40, Math.floor((USABLE_WIDTH - SKU_WIDTH - NAME_WIDTH) / Math.max(1, columns.length)))
    if (!fits(doc, LINE * 3)) doc.addPage()
    doc.moveDown(0.3).x = left
    doc
      .font('Helvetica-Bold')
      .fontSize(9)
      .text(`${field?.label ?? key} (${key}): ${lines.length} products`, left, doc.y, { lineBreak: false })
    doc.y += LINE
    const grid = new Table(doc, [SKU_WIDTH, NAME_WIDTH, ...columns.map(() => width)], ['SKU', 'Product', ...columns.map((column) => column.label)])
    grid.start(3)
    for (const line of lines) grid.line([line.sku, line.name, ...columns.map((column) => cellText(line.cells[column.key]))])
  }
}
