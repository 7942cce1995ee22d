/**
 * The face of the health module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { healthRoutes } from './health.routes'
export { metricsRoutes } from './metrics.routes'
