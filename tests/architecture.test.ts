/**
 * The floors and faces of docs/ARCHITECTURE.md, held by the same analysis as `bun scripts/structure.ts`:
 * no import climbs a floor (lib < config < db < platform < modules < jobs/ws < app < entry points), no
 * module reaches into another module's internal file (only its face, modules/<m>/index.ts), and no
 * modules import each other, directly or around a loop. Each rule is also checked on a small tree built
 * here, so a rule that stopped finding anything would fail too.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { analyseStructure } from '../scripts/structure'

const structure = analyseStructure()

describe('the source tree', () => {
  test('no import climbs a floor', () => {
    expect(structure.climbs).toEqual([])
  })

  test("no module imports another module's internal file: only its face (index.ts)", () => {
    expect(structure.lateral).toEqual([])
  })

  test('no modules import each other, directly or around a loop', () => {
    expect(structure.cycles).toEqual([])
  })

  test('every module has a face', () => {
    const modules = new Set([...new Bun.Glob('modules/*/*.ts').scanSync({ cwd: join(import.meta.dir, '..', 'src') })].map((path) => path.split('/')[1]))
    const faces = new Set([...new Bun.Glob('modules/*/index.ts').scanSync({ cwd: join(import.meta.dir, '..', 'src') })].map((path) => path.split('/')[1]))
    expect([...modules].filter((name) => !faces.has(name))).toEqual([])
  })
})

describe('the analysis finds what it forbids (a small tree)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ffos-architecture-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const write = (files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
  }
  write({
    'lib/clock.ts': "import { loadConfig } from '../config/env'\nexport const now = loadConfig\n",
    'config/env.ts': 'export const loadConfig = () => ({})\n',
    'db/client.ts': "import { can } from '../platform/permissions'\nexport const open = can\n",
    'platform/permissions.ts': 'export const can = () => true\n',
    'modules/a/index.ts': "export { a } from './a.service'\n",
    'modules/a/a.service.ts': "import { b } from '../b'\nexport const a = b\n",
    'modules/b/index.ts': "export { b } from './b.service'\n",
    'modules/b/b.service.ts': "import { c } from '../c/c.service'\nexport const b = c\n",
    'modules/c/index.ts': "export { c } from './c.service'\n",
    'modules/c/c.service.ts': "import { a } from '../a'\nexport const c = () => a\n",
    'modules/d/index.ts': "import { a } from '../a'\nexport const d = a\n",
  })
  const found = analyseStructure(root)

  test('an import from a higher floor is a climb', () => {
    expect(found.climbs).toEqual(['lib/clock.ts (lib) → config/env.ts (config)', 'db/client.ts (db) → platform/permissions.ts (platform)'])
  })

  test("an import of another module's file other than its face is lateral reach", () => {
    expect(found.lateral).toEqual(['modules/b/b.service.ts → modules/c/c.service.ts'])
  })

  test('modules importing each other around a loop are a cycle; an import into the loop is not', () => {
    expect(found.cycles).toEqual(['a → b → c → a'])
  })
})
