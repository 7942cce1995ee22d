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
 * - pdfkit's standard fonts (Helvetica): pdfkit loads them with a `require` of its package's own
 *   `#standard-fonts/…` import map, built at run time, which the bundler cannot follow and an
 *   executable without node_modules cannot answer. The plugin below turns those calls into plain
 *   requires of pdfkit's exported `pdfkit/standard-fonts/…` modules, which the bundler embeds.
 *   tests/binary.test.ts fails if a pdfkit update changes that call. The same plugin leaves fontkit
 *   out: pdfkit calls it only for embedded TrueType/OpenType fonts, which the service never draws
 *   with (its PDFs use Helvetica), and its module alone is ~25 MiB of resident memory at the first
 *   PDF (docs/PERFORMANCE.md "Memory budget"). A font file passed to pdfkit would throw.
 *
 * The native libSQL addon is not inside: @libsql/client is imported only for a libSQL URL
 * (src/db/client.ts), and a remote server is reached by its pure-JavaScript web client.
 */
import { rmSync } from 'node:fs'
import type { BunPlugin } from 'bun'
import { ensureRegionalDatabase, regionalAssetPath, sourceTreeRegionalPath } from '../src/modules/regional'

export const OUTFILE = 'dist/ffos'

const STANDARD_FONT_REQUIRE = /require\$1\('#standard-fonts\/([A-Za-z]+)'\)/g
const FONTKIT_IMPORT = "import { create } from 'fontkit';"
const FONTKIT_STUB = "const create = () => { throw new Error('only the standard PDF fonts are built into this executable (scripts/build.ts)') };"

const pdfkitStandardFonts: BunPlugin = {
  name: 'pdfkit-standard-fonts',
  setup(build) {
    build.onLoad({ filter: /[\\/]pdfkit[\\/]js[\\/]pdfkit\.node\.mjs$/ }, async ({ path }) => {
      const source = await Bun.file(path).text()
      const replaced = source.replace(STANDARD_FONT_REQUIRE, (_, name: string) => `require('pdfkit/standard-fonts/${name}')`)
      if (replaced === source) throw new Error(`${path}: no #standard-fonts require found; pdfkit changed how it loads its fonts`)
      const withoutFontkit = replaced.replace(FONTKIT_IMPORT, FONTKIT_STUB)
      if (withoutFontkit === replaced) throw new Error(`${path}: no fontkit import found; pdfkit changed how it loads embedded fonts`)
      return { contents: withoutFontkit, loader: 'js' }
    })
  },
}

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
    plugins: [pdfkitStandardFonts],
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
