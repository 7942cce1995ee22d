/**
 * The face of the journey-plans module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { journeyPlansManifest } from './journey-plans.manifest'
export { parseStopsCsv, STOPS_IMPORT_MAX_CHARS, STOPS_IMPORT_MAX_ROWS } from './stops-csv'
export { legs, optimize, type RoutePoint, type RouteStop } from './route-optimizer'
export { compliance, type ComplianceVisit, longestNonDecreasing } from './compliance'
export { calendarErrors, cycleWeek, firstEditableDate, horizon, isoWeekday, maskToWeeks, occurrences, weeksToMask } from './calendar'
export { dayRouteRoutes } from './day-routes.routes'
export { journeyPlanRoutes } from './journey-plans.routes'
export { activePlans, GENERATION_PART_VISITS, generateVisits, type GenerationResult, horizonRange, planAuthorContext } from './generation'
