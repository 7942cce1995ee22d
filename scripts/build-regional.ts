/**
 * `bun scripts/build-regional.ts` — builds the prepared read-only regional database,
 * dist/regional-<version>.sqlite (src/modules/regional/regional.data.ts), unless a file of this
 * version is already there. `npm start` and `npm test` run it first (their `pre` scripts), and
 * `npm run build` embeds the file in the executable (scripts/build.ts). Prints the path.
 */
import { ensureRegionalDatabase, sourceTreeRegionalPath } from '../src/modules/regional'

if (import.meta.main) {
  const started = performance.now()
  const path = ensureRegionalDatabase(sourceTreeRegionalPath())
  console.log(`regional data: ${path} (${Math.round(performance.now() - started)} ms)`)
}
