/**
 * Whether a server may send an HTTP request to an address it was given by an untrusted client (a
 * browser's Web Push endpoint). Only public unicast addresses pass; refused are loopback, private
 * (RFC 1918, IPv6 ULA fc00::/7), link-local (169.254/16, fe80::/10, which holds the cloud metadata
 * service 169.254.169.254), carrier-grade NAT (100.64/10), unspecified (0.0.0.0/8, ::), multicast,
 * broadcast and reserved ranges, AWS's IPv6 metadata address fd00:ec2::254 (inside fc00::/7), and IPv6
 * forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) whenever the IPv4 address inside is refused.
 *
 * IPv4 is read the way inet_aton (and so most resolvers and HTTP clients) reads it: `2130706433`,
 * `0x7f.1`, `0177.0.0.1` and `127.1` are all 127.0.0.1. Anything that is not an address at all is
 * refused too: the caller resolves host names first and checks every address the name resolves to.
 * Pure: no I/O, no imports.
 */

/** Host names refused before any lookup (a resolver might answer them from /etc/hosts or a cloud's DNS). */
const BLOCKED_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data'])

/** True when `host` (a URL's hostname, lower case) is a name refused whatever it resolves to. */
export function isBlockedHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  return BLOCKED_NAMES.has(name) || name.endsWith('.localhost') || name.endsWith('.internal')
}

/** An IPv4 address in any inet_aton form → its 32-bit value; null when `text` is not one. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.')
  if (parts.length < 1 || parts.length > 4) return null
  const values: number[] = []
  for (const part of parts) {
    let value: number
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16)
    else if (/^0[0-7]+$/.test(part)) value = Number.parseInt(part.slice(1), 8)
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part)
    else return null
    if (!Number.isSafeInteger(value)) return null
    values.push(value)
  }
  // The last part fills the bytes the earlier ones leave: a.b.c.d, a.b.(16 bits), a.(24 bits), (32 bits).
  const last = values.at(-1)!
  const head = values.slice(0, -1)
  if (head.some((value) => value > 255) || last >= 2 ** (8 * (5 - values.length))) return null
  return head.reduce((sum, value, i) => sum + value * 2 ** (8 * (3 - i)), 0) + last
}

/** An IPv6 address (brackets and a zone id allowed) → its 8 groups; null when `text` is not one. */
export function parseIPv6(text: string): number[] | null {
  let value = text
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1)
  value = value.replace(/%.*$/, '')
  if (!value.includes(':')) return null
  // A trailing dotted IPv4 part is two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(value)
  if (dotted) {
    const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(dotted[2])
    if (!v4 || v4.slice(1).some((byte) => Number(byte) > 255)) return null
    const [a, b, c, d] = v4.slice(1).map(Number)
    value = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = value.split('::')
  if (halves.length > 2) return null
  const groupsOf = (half: string) => (half === '' ? [] : half.split(':'))
  const head = groupsOf(halves[0])
  const tail = halves.length === 2 ? groupsOf(halves[1]) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  const groups = [...head, ...new Array(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return null
  return groups.map((group) => Number.parseInt(group, 16))
}

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d

/** [network, prefix length] of every IPv4 range refused. */
const REFUSED_V4: [number, number][] = [
  [v4(0, 0, 0, 0), 8], // "this network", unspecified
  [v4(10, 0, 0, 0), 8], // RFC 1918
  [v4(100, 64, 0, 0), 10], // carrier-grade NAT
  [v4(127, 0, 0, 0), 8], // loopback
  [v4(169, 254, 0, 0), 16], // link-local, cloud metadata (169.254.169.254)
  [v4(172, 16, 0, 0), 12], // RFC 1918
  [v4(192, 0, 0, 0), 24], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24], // documentation
  [v4(192, 88, 99, 0), 24], // 6to4 relay anycast
  [v4(192, 168, 0, 0), 16], // RFC 1918
  [v4(198, 18, 0, 0), 15], // benchmarking
  [v4(198, 51, 100, 0), 24], // documentation
  [v4(203, 0, 113, 0), 24], // documentation
  [v4(224, 0, 0, 0), 4], // multicast
  [v4(240, 0, 0, 0), 4], // reserved, broadcast
]

function isPublicIPv4(value: number): boolean {
  return !REFUSED_V4.some(([network, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(network / 2 ** (32 - bits)))
}

function isPublicIPv6(groups: number[]): boolean {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups
  const embedded = g6 * 65_536 + g7
  const zeroTo = (n: number) => groups.slice(0, n).every((group) => group === 0)
  if (zeroTo(8)) return false // ::
  if (zeroTo(7) && g7 === 1) return false // ::1
  if (zeroTo(5) && g5 === 0xffff) return isPublicIPv4(embedded) // IPv4-mapped
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return isPublicIPv4(embedded) // IPv4-translated (SIIT)
  if (zeroTo(6)) return isPublicIPv4(embedded) // IPv4-compatible (deprecated)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPublicIPv4(embedded) // NAT64
  if (g0 === 0x2002) return isPublicIPv4(g1 * 65_536 + g2) // 6to4
  if ((g0 & 0xfe00) === 0xfc00) return false // unique local fc00::/7 (AWS metadata fd00:ec2::254)
  if ((g0 & 0xffc0) === 0xfe80) return false // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return false // site-local fec0::/10 (deprecated)
  if ((g0 & 0xff00) === 0xff00) return false // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return false // documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return false // discard-only 100::/64
  return true
}

/**
 * True only for a public unicast IP address (IPv4 in any inet_aton form, IPv6 with or without
 * brackets); false for every refused range above and for anything that is not an address.
 */
export function isPublicAddress(address: string): boolean {
  const text = address.trim()
  const ipv6 = parseIPv6(text)
  if (ipv6) return isPublicIPv6(ipv6)
  const ipv4 = parseIPv4(text)
  if (ipv4 !== null) return isPublicIPv4(ipv4)
  return false
}

/** An IP address literal (any form `isPublicAddress` reads), as opposed to a host name to resolve. */
export function isAddressLiteral(host: string): boolean {
  return parseIPv6(host) !== null || parseIPv4(host) !== null
}
