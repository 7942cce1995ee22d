/**
 * Phone sync (GET /app/v1/sync), the office change feed (GET /office/v1/changes) and `updated_since`
 * on every office list (docs/API.md §Sync and change feed).
 *
 * The replica checks compare what a client builds from the feed with what the detail routes answer
 * now: every live row of the phone's entity types (its own visits only), and nothing else.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { decodeCursor, encodeCursor, phoneRows, purgeOldTombstones, TOMBSTONE_WINDOW } from '../src/modules/sync'
import { createSealer } from '../src/lib/crypto'
import * as make from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'
import { withDatabase } from './support/database'

const t = useTestApp()

type Replica = Map<string, unknown>
interface Change {
  entity: string
  id: number
  op: 'upsert' | 'delete'
  data?: Record<string, unknown>
}

/** Follows the feed from `cursor` until has_more is false, applying every change; returns the new cursor. */
async function follow(path: string, token: string, replica: Replica, cursor?: string, limit = 1000): Promise<{ cursor: string; pages: Change[][] }> {
  const pages: Change[][] = []
  for (;;) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) })
    const reply = await t.app.get(`${path}?${query}`, { token })
    if (reply.status !== 200) throw new Error(`sync failed: ${reply.status} ${reply.text}`)
    expect(reply.body.code).toBe('SYNC_OK')
    const { changes, cursor: next, has_more } = reply.body.data as { changes: Change[]; cursor: string; has_more: boolean }
    const keys = changes.map((change) => `${change.entity}:${change.id}`)
    expect(new Set(keys).size).toBe(keys.length)
    for (const change of changes) {
      const key = `${change.entity}:${change.id}`
      if (change.op === 'upsert') replica.set(key, change.data)
      else replica.delete(key)
    }
    pages.push(changes)
    cursor = next
    if (!has_more) return { cursor, pages }
  }
}

const sync = (token: string, replica: Replica, cursor?: string, limit?: number) => follow('/app/v1/sync', token, replica, cursor, limit)

/** The phone detail route of each synced entity. */
const PHONE_DETAIL: Record<string, (id: number, visitOf?: number) => string> = {
  channel_group: (id) => `/app/v1/outlets/channel-groups/${id}`,
  channel: (id) => `/app/v1/outlets/channels/${id}`,
  account: (id) => `/app/v1/outlets/accounts/${id}`,
  sub_area: (id) => `/app/v1/outlets/sub-areas/${id}`,
  outlet: (id) => `/app/v1/outlets/${id}`,
  form: (id) => `/app/v1/forms/${id}`,
  project: (id) => `/app/v1/projects/${id}`,
  product: (id) => `/app/v1/products/${id}`,
  principal: (id) => `/app/v1/principals/${id}`,
  visit: (id) => `/app/v1/visits/me/${id}`,
  submission: (id, visitId) => `/app/v1/visits/me/${visitId}/submissions/${id}`,
}
const TABLES: Record<string, string> = {
  channel_group: 'channel_groups',
  channel: 'channels',
  account: 'accounts',
  sub_area: 'sub_areas',
  outlet: 'outlets',
  form: 'forms',
  project: 'projects',
  product: 'products',
  principal: 'principals',
  visit: 'visits',
  submission: 'submissions',
}

/** What the phone of `session` should hold now, read through the detail routes. */
async function phoneState(session: Session): Promise<Replica> {
  const state: Replica = new Map()
  const workspace = session.user.workspace_id
  for (const [entity, table] of Object.entries(TABLES)) {
    const rows = await t.app.db.pragma(
      `SELECT id${entity === 'submission' ? ', visit_id' : ''} FROM ${table} WHERE workspace_id = ${workspace} AND deleted_at IS NULL`,
    )
    for (const row of rows) {
      const reply = await t.app.get(PHONE_DETAIL[entity](Number(row.id), Number(row.visit_id)), { token: session.token })
      if (reply.status === 404) continue // another user's visit or submission
      expect(reply.status).toBe(200)
      state.set(`${entity}:${row.id}`, reply.body.data)
    }
  }
  return state
}

const sorted = (replica: Replica) => [...replica.entries()].sort(([a], [b]) => a.localeCompare(b))

interface Fixture {
  ws: Workspace
  field: Session
  other: Session
  groupId: number
  channelId: number
  accountId: number
  subAreaId: number
  formId: number
  projectId: number
  principalId: number
  outletIds: number[]
}

const created = async (path: string, token: string, body: unknown): Promise<number> => (await make.created(t.app, path, body, token)).id

async function fixture(): Promise<Fixture> {
  const ws = await t.app.workspace()
  const token = ws.owner.token
  const field = await t.app.member(ws, 'user')
  const other = await t.app.member(ws, 'user')
  const groupId = await created('/office/v1/outlets/channel-groups', token, { name: unique('Group') })
  const channelId = await created('/office/v1/outlets/channels', token, { name: unique('Channel'), channel_group_id: groupId })
  const accountId = await created('/office/v1/outlets/accounts', token, { name: unique('Account'), channel_id: channelId })
  const subAreaId = await created('/office/v1/outlets/sub-areas', token, { name: unique('Area') })
  const formId = await created('/office/v1/forms', token, { title: unique('Form'), fields: [{ key: 'q', label: 'Q', type: 'text' }] })
  const principalId = await created('/office/v1/principals', token, { name: unique('Principal') })
  const projectId = await created('/office/v1/projects', token, {
    name: unique('Project'),
    principal_id: principalId,
    forms: [{ form_id: formId, is_required: false }],
  })
  await created('/office/v1/products', token, { name: unique('Product'), sku: unique('SKU'), principal_id: principalId })
  const outletIds = [
    await created('/office/v1/outlets', token, { name: unique('Outlet'), account_id: accountId, sub_area_id: subAreaId }),
    await created('/office/v1/outlets', token, { name: unique('Outlet'), account_id: accountId }),
  ]
  return { ws, field, other, groupId, channelId, accountId, subAreaId, formId, projectId, principalId, outletIds }
}

