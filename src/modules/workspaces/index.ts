/**
 * The face of the workspaces module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { GEOFENCE_RADIUS_MAX, GEOFENCE_RADIUS_MIN, insertWorkspace } from './workspaces.service'
export { workspaceRoutes } from './workspaces.routes'
export { workspacesManifest } from './workspaces.manifest'
