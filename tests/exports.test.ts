/**
 * The rest of the platform (docs/API.md §Other areas, "Mobile extras", AuditLog automatic
 * logging, §Envelopes, §Errors, §Roles and permissions, §Audit log, §Real-time socket, §Other areas): principals and products, attendance, notifications
 * and push tokens, the dashboard, submission exports, the caller's profile, and the user list's
 * filters and last login. One app (and one clock) per area.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parse } from 'csv-parse/sync'
import { eq } from 'drizzle-orm'
import { extractText, getDocumentProxy } from 'unpdf'
import { createApp } from '../src/app'
import { notifications as notificationsTable } from '../src/db/schema'
import type { ManualClock } from '../src/platform/clock'
import { purgeOldExports } from '../src/modules/exports/exports.service'
import type { NotificationRow, PushSender } from '../src/modules/notifications/notifications.service'
import { createTestApp, expectError, TestApp, unique, useTestApp, type Reply, type Session, type Workspace } from './harness'

type Row = Record<string, any>

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const FILE_URL = /^\/api\/files\/[0-9a-f-]{36}$/
const NOW = '2026-03-10T10:00:00.000Z'
const TODAY = '2026-03-10'
const HERE = { latitude: -6.2, longitude: 106.8 }

const manualClock = (t: TestApp) => t.clock as ManualClock

/** The `data` of a reply with the expected status (throws with the body otherwise). */
function data(reply: Reply, status = 201): Row {
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status} ${reply.text}`)
  return reply.body.data
}

const parseJson = (value: unknown) => (value === null || value === undefined ? null : JSON.parse(String(value)))

async function auditRows(t: TestApp, entityType: string, entityId: number | string) {
  const rows = await t.db.pragma(`SELECT * FROM audit_logs WHERE entity_type = '${entityType}' AND entity_id = '${entityId}' ORDER BY id`)
  return rows.map((row) => ({ ...row, old_values: parseJson(row.old_values), new_values: parseJson(row.new_values) })) as Row[]
}

const ids = (rows: Row[]) => rows.map((row) => row.id as number)
const sorted = (values: number[]) => [...values].sort((a, b) => a - b)

// ── Visit fixtures (a form with one required text field, a project using it, an outlet) ─────────

interface Kit {
  form: Row
  project: Row
  outlet: Row
}

async function kit(t: TestApp, token: string, options: { outletName?: string; outletCode?: string; formTitle?: string } = {}): Promise<Kit> {
  const form = data(
    await t.post(
      '/office/v1/forms',
      { title: options.formTitle ?? unique('Form'), fields: [{ key: 'note', label: 'Note', type: 'text', required: true }] },
      { token },
    ),
  )
  const project = data(await t.post('/office/v1/projects', { name: unique('Project'), forms: [{ form_id: form.id, is_required: true }] }, { token }))
  const outlet = data(
    await t.post(
      '/office/v1/outlets',
      { name: options.outletName ?? unique('Outlet'), ...(options.outletCode ? { code: options.outletCode } : {}) },
      { token },
    ),
  )
  return { form, project, outlet }
}

const planVisit = async (t: TestApp, token: string, k: Kit, extra: Row = {}) =>
  data(await t.post('/office/v1/visits', { outlet_id: k.outlet.id, project_id: k.project.id, visit_date: TODAY, ...extra }, { token }))

const checkInVisit = async (t: TestApp, visitId: number, who: Session) =>
  data(await t.post(`/app/v1/visits/${visitId}/check-in`, HERE, { token: who.token }), 200)
const checkOutVisit = async (t: TestApp, visitId: number, who: Session) =>
  data(await t.post(`/app/v1/visits/${visitId}/check-out`, HERE, { token: who.token }), 200)

async function submitVisit(t: TestApp, visit: Row, who: Session, answers: Row = { note: 'all good' }) {
  const submission = visit.submissions[0]
  return data(
    await t.post(
      `/app/v1/visits/${visit.id}/submit-form-v2`,
      { form_id: submission.form_id, items: [{ submission_id: submission.id, status: 'completed', answers }] },
      { token: who.token },
    ),
    200,
  )
}

async function review(t: TestApp, token: string, visit: Row, decision: 'approve' | 'reject', notes = 'reviewed') {
  return data(await t.post(`/office/v1/visits/${visit.id}/submissions/${visit.submissions[0].id}/${decision}`, { notes }, { token }), 200)
}

/** Plans a visit for `who`, checks in, submits the form completed and (optionally) checks out. */
async function walkVisit(t: TestApp, token: string, k: Kit, who: Session, extra: Row = {}, options: { checkOut?: boolean; answers?: Row } = {}) {
  const visit = await planVisit(t, token, k, { user_ids: [who.user.id], ...extra })
  await checkInVisit(t, visit.id, who)
  await submitVisit(t, visit, who, options.answers)
  if (options.checkOut !== false) await checkOutVisit(t, visit.id, who)
  return visit
}

async function pingBatch(t: TestApp, who: Session, pings: Row[]) {
  return data(
    await t.post(
      '/app/v1/locations/batch',
      { pings: pings.map((ping) => ({ lat: -6.2, lng: 106.8, is_mock: false, ...ping })) },
      { token: who.token, idempotencyKey: crypto.randomUUID() },
    ),
  )
}

// ═════════════════════════════════════════════════════════════════════════════════════════════════

describe('Principals and products', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  let field: Session
  let manager: Session
  const admin = () => ws.owner.token

  beforeAll(async () => {
    ws = await t.app.workspace()
    other = await t.app.workspace()
    field = await t.app.member(ws, 'user')
    manager = await t.app.member(ws, 'manager')
  })

  const newPrincipal = async (body: Row = {}, token = admin()) =>
    data(await t.app.post('/office/v1/principals', { name: unique('Principal'), ...body }, { token }))
  const newProduct = async (body: Row = {}, token = admin()) =>
    data(await t.app.post('/office/v1/products', { name: unique('Product'), sku: unique('SKU'), ...body }, { token }))

  test('principal CRUD: 201 PRINCIPAL_CREATED, 200 PRINCIPAL_UPDATED, 200 PRINCIPAL_DELETED with deleted_at; a deleted principal is gone from detail and list', async () => {
    const createdReply = await t.app.post(
      '/office/v1/principals',
      { name: '  Unilever  ', code: 'UNV', contact_email: 'sales@unilever.example' },
      { token: admin() },
    )
    expect(createdReply.status).toBe(201)
    expect(createdReply.body).toMatchObject({
      success: true,
      code: 'PRINCIPAL_CREATED',
      data: { name: 'Unilever', code: 'UNV', workspace_id: ws.id, deleted_at: null },
    })
    const principal = createdReply.body.data

    const detail = await t.app.get(`/office/v1/principals/${principal.id}`, { token: admin() })
    expect(detail.status).toBe(200)
    expect(detail.body).toMatchObject({ code: 'SUCCESS', data: { id: principal.id, name: 'Unilever', code: 'UNV' } })

    const updated = await t.app.put(`/office/v1/principals/${principal.id}`, { name: 'Unilever Indonesia' }, { token: admin() })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ code: 'PRINCIPAL_UPDATED', data: { id: principal.id, name: 'Unilever Indonesia', code: 'UNV' } })
    expect((await t.app.get(`/office/v1/principals/${principal.id}`, { token: admin() })).body.data.name).toBe('Unilever Indonesia')

    const deleted = await t.app.delete(`/office/v1/principals/${principal.id}`, { token: admin() })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ code: 'PRINCIPAL_DELETED', data: { id: principal.id, name: 'Unilever Indonesia' } })
    expect(typeof deleted.body.data.deleted_at).toBe('string')
    expectError(await t.app.get(`/office/v1/principals/${principal.id}`, { token: admin() }), 404, 'PRINCIPAL_NOT_FOUND')
    expectError(await t.app.put(`/office/v1/principals/${principal.id}`, { name: 'Again' }, { token: admin() }), 404, 'PRINCIPAL_NOT_FOUND')
    const list = await t.app.get('/office/v1/principals?limit=100', { token: admin() })
    expect(list.body.code).toBe('LIST_OK')
    expect(ids(list.body.data)).not.toContain(principal.id)
  })

  test('product CRUD: 201 PRODUCT_CREATED with its principal, 200 PRODUCT_UPDATED, 200 PRODUCT_DELETED; a deleted product is gone', async () => {
    const principal = await newPrincipal({ name: 'Wings' })
    const createdReply = await t.app.post(
      '/office/v1/products',
      { name: 'Soap Bar', sku: 'SB-01', principal_id: principal.id, price: 12.5, unit: 'pcs', barcode: '8990000000017' },
      { token: admin() },
    )
    expect(createdReply.status).toBe(201)
    expect(createdReply.body).toMatchObject({
      code: 'PRODUCT_CREATED',
      data: {
        name: 'Soap Bar',
        sku: 'SB-01',
        principal_id: principal.id,
        principal: { id: principal.id, name: 'Wings' },
        price: 12.5,
        unit: 'pcs',
        barcode: '8990000000017',
      },
    })
    const product = createdReply.body.data

    const updated = await t.app.put(`/office/v1/products/${product.id}`, { price: 15, principal_id: null }, { token: admin() })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ code: 'PRODUCT_UPDATED', data: { id: product.id, price: 15, principal_id: null, principal: null, sku: 'SB-01' } })

    const deleted = await t.app.delete(`/office/v1/products/${product.id}`, { token: admin() })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ code: 'PRODUCT_DELETED', data: { id: product.id, sku: 'SB-01' } })
    expect(typeof deleted.body.data.deleted_at).toBe('string')
    expectError(await t.app.get(`/office/v1/products/${product.id}`, { token: admin() }), 404, 'PRODUCT_NOT_FOUND')
    expectError(await t.app.delete(`/office/v1/products/${product.id}`, { token: admin() }), 404, 'PRODUCT_NOT_FOUND')
    expect(ids((await t.app.get('/office/v1/products?limit=100', { token: admin() })).body.data)).not.toContain(product.id)
  })

  test('principal code is unique per workspace, case-insensitively, among live rows: 409 PRINCIPAL_ALREADY_EXISTS naming code', async () => {
    const first = await newPrincipal({ code: 'DUP-P' })
    const before = await t.app.count('principals')
    const errors = expectError(
      await t.app.post('/office/v1/principals', { name: unique('P'), code: 'dup-p' }, { token: admin() }),
      409,
      'PRINCIPAL_ALREADY_EXISTS',
    )
    expect(Object.keys(errors)).toEqual(['code'])
    expect(await t.app.count('principals')).toBe(before)

    const second = await newPrincipal({ code: 'OTHER-P' })
    expect(
      Object.keys(expectError(await t.app.put(`/office/v1/principals/${second.id}`, { code: 'Dup-P' }, { token: admin() }), 409, 'PRINCIPAL_ALREADY_EXISTS')),
    ).toEqual(['code'])
    expect((await t.app.get(`/office/v1/principals/${second.id}`, { token: admin() })).body.data.code).toBe('OTHER-P')
    // Keeping its own code is no conflict.
    expect((await t.app.put(`/office/v1/principals/${first.id}`, { code: 'DUP-P', name: 'Renamed' }, { token: admin() })).status).toBe(200)

    // Another workspace may use the code; a deleted principal frees it.
    expect((await t.app.post('/office/v1/principals', { name: unique('P'), code: 'DUP-P' }, { token: other.owner.token })).status).toBe(201)
    expect((await t.app.delete(`/office/v1/principals/${first.id}`, { token: admin() })).status).toBe(200)
    const reused = await t.app.post('/office/v1/principals', { name: unique('P'), code: 'dup-P' }, { token: admin() })
    expect(reused.status).toBe(201)
    expect(reused.body.data.code).toBe('dup-P')
  })

  test('product SKU is unique per workspace, case-insensitively, among live rows: 409 PRODUCT_ALREADY_EXISTS naming sku', async () => {
    const first = await newProduct({ sku: 'SKU-DUP' })
    const before = await t.app.count('products')
    expect(
      Object.keys(expectError(await t.app.post('/office/v1/products', { name: 'x', sku: 'sku-dup' }, { token: admin() }), 409, 'PRODUCT_ALREADY_EXISTS')),
    ).toEqual(['sku'])
    expect(await t.app.count('products')).toBe(before)

    const second = await newProduct({ sku: 'SKU-OTHER' })
    expect(
      Object.keys(expectError(await t.app.put(`/office/v1/products/${second.id}`, { sku: 'Sku-Dup' }, { token: admin() }), 409, 'PRODUCT_ALREADY_EXISTS')),
    ).toEqual(['sku'])
    expect((await t.app.get(`/office/v1/products/${second.id}`, { token: admin() })).body.data.sku).toBe('SKU-OTHER')

    expect((await t.app.post('/office/v1/products', { name: 'x', sku: 'SKU-DUP' }, { token: other.owner.token })).status).toBe(201)
    expect((await t.app.delete(`/office/v1/products/${first.id}`, { token: admin() })).status).toBe(200)
    expect((await t.app.post('/office/v1/products', { name: 'x', sku: 'SKU-dup' }, { token: admin() })).status).toBe(201)
  })

  test("a product's principal_id must be a live principal of the workspace: unknown, foreign or deleted → 400 errors.principal_id, nothing stored", async () => {
    const foreign = data(await t.app.post('/office/v1/principals', { name: unique('Foreign') }, { token: other.owner.token }))
    const gone = await newPrincipal()
    await t.app.delete(`/office/v1/principals/${gone.id}`, { token: admin() })
    const before = await t.app.count('products')
    for (const principalId of [999_999, foreign.id, gone.id]) {
      const errors = expectError(
        await t.app.post('/office/v1/products', { name: 'x', sku: unique('S'), principal_id: principalId }, { token: admin() }),
        400,
        'VALIDATION_ERROR',
      )
      expect(Object.keys(errors)).toEqual(['principal_id'])
    }
    expect(await t.app.count('products')).toBe(before)

    const product = await newProduct()
    expectError(await t.app.put(`/office/v1/products/${product.id}`, { principal_id: foreign.id }, { token: admin() }), 400, 'VALIDATION_ERROR')
    expect((await t.app.get(`/office/v1/products/${product.id}`, { token: admin() })).body.data.principal_id).toBeNull()
  })

  test('a product price must be ≥ 0: a negative price → 400 errors.price (create and update); 0 is accepted', async () => {
    const before = await t.app.count('products')
    expect(
      Object.keys(
        expectError(await t.app.post('/office/v1/products', { name: 'x', sku: unique('S'), price: -0.01 }, { token: admin() }), 400, 'VALIDATION_ERROR'),
      ),
    ).toContain('price')
    expect(await t.app.count('products')).toBe(before)
    const free = await newProduct({ price: 0 })
    expect(free.price).toBe(0)
    expectError(await t.app.put(`/office/v1/products/${free.id}`, { price: -5 }, { token: admin() }), 400, 'VALIDATION_ERROR')
    expect((await t.app.get(`/office/v1/products/${free.id}`, { token: admin() })).body.data.price).toBe(0)
  })

  test('product keyword matches name and SKU (partial, case-insensitive) and the exact barcode; principal_id filters', async () => {
    const p1 = await newPrincipal()
    const p2 = await newPrincipal()
    const soap = await newProduct({ name: 'Sabun Qzwangi', sku: 'QZB-001', barcode: '8991234567890', principal_id: p1.id })
    const shampoo = await newProduct({ name: 'Shampoo Qzfresh', sku: 'QZS-002', barcode: '8990000000001', principal_id: p1.id })
    const tea = await newProduct({ name: 'Teh Qzmanis', sku: 'QZT-003', principal_id: p2.id })
    const list = async (query: string) => {
      const reply = await t.app.get(`/office/v1/products?limit=100&${query}`, { token: admin() })
      expect(reply.status).toBe(200)
      expect(reply.body.meta.total).toBe(reply.body.data.length)
      return sorted(ids(reply.body.data))
    }
    expect(await list('keyword=QZWANGI')).toEqual([soap.id])
    expect(await list('keyword=qzs-0')).toEqual([shampoo.id])
    expect(await list('keyword=qz')).toEqual(sorted([soap.id, shampoo.id, tea.id]))
    expect(await list('keyword=8991234567890')).toEqual([soap.id])
    expect(await list('keyword=899123456')).toEqual([])
    expect(await list(`principal_id=${p1.id}`)).toEqual(sorted([soap.id, shampoo.id]))
    expect(await list(`principal_id=${p2.id}&keyword=qz`)).toEqual([tea.id])
    expect(await list(`principal_id=${p2.id}&keyword=qzwangi`)).toEqual([])
  })

  test('deleting a principal still used by live products or projects → 409 PRINCIPAL_IN_USE with product_count and project_count; nothing deleted', async () => {
    const principal = await newPrincipal()
    const a = await newProduct({ principal_id: principal.id })
    const b = await newProduct({ principal_id: principal.id })
    const project = data(await t.app.post('/office/v1/projects', { name: unique('Project'), principal_id: principal.id }, { token: admin() }))
    const errors = expectError(await t.app.delete(`/office/v1/principals/${principal.id}`, { token: admin() }), 409, 'PRINCIPAL_IN_USE')
    expect(errors).toEqual({ product_count: 2, project_count: 1 })
    expect((await t.app.get(`/office/v1/principals/${principal.id}`, { token: admin() })).status).toBe(200)

    // Deleted children do not count.
    await t.app.delete(`/office/v1/products/${a.id}`, { token: admin() })
    await t.app.delete(`/office/v1/products/${b.id}`, { token: admin() })
    expect(expectError(await t.app.delete(`/office/v1/principals/${principal.id}`, { token: admin() }), 409, 'PRINCIPAL_IN_USE')).toEqual({
      product_count: 0,
      project_count: 1,
    })
    expect((await t.app.delete(`/office/v1/projects/${project.id}`, { token: admin() })).status).toBe(200)
    const deleted = await t.app.delete(`/office/v1/principals/${principal.id}`, { token: admin() })
    expect(deleted.status).toBe(200)
    expect(deleted.body.code).toBe('PRINCIPAL_DELETED')
  })

  test("a project's principal_id must exist in the workspace: unknown or foreign → 400 errors.principal_id; a live one is kept", async () => {
    const foreign = data(await t.app.post('/office/v1/principals', { name: unique('Foreign') }, { token: other.owner.token }))
    const before = await t.app.count('projects')
    for (const principalId of [987_654, foreign.id]) {
      const errors = expectError(
        await t.app.post('/office/v1/projects', { name: unique('Project'), principal_id: principalId }, { token: admin() }),
        400,
        'VALIDATION_ERROR',
      )
      expect(Object.keys(errors)).toEqual(['principal_id'])
    }
    expect(await t.app.count('projects')).toBe(before)
    const principal = await newPrincipal()
    const project = data(await t.app.post('/office/v1/projects', { name: unique('Project'), principal_id: principal.id }, { token: admin() }))
    expect(project.principal_id).toBe(principal.id)
    expectError(await t.app.put(`/office/v1/projects/${project.id}`, { principal_id: foreign.id }, { token: admin() }), 400, 'VALIDATION_ERROR')
  })

  test('mobile /app/v1/products and /app/v1/principals serve the field user (list and detail) and have no write routes (404 ROUTE_NOT_FOUND)', async () => {
    const principal = await newPrincipal({ name: 'Mobile Principal' })
    const product = await newProduct({ name: 'Mobile Product', principal_id: principal.id })
    const products = await t.app.get('/app/v1/products?keyword=mobile product', { token: field.token })
    expect(products.status).toBe(200)
    expect(products.body.code).toBe('LIST_OK')
    expect(ids(products.body.data)).toEqual([product.id])
    expect(products.body.data[0].principal).toEqual({ id: principal.id, name: 'Mobile Principal' })
    expect(data(await t.app.get(`/app/v1/products/${product.id}`, { token: field.token }), 200).name).toBe('Mobile Product')
    expect(ids((await t.app.get(`/app/v1/principals?keyword=mobile principal`, { token: field.token })).body.data)).toEqual([principal.id])
    expect(data(await t.app.get(`/app/v1/principals/${principal.id}`, { token: field.token }), 200).name).toBe('Mobile Principal')

    const before = [await t.app.count('products'), await t.app.count('principals')]
    expectError(await t.app.post('/app/v1/products', { name: 'x', sku: unique('S') }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.put(`/app/v1/products/${product.id}`, { name: 'x' }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.delete(`/app/v1/products/${product.id}`, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.post('/app/v1/principals', { name: 'x' }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.put(`/app/v1/principals/${principal.id}`, { name: 'x' }, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.app.delete(`/app/v1/principals/${principal.id}`, { token: field.token }), 404, 'ROUTE_NOT_FOUND')
    expect([await t.app.count('products'), await t.app.count('principals')]).toEqual(before)
    expect(data(await t.app.get(`/app/v1/products/${product.id}`, { token: field.token }), 200).name).toBe('Mobile Product')
  })

  test('office catalogue permissions: the field user gets 403 on office routes, a manager may read but not write', async () => {
    const principal = await newPrincipal()
    expectError(await t.app.get('/office/v1/products', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/principals', { token: field.token }), 403, 'FORBIDDEN')
    expect((await t.app.get('/office/v1/products', { token: manager.token })).status).toBe(200)
    expect((await t.app.get(`/office/v1/principals/${principal.id}`, { token: manager.token })).status).toBe(200)
    const before = await t.app.count('principals')
    expectError(await t.app.post('/office/v1/principals', { name: 'x' }, { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.app.post('/office/v1/products', { name: 'x', sku: unique('S') }, { token: manager.token }), 403, 'FORBIDDEN')
    expectError(await t.app.delete(`/office/v1/principals/${principal.id}`, { token: manager.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('principals')).toBe(before)
  })

  test('audit: principal and product writes are logged created / updated (only the changed fields) / deleted with entity types principal and product', async () => {
    const principal = await newPrincipal({ name: 'Audit Principal', code: 'AUD' })
    await t.app.put(`/office/v1/principals/${principal.id}`, { name: 'Audit Principal 2', code: 'AUD' }, { token: admin() })
    const product = await newProduct({ name: 'Audit Product', sku: 'AUD-1', price: 3 })
    await t.app.put(`/office/v1/products/${product.id}`, { price: 4 }, { token: admin() })
    await t.app.delete(`/office/v1/products/${product.id}`, { token: admin() })
    await t.app.delete(`/office/v1/principals/${principal.id}`, { token: admin() })

    const principalLog = await auditRows(t.app, 'principal', principal.id)
    expect(principalLog.map((row) => row.action)).toEqual(['created', 'updated', 'deleted'])
    expect(principalLog[0]).toMatchObject({
      entity_name: 'Audit Principal',
      old_values: null,
      new_values: { id: principal.id, name: 'Audit Principal', code: 'AUD' },
      actor_id: ws.owner.user.id,
    })
    expect(principalLog[1]).toMatchObject({
      entity_name: 'Audit Principal 2',
      old_values: { name: 'Audit Principal' },
      new_values: { name: 'Audit Principal 2' },
    })
    expect(Object.keys(principalLog[1].new_values)).toEqual(['name'])
    expect(principalLog[2]).toMatchObject({ old_values: { id: principal.id, name: 'Audit Principal 2' }, new_values: null })

    const productLog = await auditRows(t.app, 'product', product.id)
    expect(productLog.map((row) => row.action)).toEqual(['created', 'updated', 'deleted'])
    expect(productLog[0]).toMatchObject({ entity_name: 'Audit Product', old_values: null, new_values: { sku: 'AUD-1', price: 3 } })
    expect(productLog[1]).toMatchObject({ old_values: { price: 3 }, new_values: { price: 4 } })
    expect(Object.keys(productLog[1].new_values)).toEqual(['price'])
    expect(productLog[2]).toMatchObject({ old_values: { id: product.id, sku: 'AUD-1' }, new_values: null })
    for (const row of [...principalLog, ...productLog]) expect(row.workspace_id).toBe(ws.id)
  })

  test("workspace isolation: another workspace's principal or product id → 404 on get, update and delete; nothing changes and lists never show it", async () => {
    const principal = data(await t.app.post('/office/v1/principals', { name: 'Theirs', code: 'THEIRS' }, { token: other.owner.token }))
    const product = data(
      await t.app.post('/office/v1/products', { name: 'Their Product', sku: 'THEIRS-1', principal_id: principal.id }, { token: other.owner.token }),
    )
    const before = [await t.app.rows('principals'), await t.app.rows('products'), await t.app.count('audit_logs')]
    expectError(await t.app.get(`/office/v1/principals/${principal.id}`, { token: admin() }), 404, 'PRINCIPAL_NOT_FOUND')
    expectError(await t.app.put(`/office/v1/principals/${principal.id}`, { name: 'Mine now' }, { token: admin() }), 404, 'PRINCIPAL_NOT_FOUND')
    expectError(await t.app.delete(`/office/v1/principals/${principal.id}`, { token: admin() }), 404, 'PRINCIPAL_NOT_FOUND')
    expectError(await t.app.get(`/office/v1/products/${product.id}`, { token: admin() }), 404, 'PRODUCT_NOT_FOUND')
    expectError(await t.app.put(`/office/v1/products/${product.id}`, { name: 'Mine now' }, { token: admin() }), 404, 'PRODUCT_NOT_FOUND')
    expectError(await t.app.delete(`/office/v1/products/${product.id}`, { token: admin() }), 404, 'PRODUCT_NOT_FOUND')
    expectError(await t.app.get(`/app/v1/products/${product.id}`, { token: field.token }), 404, 'PRODUCT_NOT_FOUND')
    expect([await t.app.rows('principals'), await t.app.rows('products'), await t.app.count('audit_logs')]).toEqual(before)
    expect(ids((await t.app.get('/office/v1/products?keyword=theirs', { token: admin() })).body.data)).toEqual([])
    expect(ids((await t.app.get('/office/v1/principals?keyword=theirs', { token: admin() })).body.data)).toEqual([])
    expect((await t.app.get('/app/v1/products?limit=100', { token: field.token })).body.data.every((row: Row) => row.workspace_id === ws.id)).toBe(true)
  })
})

// ═════════════════════════════════════════════════════════════════════════════════════════════════

describe('Attendance', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  const admin = () => ws.owner.token

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
  })

  const clockIn = (who: Session, body: Row = HERE) => t.app.post('/app/v1/attendances/clock-in', body, { token: who.token })
  const clockOut = (who: Session, body: Row = HERE) => t.app.post('/app/v1/attendances/clock-out', body, { token: who.token })
  const countFor = (userId: number) => t.app.count('attendances', `user_id = ${userId}`)
  const manual = (body: Row, token = admin()) => t.app.post('/office/v1/attendances', body, { token })

  test('clock-in without latitude or longitude → 400 LOCATION_REQUIRED naming the missing field; nothing stored', async () => {
    const field = await t.app.member(ws, 'user')
    const none = expectError(await clockIn(field, {}), 400, 'LOCATION_REQUIRED')
    expect(Object.keys(none).sort()).toEqual(['latitude', 'longitude'])
    expect(Object.keys(expectError(await clockIn(field, { latitude: -6.2 }), 400, 'LOCATION_REQUIRED'))).toEqual(['longitude'])
    expect(Object.keys(expectError(await clockIn(field, { latitude: -6.2, longitude: null }), 400, 'LOCATION_REQUIRED'))).toEqual(['longitude'])
    expect(await countFor(field.user.id)).toBe(0)
    expect(await t.app.count('audit_logs', `entity_type = 'attendance' AND actor_id = ${field.user.id}`)).toBe(0)
  })

  test('GET /app/v1/attendances/today is null before clocking in; clock-in → 201 ATTENDANCE_CLOCKED_IN (photo stored as an /api/files URL); today then returns the row; a second clock-in → 409 ATTENDANCE_ALREADY_OPEN', async () => {
    const field = await t.app.member(ws, 'user', { name: 'Clock Person' })
    const before = await t.app.get('/app/v1/attendances/today', { token: field.token })
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({ code: 'SUCCESS', data: null })

    const filesBefore = await t.app.count('files')
    const reply = await clockIn(field, { ...HERE, photo: PNG, notes: 'morning' })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({
      code: 'ATTENDANCE_CLOCKED_IN',
      data: {
        user_id: field.user.id,
        user: { id: field.user.id, name: 'Clock Person' },
        date: TODAY,
        check_in_at: NOW,
        check_in_location: HERE,
        check_out_at: null,
        worked_minutes: null,
        source: 'mobile',
        notes: 'morning',
      },
    })
    const attendance = reply.body.data
    expect(attendance.check_in_photo_url).toMatch(FILE_URL)
    expect(await t.app.count('files')).toBe(filesBefore + 1)
    const photo = await t.app.get(attendance.check_in_photo_url.replace(/^\/api/, ''), { token: admin() })
    expect(photo.status).toBe(200)
    expect(photo.headers.get('content-type')).toBe('image/png')

    const today = await t.app.get('/app/v1/attendances/today', { token: field.token })
    expect(today.body.data).toMatchObject({ id: attendance.id, check_out_at: null })

    const again = expectError(await clockIn(field), 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(again).toEqual({ attendance_id: attendance.id })
    expect(await countFor(field.user.id)).toBe(1)
  })

  test('clock-out without an open attendance → 409 ATTENDANCE_NOT_OPEN; nothing stored', async () => {
    const field = await t.app.member(ws, 'user')
    expectError(await clockOut(field), 409, 'ATTENDANCE_NOT_OPEN')
    expect(await countFor(field.user.id)).toBe(0)
    // Location is still checked first.
    expectError(await clockOut(field, {}), 400, 'LOCATION_REQUIRED')
  })

  test('two concurrent clock-ins of the same user → one 201 and one 409 ATTENDANCE_ALREADY_OPEN; one open row', async () => {
    const field = await t.app.member(ws, 'user')
    const replies = await Promise.all([clockIn(field), clockIn(field)])
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409])
    expectError(replies.find((reply) => reply.status === 409)!, 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(await countFor(field.user.id)).toBe(1)
    expect(await t.app.count('attendances', `user_id = ${field.user.id} AND check_out_at IS NULL`)).toBe(1)
  })

  test('manual POST /office/v1/attendances → 201 ATTENDANCE_CREATED (source manual, worked_minutes); check_out_at not after check_in_at → 400; a foreign user → 400 errors.user_id', async () => {
    const field = await t.app.member(ws, 'user')
    const foreign = await t.app.member(other, 'user')
    const reply = await manual({
      user_id: field.user.id,
      date: '2026-03-09',
      check_in_at: '2026-03-09T08:00:00.000Z',
      check_out_at: '2026-03-09T16:30:00.000Z',
      notes: 'forgot phone',
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({
      code: 'ATTENDANCE_CREATED',
      data: {
        user_id: field.user.id,
        date: '2026-03-09',
        check_in_at: '2026-03-09T08:00:00.000Z',
        check_out_at: '2026-03-09T16:30:00.000Z',
        worked_minutes: 510,
        source: 'manual',
        notes: 'forgot phone',
        check_in_location: null,
      },
    })

    const before = await t.app.count('attendances')
    const backwards = expectError(
      await manual({ user_id: field.user.id, date: '2026-03-08', check_in_at: '2026-03-08T16:00:00.000Z', check_out_at: '2026-03-08T08:00:00.000Z' }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(backwards)).toEqual(['check_out_at'])
    expectError(
      await manual({ user_id: field.user.id, date: '2026-03-08', check_in_at: '2026-03-08T08:00:00.000Z', check_out_at: '2026-03-08T08:00:00.000Z' }),
      400,
      'VALIDATION_ERROR',
    )
    const foreignErrors = expectError(
      await manual({ user_id: foreign.user.id, date: '2026-03-08', check_in_at: '2026-03-08T08:00:00.000Z' }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(foreignErrors)).toEqual(['user_id'])
    expectError(await manual({ user_id: 999_999, date: '2026-03-08', check_in_at: '2026-03-08T08:00:00.000Z' }), 400, 'VALIDATION_ERROR')
    expect(await t.app.count('attendances')).toBe(before)
    expect(await t.app.count('attendances', `user_id = ${foreign.user.id}`)).toBe(0)
  })

  test('an open manual entry conflicts with an open clock-in (both ways) → 409 ATTENDANCE_ALREADY_OPEN; a closed manual entry does not', async () => {
    const clocked = await t.app.member(ws, 'user')
    expect((await clockIn(clocked)).status).toBe(201)
    expectError(await manual({ user_id: clocked.user.id, date: TODAY, check_in_at: '2026-03-10T07:00:00.000Z' }), 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(await countFor(clocked.user.id)).toBe(1)
    expect(
      (await manual({ user_id: clocked.user.id, date: '2026-03-07', check_in_at: '2026-03-07T08:00:00.000Z', check_out_at: '2026-03-07T17:00:00.000Z' }))
        .status,
    ).toBe(201)
    expect(await countFor(clocked.user.id)).toBe(2)

    const entered = await t.app.member(ws, 'user')
    expect((await manual({ user_id: entered.user.id, date: TODAY, check_in_at: '2026-03-10T07:00:00.000Z' })).status).toBe(201)
    expectError(await clockIn(entered), 409, 'ATTENDANCE_ALREADY_OPEN')
    expect(await countFor(entered.user.id)).toBe(1)
  })

  test('office list filters user_id, team_id, date_from, date_to (inclusive) with meta; another workspace never shows', async () => {
    const a = await t.app.member(ws, 'user')
    const b = await t.app.member(ws, 'user')
    const team = data(await t.app.post('/office/v1/teams', { name: unique('Team'), user_ids: [a.user.id] }, { token: admin() }))
    const entry = async (who: Session, date: string, token = admin()) =>
      data(await manual({ user_id: who.user.id, date, check_in_at: `${date}T08:00:00.000Z`, check_out_at: `${date}T17:00:00.000Z` }, token))
    const a1 = await entry(a, '2026-03-01')
    const a3 = await entry(a, '2026-03-03')
    const b2 = await entry(b, '2026-03-02')
    const foreigner = await t.app.member(other, 'user')
    await entry(foreigner, '2026-03-02', other.owner.token)

    const list = async (query: string) => {
      const reply = await t.app.get(`/office/v1/attendances?${query}`, { token: admin() })
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe('LIST_OK')
      return reply.body
    }
    const byUser = await list(`user_id=${a.user.id}`)
    expect(ids(byUser.data)).toEqual([a3.id, a1.id])
    expect(byUser.meta).toEqual({ page: 1, limit: 10, total: 2, total_pages: 1 })
    expect(ids((await list(`team_id=${team.id}`)).data)).toEqual([a3.id, a1.id])
    const range = await list('date_from=2026-03-02&date_to=2026-03-03')
    expect(ids(range.data)).toEqual([a3.id, b2.id])
    expect(range.meta.total).toBe(2)
    expect(ids((await list(`date_from=2026-03-02&date_to=2026-03-02`)).data)).toEqual([b2.id])
    expect(ids((await list(`user_id=${a.user.id}&date_to=2026-03-02`)).data)).toEqual([a1.id])
    const paged = await list(`user_id=${a.user.id}&limit=1&page=2`)
    expect(ids(paged.data)).toEqual([a1.id])
    expect(paged.meta).toEqual({ page: 2, limit: 1, total: 2, total_pages: 2 })
    expect(ids((await list(`user_id=${foreigner.user.id}`)).data)).toEqual([])
    expect((await list('limit=100')).data.every((row: Row) => row.workspace_id === ws.id)).toBe(true)
    expectError(await t.app.get('/office/v1/attendances?date_from=2026-02-30', { token: admin() }), 400, 'VALIDATION_ERROR')
  })

  test("detail: 200 SUCCESS for the workspace's attendance; another workspace's id → 404 ATTENDANCE_NOT_FOUND", async () => {
    const mine = data(await manual({ user_id: (await t.app.member(ws, 'user')).user.id, date: '2026-03-04', check_in_at: '2026-03-04T08:00:00.000Z' }))
    const foreignUser = await t.app.member(other, 'user')
    const theirs = data(await manual({ user_id: foreignUser.user.id, date: '2026-03-04', check_in_at: '2026-03-04T08:00:00.000Z' }, other.owner.token))
    const detail = await t.app.get(`/office/v1/attendances/${mine.id}`, { token: admin() })
    expect(detail.status).toBe(200)
    expect(detail.body).toMatchObject({ code: 'SUCCESS', data: { id: mine.id, date: '2026-03-04' } })
    expectError(await t.app.get(`/office/v1/attendances/${theirs.id}`, { token: admin() }), 404, 'ATTENDANCE_NOT_FOUND')
    expectError(await t.app.get('/office/v1/attendances/999999', { token: admin() }), 404, 'ATTENDANCE_NOT_FOUND')
  })

  test('permissions: the field user gets 403 on office routes; a manager reads but cannot create; an admin may clock in; a custom role without attendance:clock gets 403 on clock-in/out/today', async () => {
    const field = await t.app.member(ws, 'user')
    const manager = await t.app.member(ws, 'manager')
    const someone = data(
      await manual({ user_id: field.user.id, date: '2026-03-05', check_in_at: '2026-03-05T08:00:00.000Z', check_out_at: '2026-03-05T09:00:00.000Z' }),
    )
    const before = await t.app.count('attendances')
    expectError(await t.app.get('/office/v1/attendances', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`/office/v1/attendances/${someone.id}`, { token: field.token }), 403, 'FORBIDDEN')
    expectError(await manual({ user_id: field.user.id, date: '2026-03-05', check_in_at: '2026-03-05T10:00:00.000Z' }, field.token), 403, 'FORBIDDEN')
    expect((await t.app.get('/office/v1/attendances', { token: manager.token })).status).toBe(200)
    expectError(await manual({ user_id: field.user.id, date: '2026-03-05', check_in_at: '2026-03-05T10:00:00.000Z' }, manager.token), 403, 'FORBIDDEN')

    const noClock = await t.app.memberWithGrants(ws, [{ key: 'outlet.view', platform: 'mobile', access: 'view' }])
    expectError(await clockIn(noClock), 403, 'FORBIDDEN')
    expectError(await clockOut(noClock), 403, 'FORBIDDEN')
    expectError(await t.app.get('/app/v1/attendances/today', { token: noClock.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('attendances')).toBe(before)

    const adminUser = await t.app.member(ws, 'admin')
    const adminClock = await clockIn(adminUser)
    expect(adminClock.status).toBe(201)
    expect(adminClock.body.code).toBe('ATTENDANCE_CLOCKED_IN')
  })

  // Last in this block: moves the clock (and so expires the tokens issued before).
  test('clock-out → 200 ATTENDANCE_CLOCKED_OUT with worked_minutes from clock-in to clock-out; today still shows it; audit created then updated', async () => {
    const field = await t.app.member(ws, 'user', { name: 'Worker Bee' })
    const opened = data(await clockIn(field))
    manualClock(t.app).advance(95 * 60_000 + 30_000)
    const again = await t.app.login(field.user.email)
    const reply = await clockOut(again, { latitude: -6.3, longitude: 106.9, photo: PNG })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      code: 'ATTENDANCE_CLOCKED_OUT',
      data: {
        id: opened.id,
        check_in_at: NOW,
        check_out_at: '2026-03-10T11:35:30.000Z',
        check_out_location: { latitude: -6.3, longitude: 106.9 },
        worked_minutes: 95,
      },
    })
    expect(reply.body.data.check_out_photo_url).toMatch(FILE_URL)
    const [stored] = await t.app.db.pragma(`SELECT check_out_at FROM attendances WHERE id = ${opened.id}`)
    expect(stored.check_out_at).toBe('2026-03-10T11:35:30.000Z')
    expect((await t.app.get('/app/v1/attendances/today', { token: again.token })).body.data).toMatchObject({ id: opened.id, worked_minutes: 95 })
    expectError(await clockOut(again), 409, 'ATTENDANCE_NOT_OPEN')

    const log = await auditRows(t.app, 'attendance', opened.id)
    expect(log.map((row) => row.action)).toEqual(['created', 'updated'])
    expect(log[0]).toMatchObject({ actor_id: field.user.id, old_values: null, new_values: { id: opened.id, check_in_at: NOW, check_out_at: null } })
    expect(log[1]).toMatchObject({
      actor_id: field.user.id,
      old_values: { check_out_at: null, worked_minutes: null },
      new_values: { check_out_at: '2026-03-10T11:35:30.000Z', worked_minutes: 95 },
    })
    expect(Object.keys(log[1].new_values)).not.toContain('check_in_at')
    expect(Object.keys(log[1].new_values)).not.toContain('updated_at')

    // A manual entry is audited as created by the office user.
    ws.owner = await t.app.login(ws.owner.user.email)
    const entered = data(
      await manual({ user_id: field.user.id, date: '2026-03-02', check_in_at: '2026-03-02T08:00:00.000Z', check_out_at: '2026-03-02T12:00:00.000Z' }),
    )
    const manualLog = await auditRows(t.app, 'attendance', entered.id)
    expect(manualLog).toHaveLength(1)
    expect(manualLog[0]).toMatchObject({
      action: 'created',
      actor_id: ws.owner.user.id,
      entity_name: 'Worker Bee · 2026-03-02',
      new_values: { source: 'manual', worked_minutes: 240 },
    })
  })
})

// ═════════════════════════════════════════════════════════════════════════════════════════════════

interface Push {
  notification: NotificationRow
  tokens: { token: string; platform: string }[]
  committed: boolean
}

describe('Notifications', () => {
  let t: TestApp
  const pushes: Push[] = []
  let ws: Workspace
  let other: Workspace
  let k: Kit
  let f1: Session
  let f2: Session
  let manager: Session
  const admin = () => ws.owner.token

  beforeAll(async () => {
    const base = await createTestApp()
    // A push service that records what it was given and whether the row was already committed
    // (visible on the reader connection).
    const sender: PushSender = {
      async send(notification, tokens) {
        const visible = await t.deps.db.read.select().from(notificationsTable).where(eq(notificationsTable.id, notification.id))
        pushes.push({ notification, tokens, committed: visible.length === 1 })
      },
    }
    const { app, deps } = await createApp({ db: base.deps.db, config: base.deps.config, clock: base.clock, push: sender })
    t = new TestApp(app, deps, base.dir, base.clock)
    manualClock(t).set(NOW)
    ws = await t.workspace()
    other = await t.workspace()
    k = await kit(t, ws.owner.token)
    f1 = await t.member(ws, 'user')
    f2 = await t.member(ws, 'user')
    manager = await t.member(ws, 'manager')
  })
  afterAll(async () => {
    await t?.close()
  })

  const notificationsOf = async (userId: number) =>
    (await t.db.pragma(`SELECT * FROM notifications WHERE user_id = ${userId} ORDER BY id`)).map((row) => ({ ...row, data: parseJson(row.data) })) as Row[]
  const settle = async (until: () => boolean) => {
    for (let i = 0; i < 200 && !until(); i++) await Bun.sleep(5)
  }

  test('assigning a visit notifies each new assignee (visit.assigned with the visit id); re-assigning notifies only the added user', async () => {
    const f3 = await t.member(ws, 'user')
    const before = [(await notificationsOf(f1.user.id)).length, (await notificationsOf(f2.user.id)).length]
    const visit = await planVisit(t, admin(), k, { user_ids: [f1.user.id, f2.user.id] })
    const mine = await notificationsOf(f1.user.id)
    expect(mine).toHaveLength(before[0] + 1)
    expect(mine.at(-1)).toMatchObject({ type: 'visit.assigned', workspace_id: ws.id, read_at: null, data: { visit_id: visit.id } })
    expect((await notificationsOf(f2.user.id)).at(-1)).toMatchObject({ type: 'visit.assigned', data: { visit_id: visit.id } })

    const assigned = await t.post(`/office/v1/visits/${visit.id}/assign`, { user_ids: [f1.user.id, f2.user.id, f3.user.id] }, { token: admin() })
    expect(assigned.status).toBe(200)
    expect(await notificationsOf(f1.user.id)).toHaveLength(before[0] + 1)
    expect(await notificationsOf(f2.user.id)).toHaveLength(before[1] + 1)
    const third = await notificationsOf(f3.user.id)
    expect(third.map((row) => [row.type, row.data.visit_id])).toEqual([['visit.assigned', visit.id]])
  })

  test("send-to-field notifies the visit's assignees (visit.sent_to_field)", async () => {
    const visit = await planVisit(t, admin(), k, { user_ids: [f2.user.id] })
    const sent = await t.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id] }, { token: admin() })
    expect(sent.status).toBe(200)
    expect((await notificationsOf(f2.user.id)).at(-1)).toMatchObject({ type: 'visit.sent_to_field', data: { visit_id: visit.id } })
    expect((await notificationsOf(f1.user.id)).some((row) => row.type === 'visit.sent_to_field' && row.data.visit_id === visit.id)).toBe(false)
  })

  test('approving or rejecting a submission notifies its submitter (submission.approved / submission.rejected)', async () => {
    const submitter = await t.member(ws, 'user')
    const first = await walkVisit(t, admin(), k, submitter)
    await review(t, admin(), first, 'approve', 'nice')
    const second = await walkVisit(t, admin(), k, submitter)
    await review(t, admin(), second, 'reject', 'blurry photo')
    const rows = await notificationsOf(submitter.user.id)
    expect(rows.map((row) => row.type)).toEqual(['visit.assigned', 'submission.approved', 'visit.assigned', 'submission.rejected'])
    expect(rows[1].data).toEqual({ submission_id: first.submissions[0].id, visit_id: first.id })
    expect(rows[3].data).toEqual({ submission_id: second.submissions[0].id, visit_id: second.id })
    expect(rows[3].body).toContain('blurry photo')
  })

  test("lists on both platforms show only the caller's own notifications, newest first, 10 by default; another user's and another workspace's never", async () => {
    const busy = await t.member(ws, 'user')
    for (let i = 0; i < 12; i++) {
      manualClock(t).advance(1_000)
      await planVisit(t, admin(), k, { user_ids: [busy.user.id, f1.user.id] })
    }
    const mobile = await t.get('/app/v1/notifications', { token: busy.token })
    expect(mobile.status).toBe(200)
    expect(mobile.body.code).toBe('LIST_OK')
    expect(mobile.body.meta).toEqual({ page: 1, limit: 10, total: 12, total_pages: 2 })
    expect(mobile.body.data).toHaveLength(10)
    expect(mobile.body.data.every((row: Row) => row.user_id === busy.user.id)).toBe(true)
    const stamps = mobile.body.data.map((row: Row) => row.created_at as string)
    expect(stamps).toEqual([...stamps].sort().reverse())
    expect(new Set(stamps).size).toBe(10)
    const all = (await t.get('/app/v1/notifications?limit=100', { token: busy.token })).body.data as Row[]
    expect(ids(all)).toEqual(sorted(ids(all)).reverse())
    expect(sorted(ids(all))).toEqual(ids(await notificationsOf(busy.user.id)))
    const page2 = await t.get('/app/v1/notifications?page=2', { token: busy.token })
    expect(ids(page2.body.data)).toEqual(ids(all).slice(10))
    expect((await t.get('/app/v1/notifications?limit=1000', { token: busy.token })).body.meta.limit).toBe(100)

    // The manager on the office list: only the manager's own.
    const visit = await planVisit(t, admin(), k, { user_ids: [manager.user.id] })
    const office = await t.get('/office/v1/notifications', { token: manager.token })
    expect(office.status).toBe(200)
    expect(office.body.data.map((row: Row) => [row.user_id, row.data.visit_id])).toEqual([[manager.user.id, visit.id]])
    // The owner's list holds only flagged check-ins of earlier tests (admins are told of those), none of the manager's.
    const ownersOwn = (await t.get('/office/v1/notifications?limit=100', { token: admin() })).body.data as Row[]
    expect(ownersOwn.filter((row) => row.type !== 'visit.flagged')).toEqual([])

    // The owner assigned in a second workspace: that notification shows only there.
    const second = data(await t.post('/office/v1/workspaces', { name: unique('Second') }, { token: admin() }))
    const switched = data(await t.post('/auth/switch-workspace', { workspace_id: second.id }, { token: admin() }), 200)
    const secondKit = await kit(t, switched.token)
    const there = await planVisit(t, switched.token, secondKit, { user_ids: [ws.owner.user.id] })
    const thereRows = (await notificationsOf(ws.owner.user.id)).filter((row) => row.type !== 'visit.flagged')
    expect(thereRows.map((row) => [row.workspace_id, row.data.visit_id])).toEqual([[second.id, there.id]])
    // In the first workspace the owner still has only the flagged check-ins admins are told of.
    const ownersAfter = (await t.get('/office/v1/notifications?limit=100', { token: admin() })).body.data as Row[]
    expect(ownersAfter.filter((row) => row.type !== 'visit.flagged')).toEqual([])
    expect(data(await t.get('/office/v1/notifications/unread-count', { token: admin() }), 200)).toEqual({ count: ownersAfter.length })
    expect(ids((await t.get('/office/v1/notifications', { token: switched.token })).body.data)).toEqual([thereRows[0].id])
    expectError(await t.put(`/office/v1/notifications/${thereRows[0].id}/read`, undefined, { token: admin() }), 404, 'NOTIFICATION_NOT_FOUND')

    // A user of another workspace sees none of these.
    const stranger = await t.member(other, 'user')
    expect((await t.get('/app/v1/notifications', { token: stranger.token })).body.meta.total).toBe(0)
  })

  test("unread=true lists only unread ones; unread-count answers {count}; PUT :id/read marks one (another user's id → 404 NOTIFICATION_NOT_FOUND); read-all answers how many it marked", async () => {
    const reader = await t.member(ws, 'user')
    const visits = []
    for (let i = 0; i < 3; i++) visits.push(await planVisit(t, admin(), k, { user_ids: [reader.user.id, f2.user.id] }))
    const rows = await notificationsOf(reader.user.id)
    expect(rows).toHaveLength(3)

    const count = await t.get('/app/v1/notifications/unread-count', { token: reader.token })
    expect(count.status).toBe(200)
    expect(count.body).toMatchObject({ code: 'SUCCESS', data: { count: 3 } })

    const readAt = t.clock.now().toISOString()
    const read = await t.put(`/app/v1/notifications/${rows[0].id}/read`, undefined, { token: reader.token })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ code: 'NOTIFICATION_READ', data: { id: rows[0].id, read_at: readAt } })
    expect((await notificationsOf(reader.user.id))[0].read_at).toBe(readAt)

    const unread = await t.get('/app/v1/notifications?unread=true', { token: reader.token })
    expect(ids(unread.body.data)).toEqual([rows[2].id, rows[1].id])
    expect(unread.body.meta.total).toBe(2)
    expect(ids((await t.get('/office/v1/notifications?unread=false', { token: reader.token })).body.data)).toEqual([rows[0].id])
    expect(data(await t.get('/office/v1/notifications/unread-count', { token: reader.token }), 200)).toEqual({ count: 2 })

    // Someone else's notification: 404 on both platforms, and it stays unread.
    const theirs = (await notificationsOf(f2.user.id)).at(-1)!
    expectError(await t.put(`/app/v1/notifications/${theirs.id}/read`, undefined, { token: reader.token }), 404, 'NOTIFICATION_NOT_FOUND')
    expectError(await t.put(`/office/v1/notifications/${theirs.id}/read`, undefined, { token: reader.token }), 404, 'NOTIFICATION_NOT_FOUND')
    expect((await notificationsOf(f2.user.id)).at(-1)!.read_at).toBeNull()

    const f2Unread = await t.count('notifications', `user_id = ${f2.user.id} AND read_at IS NULL`)
    const all = await t.put('/office/v1/notifications/read-all', undefined, { token: reader.token })
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ code: 'NOTIFICATIONS_READ', data: { count: 2 } })
    expect(await t.count('notifications', `user_id = ${reader.user.id} AND read_at IS NULL`)).toBe(0)
    expect(await t.count('notifications', `user_id = ${f2.user.id} AND read_at IS NULL`)).toBe(f2Unread)
    expect(data(await t.put('/app/v1/notifications/read-all', undefined, { token: reader.token }), 200)).toEqual({ count: 0 })
    expect(data(await t.get('/app/v1/notifications/unread-count', { token: reader.token }), 200)).toEqual({ count: 0 })
  })

  test('read marks, read-all and push-token registration write no audit entry', async () => {
    const quiet = await t.member(ws, 'user')
    await planVisit(t, admin(), k, { user_ids: [quiet.user.id] })
    await planVisit(t, admin(), k, { user_ids: [quiet.user.id] })
    const [first] = await notificationsOf(quiet.user.id)
    const before = await t.count('audit_logs')
    expect((await t.put(`/app/v1/notifications/${first.id}/read`, undefined, { token: quiet.token })).status).toBe(200)
    expect((await t.put('/app/v1/notifications/read-all', undefined, { token: quiet.token })).status).toBe(200)
    expect((await t.post('/app/v1/notifications/tokens', { token: unique('quiet-token'), platform: 'ios' }, { token: quiet.token })).status).toBe(201)
    expect(await t.count('audit_logs')).toBe(before)
  })

  test('POST /app/v1/notifications/tokens → 201; the same token again (also by another user) keeps one row and moves to the last user; invalid platform → 400', async () => {
    const token = unique('fcm-shared-token')
    const first = await t.post('/app/v1/notifications/tokens', { token, platform: 'android' }, { token: f1.token })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ code: 'PUSH_TOKEN_REGISTERED', data: { user_id: f1.user.id, token, platform: 'android' } })
    const again = data(await t.post('/app/v1/notifications/tokens', { token, platform: 'android' }, { token: f1.token }))
    expect(again.id).toBe(first.body.data.id)
    expect(await t.count('push_tokens', `token = '${token}'`)).toBe(1)

    const moved = data(await t.post('/app/v1/notifications/tokens', { token, platform: 'ios' }, { token: f2.token }))
    expect(moved).toMatchObject({ id: first.body.data.id, user_id: f2.user.id, platform: 'ios' })
    const stored = await t.db.pragma(`SELECT user_id, platform, workspace_id FROM push_tokens WHERE token = '${token}'`)
    expect(stored).toEqual([{ user_id: f2.user.id, platform: 'ios', workspace_id: ws.id }])

    const before = await t.count('push_tokens')
    const errors = expectError(
      await t.post('/app/v1/notifications/tokens', { token: unique('tok'), platform: 'windows' }, { token: f1.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toContain('platform')
    expectError(await t.post('/app/v1/notifications/tokens', { platform: 'android' }, { token: f1.token }), 400, 'VALIDATION_ERROR')
    expect(await t.count('push_tokens')).toBe(before)
  })

  test("a custom PushSender receives each new notification with its user's tokens after commit, and nothing for a refused request", async () => {
    const withTokens = await t.member(ws, 'user')
    const without = await t.member(ws, 'user')
    const android = unique('push-android')
    const ios = unique('push-ios')
    await t.post('/app/v1/notifications/tokens', { token: android, platform: 'android' }, { token: withTokens.token })
    await t.post('/app/v1/notifications/tokens', { token: ios, platform: 'ios' }, { token: withTokens.token })

    const visit = await planVisit(t, admin(), k, { user_ids: [withTokens.user.id, without.user.id] })
    const rows = [...(await notificationsOf(withTokens.user.id)), ...(await notificationsOf(without.user.id))]
    expect(rows).toHaveLength(2)
    const pushed = () => pushes.filter((push) => rows.some((row) => row.id === push.notification.id))
    await settle(() => pushed().length === 2)
    expect(pushed()).toHaveLength(2)
    const forWith = pushed().find((push) => push.notification.user_id === withTokens.user.id)!
    const forWithout = pushed().find((push) => push.notification.user_id === without.user.id)!
    expect(forWith.notification).toMatchObject({ type: 'visit.assigned', workspace_id: ws.id, data: { visit_id: visit.id } })
    expect([...forWith.tokens].sort((a, b) => a.token.localeCompare(b.token))).toEqual(
      [
        { token: android, platform: 'android' },
        { token: ios, platform: 'ios' },
      ].sort((a, b) => a.token.localeCompare(b.token)),
    )
    expect(forWithout.tokens).toEqual([])
    expect(forWith.committed && forWithout.committed).toBe(true)

    // Refused requests push nothing and store nothing.
    const pushCount = pushes.length
    const rowCount = await t.count('notifications')
    expectError(
      await t.post(
        '/office/v1/visits',
        { outlet_id: k.outlet.id, project_id: k.project.id, visit_date: TODAY, user_ids: [withTokens.user.id, 999_999] },
        { token: admin() },
      ),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await t.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id, 999_999] }, { token: admin() }), 400, 'VALIDATION_ERROR')
    await Bun.sleep(50)
    expect(pushes.length).toBe(pushCount)
    expect(await t.count('notifications')).toBe(rowCount)

    // And a token that moved to another user is pushed to that user only.
    await t.post('/app/v1/notifications/tokens', { token: android, platform: 'android' }, { token: without.token })
    await t.post('/office/v1/visits/send-to-field', { visit_ids: [visit.id] }, { token: admin() })
    await settle(() => pushes.length === pushCount + 2)
    const latest = pushes.slice(pushCount)
    expect(latest.map((push) => push.notification.type)).toEqual(['visit.sent_to_field', 'visit.sent_to_field'])
    expect(latest.find((push) => push.notification.user_id === withTokens.user.id)!.tokens).toEqual([{ token: ios, platform: 'ios' }])
    expect(latest.find((push) => push.notification.user_id === without.user.id)!.tokens).toEqual([{ token: android, platform: 'android' }])
  })
})

// ═════════════════════════════════════════════════════════════════════════════════════════════════

describe('Dashboard', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  let t1: Row
  let t2: Row
  let otherTeam: Row
  let f1: Session
  let f2: Session
  let f4: Session
  let manager: Session
  let field: Session
  const admin = () => ws.owner.token

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
    manager = await t.app.member(ws, 'manager')
    field = await t.app.member(ws, 'user')
    f1 = await t.app.member(ws, 'user', { name: 'Ahmad One' })
    f2 = await t.app.member(ws, 'user', { name: 'Budi Two' })
    const f3 = await t.app.member(ws, 'user', { name: 'Citra Three' })
    f4 = await t.app.member(ws, 'user', { name: 'Dewi Four' })
    const f5 = await t.app.member(ws, 'user', { name: 'Eko Five' })
    t1 = data(await t.app.post('/office/v1/teams', { name: 'Team Alpha', user_ids: [f1.user.id, f3.user.id] }, { token: admin() }))
    t2 = data(await t.app.post('/office/v1/teams', { name: 'Team Beta', user_ids: [f2.user.id, f5.user.id] }, { token: admin() }))
    const k = await kit(t.app, admin())

    // Default range (2026-03-04 … 2026-03-10): V1 completed+approved, V2 in_progress+pending, V3 completed+rejected,
    // V4 scheduled, V5 cancelled, V6 force_closed, V7 scheduled (no team). V8 (03-01) is out of range.
    const v1 = await walkVisit(t.app, admin(), k, f1, { visit_date: '2026-03-10', team_id: t1.id })
    await review(t.app, admin(), v1, 'approve')
    await walkVisit(t.app, admin(), k, f1, { visit_date: '2026-03-09', team_id: t1.id }, { checkOut: false })
    const v3 = await walkVisit(t.app, admin(), k, f2, { visit_date: '2026-03-08', team_id: t2.id })
    await review(t.app, admin(), v3, 'reject')
    await planVisit(t.app, admin(), k, { visit_date: '2026-03-07', team_id: t2.id, user_ids: [f2.user.id] })
    const v5 = await planVisit(t.app, admin(), k, { visit_date: '2026-03-06', team_id: t1.id, user_ids: [f1.user.id] })
    data(await t.app.put(`/office/v1/visits/${v5.id}/cancel`, { reason: 'closed shop' }, { token: admin() }), 200)
    const v6 = await planVisit(t.app, admin(), k, { visit_date: '2026-03-06', team_id: t2.id, user_ids: [f2.user.id] })
    await checkInVisit(t.app, v6.id, f2)
    data(await t.app.put(`/office/v1/visits/${v6.id}/force-close`, { reason: 'forgot to check out' }, { token: admin() }), 200)
    await planVisit(t.app, admin(), k, { visit_date: '2026-03-05', user_ids: [f4.user.id] })
    await walkVisit(t.app, admin(), k, f3, { visit_date: '2026-03-01', team_id: t1.id }, { checkOut: false })

    // Activity: f3 pinged on 03-05, f1 pings now, f4 has an attendance on 03-06; f5 was active only in February.
    await pingBatch(t.app, f3, [{ recorded_at: '2026-03-05T09:00:00.000Z' }, { recorded_at: '2026-03-05T09:05:00.000Z' }])
    await pingBatch(t.app, f1, [{}])
    await pingBatch(t.app, f5, [{ recorded_at: '2026-02-20T09:00:00.000Z' }])
    for (const [who, date] of [
      [f4, '2026-03-06'],
      [f5, '2026-02-25'],
    ] as const) {
      data(
        await t.app.post(
          '/office/v1/attendances',
          { user_id: who.user.id, date, check_in_at: `${date}T08:00:00.000Z`, check_out_at: `${date}T16:00:00.000Z` },
          { token: admin() },
        ),
      )
    }

    // Another workspace, busy today: never counted here.
    const otherKit = await kit(t.app, other.owner.token)
    const stranger = await t.app.member(other, 'user')
    otherTeam = data(await t.app.post('/office/v1/teams', { name: 'Their Team', user_ids: [stranger.user.id] }, { token: other.owner.token }))
    const theirs = await walkVisit(t.app, other.owner.token, otherKit, stranger, { team_id: otherTeam.id }, { checkOut: false })
    expect(theirs.id).toBeGreaterThan(0)
    await pingBatch(t.app, stranger, [{}])
    data(await t.app.post('/app/v1/attendances/clock-in', HERE, { token: stranger.token }))
  })

  const metrics = async (query = '', token = admin()) => {
    const reply = await t.app.get(`/office/v1/dashboard/metrics${query}`, { token })
    if (reply.status !== 200) throw new Error(`metrics ${query}: ${reply.status} ${reply.text}`)
    expect(reply.body.code).toBe('SUCCESS')
    return reply.body.data
  }

  test('metrics for the default range (the last 7 days): visits by status, completion_rate = completed / (total − cancelled), submissions, pending_approvals, active_field_users, pings_received', async () => {
    expect(await metrics()).toEqual({
      range: { date_from: '2026-03-04', date_to: TODAY },
      visits: { total: 7, scheduled: 2, in_progress: 1, completed: 2, cancelled: 1, force_closed: 1 },
      completion_rate: 0.3333,
      submissions: { pending: 1, approved: 1, rejected: 1 },
      pending_approvals: 1,
      // f1 (checked in, pinged), f2 (checked in), f3 (pinged on 03-05, checked in), f4 (attendance on 03-06)
      active_field_users: 4,
      // f3's two pings on 03-05 and f1's today, by recorded_at
      pings_received: 3,
    })
  })

  test('metrics for an explicit range: visit dates, check-ins, attendances and pings outside it are left out', async () => {
    expect(await metrics('?date_from=2026-03-04&date_to=2026-03-09')).toEqual({
      range: { date_from: '2026-03-04', date_to: '2026-03-09' },
      visits: { total: 6, scheduled: 2, in_progress: 1, completed: 1, cancelled: 1, force_closed: 1 },
      completion_rate: 0.2,
      submissions: { pending: 1, approved: 0, rejected: 1 },
      pending_approvals: 1,
      active_field_users: 2,
      pings_received: 2,
    })
    const february = await metrics('?date_from=2026-02-01&date_to=2026-03-01')
    expect(february).toMatchObject({
      visits: { total: 1, in_progress: 1 },
      completion_rate: 0,
      submissions: { pending: 1, approved: 0, rejected: 0 },
      pending_approvals: 1,
      active_field_users: 1,
      pings_received: 1,
    })
    // Only date_to: the 7 days up to it.
    expect((await metrics('?date_to=2026-03-07')).range).toEqual({ date_from: '2026-03-01', date_to: '2026-03-07' })
  })

  test("metrics team_id filter: only that team's visits, submissions, members and pings; another workspace's team gives zeros", async () => {
    expect(await metrics(`?team_id=${t1.id}`)).toEqual({
      range: { date_from: '2026-03-04', date_to: TODAY },
      visits: { total: 3, scheduled: 0, in_progress: 1, completed: 1, cancelled: 1, force_closed: 0 },
      completion_rate: 0.5,
      submissions: { pending: 1, approved: 1, rejected: 0 },
      pending_approvals: 1,
      active_field_users: 2,
      pings_received: 3,
    })
    expect(await metrics(`?team_id=${otherTeam.id}`)).toEqual({
      range: { date_from: '2026-03-04', date_to: TODAY },
      visits: { total: 0, scheduled: 0, in_progress: 0, completed: 0, cancelled: 0, force_closed: 0 },
      completion_rate: 0,
      submissions: { pending: 0, approved: 0, rejected: 0 },
      pending_approvals: 0,
      active_field_users: 0,
      pings_received: 0,
    })
  })

  test('workspace isolation: the other workspace sees only its own figures', async () => {
    expect(await metrics('', other.owner.token)).toMatchObject({
      visits: { total: 1, in_progress: 1 },
      submissions: { pending: 1, approved: 0, rejected: 0 },
      active_field_users: 1,
      pings_received: 1,
    })
    const summary = data(await t.app.get('/office/v1/dashboard/summary', { token: other.owner.token }), 200)
    expect(summary.teams.map((row: Row) => row.team_id)).toEqual([otherTeam.id])
    expect(summary.users).toHaveLength(1)
  })

  test('date_from after date_to → 400 errors.date_from; malformed dates → 400 VALIDATION_ERROR (metrics and summary)', async () => {
    for (const path of ['/office/v1/dashboard/metrics', '/office/v1/dashboard/summary']) {
      expect(Object.keys(expectError(await t.app.get(`${path}?date_from=2026-03-10&date_to=2026-03-01`, { token: admin() }), 400, 'VALIDATION_ERROR'))).toEqual(
        ['date_from'],
      )
      for (const query of ['date_from=2026-13-01', 'date_to=yesterday', 'date_from=2026-02-30', 'date_to=10-03-2026', 'team_id=abc']) {
        expectError(await t.app.get(`${path}?${query}`, { token: admin() }), 400, 'VALIDATION_ERROR')
      }
    }
  })

  test('summary per team and per user with the same figures (visits_total, visits_completed, completion_rate, pending_approvals)', async () => {
    const reply = await t.app.get('/office/v1/dashboard/summary', { token: admin() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('SUCCESS')
    const summary = reply.body.data
    expect(summary.range).toEqual({ date_from: '2026-03-04', date_to: TODAY })
    const byTeam = Object.fromEntries(summary.teams.map((row: Row) => [String(row.team_id), row]))
    expect(summary.teams).toHaveLength(3)
    expect(byTeam[String(t1.id)]).toEqual({
      team_id: t1.id,
      team_name: 'Team Alpha',
      visits_total: 3,
      visits_completed: 1,
      completion_rate: 0.5,
      pending_approvals: 1,
    })
    expect(byTeam[String(t2.id)]).toEqual({
      team_id: t2.id,
      team_name: 'Team Beta',
      visits_total: 3,
      visits_completed: 1,
      completion_rate: 0.3333,
      pending_approvals: 0,
    })
    expect(byTeam.null).toEqual({ team_id: null, team_name: null, visits_total: 1, visits_completed: 0, completion_rate: 0, pending_approvals: 0 })
    const byUser = Object.fromEntries(summary.users.map((row: Row) => [row.user_id, row]))
    expect(summary.users).toHaveLength(3)
    expect(byUser[f1.user.id]).toEqual({ user_id: f1.user.id, name: 'Ahmad One', visits_total: 3, visits_completed: 1, completion_rate: 0.5 })
    expect(byUser[f2.user.id]).toEqual({ user_id: f2.user.id, name: 'Budi Two', visits_total: 3, visits_completed: 1, completion_rate: 0.3333 })
    expect(byUser[f4.user.id]).toEqual({ user_id: f4.user.id, name: 'Dewi Four', visits_total: 1, visits_completed: 0, completion_rate: 0 })

    // The same figures as the metrics: totals add up.
    const m = await metrics()
    expect(summary.teams.reduce((sum: number, row: Row) => sum + row.visits_total, 0)).toBe(m.visits.total)
    expect(summary.teams.reduce((sum: number, row: Row) => sum + row.visits_completed, 0)).toBe(m.visits.completed)
    expect(summary.teams.reduce((sum: number, row: Row) => sum + row.pending_approvals, 0)).toBe(m.pending_approvals)

    const team = data(await t.app.get(`/office/v1/dashboard/summary?team_id=${t2.id}`, { token: admin() }), 200)
    expect(team.teams.map((row: Row) => row.team_id)).toEqual([t2.id])
    expect(team.users.map((row: Row) => row.user_id)).toEqual([f2.user.id])
  })

  test('active_field_users counts the assignee who checked in, not a co-assignee of the same visit who did nothing', async () => {
    const third = await t.app.workspace()
    const k = await kit(t.app, third.owner.token)
    const doer = await t.app.member(third, 'user')
    const bystander = await t.app.member(third, 'user')
    const visit = await planVisit(t.app, third.owner.token, k, { user_ids: [doer.user.id, bystander.user.id] })
    await checkInVisit(t.app, visit.id, doer)
    expect(await metrics('', third.owner.token)).toMatchObject({ visits: { total: 1, in_progress: 1 }, active_field_users: 1, pings_received: 0 })
  })

  test('permissions: a manager gets 200, a field user 403 on both dashboard routes', async () => {
    expect((await t.app.get('/office/v1/dashboard/metrics', { token: manager.token })).status).toBe(200)
    expect((await t.app.get('/office/v1/dashboard/summary', { token: manager.token })).status).toBe(200)
    expectError(await t.app.get('/office/v1/dashboard/metrics', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/dashboard/summary', { token: field.token }), 403, 'FORBIDDEN')
  })
})

// ═════════════════════════════════════════════════════════════════════════════════════════════════

const CSV_HEADER = [
  'submission_id',
  'visit_id',
  'visit_date',
  'outlet_code',
  'outlet_name',
  'project_name',
  'team_name',
  'form_title',
  'status',
  'approval_status',
  'submitted_at',
  'submitted_by',
  'reviewed_at',
  'reviewed_by',
  'approval_notes',
  'answers',
]

describe('Exports', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  let admin2: Session
  let field: Session
  let manager: Session
  let t1: Row
  let t2: Row
  let s1: Row
  let s2: Row
  let s3: Row
  let s4: Row
  const admin = () => ws.owner.token

  /** Holds the runner: jobs requested inside `fn` stay queued until released. */
  async function holding<T>(fn: () => Promise<T>) {
    const runner = t.app.deps.exports as unknown as { enqueue: (id: number) => void }
    const original = runner.enqueue
    const held: number[] = []
    runner.enqueue = (id: number) => {
      held.push(id)
    }
    try {
      const result = await fn()
      return { result, release: () => held.forEach((id) => original.call(runner, id)), held }
    } finally {
      runner.enqueue = original
    }
  }

  const request = async (format: 'csv' | 'pdf', query = '', token = admin()) => {
    const reply = await t.app.get(`/office/v1/export/submissions/${format}${query}`, { token })
    if (reply.status !== 202) throw new Error(`export: ${reply.status} ${reply.text}`)
    return reply.body.data as { id: number; status: string }
  }
  const download = (id: number, token = admin()) =>
    t.app.app.handle(new Request(`http://localhost/api/office/v1/export/jobs/${id}/download`, { headers: { authorization: `Bearer ${token}` } }))
  const csvRows = async (query: string) => {
    const job = await request('csv', query)
    await t.app.deps.exports.idle()
    const response = await download(job.id)
    expect(response.status).toBe(200)
    const rows = parse(await response.text()) as string[][]
    expect(rows[0]).toEqual(CSV_HEADER)
    return rows.slice(1).map((row) => Object.fromEntries(CSV_HEADER.map((column, i) => [column, row[i]])))
  }
  const submissionIds = (rows: Row[]) => sorted(rows.map((row) => Number(row.submission_id)))

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
    admin2 = await t.app.member(ws, 'admin')
    manager = await t.app.member(ws, 'manager')
    field = await t.app.member(ws, 'user', { name: '+62 Budi' })
    t1 = data(await t.app.post('/office/v1/teams', { name: 'Team One', user_ids: [field.user.id] }, { token: admin() }))
    t2 = data(await t.app.post('/office/v1/teams', { name: 'Team Two' }, { token: admin() }))
    const shelf = await kit(t.app, admin(), { outletName: 'Toko Satu', outletCode: 'TS-1', formTitle: 'Shelf Check' })
    const price = await kit(t.app, admin(), { outletName: '=SUM(A1:A9)', outletCode: '-42', formTitle: 'Price Audit' })
    const third = { ...shelf, outlet: data(await t.app.post('/office/v1/outlets', { name: 'Warung Tiga', code: 'WT-3' }, { token: admin() })) }
    const fourth = { ...shelf, outlet: data(await t.app.post('/office/v1/outlets', { name: 'Kios Empat' }, { token: admin() })) }

    const v1 = await walkVisit(t.app, admin(), shelf, field, { visit_date: '2026-03-05', team_id: t1.id })
    await review(t.app, admin(), v1, 'approve', 'fine')
    const v2 = await walkVisit(t.app, admin(), price, field, { visit_date: '2026-03-08', team_id: t2.id }, { answers: { note: '=HYPERLINK("http://evil")' } })
    const v3 = await walkVisit(t.app, admin(), third, field, { visit_date: '2026-03-02', team_id: t1.id })
    await review(t.app, admin(), v3, 'reject', '@risky notes')
    const v4 = await planVisit(t.app, admin(), fourth, { visit_date: '2026-03-06', team_id: t1.id, user_ids: [field.user.id] })
    ;[s1, s2, s3, s4] = [v1, v2, v3, v4].map((visit) => visit.submissions[0])

    const foreignKit = await kit(t.app, other.owner.token, { outletName: 'Foreign Outlet' })
    const foreigner = await t.app.member(other, 'user')
    await walkVisit(t.app, other.owner.token, foreignKit, foreigner)
  })

  test('GET /office/v1/export/submissions/csv and /pdf → 202 EXPORT_QUEUED {id, status:"queued"}; the job is stored for the caller with the filters', async () => {
    for (const format of ['csv', 'pdf'] as const) {
      const reply = await t.app.get(`/office/v1/export/submissions/${format}?approval_status=pending&team_id=${t2.id}`, { token: admin() })
      expect(reply.status).toBe(202)
      expect(reply.body).toMatchObject({ success: true, code: 'EXPORT_QUEUED' })
      expect(Object.keys(reply.body.data).sort()).toEqual(['id', 'status'])
      expect(reply.body.data.status).toBe('queued')
      const [job] = await t.app.db.pragma(`SELECT * FROM export_jobs WHERE id = ${reply.body.data.id}`)
      expect(job).toMatchObject({ user_id: ws.owner.user.id, workspace_id: ws.id, format, kind: 'submissions' })
      expect(parseJson(job.filters)).toEqual({ approval_status: 'pending', team_id: t2.id })
    }
    await t.app.deps.exports.idle()
    expectError(await t.app.get('/office/v1/export/submissions/xlsx', { token: admin() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.get('/office/v1/export/submissions/csv?approval_status=maybe', { token: admin() }), 400, 'VALIDATION_ERROR')
  })

  test('download before the job is done → 409 EXPORT_NOT_READY; detail shows queued, then done with row_count and a download_url', async () => {
    const { result: job, release } = await holding(() => request('csv', '?approval_status=approved'))
    const queued = data(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() }), 200)
    expect(queued).toMatchObject({ id: job.id, status: 'queued', row_count: null, download_url: null, format: 'csv' })
    const early = await t.app.get(`/office/v1/export/jobs/${job.id}/download`, { token: admin() })
    expectError(early, 409, 'EXPORT_NOT_READY')
    release()
    await t.app.deps.exports.idle()
    const done = await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() })
    expect(done.body).toMatchObject({
      code: 'SUCCESS',
      data: { id: job.id, status: 'done', row_count: 1, error: null, download_url: `/api/office/v1/export/jobs/${job.id}/download` },
    })
    expect(['queued', 'running', 'done', 'failed']).toContain(done.body.data.status)
    expect((await download(job.id)).status).toBe(200)
  })

  test("the jobs list shows only the caller's own jobs, newest first; another user's job id → 404 on detail and download", async () => {
    const mine = await request('csv')
    const theirs = await request('pdf', '', admin2.token)
    await t.app.deps.exports.idle()
    const list = await t.app.get('/office/v1/export/jobs?limit=100', { token: admin() })
    expect(list.status).toBe(200)
    expect(list.body.code).toBe('LIST_OK')
    expect(list.body.data.every((job: Row) => job.user_id === ws.owner.user.id)).toBe(true)
    expect(ids(list.body.data)).toContain(mine.id)
    expect(ids(list.body.data)).not.toContain(theirs.id)
    expect(ids(list.body.data)).toEqual(sorted(ids(list.body.data)).reverse())
    expect(list.body.meta.total).toBe(await t.app.count('export_jobs', `user_id = ${ws.owner.user.id}`))
    expect(ids((await t.app.get('/office/v1/export/jobs', { token: admin2.token })).body.data)).toEqual([theirs.id])
    expectError(await t.app.get(`/office/v1/export/jobs/${theirs.id}`, { token: admin() }), 404, 'EXPORT_JOB_NOT_FOUND')
    expectError(await t.app.get(`/office/v1/export/jobs/${theirs.id}/download`, { token: admin() }), 404, 'EXPORT_JOB_NOT_FOUND')
    expectError(await t.app.get(`/office/v1/export/jobs/${mine.id}`, { token: other.owner.token }), 404, 'EXPORT_JOB_NOT_FOUND')
  })

  test('CSV: 200 text/csv with the header row and one row per submission matching the filters (approval_status, team_id, date range); other workspaces never included', async () => {
    const job = await request('csv')
    await t.app.deps.exports.idle()
    const response = await download(job.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/csv')
    const all = parse(await response.text()) as string[][]
    expect(all[0]).toEqual(CSV_HEADER)
    expect(all).toHaveLength(5)
    expect(data(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() }), 200).row_count).toBe(4)

    const rows = await csvRows('')
    expect(submissionIds(rows)).toEqual(sorted([s1.id, s2.id, s3.id, s4.id]))
    expect(rows.some((row) => row.outlet_name === 'Foreign Outlet')).toBe(false)
    const first = rows.find((row) => Number(row.submission_id) === s1.id)!
    expect(first).toMatchObject({
      visit_date: '2026-03-05',
      outlet_code: 'TS-1',
      outlet_name: 'Toko Satu',
      team_name: 'Team One',
      form_title: 'Shelf Check',
      status: 'completed',
      approval_status: 'approved',
      approval_notes: 'fine',
    })
    expect(JSON.parse(first.answers)).toEqual({ note: 'all good' })

    expect(submissionIds(await csvRows('?approval_status=pending'))).toEqual([s2.id])
    expect(submissionIds(await csvRows(`?team_id=${t1.id}`))).toEqual(sorted([s1.id, s3.id, s4.id]))
    expect(submissionIds(await csvRows('?date_from=2026-03-04&date_to=2026-03-07'))).toEqual(sorted([s1.id, s4.id]))
    expect(submissionIds(await csvRows(`?approval_status=rejected&team_id=${t1.id}&date_from=2026-03-01&date_to=2026-03-02`))).toEqual([s3.id])
    expect(await csvRows(`?approval_status=approved&team_id=${t2.id}`)).toEqual([])
  })

  test("CSV cells starting with = + - @ are prefixed with ' so spreadsheets do not run them", async () => {
    const rows = await csvRows('')
    const formula = rows.find((row) => Number(row.submission_id) === s2.id)!
    expect(formula.outlet_name).toBe("'=SUM(A1:A9)")
    expect(formula.outlet_code).toBe("'-42")
    expect(formula.submitted_by).toBe("'+62 Budi")
    expect(JSON.parse(formula.answers)).toEqual({ note: '=HYPERLINK("http://evil")' })
    expect(rows.find((row) => Number(row.submission_id) === s3.id)!.approval_notes).toBe("'@risky notes")
    expect(rows.find((row) => Number(row.submission_id) === s1.id)!.outlet_name).toBe('Toko Satu')
  })

  test('PDF: 200 application/pdf whose text has the title "Submissions report", the filters used and the outlet and form names of its rows', async () => {
    const job = await request('pdf', `?approval_status=approved&team_id=${t1.id}`)
    await t.app.deps.exports.idle()
    const response = await download(job.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/pdf')
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-')
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true })
    expect(text).toContain('Submissions report')
    expect(text).toContain('approval_status=approved')
    expect(text).toContain(`team_id=${t1.id}`)
    expect(text).toContain('Toko Satu')
    expect(text).toContain('Shelf Check')
    expect(text).not.toContain('Warung Tiga')
    expect(text).not.toContain('Price Audit')
    expect(data(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: admin() }), 200)).toMatchObject({ status: 'done', row_count: 1, format: 'pdf' })
  })

  test("a job whose requester was deleted before it ran ends failed; a failed job's download → 409 EXPORT_FAILED", async () => {
    const leaver = await t.app.member(ws, 'admin')
    const { result: job, release } = await holding(() => request('csv', '', leaver.token))
    expect((await t.app.delete(`/office/v1/users/${leaver.user.id}`, { token: admin() })).status).toBe(200)
    release()
    await t.app.deps.exports.idle()
    const [row] = await t.app.db.pragma(`SELECT status, error, path, finished_at FROM export_jobs WHERE id = ${job.id}`)
    expect(row.status).toBe('failed')
    expect(row.path).toBeNull()
    expect(typeof row.error).toBe('string')
    expect(typeof row.finished_at).toBe('string')
    expect(existsSync(resolve(t.app.deps.config.EXPORT_DIR, String(ws.id), `submissions-${job.id}.csv`))).toBe(false)

    // The same with a requester who was deactivated, then let back in to look at the job.
    const paused = await t.app.member(ws, 'admin')
    const held = await holding(() => request('pdf', '', paused.token))
    data(await t.app.put(`/office/v1/users/${paused.user.id}`, { is_active: false }, { token: admin() }), 200)
    held.release()
    await t.app.deps.exports.idle()
    data(await t.app.put(`/office/v1/users/${paused.user.id}`, { is_active: true }, { token: admin() }), 200)
    const back = await t.app.login(paused.user.email)
    expect(data(await t.app.get(`/office/v1/export/jobs/${held.result.id}`, { token: back.token }), 200)).toMatchObject({
      status: 'failed',
      download_url: null,
      row_count: null,
    })
    expectError(await t.app.get(`/office/v1/export/jobs/${held.result.id}/download`, { token: back.token }), 409, 'EXPORT_FAILED')
  })

  test('a job whose requester lost export access (role changed to field user) before it ran ends failed', async () => {
    const demoted = await t.app.member(ws, 'admin')
    const { result: job, release } = await holding(() => request('csv', '', demoted.token))
    data(await t.app.put(`/office/v1/users/${demoted.user.id}`, { role_id: ws.roles.user }, { token: admin() }), 200)
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: demoted.token }), 403, 'FORBIDDEN')
    release()
    await t.app.deps.exports.idle()
    const [row] = await t.app.db.pragma(`SELECT status, path FROM export_jobs WHERE id = ${job.id}`)
    expect(row).toEqual({ status: 'failed', path: null })
  })

  test('permissions: a field user gets 403 on every export route; a manager may export', async () => {
    const job = await request('csv')
    await t.app.deps.exports.idle()
    const before = await t.app.count('export_jobs')
    expectError(await t.app.get('/office/v1/export/submissions/csv', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/export/submissions/pdf', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get('/office/v1/export/jobs', { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}`, { token: field.token }), 403, 'FORBIDDEN')
    expectError(await t.app.get(`/office/v1/export/jobs/${job.id}/download`, { token: field.token }), 403, 'FORBIDDEN')
    expect(await t.app.count('export_jobs')).toBe(before)
    expect((await t.app.get('/office/v1/export/submissions/csv', { token: manager.token })).status).toBe(202)
    await t.app.deps.exports.idle()
  })

  // Last in this block: moves the clock.
  test('the export-cleanup job removes jobs and files older than 7 days and keeps newer ones', async () => {
    const old = await request('csv')
    await t.app.deps.exports.idle()
    manualClock(t.app).advance(2 * 86_400_000)
    ws.owner = await t.app.login(ws.owner.user.email)
    const recent = await request('csv')
    await t.app.deps.exports.idle()
    manualClock(t.app).advance(6 * 86_400_000)
    ws.owner = await t.app.login(ws.owner.user.email)
    const fresh = await request('pdf')
    await t.app.deps.exports.idle()

    const pathOf = async (id: number) => {
      const [row] = await t.app.db.pragma(`SELECT path FROM export_jobs WHERE id = ${id}`)
      return resolve(t.app.deps.config.EXPORT_DIR, String(row.path))
    }
    const files = { old: await pathOf(old.id), recent: await pathOf(recent.id), fresh: await pathOf(fresh.id) }
    expect(Object.values(files).every((path) => existsSync(path))).toBe(true)
    const expired = await t.app.count('export_jobs', `created_at < '${new Date(t.app.clock.now().getTime() - 7 * 86_400_000).toISOString()}'`)
    expect(expired).toBeGreaterThan(0)
    const total = await t.app.count('export_jobs')

    expect(await purgeOldExports(t.app.deps)).toBe(expired)
    expect(await t.app.count('export_jobs')).toBe(total - expired)
    expect(await t.app.count('export_jobs', `id = ${old.id}`)).toBe(0)
    expect(existsSync(files.old)).toBe(false)
    expect(existsSync(files.recent)).toBe(true)
    expect(existsSync(files.fresh)).toBe(true)
    expectError(await t.app.get(`/office/v1/export/jobs/${old.id}`, { token: admin() }), 404, 'EXPORT_JOB_NOT_FOUND')
    expect((await download(recent.id)).status).toBe(200)
    expect((await download(fresh.id)).status).toBe(200)
    expect(await purgeOldExports(t.app.deps)).toBe(0)
  })
})

