/**
 * The face of the attendance module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { attendancesByIds } from './attendance.service'
export { attendanceRoutes } from './attendance.routes'
export { attendanceManifest } from './attendance.manifest'
