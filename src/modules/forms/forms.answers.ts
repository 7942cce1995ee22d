/**
 * Validating answers against a form's fields: one pure function, no database. It checks required
 * keys, types, options and bounds, drops keys the form does not have, and returns the cleaned answers
 * with per-field errors (`{ "price": ["must be at least 0"] }`).
 *
 * Answer shapes (docs/API.md §Forms and submissions: a string, an array of strings or a number per key):
 *   text, textarea, select, date (YYYY-MM-DD), time (HH:MM[:SS]) → string
 *   number, integer, rating → number
 *   multiselect → array of strings
 *   checkbox → boolean
 *   photo, signature → string: a data URI/base64 image or an https URL (stored and replaced by a URL
 *     by the caller; see `photoKeys`)
 *   location → "latitude,longitude" (a `{latitude, longitude}` object is accepted and converted)
 *   product_matrix → {<product_id>: {<column>: value}} against the submission's frozen rows (./forms.matrix.ts);
 *     its errors are keyed `<key>.<product_id>` and `<key>.<product_id>.<column>`
 */
import type { Answers, FormField, FrozenRows } from '../../db/schema'
import { isCalendarDate, isClockTime } from '../../lib/dates'
import { conditionProblem, describeCondition, visibility } from './forms.conditions'
import { checkMatrix, isMatrix, matrixBlank, matrixDefinitionProblems } from './forms.matrix'

export const TEXT_MAX = 5000
export const RATING_MAX_DEFAULT = 5
/** A photo answer is at most 5 MiB decoded, ~7 MB as base64 text. */
const PHOTO_TEXT_MAX = 7_100_000

export interface AnswerCheck {
  answers: Answers
  errors: Record<string, string[]>
  /** Keys whose values are photos to store (data URI/base64) or keep (https URL). */
  photoKeys: string[]
}

const isBlankValue = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0)

const isBlankAnswer = (field: FormField, value: unknown) => (isMatrix(field) ? matrixBlank(value) : isBlankValue(value))

/**
 * `complete`: a submission being completed, so required fields must be answered and skip logic
 * applies (./forms.conditions.ts): a field whose `visible_if` is false is hidden — not required, and
 * an answer for it is an error saying "hidden". Drafts only check what is there. `rows`: the
 * submission's frozen product-matrix rows (a matrix answer may name only those products).
 */
export function validateAnswers(fields: readonly FormField[], input: Answers, complete: boolean, rows: FrozenRows = {}): AnswerCheck {
  const answers: Answers = {}
  const errors: Record<string, string[]> = {}
  const failed = new Set<string>()
  const matrixErrors = (field: FormField, found: Record<string, string>) => {
    for (const [path, message] of Object.entries(found)) errors[path === '' ? field.key : `${field.key}.${path}`] = [message]
    if (Object.keys(found).length > 0) failed.add(field.key)
  }
  for (const field of fields) {
    const value = input[field.key]
    if (isMatrix(field)) {
      // A blank matrix of a draft is skipped; of a completion it is checked below (a required one must have every row).
      if (matrixBlank(value)) continue
      const result = checkMatrix(field, value, rows[field.key] ?? [], false)
      matrixErrors(field, result.errors)
      if (Object.keys(result.errors).length === 0) answers[field.key] = result.value
      continue
    }
    if (isBlankValue(value)) continue
    const result = checkValue(field, value)
    if (typeof result === 'string') {
      errors[field.key] = [result]
      failed.add(field.key)
    } else answers[field.key] = result.value
  }
  if (complete) {
    const shown = visibility(fields, answers, failed)
    for (const field of fields) {
      const state = shown.get(field.key)
      const blank = isBlankAnswer(field, input[field.key])
      if (state === 'hidden') {
        if (!blank) {
          for (const key of Object.keys(errors)) if (key === field.key || key.startsWith(`${field.key}.`)) delete errors[key]
          errors[field.key] = [`is hidden (shown only when ${describeCondition(field.visible_if!)}): send no answer for it`]
          delete answers[field.key]
        }
      } else if (state === 'shown' && isMatrix(field)) {
        // Completeness of a matrix (required columns of each sent row, every row of a required matrix),
        // reported with its other errors (the same check again, so the same messages).
        const result = checkMatrix(field, input[field.key], rows[field.key] ?? [], true)
        matrixErrors(field, result.errors)
        if (Object.keys(result.errors).length > 0) delete answers[field.key]
      } else if (state === 'shown' && field.required && blank) errors[field.key] = ['is required']
    }
  }
  const photoKeys = fields.filter((field) => (field.type === 'photo' || field.type === 'signature') && field.key in answers).map((field) => field.key)
  return { answers, errors, photoKeys }
}

