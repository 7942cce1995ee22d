/**
 * The API contract as a client developer meets it: dumps /api/docs/json, generates its TypeScript
 * types with openapi-typescript and typechecks them (strict), printing the figures docs/PERFORMANCE.md
 * records ("API contract"). `bun scripts/contract.ts [outDir]`; then, for the lint figure,
 * `npx --yes @redocly/cli@latest lint <outDir>/openapi.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { createTestApp } from '../tests/harness'

const out = process.argv[2] ?? join(tmpdir(), 'ffos-contract')
mkdirSync(out, { recursive: true })
const app = await createTestApp()
const document = await (await app.app.handle(new Request('http://localhost/api/docs/json'))).text()
await app.close()
writeFileSync(join(out, 'openapi.json'), document)
const types = astToString(await openapiTS(JSON.parse(document)))
writeFileSync(join(out, 'schema.d.ts'), types)
const started = performance.now()
const program = ts.createProgram([join(out, 'schema.d.ts')], {
  strict: true,
  noEmit: true,
  types: [],
  lib: ['lib.es2022.d.ts'],
  target: ts.ScriptTarget.ES2022,
})
const diagnostics = ts.getPreEmitDiagnostics(program)
const typecheckMs = performance.now() - started
const doc = JSON.parse(document)
console.log(
  JSON.stringify(
    {
      documentBytes: document.length,
      operations: Object.values(doc.paths as Record<string, object>).reduce((sum, item) => sum + Object.keys(item).length, 0),
      componentSchemas: Object.keys(doc.components?.schemas ?? {}).length,
      typesBytes: types.length,
      typesLines: types.split('\n').length,
      typecheckMs: Math.round(typecheckMs),
      typeErrors: diagnostics.length,
      out,
    },
    null,
    2,
  ),
)