const visitFor = (f: Fixture, userIds: number[], outlet = 0) =>
  created('/office/v1/visits', f.ws.owner.token, { outlet_id: f.outletIds[outlet], project_id: f.projectId, visit_date: '2026-11-23', user_ids: userIds })

let f: Fixture

beforeAll(async () => {
  f = await fixture()
})

describe('GET /app/v1/sync: a first sync and incremental ones', () => {
  test('a first sync brings every synced entity as its detail route answers it, and the field user’s own visits with their submissions only', async () => {
    const mine = await visitFor(f, [f.field.user.id])
    const theirs = await visitFor(f, [f.other.user.id])
    const replica: Replica = new Map()
    await sync(f.field.token, replica)
    expect(sorted(replica)).toEqual(sorted(await phoneState(f.field)))
    const entities = new Set([...replica.keys()].map((key) => key.split(':')[0]))
    expect([...entities].sort()).toEqual(Object.keys(TABLES).sort())
    expect(replica.has(`visit:${mine}`)).toBe(true)
    expect(replica.has(`visit:${theirs}`)).toBe(false)
  })

  test('updates, soft deletes and hard deletes of every entity arrive as upserts and deletes, each once', async () => {
    const replica: Replica = new Map()
    const { cursor } = await sync(f.field.token, replica)
    const token = f.ws.owner.token
    const area = await created('/office/v1/outlets/sub-areas', token, { name: unique('Area') })
    expect((await t.app.put(`/office/v1/outlets/accounts/${f.accountId}`, { name: unique('Renamed') }, { token })).status).toBe(200)
    expect((await t.app.delete(`/office/v1/outlets/sub-areas/${area}`, { token })).status).toBe(200)
    const form = await created('/office/v1/forms', token, { title: unique('Form'), fields: [{ key: 'q', label: 'Q', type: 'text' }] })
    // A hard delete (direct SQL: the change log is written by triggers, whoever writes).
    await t.app.db.pragma(`DELETE FROM forms WHERE id = ${form}`)
    const { pages } = await sync(f.field.token, replica, cursor)
    const seen = pages.flat()
    expect(seen.find((c) => c.entity === 'sub_area' && c.id === area)).toEqual({ entity: 'sub_area', id: area, op: 'delete' })
    expect(seen.find((c) => c.entity === 'form' && c.id === form)).toEqual({ entity: 'form', id: form, op: 'delete' })
    // The renamed account's outlets show the new name inside them: they changed too.
    expect(
      seen
        .filter((c) => c.entity === 'outlet')
        .map((c) => c.id)
        .sort(),
    ).toEqual([...f.outletIds].sort())
    expect(sorted(replica)).toEqual(sorted(await phoneState(f.field)))
  })

  test('a visit taken away from the field user arrives once as a delete, with its submissions; given back, it returns', async () => {
    const visit = await visitFor(f, [f.field.user.id])
    const replica: Replica = new Map()
    const first = await sync(f.field.token, replica)
    const submissionIds = [...replica.keys()].filter((key) => key.startsWith('submission:')).length
    expect(submissionIds).toBeGreaterThan(0)
    expect((await t.app.post(`/office/v1/visits/${visit}/assign`, { user_ids: [f.other.user.id] }, { token: f.ws.owner.token })).status).toBe(200)
    const second = await sync(f.field.token, replica, first.cursor)
    const deletes = second.pages.flat().filter((c) => c.op === 'delete')
    expect(deletes.filter((c) => c.entity === 'visit')).toEqual([{ entity: 'visit', id: visit, op: 'delete' }])
    expect(deletes.some((c) => c.entity === 'submission')).toBe(true)
    expect(replica.has(`visit:${visit}`)).toBe(false)
    expect(sorted(replica)).toEqual(sorted(await phoneState(f.field)))
    // Nothing more: the tombstone is not shown again.
    expect((await sync(f.field.token, replica, second.cursor)).pages.flat()).toEqual([])
    expect((await t.app.post(`/office/v1/visits/${visit}/assign`, { user_ids: [f.field.user.id] }, { token: f.ws.owner.token })).status).toBe(200)
    await sync(f.field.token, replica, second.cursor)
    expect(replica.has(`visit:${visit}`)).toBe(true)
    expect(sorted(replica)).toEqual(sorted(await phoneState(f.field)))
  })

  test('another workspace’s changes never appear', async () => {
    const stranger = await fixture()
    await visitFor(stranger, [stranger.field.user.id])
    const replica: Replica = new Map()
    await sync(f.field.token, replica)
    const outlets = new Set(stranger.outletIds.map((id) => `outlet:${id}`))
    expect([...replica.keys()].some((key) => outlets.has(key))).toBe(false)
    for (const data of replica.values()) expect((data as { workspace_id?: number }).workspace_id ?? f.ws.id).toBe(f.ws.id)
  })

  test('the same cursor gives the same answer; a page never repeats an entity; has_more pages through everything at small limits', async () => {
    const base: Replica = new Map()
    const { cursor } = await sync(f.field.token, base)
    await created('/office/v1/outlets/sub-areas', f.ws.owner.token, { name: unique('Area') })
    const once = await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: f.field.token })
    const again = await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: f.field.token })
    expect(again.body).toEqual(once.body)
    const small: Replica = new Map()
    await sync(f.field.token, small, undefined, 1)
    expect(sorted(small)).toEqual(sorted(await phoneState(f.field)))
  })
})

