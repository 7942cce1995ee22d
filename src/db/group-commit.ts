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
 * - Durability of what was answered: nobody hears "done" before the group's COMMIT, and, when the
 *   group commit is given a `sync` (DURABILITY=full, see ./client.ts), before a sync of the WAL that
 *   started after that COMMIT has completed. The sync runs off the event loop (WalSync below), so the
 *   next group's transactions run while it is under way; one sync serves every group committed before
 *   it started. A failed sync fails its groups and every later write (see `syncFailure`).
 * - Isolation: other connections see a group only once it committed. A transaction may see the
 *   writes of the earlier ones of its group; they commit or fail together. With a `sync`, a reader
 *   may see a group between its COMMIT and the end of its sync (a power loss then could still take
 *   it, unanswered); a write that read it is answered only after its own group's sync, which covers
 *   every earlier commit.
 */
import type { Database as SqliteDatabase } from 'bun:sqlite'
import { closeSync, fdatasync, fsync, openSync } from 'node:fs'
import { dirname } from 'node:path'

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
  /**
   * Set by the first failed sync; from then on every write fails before it starts. The kernel may
   * have dropped the pages it could not write and report a later sync as a success, so no later
   * answer could be trusted to be on disk (PostgreSQL's "fsyncgate"); a restart recovers from the file.
   */
  private syncFailure: Error | null = null

  /** `sync`, if given, resolves once everything committed before the call is on stable storage. */
  constructor(
    private readonly connection: SqliteDatabase,
    private readonly queue: Queue,
    private readonly sync?: () => Promise<void>,
  ) {}

  /** Runs `fn` as one transaction of the open group (opening one); resolves once the group committed. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const { result, group } = await this.queue.run(async () => {
      if (this.syncFailure) throw this.syncFailure
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
    } catch (error) {
      this.rollback()
      group.reject(error)
      return
    }
    if (!this.sync) return group.resolve()
    // Answered only once the WAL frames of this COMMIT are on stable storage.
    this.sync().then(group.resolve, (error: unknown) => {
      this.syncFailure ??= new Error('a sync of the database file failed; writes are refused until the service restarts', { cause: error })
      group.reject(this.syncFailure)
    })
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

/**
 * fdatasync of a SQLite database's WAL file, off the event loop, coalesced: at most one sync runs at
 * a time, and every `sync()` asked for while one runs shares the next one, which starts when it ends.
 * A sync covers everything written to the file before it started, so each caller's COMMIT is covered.
 *
 * The WAL is opened once, when first synced (SQLite creates it with the first write), and stays the
 * same file while the writer connection is open: SQLite deletes it only when its last connection
 * closes. Its directory entry is synced once at that open, as SQLite does for a WAL it creates.
 */
export class WalSync {
  private fd: number | null = null
  private running: Promise<void> | null = null
  private next: Promise<void> | null = null
  /** Completed syncs, for tests and metrics. */
  syncs = 0

  constructor(private readonly databasePath: string) {}

  sync(): Promise<void> {
    if (!this.running) {
      this.running = this.start()
      return this.running
    }
    // Asked for while a sync runs: it may have started before this caller's COMMIT.
    this.next ??= this.running.then(
      () => this.promoteNext(),
      () => this.promoteNext(),
    )
    return this.next
  }

  /** Waits for the syncs under way, then closes the file. */
  async close() {
    await Promise.allSettled([this.running, this.next])
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
  }

  private promoteNext(): Promise<void> {
    this.next = null
    this.running = this.start()
    return this.running
  }

  private async start(): Promise<void> {
    try {
      if (this.fd === null) {
        const fd = openWal(`${this.databasePath}-wal`)
        // No WAL yet: nothing was ever committed to one, so there is nothing to sync.
        if (fd === null) return
        await withFd(dirname(this.databasePath), fsync)
        this.fd = fd
      }
      await callback(fdatasync, this.fd)
      this.syncs++
    } finally {
      if (this.running && !this.next) this.running = null
    }
  }
}

const callback = (fn: typeof fsync, fd: number) => new Promise<void>((resolve, reject) => fn(fd, (error) => (error ? reject(error) : resolve())))

function openWal(path: string): number | null {
  try {
    return openSync(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

async function withFd(path: string, fn: typeof fsync) {
  const fd = openSync(path, 'r')
  try {
    await callback(fn, fd)
  } finally {
    closeSync(fd)
  }
}
