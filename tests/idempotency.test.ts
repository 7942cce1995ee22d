/**
 * Idempotent mutations (docs/API.md §Idempotency): duplicates answer 204 without
 * running anything, keys are bound to one request fingerprint and one workspace, failures are not
 * remembered, records expire after 24 h, and the key, the mutation and its audit entry commit or roll
 * back together.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { channelGroups } from '../src/db/schema'
import { cleanupIdempotencyKeys } from '../src/jobs/idempotency-cleanup.job'
import { loadMember } from '../src/platform/actor'
import type { ManualClock } from '../src/lib/clock'
import type { Actor, RequestContext } from '../src/platform/context'
import type { IdempotencyClaim } from '../src/platform/data/idempotency'
import { MissingAuditEntry, withTransaction } from '../src/platform/data/transaction'
import { newChannelGroup } from './factories'
import { expectError, unique, useTestApp, type Reply, type Session, type Workspace } from './harness'

const t = useTestApp()
const clock = () => t.app.clock as ManualClock

const GROUPS = '/office/v1/outlets/channel-groups'
const CHANNELS = '/office/v1/outlets/channels'
const SUB_AREAS = '/office/v1/outlets/sub-areas'
const DAY_MS = 24 * 60 * 60 * 1000

let ws: Workspace
let admin: Session
/** A second admin of the same workspace. */
let colleague: Session
let other: Workspace

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  admin = await t.app.member(ws, 'admin')
  colleague = await t.app.member(ws, 'admin')
})

// ---------------------------------------------------------------------------------------------
// helpers

const key = () => randomUUID()
const sql = (text: string) => `'${text.replaceAll("'", "''")}'`

const groupsNamed = (name: string, workspaceId = ws.id) =>
  t.app.count('channel_groups', `workspace_id = ${workspaceId} AND name = ${sql(name)} AND deleted_at IS NULL`)
const channelsNamed = (name: string) => t.app.count('channels', `workspace_id = ${ws.id} AND name = ${sql(name)} AND deleted_at IS NULL`)
const entriesNamed = (name: string, action?: string) => t.app.count('audit_logs', `entity_name = ${sql(name)}${action ? ` AND action = ${sql(action)}` : ''}`)
const entriesOf = (type: string, id: number, action: string) =>
  t.app.count('audit_logs', `entity_type = ${sql(type)} AND entity_id = ${sql(String(id))} AND action = ${sql(action)}`)
const recordsFor = (k: string, workspaceId = ws.id) => t.app.db.pragma(`SELECT * FROM idempotency_keys WHERE workspace_id = ${workspaceId} AND key = ${sql(k)}`)
const recordCount = () => t.app.count('idempotency_keys')

function expectDuplicate(reply: Reply) {
  expect(reply.status).toBe(204)
  expect(reply.text).toBe('')
  expect(reply.headers.get('x-idempotency-code')).toBe('IDEMPOTENT_DUPLICATE')
  expect(reply.headers.get('cache-control')).toBe('no-store')
}

const newGroup = (token = admin.token, name = unique('Group')): Promise<{ id: number; name: string; updated_at: string }> =>
  newChannelGroup(t.app, token, { name })

/** Runs `fn` with the clock moved; puts it back afterwards so other tests' tokens stay valid. */
async function withClockMoved<T>(fn: () => Promise<T>): Promise<T> {
  const saved = clock().now()
  try {
    return await fn()
  } finally {
    clock().set(saved)
  }
}

// ---------------------------------------------------------------------------------------------

