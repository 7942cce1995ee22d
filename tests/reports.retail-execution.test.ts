/**
 * The retail-execution report (docs/API.md "Retail-execution report"): its figures checked against numbers worked
 * out by hand from shelf audits made through the API — the latest-audit rule, what counts (completed, not
 * rejected, in the period, the team, principal and form asked for), half-up rounding, signed deviations, pages —
 * on both drivers; and the arithmetic alone.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../src/lib/clock'
import { type ProductTally, ratio, retailFigures } from '../src/modules/reports/retail-execution'
import { checkIn, checkOut, data, HERE, newOutlet, newPrincipal, newProduct, newProject, newTeam, newVisit, OFFICE, review, type Row } from './factories'
import { expectError, type Session, unique, useTestApp, type Workspace } from './harness'

const tally = (overrides: Partial<ProductTally>): ProductTally => ({
  product_id: 1,
  sku: 'S',
  name: 'N',
  price: null,
  audited: 0,
  available: 0,
  out_of_stock: 0,
  facings_sum: 0,
  facings_count: 0,
  price_sum: 0,
  price_count: 0,
  ...overrides,
})

describe('retail-execution arithmetic', () => {
  test('rounding is half up (away from zero when negative), in integers', () => {
    expect(ratio(1n, 8n, 1000n)).toBe(125) // 12.5 %
    expect(ratio(2n, 3n, 1000n)).toBe(667) // 66.666… → 66.7
    expect(ratio(1n, 3n, 1000n)).toBe(333)
    expect(ratio(5n, 2n, 1n)).toBe(3) // 2.5 → 3
    expect(ratio(-5n, 2n, 1n)).toBe(-3) // −2.5 → −3
    expect(ratio(-1n, 3n, 1000n)).toBe(-333)
  })

  test('means of hundredths: a shelf price mean of 3,100 and 3,101 is 3,101; facings 2.25 → 2.3; no list price, no deviation', () => {
    expect(retailFigures(tally({ audited: 2, price_sum: 620_100, price_count: 2, price: 0 }))).toMatchObject({
      avg_shelf_price: 3_101,
      price_deviation_pct: null,
      availability_pct: null,
    })
    expect(retailFigures(tally({ audited: 4, facings_sum: 900, facings_count: 4 })).avg_facings).toBe(2.3)
    // Availability is over the audited outlets, also those that left `available` unanswered.
    expect(retailFigures(tally({ audited: 4, available: 2, out_of_stock: 1 })).availability_pct).toBe(50)
    expect(retailFigures(tally({ audited: 3, price_sum: 810_000, price_count: 1, price: 10_000 })).price_deviation_pct).toBe(-19)
  })
})

const DAY = '2026-11-20'
const EARLIER = '2026-11-10'
const COLUMNS = [
  { key: 'available', label: 'Available', type: 'checkbox', required: true },
  { key: 'facings', label: 'Facings', type: 'integer', min: 0 },
  { key: 'shelf_price', label: 'Shelf price', type: 'integer', min: 0 },
]

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`retail-execution report (${driver})`, () => {
    const t = useTestApp({ driver, clock: new ManualClock(`${DAY}T02:00:00.000Z`) })
    const clock = () => t.app.clock as ManualClock
    let ws: Workspace
    let other: Workspace
    const token = () => ws.owner.token
    let who: Session
    let a: Row
    let b: Row
    let c: Row
    let d: Row
    let e: Row
    let principalP: Row
    let principalQ: Row
    let formF: Row
    let formG: Row
    let team1: Row
    let team2: Row
    let foreignTeam: Row
    const outlets: Row[] = []
    let projectF: Row
    let projectG: Row

    /**
     * Plans a visit of `outlet` on the clock's day, checks in, completes its one submission with `answers` and checks out
     * (a draft leaves the visit in progress: its required form is not completed).
     */
    async function audit(outlet: Row, project: Row, team: Row, answers: Row, status: 'completed' | 'draft' = 'completed', by = who) {
      const planned = await newVisit(t.app, token(), { outlet_id: outlet.id, project_id: project.id, team_id: team.id, user_ids: [by.user.id] })
      const visit = data(await checkIn(t.app, planned.id, by), 200, 'check-in')
      const submission = visit.submissions[0]
      clock().advance(60_000)
      data(
        await t.app.post(
          `/app/v1/visits/${visit.id}/submit-form-v2`,
          { form_id: submission.form_id, items: [{ submission_id: submission.id, status, answers }] },
          { token: by.token },
        ),
        200,
        'submit',
      )
      if (status === 'completed') data(await checkOut(t.app, visit.id, by), 200, 'check-out')
      clock().advance(60_000)
      return visit
    }
    const cells = (...rows: [Row, Row][]) => ({ shelf: Object.fromEntries(rows.map(([product, row]) => [String(product.id), row])) })

    beforeAll(async () => {
      ws = await t.app.workspace()
      other = await t.app.workspace()
      who = await t.app.member(ws, 'user')
      principalP = await newPrincipal(t.app, token())
      principalQ = await newPrincipal(t.app, token())
      const tag = unique('re')
      // By sku: a, b, c, e of principal P, then d of principal Q.
      a = await newProduct(t.app, token(), { sku: `${tag}-1A`, principal_id: principalP.id, price: 3_000 })
      b = await newProduct(t.app, token(), { sku: `${tag}-2B`, principal_id: principalP.id, price: 10_000 })
      c = await newProduct(t.app, token(), { sku: `${tag}-3C`, principal_id: principalP.id })
      e = await newProduct(t.app, token(), { sku: `${tag}-4E`, principal_id: principalP.id, price: 500 })
      d = await newProduct(t.app, token(), { sku: `${tag}-5D`, principal_id: principalQ.id, price: 5_000 })
      const matrix = (products: Row) => ({ key: 'shelf', label: 'Shelf', type: 'product_matrix', products, columns: COLUMNS })
      formF = data(
        await t.app.post(`${OFFICE}/forms`, { title: unique('Audit'), fields: [matrix({ principal_id: principalP.id })] }, { token: token() }),
        201,
        'form',
      )
      formG = data(await t.app.post(`${OFFICE}/forms`, { title: unique('Audit'), fields: [matrix({ product_ids: [d.id] })] }, { token: token() }), 201, 'form')
      projectF = await newProject(t.app, token(), { forms: [{ form_id: formF.id, is_required: true }] })
      projectG = await newProject(t.app, token(), { forms: [{ form_id: formG.id, is_required: true }] })
      team1 = await newTeam(t.app, token())
      team2 = await newTeam(t.app, token())
      foreignTeam = await newTeam(t.app, other.owner.token)
      for (let i = 0; i < 7; i++) outlets.push(await newOutlet(t.app, token(), { name: unique('Shop'), ...HERE }))
      const [o1, o2, o3, o4, o5, o6] = outlets

      // Out of the period: ten days earlier, a (false) at o6.
      clock().set(`${EARLIER}T02:00:00.000Z`)
      await audit(o6, projectF, team1, cells([a, { available: false }]))
      clock().set(`${DAY}T02:00:00.000Z`)
      // o1 (team 1): a and b; c and e asked, not answered.
      await audit(
        o1,
        projectF,
        team1,
        cells([a, { available: true, facings: 4, shelf_price: 3_100 }], [b, { available: true, facings: 1, shelf_price: 9_000 }]),
      )
      // o2 (team 1): a and c.
      await audit(o2, projectF, team1, cells([a, { available: true, facings: 3, shelf_price: 3_300 }], [c, { available: false }]))
      // o3 (team 2): a out of stock.
      await audit(o3, projectF, team2, cells([a, { available: false, facings: 0 }]))
      // o1 again, later: its a row replaces the first (the whole row: no shelf price now); its b row still counts.
      await audit(o1, projectF, team1, cells([a, { available: true, facings: 2 }]))
      // o4 (team 2): rejected by the office — not counted.
      const rejected = await audit(o4, projectF, team2, cells([a, { available: false }], [b, { available: false }]))
      await review(t.app, token(), rejected, 'reject')
      // o5 (team 2): a draft — not counted.
      await audit(o5, projectF, team2, cells([a, { available: false }]), 'draft', await t.app.member(ws, 'user'))
      // o1 with form G: d.
      await audit(o1, projectG, team1, cells([d, { available: true, facings: 6 }]))
      // c is deleted since: its audits still count.
      data(await t.app.delete(`${OFFICE}/products/${c.id}`, { token: token() }), 200, 'delete c')
      // Another workspace audits too: never seen here.
      const foreignPrincipal = await newPrincipal(t.app, other.owner.token)
      await newProduct(t.app, other.owner.token, { principal_id: foreignPrincipal.id, price: 1 })
    })

    const report = async (query: string, as = token()) => data(await t.app.get(`${OFFICE}/reports/retail-execution?${query}`, { token: as }), 200, 'report')
    const full = async (query: string) => {
      const reply = await t.app.get(`${OFFICE}/reports/retail-execution?${query}`, { token: token() })
      expect(reply.status).toBe(200)
      return reply.body
    }
    const row = (product: Row, figures: Row) => ({ product_id: product.id, sku: product.sku, name: product.name, ...figures })

    test('the period’s figures per product, by sku, worked out by hand', async () => {
      const body = await full(`date_from=${DAY}&date_to=${DAY}`)
      expect(body.meta).toMatchObject({ page: 1, total: 5 })
      expect(body.data).toEqual([
        // a: latest rows o1 (true, 2), o2 (true, 3, 3300), o3 (false, 0): 2 of 3 available → 66.7; facings 5/3 → 1.7;
        // shelf 3300 (o1's latest row has none); (3300 − 3000)/3000 → 10.0.
        row(a, {
          outlets_audited: 3,
          availability_pct: 66.7,
          out_of_stock_outlets: 1,
          avg_facings: 1.7,
          avg_shelf_price: 3_300,
          list_price: 3_000,
          price_deviation_pct: 10,
        }),
        // b: o1's first audit (the later one did not answer b): (9000 − 10000)/10000 → −10.0.
        row(b, {
          outlets_audited: 1,
          availability_pct: 100,
          out_of_stock_outlets: 0,
          avg_facings: 1,
          avg_shelf_price: 9_000,
          list_price: 10_000,
          price_deviation_pct: -10,
        }),
        // c (deleted since): o2, not available; no price of its own.
        row(c, {
          outlets_audited: 1,
          availability_pct: 0,
          out_of_stock_outlets: 1,
          avg_facings: null,
          avg_shelf_price: null,
          list_price: null,
          price_deviation_pct: null,
        }),
        // e: asked at every audit, never answered.
        row(e, {
          outlets_audited: 0,
          availability_pct: null,
          out_of_stock_outlets: 0,
          avg_facings: null,
          avg_shelf_price: null,
          list_price: 500,
          price_deviation_pct: null,
        }),
        // d: form G at o1.
        row(d, {
          outlets_audited: 1,
          availability_pct: 100,
          out_of_stock_outlets: 0,
          avg_facings: 6,
          avg_shelf_price: null,
          list_price: 5_000,
          price_deviation_pct: null,
        }),
      ])
    })

    test('by team (the visit’s), by principal (the product’s), by form', async () => {
      const byTeam = await report(`date_from=${DAY}&date_to=${DAY}&team_id=${team2.id}`)
      // Team 2's counted audit is o3's alone (o4 rejected, o5 a draft): a, and the products it asked about.
      expect(byTeam.map((r: Row) => r.product_id)).toEqual([a.id, b.id, c.id, e.id])
      expect(byTeam[0]).toMatchObject({ outlets_audited: 1, availability_pct: 0, out_of_stock_outlets: 1, avg_facings: 0, avg_shelf_price: null })
      expect(byTeam[1]).toMatchObject({ outlets_audited: 0, availability_pct: null })
      const byPrincipal = await report(`date_from=${DAY}&date_to=${DAY}&principal_id=${principalQ.id}`)
      expect(byPrincipal.map((r: Row) => r.product_id)).toEqual([d.id])
      const byForm = await report(`date_from=${DAY}&date_to=${DAY}&form_id=${formG.id}`)
      expect(byForm).toEqual([expect.objectContaining({ product_id: d.id, outlets_audited: 1 })])
      const formAndPrincipal = await report(`date_from=${DAY}&date_to=${DAY}&form_id=${formF.id}&principal_id=${principalQ.id}`)
      expect(formAndPrincipal).toEqual([])
    })

    test('the period: visit dates from and to, inclusive; an earlier day has its own audit', async () => {
      const earlier = await report(`date_from=${EARLIER}&date_to=${EARLIER}`)
      expect(earlier.find((r: Row) => r.product_id === a.id)).toMatchObject({ outlets_audited: 1, availability_pct: 0, out_of_stock_outlets: 1 })
      // Both days: o6's audit joins the period's a rows (four outlets, two available).
      const both = await report(`date_from=${EARLIER}&date_to=${DAY}`)
      expect(both.find((r: Row) => r.product_id === a.id)).toMatchObject({ outlets_audited: 4, availability_pct: 50, out_of_stock_outlets: 2 })
      expect(await report('date_from=2026-11-21&date_to=2026-11-30')).toEqual([])
    })

    test('pages: limit and page, the total on every page, past the end an empty page with the total', async () => {
      const second = await full(`date_from=${DAY}&date_to=${DAY}&limit=2&page=2`)
      expect(second.data.map((r: Row) => r.product_id)).toEqual([c.id, e.id])
      expect(second.meta).toMatchObject({ page: 2, limit: 2, total: 5 })
      const past = await full(`date_from=${DAY}&date_to=${DAY}&limit=2&page=9`)
      expect(past.data).toEqual([])
      expect(past.meta).toMatchObject({ page: 9, total: 5 })
    })

    test('another workspace sees none of it, and its team matches nothing here', async () => {
      expect(await report(`date_from=${DAY}&date_to=${DAY}`, other.owner.token)).toEqual([])
      expect(await report(`date_from=${DAY}&date_to=${DAY}&team_id=${foreignTeam.id}`)).toEqual([])
    })

    test('bad periods are refused with the field’s error; a field user (no office view) is refused', async () => {
      const refused = async (query: string, field: string) => {
        const errors = expectError(await t.app.get(`${OFFICE}/reports/retail-execution?${query}`, { token: token() }), 400, 'VALIDATION_ERROR')
        expect(Object.keys(errors)).toContain(field)
      }
      await refused(`date_from=${DAY}&date_to=${EARLIER}`, 'date_to')
      await refused('date_from=2025-01-01&date_to=2026-01-02', 'date_to')
      await refused(`date_to=${DAY}`, 'date_from')
      await refused(`date_from=2026-13-01&date_to=${DAY}`, 'date_from')
      await refused(`date_from=${DAY}&date_to=${DAY}&team_id=abc`, 'team_id')
      await refused(`date_from=${DAY}&date_to=${DAY}&principal_id=0`, 'principal_id')
      expect((await t.app.get(`${OFFICE}/reports/retail-execution?date_from=${DAY}&date_to=${DAY}`, { token: who.token })).status).toBe(403)
    })
  })
}
