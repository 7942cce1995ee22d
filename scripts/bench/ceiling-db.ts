/**
 * The database of a bare ceiling (./ceiling-suite.ts, ./ceiling-master-data.ts) as the service opens
 * its own (src/db/client.ts): a reader and a writer with the service's per-connection PRAGMAs (the
 * reader's 64 MiB page cache). Writes commit as the service's do at its default DURABILITY=full: on
 * the writer, one transaction at a time, each a SAVEPOINT of a group that commits after the event
 * loop's round and is answered only after an fdatasync of the WAL (the service's own GroupCommit and
 * WalSync), WAL checkpoints by the service's worker instead of inside a COMMIT. Until 2026-11-26 the
 * ceilings committed each write alone without any sync, so a write's ratio compared a durable commit
 * with one that was not.
 */
import { Database } from 'bun:sqlite'
import { startCheckpointer } from '../../src/db/checkpoint'
import { SerialQueue } from '../../src/db/client'
import { GroupCommit, WalSync } from '../../src/db/group-commit'

const PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA foreign_keys = ON',
  'PRAGMA busy_timeout = 5000',
  'PRAGMA cache_size = -65536',
]

export function ceilingDatabase(path: string) {
  const db = new Database(path, { strict: true })
  for (const pragma of PRAGMAS) db.run(pragma)
  const writer = new Database(path, { strict: true })
  for (const pragma of PRAGMAS) writer.run(pragma)
  writer.run('PRAGMA wal_autocheckpoint = 0')
  writer.run('PRAGMA temp_store = MEMORY')
  writer.run(`PRAGMA journal_size_limit = ${64 * 1024 * 1024}`)
  const walSync = new WalSync(path)
  const groups = new GroupCommit(writer, new SerialQueue(), () => walSync.sync())
  const checkpointer = startCheckpointer(path, { onBehind: () => void groups.outside(() => writer.run('PRAGMA wal_checkpoint(PASSIVE)')) })
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