describe('a repeated key with a stored 2xx answers 204 and runs nothing', () => {
  test('POST repeated → 204, empty body, X-Idempotency-Code IDEMPOTENT_DUPLICATE, Cache-Control no-store; no second row or entry', async () => {
    const k = key()
    const name = unique('Once')
    const first = await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })
    expect(first.status).toBe(201)
    expect(first.body.code).toBe('CHANNEL_GROUP_CREATED')
    const audits = await t.app.count('audit_logs')

    for (let i = 0; i < 2; i++) expectDuplicate(await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k }))

    expect(await groupsNamed(name)).toBe(1)
    expect(await entriesNamed(name)).toBe(1)
    expect(await t.app.count('audit_logs')).toBe(audits)
    expect(await recordsFor(k)).toHaveLength(1)
  })

  test('POST repeated on a non-unique entity (channel) still creates one row only', async () => {
    const group = await newGroup()
    const k = key()
    const name = unique('Channel Once')
    const body = { name, channel_group_id: group.id }
    expect((await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    expectDuplicate(await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k }))
    expect(await channelsNamed(name)).toBe(1)
    expect(await entriesNamed(name, 'created')).toBe(1)
  })

  test('PUT repeated → 204; the update runs and is audited once', async () => {
    const group = await newGroup()
    const k = key()
    const renamed = unique('Renamed')
    const first = await t.app.put(`${GROUPS}/${group.id}`, { name: renamed }, { token: admin.token, idempotencyKey: k })
    expect(first.status).toBe(200)
    expect(first.body.code).toBe('CHANNEL_GROUP_UPDATED')
    const audits = await t.app.count('audit_logs')
    clock().advance(1000)

    expectDuplicate(await t.app.put(`${GROUPS}/${group.id}`, { name: renamed }, { token: admin.token, idempotencyKey: k }))

    expect(await entriesOf('channel_group', group.id, 'updated')).toBe(1)
    expect(await t.app.count('audit_logs')).toBe(audits)
    const shown = await t.app.get(`${GROUPS}/${group.id}`, { token: admin.token })
    expect(shown.body.data.updated_at).toBe(first.body.data.updated_at)
  })

  test('DELETE repeated → 204 (not 404); deleted and audited once', async () => {
    const group = await newGroup()
    const k = key()
    const first = await t.app.delete(`${GROUPS}/${group.id}`, { token: admin.token, idempotencyKey: k })
    expect(first.status).toBe(200)
    expect(first.body.code).toBe('CHANNEL_GROUP_DELETED')
    const audits = await t.app.count('audit_logs')

    expectDuplicate(await t.app.delete(`${GROUPS}/${group.id}`, { token: admin.token, idempotencyKey: k }))

    expect(await entriesOf('channel_group', group.id, 'deleted')).toBe(1)
    expect(await t.app.count('audit_logs')).toBe(audits)
    // Without the key the same DELETE really runs again, and finds nothing.
    expectError(await t.app.delete(`${GROUPS}/${group.id}`, { token: admin.token }), 404, 'CHANNEL_GROUP_NOT_FOUND')
  })

  test('the stored response_status is 201 for a create and 200 for an update and a delete', async () => {
    const createKey = key()
    const updateKey = key()
    const deleteKey = key()
    const created = await t.app.post(GROUPS, { name: unique('Status') }, { token: admin.token, idempotencyKey: createKey })
    expect(created.status).toBe(201)
    expect((await t.app.put(`${GROUPS}/${created.body.data.id}`, { name: unique('Status2') }, { token: admin.token, idempotencyKey: updateKey })).status).toBe(
      200,
    )
    expect((await t.app.delete(`${GROUPS}/${created.body.data.id}`, { token: admin.token, idempotencyKey: deleteKey })).status).toBe(200)

    const [createRecord] = await recordsFor(createKey)
    const [updateRecord] = await recordsFor(updateKey)
    const [deleteRecord] = await recordsFor(deleteKey)
    expect(Number(createRecord.response_status)).toBe(201)
    expect(Number(updateRecord.response_status)).toBe(200)
    expect(Number(deleteRecord.response_status)).toBe(200)
    expect(createRecord.workspace_id).toBe(ws.id)
    expect(createRecord.created_at).toBe(clock().now().toISOString())
  })
})