describe('GET /app/v1/sync: bad cursors and limits', () => {
  test('malformed, foreign and unknown cursors are 400 VALIDATION_ERROR with errors.cursor, and change nothing', async () => {
    const other = await t.app.workspace()
    const otherUser = await t.app.member(other, 'user')
    const { cursor: foreign } = await sync(otherUser.token, new Map())
    // Sealed by the service itself, but for another user, or past anything the log ever issued.
    const own = decodeCursor(t.app.deps.sealer, (await sync(f.field.token, new Map())).cursor)!
    const bad = [
      'x',
      '!!!',
      'eyJ2IjoxfQ',
      Buffer.from('{"v":2,"w":1,"u":1,"s":0}').toString('base64url'),
      Buffer.from(JSON.stringify({ v: 1, w: f.ws.id, u: f.field.user.id, s: -1 })).toString('base64url'),
      Buffer.from(JSON.stringify({ v: 1, w: f.ws.id, u: f.field.user.id, s: 1, x: 1 })).toString('base64url'),
      foreign,
      encodeCursor(t.app.deps.sealer, { ...own, userId: f.other.user.id, seq: 1 }),
      encodeCursor(t.app.deps.sealer, { ...own, seq: 10 ** 12 }),
      ...fc.sample(fc.string({ minLength: 1, maxLength: 60 }), 40),
    ]
    for (const cursor of bad) {
      const reply = await t.app.get(`/app/v1/sync?cursor=${encodeURIComponent(cursor)}`, { token: f.field.token })
      const errors = expectError(reply, 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['cursor'])
    }
  })

  test('limit: default 500, above 1000 clamped, below 1 or not a number 400', async () => {
    expectError(await t.app.get('/app/v1/sync?limit=0', { token: f.field.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.get('/app/v1/sync?limit=abc', { token: f.field.token }), 400, 'VALIDATION_ERROR')
    expect((await t.app.get('/app/v1/sync?limit=100000', { token: f.field.token })).status).toBe(200)
    expectError(await t.app.get('/app/v1/sync'), 401, 'UNAUTHORIZED')
  })

  test('a cursor older than the kept tombstones (30 days) is refused and the phone starts over', async () => {
    const replica: Replica = new Map()
    const { cursor } = await sync(f.field.token, replica)
    const area = await created('/office/v1/outlets/sub-areas', f.ws.owner.token, { name: unique('Area') })
    await t.app.delete(`/office/v1/outlets/sub-areas/${area}`, { token: f.ws.owner.token })
    await t.app.db.pragma(`UPDATE changes SET created_at = '2000-01-01T00:00:00.000Z' WHERE entity = 'sub_area' AND entity_id = ${area}`)
    expect((await purgeOldTombstones(t.app.deps)).removed).toBeGreaterThan(0)
    const errors = expectError(await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: f.field.token }), 400, 'VALIDATION_ERROR')
    expect(String(errors.cursor)).toContain('without a cursor')
    const fresh: Replica = new Map()
    const { cursor: next } = await sync(f.field.token, fresh)
    expect(sorted(fresh)).toEqual(sorted(await phoneState(f.field)))
    expect((await t.app.get(`/app/v1/sync?cursor=${next}`, { token: f.field.token })).status).toBe(200)
  })
})

