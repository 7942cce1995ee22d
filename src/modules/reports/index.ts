/**
 * The face of the reports module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { reportRoutes } from './reports.routes'
