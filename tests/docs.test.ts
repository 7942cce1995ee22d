/**
 * GET /api/docs (UI) and /api/docs/json (OpenAPI 3): every route is listed with its request and
 * response schemas and the permission it needs (CONTRACT §1).
 */
import { describe, expect, test } from 'bun:test'
import { useTestApp } from './harness'

const t = useTestApp()

describe('API documentation', () => {
  test('the UI and the OpenAPI document need no token', async () => {
    const ui = await t.app.get('/docs')
    expect(ui.status).toBe(200)
    expect(ui.headers.get('content-type')).toContain('text/html')
    const json = await t.app.get('/docs/json')
    expect(json.status).toBe(200)
    expect(json.body.openapi).toStartWith('3.')
  })

  test('every route appears with its response schemas, body schema and permission', async () => {
    const doc = (await t.app.get('/docs/json')).body
    const missing: string[] = []
    for (const route of t.app.app.routes) {
      if (route.path.startsWith('/api/docs') || !route.path.startsWith('/api/')) continue
      const path = route.path.replace(/:([a-z_]+)/g, '{$1}')
      const operation = doc.paths[path]?.[route.method.toLowerCase()]
      if (!operation) {
        missing.push(`${route.method} ${path}: not documented`)
        continue
      }
      if (!operation.responses || !Object.keys(operation.responses).some((status) => status.startsWith('2'))) missing.push(`${route.method} ${path}: no success schema`)
      const takesBody = (route.hooks as { body?: unknown }).body !== undefined
      if (takesBody && ['POST', 'PUT'].includes(route.method) && !operation.requestBody?.content?.['application/json']?.schema) {
        missing.push(`${route.method} ${path}: no JSON body schema`)
      }
      if (path !== '/api/health' && !operation['x-permission']) missing.push(`${route.method} ${path}: no x-permission`)
    }
    expect(missing).toEqual([])
  })
})
