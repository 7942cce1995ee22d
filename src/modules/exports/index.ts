/**
 * The face of the exports module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { ExportRunner, purgeOldExports, writeInPlace } from './exports.service'
export { exportRoutes } from './exports.routes'
export { exportsManifest } from './exports.manifest'
