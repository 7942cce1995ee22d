/**
 * The sync cursor: opaque to clients — `{"v":2,"w":<workspace>,"u":<user or 0>,"s":<seq>,"g":<grants>,"h":<head>}`
 * sealed (encrypted and authenticated, src/lib/crypto.ts `Sealer`) under a key derived from the
 * service secret, so a client can neither read it nor forge or alter one (docs/API.md §Sync and change feed).
 *
 * - `s` is the last change-log position the holder has seen. The log's sequence is shared by every
 *   workspace, so it must not be readable (it would show other tenants' activity) nor guessable (a
 *   forged position's acceptance would show how far the log has gone): sealing does both.
 * - `w` and `u` bind it to the feed it came from (a phone's replica belongs to one user of one
 *   workspace; the office feed has `u` 0), so a cursor of another workspace or user is refused
 *   instead of silently skipping what that feed never showed.
 * - `g` is the grants version of the caller when the cursor was issued (which entities they may
 *   view, ./sync.grants.ts): a cursor issued under other grants is refused, so the replica is
 *   rebuilt for what the caller may see now.
 * - `h` is, during a sync from scratch, the head of the log when it started (0 otherwise): rows up to
 *   it are sent only if live (the client never held the others), so a first sync sends no tombstones.
 */
import type { Sealer } from '../../lib/crypto'

export const CURSOR_VERSION = 2
const PURPOSE = 'sync-cursor'

export interface Cursor {
  workspaceId: number
  /** The user of a phone feed; 0 for the office change feed. */
  userId: number
  seq: number
  /** The caller's grants version when it was issued. */
  grants: string
  /** During a sync from scratch: the head it started from (tombstones up to it are not sent); else 0. */
  head: number
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

export function encodeCursor(sealer: Sealer, cursor: Cursor): string {
  const head = cursor.head > cursor.seq ? cursor.head : 0
  return sealer.seal(PURPOSE, JSON.stringify({ v: CURSOR_VERSION, w: cursor.workspaceId, u: cursor.userId, s: cursor.seq, g: cursor.grants, h: head }))
}

/** The cursor, or null when `text` is not one this service issued. */
export function decodeCursor(sealer: Sealer, text: string): Cursor | null {
  if (text.length > 200) return null
  const opened = sealer.open(PURPOSE, text)
  if (opened === null) return null
  let value: unknown
  try {
    value = JSON.parse(opened)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const { v, w, u, s, g, h } = value as Record<string, unknown>
  if (v !== CURSOR_VERSION || !isCount(w) || w === 0 || !isCount(u) || !isCount(s) || typeof g !== 'string' || !isCount(h)) return null
  return { workspaceId: w, userId: u, seq: s, grants: g, head: h }
}