describe('tombstone retention in windows', () => {
  test('old tombstones across several windows and a gap in the sequence are all removed, live rows kept, the horizon at the highest removed', async () => {
    const ws = await t.app.workspace(unique('W'))
    const old = '2000-01-01T00:00:00.000Z'
    const count = 2 * TOMBSTONE_WINDOW + 5
    // Old tombstones, an old live row among them, then one more far above (updates leave such gaps).
    await t.app.db.pragma(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
       INSERT INTO changes (workspace_id, entity, entity_id, op, created_at) SELECT ${ws.id}, 'sub_area', 1000000 + i, 'delete', '${old}' FROM n`,
    )
    await t.app.db.pragma(`INSERT INTO changes (workspace_id, entity, entity_id, op, created_at) VALUES (${ws.id}, 'outlet', 1, 'upsert', '${old}')`)
    const [{ top }] = await t.app.db.pragma('SELECT max(seq) AS top FROM changes')
    const far = Number(top) + 50 * TOMBSTONE_WINDOW
    await t.app.db.pragma(
      `INSERT INTO changes (seq, workspace_id, entity, entity_id, op, created_at) VALUES (${far}, ${ws.id}, 'sub_area', 1, 'delete', '${old}')`,
    )

    expect((await purgeOldTombstones(t.app.deps)).removed).toBeGreaterThanOrEqual(count + 1)
    const [{ left }] = await t.app.db.pragma(`SELECT count(*) AS left FROM changes WHERE workspace_id = ${ws.id} AND op = 'delete'`)
    expect(Number(left)).toBe(0)
    const [{ live }] = await t.app.db.pragma(`SELECT count(*) AS live FROM changes WHERE workspace_id = ${ws.id} AND op = 'upsert' AND entity = 'outlet'`)
    expect(Number(live)).toBe(1)
    const [{ seq }] = await t.app.db.pragma(`SELECT seq FROM change_horizons WHERE workspace_id = ${ws.id}`)
    expect(Number(seq)).toBe(far)
    expect((await purgeOldTombstones(t.app.deps)).removed).toBe(0)
  })
})

describe('GET /app/v1/sync under concurrent writes', () => {
  test('writers and a paging client interleaved: nothing committed before a request is missed, and the replica ends equal to the state', async () => {
    const g = await fixture()
    const token = g.ws.owner.token
    const replica: Replica = new Map()
    let { cursor } = await sync(g.field.token, replica, undefined, 3)
    const areas: number[] = []
    let writes = 0
    const writer = async (round: number) => {
      const area = await created('/office/v1/outlets/sub-areas', token, { name: unique(`Area${round}`) })
      areas.push(area)
      await t.app.put(`/office/v1/outlets/${g.outletIds[round % 2]}`, { address: unique('Street') }, { token })
      if (round % 3 === 0) await t.app.delete(`/office/v1/outlets/sub-areas/${area}`, { token })
      if (round % 4 === 0) await visitFor(g, [g.field.user.id], round % 2)
      writes += 1
    }
    for (let round = 0; round < 6; round++) {
      // 5 writers at once while the client pages through at limit 2.
      const committedBefore = await t.app.db.pragma(`SELECT max(seq) AS seq FROM changes WHERE workspace_id = ${g.ws.id}`)
      const [result] = await Promise.all([sync(g.field.token, replica, cursor, 2), ...[0, 1, 2, 3, 4].map((i) => writer(round * 5 + i))])
      cursor = result.cursor
      // Everything committed before this sync began is behind the cursor now.
      expect(decodeCursor(t.app.deps.sealer, cursor)!.seq).toBeGreaterThanOrEqual(Number(committedBefore[0].seq))
    }
    expect(writes).toBe(30)
    await sync(g.field.token, replica, cursor, 2)
    expect(sorted(replica)).toEqual(sorted(await phoneState(g.field)))
  })

  test('property: any sequence of writes and syncs at any limit leaves the replica equal to the state', async () => {
    const g = await fixture()
    const token = g.ws.owner.token
    const live: number[] = []
    const op = fc.oneof(
      fc.record({ kind: fc.constant('create' as const) }),
      fc.record({ kind: fc.constant('rename' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('visit' as const), mine: fc.boolean() }),
      fc.record({ kind: fc.constant('reassign' as const), toMe: fc.boolean() }),
      fc.record({ kind: fc.constant('sync' as const), limit: fc.integer({ min: 1, max: 7 }) }),
    )
    const visits: number[] = []
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const replica: Replica = new Map()
        let { cursor } = await sync(g.field.token, replica, undefined, 5)
        for (const step of ops) {
          if (step.kind === 'create') live.push(await created('/office/v1/outlets/sub-areas', token, { name: unique('Area') }))
          else if (step.kind === 'rename' && live.length)
            await t.app.put(`/office/v1/outlets/sub-areas/${live[step.pick % live.length]}`, { name: unique('Name') }, { token })
          else if (step.kind === 'delete' && live.length)
            await t.app.delete(`/office/v1/outlets/sub-areas/${live.splice(step.pick % live.length, 1)[0]}`, { token })
          else if (step.kind === 'visit') visits.push(await visitFor(g, [step.mine ? g.field.user.id : g.other.user.id]))
          else if (step.kind === 'reassign' && visits.length)
            await t.app.post(`/office/v1/visits/${visits[visits.length - 1]}/assign`, { user_ids: [step.toMe ? g.field.user.id : g.other.user.id] }, { token })
          else if (step.kind === 'sync') cursor = (await sync(g.field.token, replica, cursor, step.limit)).cursor
        }
        await sync(g.field.token, replica, cursor, 3)
        expect(sorted(replica)).toEqual(sorted(await phoneState(g.field)))
      }),
      { numRuns: 8 },
    )
  })
})

describe('GET /office/v1/changes', () => {
  test('every business entity of the workspace, filtered by entity; users, teams, roles and attendance too', async () => {
    const replica: Replica = new Map()
    await follow('/office/v1/changes', f.ws.owner.token, replica)
    const entities = new Set([...replica.keys()].map((key) => key.split(':')[0]))
    for (const entity of ['user', 'role', 'outlet', 'visit', 'submission', 'channel_group']) expect(entities.has(entity)).toBe(true)
    const users = await t.app.get(`/office/v1/users/${f.field.user.id}`, { token: f.ws.owner.token })
    expect(replica.get(`user:${f.field.user.id}`)).toEqual(users.body.data)
    const filtered = await t.app.get('/office/v1/changes?entity=outlet&limit=1000', { token: f.ws.owner.token })
    expect(new Set(filtered.body.data.changes.map((c: Change) => c.entity))).toEqual(new Set(['outlet']))
    expectError(await t.app.get('/office/v1/changes?entity=nonsense', { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')
  })

  test('needs audit_log.view on web: a field user gets 403; a phone cursor is not an office cursor', async () => {
    expectError(await t.app.get('/office/v1/changes', { token: f.field.token }), 403, 'FORBIDDEN')
    const { cursor } = await sync(f.field.token, new Map())
    expectError(await t.app.get(`/office/v1/changes?cursor=${cursor}`, { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')
  })

  test('over a real socket', async () => {
    const server = Bun.serve({ port: 0, fetch: (request) => t.app.app.handle(request) })
    try {
      const reply = await fetch(`http://localhost:${server.port}/api/app/v1/sync?limit=2`, { headers: { authorization: `Bearer ${f.field.token}` } })
      expect(reply.status).toBe(200)
      const body = (await reply.json()) as { data: { has_more: boolean; changes: unknown[] } }
      expect(body.data.changes.length).toBeLessThanOrEqual(2)
      expect(body.data.has_more).toBe(true)
    } finally {
      server.stop(true)
    }
  })
})

