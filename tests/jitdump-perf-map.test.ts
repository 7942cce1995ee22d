import { describe, expect, test } from 'bun:test'
import { perfMapOf } from '../scripts/jitdump-perf-map'

/** A jitdump file (tools/perf/Documentation/jitdump-specification.txt): header, then these records. */
function dump(pid: number, records: { id: number; address?: bigint; size?: bigint; name?: string }[]): Uint8Array {
  const parts: Uint8Array[] = []
  const header = new DataView(new ArrayBuffer(40))
  header.setUint32(0, 0x4a695444, true) // JiTD
  header.setUint32(4, 1, true)
  header.setUint32(8, 40, true)
  header.setUint32(20, pid, true)
  parts.push(new Uint8Array(header.buffer))
  for (const record of records) {
    const name = new TextEncoder().encode(`${record.name ?? ''}\0`)
    const code = new Uint8Array([0x90, 0xc3])
    const body = record.id === 0 ? 40 + name.length + code.length : 8
    const view = new DataView(new ArrayBuffer(16 + body))
    view.setUint32(0, record.id, true)
    view.setUint32(4, 16 + body, true)
    if (record.id === 0) {
      view.setUint32(16, pid, true)
      view.setBigUint64(16 + 8, record.address ?? 0n, true)
      view.setBigUint64(16 + 16, record.address ?? 0n, true)
      view.setBigUint64(16 + 24, record.size ?? 0n, true)
      const bytes = new Uint8Array(view.buffer)
      bytes.set(name, 16 + 40)
      bytes.set(code, 16 + 40 + name.length)
    }
    parts.push(new Uint8Array(view.buffer))
  }
  const all = new Uint8Array(parts.reduce((n, part) => n + part.length, 0))
  let offset = 0
  for (const part of parts) {
    all.set(part, offset)
    offset += part.length
  }
  return all
}

describe('scripts/jitdump-perf-map.ts', () => {
  test('each code load becomes a perf map line: address, size, name (hex, as perf reads them)', () => {
    const file = dump(4242, [
      { id: 0, address: 0x7f0012345000n, size: 0x1a0n, name: 'JSC-DFG: readPage#AbCdEf' },
      { id: 2, name: 'a code move record, skipped' },
      { id: 0, address: 0x7f0012346000n, size: 0x20n, name: 'JSC-Thunk: CallTrampoline' },
    ])
    expect(perfMapOf(file)).toEqual({
      pid: 4242,
      lines: ['7f0012345000 1a0 JSC-DFG: readPage#AbCdEf', '7f0012346000 20 JSC-Thunk: CallTrampoline'],
    })
  })

  test('a file that is not a jitdump is refused', () => {
    expect(() => perfMapOf(new Uint8Array(64))).toThrow('not a jitdump file')
  })
})