// ═════════════════════════════════════════════════════════════════════════════════════════════════

describe('Profile', () => {
  const t = useTestApp()
  let ws: Workspace

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
  })

  test("GET /app/v1/profile answers the caller's own data and never a password or hash", async () => {
    const me = await t.app.member(ws, 'user', { name: 'Pat Field' })
    await t.app.member(ws, 'user', { name: 'Someone Else' })
    const reply = await t.app.get('/app/v1/profile', { token: me.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      code: 'SUCCESS',
      data: { id: me.user.id, name: 'Pat Field', email: me.user.email, phone: null, role: { slug: 'user' }, is_active: true },
    })
    expect(reply.text).not.toMatch(/password|hash|\$argon2|\$2[aby]\$/i)
    const [stored] = await t.app.db.pragma(`SELECT password_hash FROM users WHERE id = ${me.user.id}`)
    expect(reply.text).not.toContain(String(stored.password_hash))
  })

  test('PUT /app/v1/profile {name, phone} → 200 PROFILE_UPDATED; audit `updated` on the user with only the changed fields', async () => {
    const me = await t.app.member(ws, 'user', { name: 'Rina Field' })
    const reply = await t.app.put('/app/v1/profile', { name: 'Rina Field', phone: '0812-3456' }, { token: me.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ code: 'PROFILE_UPDATED', data: { id: me.user.id, name: 'Rina Field', phone: '0812-3456' } })
    expect(reply.text).not.toMatch(/password|hash/i)
    expect(data(await t.app.get('/app/v1/profile', { token: me.token }), 200).phone).toBe('0812-3456')

    // Fields other than name and phone are ignored, never stored.
    const [before] = await t.app.db.pragma(`SELECT email, password_hash FROM users WHERE id = ${me.user.id}`)
    const roleBefore = await t.app.db.pragma(`SELECT role_id, is_active FROM memberships WHERE user_id = ${me.user.id}`)
    const renamed = await t.app.put(
      '/app/v1/profile',
      { name: '  Rina Lapangan ', email: 'taken-over@example.com', role_id: ws.roles.super_admin, is_active: false, password_hash: 'x' },
      { token: me.token },
    )
    expect(await t.app.db.pragma(`SELECT email, password_hash FROM users WHERE id = ${me.user.id}`)).toEqual([before])
    expect(await t.app.db.pragma(`SELECT role_id, is_active FROM memberships WHERE user_id = ${me.user.id}`)).toEqual(roleBefore)
    expect(renamed.body).toMatchObject({ code: 'PROFILE_UPDATED', data: { name: 'Rina Lapangan', phone: '0812-3456' } })

    const log = (await auditRows(t.app, 'user', me.user.id)).filter((row) => row.action === 'updated')
    expect(log).toHaveLength(2)
    expect(log[0]).toMatchObject({ actor_id: me.user.id, old_values: { phone: null }, new_values: { phone: '0812-3456' } })
    expect(Object.keys(log[0].new_values)).toEqual(['phone'])
    expect(log[1]).toMatchObject({ entity_name: 'Rina Lapangan', old_values: { name: 'Rina Field' }, new_values: { name: 'Rina Lapangan' } })
    expect(Object.keys(log[1].new_values)).toEqual(['name'])
  })

  test('PUT /app/v1/profile with an empty body or a blank name → 400 VALIDATION_ERROR; nothing changes and nothing is audited', async () => {
    const me = await t.app.member(ws, 'user', { name: 'Steady Person' })
    const before = [await t.app.db.pragma(`SELECT name, phone, updated_at FROM users WHERE id = ${me.user.id}`), await t.app.count('audit_logs')]
    expectError(await t.app.put('/app/v1/profile', {}, { token: me.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put('/app/v1/profile', { name: '   ' }, { token: me.token }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put('/app/v1/profile', { email: 'new@example.com' }, { token: me.token }), 400, 'VALIDATION_ERROR')
    expect([await t.app.db.pragma(`SELECT name, phone, updated_at FROM users WHERE id = ${me.user.id}`), await t.app.count('audit_logs')]).toEqual(before)
  })

  test('PUT /app/v1/profile/password with a wrong current password → 400 errors.current_password; nothing changes', async () => {
    const me = await t.app.member(ws, 'user')
    const other = await t.app.login(me.user.email)
    const snapshot = async () => [
      await t.app.db.pragma(`SELECT password_hash, updated_at FROM users WHERE id = ${me.user.id}`),
      await t.app.count('refresh_tokens', `user_id = ${me.user.id} AND revoked_at IS NOT NULL`),
      await t.app.count('audit_logs'),
    ]
    const before = await snapshot()
    const errors = expectError(
      await t.app.put('/app/v1/profile/password', { current_password: 'not-my-password', new_password: 'brand-new-pass1' }, { token: me.token }),
      400,
      'VALIDATION_ERROR',
    )
    expect(Object.keys(errors)).toEqual(['current_password'])
    expect(await snapshot()).toEqual(before)
    expect((await t.app.post('/auth/login', { email: me.user.email, password: 'password123' })).status).toBe(200)
    expectError(await t.app.post('/auth/login', { email: me.user.email, password: 'brand-new-pass1' }), 401, 'INVALID_CREDENTIALS')
    expect((await t.app.post('/auth/refresh', { refresh_token: other.refresh_token })).status).toBe(200)
  })

  test('password change → 200 PASSWORD_CHANGED: the new password logs in, the old does not; this session still refreshes, other sessions are revoked (401)', async () => {
    const first = await t.app.member(ws, 'user')
    const current = await t.app.login(first.user.email)
    const second = await t.app.login(first.user.email)
    const reply = await t.app.put('/app/v1/profile/password', { current_password: 'password123', new_password: 'brand-new-pass1' }, { token: current.token })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ success: true, code: 'PASSWORD_CHANGED' })

    expectError(await t.app.post('/auth/login', { email: first.user.email, password: 'password123' }), 401, 'INVALID_CREDENTIALS')
    expect((await t.app.post('/auth/login', { email: first.user.email, password: 'brand-new-pass1' })).status).toBe(200)

    const refreshed = await t.app.post('/auth/refresh', { refresh_token: current.refresh_token })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.code).toBe('TOKEN_REFRESHED')
    // The rotated token of this session keeps working too.
    expect((await t.app.post('/auth/refresh', { refresh_token: refreshed.body.data.refresh_token })).status).toBe(200)
    expectError(await t.app.post('/auth/refresh', { refresh_token: second.refresh_token }), 401, 'UNAUTHORIZED')
    expectError(await t.app.post('/auth/refresh', { refresh_token: first.refresh_token }), 401, 'UNAUTHORIZED')

    const log = (await auditRows(t.app, 'user', first.user.id)).filter((row) => row.action === 'updated')
    expect(log).toHaveLength(1)
    expect(JSON.stringify(log[0])).not.toMatch(/brand-new-pass1|password123|\$argon2/)
  })

  test('a password change made with an access token obtained by refresh keeps that session (its family) and revokes the others', async () => {
    const me = await t.app.member(ws, 'user')
    const elsewhere = await t.app.login(me.user.email)
    const refreshed = data(await t.app.post('/auth/refresh', { refresh_token: me.refresh_token }), 200)
    const reply = await t.app.put('/app/v1/profile/password', { current_password: 'password123', new_password: 'another-pass-9' }, { token: refreshed.token })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('PASSWORD_CHANGED')
    expect((await t.app.post('/auth/refresh', { refresh_token: refreshed.refresh_token })).status).toBe(200)
    expectError(await t.app.post('/auth/refresh', { refresh_token: elsewhere.refresh_token }), 401, 'UNAUTHORIZED')
  })
})

