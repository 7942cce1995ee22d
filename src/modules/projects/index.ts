/**
 * The face of the projects module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { formsOfProjects, principalScope, projectsByIds, projectScope } from './projects.service'
export { projectRoutes } from './projects.routes'
export { projectsManifest } from './projects.manifest'
