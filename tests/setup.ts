/**
 * Preloaded before every test file (bunfig.toml). Hooks (beforeAll/afterAll) have their own default
 * timeout of 5 s, which bunfig's `timeout` does not change: a file whose set-up registers workspaces
 * and walks visits can take longer than that on a busy CI machine, which is not a failure of anything
 * under test. One default for tests and hooks alike.
 */
import { setDefaultTimeout } from 'bun:test'

setDefaultTimeout(30_000)
