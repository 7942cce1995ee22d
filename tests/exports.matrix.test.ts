/**
 * Product matrices in the submission exports (src/modules/exports/exports.matrix.ts, exports.pdf.ts): the CSV flattens
 * each matrix to one column per product and column, `<key>.<sku>.<column>`, laid out over everything the export
 * holds; the PDF prints each matrix as a grid a person reads, one line per frozen product.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import { extractText, getDocumentProxy } from 'unpdf'
import { PDF_DETAIL_MAX } from '../src/modules/exports/exports.pdf'
import { EXPORT_PAGE, pagesOf } from '../src/modules/exports/exports.queries'
import { checkIn, checkOut, data, HERE, newOutlet, newPrincipal, newProduct, newProject, newVisit, OFFICE, type Row } from './factories'
import { type Session, unique, useTestApp, type Workspace } from './harness'

const COLUMNS = [
  { key: 'available', label: 'Available', type: 'checkbox', required: true },
  { key: 'facings', label: 'Facings', type: 'integer', min: 0 },
  { key: 'shelf_price', label: 'Shelf price', type: 'integer', min: 0 },
  { key: 'stock_qty', label: 'Stock', type: 'integer', min: 0 },
  { key: 'display', label: 'Display', type: 'select', options: ['Shelf', 'Chiller', '=1+1'] },
]
const SKUS = Array.from({ length: 40 }, (_, i) => `SKU-${String(i + 1).padStart(3, '0')}`)

describe('submission exports with a product matrix', () => {
  const t = useTestApp()
  let ws: Workspace
  let who: Session
  let products: Row[]
  let late: Row
  let form: Row
  const token = () => ws.owner.token
  const submissionIds: number[] = []

  /** A visit of a new outlet, checked in (rows frozen), its one submission completed with `answers`, checked out. */
  async function audit(project: Row, answers: Row) {
    const outlet = await newOutlet(t.app, token(), { name: unique('Toko'), ...HERE })
    const planned = await newVisit(t.app, token(), { outlet_id: outlet.id, project_id: project.id, user_ids: [who.user.id] })
    const visit = data(await checkIn(t.app, planned.id, who), 200, 'check-in')
    const submission = visit.submissions[0]
    data(
      await t.app.post(
        `/app/v1/visits/${visit.id}/submit-form-v2`,
        { form_id: submission.form_id, items: [{ submission_id: submission.id, status: 'completed', answers }] },
        { token: who.token },
      ),
      200,
      'submit',
    )
    data(await checkOut(t.app, visit.id, who), 200, 'check-out')
    submissionIds.push(submission.id)
  }
  /** Every product answered: available unless its number is a multiple of 7, facings = its number, price 1000 + number. */
  const fullAnswer = () =>
    Object.fromEntries(
      products.map((product, i) => [
        String(product.id),
        { available: (i + 1) % 7 !== 0, facings: i + 1, shelf_price: 1_000 + i + 1, stock_qty: 2 * (i + 1), display: i === 0 ? '=1+1' : 'Shelf' },
      ]),
    )

  beforeAll(async () => {
    ws = await t.app.workspace()
    who = await t.app.member(ws, 'user')
    const principal = await newPrincipal(t.app, token())
    products = []
    // Created in reverse: the rows (and the columns) come by sku.
    for (const sku of [...SKUS].reverse()) products.unshift(await newProduct(t.app, token(), { sku, name: `Product ${sku}`, principal_id: principal.id }))
    form = data(
      await t.app.post(
        `${OFFICE}/forms`,
        {
          title: 'Shelf audit',
          fields: [
            { key: 'notes', label: 'Notes', type: 'text' },
            { key: 'shelf', label: 'Shelf audit', type: 'product_matrix', products: { principal_id: principal.id }, columns: COLUMNS },
          ],
        },
        { token: token() },
      ),
      201,
      'form',
    )
    const project = await newProject(t.app, token(), { forms: [{ form_id: form.id, is_required: true }] })
    const plainForm = data(
      await t.app.post(`${OFFICE}/forms`, { title: 'Plain', fields: [{ key: 'notes', label: 'Notes', type: 'text' }] }, { token: token() }),
      201,
      'form',
    )
    const plainProject = await newProject(t.app, token(), { forms: [{ form_id: plainForm.id, is_required: true }] })

    await audit(project, { notes: 'all 40', shelf: fullAnswer() })
    // A product added later is a row of the next audit only: a column of its own.
    late = await newProduct(t.app, token(), { sku: 'SKU-041', name: 'Product SKU-041', principal_id: principal.id })
    await audit(project, { notes: 'two rows', shelf: { [products[2].id]: { available: false }, [late.id]: { available: true, facings: 9 } } })
    await audit(plainProject, { notes: 'no matrix' })
  })

  const exported = async (format: 'csv' | 'pdf') => {
    const reply = await t.app.get(`${OFFICE}/export/submissions/${format}`, { token: token() })
    expect(reply.status).toBe(202)
    await t.app.deps.exports.idle()
    const response = await t.app.app.handle(
      new Request(`http://localhost/api/office/v1/export/jobs/${reply.body.data.id}/download`, { headers: { authorization: `Bearer ${token()}` } }),
    )
    expect(response.status).toBe(200)
    return response
  }

  test('CSV: one column per product and column, <key>.<sku>.<column>, by sku then the form’s column order; answers keep the rest', async () => {
    const [header, ...lines] = parse(await (await exported('csv')).text()) as string[][]
    const matrixHeaders = header.slice(header.indexOf('answers') + 1)
    expect(matrixHeaders).toEqual([...SKUS, 'SKU-041'].flatMap((sku) => COLUMNS.map((column) => `shelf.${sku}.${column.key}`)))
    expect(matrixHeaders).toHaveLength(41 * 5)
    const rows = lines.map((line) => Object.fromEntries(header.map((column, i) => [column, line[i]])))
    const [full, partial, plain] = submissionIds.map((id) => rows.find((row) => Number(row.submission_id) === id)!)
    // The full audit, by hand: SKU-007 (the 7th) not available, 7 facings, price 1007, stock 14.
    expect(full['shelf.SKU-007.available']).toBe('false')
    expect(full['shelf.SKU-007.facings']).toBe('7')
    expect(full['shelf.SKU-007.shelf_price']).toBe('1007')
    expect(full['shelf.SKU-007.stock_qty']).toBe('14')
    expect(full['shelf.SKU-040.available']).toBe('true')
    expect(full['shelf.SKU-040.display']).toBe('Shelf')
    // A cell is guarded like every other: an option that reads as a formula is not one.
    expect(full['shelf.SKU-001.display']).toBe("'=1+1")
    // SKU-041 was not a row of the first audit: empty.
    expect(full['shelf.SKU-041.available']).toBe('')
    expect(JSON.parse(full.answers)).toEqual({ notes: 'all 40' })
    // The second audit: two rows answered, the rest empty.
    expect(partial['shelf.SKU-003.available']).toBe('false')
    expect(partial['shelf.SKU-003.facings']).toBe('')
    expect(partial['shelf.SKU-041.facings']).toBe('9')
    expect(partial['shelf.SKU-001.available']).toBe('')
    // A submission without a matrix: every matrix cell empty.
    expect(matrixHeaders.every((column) => plain[column] === '')).toBe(true)
    expect(JSON.parse(plain.answers)).toEqual({ notes: 'no matrix' })
  })

  test('PDF: the answers after the table, each matrix as a grid of its frozen products (40 SKUs readable)', async () => {
    const pdf = await getDocumentProxy(new Uint8Array(await (await exported('pdf')).arrayBuffer()))
    const { text, totalPages } = await extractText(pdf, { mergePages: false })
    const all = text.join('\n')
    expect(all).toContain('Answers')
    expect(all).toContain('Shelf audit (shelf): 40 products')
    expect(all).toContain('Shelf audit (shelf): 41 products')
    for (const sku of SKUS) expect(all).toContain(`Product ${sku}`)
    // The grid's header names the columns by label.
    for (const label of ['SKU', 'Product', 'Available', 'Facings', 'Shelf price', 'Stock', 'Display']) expect(all).toContain(label)
    expect(all).toContain('all 40')
    // A 40-product matrix at about 40 lines a page: the whole PDF (summary, three submissions' answers) is a few pages.
    expect(totalPages).toBeGreaterThanOrEqual(2)
    expect(totalPages).toBeLessThanOrEqual(5)
    expect(PDF_DETAIL_MAX).toBeGreaterThan(0)
  })
})

