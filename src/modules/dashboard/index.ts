/**
 * The face of the dashboard module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { dashboardRoutes } from './dashboard.routes'
export { dashboardManifest } from './dashboard.manifest'
