/**
 * Re-points relative imports after files moved (the floors of docs/ARCHITECTURE.md) and sends imports of
 * another module's internal file through that module's face (src/modules/<m>/index.ts).
 *
 *   bun scripts/refactor/repoint-imports.ts          rewrite files in place, print every change
 *   bun scripts/refactor/repoint-imports.ts --check  print what would change, write nothing (exit 1 if anything would)
 *
 * It walks src/, tests/ and scripts/. For every relative path string a file uses — `import`/`export … from`,
 * `import(…)`, `import('…').Type`, `require(…)`, `mock.module(…)` and `new URL('…', import.meta.url)` —
 * that does not resolve where the file stands now, it resolves the string against the file's OLD location
 * (MOVED, for a file that moved) and maps the target through MOVED (for a target that moved), then writes
 * the new relative path. A string that resolves today is left alone, so a second run changes nothing.
 *
 * Then, for code outside a module (another module, app.ts, jobs/, ws/, tests, scripts) that imports a
 * module's internal file: when every imported name is exported by that module's face, the import goes
 * through the face; otherwise it is listed under "not through a face" for a person to decide.
 * Names that moved to another file (NAMES_MOVED) are re-pointed when all the names of one import
 * moved to the same file, and listed otherwise.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

const REPO = resolve(import.meta.dir, '..', '..')

/** Old path → new path (repository-relative). Where two old files became one, the first listed is the file's own history. */
export const MOVED: Record<string, string> = {
  // the lib/ floor: leaf helpers that import nothing of the project
  'src/platform/clock.ts': 'src/lib/clock.ts',
  'src/platform/crypto.ts': 'src/lib/crypto.ts',
  'src/platform/dates.ts': 'src/lib/dates.ts',
  'src/platform/errors.ts': 'src/lib/errors.ts',
  'src/platform/executable.ts': 'src/lib/executable.ts',
  'src/platform/fs-errors.ts': 'src/lib/fs-errors.ts',
  'src/platform/json.ts': 'src/lib/json.ts',
  'src/platform/time-zones.ts': 'src/lib/time-zones.ts',
  // one home for geometry: the pure track geometry and the coordinates a field action carries
  'src/modules/locations/geometry.ts': 'src/lib/geo.ts',
  'src/platform/geo.ts': 'src/lib/geo.ts',
  // platform/http: the HTTP kernel and what shapes requests, replies and the API document
  'src/platform/http.ts': 'src/platform/http/http.ts',
  'src/platform/api-docs.ts': 'src/platform/http/api-docs.ts',
  'src/platform/representation.ts': 'src/platform/http/representation.ts',
  'src/platform/reply.ts': 'src/platform/http/reply.ts',
  'src/platform/validation.ts': 'src/platform/http/validation.ts',
  'src/platform/schema.ts': 'src/platform/http/schema.ts',
  // platform/data: tenant scope, transactions with their audit entry, replays, lists
  'src/platform/scope.ts': 'src/platform/data/scope.ts',
  'src/platform/transaction.ts': 'src/platform/data/transaction.ts',
  'src/platform/audit.ts': 'src/platform/data/audit.ts',
  'src/platform/idempotency.ts': 'src/platform/data/idempotency.ts',
  'src/platform/pagination.ts': 'src/platform/data/pagination.ts',
  'src/platform/search.ts': 'src/platform/data/search.ts',
  // platform/realtime: the WebSocket hub and its replay log
  'src/platform/hub.ts': 'src/platform/realtime/hub.ts',
  'src/platform/replay-log.ts': 'src/platform/realtime/replay-log.ts',
}

/** Names that left a file for their owner's file: file → name → new file. */
export const NAMES_MOVED: Record<string, Record<string, string>> = {
  'src/modules/teams/teams.service.ts': {
    teamScopeOf: 'src/modules/audit-logs/audit-logs.service.ts',
    setUserTeams: 'src/modules/users/users.service.ts',
  },
  'src/platform/permissions.ts': {},
}

const OLD_OF: Record<string, string> = {}
for (const [from, to] of Object.entries(MOVED)) OLD_OF[to] ??= from

