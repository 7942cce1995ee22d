/**
 * The face of the auth module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { EmptyEnvelope } from './auth.schemas'
export { authRoutes } from './auth.routes'
export { authManifest } from './auth.manifest'