describe('concurrent requests with one key', () => {
  test('20 identical concurrent POSTs create one row and one entry; the rest answer 409 IDEMPOTENCY_KEY_IN_PROGRESS or 204, never 5xx', async () => {
    const k = key()
    const group = await newGroup()
    const name = unique('Concurrent')
    const body = { name, channel_group_id: group.id }
    const replies = await Promise.all(Array.from({ length: 20 }, () => t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k })))

    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    for (const reply of replies) {
      if (reply.status === 201) continue
      if (reply.status === 204) expectDuplicate(reply)
      else expectError(reply, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS')
    }
    expect(await channelsNamed(name)).toBe(1)
    expect(await entriesNamed(name)).toBe(1)
    expect(await recordsFor(k)).toHaveLength(1)
    // Once settled, a retry is a plain duplicate.
    expectDuplicate(await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k }))
  })

  /** Holds the (serialised) writer so requests that reached their transaction wait there. */
  function holdWriter() {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const held = t.app.db.transaction(async () => {
      await gate
    })
    return async () => {
      release()
      await held
    }
  }

  test('while the first request with a key is still running, the same request answers 409 IDEMPOTENCY_KEY_IN_PROGRESS and does not run', async () => {
    const group = await newGroup()
    const k = key()
    const name = unique('In Progress')
    const body = { name, channel_group_id: group.id }

    const releaseWriter = holdWriter()
    const first = t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k })
    await Bun.sleep(30) // the first request has claimed the key and waits for the writer
    const burst = await Promise.all(Array.from({ length: 19 }, () => t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k })))
    for (const reply of burst) expectError(reply, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS')
    // A different request with the running key is refused as a reuse, not queued.
    expectError(await t.app.post(CHANNELS, { ...body, name: unique('Other') }, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    await releaseWriter()

    expect((await first).status).toBe(201)
    expect(await channelsNamed(name)).toBe(1)
    expect(await entriesNamed(name)).toBe(1)
    const [record] = await recordsFor(k)
    expect(Number(record.response_status)).toBe(201)
    expectDuplicate(await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k }))
  })
})