const EXTENSIONS = ['', '.ts', '.tsx', '.js', '/index.ts']

/** The existing file a path (repository-relative, maybe without extension) names, or null. */
function existing(path: string, allowDirectory = false): string | null {
  for (const ext of EXTENSIONS) {
    const candidate = path + ext
    const abs = join(REPO, candidate)
    if (existsSync(abs) && statSync(abs).isFile()) return candidate
  }
  return allowDirectory && existsSync(join(REPO, path)) ? path : null // a directory named as such (new URL('../..'))
}

/** The file a path named before the moves, at its place today, or null. */
function movedTarget(path: string, allowDirectory: boolean): string | null {
  for (const ext of EXTENSIONS) if (MOVED[path + ext]) return MOVED[path + ext]!
  return existing(path, allowDirectory)
}

function walk(dir: string): string[] {
  if (!existsSync(join(REPO, dir))) return []
  return readdirSync(join(REPO, dir)).flatMap((name) => {
    const path = `${dir}/${name}`
    if (name === 'node_modules' || name.startsWith('.')) return []
    if (statSync(join(REPO, path)).isDirectory()) return walk(path)
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** A relative specifier from `fromFile` to `toFile`, keeping the extension style of `original`. */
function specifier(fromFile: string, toFile: string, original: string): string {
  let rel = relative(dirname(fromFile), toFile)
  const keepExt = /\.(ts|tsx|js)$/.test(original) || !/\.(ts|tsx)$/.test(toFile)
  if (!keepExt) {
    rel = rel.replace(/\.tsx?$/, '')
    if (!/\/index$/.test(original) && /(^|\/)index$/.test(rel)) rel = rel === 'index' ? '.' : rel.replace(/\/index$/, '')
  }
  if (!rel.startsWith('.')) rel = `./${rel}`
  return rel
}

const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null
const faceOf = (name: string) => `src/modules/${name}/index.ts`

const faceCache = new Map<string, Set<string> | null>()
/** The names a module's face exports (null when the module has no face). */
function faceExports(moduleName: string): Set<string> | null {
  if (faceCache.has(moduleName)) return faceCache.get(moduleName)!
  const path = faceOf(moduleName)
  const names = existsSync(join(REPO, path)) ? exportedNames(path) : null
  faceCache.set(moduleName, names)
  return names
}

/** Names a file exports (declarations and `export { … }` lists). */
export function exportedNames(path: string): Set<string> {
  const source = ts.createSourceFile(path, readFileSync(join(REPO, path), 'utf8'), ts.ScriptTarget.Latest, true)
  const names = new Set<string>()
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add(element.name.text)
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text)
      } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) names.add((statement.name as ts.Identifier).text)
    }
  }
  return names
}

interface Edit {
  start: number
  end: number
  text: string
  note: string
}

/** The imported names of an import/export declaration, or null when it imports a default or a namespace. */
function importedNames(node: ts.ImportDeclaration | ts.ExportDeclaration): string[] | null {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause
    if (!clause) return null
    if (clause.name) return null
    if (!clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) return null
    return clause.namedBindings.elements.map((element) => (element.propertyName ?? element.name).text)
  }
  if (!node.exportClause || !ts.isNamedExports(node.exportClause)) return null
  return node.exportClause.elements.map((element) => (element.propertyName ?? element.name).text)
}

export interface RepointResult {
  changed: { file: string; notes: string[] }[]
  unresolved: string[]
  notThroughFace: string[]
}

