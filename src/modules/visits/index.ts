/**
 * The face of the visits module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { type VisitFlag, visitFlagNames } from './visits.integrity'
export { findVisit, submissionFilters, type SubmissionListQuery, submissionsByIds, visitDetailsByIds, visitList } from './visits.queries'
export { SubmissionQuery } from './visits.schemas'
export { visitRoutes } from './visits.routes'
export { visitsManifest, visitTopics } from './visits.manifest'
export { guardCell, IMPORT_MAX_ROWS, unguardCell } from './visits.csv'
export { type GeneratedVisitPlan, planGeneratedVisits, VisitStateConflict, WRITE_PART_ROWS, writeGeneratedVisits } from './visits.service'
export { canAssign, canChangeSubmissions, canSubmit, transition, type VisitAction } from './visits.machine'
