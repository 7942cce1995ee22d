/**
 * Pure rules of the visits feature, tested without a database: the visit state machine
 * (docs/API.md §Visits) and answer validation against a form's fields
 * (docs/API.md §Visits submit-form-v2, §11 form field types).
 */
import { describe, expect, test } from 'bun:test'
import type { FormField, VisitStatus } from '../src/db/schema'
import { validateAnswers, validateFormFields } from '../src/modules/forms'
import { canAssign, canChangeSubmissions, canSubmit, transition, type VisitAction } from '../src/modules/visits'

const STATUSES: VisitStatus[] = ['scheduled', 'in_progress', 'completed', 'cancelled', 'force_closed']
const ACTIONS: VisitAction[] = ['check_in', 'check_out', 'cancel', 'force_close']

/** The whole table: the target state, or the error code a refused transition names. */
const EXPECTED: Record<VisitStatus, Record<VisitAction, string>> = {
  scheduled: { check_in: 'in_progress', check_out: 'VISIT_NOT_STARTED', cancel: 'cancelled', force_close: 'INVALID_VISIT_STATUS' },
  in_progress: { check_in: 'VISIT_ALREADY_CHECKED_IN', check_out: 'completed', cancel: 'cancelled', force_close: 'force_closed' },
  completed: { check_in: 'INVALID_VISIT_STATUS', check_out: 'INVALID_VISIT_STATUS', cancel: 'INVALID_VISIT_STATUS', force_close: 'INVALID_VISIT_STATUS' },
  cancelled: { check_in: 'INVALID_VISIT_STATUS', check_out: 'INVALID_VISIT_STATUS', cancel: 'INVALID_VISIT_STATUS', force_close: 'INVALID_VISIT_STATUS' },
  force_closed: { check_in: 'INVALID_VISIT_STATUS', check_out: 'INVALID_VISIT_STATUS', cancel: 'INVALID_VISIT_STATUS', force_close: 'INVALID_VISIT_STATUS' },
}

describe('visit transitions: every (status, action) pair', () => {
  for (const status of STATUSES) {
    for (const action of ACTIONS) {
      const outcome = EXPECTED[status][action]
      const allowed = STATUSES.includes(outcome as VisitStatus)
      test(`${action} on a ${status} visit ${allowed ? `moves it to ${outcome}` : `is refused with ${outcome}`}`, () => {
        expect(transition(status, action)).toEqual(allowed ? { ok: true, to: outcome as VisitStatus } : { ok: false, error: outcome as never })
      })
    }
  }

  test('only the documented transitions are allowed, nothing else', () => {
    const allowed = STATUSES.flatMap((status) => ACTIONS.filter((action) => transition(status, action).ok).map((action) => `${status}:${action}`))
    expect(allowed.sort()).toEqual(['in_progress:cancel', 'in_progress:check_out', 'in_progress:force_close', 'scheduled:cancel', 'scheduled:check_in'])
  })
})

describe('assignees can be changed only before the visit starts', () => {
  test('canAssign is true for scheduled only', () => {
    expect(STATUSES.filter(canAssign)).toEqual(['scheduled'])
  })
})

describe('submissions can be attached or removed until the visit is over', () => {
  test('canChangeSubmissions is true for scheduled and in_progress only', () => {
    expect(STATUSES.filter(canChangeSubmissions)).toEqual(['scheduled', 'in_progress'])
  })
})

