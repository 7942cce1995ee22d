/**
 * The catalogue: principals and products (docs/API.md §Other areas; §Envelopes, §Errors, §Audit log):
 * CRUD, list filters, permissions, workspace isolation and their audit entries.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'
import { type Row, data, auditRows, ids, sorted } from './factories'

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
      { name: 'Soap Bar', sku: 'SB-01', principal_id: principal.id, price: 12_500, unit: 'pcs', barcode: '8990000000017' },
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
        price: 12_500,
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

  test('a product price is an integer amount of the smallest currency unit: 1.5, "15" and 2^53 → 400 errors.price, nothing stored; 2^53 − 1 is accepted', async () => {
    const before = await t.app.count('products')
    for (const price of [1.5, 12_345.67, '15', 2 ** 53]) {
      const errors = expectError(await t.app.post('/office/v1/products', { name: 'x', sku: unique('S'), price }, { token: admin() }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(['price'])
    }
    expect(await t.app.count('products')).toBe(before)
    const product = await newProduct({ price: 15_000 })
    expectError(await t.app.put(`/office/v1/products/${product.id}`, { price: 15_000.5 }, { token: admin() }), 400, 'VALIDATION_ERROR')
    expect((await t.app.get(`/office/v1/products/${product.id}`, { token: admin() })).body.data.price).toBe(15_000)
    const top = await newProduct({ price: Number.MAX_SAFE_INTEGER })
    expect((await t.app.get(`/office/v1/products/${top.id}`, { token: admin() })).body.data.price).toBe(Number.MAX_SAFE_INTEGER)
    // Stored as an INTEGER (migration 0022), not a REAL that happens to be whole.
    const [row] = await t.app.db.pragma(`SELECT typeof(price) AS type FROM products WHERE id = ${product.id}`)
    expect(row.type).toBe('integer')
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
