/**
 * The address check of Web Push endpoints (src/lib/public-address.ts): only public unicast addresses
 * pass, in every spelling a resolver or HTTP client would accept (docs/API.md §Push notifications).
 */
import { describe, expect, test } from 'bun:test'
import { isAddressLiteral, isBlockedHostName, isPublicAddress, parseIPv4, parseIPv6 } from '../src/lib/public-address'

const refused = (...addresses: string[]) => {
  for (const address of addresses) expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false })
}
const accepted = (...addresses: string[]) => {
  for (const address of addresses) expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: true })
}

describe('IPv4', () => {
  test('loopback, private (RFC 1918), link-local, CGNAT, unspecified, metadata, multicast and reserved ranges are refused, edges included', () => {
    refused('127.0.0.1', '127.255.255.255', '10.0.0.0', '10.255.255.255', '172.16.0.0', '172.31.255.255', '192.168.0.1', '192.168.255.255')
    refused('169.254.0.1', '169.254.169.254', '169.254.255.255', '100.64.0.0', '100.127.255.255', '0.0.0.0', '0.1.2.3')
    refused('224.0.0.1', '239.255.255.255', '240.0.0.1', '255.255.255.255', '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.19.255.255')
  })

  test('public addresses just outside those ranges pass', () => {
    accepted('8.8.8.8', '1.1.1.1', '9.255.255.255', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0')
    accepted('100.63.255.255', '100.128.0.0', '169.253.255.255', '169.255.0.0', '126.255.255.255', '128.0.0.0', '223.255.255.255', '198.20.0.0')
  })

  test('decimal, octal, hex and shortened forms are read as inet_aton reads them', () => {
    expect(parseIPv4('2130706433')).toBe(0x7f000001)
    expect(parseIPv4('0x7f000001')).toBe(0x7f000001)
    expect(parseIPv4('0177.0.0.1')).toBe(0x7f000001)
    expect(parseIPv4('0x7f.0.0.1')).toBe(0x7f000001)
    expect(parseIPv4('127.1')).toBe(0x7f000001)
    expect(parseIPv4('127.0.1')).toBe(0x7f000001)
    expect(parseIPv4('0xa9.0xfe.0xa9.0xfe')).toBe(0xa9fea9fe)
    refused('2130706433', '0x7f000001', '0177.0.0.1', '0x7f.1', '127.1', '017700000001', '0xA9FEA9FE', '2852039166', '012.1', '0300.0250.1.1')
    accepted('134744072', '0x08080808', '010.010.010.010')
  })

  test('what is not an IPv4 address is not read as one (and is refused as an address)', () => {
    for (const text of ['256.0.0.1', '1.2.3.4.5', '1..2.3', '08.1.1.1', '0xg', '1.2.3.256', '4294967296', '-1', '1.2.3.4 ', 'example.com', '']) {
      expect({ text, value: parseIPv4(text) }).toEqual({ text, value: null })
    }
    refused('example.com', '', 'localhost')
  })
})

describe('IPv6', () => {
  test('loopback, unspecified, ULA (fc00::/7, AWS metadata fd00:ec2::254), link-local, site-local, multicast, documentation are refused', () => {
    refused('::1', '::', '0:0:0:0:0:0:0:1', 'fc00::1', 'fd00::1', 'fd00:ec2::254', 'fdff:ffff::1', 'fe80::1', 'febf::1', 'fe80::1%eth0')
    refused('fec0::1', 'ff02::1', '2001:db8::1', '100::1')
  })

  test('brackets are read', () => {
    refused('[::1]', '[fd00:ec2::254]', '[fe80::1]', '[::ffff:127.0.0.1]')
    accepted('[2606:4700:4700::1111]')
  })

  test('IPv4-mapped, -compatible, -translated, NAT64 and 6to4 forms are judged by the IPv4 address inside', () => {
    refused('::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::127.0.0.1', '::ffff:0:10.0.0.1')
    refused('64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2002:c0a8:101::1', '0:0:0:0:0:ffff:7f00:0001')
    accepted('::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '2002:808:808::1')
  })

  test('public addresses pass', () => {
    accepted('2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e', 'fbff:ffff::1', 'fc00::'.replace('fc00', 'fe00'))
  })

  test('what is not an IPv6 address is not read as one', () => {
    for (const text of ['1:2:3:4:5:6:7:8:9', '::1::', '12345::1', 'g::1', '1:2:3:4:5:6:7', '::ffff:999.0.0.1', '[::1', 'example.com']) {
      expect({ text, value: parseIPv6(text) }).toEqual({ text, value: null })
    }
    expect(parseIPv6('1:2:3:4:5:6:7::')).toEqual([1, 2, 3, 4, 5, 6, 7, 0])
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304])
  })
})

describe('host names', () => {
  test('localhost and metadata names are refused whatever they resolve to', () => {
    for (const host of ['localhost', 'LOCALHOST', 'a.localhost', 'metadata.google.internal', 'metadata.google.internal.', 'anything.internal', 'metadata']) {
      expect({ host, blocked: isBlockedHostName(host) }).toEqual({ host, blocked: true })
    }
    for (const host of ['fcm.googleapis.com', 'updates.push.services.mozilla.com', 'web.push.apple.com', 'internal.example.com']) {
      expect({ host, blocked: isBlockedHostName(host) }).toEqual({ host, blocked: false })
    }
  })

  test('an address literal is told from a name to resolve', () => {
    expect(['127.0.0.1', '2130706433', '[::1]', '::1', '0x7f.1'].every(isAddressLiteral)).toBe(true)
    expect(['example.com', 'push.example.test', 'localhost', '1.2.3.example'].some(isAddressLiteral)).toBe(false)
  })
})
