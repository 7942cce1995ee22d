/**
 * Boot: environment → the checks of ./startup.ts (PORT free, directories writable) → database
 * (migrations applied) → app (which opens the prepared regional database read-only: nothing is loaded,
 * README.md "Regional data") → listen → jobs → SIGINT/SIGTERM handled → the push channels line → start-up
 * warnings → "server started", the last line of a start → the push worker. A signal that follows the
 * "server started" line at once (a supervisor, a test) finds its handler there and every line written:
 * with the handler installed after the line, such a SIGTERM killed the process outright, warnings unwritten.
 * A refused start is one JSON line at
 * `error` naming the setting, and exit code 1. Stops cleanly on
 * SIGINT/SIGTERM (./shutdown.ts): no new requests, sockets closed (1001), requests in flight
 * finished, jobs stopped, database checkpointed and closed, exit 0 within 5 s.
 */
// First: a small MEMORY_BUDGET_MB restarts the process with the JavaScript heap sized to it (./config/jsc-heap.ts).
import './config/jsc-heap'
import { ConfigError, loadConfig, type Config } from './config/env'
import { openDatabase } from './db/client'
import { createApp } from './app'
import { copyOutRegionalDatabase } from './modules/regional'
import { startJobs } from './jobs'
import { SERVER_MAX_REQUEST_BODY_SIZE } from './platform/http/http'
import { createLogger } from './platform/logger'
import { exitOnSignals } from './shutdown'
import { StartupError, assertPortFree, portError, prepareDirectories, startupWarnings } from './startup'

/** A refused start: one JSON line whatever LOG_LEVEL says (the operator must learn why), then exit 1. */
function refuseStart(error: StartupError): never {
  createLogger('error').error(error.message, { setting: error.setting })
  process.exit(1)
}

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
  try {
    // Before the database is opened: a second instance must not resume the first one's export jobs.
    await assertPortFree(config)
    prepareDirectories(config)
  } catch (error) {
    if (error instanceof StartupError) refuseStart(error)
    throw error
  }
  const db = await openDatabase(config)
  await db.migrate()
  // The executable's prepared regional file copied out (streamed) before the app opens it (README.md "Regional data").
  if (!config.REGIONAL_SERVICE_URL) await copyOutRegionalDatabase(config, createLogger(config.LOG_LEVEL))
  const { app, deps } = await createApp({ db, config })
  // Exports a restart interrupted are picked up again.
  await deps.exports.resume()
  try {
    // reusePort: false — with Bun's default a second process could bind the same port and take half the
    // connections (./startup.ts); the probe above already refused a taken port, this closes the race.
    app.listen({ port: config.PORT, hostname: config.HOST, maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE, reusePort: false })
  } catch (error) {
    await db.close()
    refuseStart(portError(config, error))
  }
  const jobs = startJobs(deps)
  exitOnSignals({ app, deps, jobs })
  // Which push channels are configured: one line (README "Push notifications").
  const push = deps.push.describe()
  deps.logger.info(push.message, push.fields)
  for (const warning of startupWarnings(config)) deps.logger.warn(warning.message, warning.fields)
  deps.logger.info('server started', {
    url: `http://${config.HOST}:${app.server?.port}/api`,
    docs: `http://localhost:${app.server?.port}/api/docs`,
    database: config.database.driver,
  })
  // The push worker, once a stop would wait for it: rows a crash left behind are resumed, then it sends
  // what notifications queue.
  deps.push.start()
}

await main()