describe('forms may be saved only while the visit is in progress, except a rejected resubmission', () => {
  const fresh = null
  const pending = { status: 'pending' as const, approval_status: null }
  const draft = { status: 'draft' as const, approval_status: null }
  const awaiting = { status: 'completed' as const, approval_status: 'pending' }
  const approved = { status: 'completed' as const, approval_status: 'approved' }
  const rejected = { status: 'completed' as const, approval_status: 'rejected' }

  test('an in-progress visit accepts new, pending and draft submissions, as draft or completed', () => {
    for (const submission of [fresh, pending, draft]) {
      expect(canSubmit('in_progress', submission, true)).toBe('allowed')
      expect(canSubmit('in_progress', submission, false)).toBe('allowed')
    }
  })

  test('a completed submission that is not rejected cannot be saved again (SUBMISSION_ALREADY_SUBMITTED)', () => {
    expect(canSubmit('in_progress', awaiting, true)).toBe('SUBMISSION_ALREADY_SUBMITTED')
    expect(canSubmit('in_progress', approved, true)).toBe('SUBMISSION_ALREADY_SUBMITTED')
    expect(canSubmit('in_progress', approved, false)).toBe('SUBMISSION_ALREADY_SUBMITTED')
  })

  test('a rejected submission may be resubmitted while the visit is in progress or completed', () => {
    expect(canSubmit('in_progress', rejected, true)).toBe('allowed')
    expect(canSubmit('completed', rejected, true)).toBe('allowed')
  })

  test('a rejected submission cannot be resubmitted on a cancelled or force-closed visit, nor saved as a draft on a completed one', () => {
    expect(canSubmit('cancelled', rejected, true)).toBe('INVALID_VISIT_STATUS')
    expect(canSubmit('force_closed', rejected, true)).toBe('INVALID_VISIT_STATUS')
    expect(canSubmit('scheduled', rejected, true)).toBe('INVALID_VISIT_STATUS')
    expect(canSubmit('completed', rejected, false)).toBe('INVALID_VISIT_STATUS')
  })

  test('outside in_progress anything else is INVALID_VISIT_STATUS', () => {
    for (const visit of ['scheduled', 'completed', 'cancelled', 'force_closed'] as const) {
      for (const submission of [fresh, pending, draft, awaiting, approved]) {
        expect(canSubmit(visit, submission, true)).toBe('INVALID_VISIT_STATUS')
        expect(canSubmit(visit, submission, false)).toBe('INVALID_VISIT_STATUS')
      }
    }
  })
})

const field = (overrides: Partial<FormField> & Pick<FormField, 'key' | 'type'>): FormField => ({ label: overrides.key, required: false, ...overrides })

/** Checks one value of one field as a completed submission: the cleaned value or the messages. */
function check(definition: Partial<FormField> & Pick<FormField, 'type'>, value: unknown) {
  const result = validateAnswers([field({ key: 'q', ...definition })], { q: value }, true)
  return result.errors.q ? { error: result.errors.q } : { value: result.answers.q }
}

describe('answers: text and textarea are strings, trimmed, with length bounds', () => {
  test('accepts text and trims it', () => {
    expect(check({ type: 'text' }, '  hello  ')).toEqual({ value: 'hello' })
    expect(check({ type: 'textarea' }, 'line 1\nline 2')).toEqual({ value: 'line 1\nline 2' })
  })
  test('refuses a non-string', () => {
    expect(check({ type: 'text' }, 5)).toEqual({ error: ['must be text'] })
    expect(check({ type: 'textarea' }, ['a'])).toEqual({ error: ['must be text'] })
  })
  test('refuses text over max (default 5000) or under min', () => {
    expect(check({ type: 'text' }, 'x'.repeat(5000))).toEqual({ value: 'x'.repeat(5000) })
    expect(check({ type: 'text' }, 'x'.repeat(5001))).toEqual({ error: ['must be at most 5000 characters'] })
    expect(check({ type: 'text', max: 3 }, 'abcd')).toEqual({ error: ['must be at most 3 characters'] })
    expect(check({ type: 'text', min: 3 }, 'ab')).toEqual({ error: ['must be at least 3 characters'] })
    expect(check({ type: 'text', min: 3, max: 3 }, 'abc')).toEqual({ value: 'abc' })
  })
})