// ═════════════════════════════════════════════════════════════════════════════════════════════════

describe('Users: last login and list filters', () => {
  const t = useTestApp()
  let ws: Workspace
  let other: Workspace
  const admin = () => ws.owner.token

  beforeAll(async () => {
    manualClock(t.app).set(NOW)
    ws = await t.app.workspace()
    other = await t.app.workspace()
  })

  test('last_login_at is null until the first login and set to the login time on each login', async () => {
    const email = `${unique('login')}@example.com`
    const created = data(
      await t.app.post('/office/v1/users', { name: 'Late Logger', email, password: 'password123', role_id: ws.roles.user }, { token: admin() }),
    )
    expect(created.last_login_at).toBeNull()
    expect(data(await t.app.get(`/office/v1/users/${created.id}`, { token: admin() }), 200).last_login_at).toBeNull()

    manualClock(t.app).advance(60_000)
    await t.app.login(email)
    const firstLogin = t.app.clock.now().toISOString()
    expect(data(await t.app.get(`/office/v1/users/${created.id}`, { token: admin() }), 200).last_login_at).toBe(firstLogin)

    manualClock(t.app).advance(5 * 60_000)
    await t.app.login(email)
    const secondLogin = t.app.clock.now().toISOString()
    expect(data(await t.app.get(`/office/v1/users/${created.id}`, { token: admin() }), 200).last_login_at).toBe(secondLogin)
    // A failed login does not count.
    manualClock(t.app).advance(60_000)
    expectError(await t.app.post('/auth/login', { email, password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS')
    const listed = (await t.app.get(`/office/v1/users?keyword=${encodeURIComponent(email)}`, { token: admin() })).body.data
    expect(listed.map((user: Row) => [user.id, user.last_login_at])).toEqual([[created.id, secondLogin]])
  })

  test('user list filters: keyword (name and email, case-insensitive), role_id, team_id, is_active, combined', async () => {
    ws = await t.app.workspace()
    const make = async (name: string, email: string, role: string, workspace = ws) =>
      data(await t.app.post('/office/v1/users', { name, email, password: 'password123', role_id: workspace.roles[role] }, { token: workspace.owner.token }))
    const alpha = await make('Alpha Qxzebra', `${unique('alpha')}@example.com`, 'user')
    const beta = await make('Beta Person', `qxzebra-${unique('beta')}@example.com`, 'manager')
    const gamma = await make('Gamma Person', `${unique('gamma')}@example.com`, 'user')
    await make('Qxzebra Foreign', `${unique('foreign')}@example.com`, 'user', other)
    const team = data(await t.app.post('/office/v1/teams', { name: unique('Team'), user_ids: [alpha.id, gamma.id] }, { token: admin() }))
    data(await t.app.put(`/office/v1/users/${gamma.id}`, { is_active: false }, { token: admin() }), 200)

    const list = async (query: string) => {
      const reply = await t.app.get(`/office/v1/users?limit=100&${query}`, { token: admin() })
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe('LIST_OK')
      expect(reply.body.meta.total).toBe(reply.body.data.length)
      return sorted(ids(reply.body.data))
    }
    expect(await list('keyword=QXZEBRA')).toEqual(sorted([alpha.id, beta.id]))
    expect(await list('keyword=gamma person')).toEqual([gamma.id])
    expect(await list(`role_id=${ws.roles.manager}`)).toEqual([beta.id])
    expect(await list(`role_id=${ws.roles.user}`)).toEqual(sorted([alpha.id, gamma.id]))
    expect(await list(`team_id=${team.id}`)).toEqual(sorted([alpha.id, gamma.id]))
    expect(await list('is_active=false')).toEqual([gamma.id])
    expect(await list('is_active=true')).toEqual(sorted([ws.owner.user.id, alpha.id, beta.id]))
    expect(await list(`is_active=true&team_id=${team.id}`)).toEqual([alpha.id])
    expect(await list(`keyword=qxzebra&role_id=${ws.roles.user}`)).toEqual([alpha.id])
    expectError(await t.app.get('/office/v1/users?is_active=maybe', { token: admin() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.get('/office/v1/users?role_id=abc', { token: admin() }), 400, 'VALIDATION_ERROR')
  })
})
