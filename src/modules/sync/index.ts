/**
 * The face of the sync module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { phoneGrantsVersion } from './sync.grants'
export { purgeOldTombstones, TOMBSTONE_WINDOW } from './sync.retention'
export { syncRoutes } from './sync.routes'
export { decodeCursor, encodeCursor } from './sync.cursor'
export { syncManifest } from './sync.manifest'
/** The phone feed's window statement: tests check its plan. */
export { phoneRows } from './sync.service'
