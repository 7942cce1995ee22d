/**
 * Product matrices in the submission exports (docs/API.md "Product matrix", "Export"): a matrix answer is flattened
 * to one cell per product and column, `<key>.<sku>.<column>`. Which such columns an export has depends on what it
 * holds, so a first pass over its submissions lays them out (`MatrixLayout.add`) and the second writes them
 * (`MatrixLayout.cells`):
 * - matrix fields by key (alphabetical); per key, the skus its frozen rows named in any exported submission (by
 *   sku); per key, its columns in the order of the form's definition, then any other column an answer holds (a
 *   column removed from the form since keeps its cells);
 * - a product is known by its sku at check-in (the frozen row), so the same sku of a product deleted and made anew
 *   is one column, as a reader expects.
 * The export's `answers` column keeps the other answers; the matrices are only in their own columns.
 */
import type { Answers, FormField, FrozenRows } from '../../db/schema'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The answers without the matrix fields (those `rows` names). */
export function answersWithoutMatrices(answers: Answers, rows: FrozenRows | null): Answers {
  if (!rows || Object.keys(rows).length === 0) return answers
  return Object.fromEntries(Object.entries(answers).filter(([key]) => !(key in rows)))
}

/** The cells of one frozen matrix: per frozen row (in its order), the row's cells by column (absent: unanswered). */
export function matrixRows(rows: FrozenRows | null, answers: Answers, key: string) {
  const answer = isObject(answers[key]) ? answers[key] : {}
  return (rows?.[key] ?? []).map((row) => {
    const cells = answer[String(row.product_id)]
    return { ...row, cells: isObject(cells) ? cells : {} }
  })
}

interface MatrixColumns {
  skus: Set<string>
  columns: string[]
}

export class MatrixLayout {
  private readonly matrices = new Map<string, MatrixColumns>()

  /** Takes in one submission: its frozen rows, its answers, and its form's fields (undefined for a deleted form). */
  add(rows: FrozenRows | null, answers: Answers, fields: readonly FormField[] | undefined) {
    if (!rows) return
    for (const [key, frozen] of Object.entries(rows)) {
      let matrix = this.matrices.get(key)
      if (!matrix) {
        matrix = { skus: new Set(), columns: [] }
        this.matrices.set(key, matrix)
      }
      const known = new Set(matrix.columns)
      const column = (name: string) => {
        if (!known.has(name)) {
          known.add(name)
          matrix.columns.push(name)
        }
      }
      for (const defined of fields?.find((field) => field.key === key)?.columns ?? []) column(defined.key)
      for (const row of matrixRows(rows, answers, key)) for (const name of Object.keys(row.cells)) column(name)
      for (const row of frozen) matrix.skus.add(row.sku)
    }
  }

  /** The flattened columns' names, `<key>.<sku>.<column>`, in the order above. */
  headers(): string[] {
    const headers: string[] = []
    for (const key of [...this.matrices.keys()].sort()) {
      const { skus, columns } = this.matrices.get(key)!
      for (const sku of [...skus].sort()) for (const column of columns) headers.push(`${key}.${sku}.${column}`)
    }
    return headers
  }

  /** One submission's flattened cells by header; a header it has no value for is absent. */
  cells(rows: FrozenRows | null, answers: Answers): Record<string, unknown> {
    const cells: Record<string, unknown> = {}
    for (const key of Object.keys(rows ?? {})) {
      for (const row of matrixRows(rows, answers, key)) {
        for (const [column, value] of Object.entries(row.cells)) cells[`${key}.${row.sku}.${column}`] = value
      }
    }
    return cells
  }
}