export function repoint(options: { write: boolean; roots?: string[] }): RepointResult {
  const result: RepointResult = { changed: [], unresolved: [], notThroughFace: [] }
  for (const file of (options.roots ?? ['src', 'tests', 'scripts']).flatMap(walk)) {
    const text = readFileSync(join(REPO, file), 'utf8')
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const oldFile = OLD_OF[file] ?? file
    const edits: Edit[] = []

    /** Where `spec` points for this file today (resolving through its old place and the moves). */
    const targetOf = (spec: string, allowDirectory: boolean): { target: string | null; fixed: boolean } => {
      const here = existing(relative(REPO, resolve(join(REPO, dirname(file)), spec)), allowDirectory)
      if (here !== null) return { target: here, fixed: false }
      const before = movedTarget(relative(REPO, resolve(join(REPO, dirname(oldFile)), spec)), allowDirectory)
      return { target: before, fixed: before !== null }
    }

    const consider = (literal: ts.StringLiteralLike, declaration?: ts.ImportDeclaration | ts.ExportDeclaration, allowDirectory = false) => {
      const spec = literal.text
      if (!spec.startsWith('.')) return
      const { target, fixed } = targetOf(spec, allowDirectory)
      if (target === null) {
        result.unresolved.push(`${file}: '${spec}'`)
        return
      }
      let destination = target
      let note = fixed ? `'${spec}' → moved file ${target}` : ''
      if (declaration) {
        const names = importedNames(declaration)
        const movedNames = NAMES_MOVED[target]
        if (names && movedNames) {
          const stillThere = exportedNames(target)
          const homes = new Set(names.map((name) => (stillThere.has(name) ? undefined : movedNames[name])))
          const [home] = homes
          if (homes.size === 1 && home) {
            destination = home
            note = `'${spec}' → ${home} (names moved)`
          } else if ([...homes].some(Boolean))
            result.notThroughFace.push(`${file}: split by hand, some of {${names.join(', ')}} moved (${JSON.stringify(movedNames)})`)
        }
        const owner = moduleOf(destination)
        if (owner && moduleOf(file) !== owner && destination !== faceOf(owner)) {
          const face = faceExports(owner)
          const missing = names ? names.filter((name) => !face?.has(name)) : null
          if (face && missing && missing.length === 0) {
            destination = faceOf(owner)
            note = `'${spec}' → face of ${owner}`
          } else if (moduleOf(file)) {
            result.notThroughFace.push(`${file} → ${destination}${missing ? ` (face lacks: ${missing.join(', ')})` : ' (default or namespace import)'}`)
          }
        }
      }
      if (destination === target && !fixed) return
      const replacement = specifier(file, destination, spec)
      if (replacement === spec) return
      const quote = text[literal.getStart(source)]
      edits.push({
        start: literal.getStart(source),
        end: literal.getEnd(),
        text: `${quote}${replacement}${quote}`,
        note: note || `'${spec}' → '${replacement}'`,
      })
    }

    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        consider(node.moduleSpecifier, node)
      } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
        const callee = node.expression.getText(source)
        if (node.expression.kind === ts.SyntaxKind.ImportKeyword || callee === 'require' || callee === 'mock.module') consider(node.arguments[0])
      } else if (ts.isNewExpression(node) && node.expression.getText(source) === 'URL' && node.arguments?.[0] && ts.isStringLiteralLike(node.arguments[0])) {
        if (node.arguments[1]?.getText(source) === 'import.meta.url') consider(node.arguments[0], undefined, true)
      } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
        consider(node.name)
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        consider(node.argument.literal)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)

    if (edits.length === 0) continue
    let next = text
    for (const edit of [...edits].sort((a, b) => b.start - a.start)) next = next.slice(0, edit.start) + edit.text + next.slice(edit.end)
    if (next === text) continue
    result.changed.push({ file, notes: edits.map((edit) => edit.note) })
    if (options.write) writeFileSync(join(REPO, file), next)
  }
  return result
}

if (import.meta.main) {
  const check = process.argv.includes('--check')
  const result = repoint({ write: !check })
  for (const { file, notes } of result.changed) {
    console.log(file)
    for (const note of notes) console.log(`  ${note}`)
  }
  if (result.unresolved.length) console.log(`\nunresolved (fix by hand):\n  ${result.unresolved.join('\n  ')}`)
  if (result.notThroughFace.length) console.log(`\nnot through a face (export the names from the face, or decide):\n  ${result.notThroughFace.join('\n  ')}`)
  console.log(`\n${result.changed.length} file(s) ${check ? 'would change' : 'changed'}`)
  if (check && result.changed.length) process.exit(1)
}
