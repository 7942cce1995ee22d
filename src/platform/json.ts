/**
 * Request JSON, parsed defensively before any schema sees it.
 *
 * - Nesting deeper than MAX_JSON_DEPTH is refused: no request of this API is deeper than about
 *   eight levels, while a 10 kB body of brackets would otherwise cost the validator seconds or its
 *   stack (a denial of service, found by tests/fuzz.test.ts).
 * - Keys that name Object.prototype members (`__proto__`, `constructor`, `toString`, …) are dropped
 *   at any depth, as every unknown field is ignored (CONTRACT §3): they can neither pollute a
 *   prototype downstream nor break code that formats values (an own `toString` that is not a
 *   function made the framework's error messages throw).
 */
export const MAX_JSON_DEPTH = 32

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

/** Cheap pre-test: only bodies that could hold such a key (or hide one in an escape) take the slow path. */
const MAYBE_PROTOTYPE_KEY =
  /\\u|"(?:__proto__|constructor|prototype|toString|toLocaleString|valueOf|hasOwnProperty|isPrototypeOf|propertyIsEnumerable|__(?:define|lookup)[GS]etter__)"/

export class JsonTooDeep extends Error {}

/**
 * The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count).
 * Strings are skipped with indexOf, so a typical body costs a few microseconds.
 */
export function jsonDepth(text: string): number {
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
      if (++depth > deepest) deepest = depth
    } else if (c === 93 || c === 125) depth--
  }
  return deepest
}

const withoutPrototypeKeys = (key: string, value: unknown) => (PROTOTYPE_KEYS.has(key) ? undefined : value)

/** JSON.parse with the two rules above; throws SyntaxError for bad JSON, JsonTooDeep for nesting. */
export function parseRequestJson(text: string): unknown {
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new JsonTooDeep()
  return MAYBE_PROTOTYPE_KEY.test(text) ? JSON.parse(text, withoutPrototypeKeys) : JSON.parse(text)
}