describe('answers: number, integer and rating are numbers within bounds', () => {
  test('number accepts decimals and honours min/max', () => {
    expect(check({ type: 'number' }, 1.5)).toEqual({ value: 1.5 })
    expect(check({ type: 'number', min: 0 }, -0.1)).toEqual({ error: ['must be at least 0'] })
    expect(check({ type: 'number', max: 10 }, 10.5)).toEqual({ error: ['must be at most 10'] })
    expect(check({ type: 'number', min: 0, max: 10 }, 0)).toEqual({ value: 0 })
  })
  test('a number given as a string, or not finite, is refused', () => {
    expect(check({ type: 'number' }, '5')).toEqual({ error: ['must be a number'] })
    expect(check({ type: 'number' }, Number.POSITIVE_INFINITY)).toEqual({ error: ['must be a number'] })
    expect(check({ type: 'integer' }, Number.NaN)).toEqual({ error: ['must be a number'] })
    expect(check({ type: 'integer' }, true)).toEqual({ error: ['must be a number'] })
  })
  test('integer refuses fractions', () => {
    expect(check({ type: 'integer' }, 4)).toEqual({ value: 4 })
    expect(check({ type: 'integer' }, 4.5)).toEqual({ error: ['must be a whole number'] })
    expect(check({ type: 'integer', min: 1 }, 0)).toEqual({ error: ['must be at least 1'] })
  })
  test('rating is a whole number from 1 to 5 by default, or within its own bounds', () => {
    expect(check({ type: 'rating' }, 1)).toEqual({ value: 1 })
    expect(check({ type: 'rating' }, 5)).toEqual({ value: 5 })
    expect(check({ type: 'rating' }, 0)).toEqual({ error: ['must be at least 1'] })
    expect(check({ type: 'rating' }, 6)).toEqual({ error: ['must be at most 5'] })
    expect(check({ type: 'rating' }, 2.5)).toEqual({ error: ['must be a whole number'] })
    expect(check({ type: 'rating', max: 10 }, 10)).toEqual({ value: 10 })
    expect(check({ type: 'rating', max: 10 }, 11)).toEqual({ error: ['must be at most 10'] })
  })
})

describe('answers: select and multiselect take only the field options', () => {
  const options = ['A', 'B', 'C']
  test('select accepts one of the options', () => {
    expect(check({ type: 'select', options }, 'B')).toEqual({ value: 'B' })
  })
  test('select refuses other strings and non-strings', () => {
    expect(check({ type: 'select', options }, 'D')).toEqual({ error: ['must be one of: A, B, C'] })
    expect(check({ type: 'select', options }, 'a')).toEqual({ error: ['must be one of: A, B, C'] })
    expect(check({ type: 'select', options }, ['A'])).toEqual({ error: ['must be one of the options'] })
  })
  test('multiselect accepts a list of distinct options', () => {
    expect(check({ type: 'multiselect', options }, ['A', 'C'])).toEqual({ value: ['A', 'C'] })
  })
  test('multiselect refuses non-lists, non-string items, unknown and repeated options', () => {
    expect(check({ type: 'multiselect', options }, 'A')).toEqual({ error: ['must be a list of options'] })
    expect(check({ type: 'multiselect', options }, ['A', 1])).toEqual({ error: ['must be a list of options'] })
    expect(check({ type: 'multiselect', options }, ['A', 'X'])).toEqual({ error: ['unknown option: X'] })
    expect(check({ type: 'multiselect', options }, ['X', 'Y'])).toEqual({ error: ['unknown options: X, Y'] })
    expect(check({ type: 'multiselect', options }, ['A', 'A'])).toEqual({ error: ['must not repeat an option'] })
  })
  test('multiselect min/max bound the number of options chosen', () => {
    expect(check({ type: 'multiselect', options, min: 2 }, ['A'])).toEqual({ error: ['must have at least 2 options'] })
    expect(check({ type: 'multiselect', options, max: 2 }, ['A', 'B', 'C'])).toEqual({ error: ['must have at most 2 options'] })
    expect(check({ type: 'multiselect', options, min: 2, max: 2 }, ['A', 'B'])).toEqual({ value: ['A', 'B'] })
  })
})

