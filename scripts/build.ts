/**
 * `npm run build` → dist/ffos: one executable (`bun build --compile`) that needs no node_modules and
 * no source tree beside it (README.md, "Production"). What goes inside, and how it is found there:
 *
 * - the code: src/cli.ts (serve, backup, restore, regional-export, create-workspace);
 * - the checkpoint worker: an entry point of its own, src/db/checkpoint.worker.ts (a worker in an
 *   executable must be one); src/db/checkpoint.ts starts it by that path;
 * - drizzle/ (the migrations) and the Scalar bundle of the docs page: `assets`, read at run time
 *   beside the entry point (src/lib/executable.ts);
 * - the prepared read-only regional database, dist/regional-<version>.sqlite: built first when missing
 *   (scripts/build-regional.ts; src/modules/regional/regional.data.ts), embedded as an asset; the
 *   executable's first start copies it out beside its database file, once per version, and opens the
 *   copy read-only (src/modules/regional/regional.database.ts). Nothing is inserted at start;
 * - the regional CSV files, for `ffos regional-export`: imported `with { type: 'file' }` by
 *   src/modules/regional/regional.data.ts;
 * - pdfkit with its standard fonts only (Helvetica) and without fontkit: src/lib/pdfkit-fonts.ts
 *   pdfkitForBundle (tests/binary.test.ts fails if a pdfkit update changes what it replaces);
 *
 * The native libSQL addon is not inside: @libsql/client is imported only for a libSQL URL
 * (src/db/client.ts), and a remote server is reached by its pure-JavaScript web client.
 */
import { rmSync } from 'node:fs'
import { pdfkitForBundle } from '../src/lib/pdfkit-fonts'
import { ensureRegionalDatabase, regionalAssetPath, sourceTreeRegionalPath } from '../src/modules/regional'

export const OUTFILE = 'dist/ffos'

if (import.meta.main) {
  rmSync(OUTFILE, { force: true })
  ensureRegionalDatabase(sourceTreeRegionalPath())
  const result = await Bun.build({
    entrypoints: ['src/cli.ts', 'src/db/checkpoint.worker.ts'],
    compile: {
      outfile: OUTFILE,
      assets: ['drizzle', 'node_modules/@scalar/api-reference/dist/browser/standalone.js', regionalAssetPath()],
      // The executable reads its settings from the environment (and .env, as `npm start`), never
      // from a bunfig.toml that happens to lie in the directory it is started from.
      autoloadBunfig: false,
    },
    minify: true,
    plugins: [pdfkitForBundle],
    // The embedded regional file's SHA-256: the server copies it out of the executable file by read(2)
    // and keeps only a copy with this digest (src/modules/regional/regional.database.ts copyOutOfContainer).
    define: { FFOS_EMBEDDED_REGIONAL_SHA256: JSON.stringify(new Bun.CryptoHasher('sha256').update(await Bun.file(regionalAssetPath()).bytes()).digest('hex')) },
  })
  if (!result.success) {
    for (const message of result.logs) console.error(message)
    process.exit(1)
  }
  console.log(`built ${OUTFILE}: ${(Bun.file(OUTFILE).size / 1024 / 1024).toFixed(1)} MiB`)
}