describe('a key is bound to one request: same key, different request → 422 IDEMPOTENCY_KEY_REUSED', () => {
  test('same key with another body → 422 and no row; the stored record still answers 204', async () => {
    const k = key()
    const name = unique('First Body')
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    const otherName = unique('Other Body')
    expectError(await t.app.post(GROUPS, { name: otherName }, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await groupsNamed(otherName)).toBe(0)
    expect(await entriesNamed(otherName)).toBe(0)
    expectDuplicate(await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k }))
  })

  test('the body is compared byte for byte (same JSON, other spacing → 422)', async () => {
    const k = key()
    const name = unique('Spacing')
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    const spaced = await t.app.post(GROUPS, undefined, {
      token: admin.token,
      idempotencyKey: k,
      raw: `{ "name" : ${JSON.stringify(name)} }`,
      headers: { 'content-type': 'application/json' },
    })
    expectError(spaced, 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await groupsNamed(name)).toBe(1)
  })

  test('same key on another path → 422 and no row', async () => {
    const k = key()
    const name = unique('Path')
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    expectError(await t.app.post(SUB_AREAS, { name }, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await t.app.count('sub_areas', `name = ${sql(name)}`)).toBe(0)
    // The query string is part of the path.
    expectError(await t.app.post(`${GROUPS}?x=1`, { name }, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
  })

  test('same key with another method → 422 and nothing changes', async () => {
    const k = key()
    const group = await newGroup()
    const name = unique('Method')
    expect((await t.app.put(`${GROUPS}/${group.id}`, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(200)
    expectError(await t.app.delete(`${GROUPS}/${group.id}`, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expectError(await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await groupsNamed(name)).toBe(1)
    expect(await entriesOf('channel_group', group.id, 'deleted')).toBe(0)
  })

  test("another user of the same workspace cannot replay someone's key (422, no row) nor block it (the owner still gets 204)", async () => {
    const k = key()
    const group = await newGroup()
    const name = unique('Mine')
    const body = { name, channel_group_id: group.id }
    expect((await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    const [stored] = await recordsFor(k)

    expectError(await t.app.post(CHANNELS, body, { token: colleague.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await channelsNamed(name)).toBe(1)
    expect(await recordsFor(k)).toEqual([stored])
    expectDuplicate(await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k }))
  })

  test('a 422 or 409 answer never replaces the stored record', async () => {
    const k = key()
    const name = unique('Kept')
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    const before = await recordsFor(k)
    expectError(await t.app.post(GROUPS, { name: unique('Other') }, { token: admin.token, idempotencyKey: k }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expect(await recordsFor(k)).toEqual(before)
  })
})

describe('keys are scoped to the workspace', () => {
  test('the same key in another workspace is independent (201 there, still 204 here)', async () => {
    const k = key()
    const name = unique('Shared Key')
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)

    const there = await t.app.post(GROUPS, { name }, { token: other.owner.token, idempotencyKey: k })
    expect(there.status).toBe(201)
    expect(there.body.data.workspace_id).toBe(other.id)
    expect(await groupsNamed(name, other.id)).toBe(1)
    expect(await recordsFor(k, other.id)).toHaveLength(1)

    expectDuplicate(await t.app.post(GROUPS, { name }, { token: other.owner.token, idempotencyKey: k }))
    expectDuplicate(await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k }))
    expect(await groupsNamed(name)).toBe(1)
  })
})

describe('the key header is validated', () => {
  test('a key longer than 64 characters → 400 VALIDATION_ERROR with errors["x-idempotency-key"], nothing written', async () => {
    const name = unique('Long Key')
    const records = await recordCount()
    const errors = expectError(await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: 'k'.repeat(65) }), 400, 'VALIDATION_ERROR')
    expect(errors['x-idempotency-key']).toEqual(expect.arrayContaining([expect.any(String)]))
    expect(await groupsNamed(name)).toBe(0)
    expect(await recordCount()).toBe(records)
  })

  test('a key of exactly 64 characters is accepted', async () => {
    const k = `${randomUUID()}${randomUUID()}`.replaceAll('-', '').slice(0, 64)
    expect(k).toHaveLength(64)
    const name = unique('Max Key')
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    expect(await recordsFor(k)).toHaveLength(1)
  })

  test('an empty key → 400 VALIDATION_ERROR with errors["x-idempotency-key"], nothing written', async () => {
    const name = unique('Empty Key')
    const errors = expectError(await t.app.post(GROUPS, { name }, { token: admin.token, headers: { 'x-idempotency-key': '' } }), 400, 'VALIDATION_ERROR')
    expect(errors['x-idempotency-key']).toEqual(expect.arrayContaining([expect.any(String)]))
    expect(await groupsNamed(name)).toBe(0)
  })
})

describe('a failed first attempt is not remembered', () => {
  test('a 409 first attempt leaves no record; the retry runs again (409), and after fixing the conflict answers 201', async () => {
    const taken = await newGroup()
    const k = key()
    expectError(await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k }), 409, 'CHANNEL_GROUP_ALREADY_EXISTS')
    expect(await recordsFor(k)).toHaveLength(0)
    expectError(await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k }), 409, 'CHANNEL_GROUP_ALREADY_EXISTS')
    expect(await recordsFor(k)).toHaveLength(0)

    expect((await t.app.delete(`${GROUPS}/${taken.id}`, { token: admin.token })).status).toBe(200)
    const retry = await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k })
    expect(retry.status).toBe(201)
    expect(await groupsNamed(taken.name)).toBe(1)
    const [record] = await recordsFor(k)
    expect(Number(record.response_status)).toBe(201)
    expectDuplicate(await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k }))
  })

  test('a 400 first attempt leaves no record; the corrected retry with the same key answers 201', async () => {
    const k = key()
    const name = unique('Orphan')
    expectError(await t.app.post(CHANNELS, { name, channel_group_id: 999_999 }, { token: admin.token, idempotencyKey: k }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.post(GROUPS, { name: '   ' }, { token: admin.token, idempotencyKey: k }), 400, 'VALIDATION_ERROR')
    expect(await recordsFor(k)).toHaveLength(0)
    const group = await newGroup()
    const retry = await t.app.post(CHANNELS, { name, channel_group_id: group.id }, { token: admin.token, idempotencyKey: k })
    expect(retry.status).toBe(201)
    expect(await channelsNamed(name)).toBe(1)
  })

  test('a 404 first attempt leaves no record; the same request runs again', async () => {
    const k = key()
    expectError(await t.app.put(`${GROUPS}/999999`, { name: unique('Ghost') }, { token: admin.token, idempotencyKey: k }), 404, 'CHANNEL_GROUP_NOT_FOUND')
    expect(await recordsFor(k)).toHaveLength(0)
    expectError(await t.app.put(`${GROUPS}/999999`, { name: unique('Ghost') }, { token: admin.token, idempotencyKey: k }), 404, 'CHANNEL_GROUP_NOT_FOUND')
  })

  test('a 403 attempt leaves no record and blocks nobody', async () => {
    const manager = await t.app.member(ws, 'manager')
    const k = key()
    const name = unique('Forbidden')
    expectError(await t.app.post(GROUPS, { name }, { token: manager.token, idempotencyKey: k }), 403, 'FORBIDDEN')
    expect(await recordsFor(k)).toHaveLength(0)
    expect((await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
  })
})

describe('records expire after 24 hours', () => {
  test('a stored 2xx under 24 h old is a duplicate; older than 24 h the request runs again (201), even before the cleanup job', async () => {
    const group = await newGroup()
    const k = key()
    const name = unique('Expiring')
    const body = { name, channel_group_id: group.id }
    expect((await t.app.post(CHANNELS, body, { token: admin.token, idempotencyKey: k })).status).toBe(201)

    await withClockMoved(async () => {
      clock().advance(DAY_MS - 60_000)
      let session = await t.app.login(admin.user.email) // the old access token has expired by now
      expectDuplicate(await t.app.post(CHANNELS, body, { token: session.token, idempotencyKey: k }))
      expect(await channelsNamed(name)).toBe(1)

      clock().advance(61_000) // 24 h + 1 s after the first run
      session = await t.app.login(admin.user.email)
      expect(await recordsFor(k)).toHaveLength(1) // not cleaned up: expiry is decided at lookup
      const again = await t.app.post(CHANNELS, body, { token: session.token, idempotencyKey: k })
      expect(again.status).toBe(201)
      expect(await channelsNamed(name)).toBe(2)
      expect(await entriesNamed(name, 'created')).toBe(2)

      const records = await recordsFor(k)
      expect(records).toHaveLength(1)
      expect(records[0].created_at).toBe(clock().now().toISOString())
      expectDuplicate(await t.app.post(CHANNELS, body, { token: session.token, idempotencyKey: k }))
    })
  })

  test('an expired record no longer binds the key: another body with it runs (201)', async () => {
    const k = key()
    expect((await t.app.post(GROUPS, { name: unique('Old Use') }, { token: admin.token, idempotencyKey: k })).status).toBe(201)
    await withClockMoved(async () => {
      clock().advance(DAY_MS + 1000)
      const session = await t.app.login(admin.user.email)
      const name = unique('New Use')
      expect((await t.app.post(GROUPS, { name }, { token: session.token, idempotencyKey: k })).status).toBe(201)
      expect(await groupsNamed(name)).toBe(1)
    })
  })

  test('the cleanup job removes only records older than 24 hours', async () => {
    const now = clock().now().getTime()
    const ages: Record<string, number> = {
      [`cleanup-25h-${randomUUID()}`]: 25 * 60 * 60 * 1000,
      [`cleanup-24h1s-${randomUUID()}`]: DAY_MS + 1000,
      [`cleanup-23h59m-${randomUUID()}`]: DAY_MS - 60_000,
      [`cleanup-1m-${randomUUID()}`]: 60_000,
    }
    for (const [k, age] of Object.entries(ages)) {
      await t.app.db.pragma(
        `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, created_at) VALUES (${ws.id}, ${sql(k)}, 'f', 201, ${sql(new Date(now - age).toISOString())})`,
      )
    }
    const removed = await cleanupIdempotencyKeys(t.app.deps)
    expect(removed).toBeGreaterThanOrEqual(2)
    const [old25, old24, fresh23, fresh1] = Object.keys(ages)
    expect(await recordsFor(old25)).toHaveLength(0)
    expect(await recordsFor(old24)).toHaveLength(0)
    expect(await recordsFor(fresh23)).toHaveLength(1)
    expect(await recordsFor(fresh1)).toHaveLength(1)
    // Nothing left older than 24 h, and nothing fresh removed.
    const cutoff = new Date(now - DAY_MS).toISOString()
    expect(await t.app.count('idempotency_keys', `created_at < ${sql(cutoff)}`)).toBe(0)
    expect(await cleanupIdempotencyKeys(t.app.deps)).toBe(0)
  })

  test('the cleanup removes in batches, each its own short write transaction, until none is left', async () => {
    const now = clock().now().getTime()
    const old = new Date(now - 2 * DAY_MS).toISOString()
    const fresh = new Date(now - 60_000).toISOString()
    const values = Array.from({ length: 7 }, (_, i) => `(${ws.id}, ${sql(`batched-old-${i}-${randomUUID()}`)}, 'f', 201, ${sql(old)})`)
    values.push(`(${ws.id}, ${sql(`batched-fresh-${randomUUID()}`)}, 'f', 201, ${sql(fresh)})`)
    await t.app.db.pragma(`INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, created_at) VALUES ${values.join(', ')}`)
    const expiredBefore = await t.app.count('idempotency_keys', `created_at < ${sql(new Date(now - DAY_MS).toISOString())}`)
    expect(expiredBefore).toBeGreaterThanOrEqual(7)
    const deps = t.app.deps
    let transactions = 0
    const removed = await deps.idempotency.removeExpired((fn) => {
      transactions++
      return deps.db.transaction(fn)
    }, 3)
    expect(removed).toBe(expiredBefore)
    // ⌈n / 3⌉ full or partial batches, plus an empty one when n is a multiple of 3.
    expect(transactions).toBe(Math.floor(expiredBefore / 3) + 1)
    expect(await t.app.count('idempotency_keys', `created_at < ${sql(new Date(now - DAY_MS).toISOString())}`)).toBe(0)
    expect(await t.app.count('idempotency_keys', `key LIKE 'batched-fresh-%'`)).toBe(1)
  })
})

describe('requests without a key or without an authenticated user are processed normally', () => {
  test('without the header the same POST runs every time', async () => {
    const group = await newGroup()
    const name = unique('No Key')
    const records = await recordCount()
    for (let i = 0; i < 2; i++) {
      expect((await t.app.post(CHANNELS, { name, channel_group_id: group.id }, { token: admin.token })).status).toBe(201)
    }
    expect(await channelsNamed(name)).toBe(2)
    expect(await entriesNamed(name, 'created')).toBe(2)
    expect(await recordCount()).toBe(records)
  })

  test('an unauthenticated POST /auth/login with a key is processed each time and stores no record', async () => {
    const k = key()
    const records = await recordCount()
    const logins = () => t.app.count('audit_logs', `action = 'login' AND actor_id = ${colleague.user.id}`)
    const before = await logins()
    for (let i = 0; i < 2; i++) {
      const reply = await t.app.post('/auth/login', { email: colleague.user.email, password: 'password123' }, { idempotencyKey: k })
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe('LOGIN_SUCCESS')
    }
    expect(await logins()).toBe(before + 2)
    expect(await recordCount()).toBe(records)
  })
})

describe('the key, the mutation and its audit entry commit or roll back together', () => {
  let actor: Actor

  beforeAll(async () => {
    actor = (await loadMember(t.app.db.read, admin.user.id, ws.id))!
  })

  function contextWith(claim: IdempotencyClaim | null): RequestContext {
    return {
      deps: t.app.deps,
      meta: { requestId: `test-${randomUUID()}`, ip: null, userAgent: null, timestamp: clock().now().toISOString() },
      actor,
      idempotency: claim,
    }
  }

  const claimFor = (k: string): IdempotencyClaim => ({ workspaceId: ws.id, key: k, fingerprint: 'direct', successStatus: 201, recorded: false })

  async function insertGroup(tx: Parameters<Parameters<typeof withTransaction>[1]>[0]['tx'], name: string) {
    const now = clock().now().toISOString()
    const [row] = await tx
      .insert(channelGroups)
      .values({ workspace_id: ws.id, name, name_key: name.toLowerCase(), created_at: now, updated_at: now })
      .returning()
    return row
  }

  test('a throw after the audit entry rolls back the row, the entry and the idempotency record', async () => {
    const k = key()
    const name = unique('Rolled Back')
    await expect(
      withTransaction(contextWith(claimFor(k)), async ({ tx, audit }) => {
        const row = await insertGroup(tx, name)
        await audit({ entityType: 'channel_group', entityId: row.id, entityName: name, action: 'created', newValues: row })
        throw new Error('boom after audit')
      }),
    ).rejects.toThrow('boom after audit')

    expect(await t.app.count('channel_groups', `name = ${sql(name)}`)).toBe(0)
    expect(await entriesNamed(name)).toBe(0)
    expect(await recordsFor(k)).toHaveLength(0)

    // The key was never stored, so a request reusing it runs normally.
    const reply = await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })
    expect(reply.status).toBe(201)
    expect(await groupsNamed(name)).toBe(1)
  })

  test('a committed transaction stores the row, the entry and the record together', async () => {
    const k = key()
    const name = unique('Committed')
    await withTransaction(contextWith(claimFor(k)), async ({ tx, audit }) => {
      const row = await insertGroup(tx, name)
      await audit({ entityType: 'channel_group', entityId: row.id, entityName: name, action: 'created', newValues: row })
    })
    expect(await t.app.count('channel_groups', `name = ${sql(name)}`)).toBe(1)
    expect(await entriesNamed(name)).toBe(1)
    const [record] = await recordsFor(k)
    expect(Number(record.response_status)).toBe(201)
  })

  test("an authenticated actor's transaction that writes no audit entry is rejected (MissingAuditEntry) and leaves no row", async () => {
    const k = key()
    const name = unique('Unaudited')
    const attempt = withTransaction(contextWith(claimFor(k)), async ({ tx }) => {
      await insertGroup(tx, name)
    })
    await expect(attempt).rejects.toBeInstanceOf(MissingAuditEntry)
    expect(await t.app.count('channel_groups', `name = ${sql(name)}`)).toBe(0)
    expect(await entriesNamed(name)).toBe(0)
    expect(await recordsFor(k)).toHaveLength(0)
  })
})

