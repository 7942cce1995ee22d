/**
 * `bun scripts/bench/matrix-validate.ts` — how long checking one completed product-matrix answer takes:
 * a required 40-product × 5-column matrix (checkbox, integer, number, select, integer; two required),
 * every cell filled, through `validateAnswers` (src/modules/forms/forms.answers.ts) as submit-form-v2
 * calls it. ROUNDS batches (default 50) of BATCH validations (default 200) after a warm-up; prints the
 * median and worst time per validation over the batches. The aim: well under 10 ms.
 * Figures: docs/PERFORMANCE.md, "Product matrix answers".
 */
import type { FormField, FrozenRows } from '../../src/db/schema'
import { validateAnswers } from '../../src/modules/forms'

const rounds = Number(process.env.ROUNDS ?? 50)
const batch = Number(process.env.BATCH ?? 200)
const PRODUCTS = 40

const field: FormField = {
  key: 'shelf',
  label: 'Shelf audit',
  type: 'product_matrix',
  required: true,
  products: { principal_id: 1 },
  columns: [
    { key: 'available', label: 'Available', type: 'checkbox', required: true },
    { key: 'facings', label: 'Facings', type: 'integer', required: true, min: 0, max: 100 },
    { key: 'shelf_price', label: 'Shelf price', type: 'number', required: false, min: 0 },
    { key: 'display', label: 'Display', type: 'select', required: false, options: ['Shelf', 'Chiller', 'Floor', 'None'] },
    { key: 'order_qty', label: 'Order', type: 'integer', required: false, min: 0 },
  ],
}
const rows: FrozenRows = { shelf: Array.from({ length: PRODUCTS }, (_, i) => ({ product_id: 1000 + i, sku: `SKU-${i}`, name: `Product ${i}` })) }
const answer = Object.fromEntries(
  rows.shelf.map((row, i) => [
    String(row.product_id),
    { available: i % 3 !== 0, facings: i % 7, shelf_price: 1000 + i * 25, display: 'Chiller', order_qty: i % 4 },
  ]),
)
const fields = [field, { key: 'notes', label: 'Notes', type: 'text', required: false } as FormField]

function once() {
  const result = validateAnswers(fields, { shelf: answer, notes: 'ok' }, true, rows)
  if (Object.keys(result.errors).length > 0) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`)
}

for (let i = 0; i < 500; i++) once()
const perValidation: number[] = []
for (let round = 0; round < rounds; round++) {
  const start = performance.now()
  for (let i = 0; i < batch; i++) once()
  perValidation.push((performance.now() - start) / batch)
}
perValidation.sort((a, b) => a - b)
const median = perValidation[Math.floor(perValidation.length / 2)]
const worst = perValidation[perValidation.length - 1]
console.log(`product matrix ${PRODUCTS} × ${field.columns!.length}, ${rounds} batches of ${batch}:`)
console.log(`  per validation: median ${(median * 1000).toFixed(1)} µs, worst batch ${(worst * 1000).toFixed(1)} µs (aim: well under 10 ms)`)