describe('updated_since on every office list', () => {
  /** Reference lists without row timestamps (fixed catalogues): updated_since is accepted and has nothing to filter. */
  const WITHOUT_TIMESTAMPS = [/\/regional\//, /\/permissions$/]
  /** Lists whose required query parameters the walk supplies. */
  const REQUIRED: Record<string, string> = {}

  test('each list accepts it, keeps rows updated at or after it and drops older ones; a bad value is 400', async () => {
    const lists = t.app.app.routes.filter((route) => {
      if (route.method !== 'GET' || !route.path.startsWith('/api/office/v1/') || route.path.includes(':')) return false
      const response = (route.hooks as { response?: Record<number, { properties?: Record<string, unknown> }> }).response?.[200]
      const data = response?.properties?.data as { properties?: Record<string, unknown>; type?: string } | undefined
      return response?.properties?.meta !== undefined || data?.properties?.meta !== undefined
    })
    expect(lists.length).toBeGreaterThan(20)
    // Something in every list: a notification, an export job, a ping, an attendance.
    await t.app.post(
      '/office/v1/attendances',
      { user_id: f.field.user.id, date: '2026-11-20', check_in_at: '2026-11-20T01:00:00.000Z' },
      { token: f.ws.owner.token },
    )
    await t.app.get('/office/v1/export/submissions/csv', { token: f.ws.owner.token })
    await t.app.post('/app/v1/locations/batch', { pings: [{ lat: 1, lng: 1, is_mock: false }] }, { token: f.field.token, idempotencyKey: unique('k') })
    const future = new Date(Date.now() + 10 * 365 * 86_400_000).toISOString()
    const past = '2000-01-01T00:00:00Z'
    const checked: string[] = []
    for (const route of lists) {
      const path = route.path.replace(/^\/api/, '')
      const extra = REQUIRED[path] ? `&${REQUIRED[path]}` : ''
      const total = (reply: { body: any }) => reply.body.meta?.total ?? reply.body.data?.meta?.total
      const all = await t.app.get(`${path}?limit=100${extra}`, { token: f.ws.owner.token })
      if (all.status !== 200) continue // needs a parent id (regional children)
      const since = await t.app.get(`${path}?limit=100&updated_since=${past}${extra}`, { token: f.ws.owner.token })
      const later = await t.app.get(`${path}?limit=100&updated_since=${future}${extra}`, { token: f.ws.owner.token })
      expect({ path, status: since.status }).toEqual({ path, status: 200 })
      expect({ path, total: total(since) }).toEqual({ path, total: total(all) })
      if (WITHOUT_TIMESTAMPS.some((pattern) => pattern.test(path))) continue
      expect({ path, total: total(later) }).toEqual({ path, total: 0 })
      expectError(await t.app.get(`${path}?updated_since=yesterday${extra}`, { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')
      checked.push(path)
    }
    expect(checked).toContain('/office/v1/outlets')
    expect(checked).toContain('/office/v1/visits')
    expect(checked).toContain('/office/v1/audit-logs')
  })

  test('rows updated at or after the instant are kept, earlier ones left out', async () => {
    const id = await created('/office/v1/outlets/sub-areas', f.ws.owner.token, { name: unique('Area') })
    const [row] = await t.app.db.pragma(`SELECT updated_at FROM sub_areas WHERE id = ${id}`)
    const at = String(row.updated_at)
    const same = await t.app.get(`/office/v1/outlets/sub-areas?limit=100&updated_since=${at}`, { token: f.ws.owner.token })
    expect(same.body.data.map((area: { id: number }) => area.id)).toContain(id)
    const after = new Date(Date.parse(at) + 1).toISOString()
    const later = await t.app.get(`/office/v1/outlets/sub-areas?limit=100&updated_since=${after}`, { token: f.ws.owner.token })
    expect(later.body.data.map((area: { id: number }) => area.id)).not.toContain(id)
  })
})

describe("the phone feed's statement", () => {
  // Ten outlets changed list their ~100 visits; each visit row is probed for the caller. In the primary key
  // (visit_id, user_id) one user's visits lie across the whole index: a leaf page per probe after a write.
  for (const driver of ['bun-sqlite', 'libsql'] as const) {
    test(`probes a visit row in the caller's own range of the assignees' index (${driver})`, async () => {
      await withDatabase(driver, async (db) => {
        const { sql } = phoneRows(db.read).getQuery()
        const plan = (await db.pragma(`explain query plan ${sql.replaceAll('?', '1')}`)).map((row) => String(row.detail)).join('\n')
        expect(plan).toContain('SEARCH visit_assignees USING COVERING INDEX visit_assignees_workspace_user_visit (workspace_id=? AND user_id=? AND visit_id=?)')
        expect(plan).not.toContain('sqlite_autoindex_visit_assignees_1')
        expect(plan).not.toContain('SCAN changes')
      })
    })
  }
})

describe('on the libSQL driver', () => {
  const l = useTestApp({ driver: 'libsql' })

  test('the triggers write the change log there too: an upsert, then a delete from the cursor', async () => {
    const ws = await l.app.workspace()
    const field = await l.app.member(ws, 'user')
    const id = (await l.app.post('/office/v1/outlets/sub-areas', { name: unique('Area') }, { token: ws.owner.token })).body.data.id
    const first = await l.app.get('/app/v1/sync', { token: field.token })
    expect(first.body.data.changes.some((c: Change) => c.entity === 'sub_area' && c.id === id && c.op === 'upsert')).toBe(true)
    await l.app.delete(`/office/v1/outlets/sub-areas/${id}`, { token: ws.owner.token })
    const next = await l.app.get(`/app/v1/sync?cursor=${first.body.data.cursor}`, { token: field.token })
    expect(next.body.data.changes).toEqual([{ entity: 'sub_area', id, op: 'delete' }])
  })

  test('a visit taken away there tombstones its hard-deleted submissions too (migration 0018), and cursors are sealed', async () => {
    const ws = await l.app.workspace()
    const [field, other] = [await l.app.member(ws, 'user'), await l.app.member(ws, 'user')]
    const token = ws.owner.token
    const account = await make.newAccount(l.app, token)
    const outlet = await make.newOutlet(l.app, token, { account_id: account.id })
    const principal = await make.newPrincipal(l.app, token)
    const [formA, formB] = [await make.newForm(l.app, token), await make.newForm(l.app, token)]
    const project = await make.newProject(l.app, token, { principal_id: principal.id, forms: [{ form_id: formA.id, is_required: false }] })
    const visit = await make.created(
      l.app,
      '/office/v1/visits',
      {
        outlet_id: outlet.id,
        project_id: project.id,
        visit_date: '2026-11-23',
        user_ids: [field.user.id],
        submissions: [
          { form_id: formA.id, is_required: false },
          { form_id: formB.id, is_required: false },
        ],
      },
      token,
    )
    const first = await l.app.get('/app/v1/sync', { token: field.token })
    const held = (first.body.data.changes as Change[]).filter((c) => c.entity === 'submission').map((c) => c.id)
    expect(held.length).toBe(2)
    // A hard delete this time (direct SQL; the office route soft-deletes, as the test above does).
    await l.app.db.pragma(`DELETE FROM submissions WHERE id = ${held[1]}`)
    await l.app.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [other.user.id] }, { token })
    const forged = Buffer.from(JSON.stringify({ v: 1, w: ws.id, u: field.user.id, s: 0 })).toString('base64url')
    expectError(await l.app.get(`/app/v1/sync?cursor=${forged}`, { token: field.token }), 400, 'VALIDATION_ERROR')
    const next = await l.app.get(`/app/v1/sync?cursor=${first.body.data.cursor}`, { token: field.token })
    const gone = (next.body.data.changes as Change[]).filter((c) => c.op === 'delete' && c.entity === 'submission').map((c) => c.id)
    expect(gone.sort((a, b) => a - b)).toEqual([...held].sort((a, b) => a - b))
  })
})

const grantsVersionOf = (session: Session) => (session.user as { grants_version?: string }).grants_version

/** The phone grants of the built-in `user` role, minus `drop` (a custom role for permission changes). */
const FIELD_GRANTS = (drop: string[] = []) =>
  [
    'channel_group.view',
    'channel.view',
    'account.view',
    'sub_area.view',
    'outlet.view',
    'form.view',
    'project.view',
    'product.view',
    'principal.view',
    'price_list.view',
    'visit:view',
    'sales_order:view',
  ]
    .filter((key) => !drop.includes(key))
    .map((key) => ({ key, platform: 'mobile' as const, access: 'view' as const }))

describe('GET /app/v1/sync: a visit taken away tombstones every submission the phone may hold (#24.1)', () => {
  test('a submission deleted before the visit was reassigned is tombstoned with the others, and nothing stays on the phone', async () => {
    const token = f.ws.owner.token
    const secondForm = await created('/office/v1/forms', token, { title: unique('Form'), fields: [{ key: 'q', label: 'Q', type: 'text' }] })
    const visit = await created('/office/v1/visits', token, {
      outlet_id: f.outletIds[0],
      project_id: f.projectId,
      visit_date: '2026-11-23',
      user_ids: [f.field.user.id],
      submissions: [
        { form_id: f.formId, is_required: false },
        { form_id: secondForm, is_required: false },
      ],
    })
    const replica: Replica = new Map()
    const { cursor } = await sync(f.field.token, replica)
    const held = [...replica.entries()]
      .filter(([key, data]) => key.startsWith('submission:') && (data as { visit_id: number }).visit_id === visit)
      .map(([key]) => Number(key.split(':')[1]))
      .sort((a, b) => a - b)
    expect(held.length).toBe(2)
    expect((await t.app.delete(`/office/v1/visits/${visit}/submissions/${held[1]}`, { token })).status).toBe(200)
    expect((await t.app.post(`/office/v1/visits/${visit}/assign`, { user_ids: [f.other.user.id] }, { token })).status).toBe(200)
    const { pages } = await sync(f.field.token, replica, cursor)
    const deletes = pages
      .flat()
      .filter((change) => change.op === 'delete' && change.entity === 'submission')
      .map((change) => change.id)
    expect(deletes.filter((id) => held.includes(id)).sort((a, b) => a - b)).toEqual(held)
    expect([...replica.keys()].filter((key) => held.some((id) => key === `submission:${id}`))).toEqual([])
    expect(sorted(replica)).toEqual(sorted(await phoneState(f.field)))
  })
})

describe('GET /app/v1/sync: a change of what the caller may view refuses the cursor (#24.2)', () => {
  test('losing outlet.view (role changed, then the role edited) refuses the old cursor; a fresh sync has no outlets; the grant back refuses again and re-sends', async () => {
    const owner = f.ws.owner.token
    const full = (await t.app.post('/office/v1/roles', { name: unique('Field'), permissions: FIELD_GRANTS() }, { token: owner })).body.data.id as number
    const less = (await t.app.post('/office/v1/roles', { name: unique('Field'), permissions: FIELD_GRANTS(['outlet.view']) }, { token: owner })).body.data
      .id as number
    const phone = await t.app.member(f.ws, full)
    const before = (await t.app.get('/app/v1/profile', { token: phone.token })).body.data.grants_version
    expect(typeof before).toBe('string')
    expect(grantsVersionOf(phone)).toBe(before)
    const replica: Replica = new Map()
    const { cursor } = await sync(phone.token, replica)
    expect([...replica.keys()].some((key) => key.startsWith('outlet:'))).toBe(true)

    // The role changes: outlets may no longer be viewed.
    expect((await t.app.put(`/office/v1/users/${phone.user.id}`, { role_id: less }, { token: owner })).status).toBe(200)
    expectError(await t.app.get('/app/v1/outlets', { token: phone.token }), 403, 'FORBIDDEN')
    const refused = expectError(await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: phone.token }), 400, 'VALIDATION_ERROR')
    expect(String(refused.cursor)).toContain('permissions changed')
    const after = (await t.app.get('/app/v1/profile', { token: phone.token })).body.data.grants_version
    expect(after).not.toBe(before)
    const fresh: Replica = new Map()
    const { cursor: lessCursor } = await sync(phone.token, fresh)
    expect([...fresh.keys()].some((key) => key.startsWith('outlet:'))).toBe(false)

    // Meanwhile an outlet is renamed; then the role itself is edited to grant outlets back.
    const name = unique('Renamed outlet')
    expect((await t.app.put(`/office/v1/outlets/${f.outletIds[1]}`, { name }, { token: owner })).status).toBe(200)
    expect((await t.app.put(`/office/v1/roles/${less}`, { permissions: FIELD_GRANTS() }, { token: owner })).status).toBe(200)
    expect((await t.app.get('/app/v1/profile', { token: phone.token })).body.data.grants_version).toBe(before)
    expectError(await t.app.get(`/app/v1/sync?cursor=${lessCursor}`, { token: phone.token }), 400, 'VALIDATION_ERROR')
    const again: Replica = new Map()
    await sync(phone.token, again)
    expect((again.get(`outlet:${f.outletIds[1]}`) as { name: string }).name).toBe(name)
    expect(sorted(again)).toEqual(sorted(await phoneState(phone)))
  })

  test('a change that does not touch what is synced keeps the cursor; login and profile agree on grants_version', async () => {
    const owner = f.ws.owner.token
    const role = (await t.app.post('/office/v1/roles', { name: unique('Field'), permissions: FIELD_GRANTS() }, { token: owner })).body.data.id as number
    const phone = await t.app.member(f.ws, role)
    const { cursor } = await sync(phone.token, new Map())
    const grants = [...FIELD_GRANTS(), { key: 'attendance:clock', platform: 'mobile', access: 'full' }]
    expect((await t.app.put(`/office/v1/roles/${role}`, { permissions: grants }, { token: owner })).status).toBe(200)
    expect((await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: phone.token })).status).toBe(200)
    const login = await t.app.login(phone.user.email)
    expect(grantsVersionOf(login)).toBe((await t.app.get('/app/v1/profile', { token: phone.token })).body.data.grants_version)
    // The same phone grants as the built-in field role: the same version.
    expect(grantsVersionOf(login)).toBe(grantsVersionOf(f.field))
    // Register answers it as login does (the owner's, read after the registering transaction).
    expect(grantsVersionOf(f.ws.owner)).toBe(grantsVersionOf(await t.app.login(f.ws.owner.user.email)))
    // It names what is synced, not the role: the owner may view every synced entity, as a field user may.
    expect(grantsVersionOf(f.ws.owner)).toBe(grantsVersionOf(f.field))
  })
})

