/**
 * The shape of src/ in numbers, for docs/ARCHITECTURE.md and review notes:
 *   - files over 400 lines and functions over 60 lines (TypeScript's own parser);
 *   - imports that climb: a file importing from a higher floor than its own (see FLOORS);
 *   - lateral reach: a module importing another module's file other than its face (index.ts);
 *   - module import cycles (A → B → A, or longer: A → B → C → A).
 * Usage: bun scripts/structure.ts [--list]   (--list prints every offender, not only the counts)
 * tests/architecture.test.ts runs `analyseStructure` and fails on any climb, lateral reach or cycle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

export const SRC = resolve(import.meta.dir, '..', 'src')

/** Lower floors never import higher ones (docs/ARCHITECTURE.md). */
export const FLOORS: [prefix: string, floor: number, name: string][] = [
  ['lib/', 0, 'lib'],
  ['config/', 1, 'config'],
  ['db/', 2, 'db'],
  ['platform/', 3, 'platform'],
  ['modules/', 4, 'modules'],
  ['jobs/', 5, 'jobs'],
  ['ws/', 5, 'ws'],
  ['app.ts', 6, 'app'],
  ['', 7, 'entry points'],
]
const floorOf = (file: string) => FLOORS.find(([prefix]) => file.startsWith(prefix))!

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return walk(path)
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : []
  })
}

function isDirectory(path: string) {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

export interface Structure {
  files: number
  longFiles: string[]
  longFunctions: string[]
  climbs: string[]
  lateral: string[]
  /** Each set of modules that import each other, directly or around a loop, as `a → b → a`. */
  cycles: string[]
}

// modules/index.ts is the module list (the composition root's), not a module: it names every module.
const moduleOf = (file: string) => (file.startsWith('modules/') && file.split('/').length > 2 ? file.split('/')[1]! : null)

/** The modules that reach each other around a loop: strongly connected components of more than one module (Tarjan). */
function moduleCycles(edges: Map<string, Set<string>>): string[] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[] = []
  const connect = (node: string) => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      if (!index.has(next)) {
        connect(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const members: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        members.push(member)
      } while (member !== node)
      if (members.length > 1) cycles.push([...members.sort(), members[0]].join(' → '))
    }
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node)
  return cycles
}

export function analyseStructure(root = SRC): Structure {
  const files = walk(root)
  const result: Structure = { files: files.length, longFiles: [], longFunctions: [], climbs: [], lateral: [], cycles: [] }
  const moduleEdges = new Map<string, Set<string>>()
  for (const path of files) {
    const file = relative(root, path)
    const text = readFileSync(path, 'utf8')
    const lines = text.split('\n').length
    if (lines > 400) result.longFiles.push(`${file} (${lines})`)
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
        if (end - start + 1 > 60) {
          const name = (node as ts.FunctionDeclaration).name?.getText() ?? `<anonymous@${start + 1}>`
          result.longFunctions.push(`${file}:${start + 1} ${name} (${end - start + 1})`)
        }
      }
      const specifier =
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
          ? node.moduleSpecifier.text
          : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])
            ? node.arguments[0].text
            : null
      if (specifier?.startsWith('.')) {
        let target = relative(root, resolve(dirname(path), specifier))
        const inside = !target.startsWith('..') // not a package file outside src/
        if (inside && !target.endsWith('.ts')) target = isDirectory(join(root, target)) ? `${target}/index.ts` : `${target}.ts`
        const [, from, fromName] = floorOf(file)
        const [, to, toName] = floorOf(target)
        if (inside && to > from) result.climbs.push(`${file} (${fromName}) → ${target} (${toName})`)
        const a = moduleOf(file)
        const b = moduleOf(target)
        if (a && b && a !== b) {
          if (target !== `modules/${b}/index.ts`) result.lateral.push(`${file} → ${target}`)
          if (!moduleEdges.has(a)) moduleEdges.set(a, new Set())
          moduleEdges.get(a)!.add(b)
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  result.cycles = moduleCycles(moduleEdges)
  return result
}

if (import.meta.main) {
  const list = process.argv.includes('--list')
  const structure = analyseStructure()
  const report = [
    ['files', structure.files],
    ['files over 400 lines', structure.longFiles.length],
    ['functions over 60 lines', structure.longFunctions.length],
    ['imports that climb a floor', structure.climbs.length],
    ["imports reaching into another module's internal file", structure.lateral.length],
    ['module cycles (modules importing each other, directly or around a loop)', structure.cycles.length],
  ] as const
  for (const [label, n] of report) console.log(`${String(n).padStart(5)}  ${label}`)
  if (list) {
    for (const [title, items] of [
      ['files over 400 lines', structure.longFiles],
      ['functions over 60 lines', structure.longFunctions],
      ['imports that climb', structure.climbs],
      ['lateral reach', structure.lateral],
      ['module cycles', structure.cycles],
    ] as const) {
      console.log(`\n## ${title}`)
      for (const item of items) console.log(`  ${item}`)
    }
  }
}
