/**
 * One fake of the push services on a loopback port (Bun.serve, port 0), shaped like the real ones so
 * the worker is tested against HTTP, not a mocked function:
 *
 *   - POST /token — Google's OAuth token endpoint: verifies the JWT assertion's RS256 signature with the
 *     service account's public key, its iss, scope, aud (= this token_uri) and exp; answers an access token.
 *   - POST /v1/projects/:project/messages:send — FCM HTTP v1: checks the bearer token is one it issued
 *     (and not revoked), the project, and the message shape (token, notification, data.notification_id).
 *   - POST /push/:id — a Web Push endpoint: checks `Authorization: vapid t=…, k=…` (ES256 signature by
 *     k, aud = this origin, exp), `Content-Encoding: aes128gcm` and `TTL`, and decrypts the body with
 *     the subscription's private key (RFC 8291) to record what the browser would get.
 *
 * Each token (FCM) or subscription id (Web Push) can be told what to answer next: a status with
 * headers and body, `unregistered` (FCM's 404 UNREGISTERED), or `hang` (never answers until released).
 */
import { createECDH, generateKeyPairSync, randomBytes } from 'node:crypto'
import { decodeJwt, importSPKI, importJWK, jwtVerify } from 'jose'
// @ts-expect-error http_ece ships no types; it is web-push's own RFC 8188/8291 implementation.
import ece from 'http_ece'
import webpush from 'web-push'
import type { Clock } from '../../src/lib/clock'

export type FakeAnswer = { status: number; headers?: Record<string, string>; body?: unknown } | 'unregistered' | 'invalid-argument' | 'hang'

export interface ReceivedPush {
  kind: 'fcm' | 'web'
  /** The FCM token, or the Web Push subscription id. */
  target: string
  data: Record<string, string>
  title: string
  body: string
  answered: number | 'hang'
}

export interface FakeSubscription {
  id: string
  /** The `token` a browser registers: the subscription as JSON text. */
  token: string
  endpoint: string
}

export const FAKE_PROJECT = 'ffos-test-project'

export class PushFake {
  readonly server: ReturnType<typeof Bun.serve>
  readonly base: string
  readonly vapid = webpush.generateVAPIDKeys()
  readonly serviceAccount: Record<string, string>
  private readonly publicKeyPem: string
  /** Access tokens issued, by value. */
  private readonly issued = new Set<string>()
  tokenRequests = 0
  /** While true, the OAuth token endpoint holds every request (until released or the client gives up). */
  holdTokenRequests = false
  readonly received: ReceivedPush[] = []
  /** Requests that reached the fake but were rejected by its checks (a test fails when this is not empty). */
  readonly rejected: string[] = []
  private readonly answers = new Map<string, FakeAnswer[]>()
  private readonly subscriptions = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>()
  private readonly hanging = new Set<() => void>()
  private sequence = 0

