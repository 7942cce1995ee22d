/**
 * Skip logic (docs/API.md "Skip logic"): a field's `visible_if: {field, op, value?}` shows it only
 * when an EARLIER field's answer satisfies the condition. Pure functions, no database:
 * `conditionProblem` checks a definition, `visibility` decides which fields a completed answer set shows.
 *
 * What an op may do depends on the controlling field's type:
 *   number, integer, rating, date, time   eq ne in gt gte lt lte answered
 *   text, textarea, select, checkbox      eq ne in answered
 *   multiselect                           eq ne in answered  (eq/in: "contains", ne: "does not contain")
 *   photo, signature, location            answered
 *   product_matrix                        answered  (any row with a value)
 */
import type { Answers, ConditionOp, ConditionValue, FieldCondition, FormField, FormFieldType } from '../../db/schema'
import { isCalendarDate, isClockTime } from '../../lib/dates'

const ORDERED: readonly FormFieldType[] = ['number', 'integer', 'rating', 'date', 'time']
const EQUATABLE: readonly FormFieldType[] = [...ORDERED, 'text', 'textarea', 'select', 'multiselect', 'checkbox']

/** The ops a controlling field of `type` allows. */
export function opsFor(type: FormFieldType): ConditionOp[] {
  if (ORDERED.includes(type)) return ['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte', 'answered']
  if (EQUATABLE.includes(type)) return ['eq', 'ne', 'in', 'answered']
  return ['answered']
}

/** A condition as stored: strings trimmed (answers are compared trimmed), no `value` for `answered`. */
export function normalizeCondition(condition: FieldCondition): FieldCondition {
  const trim = (value: ConditionValue) => (typeof value === 'string' ? value.trim() : value)
  if (condition.op === 'answered') return { field: condition.field, op: 'answered' }
  const { value } = condition
  return { field: condition.field, op: condition.op, ...(value === undefined ? {} : { value: Array.isArray(value) ? value.map(trim) : trim(value) }) }
}

/** Why one value does not fit the controlling field, or null. */
function valueProblem(control: FormField, value: ConditionValue): string | null {
  switch (control.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : `must be a number (${control.key} is a number field)`
    case 'integer':
    case 'rating':
      return typeof value === 'number' && Number.isInteger(value) ? null : `must be a whole number (${control.key} is a ${control.type} field)`
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? null : `must be a date YYYY-MM-DD (${control.key} is a date field)`
    case 'time':
      return typeof value === 'string' && isClockTime(value) ? null : `must be a time HH:MM or HH:MM:SS (${control.key} is a time field)`
    case 'checkbox':
      return typeof value === 'boolean' ? null : `must be true or false (${control.key} is a checkbox field)`
    case 'select':
    case 'multiselect':
      return typeof value === 'string' && control.options?.includes(value)
        ? null
        : `must be one of the options of ${control.key}: ${control.options?.join(', ')}`
    default:
      return typeof value === 'string' ? null : `must be text (${control.key} is a ${control.type} field)`
  }
}

/**
 * Why field `index`'s `visible_if` is not usable, or null: it must name an earlier field, use an op
 * that field's type allows, and carry a value of that field's type (a list for `in`).
 */
export function conditionProblem(fields: readonly FormField[], index: number): string | null {
  const field = fields[index]
  const condition = field.visible_if
  if (!condition) return null
  if (condition.field === field.key) return 'must refer to an earlier field, not to the field itself'
  const at = fields.findIndex((other) => other.key === condition.field)
  if (at === -1) return `refers to "${condition.field}", which is not a field of this form`
  if (at > index) return `must refer to an earlier field: "${condition.field}" comes after this one`
  const control = fields[at]
  const allowed = opsFor(control.type)
  if (!allowed.includes(condition.op)) {
    return `op "${condition.op}" does not fit the ${control.type} field "${control.key}" (allowed: ${allowed.join(', ')})`
  }
  if (condition.op === 'answered') return null
  const { value } = condition
  if (value === undefined) return `needs a value for op "${condition.op}"`
  if (condition.op === 'in') {
    if (!Array.isArray(value) || value.length === 0) return 'value must be a non-empty list for op "in"'
    for (const item of value) {
      const problem = valueProblem(control, item)
      if (problem) return `value ${JSON.stringify(item)} ${problem}`
    }
    return null
  }
  if (Array.isArray(value)) return `value must be a single value for op "${condition.op}" (a list is for "in")`
  const problem = valueProblem(control, value)
  return problem && `value ${problem}`
}

/** A comparable form of a scalar: times as HH:MM:SS, so "09:30" equals "09:30:00". */
const comparable = (type: FormFieldType, value: unknown) => (type === 'time' && typeof value === 'string' && value.length === 5 ? `${value}:00` : value)

/** Whether a (checked, non-blank) answer satisfies the condition. */
function holds(control: FormField, condition: FieldCondition, answer: unknown): boolean {
  if (condition.op === 'answered') return true
  const list = (Array.isArray(condition.value) ? condition.value : [condition.value]).map((value) => comparable(control.type, value))
  if (control.type === 'multiselect') {
    const chosen = answer as string[]
    const contains = list.some((value) => chosen.includes(value as string))
    return condition.op === 'ne' ? !contains : contains
  }
  const given = comparable(control.type, answer) as string | number | boolean
  const value = list[0] as string | number | boolean
  switch (condition.op) {
    case 'eq':
      return given === value
    case 'ne':
      return given !== value
    case 'in':
      return list.includes(given)
    case 'gt':
      return given > value
    case 'gte':
      return given >= value
    case 'lt':
      return given < value
    case 'lte':
      return given <= value
  }
}

/**
 * Shown, hidden or undecided (its controlling answer is itself in error) per field key, in form order.
 * A field hidden by a hidden field is hidden; an unanswered controlling field makes every op but
 * `ne` false. `answers` are the checked answers (blank ones absent), `failed` the keys in error.
 */
export function visibility(fields: readonly FormField[], answers: Answers, failed: ReadonlySet<string>): Map<string, 'shown' | 'hidden' | 'undecided'> {
  const state = new Map<string, 'shown' | 'hidden' | 'undecided'>()
  const byKey = new Map(fields.map((field) => [field.key, field]))
  for (const field of fields) {
    const condition = field.visible_if
    const control = condition && byKey.get(condition.field)
    if (!condition || !control) {
      state.set(field.key, 'shown')
      continue
    }
    const controlState = state.get(control.key) ?? 'shown'
    if (controlState !== 'shown') state.set(field.key, controlState)
    else if (failed.has(control.key)) state.set(field.key, 'undecided')
    else if (!(control.key in answers)) state.set(field.key, condition.op === 'ne' ? 'shown' : 'hidden')
    else state.set(field.key, holds(control, condition, answers[control.key]) ? 'shown' : 'hidden')
  }
  return state
}

/** The condition in words, for the "hidden" message. */
export function describeCondition(condition: FieldCondition): string {
  if (condition.op === 'answered') return `${condition.field} is answered`
  return `${condition.field} ${condition.op} ${JSON.stringify(condition.value)}`
}
