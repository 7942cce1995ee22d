/**
 * The face of the teams module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { assertWorkspaceTeams, assertWorkspaceUsers, teamMemberScope, teamsByIds, teamScope } from './teams.service'
export { teamRoutes } from './teams.routes'
export { teamsManifest } from './teams.manifest'
