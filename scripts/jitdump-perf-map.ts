/**
 * Names JavaScriptCore's JIT code in a `perf` profile of the service (docs/PERFORMANCE.md "Profiling
 * with perf"). Run the service with `BUN_JSC_useJITDump=1 BUN_JSC_jitDumpDirectory=DIR`, record with
 * `perf record -a -g`, then `bun scripts/jitdump-perf-map.ts DIR/jit-*.dump` before `perf report` or
 * `perf script`: each dump becomes /tmp/perf-PID.map, which perf reads for the process's anonymous
 * executable memory. (perf's own `inject --jit` expects a dump named jit-PID.dump; JavaScriptCore
 * names it jit-TID-PID.dump, so perf never finds it.)
 *
 * A dump is the jitdump format (linux tools/perf/Documentation/jitdump-specification.txt): a header,
 * then records; a JIT_CODE_LOAD record (id 0) carries the code's address, size and name. Code freed
 * and reused keeps the last name loaded at its address.
 */
import { readFileSync, writeFileSync } from 'node:fs'

const JIT_CODE_LOAD = 0

export function perfMapOf(dump: Uint8Array): { pid: number; lines: string[] } {
  const view = new DataView(dump.buffer, dump.byteOffset, dump.byteLength)
  if (view.getUint32(0, true) !== 0x4a695444) throw new Error('not a jitdump file (magic JiTD)')
  const headerSize = view.getUint32(8, true)
  const pid = view.getUint32(20, true)
  const lines: string[] = []
  for (let offset = headerSize; offset + 16 <= dump.byteLength; ) {
    const id = view.getUint32(offset, true)
    const size = view.getUint32(offset + 4, true)
    if (size === 0) break
    if (id === JIT_CODE_LOAD) {
      // Record header (16 bytes), then pid, tid (u32 each), vma, code_addr, code_size, code_index (u64 each), the name.
      const address = view.getBigUint64(offset + 16 + 16, true)
      const codeSize = view.getBigUint64(offset + 16 + 24, true)
      const nameStart = offset + 16 + 40
      const nameEnd = dump.indexOf(0, nameStart)
      const name = new TextDecoder().decode(dump.subarray(nameStart, nameEnd)).replaceAll('\n', ' ')
      lines.push(`${address.toString(16)} ${codeSize.toString(16)} ${name}`)
    }
    offset += size
  }
  return { pid, lines }
}

if (import.meta.main) {
  const files = process.argv.slice(2)
  if (files.length === 0) throw new Error('usage: bun scripts/jitdump-perf-map.ts DIR/jit-*.dump')
  // Several dumps of one process (a restart in place keeps its pid): the later one wins, as in perf.
  for (const file of files.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) {
    const { pid, lines } = perfMapOf(readFileSync(file))
    writeFileSync(`/tmp/perf-${pid}.map`, `${lines.join('\n')}\n`)
    console.log(`${file}: ${lines.length} code blobs -> /tmp/perf-${pid}.map`)
  }
}