  /** `clock`: the app's clock, the "now" of the assertions it signs. */
  constructor(private readonly clock: Clock) {
    this.server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => this.handle(request) })
    this.base = `http://127.0.0.1:${this.server.port}`
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    this.publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
    this.serviceAccount = {
      type: 'service_account',
      project_id: FAKE_PROJECT,
      private_key_id: 'fake-key-1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: 'ffos-push@ffos-test-project.iam.gserviceaccount.com',
      token_uri: `${this.base}/token`,
    }
  }

  /** The settings that point the app at this fake (PUSH_ALLOW_PRIVATE_ENDPOINTS: it is on loopback). */
  env(): Record<string, string> {
    return {
      FCM_SERVICE_ACCOUNT: JSON.stringify(this.serviceAccount),
      FCM_BASE_URL: this.base,
      VAPID_PUBLIC_KEY: this.vapid.publicKey,
      VAPID_PRIVATE_KEY: this.vapid.privateKey,
      VAPID_SUBJECT: 'mailto:ops@example.com',
      PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true',
    }
  }

  /** A browser's subscription whose endpoint is this fake (or `endpointBase` instead of it). */
  subscription(endpointBase = this.base): FakeSubscription {
    const id = `sub-${++this.sequence}`
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    const auth = randomBytes(16)
    this.subscriptions.set(id, { ecdh, auth })
    const endpoint = `${endpointBase}/push/${id}`
    return { id, endpoint, token: JSON.stringify({ endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } }) }
  }

  /** What the next requests for `target` (an FCM token or a subscription id) are answered, in order; then 200. */
  answer(target: string, ...answers: FakeAnswer[]) {
    this.answers.set(target, [...(this.answers.get(target) ?? []), ...answers])
  }

  /** Every push received for `target`. */
  pushesTo(target: string) {
    return this.received.filter((push) => push.target === target)
  }

  /** How many requests are being held (`hang`). */
  get holding() {
    return this.hanging.size
  }

  /** Answers every held request with 503. */
  release() {
    for (const resolve of this.hanging) resolve()
    this.hanging.clear()
  }

  /** Access tokens issued so far are refused from now on (a revoked key). */
  revokeAccessTokens() {
    this.issued.clear()
  }

  async stop() {
    this.release()
    await this.server.stop(true)
  }

  private nextAnswer(target: string): FakeAnswer {
    const queue = this.answers.get(target)
    return queue?.shift() ?? { status: 200 }
  }

  private reject(why: string, status = 400): Response {
    this.rejected.push(why)
    return Response.json({ error: { code: status, message: why } }, { status })
  }

  private async respond(answer: FakeAnswer, signal: AbortSignal): Promise<Response> {
    if (answer === 'hang') {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.hanging.delete(done)
          resolve()
        }
        this.hanging.add(done)
        signal.addEventListener('abort', done)
      })
      return new Response('released', { status: 503 })
    }
    if (answer === 'unregistered' || answer === 'invalid-argument') {
      const errorCode = answer === 'unregistered' ? 'UNREGISTERED' : 'INVALID_ARGUMENT'
      return Response.json(
        {
          error: {
            code: answer === 'unregistered' ? 404 : 400,
            message: 'Requested entity was not found.',
            status: answer === 'unregistered' ? 'NOT_FOUND' : 'INVALID_ARGUMENT',
            details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }],
          },
        },
        { status: answer === 'unregistered' ? 404 : 400 },
      )
    }
    const body = answer.body === undefined ? '{}' : JSON.stringify(answer.body)
    return new Response(body, { status: answer.status, headers: { 'content-type': 'application/json', ...answer.headers } })
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (request.method === 'POST' && url.pathname === '/token') return this.token(request)
    const fcm = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(url.pathname)
    if (request.method === 'POST' && fcm) return this.fcm(request, decodeURIComponent(fcm[1]))
    const web = /^\/push\/([^/]+)$/.exec(url.pathname)
    if (request.method === 'POST' && web) return this.web(request, web[1])
    return this.reject(`unexpected ${request.method} ${url.pathname}`, 404)
  }

  private async token(request: Request): Promise<Response> {
    if (this.holdTokenRequests) return this.respond('hang', request.signal)
    const form = new URLSearchParams(await request.text())
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return this.reject('grant_type')
    const assertion = form.get('assertion') ?? ''
    try {
      const claims = decodeJwt(assertion)
      // Verified at the time the app says it is (its clock may be a test's).
      const { payload, protectedHeader } = await jwtVerify(assertion, await importSPKI(this.publicKeyPem, 'RS256'), {
        algorithms: ['RS256'],
        issuer: this.serviceAccount.client_email,
        audience: this.serviceAccount.token_uri,
        currentDate: this.clock.now(),
        requiredClaims: ['exp', 'iat'],
      })
      if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging') return this.reject(`scope ${payload.scope}`)
      if (protectedHeader.kid !== this.serviceAccount.private_key_id) return this.reject('kid')
      if ((claims.exp ?? 0) - (claims.iat ?? 0) > 3600) return this.reject('exp more than an hour after iat')
    } catch (error) {
      return this.reject(`assertion: ${String(error)}`)
    }
    this.tokenRequests++
    const accessToken = `ya29.fake-${this.tokenRequests}`
    this.issued.add(accessToken)
    return Response.json({ access_token: accessToken, expires_in: 3599, token_type: 'Bearer' })
  }

  private async fcm(request: Request, project: string): Promise<Response> {
    if (project !== FAKE_PROJECT) return this.reject(`project ${project}`, 404)
    const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
    if (!bearer || !this.issued.has(bearer)) return Response.json({ error: { code: 401, status: 'UNAUTHENTICATED' } }, { status: 401 })
    const { message } = (await request.json()) as { message?: Record<string, any> }
    if (!message || typeof message.token !== 'string') return this.reject('message.token')
    if (typeof message.data?.notification_id !== 'string' || !/^\d+$/.test(message.data.notification_id)) return this.reject('data.notification_id')
    if (typeof message.data?.type !== 'string') return this.reject('data.type')
    if (Object.values(message.data).some((value) => typeof value !== 'string')) return this.reject('data values must be strings')
    if (typeof message.notification?.title !== 'string' || typeof message.notification?.body !== 'string') return this.reject('notification')
    const answer = this.nextAnswer(message.token)
    const push: ReceivedPush = {
      kind: 'fcm',
      target: message.token,
      data: message.data,
      title: message.notification.title,
      body: message.notification.body,
      answered: answer === 'hang' ? 'hang' : answer === 'unregistered' ? 404 : answer === 'invalid-argument' ? 400 : answer.status,
    }
    this.received.push(push)
    if (answer !== 'hang' && typeof answer === 'object' && answer.status === 200 && answer.body === undefined) {
      return Response.json({ name: `projects/${FAKE_PROJECT}/messages/${this.received.length}` })
    }
    return this.respond(answer, request.signal)
  }

  private async web(request: Request, id: string): Promise<Response> {
    const subscription = this.subscriptions.get(id)
    if (!subscription) return this.reject(`no subscription ${id}`, 404)
    const vapid = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(request.headers.get('authorization') ?? '')
    if (!vapid) return this.reject('Authorization: vapid t=…, k=…', 401)
    if (vapid[2] !== this.vapid.publicKey) return this.reject('k is not the VAPID public key', 403)
    try {
      const point = Buffer.from(vapid[2], 'base64url')
      const key = await importJWK(
        { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
        'ES256',
      )
      const { payload } = await jwtVerify(vapid[1], key, { algorithms: ['ES256'], audience: this.base, requiredClaims: ['exp', 'sub'] })
      if (!String(payload.sub).startsWith('mailto:')) return this.reject('sub')
    } catch (error) {
      return this.reject(`VAPID JWT: ${String(error)}`, 403)
    }
    if (request.headers.get('content-encoding') !== 'aes128gcm') return this.reject('Content-Encoding')
    if (!/^\d+$/.test(request.headers.get('ttl') ?? '')) return this.reject('TTL')
    let decrypted: { notification?: { title?: string; body?: string }; data?: Record<string, string> }
    try {
      const plain: Buffer = ece.decrypt(Buffer.from(await request.arrayBuffer()), {
        version: 'aes128gcm',
        privateKey: subscription.ecdh,
        authSecret: subscription.auth.toString('base64url'),
      })
      decrypted = JSON.parse(plain.toString('utf8'))
    } catch (error) {
      return this.reject(`payload: ${String(error)}`)
    }
    if (typeof decrypted.data?.notification_id !== 'string') return this.reject('data.notification_id')
    const answer = this.nextAnswer(id)
    this.received.push({
      kind: 'web',
      target: id,
      data: decrypted.data,
      title: decrypted.notification?.title ?? '',
      body: decrypted.notification?.body ?? '',
      answered: answer === 'hang' ? 'hang' : typeof answer === 'object' ? answer.status : 400,
    })
    if (typeof answer === 'object' && answer.status === 200 && answer.body === undefined) return new Response(null, { status: 201 })
    return this.respond(answer, request.signal)
  }
}
