/**
 * `bun run regional:export DIR` — the same command as `ffos regional-export DIR` (src/cli.ts): writes
 * the embedded regional data as the static JSON layout the upstream mode reads.
 */
import { runCli } from '../src/cli'

export { exportRegionalTree } from '../src/modules/regional/regional.export'

if (import.meta.main) process.exitCode = await runCli(['regional-export', ...process.argv.slice(2)])
