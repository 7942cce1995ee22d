/**
 * The face of the files module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { PhotoBatch, withPhotos } from './files.service'
export { exifBlock, MAX_EXIF_BYTES, type PhotoExif, readPhotoExif } from './photo-exif'
export { fileRoutes } from './files.routes'
export { filesManifest } from './files.manifest'
