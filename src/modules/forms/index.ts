/**
 * The face of the forms module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { formsByIds, formScope } from './forms.service'
export { validateAnswers, validateFormFields } from './forms.answers'
export { freezeRows, hasMatrix } from './forms.matrix'
export { formRoutes } from './forms.routes'
export { formsManifest } from './forms.manifest'
export { FrozenRowSchema } from './forms.schemas'
