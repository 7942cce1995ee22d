/**
 * The newest stored KEPT ping (device time, not flagged `impossible_speed`/`teleport`) of each user,
 * kept per process (the service runs as one process: README "One process"), so that a batch recorded
 * after it — what a phone sends almost always — is flagged against it without reading the user's pings
 * (docs/API.md §Field integrity). A ping is judged against the last kept ping before it, never against
 * a glitch: one jumped ping must not take the true ping after it off the route too.
 *
 * An entry is written inside the batch's transaction, after its rows went in, and forgotten when that
 * transaction fails, so it never holds a ping that was not committed. A missing entry (first batch of
 * the user since start, or after a failure) is read from the database once. Pings deleted later by
 * the retention job are older than the retention period: a ping that old says nothing about speed.
 */
export interface TrailPoint {
  lat: number
  lng: number
  /** Device time, ms since the epoch. */
  at: number
}

export class PingTrail {
  /** `workspace:user` → the newest stored kept device-time ping, or null when the user has none. */
  private readonly newest = new Map<string, TrailPoint | null>()

  /**
   * `maxEntries`: the entry caches' share of MEMORY_BUDGET_MB (src/config/memory-budget.ts). Past it the
   * user written longest ago is forgotten, which only costs that user one read at their next batch.
   */
  constructor(readonly maxEntries = 10_000) {}

  get size(): number {
    return this.newest.size
  }

  /** undefined: not known here (read it from the database). */
  get(workspaceId: number, userId: number): TrailPoint | null | undefined {
    return this.newest.get(`${workspaceId}:${userId}`)
  }

  set(workspaceId: number, userId: number, point: TrailPoint | null) {
    const key = `${workspaceId}:${userId}`
    // Deleted first, so that the Map's order is the order of the last write: the oldest goes first.
    this.newest.delete(key)
    while (this.newest.size >= this.maxEntries) this.newest.delete(this.newest.keys().next().value!)
    this.newest.set(key, point)
  }

  forget(workspaceId: number, userId: number) {
    this.newest.delete(`${workspaceId}:${userId}`)
  }
}
