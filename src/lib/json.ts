/**
 * Request JSON, parsed defensively before any schema sees it.
 *
 * - Nesting deeper than MAX_JSON_DEPTH is refused: no request of this API is deeper than about
 *   eight levels, while a small body of brackets would otherwise cost the validator its time or its
 *   stack (a denial of service, found by tests/fuzz.test.ts).
 * - Keys that name Object.prototype members (`__proto__`, `constructor`, `toString`, …) are dropped
 *   at any depth, as every unknown field is ignored (docs/API.md §Errors): they can neither pollute a
 *   prototype downstream nor break code that formats values (an own `toString` that is not a
 *   function made the framework's error messages throw). JSON.parse makes such a key an own data
 *   property (never the prototype), so dropping it after parsing is safe.
 *
 * Both rules are one walk over the parsed value, which stops at the first level too deep: one pass
 * instead of scans of the text before parsing, which ordinary bodies would pay for nothing. JSON.parse
 * itself takes deep nesting in its stride, but not for free, so bodies over SCAN_FIRST_ABOVE_CHARS
 * have their depth read from the text first (a scan that stops at the limit).
 */
export const MAX_JSON_DEPTH = 32
/** Up to this length (bracket bodies this size parse in a few milliseconds) a body is parsed before its depth is known. */
export const SCAN_FIRST_ABOVE_CHARS = 64 * 1024

const PROTOTYPE_KEYS = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
])

export class JsonTooDeep extends Error {}

/**
 * The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count),
 * or the first depth past `stopAbove`. Strings are skipped with indexOf.
 */
export function jsonDepth(text: string, stopAbove = Infinity): number {
  let depth = 0
  let deepest = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // Jump to the closing quote: one that is not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1)
      while (end !== -1) {
        let backslashes = 0
        while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes++
        if (backslashes % 2 === 0) break
        end = text.indexOf('"', end + 1)
      }
      if (end === -1) return deepest
      i = end
    } else if (c === 91 || c === 123) {
      if (++depth > deepest) {
        deepest = depth
        if (deepest > stopAbove) return deepest
      }
    } else if (c === 93 || c === 125) depth--
  }
  return deepest
}

/** Drops prototype-named keys from `value` and everything in it; throws past MAX_JSON_DEPTH. */
function sanitize(value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null) return
  if (depth > MAX_JSON_DEPTH) throw new JsonTooDeep()
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) sanitize(value[i], depth + 1)
    return
  }
  const record = value as Record<string, unknown>
  for (const key in record) {
    if (PROTOTYPE_KEYS.has(key)) delete record[key]
    else sanitize(record[key], depth + 1)
  }
}

/** JSON.parse with the two rules above; throws SyntaxError for bad JSON, JsonTooDeep for nesting. */
export function parseRequestJson(text: string): unknown {
  if (text.length > SCAN_FIRST_ABOVE_CHARS && jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw new JsonTooDeep()
  const value: unknown = JSON.parse(text)
  sanitize(value, 1)
  return value
}
