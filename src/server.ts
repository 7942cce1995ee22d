/**
 * Boot: environment → database (migrations applied) → app → listen → jobs. Stops cleanly on
 * SIGINT/SIGTERM (./shutdown.ts): no new requests, sockets closed (1001), requests in flight
 * finished, jobs stopped, database checkpointed and closed, exit 0 within 5 s.
 */
import { ConfigError, loadConfig, type Config } from './config/env'
import { openDatabase } from './db/client'
import { createApp } from './app'
import { loadRegionalData } from './modules/regional/regional.data'
import { startJobs } from './jobs'
import { SERVER_MAX_REQUEST_BODY_SIZE } from './platform/http'
import { exitOnSignals } from './shutdown'

async function main() {
  let config: Config
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(1)
    }
    throw error
  }
  const db = await openDatabase(config)
  await db.migrate()
  const { app, deps } = await createApp({ db, config })
  // The embedded regional data is loaded once (a few seconds on first start, nothing afterwards).
  if (!config.REGIONAL_SERVICE_URL) await loadRegionalData(db, deps.logger)
  // Exports a restart interrupted are picked up again.
  await deps.exports.resume()
  app.listen({ port: config.PORT, hostname: config.HOST, maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE })
  const jobs = startJobs(deps)
  deps.logger.info('server started', {
    url: `http://${config.HOST}:${app.server?.port}/api`,
    docs: `http://localhost:${app.server?.port}/api/docs`,
    database: config.database.driver,
  })

  exitOnSignals({ app, deps, jobs })
}

await main()
