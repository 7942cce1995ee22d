/**
 * Values a list derives from the query (defineList's `derive`, src/platform/data/list.ts) or is handed by its
 * service (whose rows: the caller's access, the audit log's visibility) are filters of their own name, but
 * never query parameters: a client that sends one by that name changes nothing.
 */
import { describe, expect, test } from 'bun:test'
import { data, newVisit, visitSite } from './factories'
import { useTestApp } from './harness'

const t = useTestApp()

describe('derived list values are not query parameters', () => {
  test("the audit log's instants (from, to, to_exclusive) and visibility come from the caller and the dates only", async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const all = data(await t.app.get('/office/v1/audit-logs', { token }), 200)
    expect(all.meta.total).toBeGreaterThan(0)
    for (const sent of ['to_exclusive=2000-01-01T00:00:00Z', 'to=2000-01-01T00:00:00Z', 'from=2999-01-01T00:00:00Z', 'visibility=own', 'workspaceId=999']) {
      const reply = await t.app.get(`/office/v1/audit-logs?${sent}`, { token })
      expect(reply.status).toBe(200)
      expect(reply.body.data.meta.total).toBe(all.meta.total)
    }
  })

  test("the visit lists' unflagged, access and caller come from flagged and the route only", async () => {
    const ws = await t.app.workspace()
    const token = ws.owner.token
    const field = await t.app.member(ws, 'user')
    const other = await t.app.member(ws, 'user')
    const site = await visitSite(t.app, token)
    await newVisit(t.app, token, { outlet_id: site.outlet.id, project_id: site.project.id, user_ids: [other.user.id] })
    const office = await t.app.get('/office/v1/visits', { token })
    expect(office.body.meta.total).toBe(1)
    for (const sent of ['unflagged=true', 'access=mine', 'caller=1']) {
      const reply = await t.app.get(`/office/v1/visits?${sent}`, { token })
      expect(reply.status).toBe(200)
      expect(reply.body.meta.total).toBe(1)
    }
    // The field user's own list stays theirs (none), whoever the query names.
    for (const sent of ['', `caller=${other.user.id}`, 'access=all']) {
      const reply = await t.app.get(`/app/v1/visits/me?${sent}`, { token: field.token })
      expect(reply.status).toBe(200)
      expect(reply.body.meta.total).toBe(0)
    }
  })
})
