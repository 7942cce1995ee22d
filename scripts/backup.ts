/**
 * `bun run backup FILE` — an online backup of the live database into FILE (the server keeps running).
 * `bun run restore FILE` — puts FILE in place of the database; stop the server first.
 *
 * The database is the one DATABASE_URL names (default ./data/app.db), as for `npm start`.
 */
import { loadConfig } from '../src/config/env'
import { BackupError, backupDatabase, restoreDatabase } from '../src/db/backup'

const restore = process.argv.includes('--restore')
const file = process.argv.slice(2).find((arg) => !arg.startsWith('--'))
const usage = restore ? 'usage: bun run restore FILE' : 'usage: bun run backup FILE'

try {
  if (!file) throw new BackupError(usage)
  const { database } = loadConfig()
  if (!database.path) throw new BackupError(`${database.url} is a libSQL server: back it up with the server's own tools`)
  if (restore) {
    const { previous } = restoreDatabase(file, database.path)
    console.log(`restored ${file} into ${database.path}${previous ? ` (the replaced database is kept as ${previous})` : ''}`)
  } else {
    const result = backupDatabase(database.path, file)
    console.log(`backed up ${database.path} into ${result.file}: ${(result.bytes / 1024 / 1024).toFixed(1)} MiB in ${result.milliseconds} ms, integrity ok`)
  }
} catch (error) {
  if (!(error instanceof BackupError)) throw error
  console.error(error.message)
  process.exit(1)
}
