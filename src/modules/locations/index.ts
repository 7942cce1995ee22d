/**
 * The face of the locations module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { locationRoutes } from './locations.routes'
export { livemapTopic, locationsManifest } from './locations.manifest'
export { PingTrail, type TrailPoint } from './ping-trail'
export { savedPings } from './locations.service'
