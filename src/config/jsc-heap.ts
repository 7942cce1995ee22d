/**
 * The JavaScript heap's share of the memory budget. JavaScriptCore decides how much garbage to let
 * pile up before it collects by the machine's RAM, read once when the process starts, not by
 * MEMORY_BUDGET_MB: on a 256 MB machine (or a container whose host has gigabytes) the live map's events
 * and the parsed location batches grew the process by 20–40 MiB more than with the heap sized to the
 * budget (docs/PERFORMANCE.md "Memory budget"). Its option BUN_JSC_forceRAMSize is read only at start,
 * so a server with a budget at or below the default replaces itself once, before the rest of the code is
 * loaded, with that variable set to 5/8 of the budget (./memory-budget.ts jscRamSizeBytes): `execve`,
 * the same process id, runtime flags, arguments and environment, so a supervisor (Docker, Fly) sees nothing. An
 * operator's own BUN_JSC_forceRAMSize wins.
 *
 * Imported first by ../server.ts: its top-level code runs before the application's modules are.
 */
import { IS_COMPILED } from '../lib/executable'
import { environmentWithJscRamSize, loadConfig } from './env'
import { jscRamSizeBytes } from './memory-budget'

function restartWithSizedHeap() {
  let budgetMb: number
  try {
    budgetMb = loadConfig().MEMORY_BUDGET_MB
  } catch {
    return // ../server.ts reports the configuration error.
  }
  const ramSize = jscRamSizeBytes(budgetMb)
  const environment = ramSize === null ? null : environmentWithJscRamSize(ramSize)
  if (!environment) return
  // The runtime's own flags (`bun --cpu-prof …`, `--smol`) are kept; the compiled executable's argv[1]
  // is its embedded entry point, not an argument to pass on.
  const args = [process.execPath, ...process.execArgv, ...process.argv.slice(IS_COMPILED ? 2 : 1)]
  process.execve?.(process.execPath, args, environment as Record<string, string>)
}

restartWithSizedHeap()
