/**
 * `bun run backup FILE` — an online backup of the live database into FILE (the server keeps running).
 * `bun run restore FILE` — puts FILE in place of the database; stop the server first.
 * The same commands as `ffos backup FILE` / `ffos restore FILE` (src/cli.ts).
 */
import { runCli } from '../src/cli'

const restore = process.argv.includes('--restore')
const args = process.argv.slice(2).filter((arg) => arg !== '--restore')
process.exitCode = await runCli([restore ? 'restore' : 'backup', ...args])
