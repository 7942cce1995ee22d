/**
 * Control characters in text fields (src/platform/http/schema.ts, docs/API.md §Envelopes): a name, code or
 * title is one line and holds no C0 control character (U+0000–U+001F) nor DEL (U+007F); a multi-line
 * text (notes, a reason, an address) may hold tab and line breaks and nothing else of them. Refused with
 * 400 VALIDATION_ERROR naming the field, and nothing is written. Leading and trailing whitespace is
 * trimmed as before, so a trailing newline is no error.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { MASTER, newOutlet, newProject, newTeam, newVisit, ok, OFFICE } from './factories'
import { expectError, unique, useTestApp, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
const token = () => ws.owner.token

beforeAll(async () => {
  ws = await t.app.workspace()
})

const CONTROL = ['\u0001', '\u0000', '\u0008', '\u000b', '\u001b[31m', '\u001f', '\u007f', '\t', '\n', '\r']

describe('names are one line: every C0 control character and DEL is refused, naming the field', () => {
  const routes: [string, string, () => string, (value: string) => Record<string, unknown>, string][] = [
    ['POST', 'outlet name', () => `${OFFICE}/outlets`, (name) => ({ name }), 'name'],
    ['POST', 'team name', () => `${OFFICE}/teams`, (name) => ({ name }), 'name'],
    ['POST', 'project name', () => `${OFFICE}/projects`, (name) => ({ name }), 'name'],
    [
      'POST',
      'user name',
      () => `${OFFICE}/users`,
      (name) => ({ name, email: `${unique('c')}@example.com`, password: 'password123', role_id: ws.roles.user }),
      'name',
    ],
    ['POST', 'sub-area name (master data)', () => `${MASTER}/sub-areas`, (name) => ({ name }), 'name'],
    ['POST', 'role name', () => `${OFFICE}/roles`, (name) => ({ name, permissions: [] }), 'name'],
    ['PUT', 'workspace name', () => `${OFFICE}/workspaces/${ws.id}/settings`, (name) => ({ name }), 'name'],
    ['POST', 'new workspace name', () => `${OFFICE}/workspaces`, (name) => ({ name }), 'name'],
    ['POST', 'outlet code', () => `${OFFICE}/outlets`, (code) => ({ name: unique('Outlet'), code }), 'code'],
    ['POST', 'outlet contact name', () => `${OFFICE}/outlets`, (contact_name) => ({ name: unique('Outlet'), contact_name }), 'contact_name'],
  ]
  for (const [method, label, path, body, field] of routes) {
    test(`${label}: "Toko\\u0001" and every other control character → 400 errors.${field}, nothing written`, async () => {
      const audits = await t.app.count('audit_logs')
      for (const control of CONTROL) {
        const value = `Toko${control}Maju`
        const reply = method === 'POST' ? await t.app.post(path(), body(value), { token: token() }) : await t.app.put(path(), body(value), { token: token() })
        const errors = expectError(reply, 400, 'VALIDATION_ERROR')
        expect({ control, errors }).toEqual({ control, errors: { [field]: ['must not contain control characters (U+0000–U+001F, U+007F)'] } })
      }
      expect(await t.app.count('audit_logs')).toBe(audits)
    })
  }

  test('register: the person’s and the workspace’s names', async () => {
    const reply = await t.app.post('/auth/register', {
      name: 'Owner\u0001',
      email: `${unique('r')}@example.com`,
      password: 'password123',
      workspace_name: 'Work\u0007space',
    })
    expect(Object.keys(expectError(reply, 400, 'VALIDATION_ERROR')).sort()).toEqual(['name', 'workspace_name'])
  })

  test('leading and trailing whitespace (a newline too) is trimmed, not refused; printable Unicode is kept', async () => {
    const outlet = await newOutlet(t.app, token(), { name: '\n  Toko Café 🚀 «Jaya»\t\n' })
    expect(outlet.name).toBe('Toko Café 🚀 «Jaya»')
  })
})

describe('multi-line texts: tab and line breaks are kept, other control characters refused', () => {
  test('a visit’s cancel reason with a line break is accepted; with \\u0001 it is 400 errors.reason', async () => {
    const outlet = await newOutlet(t.app, token())
    const project = await newProject(t.app, token())
    const team = await newTeam(t.app, token())
    const visit = await newVisit(t.app, token(), { outlet_id: outlet.id, project_id: project.id, team_id: team.id, visit_date: '2026-11-23', submissions: [] })
    const cancel = (reason: string) => t.app.put(`${OFFICE}/visits/${visit.id}/cancel`, { reason }, { token: token() })
    expect(expectError(await cancel('closed\u0001'), 400, 'VALIDATION_ERROR')).toEqual({
      reason: ['must not contain control characters other than tab and line breaks'],
    })
    expect(ok(await cancel('Shop closed.\r\n\tBack on Monday.')).close_reason).toBe('Shop closed.\r\n\tBack on Monday.')
  })

  test('an outlet address may span lines but holds no other control character', async () => {
    expect(
      expectError(
        await t.app.post(`${OFFICE}/outlets`, { name: unique('Outlet'), address: 'Jl. Sudirman\u0000 1' }, { token: token() }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toHaveProperty('address')
    expect((await newOutlet(t.app, token(), { address: 'Jl. Sudirman 1\nJakarta' })).address).toBe('Jl. Sudirman 1\nJakarta')
  })
})