describe('an export’s passes read every row once, a page at a time (pagesOf)', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }))
  /** The pages `pagesOf` reads from `rows`, and the calls it made. */
  async function read(rows: { id: number }[], max?: number) {
    const calls: [number, number][] = []
    const next = async (afterId: number, limit: number) => {
      calls.push([afterId, limit])
      return rows.filter((row) => row.id > afterId).slice(0, limit)
    }
    const pages: number[] = []
    const seen: number[] = []
    for await (const page of pagesOf(next, (row) => row.id, max)) {
      pages.push(page.length)
      seen.push(...page.map((row) => row.id))
    }
    return { pages, calls, seen }
  }

  test('pages of EXPORT_PAGE after the last key; a short page ends it; an exact multiple asks once more', async () => {
    const some = await read(ids(1_234))
    expect(some.pages).toEqual([EXPORT_PAGE, EXPORT_PAGE, 234])
    expect(some.calls).toEqual([
      [0, EXPORT_PAGE],
      [EXPORT_PAGE, EXPORT_PAGE],
      [2 * EXPORT_PAGE, EXPORT_PAGE],
    ])
    expect(some.seen).toEqual(ids(1_234).map((row) => row.id))
    expect((await read(ids(2 * EXPORT_PAGE))).pages).toEqual([EXPORT_PAGE, EXPORT_PAGE])
    expect((await read(ids(2 * EXPORT_PAGE))).calls).toHaveLength(3)
    expect((await read([])).pages).toEqual([])
  })

  test('at most `max` rows: the last page asks only for what is left', async () => {
    const capped = await read(ids(1_234), 700)
    expect(capped.pages).toEqual([EXPORT_PAGE, 200])
    expect(capped.calls.at(-1)).toEqual([EXPORT_PAGE, 200])
  })
})
