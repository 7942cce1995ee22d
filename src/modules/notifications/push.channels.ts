/**
 * The two push services a notification reaches a device through, each turning one send into an
 * outcome the worker (./push.worker.ts) acts on (docs/API.md §Push notifications):
 *
 *   - FCM HTTP v1 for `android` and `ios` tokens: an OAuth access token from the service account's
 *     `token_uri` (a JWT assertion signed RS256 with its key), cached until it expires, then
 *     POST `{FCM_BASE_URL}/v1/projects/<project_id>/messages:send`.
 *   - Web Push (RFC 8030) for `web` tokens: the payload encrypted for the subscription (RFC 8291,
 *     aes128gcm) and signed with the VAPID key (RFC 8292) by the `web-push` package, sent by us to
 *     the endpoint checked again at this send (./push.endpoint.ts), at the address that was checked.
 *
 * Outcomes: 2xx → sent; 404/410 (or FCM's UNREGISTERED / INVALID_ARGUMENT) → pruned (the token is
 * dead); 429/5xx, a network error or a timeout → retry (after `Retry-After` when given); anything
 * else → failed. Every request runs under the worker's AbortSignal (its timeout, and the stop).
 */
import { importPKCS8, SignJWT } from 'jose'
import type { Clock } from '../../lib/clock'
import type { ServiceAccount } from '../../config/env'
import { checkEndpoint, EndpointRefused, type HostResolver, parseWebSubscription } from './push.endpoint'

/** What a device is sent: its `data` lets a phone drop a repeat (at-least-once delivery). */
export interface PushMessage {
  notificationId: number
  type: string
  title: string
  body: string
}

export type SendOutcome =
  | { result: 'sent'; status: number }
  | { result: 'pruned'; status: number | null; error: string }
  | { result: 'retry'; status: number | null; error: string; retryAfterMs?: number }
  | { result: 'failed'; status: number | null; error: string }

export interface PushChannel {
  send(token: string, message: PushMessage, signal: AbortSignal): Promise<SendOutcome>
}

/** The `data` of every message: strings only (FCM's rule), the same on both services. */
export const messageData = (message: PushMessage) => ({ notification_id: String(message.notificationId), type: message.type })

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
/** An access token is renewed this long before Google's expiry, so none expires in flight. */
const TOKEN_MARGIN_MS = 60_000

/** `Retry-After` (seconds or an HTTP date) → milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime())
}

/** The outcome every status shares on both services; undefined for the ones each reads itself. */
function commonOutcome(response: Response, now: Date, detail: string): SendOutcome {
  const status = response.status
  if (status >= 200 && status < 300) return { result: 'sent', status }
  if (status === 404 || status === 410) return { result: 'pruned', status, error: `the push service no longer knows this token (${status})` }
  if (status === 429 || status >= 500) {
    return {
      result: 'retry',
      status,
      error: `push service answered ${status}${detail}`,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now),
    }
  }
  return { result: 'failed', status, error: `push service answered ${status}${detail}` }
}

const networkOutcome = (error: unknown): SendOutcome => ({
  result: 'retry',
  status: null,
  error: (error as Error)?.name === 'TimeoutError' ? 'the push service did not answer in time' : `network error: ${String((error as Error)?.message ?? error)}`,
})

/**
 * At most `limit` bytes of a body, as text; the rest is never read (the connection is dropped). A Web Push
 * endpoint is a stranger's server: its answer must not be able to fill the memory.
 */
export async function readBounded(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < limit) {
      const { value, done } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit))
}

/** The most of an error body kept (FCM's error JSON is well under it). */
const ERROR_BODY_BYTES = 16_384

/** A short excerpt of a push service's error body for `last_error` (never the whole page). */
async function excerpt(response: Response): Promise<string> {
  try {
    const text = (await readBounded(response, ERROR_BODY_BYTES)).replace(/\s+/g, ' ').trim()
    return text ? `: ${text.slice(0, 200)}` : ''
  } catch {
    return ''
  }
}

export class FcmChannel implements PushChannel {
  private cached: { token: string; expiresAt: number } | null = null
  private pending: Promise<string> | null = null
  private key: Promise<CryptoKey> | null = null
  /** OAuth token requests made (tests: one for many messages). */
  tokenRequests = 0

