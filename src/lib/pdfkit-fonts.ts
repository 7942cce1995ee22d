/**
 * pdfkit with its standard fonts only (Helvetica and the other thirteen PDF fonts), in the executable and
 * from the sources alike. pdfkit imports fontkit at its top for embedded TrueType/OpenType fonts, which the
 * service never draws with (its PDFs use Helvetica): fontkit alone is ~20–25 MiB of resident memory at the
 * first PDF (docs/PERFORMANCE.md "Memory budget"). Both plugins below replace that import with a function
 * that throws, so a font file passed to pdfkit fails loudly instead of loading fontkit.
 *
 * - `pdfkitForBundle` (scripts/build.ts): also turns pdfkit's `require('#standard-fonts/…')` (its package's
 *   own import map, built at run time, which the bundler cannot follow and an executable without
 *   node_modules cannot answer) into requires of pdfkit's exported `pdfkit/standard-fonts/…` modules, which
 *   the bundler embeds. tests/binary.test.ts still writes and downloads a PDF from the executable.
 * - `usePdfkitWithoutFontkit()` (src/modules/exports/exports.pdf.ts, before its first `import('pdfkit')`):
 *   the same fontkit replacement as a runtime plugin, for `npm start` and the tests; nothing in the
 *   executable, whose pdfkit is the bundled one.
 * Each throws when pdfkit's source no longer holds what it replaces (a pdfkit update must be looked at).
 */
import type { BunPlugin } from 'bun'
import { IS_COMPILED } from './executable'

const PDFKIT_MODULE = /[\\/]pdfkit[\\/]js[\\/]pdfkit\.node\.mjs$/
const STANDARD_FONT_REQUIRE = /require\$1\('#standard-fonts\/([A-Za-z]+)'\)/g
const FONTKIT_IMPORT = "import { create } from 'fontkit';"
const FONTKIT_STUB = "const create = () => { throw new Error('only the standard PDF fonts are available to this service (src/lib/pdfkit-fonts.ts)') };"

/** pdfkit's module source without its fontkit import. */
export function withoutFontkit(source: string, path: string): string {
  const replaced = source.replace(FONTKIT_IMPORT, FONTKIT_STUB)
  if (replaced === source) throw new Error(`${path}: no fontkit import found; pdfkit changed how it loads embedded fonts`)
  return replaced
}

/** The build's plugin: standard fonts as bundled requires, no fontkit. */
export const pdfkitForBundle: BunPlugin = {
  name: 'pdfkit-standard-fonts',
  setup(build) {
    build.onLoad({ filter: PDFKIT_MODULE }, async ({ path }) => {
      const source = await Bun.file(path).text()
      const replaced = source.replace(STANDARD_FONT_REQUIRE, (_, name: string) => `require('pdfkit/standard-fonts/${name}')`)
      if (replaced === source) throw new Error(`${path}: no #standard-fonts require found; pdfkit changed how it loads its fonts`)
      return { contents: withoutFontkit(replaced, path), loader: 'js' }
    })
  },
}

let registered = false

/** Registers the runtime plugin once per process (from the sources; the executable's pdfkit is bundled already). */
export function usePdfkitWithoutFontkit(): void {
  if (registered || IS_COMPILED) return
  registered = true
  Bun.plugin({
    name: 'pdfkit-without-fontkit',
    setup(build) {
      build.onLoad({ filter: PDFKIT_MODULE }, async ({ path }) => ({ contents: withoutFontkit(await Bun.file(path).text(), path), loader: 'js' }))
    },
  })
}
