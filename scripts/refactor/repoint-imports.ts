/**
 * Re-points relative imports after files moved (the floors of docs/ARCHITECTURE.md) and sends imports of
 * another module's internal file through that module's face (src/modules/<m>/index.ts).
 *
 *   bun scripts/refactor/repoint-imports.ts          rewrite files in place, print every change
 *   bun scripts/refactor/repoint-imports.ts --check  print what would change, write nothing (exit 1 if anything would)
 *   bun scripts/refactor/repoint-imports.ts --grow-faces   then also add to each module's face (index.ts)
 *        the names that code outside the module (src/, tests/) imports from its internal files, and
 *        re-point those imports to the face (after a merge, this is the one command to run)
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
  'src/platform/openapi-document.ts': 'src/platform/http/openapi-document.ts',
  // platform/data: tenant scope, transactions with their audit entry, replays, lists
  'src/platform/scope.ts': 'src/platform/data/scope.ts',
  'src/platform/transaction.ts': 'src/platform/data/transaction.ts',
  'src/platform/audit.ts': 'src/platform/data/audit.ts',
  'src/platform/idempotency.ts': 'src/platform/data/idempotency.ts',
  'src/platform/pagination.ts': 'src/platform/data/pagination.ts',
  'src/platform/search.ts': 'src/platform/data/search.ts',
  'src/platform/sync-feed.ts': 'src/platform/data/sync-feed.ts',
  'src/platform/search-index.ts': 'src/platform/data/search-index.ts',
  'src/platform/list.ts': 'src/platform/data/list.ts',
  // the password hashing gate is a mechanism that auth, users and profile share (no module owns it)
  'src/modules/auth/passwords.ts': 'src/platform/passwords.ts',
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
  // a person's email and password shapes are shared field shapes, like Id and Timestamp
  'src/modules/auth/auth.schemas.ts': {
    Email: 'src/platform/http/schema.ts',
    Password: 'src/platform/http/schema.ts',
  },
  // rows as arrays of values is a database mechanism, not a locations rule
  'src/modules/locations/route.service.ts': {
    selectValues: 'src/db/prepared.ts',
  },
  // a new password voids the person's outstanding resets: the users module owns a person's password
  'src/modules/auth/auth.service.ts': {
    voidPasswordResets: 'src/modules/users/users.service.ts',
  },
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

/** Whether `name` is only a type in `file` (an interface, a type alias or a type-only export, and no value of that name). */
function isTypeIn(file: string, name: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(join(REPO, file), 'utf8'), ts.ScriptTarget.Latest, true)
  let type = false
  let value = false
  for (const statement of source.statements) {
    if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name.text === name) type = true
    else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name?.text === name)
      value = true
    else if (ts.isVariableStatement(statement) && statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name))
      value = true
    else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) {
        if (element.name.text !== name) continue
        if (statement.isTypeOnly || element.isTypeOnly) type = true
        else value = true
      }
    }
  }
  return type && !value
}

const FACE_HEADER = (name: string) =>
  `/**\n * The face of the ${name} module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and\n * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).\n */\n`

/**
 * Adds to each module's face the names that code outside the module (src/ and tests/) imports from its
 * internal files, creating the face where there is none. Returns the names added, per face.
 */
export function growFaces(options: { write: boolean }): string[] {
  const wanted = new Map<string, Map<string, Set<string>>>() // face → internal file → names
  for (const file of ['src', 'tests'].flatMap(walk)) {
    const source = ts.createSourceFile(file, readFileSync(join(REPO, file), 'utf8'), ts.ScriptTarget.Latest, true)
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) continue
      const spec = (statement.moduleSpecifier as ts.StringLiteral).text
      if (!spec.startsWith('.')) continue
      const target = existing(relative(REPO, resolve(join(REPO, dirname(file)), spec)))
      const owner = target && moduleOf(target)
      if (!target || !owner || owner === moduleOf(file) || target === faceOf(owner)) continue
      const names = importedNames(statement)
      if (!names) continue
      const face = faceOf(owner)
      if (!wanted.has(face)) wanted.set(face, new Map())
      const perFile = wanted.get(face)!
      if (!perFile.has(target)) perFile.set(target, new Set())
      for (const name of names) perFile.get(target)!.add(name)
    }
  }
  const added: string[] = []
  for (const [face, perFile] of wanted) {
    const present = existsSync(join(REPO, face)) ? exportedNames(face) : new Set<string>()
    let text = existsSync(join(REPO, face)) ? readFileSync(join(REPO, face), 'utf8') : FACE_HEADER(moduleOf(face)!)
    for (const [target, names] of perFile) {
      const missing = [...names].filter((name) => !present.has(name))
      if (missing.length === 0) continue
      const spec = specifier(face, target, '')
      const source = ts.createSourceFile(face, text, ts.ScriptTarget.Latest, true)
      const line = source.statements.find(
        (statement): statement is ts.ExportDeclaration =>
          ts.isExportDeclaration(statement) &&
          !!statement.moduleSpecifier &&
          (statement.moduleSpecifier as ts.StringLiteral).text === spec &&
          !statement.isTypeOnly,
      )
      const old =
        line?.exportClause && ts.isNamedExports(line.exportClause)
          ? line.exportClause.elements.map((element) => (line.isTypeOnly ? `type ${element.getText(source)}` : element.getText(source)))
          : []
      const entries = [...old, ...missing.map((name) => (isTypeIn(target, name) ? `type ${name}` : name))]
      entries.sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')))
      const onlyTypes = entries.every((entry) => entry.startsWith('type '))
      const statement = onlyTypes
        ? `export type { ${entries.map((entry) => entry.replace(/^type /, '')).join(', ')} } from '${spec}'`
        : `export { ${entries.join(', ')} } from '${spec}'`
      text = line ? text.slice(0, line.getStart(source)) + statement + text.slice(line.getEnd()) : `${text}${statement}\n`
      added.push(`${face}: ${missing.join(', ')} (from ${target})`)
    }
    if (options.write) writeFileSync(join(REPO, face), text)
  }
  return added
}

