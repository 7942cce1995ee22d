/**
 * The face of the regional module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { embeddedSource, ID_DIGITS, type RegionalSource, UPSTREAM_TIMEOUT_MS, upstreamSource } from './regional.source'
export { buildRegionalDatabase, csvBlocks, REGIONAL_FORMAT, regionalDataVersion, regionalFileName, regionalFileVersion } from './regional.data'
export {
  copyOutOfContainer,
  copyOutRegionalDatabase,
  embeddedRegionalDigest,
  ensureRegionalDatabase,
  extractionDirectory,
  extractRegionalDatabase,
  extractRegionalDatabaseStreamed,
  openRegionalDatabase,
  preparedRegionalDatabase,
  preparedVersionOf,
  regionalAssetPath,
  type RegionalDatabase,
  sourceTreeRegionalPath,
} from './regional.database'
export { regionalRoutes } from './regional.routes'
export { regionalManifest } from './regional.manifest'
