/**
 * Success envelopes (docs/API.md §Envelopes): `{success, message, code, data}` and, for lists, `meta`.
 * Create answers 201; everything else 200.
 */
import { status } from 'elysia'
import type { Page } from '../data/pagination'

export const ok = <T>(data: T, code = 'SUCCESS', message = 'Success') => ({ success: true, message, code, data })

export const created = <T>(data: T, code: string, message: string) => status(201, ok(data, code, message))

export const listed = <T>(page: Page<T>, code = 'LIST_OK', message = 'Success') => ({
  success: true,
  message,
  code,
  data: page.rows,
  meta: page.meta,
})
