/**
 * GET /api/docs (the Scalar UI), /api/docs/scalar.js and /api/docs/json (OpenAPI 3.1).
 *
 * Works with no internet: the page loads the Scalar bundle from this service (the exact version
 * package.json pins, from node_modules or, in the compiled executable, embedded), never from a CDN,
 * and asks for no web fonts.
 *
 * The document is generated from the routes' own schemas (@elysiajs/openapi's generator), then
 * finished by ./openapi-document.ts (the rules that hold for every route). It is serialised once, so
 * every fetch gets the same bytes.
 */ import { dirname, join } from 'node:path'
import { toOpenAPISchema } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
// Not in the package's exports map, so by path (npm installs it at the top of node_modules).
import { version as scalarVersion } from '../../../node_modules/@scalar/api-reference/package.json'
import { embeddedAsset, IS_COMPILED } from '../../lib/executable'
import { type DocumentHead, finishDocument, type OpenApiDocument } from './openapi-document'

export { listedValues } from './openapi-document'
export { scalarVersion }

/** The Scalar bundle; `npm run build` embeds it with `--asset`, which keeps a file's name, not its folders. */
const scalarBundlePath = () =>
  IS_COMPILED ? embeddedAsset('standalone.js') : join(dirname(Bun.resolveSync('@scalar/api-reference', import.meta.dir)), 'browser/standalone.js')

const page = (title: string) => `<!doctype html>
<html>
  <head>
    <title>${title}</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-configuration='${JSON.stringify({ url: '/api/docs/json', withDefaultFonts: false, hideClientButton: true })}'></script>
    <script src="/api/docs/scalar.js?v=${scalarVersion}"></script>
  </body>
</html>`

export interface ApiDocsOptions {
  documentation: DocumentHead
}

/** Mount under the `/api` prefix, after the platform plugin (the routes are public and hidden). */
export function apiDocs({ documentation }: ApiDocsOptions) {
  const plugin = new Elysia({ name: 'api-docs' })
  let cached: { routes: number; body: string } | null = null
  const document = () => {
    // Generated on the first fetch, once every route is registered; again only if routes were added.
    const routes = (plugin as unknown as { getGlobalRoutes(): unknown[] }).getGlobalRoutes().length
    if (cached?.routes !== routes) {
      const generated = toOpenAPISchema(plugin) as unknown as Pick<OpenApiDocument, 'paths' | 'components'>
      const full = {
        openapi: '3.1.0',
        info: { ...documentation.info },
        ...(({ info, ...rest }) => rest)(documentation),
        paths: generated.paths,
        components: { ...documentation.components, schemas: { ...generated.components?.schemas, ...documentation.components?.schemas } },
      }
      cached = { routes, body: JSON.stringify(finishDocument(JSON.parse(JSON.stringify(full)))) }
    }
    return cached.body
  }
  const hidden = { detail: { hide: true } }

  return plugin
    .get('/docs', () => new Response(page(documentation.info.title), { headers: { 'content-type': 'text/html; charset=utf-8' } }), hidden)
    .get(
      '/docs/scalar.js',
      () =>
        new Response(Bun.file(scalarBundlePath()), {
          headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' },
        }),
      hidden,
    )
    .get('/docs/json', () => new Response(document(), { headers: { 'content-type': 'application/json; charset=utf-8' } }), hidden)
}