describe('GET /app/v1/sync: a first sync sends no tombstones until it reaches the head it started from (#24.3)', () => {
  test('120 rows created and 100 deleted: a first sync at limit 50 sends only the 20 live ones, with no deletes in any page', async () => {
    const ws = await t.app.workspace()
    const phone = await t.app.member(ws, 'user')
    const ids: number[] = []
    for (let i = 0; i < 120; i++) ids.push(await created('/office/v1/outlets/sub-areas', ws.owner.token, { name: unique('Area') }))
    for (const id of ids.slice(0, 100)) expect((await t.app.delete(`/office/v1/outlets/sub-areas/${id}`, { token: ws.owner.token })).status).toBe(200)
    const replica: Replica = new Map()
    const { pages } = await sync(phone.token, replica, undefined, 50)
    expect(pages.flat().filter((change) => change.op === 'delete')).toEqual([])
    expect(pages.length).toBe(1)
    expect(pages[0].filter((change) => change.entity === 'sub_area').length).toBe(20)
    expect(sorted(replica)).toEqual(sorted(await phoneState(phone)))
  })

  test('a row sent in the first page and deleted before a later one is tombstoned; one never sent is not, before the head', async () => {
    const ws = await t.app.workspace()
    const phone = await t.app.member(ws, 'user')
    const ids: number[] = []
    for (let i = 0; i < 6; i++) ids.push(await created('/office/v1/outlets/sub-areas', ws.owner.token, { name: unique('Area') }))
    // Deleted before the sync starts: never sent, never tombstoned.
    for (const id of ids.slice(0, 2)) await t.app.delete(`/office/v1/outlets/sub-areas/${id}`, { token: ws.owner.token })
    const replica: Replica = new Map()
    const first = await t.app.get('/app/v1/sync?limit=2', { token: phone.token })
    const sent = (first.body.data.changes as Change[]).map((change) => change.id)
    expect(sent).toEqual(ids.slice(2, 4))
    for (const change of first.body.data.changes as Change[]) replica.set(`${change.entity}:${change.id}`, change.data)
    // The first sent row is deleted now, while the sync is under way.
    await t.app.delete(`/office/v1/outlets/sub-areas/${ids[2]}`, { token: ws.owner.token })
    const { pages } = await sync(phone.token, replica, first.body.data.cursor, 1)
    const deletes = pages.flat().filter((change) => change.op === 'delete')
    expect(deletes).toEqual([{ entity: 'sub_area', id: ids[2], op: 'delete' }])
    expect(sorted(replica)).toEqual(sorted(await phoneState(phone)))
  })
})

