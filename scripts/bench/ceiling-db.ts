/**
 * The database of a bare ceiling (./ceiling-suite.ts, ./ceiling-master-data.ts) as the service opens
 * its own at the default memory budget (src/db/client.ts): a read-only reader and a writer with the
 * service's per-connection PRAGMAs and page caches (64 MiB for the reader, 16 for the writer, the
 * checkpoint worker's 2), the writer's own PRAGMAs after them. Writes commit as the service's do at its
 * default DURABILITY=full: on the writer, one transaction at a time, each a SAVEPOINT of a group that
 * commits after the event loop's round and is answered only after an fdatasync of the WAL (the service's
 * own GroupCommit and WalSync), WAL checkpoints by the service's worker instead of inside a COMMIT.
 * Until 2026-11-26 the ceilings committed each write alone without any sync, so a write's ratio compared
 * a durable commit with one that was not; and, later that day, their writer's page cache was 64 MiB
 * where the service's is 16, and their reader could write.
 */
import { DEFAULT_MEMORY_BUDGET_MB, memoryShares } from '../../src/config/memory-budget'
import { startCheckpointer } from '../../src/db/checkpoint'
import { openSqliteConnections, SerialQueue } from '../../src/db/client'
import { GroupCommit, WalSync } from '../../src/db/group-commit'

/** The service's shares at the default budget, which the bench runs it with. */
const shares = memoryShares(DEFAULT_MEMORY_BUDGET_MB).sqlite

export function ceilingDatabase(path: string) {
  // The service's own two connections (src/db/client.ts openSqliteConnections).
  const { writer, reader: db } = openSqliteConnections(path, shares)
  const walSync = new WalSync(path)
  const groups = new GroupCommit(writer, new SerialQueue(), () => walSync.sync())
  const checkpointer = startCheckpointer(path, {
    onBehind: () => void groups.outside(() => writer.run('PRAGMA wal_checkpoint(PASSIVE)')),
    cacheKib: shares.checkpointCacheKib,
  })
  return {
    /** The reader. */
    db,
    writer,
    groups,
    /** Stops the checkpoints after the open group, waits for the syncs under way, closes both connections. */
    async close() {
      await groups.outside(() => checkpointer.stop())
      await walSync.close()
      writer.close()
      db.close()
    },
  }
}
