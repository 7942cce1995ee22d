/**
 * The face of the catalogue module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { principalsByIds, productsByIds } from './catalogue.service'
export { catalogueRoutes } from './catalogue.routes'
export { catalogueManifest } from './catalogue.manifest'