  constructor(
    private readonly account: ServiceAccount,
    private readonly baseUrl: string,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** The cached access token, or a new one (one request at a time, shared by every send waiting for it). */
  async accessToken(): Promise<string> {
    if (this.cached && this.clock.now().getTime() < this.cached.expiresAt) return this.cached.token
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null
    })
    return this.pending
  }

  private async fetchToken(): Promise<string> {
    this.key ??= importPKCS8(this.account.private_key, 'RS256')
    const issuedAt = Math.floor(this.clock.now().getTime() / 1000)
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(this.account.private_key_id ? { kid: this.account.private_key_id } : {}) })
      .setIssuer(this.account.client_email)
      .setSubject(this.account.client_email)
      .setAudience(this.account.token_uri)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 3600)
      .sign(await this.key)
    this.tokenRequests++
    // Its own timeout, not a send's signal: many sends share this request.
    const response = await fetch(this.account.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
      signal: AbortSignal.timeout(this.timeoutMs),
      redirect: 'manual',
    })
    if (!response.ok) throw new OAuthError(response.status, await excerpt(response))
    const body = JSON.parse(await readBounded(response, ERROR_BODY_BYTES)) as { access_token?: string; expires_in?: number }
    if (typeof body.access_token !== 'string') throw new OAuthError(response.status, ': no access_token in the answer')
    const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000
    this.cached = { token: body.access_token, expiresAt: this.clock.now().getTime() + Math.max(0, lifetimeMs - TOKEN_MARGIN_MS) }
    return body.access_token
  }

  async send(token: string, message: PushMessage, signal: AbortSignal): Promise<SendOutcome> {
    let accessToken: string
    try {
      // The token request is shared (and has its own timeout); this send stops waiting for it when its own signal fires.
      accessToken = await untilAborted(this.accessToken(), signal)
    } catch (error) {
      if (error instanceof OAuthError) return { result: 'retry', status: null, error: error.message }
      return networkOutcome(error)
    }
    let response: Response
    try {
      response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/v1/projects/${encodeURIComponent(this.account.project_id)}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            token,
            notification: { title: message.title, body: message.body },
            data: messageData(message),
            android: { priority: 'high' },
            apns: { headers: { 'apns-priority': '10' } },
          },
        }),
        signal,
        redirect: 'manual',
      })
    } catch (error) {
      return networkOutcome(error)
    }
    if (response.ok) {
      await response.body?.cancel().catch(() => undefined)
      return { result: 'sent', status: response.status }
    }
    const text = await readBounded(response, ERROR_BODY_BYTES).catch(() => '')
    const codes = fcmErrorCodes(text)
    if (codes.includes('UNREGISTERED') || codes.includes('INVALID_ARGUMENT')) {
      return { result: 'pruned', status: response.status, error: `FCM: ${codes.join(', ')}` }
    }
    const detail = text ? `: ${text.replace(/\s+/g, ' ').slice(0, 200)}` : ''
    // A token Google no longer accepts (revoked, rotated key): fetch a new one at the next try.
    if (response.status === 401) {
      this.cached = null
      return { result: 'retry', status: 401, error: `FCM refused the access token${detail}` }
    }
    return commonOutcome(new Response(null, { status: response.status, headers: response.headers }), this.clock.now(), detail)
  }
}

/** `work`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

class OAuthError extends Error {
  constructor(status: number, detail: string) {
    super(`the OAuth token endpoint answered ${status}${detail}`)
  }
}

/** The `errorCode`s in an FCM v1 error body's `error.details` (`google.firebase.fcm.v1.FcmError`). */
export function fcmErrorCodes(text: string): string[] {
  try {
    const details = (JSON.parse(text) as { error?: { details?: { errorCode?: unknown }[] } }).error?.details
    return Array.isArray(details) ? details.flatMap((detail) => (typeof detail?.errorCode === 'string' ? [detail.errorCode] : [])) : []
  } catch {
    return []
  }
}

/** How long a push service keeps a message for an offline browser (RFC 8030 TTL): a day. */
export const WEB_PUSH_TTL_SECONDS = 86_400

export class WebPushChannel implements PushChannel {
  constructor(
    private readonly vapid: { publicKey: string; privateKey: string; subject: string },
    private readonly options: { allowPrivate: boolean; resolve: HostResolver; clock: Clock },
  ) {}

  async send(token: string, message: PushMessage, signal: AbortSignal): Promise<SendOutcome> {
    const subscription = parseWebSubscription(token)
    if (typeof subscription === 'string') return { result: 'pruned', status: null, error: `not a web push subscription: ${subscription}` }
    let target: Awaited<ReturnType<typeof checkEndpoint>>
    try {
      target = await checkEndpoint(subscription.endpoint, this.options)
    } catch (error) {
      if (error instanceof EndpointRefused) {
        // An unresolvable host may come back; an address we may not reach never becomes one we may.
        if (error.message.includes('could not be resolved')) return { result: 'retry', status: null, error: error.message }
        return { result: 'failed', status: null, error: `endpoint refused at send: ${error.message}` }
      }
      throw error
    }
    const payload = JSON.stringify({ notification: { title: message.title, body: message.body }, data: messageData(message) })
    // Imported at the first web push, not at start: about 11 MiB of resident memory that a server without
    // browsers to reach does not need (docs/PERFORMANCE.md "Memory budget").
    const { default: webpush } = await import('web-push')
    const details = webpush.generateRequestDetails(subscription, payload, {
      vapidDetails: this.vapid,
      TTL: WEB_PUSH_TTL_SECONDS,
      contentEncoding: 'aes128gcm',
      urgency: 'high',
    })
    const headers = new Headers(Object.entries(details.headers).map(([name, value]): [string, string] => [name, String(value)]))
    const url = new URL(target.url)
    const init: RequestInit & { tls?: { serverName: string } } = { method: 'POST', headers, body: new Uint8Array(details.body), signal, redirect: 'manual' }
    if (target.address) {
      // Connect to the address that was checked, not to whatever the name resolves to a moment later
      // (DNS rebinding); the certificate is still verified against the endpoint's own host name.
      headers.set('host', url.host)
      init.tls = { serverName: url.hostname }
      url.hostname = target.address.includes(':') ? `[${target.address}]` : target.address
    }
    let response: Response
    try {
      response = await fetch(url, init)
    } catch (error) {
      return networkOutcome(error)
    }
    const detail = response.ok ? '' : await excerpt(response)
    if (response.ok) await response.body?.cancel().catch(() => undefined)
    return commonOutcome(response, this.options.clock.now(), detail)
  }
}
