/**
 * The face of the roles module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { assertHoldsGrants, callerPermissions, membershipRoles, presentRole, roleScope } from './roles.service'
export { roleRoutes } from './roles.routes'
export { rolesManifest } from './roles.manifest'