describe('a first sync under concurrent writes (#24.3)', () => {
  test('paging from scratch while rows are created and deleted: no tombstone for a row deleted before it began, and the replica ends equal to the state', async () => {
    const ws = await t.app.workspace()
    const phone = await t.app.member(ws, 'user')
    const token = ws.owner.token
    const ids: number[] = []
    for (let i = 0; i < 12; i++) ids.push(await created('/office/v1/outlets/sub-areas', token, { name: unique('Area') }))
    const goneBefore = ids.slice(0, 6)
    for (const id of goneBefore) await t.app.delete(`/office/v1/outlets/sub-areas/${id}`, { token })
    const live = ids.slice(6)
    const writer = async (round: number) => {
      const area = await created('/office/v1/outlets/sub-areas', token, { name: unique(`Area${round}`) })
      if (round % 2 === 0) await t.app.delete(`/office/v1/outlets/sub-areas/${area}`, { token })
      if (round < live.length) await t.app.delete(`/office/v1/outlets/sub-areas/${live[round]}`, { token })
    }
    const replica: Replica = new Map()
    const [first] = await Promise.all([sync(phone.token, replica, undefined, 2), ...[0, 1, 2, 3, 4].map(writer)])
    const deleted = first.pages.flat().filter((change) => change.op === 'delete')
    expect(deleted.filter((change) => goneBefore.includes(change.id))).toEqual([])
    await sync(phone.token, replica, first.cursor, 2)
    expect(sorted(replica)).toEqual(sorted(await phoneState(phone)))
  })
})

describe('updated_since misses derived changes and deletions: only the change feed converges (#24.4)', () => {
  test('the OpenAPI description of updated_since says so and points to /office/v1/changes', async () => {
    const doc = (await t.app.get('/docs/json')).body
    for (const path of ['/api/office/v1/outlets', '/api/office/v1/visits', '/api/office/v1/users']) {
      type Parameter = { name: string; description?: string; schema?: { description?: string }; $ref?: string }
      // A parameter many lists share is listed once under components.parameters and referred to.
      const resolved = (doc.paths[path].get.parameters as Parameter[]).map((candidate) =>
        candidate.$ref ? (doc.components.parameters[candidate.$ref.split('/').pop()!] as Parameter) : candidate,
      )
      const parameter = resolved.find((candidate) => candidate.name === 'updated_since')
      const description = String(parameter?.description ?? parameter?.schema?.description)
      expect(description).toContain('/office/v1/changes')
      expect(description).toContain('deleted')
    }
  })
})

