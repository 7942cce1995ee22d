/**
 * Migration 0024 (product-matrix rows) on both drivers: a database from before it — forms without a matrix,
 * a visit in progress with a submission not yet filled, a planned visit — upgrades with `submissions.rows`
 * null, and everything keeps working: the old submission is read and filled (freezing its rows then),
 * a planned visit checks in (freezing them at check-in), and a matrix form can be attached afterwards.
 * The older database is made by taking 0024 back off a current one (its only change is the added column), and
 * the upgrade is 0024's own SQL file, statement by statement as the migrator runs it. (Not the migrator itself:
 * it re-applies only what comes after the last migration it recorded, and later migrations exist.)
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { checkIn, data, HERE, newOutlet, newPrincipal, newProduct, newProject, newVisit, OFFICE } from './factories'
import { createTestApp, unique } from './harness'

/** The statements of drizzle/0024_product_matrix.sql, split where drizzle-kit marks its breakpoints. */
const MIGRATION_0024 = readFileSync(join(import.meta.dir, '..', 'drizzle', '0024_product_matrix.sql'), 'utf8')
  .split('--> statement-breakpoint')
  .map((statement) => statement.trim())
  .filter(Boolean)

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`migration 0024 (product matrix) on ${driver}`, () => {
    test('forms and submissions made before it keep working after it', async () => {
      const t = await createTestApp({ driver })
      try {
        const ws = await t.workspace()
        const token = ws.owner.token
        const [first, second] = [await t.member(ws, 'user'), await t.member(ws, 'user')]
        const form = data(
          await t.post(`${OFFICE}/forms`, { title: unique('Form'), fields: [{ key: 'notes', label: 'Notes', type: 'text', required: true }] }, { token }),
          201,
          'form',
        )
        const project = await newProject(t, token, { forms: [{ form_id: form.id, is_required: true }] })
        const outlet = await newOutlet(t, token, { ...HERE })
        const started = await newVisit(t, token, { outlet_id: outlet.id, project_id: project.id, user_ids: [first.user.id] })
        data(await checkIn(t, started.id, first), 200, 'check-in')
        const planned = await newVisit(t, token, { outlet_id: outlet.id, project_id: project.id, user_ids: [second.user.id] })

        // Back to the schema before 0024, then upgrade again.
        await t.db.transaction(async (tx) => {
          await tx.run(sql.raw('ALTER TABLE submissions DROP COLUMN rows'))
        })
        expect((await t.db.pragma('PRAGMA table_info(submissions)')).map((column) => column.name)).not.toContain('rows')
        await t.db.transaction(async (tx) => {
          for (const statement of MIGRATION_0024) await tx.run(sql.raw(statement))
        })
        expect((await t.db.pragma('PRAGMA table_info(submissions)')).map((column) => column.name)).toContain('rows')
        expect((await t.db.pragma('SELECT count(*) AS n FROM submissions WHERE rows IS NOT NULL'))[0].n).toBe(0)

        // The form reads back as it was; the old submissions answer rows: null.
        expect(data(await t.get(`${OFFICE}/forms/${form.id}`, { token }), 200, 'form').fields).toEqual(form.fields)
        const before = data(await t.get(`${OFFICE}/visits/${started.id}`, { token }), 200, 'visit').submissions[0]
        expect(before.rows).toBeNull()

        // The visit in progress: its old submission is filled (rows frozen then: no matrix, {}).
        const saved = data(
          await t.post(
            `/app/v1/visits/${started.id}/submit-form-v2`,
            { form_id: form.id, items: [{ submission_id: before.id, status: 'completed', answers: { notes: 'ok' } }] },
            { token: first.token },
          ),
          200,
          'submit',
        )
        expect(saved.submissions[0]).toMatchObject({ id: before.id, status: 'completed', answers: { notes: 'ok' }, rows: {} })

        // The planned visit checks in, freezing its submission's rows.
        const checkedIn = data(await checkIn(t, planned.id, second), 200, 'check-in')
        expect(checkedIn.submissions[0].rows).toEqual({})

        // A matrix form attached to the old visit in progress freezes its rows when attached.
        const principal = await newPrincipal(t, token)
        const product = await newProduct(t, token, { principal_id: principal.id })
        const matrix = data(
          await t.post(
            `${OFFICE}/forms`,
            {
              title: unique('Matrix'),
              fields: [
                {
                  key: 'shelf',
                  label: 'Shelf',
                  type: 'product_matrix',
                  products: { principal_id: principal.id },
                  columns: [{ key: 'available', label: 'Available', type: 'checkbox' }],
                },
              ],
            },
            { token },
          ),
          201,
          'matrix form',
        )
        const attached = data(await t.post(`${OFFICE}/visits/${started.id}/submissions`, { form_id: matrix.id }, { token }), 201, 'attach')
        expect(attached.rows).toEqual({ shelf: [{ product_id: product.id, sku: product.sku, name: product.name }] })
      } finally {
        await t.close()
      }
    })
  })
}
