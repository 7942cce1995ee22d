/**
 * The stops import of a journey plan (`text/csv`): columns `outlet_code,weekday,weeks,sequence`, a header
 * row required, parsed like the visit import (src/modules/visits/visits.csv.ts: csv-parse, a byte-order
 * mark allowed, header names trimmed and case-folded, blank lines skipped, cells trimmed). Every row is
 * checked and every error is reported at once, keyed `rows.<line>.<column>` (the header is line 1, the
 * n-th data row line n + 1, as in the visit import);
 * file-level errors are keyed `csv`. Codes are not resolved here: the caller looks them up in the
 * workspace and reports an unknown code under `rows.<line>.outlet_code` the same way.
 *
 *   outlet_code  required, at most 64 characters
 *   weekday      required, 1 (Monday) … 7 (Sunday)
 *   weeks        optional, weeks of the cycle separated by `;` (`1;3`), each 1 … cycle_weeks; empty: every week
 *   sequence     optional, an integer 0 … 999999 (the order of the day's route); empty: the row's line number
 *
 * A row naming an outlet (codes compared case-insensitively) already named on the same weekday in a
 * common week is refused: a plan visits an outlet at most once a day. A column other than these four
 * is refused too, so a misspelt `weeks` cannot silently mean "every week".
 */
import { parse } from 'csv-parse/sync'
import { ValidationFailed } from '../../lib/errors'
import { foldText } from '../../platform/data/pagination'
import { weeksToMask } from './calendar'
import { PLAN_STOPS_MAX } from './journey-plans.schemas'

/** A row is a stop: at most a plan's stops (the body's bound), so an import cannot make a plan its own PUT would refuse. */
export const STOPS_IMPORT_MAX_ROWS = PLAN_STOPS_MAX
/** Far above 500 rows of these four short columns; parsed at once, so it bounds that one call. */
export const STOPS_IMPORT_MAX_CHARS = 256 * 1024
export const STOPS_CSV_COLUMNS = ['outlet_code', 'weekday', 'weeks', 'sequence'] as const
const REQUIRED = ['outlet_code', 'weekday'] as const
const MAX_SEQUENCE = 999_999
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROL = /[\u0000-\u001f\u007f]/

export interface StopRow {
  /** The CSV line (the header is line 1). */
  line: number
  outlet_code: string
  weekday: number
  /** Ascending, without repeats; null: every week of the cycle. */
  weeks: number[] | null
  sequence: number
}

/** The rows of a stops CSV for a plan of `cycleWeeks` weeks, or 400 VALIDATION_ERROR with every error found. */
export function parseStopsCsv(text: string, cycleWeeks: number): StopRow[] {
  if (text.length > STOPS_IMPORT_MAX_CHARS) throw ValidationFailed.field('csv', `is larger than ${STOPS_IMPORT_MAX_CHARS / 1024} KiB`)
  let header: string[] = []
  let records: { record: Record<string, string>; line: number }[]
  try {
    const parsed = parse(text, {
      bom: true,
      columns: (names: string[]) => {
        header = names.map((name) => name.trim().toLowerCase())
        return header
      },
      skip_empty_lines: true,
      trim: true,
      // One record over the limit is enough to say so.
      to: STOPS_IMPORT_MAX_ROWS + 1,
    }) as Record<string, string>[]
    // As in the visit import: the n-th data row is line n + 1 (blank lines, which are skipped, not counted).
    records = parsed.map((record, index) => ({ record, line: index + 2 }))
  } catch (error) {
    throw ValidationFailed.field('csv', `is not valid CSV: ${(error as Error).message}`)
  }
  const unknown = header.filter((name) => !(STOPS_CSV_COLUMNS as readonly string[]).includes(name))
  const missing = REQUIRED.filter((name) => !header.includes(name))
  const fileErrors = [
    ...missing.map((name) => `has no ${name} column`),
    ...unknown.map((name) => `has an unknown column ${name || '(empty)'} (columns: ${STOPS_CSV_COLUMNS.join(', ')})`),
  ]
  if (new Set(header).size !== header.length) fileErrors.push('repeats a column')
  if (fileErrors.length) throw new ValidationFailed({ csv: fileErrors })
  if (records.length === 0) throw ValidationFailed.field('csv', 'has no data rows')
  if (records.length > STOPS_IMPORT_MAX_ROWS) throw ValidationFailed.field('csv', `has more than ${STOPS_IMPORT_MAX_ROWS} rows`)

  const errors: Record<string, string[]> = {}
  const rows: StopRow[] = []
  // Outlet (folded code) and weekday → the weeks already taken, with the line that took them.
  const taken = new Map<string, { mask: number; line: number }[]>()
  const allWeeks = (1 << cycleWeeks) - 1
  for (const { record, line } of records) {
    const at = (column: string, message: string) => {
      errors[`rows.${line}.${column}`] ??= [message]
    }
    const outlet_code = record.outlet_code ?? ''
    if (!outlet_code) at('outlet_code', 'is required')
    else if (outlet_code.length > 64) at('outlet_code', 'must be at most 64 characters')
    else if (CONTROL.test(outlet_code)) at('outlet_code', 'must not contain control characters')
    const weekday = integerOf(record.weekday ?? '')
    if (!record.weekday) at('weekday', 'is required')
    else if (weekday === null || weekday < 1 || weekday > 7) at('weekday', 'must be an integer from 1 (Monday) to 7 (Sunday)')
    let weeks: number[] | null = null
    if (record.weeks) {
      const parts = record.weeks.split(';').map((part) => part.trim())
      const values = parts.map(integerOf)
      if (values.some((week) => week === null || week < 1 || week > cycleWeeks)) at('weeks', `must be weeks from 1 to ${cycleWeeks} separated by ; (e.g. 1;3)`)
      else weeks = [...new Set(values as number[])].sort((a, b) => a - b)
    }
    let sequence = line
    if (record.sequence) {
      const value = integerOf(record.sequence)
      if (value === null || value < 0 || value > MAX_SEQUENCE) at('sequence', `must be an integer from 0 to ${MAX_SEQUENCE}`)
      else sequence = value
    }
    if (errors[`rows.${line}.outlet_code`] || errors[`rows.${line}.weekday`] || errors[`rows.${line}.weeks`]) continue
    const key = `${foldText(outlet_code)}\u0000${weekday}`
    const mask = weeks ? weeksToMask(weeks) : allWeeks
    const earlier = taken.get(key) ?? []
    const clash = earlier.find((entry) => entry.mask & mask)
    if (clash) {
      at('outlet_code', `repeats line ${clash.line}: the same outlet on the same weekday in a common week`)
      continue
    }
    earlier.push({ mask, line })
    taken.set(key, earlier)
    rows.push({ line, outlet_code, weekday: weekday as number, weeks, sequence })
  }
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
  return rows
}

/** A base-10 integer as written (`3`, not `3.0`, `0x3` or `3e0`), or null. */
const integerOf = (text: string) => (/^\d{1,9}$/.test(text) ? Number(text) : null)