describe('answers: checkbox, date and time', () => {
  test('checkbox is a boolean', () => {
    expect(check({ type: 'checkbox' }, true)).toEqual({ value: true })
    expect(check({ type: 'checkbox' }, false)).toEqual({ value: false })
    expect(check({ type: 'checkbox' }, 'true')).toEqual({ error: ['must be true or false'] })
    expect(check({ type: 'checkbox' }, 1)).toEqual({ error: ['must be true or false'] })
  })
  test('date is a real calendar date YYYY-MM-DD', () => {
    expect(check({ type: 'date' }, '2026-11-21')).toEqual({ value: '2026-11-21' })
    expect(check({ type: 'date' }, '2024-02-29')).toEqual({ value: '2024-02-29' })
    for (const bad of ['2026-02-30', '2025-02-29', '2026-13-01', '21-11-2026', '2026-11-21T00:00:00Z', 20261121]) {
      expect(check({ type: 'date' }, bad)).toEqual({ error: ['must be a date (YYYY-MM-DD)'] })
    }
  })
  test('time is HH:MM or HH:MM:SS on a 24-hour clock', () => {
    expect(check({ type: 'time' }, '08:15')).toEqual({ value: '08:15' })
    expect(check({ type: 'time' }, '23:59:59')).toEqual({ value: '23:59:59' })
    for (const bad of ['24:00', '8:15', '08:60', '08:15:60', '0815', 815]) {
      expect(check({ type: 'time' }, bad)).toEqual({ error: ['must be a time (HH:MM or HH:MM:SS)'] })
    }
  })
})

describe('answers: photo and signature are strings reported as photo keys', () => {
  test('a data URI, bare base64 or https URL is kept for the caller to store, and its key is reported', () => {
    const fields = [field({ key: 'shelf', type: 'photo' }), field({ key: 'sign', type: 'signature' }), field({ key: 'note', type: 'text' })]
    const result = validateAnswers(fields, { shelf: 'data:image/png;base64,iVBORw0KGgo=', sign: 'https://cdn.example.com/s.png', note: 'ok' }, true)
    expect(result.errors).toEqual({})
    expect(result.answers).toEqual({ shelf: 'data:image/png;base64,iVBORw0KGgo=', sign: 'https://cdn.example.com/s.png', note: 'ok' })
    expect(result.photoKeys).toEqual(['shelf', 'sign'])
  })
  test('a non-string photo is refused and not reported', () => {
    const result = validateAnswers([field({ key: 'shelf', type: 'photo' })], { shelf: { url: 'x' } }, true)
    expect(result.errors).toEqual({ shelf: ['must be an image (data URI or base64) or an https:// URL'] })
    expect(result.photoKeys).toEqual([])
    expect(check({ type: 'signature' }, 12)).toEqual({ error: ['must be an image (data URI or base64) or an https:// URL'] })
  })
  test('a photo longer than the 5 MiB limit as text is refused', () => {
    expect(check({ type: 'photo' }, 'A'.repeat(7_100_001))).toEqual({ error: ['must be at most 5 MiB'] })
  })
})

describe('answers: location is normalised to "latitude,longitude"', () => {
  test('a {latitude, longitude} object becomes "lat,lng"', () => {
    expect(check({ type: 'location' }, { latitude: -6.2, longitude: 106.8 })).toEqual({ value: '-6.2,106.8' })
  })
  test('a "lat,lng" string is accepted, with spaces trimmed', () => {
    expect(check({ type: 'location' }, '-6.2, 106.8')).toEqual({ value: '-6.2,106.8' })
    expect(check({ type: 'location' }, '90,-180')).toEqual({ value: '90,-180' })
  })
  test('malformed strings and other shapes are refused', () => {
    for (const bad of ['-6.2', '1,2,3', ',106.8', 42, ['1', '2']]) {
      expect(check({ type: 'location' }, bad)).toEqual({ error: ['must be "latitude,longitude"'] })
    }
  })
  test('coordinates out of range or not numbers are refused', () => {
    expect(check({ type: 'location' }, '91,0')).toEqual({ error: ['latitude must be between -90 and 90'] })
    expect(check({ type: 'location' }, 'abc,0')).toEqual({ error: ['latitude must be between -90 and 90'] })
    expect(check({ type: 'location' }, { latitude: 0, longitude: 181 })).toEqual({ error: ['longitude must be between -180 and 180'] })
    expect(check({ type: 'location' }, { latitude: '1', longitude: 2 })).toEqual({ error: ['latitude must be between -90 and 90'] })
    expect(check({ type: 'location' }, { latitude: 1 })).toEqual({ error: ['longitude must be between -180 and 180'] })
  })
})

