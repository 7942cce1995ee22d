/**
 * The face of the outlets module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { outletsByIds, outletScope } from './outlets.service'
export { outletRoutes } from './outlets.routes'
export { outletsManifest } from './outlets.manifest'
