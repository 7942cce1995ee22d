/**
 * Web Push subscriptions and the check of their endpoints. A browser's subscription is registered as
 * the `token` of a `web` push token: the JSON text `{"endpoint", "keys": {"p256dh", "auth"}}` its
 * PushManager gives (docs/API.md §Push notifications). The endpoint is a URL the browser chose, so it
 * is untrusted: the server only ever sends to an `https:` URL whose host resolves to public addresses
 * only (../../lib/public-address.ts), checked at registration and again at each send, where the
 * request then goes to the address that was checked (a host re-pointed between check and send — DNS
 * rebinding — cannot move it). `PUSH_ALLOW_PRIVATE_ENDPOINTS=true` lifts the check, for test harnesses.
 */
import { lookup } from 'node:dns/promises'
import { isAddressLiteral, isBlockedHostName, isPublicAddress } from '../../lib/public-address'

export interface WebSubscription {
  endpoint: string
  keys: { p256dh: string; auth: string }
}

/** Resolves a host name to its addresses (every one; the worker's construction takes another, tests give theirs). */
export type HostResolver = (host: string) => Promise<string[]>

/** How long a lookup may take before the endpoint counts as unresolvable. */
export const RESOLVE_TIMEOUT_MS = 3_000

export const systemResolver: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

const BASE64URL = /^[A-Za-z0-9_-]+=*$/
const decodedLength = (value: string) => Buffer.from(value, 'base64url').length

/** The subscription in a `web` token, or the reason it is not one (the `errors.token` message). */
export function parseWebSubscription(text: string): WebSubscription | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return 'a web token is the browser’s push subscription as JSON text: {"endpoint":"https://…","keys":{"p256dh":"…","auth":"…"}}'
  }
  const subscription = value as Partial<WebSubscription> | null
  if (!subscription || typeof subscription !== 'object' || typeof subscription.endpoint !== 'string') return 'the subscription has no endpoint'
  const keys = subscription.keys
  if (!keys || typeof keys !== 'object' || typeof keys.p256dh !== 'string' || typeof keys.auth !== 'string') {
    return 'the subscription needs keys.p256dh and keys.auth'
  }
  // An uncompressed P-256 point (65 bytes, first byte 4) and a 16-byte authentication secret (RFC 8291).
  if (!BASE64URL.test(keys.p256dh) || decodedLength(keys.p256dh) !== 65 || Buffer.from(keys.p256dh, 'base64url')[0] !== 4) {
    return 'keys.p256dh must be an uncompressed P-256 public key in base64url (65 bytes)'
  }
  if (!BASE64URL.test(keys.auth) || decodedLength(keys.auth) !== 16) return 'keys.auth must be 16 bytes in base64url'
  return { endpoint: subscription.endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } }
}

export interface EndpointCheck {
  url: URL
  /**
   * The checked address to connect to instead of resolving the host again (the first one it resolved to);
   * null when there is nothing to pin: the host is an address itself, or PUSH_ALLOW_PRIVATE_ENDPOINTS is on.
   */
  address: string | null
}

/** Why an endpoint is refused (the `errors.token` message at registration, `last_error` at send). */
export class EndpointRefused extends Error {}

async function resolveWithin(resolve: HostResolver, host: string): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('lookup timed out')), RESOLVE_TIMEOUT_MS)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Checks a Web Push endpoint: an `https:` URL (no credentials in it) whose host is a public address or
 * a name resolving only to public addresses. Throws EndpointRefused with the reason.
 */
export async function checkEndpoint(endpoint: string, options: { allowPrivate: boolean; resolve: HostResolver }): Promise<EndpointCheck> {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new EndpointRefused('the subscription endpoint is not a URL')
  }
  if (options.allowPrivate) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new EndpointRefused('the subscription endpoint must be an https: URL')
    return { url, address: null }
  }
  if (url.protocol !== 'https:') throw new EndpointRefused('the subscription endpoint must be an https: URL')
  if (url.username || url.password) throw new EndpointRefused('the subscription endpoint must not carry credentials')
  const host = url.hostname
  if (isAddressLiteral(host)) {
    if (!isPublicAddress(host)) throw new EndpointRefused('the subscription endpoint points at a private, loopback, link-local or reserved address')
    return { url, address: null }
  }
  if (isBlockedHostName(host)) throw new EndpointRefused('the subscription endpoint points at a local or metadata host')
  let addresses: string[]
  try {
    addresses = await resolveWithin(options.resolve, host)
  } catch {
    throw new EndpointRefused(`the subscription endpoint's host ${host} could not be resolved`)
  }
  if (addresses.length === 0) throw new EndpointRefused(`the subscription endpoint's host ${host} could not be resolved`)
  // Every address must be public: a client may connect to any of them.
  if (!addresses.every(isPublicAddress)) {
    throw new EndpointRefused('the subscription endpoint resolves to a private, loopback, link-local or reserved address')
  }
  return { url, address: addresses[0] }
}
