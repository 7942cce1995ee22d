/**
 * Photos (docs/API.md §Visits): check-in/out photos and photo/signature answers arrive as a data URI or bare
 * base64 of a JPEG, PNG or WebP image (≤ 5 MiB decoded, the type decided by its magic bytes, never
 * by what the client claims), or as an https:// URL that is kept as given. Accepted images are
 * written under UPLOAD_DIR and replaced by `/api/files/:id`, served only to the same workspace.
 *
 * Files are written before the database transaction (slow I/O never holds the writer) and recorded
 * inside it. One mechanism removes them again: a request's photos are accepted only inside
 * `withPhotos`, which registers each file before writing it and removes every file of the batch if
 * anything in the request fails afterwards — a later photo's validation, a state conflict, a geofence
 * refusal, the transaction, any error. A refused request leaves nothing in UPLOAD_DIR.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { files } from '../../db/schema'
import { workspaceScoped } from '../../platform/data/scope'
import type { AuthedContext } from '../../platform/context'
import { sha256Hex } from '../../lib/crypto'
import { NotFound, ValidationFailed } from '../../lib/errors'

/** Uploaded files (ids are UUIDs). */
const fileScope = workspaceScoped(files)

export const MAX_PHOTO_BYTES = 5 * 1024 * 1024
const IMAGE_TYPES: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' }
const DATA_URI = /^data:([\w.+/-]+)?(?:;[\w-]+=[\w.-]+)*;base64,/i
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export interface Upload {
  row: typeof files.$inferInsert
  absolutePath: string
}

/**
 * Runs one request's work with a batch for its photos: on success the files stay (the work recorded
 * them in its transaction); on any failure every file the batch wrote is removed and the error goes on.
 */
export async function withPhotos<T>(ctx: AuthedContext, work: (photos: PhotoBatch) => Promise<T>): Promise<T> {
  const photos = new PhotoBatch(ctx)
  try {
    return await work(photos)
  } catch (error) {
    await photos.discard()
    throw error
  }
}

/** Photos of one request (see `withPhotos`): accepted before the transaction, recorded in it. */
export class PhotoBatch {
  readonly uploads: Upload[] = []
  /** The bytes of each accepted image by its field, for checks that read them (EXIF). */
  readonly images = new Map<string, Uint8Array>()

  constructor(private readonly ctx: AuthedContext) {}

  /** The URL to store for `value`, or throws 400 naming `field`. */
  async accept(value: string, field: string): Promise<string> {
    const text = value.trim()
    if (/^https:\/\//i.test(text)) {
      if (text.length > 2048 || !URL.canParse(text)) throw ValidationFailed.field(field, 'must be a valid https:// URL')
      return text
    }
    const base64 = text.replace(DATA_URI, '').replace(/\s+/g, '')
    if (!base64 || !BASE64.test(base64) || base64.length % 4 === 1) throw invalidPhoto(field)
    if (Math.floor((base64.length * 3) / 4) > MAX_PHOTO_BYTES + 3) throw ValidationFailed.field(field, 'must be at most 5 MiB')
    const bytes = Buffer.from(base64, 'base64')
    if (bytes.byteLength > MAX_PHOTO_BYTES) throw ValidationFailed.field(field, 'must be at most 5 MiB')
    // Imported at the first photo, not at start (~10 MiB of resident memory; docs/PERFORMANCE.md "Memory budget").
    const { fileTypeFromBuffer } = await import('file-type')
    const type = await fileTypeFromBuffer(bytes)
    const extension = type && IMAGE_TYPES[type.mime]
    if (!type || !extension) throw invalidPhoto(field)

    const id = randomUUID()
    const { actor, deps } = this.ctx
    const now = deps.clock.now()
    const path = join(String(actor.workspaceId), now.toISOString().slice(0, 7), `${id}.${extension}`)
    const absolutePath = resolve(deps.config.UPLOAD_DIR, path)
    // Registered before it is written, so a write that fails half-way is removed too.
    this.uploads.push({
      absolutePath,
      row: {
        id,
        workspace_id: actor.workspaceId,
        mime_type: type.mime,
        size: bytes.byteLength,
        sha256: sha256Hex(bytes),
        path,
        created_by: actor.userId,
        created_at: now.toISOString(),
      },
    })
    await mkdir(dirname(absolutePath), { recursive: true })
    await Bun.write(absolutePath, bytes)
    this.images.set(field, bytes)
    return `/api/files/${id}`
  }

  /** Records the accepted files inside the caller's transaction. */
  async record(tx: Db): Promise<void> {
    if (this.uploads.length > 0) await tx.insert(files).values(this.uploads.map((upload) => upload.row))
  }

  /** Removes the files of a failed request (`withPhotos` calls it). */
  async discard(): Promise<void> {
    await Promise.all(this.uploads.map((upload) => rm(upload.absolutePath, { force: true })))
  }
}

const invalidPhoto = (field: string) => ValidationFailed.field(field, 'must be a JPEG, PNG or WebP image (data URI or base64) or an https:// URL')

/** The file of the caller's workspace; another workspace's id is a 404 like a missing one. */
export async function openFile(ctx: AuthedContext, id: string) {
  if (!UUID.test(id)) throw new NotFound('FILE')
  const [row] = await ctx.deps.db.read
    .select()
    .from(files)
    .where(fileScope.where(ctx.actor.workspaceId, eq(files.id, id)))
    .limit(1)
  if (!row) throw new NotFound('FILE')
  const file = Bun.file(resolve(ctx.deps.config.UPLOAD_DIR, row.path))
  if (!(await file.exists())) throw new NotFound('FILE')
  return { row, file }
}