function checkValue(field: FormField, value: unknown): { value: unknown } | string {
  switch (field.type) {
    case 'text':
    case 'textarea': {
      if (typeof value !== 'string') return 'must be text'
      const text = value.trim()
      if (text.length > (field.max ?? TEXT_MAX)) return `must be at most ${field.max ?? TEXT_MAX} characters`
      if (field.min !== undefined && text.length < field.min) return `must be at least ${field.min} characters`
      return { value: text }
    }
    case 'number':
    case 'integer':
    case 'rating': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number'
      if (field.type !== 'number' && !Number.isInteger(value)) return 'must be a whole number'
      const min = field.min ?? (field.type === 'rating' ? 1 : undefined)
      const max = field.max ?? (field.type === 'rating' ? RATING_MAX_DEFAULT : undefined)
      if (min !== undefined && value < min) return `must be at least ${min}`
      if (max !== undefined && value > max) return `must be at most ${max}`
      return { value }
    }
    case 'select':
      if (typeof value !== 'string') return 'must be one of the options'
      return field.options?.includes(value) ? { value } : `must be one of: ${field.options?.join(', ')}`
    case 'multiselect': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return 'must be a list of options'
      const unknown = value.filter((item) => !field.options?.includes(item))
      if (unknown.length > 0) return `unknown option${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`
      if (new Set(value).size !== value.length) return 'must not repeat an option'
      if (field.min !== undefined && value.length < field.min) return `must have at least ${field.min} options`
      if (field.max !== undefined && value.length > field.max) return `must have at most ${field.max} options`
      return { value }
    }
    case 'checkbox':
      return typeof value === 'boolean' ? { value } : 'must be true or false'
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? { value } : 'must be a date (YYYY-MM-DD)'
    case 'time':
      return typeof value === 'string' && isClockTime(value) ? { value } : 'must be a time (HH:MM or HH:MM:SS)'
    case 'photo':
    case 'signature':
      if (typeof value !== 'string') return 'must be an image (data URI or base64) or an https:// URL'
      return value.length > PHOTO_TEXT_MAX ? 'must be at most 5 MiB' : { value }
    case 'location':
      return location(value)
    case 'product_matrix':
      return 'is a product matrix' // checked by checkMatrix (validateAnswers never gets here)
  }
}

function location(value: unknown): { value: string } | string {
  let latitude: unknown
  let longitude: unknown
  if (typeof value === 'string') {
    const parts = value.split(',').map((part) => part.trim())
    if (parts.length !== 2 || parts.some((part) => part === '')) return 'must be "latitude,longitude"'
    ;[latitude, longitude] = parts.map(Number)
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    ;({ latitude, longitude } = value as { latitude?: unknown; longitude?: unknown })
  } else return 'must be "latitude,longitude"'
  if (typeof latitude !== 'number' || !Number.isFinite(latitude) || latitude < -90 || latitude > 90) return 'latitude must be between -90 and 90'
  if (typeof longitude !== 'number' || !Number.isFinite(longitude) || longitude < -180 || longitude > 180) {
    return 'longitude must be between -180 and 180'
  }
  return { value: `${latitude},${longitude}` }
}

/**
 * Checks a form definition beyond its schema: unique keys, options where a choice is asked, and
 * sensible bounds, and skip logic that refers to an earlier field with a fitting op and value
 * (./forms.conditions.ts). Errors are keyed `fields.N.<property>`.
 */
export function validateFormFields(fields: readonly FormField[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  const seen = new Set<string>()
  fields.forEach((field, index) => {
    const at = (property: string, message: string) => {
      errors[`fields.${index}.${property}`] ??= [message]
    }
    if (seen.has(field.key)) at('key', 'is used by another field')
    seen.add(field.key)
    const choice = field.type === 'select' || field.type === 'multiselect'
    if (choice) {
      if (!field.options || field.options.length === 0) at('options', 'is required for select and multiselect fields')
      else if (new Set(field.options).size !== field.options.length) at('options', 'must not repeat an option')
    } else if (field.options !== undefined) at('options', `is only for select and multiselect fields`)
    if (field.min !== undefined && field.max !== undefined && field.min > field.max) at('max', 'must not be below min')
    if (field.type === 'rating' && field.max !== undefined && (field.max < 2 || field.max > 10)) at('max', 'must be between 2 and 10 for a rating')
    for (const [property, message] of Object.entries(matrixDefinitionProblems(field))) at(property, message)
    const condition = conditionProblem(fields, index)
    if (condition) at('visible_if', condition)
  })
  return errors
}
