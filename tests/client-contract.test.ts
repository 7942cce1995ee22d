/**
 * The API contract as a client developer meets it (docs/API.md "API contract"): TypeScript types are
 * generated from GET /api/docs/json with openapi-typescript, and a field day written against them —
 * log in, create an outlet, a form and a project, plan a visit, check in, submit the form, check out,
 * approve — typechecks in strict mode, through the named schemas (`components['schemas']['Visit']`).
 * Lines marked `@ts-expect-error` must NOT compile: a check-in without coordinates, a visit status
 * outside its enum. The script is only typechecked, never sent: tests/visits.test.ts drives the same
 * day against the service.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { useTestApp } from './harness'

const t = useTestApp()

const FIELD_DAY = `
import type { components, paths } from './api'

type Visit = components['schemas']['Visit']
type Submission = components['schemas']['Submission']
type Outlet = components['schemas']['Outlet']
type ErrorEnvelope = components['schemas']['ErrorEnvelope']

type Method = 'get' | 'post' | 'put' | 'delete'
type Operation<P extends keyof paths, M extends Method> = paths[P][M]
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
type Params<O> = O extends { parameters: { path: infer A } } ? A : never
type Success<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 ? (R[S] extends { content: { 'application/json': infer A } } ? A : never) : never }[keyof R]
  : never

/** The transport a client writes once (openapi-fetch's shape); declared: this script is only typechecked. */
declare function call<P extends keyof paths, M extends Method>(
  method: M,
  path: P,
  request: { params?: Params<Operation<P, M>>; body?: Body<Operation<P, M>>; token?: string; idempotencyKey?: string },
): Promise<Success<Operation<P, M>> | ErrorEnvelope>

function unwrap<T>(answer: T | ErrorEnvelope): Exclude<T, ErrorEnvelope> {
  if ((answer as { success: boolean }).success === false) throw new Error((answer as ErrorEnvelope).code)
  return answer as Exclude<T, ErrorEnvelope>
}

export async function fieldDay(): Promise<Visit['status']> {
  const session = unwrap(await call('post', '/api/auth/login', { body: { email: 'supervisor@example.com', password: 'secret-password' } })).data
  const token: string = session.token

  const outlet: Outlet = unwrap(
    await call('post', '/api/office/v1/outlets', { token, body: { name: 'Toko Makmur', latitude: -6.2, longitude: 106.8 } }),
  ).data
  const form = unwrap(
    await call('post', '/api/office/v1/forms', { token, body: { title: 'Shelf check', fields: [{ key: 'facings', label: 'Facings', type: 'number', required: true }] } }),
  ).data
  const project = unwrap(await call('post', '/api/office/v1/projects', { token, body: { name: 'Q4 audit', forms: [{ form_id: form.id, is_required: true }] } })).data

  const planned: Visit = unwrap(
    await call('post', '/api/office/v1/visits', {
      token,
      idempotencyKey: 'plan-toko-makmur',
      body: { outlet_id: outlet.id, project_id: project.id, visit_date: '2026-12-01', user_ids: [session.user.id] },
    }),
  ).data
  const id = planned.id

  // @ts-expect-error a check-in without its position does not compile (the service answers 400 LOCATION_REQUIRED)
  await call('post', '/api/app/v1/visits/{id}/check-in', { token, params: { id }, body: {} })
  const started: Visit = unwrap(await call('post', '/api/app/v1/visits/{id}/check-in', { token, params: { id }, body: { latitude: -6.2, longitude: 106.8, accuracy_m: 12 } })).data

  const saved = unwrap(
    await call('post', '/api/app/v1/visits/{id}/submit-form-v2', {
      token,
      params: { id },
      body: { form_id: form.id, items: [{ submission_id: null, status: 'completed', answers: { facings: 12 } }] },
    }),
  ).data
  const submission: Submission | undefined = saved.submissions[0]
  if (!submission) throw new Error('no submission')
  const done: Submission['status'] = submission.status

  const finished: Visit = unwrap(await call('post', '/api/app/v1/visits/{id}/check-out', { token, params: { id }, body: { latitude: -6.2, longitude: 106.8 } })).data
  const approved: Submission = unwrap(
    await call('post', '/api/office/v1/visits/{id}/submissions/{submission_id}/approve', { token, params: { id, submission_id: submission.id }, body: { notes: 'Good shelf' } }),
  ).data
  const review: 'pending' | 'approved' | 'rejected' | null = approved.approval_status

  // @ts-expect-error a visit status is one of the documented values, not any string
  const bogus: Visit['status'] = 'bogus'
  void [started.checked_in_at, done, review, bogus]
  return finished.status
}
`

describe('a client generated from /api/docs/json (docs/API.md "API contract")', () => {
  test('openapi-typescript generates named types, and a field day against them typechecks in strict mode', async () => {
    const document = (await t.app.get('/docs/json')).body
    const types = astToString(await openapiTS(document))
    expect(types).toContain('Visit: {')
    expect(types).toContain('Submission: {')

    const dir = mkdtempSync(join(tmpdir(), 'ffos-client-'))
    try {
      writeFileSync(join(dir, 'api.d.ts'), types)
      writeFileSync(join(dir, 'field-day.ts'), FIELD_DAY)
      const program = ts.createProgram([join(dir, 'field-day.ts')], {
        strict: true,
        noEmit: true,
        noUnusedLocals: true,
        exactOptionalPropertyTypes: false,
        target: ts.ScriptTarget.ES2022,
        lib: ['lib.es2022.d.ts'],
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        types: [],
      })
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (diagnostic) =>
            `${diagnostic.file ? ts.getLineAndCharacterOfPosition(diagnostic.file, diagnostic.start ?? 0).line + 1 : '?'}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
        )
      expect(problems).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
