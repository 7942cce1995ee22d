/**
 * Where files come from when the service runs as the executable `npm run build` compiles
 * (dist/ffos): its modules and the assets the build embeds live in Bun's read-only `/$bunfs/` file
 * system, beside the entry point, and no source tree or node_modules exists around it.
 */
import { dirname, join } from 'node:path'

export const IS_COMPILED = Bun.main.startsWith('/$bunfs/') || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(Bun.main)

/** A folder or file the build embeds with `--asset PATH` (PATH relative to the repository root). */
export const embeddedAsset = (path: string) => join(dirname(Bun.main), path)