/** Joins several `import { … } from` one face into the first of them (a face is imported once per file). */
function mergeFaceImports(file: string, text: string): { text: string; faces: string[] } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const groups = new Map<string, ts.ImportDeclaration[]>()
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue
    const clause = statement.importClause
    if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) continue
    const spec = statement.moduleSpecifier.text
    if (!spec.startsWith('.')) continue
    const target = existing(relative(REPO, resolve(join(REPO, dirname(file)), spec)))
    const owner = target && moduleOf(target)
    if (!owner || target !== faceOf(owner)) continue
    groups.set(spec, [...(groups.get(spec) ?? []), statement])
  }
  const replacements: { start: number; end: number; text: string }[] = []
  const faces: string[] = []
  for (const [spec, declarations] of groups) {
    if (declarations.length < 2) continue
    faces.push(spec)
    const allTypes = declarations.every((declaration) => declaration.importClause!.isTypeOnly)
    const elements = declarations.flatMap((declaration) =>
      (declaration.importClause!.namedBindings as ts.NamedImports).elements.map((element) => {
        const text = element.getText(source)
        return declaration.importClause!.isTypeOnly && !allTypes ? `type ${text}` : text
      }),
    )
    const unique = [...new Set(elements)].sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')))
    const [first, ...rest] = declarations
    replacements.push({
      start: first!.getStart(source),
      end: first!.getEnd(),
      text: `import ${allTypes ? 'type ' : ''}{ ${unique.join(', ')} } from '${spec}'`,
    })
    for (const declaration of rest) {
      let end = declaration.getEnd()
      if (text[end] === '\n') end++
      replacements.push({ start: declaration.getStart(source), end, text: '' })
    }
  }
  let next = text
  for (const replacement of replacements.sort((a, b) => b.start - a.start))
    next = next.slice(0, replacement.start) + replacement.text + next.slice(replacement.end)
  return { text: next, faces }
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

    let next = text
    for (const edit of [...edits].sort((a, b) => b.start - a.start)) next = next.slice(0, edit.start) + edit.text + next.slice(edit.end)
    const merged = mergeFaceImports(file, next)
    if (merged.text !== next) edits.push({ start: 0, end: 0, text: '', note: `merged imports of ${merged.faces.join(', ')}` })
    next = merged.text
    if (next === text) continue
    result.changed.push({ file, notes: edits.map((edit) => edit.note) })
    if (options.write) writeFileSync(join(REPO, file), next)
  }
  return result
}

if (import.meta.main) {
  const check = process.argv.includes('--check')
  const grow = process.argv.includes('--grow-faces') && !check
  const print = (result: RepointResult) => {
    for (const { file, notes } of result.changed) {
      console.log(file)
      for (const note of notes) console.log(`  ${note}`)
    }
  }
  // 1. paths: every import that names a moved file (or a name that moved) points at its new place
  let result = repoint({ write: !check })
  print(result)
  const changed = new Set(result.changed.map(({ file }) => file))
  if (grow) {
    // 2. faces: names used from outside a module join its face, then those imports go through the face
    for (const line of growFaces({ write: true })) console.log(`face ${line}`)
    faceCache.clear()
    result = repoint({ write: true })
    print(result)
    for (const { file } of result.changed) changed.add(file)
  }
  if (result.unresolved.length) console.log(`\nunresolved (fix by hand):\n  ${result.unresolved.join('\n  ')}`)
  if (result.notThroughFace.length) console.log(`\nnot through a face (export the names from the face, or decide):\n  ${result.notThroughFace.join('\n  ')}`)
  console.log(`\n${changed.size} file(s) ${check ? 'would change' : 'changed'}`)
  if (check && changed.size) process.exit(1)
}