describe('cursors are sealed (#23.6a)', () => {
  test('a cursor is not readable, and a forged or tampered one is 400 errors.cursor on both feeds', async () => {
    const { cursor } = await sync(f.field.token, new Map())
    expect(() => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toThrow()
    const forged = Buffer.from(JSON.stringify({ v: 1, w: f.ws.id, u: f.field.user.id, s: 1 })).toString('base64url')
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1)
    for (const bad of [forged, flip(cursor, 5), flip(cursor, cursor.length - 3)]) {
      const errors = expectError(await t.app.get(`/app/v1/sync?cursor=${bad}`, { token: f.field.token }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['cursor'])
    }
    const office = (await t.app.get('/office/v1/changes?limit=1', { token: f.ws.owner.token })).body.data.cursor as string
    const forgedOffice = Buffer.from(JSON.stringify({ v: 1, w: f.ws.id, u: 0, s: 1 })).toString('base64url')
    for (const bad of [forgedOffice, flip(office, 7)]) {
      expectError(await t.app.get(`/office/v1/changes?cursor=${bad}`, { token: f.ws.owner.token }), 400, 'VALIDATION_ERROR')
    }
  })

  test('another workspace’s writes change nothing in a caller’s answers: the same cursor, the same page', async () => {
    const ws = await t.app.workspace()
    const phone = await t.app.member(ws, 'user')
    const { cursor } = await sync(phone.token, new Map())
    const before = await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: phone.token })
    await created('/office/v1/outlets/sub-areas', f.ws.owner.token, { name: unique('Area') })
    const after = await t.app.get(`/app/v1/sync?cursor=${cursor}`, { token: phone.token })
    expect(after.body).toEqual(before.body)
    expect(after.body.data.cursor).toBe(cursor)
  })
})

describe('Sealer (src/lib/crypto.ts), which seals cursors', () => {
  const sealer = createSealer('a-secret-of-at-least-32-characters-long')
  test('opens what it sealed, the same text always gives the same token, distinct texts distinct tokens', () => {
    const token = sealer.seal('p', 'hello')
    expect(sealer.open('p', token)).toBe('hello')
    expect(sealer.seal('p', 'hello')).toBe(token)
    expect(sealer.seal('p', 'hellp')).not.toBe(token)
    expect(token).not.toContain('hello')
  })
  test('another purpose, another secret, any altered byte or a truncated token: null', () => {
    const token = sealer.seal('p', 'hello')
    expect(sealer.open('q', token)).toBeNull()
    expect(createSealer('another-secret-of-at-least-32-characters').open('p', token)).toBeNull()
    const raw = Buffer.from(token, 'base64url')
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw)
      altered[i] ^= 1
      expect(sealer.open('p', altered.toString('base64url'))).toBeNull()
    }
    expect(sealer.open('p', token.slice(0, -2))).toBeNull()
    expect(sealer.open('p', `${token}=`)).toBeNull()
    expect(sealer.open('p', '')).toBeNull()
  })
  test('what it remembers gives what the cipher gives: another process (nothing remembered) opens and seals alike; the memory stays bounded', () => {
    const small = createSealer('a-secret-of-at-least-32-characters-long', 4)
    const fresh = () => createSealer('a-secret-of-at-least-32-characters-long', 0)
    const texts = Array.from({ length: 10 }, (_, i) => `{"s":${i}}`)
    const tokens = texts.map((text) => small.seal('p', text))
    expect(small.memoized).toBe(4)
    for (const [i, token] of tokens.entries()) {
      expect(token).toBe(fresh().seal('p', texts[i]))
      // The last two are remembered (two entries each), the others opened by the cipher: the same text.
      expect(small.open('p', token)).toBe(texts[i])
      expect(fresh().open('p', token)).toBe(texts[i])
      expect(small.open('q', token)).toBeNull()
    }
    expect(small.memoized).toBe(4)
    expect(fresh().memoized).toBe(0)
    // A remembered token altered by one character is not remembered: the cipher refuses it.
    const last = tokens.at(-1)!
    expect(small.open('p', `${last.slice(0, -1)}${last.endsWith('A') ? 'B' : 'A'}`)).toBeNull()
  })
})

describe('GET /office/v1/changes carries only what the caller may view (#23.6e)', () => {
  test('audit_log.view alone: no entity at all, and entity=user is 403', async () => {
    const auditor = await t.app.memberWithGrants(f.ws, [{ key: 'audit_log.view', platform: 'web', access: 'view' }])
    const replica: Replica = new Map()
    await follow('/office/v1/changes', auditor.token, replica)
    expect([...replica.keys()]).toEqual([])
    for (const entity of ['user', 'attendance', 'role', 'outlet', 'visit']) {
      expectError(await t.app.get(`/office/v1/changes?entity=${entity}`, { token: auditor.token }), 403, 'FORBIDDEN')
    }
  })

  test('audit_log.view with outlet.view: outlets only; gaining user.view refuses the old cursor', async () => {
    const role = (
      await t.app.post(
        '/office/v1/roles',
        {
          name: unique('Integrator'),
          permissions: [
            { key: 'audit_log.view', platform: 'web', access: 'view' },
            { key: 'outlet.view', platform: 'web', access: 'view' },
          ],
        },
        { token: f.ws.owner.token },
      )
    ).body.data.id as number
    const integrator = await t.app.member(f.ws, role)
    const replica: Replica = new Map()
    const { cursor } = await follow('/office/v1/changes', integrator.token, replica)
    expect(new Set([...replica.keys()].map((key) => key.split(':')[0]))).toEqual(new Set(['outlet']))
    const grants = [
      { key: 'audit_log.view', platform: 'web', access: 'view' },
      { key: 'outlet.view', platform: 'web', access: 'view' },
      { key: 'user.view', platform: 'web', access: 'view' },
    ]
    expect((await t.app.put(`/office/v1/roles/${role}`, { permissions: grants }, { token: f.ws.owner.token })).status).toBe(200)
    expectError(await t.app.get(`/office/v1/changes?cursor=${cursor}`, { token: integrator.token }), 400, 'VALIDATION_ERROR')
  })
})
