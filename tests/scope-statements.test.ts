/**
 * The workspace scope's single-row statements are prepared once per connection (src/platform/data/scope.ts):
 * `find`, and `insert` and `update` per set of columns. They must write and read exactly what the built
 * queries did: values through each column's encoder (JSON, timestamps), only the table's columns, never a
 * workspace or id from the values, nothing for undefined, another workspace's row untouched — on both drivers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { notifications } from '../src/db/schema'
import { workspaceScoped } from '../src/platform/data/scope'
import { createTestApp, type TestApp, type Workspace } from './harness'

const scope = workspaceScoped(notifications)
type Values = Parameters<typeof scope.insert>[2]

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`workspace scope statements (${driver})`, () => {
    let t: TestApp
    let w: Workspace
    let other: Workspace
    const now = '2026-11-26T07:00:00.000Z'
    const values = (title: string): Values => ({
      user_id: w.owner.user.id,
      type: 'probe',
      title,
      body: 'b',
      data: { a: [1, 2] },
      read_at: null,
      created_at: now,
    })

    beforeAll(async () => {
      t = await createTestApp({ driver })
      w = await t.workspace()
      other = await t.workspace()
    })
    afterAll(async () => {
      await t?.close()
    })

    test('insert: encoded values, the caller’s workspace, a new id; keys that are not columns, the workspace and the id in the values are ignored', async () => {
      const sneaky = { ...values('first'), workspace_id: other.id, id: 999_999, not_a_column: 'x' } as Values
      const row = await t.db.transaction((tx) => scope.insert(tx, w.id, sneaky))
      expect(row).toMatchObject({ workspace_id: w.id, title: 'first', data: { a: [1, 2] }, read_at: null })
      expect(row.id).not.toBe(999_999)
      const [stored] = await t.db.read.select().from(notifications).where(eq(notifications.id, row.id))
      expect(stored).toEqual(row)
      expect(await scope.find(t.db.read, w.id, row.id)).toEqual(row)
      expect(await scope.find(t.db.read, other.id, row.id)).toBeUndefined()
    })

    test('update: only the defined columns change, through their encoders; an empty set answers the row as it is', async () => {
      const row = await t.db.transaction((tx) => scope.insert(tx, w.id, values('before')))
      const read = '2026-11-26T08:00:00.000Z'
      const updated = await t.db.transaction((tx) => scope.update(tx, w.id, row.id, { title: 'after', data: { b: true }, read_at: read, body: undefined }))
      expect(updated).toEqual({ ...row, title: 'after', data: { b: true }, read_at: read })
      expect(await t.db.transaction((tx) => scope.update(tx, w.id, row.id, { body: undefined }))).toEqual(updated!)
      expect(await scope.find(t.db.read, w.id, row.id)).toEqual(updated!)
    })

    test('update of another workspace’s row: nothing, and the row is unchanged', async () => {
      const row = await t.db.transaction((tx) => scope.insert(tx, w.id, values('mine')))
      expect(await t.db.transaction((tx) => scope.update(tx, other.id, row.id, { title: 'stolen' }))).toBeUndefined()
      expect((await scope.find(t.db.read, w.id, row.id))?.title).toBe('mine')
    })

    test('more sets of columns than a scope keeps prepared: every one still writes what it says', async () => {
      const row = await t.db.transaction((tx) => scope.insert(tx, w.id, values('shapes')))
      const sets: Partial<Values>[] = [
        { title: 't1' },
        { body: 'b2' },
        { type: 't3' },
        { title: 't4', body: 'b4' },
        { title: 't5', type: 't5' },
        { body: 'b6', type: 't6' },
        { data: { n: 7 } },
        { title: 't8', data: { n: 8 } },
        { body: 'b9', data: { n: 9 } },
        { title: 't10', body: 'b10', type: 't10' },
        { title: 't1' },
      ]
      let expected = row
      for (const set of sets) {
        expected = { ...expected, ...set } as typeof row
        expect(await t.db.transaction((tx) => scope.update(tx, w.id, row.id, set))).toEqual(expected)
      }
    })
  })
}