describe('answers: required keys apply to completed submissions, drafts check only what is there', () => {
  const fields = [
    field({ key: 'count', type: 'integer', required: true }),
    field({ key: 'brand', type: 'select', options: ['A', 'B'], required: true }),
    field({ key: 'note', type: 'text' }),
  ]

  test('completing without a required key reports "is required" per missing key', () => {
    const result = validateAnswers(fields, { count: 3 }, true)
    expect(result.errors).toEqual({ brand: ['is required'] })
  })

  test('blank values (null, empty or whitespace string, empty list) count as missing', () => {
    const result = validateAnswers(fields, { count: null, brand: '   ' }, true)
    expect(result.errors).toEqual({ count: ['is required'], brand: ['is required'] })
    const list = validateAnswers([field({ key: 'tags', type: 'multiselect', options: ['x'], required: true })], { tags: [] }, true)
    expect(list.errors).toEqual({ tags: ['is required'] })
  })

  test('a draft may leave required keys out, but what it has is still checked', () => {
    expect(validateAnswers(fields, {}, false)).toEqual({ answers: {}, errors: {}, photoKeys: [] })
    expect(validateAnswers(fields, { count: 'three' }, false).errors).toEqual({ count: ['must be a number'] })
  })

  test('an optional key may be left out of a completed submission; blank optional values are not stored', () => {
    const result = validateAnswers(fields, { count: 1, brand: 'A', note: '  ' }, true)
    expect(result.errors).toEqual({})
    expect(result.answers).toEqual({ count: 1, brand: 'A' })
  })

  test('keys the form does not have are dropped', () => {
    const result = validateAnswers(fields, { count: 1, brand: 'B', extra: 'x', __proto__x: 1 }, true)
    expect(result.errors).toEqual({})
    expect(result.answers).toEqual({ count: 1, brand: 'B' })
  })

  test('every wrong key is reported at once', () => {
    const result = validateAnswers(fields, { count: 1.5, brand: 'Z', note: 7 }, true)
    expect(result.errors).toEqual({ count: ['must be a whole number'], brand: ['must be one of: A, B'], note: ['must be text'] })
    expect(result.answers).toEqual({})
  })
})

describe('form definitions: keys unique, options only and always on choice fields, sane bounds', () => {
  test('a valid definition has no errors', () => {
    expect(
      validateFormFields([
        field({ key: 'a', type: 'select', options: ['x', 'y'] }),
        field({ key: 'b', type: 'multiselect', options: ['x'], min: 1, max: 1 }),
        field({ key: 'c', type: 'rating', max: 10 }),
        field({ key: 'd', type: 'integer', min: 0, max: 5 }),
      ]),
    ).toEqual({})
  })
  test('a repeated key is refused at the second field', () => {
    expect(validateFormFields([field({ key: 'a', type: 'text' }), field({ key: 'a', type: 'number' })])).toEqual({
      'fields.1.key': ['is used by another field'],
    })
  })
  test('select and multiselect need options, without repeats', () => {
    expect(validateFormFields([field({ key: 'a', type: 'select' })])).toEqual({ 'fields.0.options': ['is required for select and multiselect fields'] })
    expect(validateFormFields([field({ key: 'a', type: 'multiselect', options: [] })])).toEqual({
      'fields.0.options': ['is required for select and multiselect fields'],
    })
    expect(validateFormFields([field({ key: 'a', type: 'select', options: ['x', 'x'] })])).toEqual({ 'fields.0.options': ['must not repeat an option'] })
  })
  test('options on any other type are refused', () => {
    expect(validateFormFields([field({ key: 'a', type: 'text', options: ['x'] })])).toEqual({
      'fields.0.options': ['is only for select and multiselect fields'],
    })
  })
  test('min above max is refused', () => {
    expect(validateFormFields([field({ key: 'a', type: 'number', min: 5, max: 1 })])).toEqual({ 'fields.0.max': ['must not be below min'] })
  })
  test('a rating max must be between 2 and 10', () => {
    expect(validateFormFields([field({ key: 'a', type: 'rating', max: 1 })])).toEqual({ 'fields.0.max': ['must be between 2 and 10 for a rating'] })
    expect(validateFormFields([field({ key: 'a', type: 'rating', max: 11 })])).toEqual({ 'fields.0.max': ['must be between 2 and 10 for a rating'] })
    expect(validateFormFields([field({ key: 'a', type: 'rating', max: 2 })])).toEqual({})
  })
})
