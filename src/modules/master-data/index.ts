/**
 * The face of the master-data module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export {
  accountDefinition,
  accountScope,
  channelDefinition,
  channelGroupDefinition,
  masterDataModule,
  subAreaDefinition,
  subAreaScope,
} from './master-data.entities'
export { masterDataService } from './master-data.resource'
export type { MasterDataDefinition, MasterTable } from './master-data.types'
export { masterDataManifest } from './master-data.manifest'