describe('the replay of a request that created a resource names it in Location', () => {
  /** Creates with a key, replays, and returns the 201 body and the replay's Location. */
  async function createTwice(path: string, body: unknown, token = admin.token) {
    const k = key()
    const first = await t.app.post(path, body, { token, idempotencyKey: k })
    if (first.status !== 201) throw new Error(`create failed: ${first.status} ${first.text}`)
    const replay = await t.app.post(path, body, { token, idempotencyKey: k })
    expectDuplicate(replay)
    return { data: first.body.data, location: replay.headers.get('location'), key: k }
  }

  /** GET of a Location (which starts with /api) as the harness calls it. */
  const read = (location: string, token = admin.token) => t.app.get(location.replace(/^\/api/, ''), { token })

  let field: Session
  let outletId: number
  let projectId: number
  let formId: number
  beforeAll(async () => {
    field = await t.app.member(ws, 'user')
    const made = async (path: string, body: unknown) => {
      const reply = await t.app.post(path, body, { token: ws.owner.token })
      if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${reply.text}`)
      return reply.body.data.id as number
    }
    formId = await made('/office/v1/forms', { title: unique('Form'), fields: [{ key: 'note', label: 'Note', type: 'text' }] })
    outletId = await made('/office/v1/outlets', { name: unique('Outlet') })
    projectId = await made('/office/v1/projects', { name: unique('Project'), forms: [{ form_id: formId, is_required: false }] })
  })

  test('master data (channel group, channel) and an outlet: Location is its detail path, and GET of it answers that resource', async () => {
    const group = await createTwice(GROUPS, { name: unique('Located group') })
    expect(group.location).toBe(`/api/office/v1/outlets/channel-groups/${group.data.id}`)
    const channel = await createTwice(CHANNELS, { name: unique('Located channel'), channel_group_id: group.data.id })
    expect(channel.location).toBe(`/api/office/v1/outlets/channels/${channel.data.id}`)
    const outlet = await createTwice('/office/v1/outlets', { name: unique('Located outlet'), code: unique('LOC') })
    expect(outlet.location).toBe(`/api/office/v1/outlets/${outlet.data.id}`)
    for (const created of [group, channel, outlet]) {
      const reply = await read(created.location!)
      expect(reply.status).toBe(200)
      expect(reply.body.data).toEqual(created.data)
    }
  })

  test('a visit planned by the office, a self-visit on both mobile paths, and a submission added to a visit', async () => {
    const visit = await createTwice('/office/v1/visits', { outlet_id: outletId, project_id: projectId, visit_date: '2026-11-22', user_ids: [field.user.id] })
    expect(visit.location).toBe(`/api/office/v1/visits/${visit.data.id}`)
    expect((await read(visit.location!)).body.data.id).toBe(visit.data.id)

    const self = await createTwice('/app/v1/visits/self', { outlet_id: outletId, project_id: projectId }, field.token)
    expect(self.location).toBe(`/api/app/v1/visits/me/${self.data.id}`)
    const alias = await createTwice('/app/v1/outlet-visits', { outlet_id: outletId, project_id: projectId }, field.token)
    expect(alias.location).toBe(`/api/app/v1/outlet-visits/${alias.data.id}`)
    for (const created of [self, alias]) {
      const reply = await read(created.location!, field.token)
      expect(reply.status).toBe(200)
      expect(reply.body.data.id).toBe(created.data.id)
    }

    const submission = await createTwice(`/office/v1/visits/${visit.data.id}/submissions`, { form_id: formId })
    expect(submission.location).toBe(`/api/office/v1/visits/${visit.data.id}/submissions/${submission.data.id}`)
    expect((await read(submission.location!)).body.data.id).toBe(submission.data.id)
  })

  test('the path is stored with the key, in the record written by the creating transaction', async () => {
    const group = await createTwice(GROUPS, { name: unique('Stored location') })
    const [record] = await recordsFor(group.key)
    expect(record.location).toBe(`/api/office/v1/outlets/channel-groups/${group.data.id}`)
  })

  test('replays of requests that created nothing, or many things, carry no Location', async () => {
    const group = await newGroup()
    const update = key()
    const body = { name: unique('Updated') }
    expect((await t.app.put(`${GROUPS}/${group.id}`, body, { token: admin.token, idempotencyKey: update })).status).toBe(200)
    const updateReplay = await t.app.put(`${GROUPS}/${group.id}`, body, { token: admin.token, idempotencyKey: update })
    expectDuplicate(updateReplay)
    expect(updateReplay.headers.get('location')).toBeNull()

    const remove = key()
    expect((await t.app.delete(`${GROUPS}/${group.id}`, { token: admin.token, idempotencyKey: remove })).status).toBe(200)
    const removeReplay = await t.app.delete(`${GROUPS}/${group.id}`, { token: admin.token, idempotencyKey: remove })
    expectDuplicate(removeReplay)
    expect(removeReplay.headers.get('location')).toBeNull()

    const bulk = key()
    const visits = { visits: [1, 2].map(() => ({ outlet_id: outletId, project_id: projectId, visit_date: '2026-11-23' })) }
    expect((await t.app.post('/office/v1/visits/bulk', visits, { token: admin.token, idempotencyKey: bulk })).status).toBe(201)
    const bulkReplay = await t.app.post('/office/v1/visits/bulk', visits, { token: admin.token, idempotencyKey: bulk })
    expectDuplicate(bulkReplay)
    expect(bulkReplay.headers.get('location')).toBeNull()
  })

  test('a failed first attempt stores no Location; the retry that creates stores its own', async () => {
    const taken = await newGroup()
    const k = key()
    expectError(await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k }), 409, 'CHANNEL_GROUP_ALREADY_EXISTS')
    // Same request again (same fingerprint) once the name is free.
    expect((await t.app.delete(`${GROUPS}/${taken.id}`, { token: admin.token })).status).toBe(200)
    const created = await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k })
    expect(created.status).toBe(201)
    const replay = await t.app.post(GROUPS, { name: taken.name }, { token: admin.token, idempotencyKey: k })
    expectDuplicate(replay)
    expect(replay.headers.get('location')).toBe(`/api/office/v1/outlets/channel-groups/${created.body.data.id}`)
  })

  test('30 concurrent creates with one key: one 201; every 204 among the rest names the same resource', async () => {
    const k = key()
    const name = unique('Concurrent located')
    const replies = await Promise.all(Array.from({ length: 30 }, () => t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })))
    const created = replies.filter((reply) => reply.status === 201)
    expect(created).toHaveLength(1)
    for (const reply of replies) {
      if (reply.status === 201) continue
      if (reply.status === 204) expect(reply.headers.get('location')).toBe(`/api/office/v1/outlets/channel-groups/${created[0].body.data.id}`)
      else expectError(reply, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS')
    }
    const replay = await t.app.post(GROUPS, { name }, { token: admin.token, idempotencyKey: k })
    expect(replay.headers.get('location')).toBe(`/api/office/v1/outlets/channel-groups/${created[0].body.data.id}`)
    expect(await groupsNamed(name)).toBe(1)
  })
})
