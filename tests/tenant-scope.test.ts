/**
 * One tenant path: every `workspace_id` condition is written by src/platform/data/scope.ts (a table's
 * `workspaceScoped(...)` object, or the named escape hatch `acrossWorkspaces(table, why)`), never by hand.
 * This test reads src/ and fails on a hand-written one, so a new query cannot forget the workspace or
 * scope it a second way. Allowed elsewhere: schema definitions (src/db/schema/), selecting the column,
 * conflict targets, and values read from a row (`String(job.workspace_id)`).
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const SRC = join(import.meta.dir, '..', 'src')
const ALLOWED = new Set([
  'platform/data/scope.ts',
  // Trigger SQL, generated from the manifests' declarations: it runs inside SQLite on a changed row and
  // joins that row to rows of its own workspace (NEW.workspace_id); no request's tenant is involved.
  'platform/data/sync-feed.ts',
  'platform/data/search-index.ts',
  'modules/teams/teams.manifest.ts',
])
const ALLOWED_UNDER = ['db/schema/']

/** Ways of writing a workspace condition by hand, each with an example it catches. */
const HAND_WRITTEN: { name: string; pattern: RegExp }[] = [
  // eq(visits.workspace_id, id), inArray(t.workspace_id, ids), ne(...)
  { name: 'a comparison on the column', pattern: /\b(eq|ne|inArray|notInArray)\(\s*[\w.[\]]+\.workspace_id\b/ },
  // eq(workspaces.id, memberships.workspace_id)
  { name: 'a comparison against the column', pattern: /\b(eq|ne)\([^(),]+,\s*[a-z]\w*\.workspace_id\s*\)/ },
  // sql`${visitAssignees.workspace_id} = ...`
  { name: 'the column inside a sql template', pattern: /\$\{\s*\w+\.workspace_id\s*\}/ },
  // where v.workspace_id = ${...}, where workspace_id = ${...}, workspace_id in (...)
  { name: 'the column in hand-written SQL', pattern: /\bworkspace_id\s*(=(?!=)|in\s*\(|is\b)/ },
]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** `file:line: text` for every hand-written workspace condition in src/. */
function handWrittenConditions(): string[] {
  const found: string[] = []
  for (const path of sourceFiles(SRC)) {
    const file = relative(SRC, path)
    if (ALLOWED.has(file) || ALLOWED_UNDER.some((dir) => file.startsWith(dir))) continue
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return
        for (const { name, pattern } of HAND_WRITTEN) if (pattern.test(line)) found.push(`${file}:${i + 1}: ${name}: ${line.trim()}`)
      })
  }
  return found
}

describe('tenant access goes through the scope object', () => {
  test('no file outside src/platform/data/scope.ts writes a workspace_id condition by hand', () => {
    expect(handWrittenConditions()).toEqual([])
  })

  test('the scan catches each way of writing one by hand', () => {
    const samples = [
      'eq(visits.workspace_id, workspaceId)',
      'inArray(auditLogs.workspace_id, ids)',
      '.innerJoin(workspaces, eq(workspaces.id, memberships.workspace_id))',
      `sql\`\${teamMembers.workspace_id} = \${id}\``,
      `where v.workspace_id = \${f.workspace} and v.deleted_at is null`,
    ]
    for (const sample of samples) expect(HAND_WRITTEN.some(({ pattern }) => pattern.test(sample))).toBe(true)
    for (const allowed of ['.select({ workspaceId: memberships.workspace_id })', 'String(job.workspace_id)', 'if (row.workspace_id === id)'])
      expect(HAND_WRITTEN.some(({ pattern }) => pattern.test(allowed))).toBe(false)
  })

  test('every cross-workspace read names its reason through acrossWorkspaces', () => {
    const calls = sourceFiles(SRC).flatMap((path) => [...readFileSync(path, 'utf8').matchAll(/acrossWorkspaces\(\s*\w+,\s*(['`"])(.*?)\1/g)].map((m) => m[2]))
    for (const why of calls) expect(why.length).toBeGreaterThan(10)
  })
})
