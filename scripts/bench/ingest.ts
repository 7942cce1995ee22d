/**
 * The location-ingest scenario's parts, shared by `bench:locations` (service against its ceiling)
 * and `bench:compare` (one build of the service against another): the workspace it runs in, the
 * live-map listener, and the load of 50-ping batches with unique idempotency keys and, like real
 * phones send, device times (`recorded_at`) unique per user, so the index that de-duplicates them is
 * on the measured path.
 */
import { join } from 'node:path'
import { load, pin, ROOT } from './common'
import type { LoadResult } from './load'

export const PINGS = 50
/** Each round starts a fresh process: its first requests run before the JIT has warmed up. */
export const WARMUP_SECONDS = 2

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function post(base: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  return (await response.json()) as { data: any }
}

export interface IngestWorkspace {
  owner: { token: string; user: { id: number; workspace_id: number } }
  field: { token: string; user: { id: number; workspace_id: number } }
}

/** One workspace with a field user, set up through the service at `base` (`http://…/api`). */
export async function setUpIngestWorkspace(base: string): Promise<IngestWorkspace> {
  const owner = (await post(base, '/auth/register', { name: 'Bench', email: 'bench@example.com', password: 'password123', workspace_name: 'Bench' })).data
  const roles = await (await fetch(`${base}/office/v1/roles`, { headers: { authorization: `Bearer ${owner.token}` } })).json()
  const userRole = roles.data.find((role: { slug: string }) => role.slug === 'user').id
  await post(base, '/office/v1/users', { name: 'Field', email: 'field@example.com', password: 'password123', role_id: userRole }, owner.token)
  const field = (await post(base, '/auth/login', { email: 'field@example.com', password: 'password123' })).data
  return { owner, field }
}

/**
 * A live-map WebSocket client on `port` with `token`, counting what it receives. It is a client: it
 * runs on the load generator's core, not the server's. `stop` answers how many messages it got.
 */
export async function startListener(port: number, token: string) {
  const listener = Bun.spawn([...pin(1), process.execPath, join(ROOT, 'scripts/bench/ws-listener.ts'), `ws://127.0.0.1:${port}/ws?token=${token}`], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = listener.stdout.getReader()
  await reader.read() // "ready"
  return {
    process: listener,
    async stop(): Promise<number> {
      listener.kill('SIGTERM')
      const line = new TextDecoder().decode((await reader.read()).value ?? new Uint8Array()).trim()
      return JSON.parse(line || '{"messages":0}').messages
    },
  }
}

/**
 * `concurrency` clients posting 50-ping batches with a fresh idempotency key each to `url`. Device
 * times start a day back (the service refuses them more than 5 minutes ahead) and advance 1 ms per ping.
 */
export function ingestLoad(url: string, token: string | null, concurrency: number, seconds: number): Promise<LoadResult> {
  return load({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    pingBatches: { count: PINGS, recordedFromMs: Date.now() - 86_400_000 },
    uniqueIdempotencyKey: token !== null,
    concurrency,
    seconds,
    warmupSeconds: WARMUP_SECONDS,
  })
}
