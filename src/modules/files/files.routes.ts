import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { errorResponses } from '../../platform/http/schema'
import { FileParams } from './files.schemas'
import { openFile } from './files.service'

/** GET /api/files/:id — an uploaded photo, for any signed-in user of its workspace. */
export const fileRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/files', tags: ['Files'] }).use(platform).get(
    '/:id',
    async ({ ctx, params }) => {
      const { row, file } = await openFile(ctx, params.id)
      return new Response(file, {
        headers: {
          'content-type': row.mime_type,
          'content-length': String(row.size),
          'cache-control': 'private, max-age=86400, immutable',
          'x-content-type-options': 'nosniff',
          etag: `"${row.sha256}"`,
        },
      })
    },
    {
      auth: true,
      params: FileParams,
      // Bytes, not JSON: documented here rather than validated as a response schema.
      detail: {
        summary: 'Download an uploaded photo of your workspace',
        responses: {
          200: { description: 'JPEG, PNG or WebP bytes', content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } },
          // FILE_NOT_FOUND also for another workspace’s file.
          ...errorResponses(['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED', 'FILE_NOT_FOUND']),
        },
      },
    },
  )
