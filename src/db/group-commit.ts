/**
 * Group commit for the embedded writer connection.
 *
 * Write transactions still run one at a time on the one writer connection (the queue), but they do
 * not each pay a COMMIT. A transaction that starts while a group is open runs as a SAVEPOINT of that
 * group's transaction; the group commits once, after the event loop's current round (setImmediate),
 * and only then are its transactions answered. Under load a group gathers the transactions of the
 * requests that arrived together, and the commit and the WAL frames of the pages they share (the
 * pings table's last leaf and its indexes) are paid once instead of once each. Alone, a transaction
 * waits one loop round for its commit.
 *
 * What each transaction keeps:
 * - Atomicity: a failing transaction rolls back to its savepoint only; the rest of its group is
 *   unaffected. If SQLite rolled the whole transaction back itself (disk full, I/O error), or the
 *   COMMIT fails, every transaction of the group fails with it, and none of them was answered yet.
 * - Durability of what was answered: nobody hears "done" before the group's COMMIT.
 * - Isolation: other connections see a group only once it committed. A transaction may see the
 *   writes of the earlier ones of its group; they commit or fail together.
 */
import type { Database as SqliteDatabase } from 'bun:sqlite'

interface Queue {
  run<T>(fn: () => Promise<T>): Promise<T>
}

class Group {
  readonly committed: Promise<void>
  resolve!: () => void
  reject!: (error: unknown) => void

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
    // A group whose transactions all failed on their own has nobody waiting for it.
    this.committed.catch(() => undefined)
  }
}

export class GroupCommit {
  private open: Group | null = null

  constructor(
    private readonly connection: SqliteDatabase,
    private readonly queue: Queue,
  ) {}

  /** Runs `fn` as one transaction of the open group (opening one); resolves once the group committed. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const { result, group } = await this.queue.run(async () => {
      const group = this.open ?? this.begin()
      this.connection.run('SAVEPOINT member')
      try {
        const result = await fn()
        this.connection.run('RELEASE member')
        return { result, group }
      } catch (error) {
        this.undo(group, error)
        throw error
      }
    })
    await group.committed
    return result
  }

  /**
   * Runs `fn` on the writer between transactions, outside any of them (migrations, PRAGMAs,
   * checkpoints, closing): the open group, if any, commits first.
   */
  outside<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      if (this.open) this.commit(this.open)
      return fn()
    })
  }

  private begin(): Group {
    this.connection.run('BEGIN IMMEDIATE')
    const group = new Group()
    this.open = group
    // Transactions queued before this job join the group; later ones open the next.
    setImmediate(() => void this.queue.run(async () => this.commit(group)))
    return group
  }

  private undo(group: Group, cause: unknown) {
    if (this.connection.inTransaction) {
      try {
        this.connection.run('ROLLBACK TO member')
        this.connection.run('RELEASE member')
        return
      } catch {
        // The savepoint went with the whole transaction: the group fails below.
      }
    }
    this.rollback()
    this.open = null
    group.reject(new Error('the write group was rolled back with one of its transactions', { cause }))
  }

  private commit(group: Group) {
    if (this.open !== group) return
    this.open = null
    try {
      this.connection.run('COMMIT')
      group.resolve()
    } catch (error) {
      this.rollback()
      group.reject(error)
    }
  }

  /** Whatever is left of the transaction goes; a group is always settled after this. */
  private rollback() {
    try {
      if (this.connection.inTransaction) this.connection.run('ROLLBACK')
    } catch {
      // Nothing left to roll back.
    }
  }
}
