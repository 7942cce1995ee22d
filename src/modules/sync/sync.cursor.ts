/**
 * The sync cursor: opaque to clients, base64url of `{"v":1,"w":<workspace>,"u":<user or 0>,"s":<seq>}`.
 * `s` is the last change-log position the holder has seen; `w` and `u` bind it to the feed it came
 * from (a phone's replica belongs to one user of one workspace; the office feed has `u` 0), so a
 * cursor of another workspace or user is refused instead of silently skipping what that feed never
 * showed. Decoding is strict: any other shape is malformed.
 */
export const CURSOR_VERSION = 1

export interface Cursor {
  workspaceId: number
  /** The user of a phone feed; 0 for the office change feed. */
  userId: number
  seq: number
}

const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, w: cursor.workspaceId, u: cursor.userId, s: cursor.seq })).toString('base64url')
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/** The cursor, or null when `text` is not one this service could have issued. */
export function decodeCursor(text: string): Cursor | null {
  if (!BASE64URL.test(text)) return null
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const { v, w, u, s, ...rest } = value as Record<string, unknown>
  if (Object.keys(rest).length > 0 || v !== CURSOR_VERSION || !isCount(w) || w === 0 || !isCount(u) || !isCount(s)) return null
  // Only the canonical spelling is accepted (no padding, no other key order or spacing).
  const cursor = { workspaceId: w, userId: u, seq: s }
  return encodeCursor(cursor) === text ? cursor : null
}
