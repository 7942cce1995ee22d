/**
 * The shape of src/ in numbers, for docs/ARCHITECTURE.md and review notes:
 *   - files over 400 lines and functions over 60 lines (TypeScript's own parser);
 *   - imports that climb: a file importing from a higher floor than its own (see FLOORS);
 *   - lateral reach: a module importing another module's file other than its face (index.ts);
 *   - module import cycles (A → B → A).
 * Usage: bun scripts/structure.ts [--list]   (--list prints every offender, not only the counts)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

const ROOT = resolve(import.meta.dir, '..', 'src')
const list = process.argv.includes('--list')

/** Lower floors never import higher ones. */
const FLOORS: [prefix: string, floor: number, name: string][] = [
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

const files = walk(ROOT)
const longFiles: string[] = []
const longFunctions: string[] = []
const climbs: string[] = []
const lateral: string[] = []
const moduleEdges = new Map<string, Set<string>>()
// modules/index.ts is the module list (the composition root's), not a module: it names every module.
const moduleOf = (file: string) => (file.startsWith('modules/') && file.split('/').length > 2 ? file.split('/')[1] : null)

for (const path of files) {
  const file = relative(ROOT, path)
  const text = readFileSync(path, 'utf8')
  const lines = text.split('\n').length
  if (lines > 400) longFiles.push(`${file} (${lines})`)
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      if (end - start + 1 > 60) {
        const name = (node as ts.FunctionDeclaration).name?.getText() ?? `<anonymous@${start + 1}>`
        longFunctions.push(`${file}:${start + 1} ${name} (${end - start + 1})`)
      }
    }
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text
      if (spec.startsWith('.')) {
        let target = relative(ROOT, resolve(dirname(path), spec))
        const inside = !target.startsWith('..') // not a package file outside src/
        if (inside && !target.endsWith('.ts')) target = statSafe(join(ROOT, target)) ? `${target}/index.ts` : `${target}.ts`
        const [, from, fromName] = floorOf(file)
        const [, to, toName] = floorOf(target)
        if (inside && to > from) climbs.push(`${file} (${fromName}) → ${target} (${toName})`)
        const a = moduleOf(file)
        const b = moduleOf(target)
        if (a && b && a !== b) {
          if (target !== `modules/${b}/index.ts`) lateral.push(`${file} → ${target}`)
          if (!moduleEdges.has(a)) moduleEdges.set(a, new Set())
          moduleEdges.get(a)!.add(b)
        }
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}

function statSafe(path: string) {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

const cycles: string[] = []
for (const [a, targets] of moduleEdges) for (const b of targets) if (a < b && moduleEdges.get(b)?.has(a)) cycles.push(`${a} ↔ ${b}`)

const report = [
  ['files', files.length],
  ['files over 400 lines', longFiles.length],
  ['functions over 60 lines', longFunctions.length],
  ['imports that climb a floor', climbs.length],
  ["imports reaching into another module's internal file", lateral.length],
  ['module pairs importing each other', cycles.length],
] as const
for (const [label, n] of report) console.log(`${String(n).padStart(5)}  ${label}`)
if (list) {
  for (const [title, items] of [
    ['files over 400 lines', longFiles],
    ['functions over 60 lines', longFunctions],
    ['imports that climb', climbs],
    ['lateral reach', lateral],
    ['module cycles', cycles],
  ] as const) {
    console.log(`\n## ${title}`)
    for (const item of items) console.log(`  ${item}`)
  }
}
