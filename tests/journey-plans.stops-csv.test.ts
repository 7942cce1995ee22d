/**
 * The stops import CSV of a journey plan (src/modules/journey-plans/stops-csv.ts): parsed rows with their
 * lines, and every kind of error under `rows.<line>.<column>` or `csv`.
 */
import { describe, expect, test } from 'bun:test'
import { ValidationFailed } from '../src/lib/errors'
import { parseStopsCsv, STOPS_IMPORT_MAX_CHARS, STOPS_IMPORT_MAX_ROWS } from '../src/modules/journey-plans'

function errorsOf(text: string, cycleWeeks = 4): Record<string, string[]> {
  try {
    parseStopsCsv(text, cycleWeeks)
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailed)
    expect((error as ValidationFailed).status).toBe(400)
    expect((error as ValidationFailed).code).toBe('VALIDATION_ERROR')
    return (error as ValidationFailed).errors as Record<string, string[]>
  }
  throw new Error('expected a validation error')
}

describe('parseStopsCsv: good files', () => {
  test('rows with their lines; BOM, header case and spaces, blank lines and empty optional cells', () => {
    const text = '\uFEFF Outlet_Code ,WEEKDAY,weeks,sequence\r\nA-1,1,3;1;3,20\r\n\r\nb-2,7,,\r\n'
    expect(parseStopsCsv(text, 4)).toEqual([
      { line: 2, outlet_code: 'A-1', weekday: 1, weeks: [1, 3], sequence: 20 },
      { line: 3, outlet_code: 'b-2', weekday: 7, weeks: null, sequence: 3 },
    ])
  })

  test('weeks and sequence columns may be left out; columns in any order', () => {
    expect(parseStopsCsv('weekday,outlet_code\n2,X\n', 1)).toEqual([{ line: 2, outlet_code: 'X', weekday: 2, weeks: null, sequence: 2 }])
  })

  test('the same outlet on the same weekday in different weeks, or on another weekday, is fine', () => {
    const rows = parseStopsCsv('outlet_code,weekday,weeks\nA,1,1;3\nA,1,2;4\nA,2,\n', 4)
    expect(rows.map((row) => row.line)).toEqual([2, 3, 4])
  })
})

describe('parseStopsCsv: every error', () => {
  test('file too large, not CSV, no data rows, too many rows', () => {
    expect(errorsOf(`outlet_code,weekday\n${'A,1\n'.repeat(STOPS_IMPORT_MAX_CHARS / 4)}`)).toEqual({ csv: ['is larger than 256 KiB'] })
    expect(errorsOf('outlet_code,weekday\nA,1,2\n').csv?.[0]).toStartWith('is not valid CSV: ')
    expect(errorsOf('outlet_code,weekday\n"A,1\n').csv?.[0]).toStartWith('is not valid CSV: ')
    expect(errorsOf('outlet_code,weekday\n')).toEqual({ csv: ['has no data rows'] })
    expect(errorsOf('')).toEqual({ csv: ['has no outlet_code column', 'has no weekday column'] })
    const many = `outlet_code,weekday\n${Array.from({ length: STOPS_IMPORT_MAX_ROWS + 1 }, (_, i) => `O${i},1`).join('\n')}\n`
    expect(errorsOf(many)).toEqual({ csv: [`has more than ${STOPS_IMPORT_MAX_ROWS} rows`] })
  })

  test('header: a required column missing, an unknown column, a repeated column', () => {
    expect(errorsOf('outlet_code,weeks\nA,1\n')).toEqual({ csv: ['has no weekday column'] })
    expect(errorsOf('outlet_code,weekday,week\nA,1,1\n')).toEqual({ csv: ['has an unknown column week (columns: outlet_code, weekday, weeks, sequence)'] })
    expect(errorsOf('outlet_code,weekday,weekday\nA,1,1\n').csv).toContain('repeats a column')
  })

  test('outlet_code: required, at most 64 characters, no control characters', () => {
    expect(errorsOf(`outlet_code,weekday\n,1\n${'x'.repeat(65)},2\n"a\nb",3\n`)).toEqual({
      'rows.2.outlet_code': ['is required'],
      'rows.3.outlet_code': ['must be at most 64 characters'],
      'rows.4.outlet_code': ['must not contain control characters'],
    })
  })

  test('weekday: required, an integer 1–7', () => {
    const message = ['must be an integer from 1 (Monday) to 7 (Sunday)']
    expect(errorsOf('outlet_code,weekday\nA,\nB,0\nC,8\nD,1.0\nE,mon\n')).toEqual({
      'rows.2.weekday': ['is required'],
      'rows.3.weekday': message,
      'rows.4.weekday': message,
      'rows.5.weekday': message,
      'rows.6.weekday': message,
    })
  })

  test('weeks: integers within the cycle separated by ;', () => {
    const message = ['must be weeks from 1 to 2 separated by ; (e.g. 1;3)']
    expect(errorsOf('outlet_code,weekday,weeks\nA,1,3\nB,1,0\nC,1,1;;2\nD,1,1|2\nE,1,2\n', 2)).toEqual({
      'rows.2.weeks': message,
      'rows.3.weeks': message,
      'rows.4.weeks': message,
      'rows.5.weeks': message,
    })
  })

  test('sequence: an integer 0–999999', () => {
    const message = ['must be an integer from 0 to 999999']
    expect(errorsOf('outlet_code,weekday,sequence\nA,1,-1\nB,1,1000000\nC,1,x\nD,1,0\n')).toEqual({
      'rows.2.sequence': message,
      'rows.3.sequence': message,
      'rows.4.sequence': message,
    })
  })

  test('the same outlet (any case) on the same weekday in a common week: the later row is refused', () => {
    expect(errorsOf('outlet_code,weekday,weeks\nA,1,1;3\nB,1,\na,1,3\nB,1,2\n')).toEqual({
      'rows.4.outlet_code': ['repeats line 2: the same outlet on the same weekday in a common week'],
      'rows.5.outlet_code': ['repeats line 3: the same outlet on the same weekday in a common week'],
    })
  })

  test('every row is checked: errors of several rows and columns come together', () => {
    expect(Object.keys(errorsOf('outlet_code,weekday,weeks,sequence\n,9,5,x\nok,1,,\n,1,,\n')).sort()).toEqual([
      'rows.2.outlet_code',
      'rows.2.sequence',
      'rows.2.weekday',
      'rows.2.weeks',
      'rows.4.outlet_code',
    ])
  })
})
