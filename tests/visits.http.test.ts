/**
 * The whole field day over a real HTTP socket (docs/API.md §Visits, §Other areas): the office plans a
 * visit and sends it to the field, the field user checks in with a photo, fills the form and checks
 * out, the office approves, and the audit log and the notifications tell the story.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PNG } from './factories'
import { createTestApp, type TestApp } from './harness'

const FILE_URL = /^\/api\/files\/[0-9a-f-]{36}$/

let harness: TestApp
let base: string

beforeAll(async () => {
  harness = await createTestApp()
  harness.app.listen({ port: 0, hostname: '127.0.0.1' })
  base = `http://127.0.0.1:${harness.app.server!.port}/api`
})
afterAll(async () => {
  await harness.app.stop(true)
  await harness.close()
})

async function call(method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  })
  const text = await response.text()
  let parsed: any = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

describe('the field day over HTTP', () => {
  test('plan, send to field, check in with a photo, submit, check out, approve: audited and notified', async () => {
    // The office: register, then a form, a project using it, an outlet and a field user.
    const registered = await call('POST', '/auth/register', {
      name: 'Rina Office',
      email: 'rina@example.com',
      password: 'password123',
      workspace_name: 'Toko Maju Group',
    })
    expect(registered.status).toBe(201)
    const admin = registered.body.data.token as string
    const workspaceId = registered.body.data.user.workspace_id as number

    const form = await call(
      'POST',
      '/office/v1/forms',
      {
        title: 'Shelf check',
        fields: [
          { key: 'facings', label: 'Facings', type: 'integer', required: true, min: 0 },
          { key: 'brand', label: 'Brand', type: 'select', options: ['A', 'B'], required: true },
          { key: 'shelf_photo', label: 'Shelf photo', type: 'photo' },
        ],
      },
      admin,
    )
    expect(form.status).toBe(201)
    const project = await call(
      'POST',
      '/office/v1/projects',
      { name: 'Q4 audit', code: 'Q4', forms: [{ form_id: form.body.data.id, is_required: true }] },
      admin,
    )
    expect(project.status).toBe(201)
    const outlet = await call('POST', '/office/v1/outlets', { name: 'Toko Maju', code: 'TM-1', latitude: -6.2, longitude: 106.8 }, admin)
    expect(outlet.status).toBe(201)
    const roles = await call('GET', '/office/v1/roles', undefined, admin)
    const fieldRole = roles.body.data.find((role: any) => role.slug === 'user')
    const created = await call(
      'POST',
      '/office/v1/users',
      { name: 'Budi Field', email: 'budi@example.com', password: 'password123', role_id: fieldRole.id },
      admin,
    )
    expect(created.status).toBe(201)
    const login = await call('POST', '/auth/login', { email: 'budi@example.com', password: 'password123' })
    expect(login.status).toBe(200)
    const field = login.body.data.token as string
    const fieldId = login.body.data.user.id as number

    // Plan the visit and send it to the field.
    const planned = await call(
      'POST',
      '/office/v1/visits',
      { outlet_id: outlet.body.data.id, project_id: project.body.data.id, visit_date: '2026-11-22', user_ids: [fieldId] },
      admin,
    )
    expect(planned.status).toBe(201)
    expect(planned.body.code).toBe('VISIT_CREATED')
    const visitId = planned.body.data.id as number
    const submissionId = planned.body.data.submissions[0].id as number
    expect(planned.body.data.submissions[0]).toMatchObject({ form_id: form.body.data.id, is_required: true, status: 'pending', approval_status: null })
    const sent = await call('POST', '/office/v1/outlet-visits/send-to-field', { visit_ids: [visitId] }, admin)
    expect(sent.status).toBe(200)
    expect(sent.body.data.visits).toEqual([{ id: visitId, notified_user_ids: [fieldId] }])

    // The field user's phone: my visits, check in with a photo.
    const mine = await call('GET', '/app/v1/visits/me', undefined, field)
    expect(mine.body.code).toBe('LIST_OK')
    expect(mine.body.data.map((v: any) => [v.id, v.status])).toEqual([[visitId, 'scheduled']])
    expect(mine.body.data[0].sent_to_field_at).not.toBeNull()

    const checkedIn = await call(
      'POST',
      `/app/v1/visits/${visitId}/check-in`,
      { latitude: -6.2, longitude: 106.8, check_in_photo: PNG, notes: 'arrived' },
      field,
    )
    expect(checkedIn.status).toBe(200)
    expect(checkedIn.body.code).toBe('VISIT_CHECKED_IN')
    expect(checkedIn.body.data).toMatchObject({ status: 'in_progress', check_in_location: { latitude: -6.2, longitude: 106.8 } })
    const photoUrl = checkedIn.body.data.check_in_photo_url as string
    expect(photoUrl).toMatch(FILE_URL)
    const photo = await fetch(`http://127.0.0.1:${harness.app.server!.port}${photoUrl}`, { headers: { authorization: `Bearer ${admin}` } })
    expect(photo.status).toBe(200)
    expect(photo.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await photo.arrayBuffer()).equals(Buffer.from(PNG.split(',')[1], 'base64'))).toBe(true)

    const active = await call('GET', '/app/v1/visits/active', undefined, field)
    expect(active.body.data.id).toBe(visitId)

    const early = await call('POST', `/app/v1/visits/${visitId}/check-out`, { latitude: -6.2, longitude: 106.8 }, field)
    expect(early.status).toBe(422)
    expect(early.body).toMatchObject({ success: false, code: 'SUBMISSION_REQUIRED', errors: { form_ids: [form.body.data.id] } })

    const submitted = await call(
      'POST',
      `/app/v1/visits/${visitId}/submit-form-v2`,
      {
        form_id: form.body.data.id,
        items: [{ submission_id: submissionId, status: 'completed', answers: { facings: 4, brand: 'A', shelf_photo: PNG } }],
      },
      field,
    )
    expect(submitted.status).toBe(200)
    expect(submitted.body.code).toBe('FORM_SUBMITTED')
    expect(submitted.body.data.submissions[0]).toMatchObject({
      id: submissionId,
      status: 'completed',
      approval_status: 'pending',
      answers: { facings: 4, brand: 'A' },
    })
    expect(submitted.body.data.submissions[0].answers.shelf_photo).toMatch(FILE_URL)

    const checkedOut = await call('POST', `/app/v1/visits/${visitId}/check-out`, { latitude: -6.2, longitude: 106.8, notes: 'done' }, field)
    expect(checkedOut.status).toBe(200)
    expect(checkedOut.body.code).toBe('VISIT_CHECKED_OUT')
    expect(checkedOut.body.data.status).toBe('completed')
    expect((await call('GET', '/app/v1/visits/active', undefined, field)).body.data).toBeNull()

    // The office sees it completed and approves the submission.
    const seen = await call('GET', `/office/v1/visits/${visitId}`, undefined, admin)
    expect(seen.status).toBe(200)
    expect(seen.body.data).toMatchObject({ status: 'completed', check_in_photo_url: photoUrl })
    expect(seen.body.data.logs.map((log: any) => log.action)).toEqual(['created', 'sent_to_field', 'check_in', 'check_out'])
    expect(seen.body.data.logs[2].user).toEqual({ id: fieldId, name: 'Budi Field' })
    const completedList = await call('GET', '/office/v1/visits?status=completed', undefined, admin)
    expect(completedList.body.data.map((v: any) => v.id)).toEqual([visitId])

    const approved = await call('POST', `/office/v1/visits/${visitId}/submissions/${submissionId}/approve`, { notes: 'good shelf' }, admin)
    expect(approved.status).toBe(200)
    expect(approved.body.code).toBe('SUBMISSION_APPROVED')
    expect(approved.body.data).toMatchObject({ approval_status: 'approved', approval_notes: 'good shelf' })
    const pendingNow = await call('GET', '/office/v1/outlet-visits/submissions?approval_status=pending', undefined, admin)
    expect(pendingNow.body.data).toEqual([])

    // The audit log tells the story.
    const visitLog = await call('GET', `/office/v1/audit-logs?entity_type=visit&entity_id=${visitId}&sort_by=id&sort_order=asc`, undefined, admin)
    expect(visitLog.status).toBe(200)
    const visitEntries = visitLog.body.data.data as any[]
    expect(visitEntries.map((entry) => [entry.action, entry.actor_id])).toEqual([
      ['created', registered.body.data.user.id],
      ['assigned', registered.body.data.user.id],
      ['updated', registered.body.data.user.id],
      ['updated', fieldId],
      ['updated', fieldId],
    ])
    expect(visitEntries[1].new_values).toEqual({ user_id: fieldId, user_name: 'Budi Field' })
    expect(visitEntries[3].new_values.status).toBe('in_progress')
    expect(visitEntries[4].new_values.status).toBe('completed')
    const submissionLog = await call(
      'GET',
      `/office/v1/audit-logs?entity_type=submission&entity_id=${submissionId}&sort_by=id&sort_order=asc`,
      undefined,
      admin,
    )
    expect(submissionLog.body.data.data.map((entry: any) => entry.action)).toEqual(['updated', 'approved'])

    // The field user got the approval notification (after the assignment and send-to-field ones).
    const notifications = await harness.db.pragma(`SELECT type, data, workspace_id FROM notifications WHERE user_id = ${fieldId} ORDER BY id`)
    expect(notifications.map((row: any) => row.type)).toEqual(['visit.assigned', 'visit.sent_to_field', 'submission.approved'])
    expect(JSON.parse(String(notifications[2].data))).toEqual({ submission_id: submissionId, visit_id: visitId })
    expect(notifications.every((row: any) => row.workspace_id === workspaceId)).toBe(true)
  })
})
