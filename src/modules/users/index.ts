/**
 * The face of the users module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { getUser, membershipScope, userById, usersByIds, voidPasswordResets } from './users.service'
export { UserSchema } from './users.schemas'
export { userRoutes } from './users.routes'
export { usersManifest } from './users.manifest'
