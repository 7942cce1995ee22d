/**
 * Phone sync on the demo workspace (part of `bun run bench`; alone: `bun scripts/bench/sync.ts`):
 *
 * - first sync: a demo field user follows GET /app/v1/sync from no cursor at limit=1000 until
 *   has_more is false (10k outlets, master data, their ~2,000 visits and their submissions);
 * - incremental sync: the owner changes 10 outlets, then (250 ms later, once the service's checkpoint
 *   worker has copied those writes) the field user asks with their cursor, of each server in turn,
 *   which one goes first alternating by round.
 *
 * Each is timed sequentially (one client, wall time of the whole sequence) against a ceiling: a bare
 * Bun.serve + bun:sqlite process (this file with `--ceiling`) reading the same database file with the
 * same SQL (the auth epoch read of a signed-in request, the change log's horizon, its last seq and the
 * AUTOINCREMENT counter a cursor is checked against, the service's change-log window with its shared, owned and
 * assigned entities, then one query per entity per page, rows as SELECTed) and answering
 * JSON as the service sends it (./represent.ts: tag and content coding; the client, Bun's fetch, asks
 * for br). Both servers run on core 0, the client on core 1. Bytes on the wire are given both ways: the
 * raw JSON, and brotli as the service sends it to a client that accepts it. Aim: at least 75% of the
 * ceiling, first and incremental sync alike (50% until 2026-11-26).
 */
import { Database } from 'bun:sqlite'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, ROOT, startProcess, startService, tempDir, waitFor } from './common'
import { representedJson } from './represent'
import { compress } from '../../src/platform/http/representation'

const ROUNDS = Number(process.env.SYNC_ROUNDS ?? 3)
/**
 * Incremental syncs: four per round, an even number, so each server is asked first as often as the
 * other. The server asked first after the idle wait is slower (its core wakes up for it): with an odd
 * count, 5 of the service's 9 runs until 2026-11-26 were first against 4 of the ceiling's, and each
 * median came from a different mix (docs/PERFORMANCE.md "Incremental sync, asked first or second").
 */
const INCREMENTAL_ROUNDS = ROUNDS * 4
/** After the owner's updates, before an incremental sync is timed: a few checkpoint ticks of the service. */
const CHECKPOINT_SETTLE_MS = 250
/** Aim: the service at least 75% of the ceiling (it was 50% until 2026-11-26: docs/PERFORMANCE.md "Reads at their ceiling"). */
const AIM = 0.75

// ── The ceiling (`--ceiling`): the same reads, no framework ─────────────────────────────────────

function ceiling(path: string, port: number) {
  const db = new Database(path, { readonly: true, strict: true })
  // The service reader's per-connection PRAGMAs (src/db/client.ts), its 64 MiB page cache included: the
  // first read after a write clears whatever the cache holds (SQLite resets a WAL reader's cache when the
  // database changed), and that costs in proportion to the pages held, on both servers alike.
  for (const pragma of ['PRAGMA synchronous = NORMAL', 'PRAGMA foreign_keys = ON', 'PRAGMA busy_timeout = 5000', 'PRAGMA cache_size = -65536']) db.run(pragma)
  // The service's statements (src/modules/sync/sync.service.ts: uptoOf, horizonOf, issuedUpTo, phoneRows), as it runs them.
  const upto = db.query('select max("seq") as upto from "changes" where "changes"."workspace_id" = ?')
  const horizonOf = db.query('select "seq" from "change_horizons" where "change_horizons"."workspace_id" = ?')
  const issuedUpTo = db.query("select seq from sqlite_sequence where name = 'changes'")
  const authEpoch = db.query('select "value" from "auth_epoch" where "auth_epoch"."id" = ?')
  const rows =
    db.query(`select "seq", "entity", "entity_id" from "changes" where (("changes"."workspace_id" = $ws and "changes"."seq" > $after and "changes"."seq" <= $upto and ("changes"."seq" > $head or "changes"."op" = $op))
    and (("changes"."user_id" is null and "changes"."entity" in (select value from json_each($shared)))
      or ("changes"."user_id" is null and "changes"."owner_id" = $user and "changes"."entity" in (select value from json_each($owned)))
      or ("changes"."entity" in (select value from json_each($assigned)) and ("changes"."user_id" = $user or ("changes"."user_id" is null and exists (select 1 from "visit_assignees" where "visit_assignees"."visit_id" = "changes"."visit_id" and "visit_assignees"."user_id" = $user))))))
    order by "changes"."seq" limit $limit`)
  const byIds = (select: string) => db.query(select)
  const ids = `in (select value from json_each($ids))`
  const master = (table: string, parent?: string, key?: string) =>
    byIds(
      parent
        ? `select t.*, p.id as p_id, p.name as p_name from ${table} t left join ${parent} p on p.id = t.${key} where t.workspace_id = $ws and t.deleted_at is null and t.id ${ids}`
        : `select * from ${table} where workspace_id = $ws and deleted_at is null and id ${ids}`,
    )
  const loaders: Record<string, (ws: number, list: string, user: number) => Record<string, unknown>[]> = {}
  const simple = (name: string, statement: ReturnType<typeof byIds>) => {
    loaders[name] = (ws, list) => statement.all({ ws, ids: list }) as Record<string, unknown>[]
  }
  simple('channel_group', master('channel_groups'))
  simple('channel', master('channels', 'channel_groups', 'channel_group_id'))
  simple('account', master('accounts', 'channels', 'channel_id'))
  simple('sub_area', master('sub_areas'))
  simple('form', master('forms'))
  simple('principal', master('principals'))
  simple('product', master('products', 'principals', 'principal_id'))
  simple(
    'outlet',
    byIds(
      `select o.*, a.name as account_name, a.channel_id, s.name as sub_area_name from outlets o left join accounts a on a.id = o.account_id left join sub_areas s on s.id = o.sub_area_id where o.workspace_id = $ws and o.deleted_at is null and o.id ${ids}`,
    ),
  )
  const projects = master('projects')
  const projectForms = byIds(
    `select pf.*, f.title from project_forms pf join forms f on f.id = pf.form_id where pf.project_id ${ids} order by pf."order", pf.form_id`,
  )
  loaders.project = (ws, list) => {
    const found = projects.all({ ws, ids: list }) as Record<string, unknown>[]
    const forms = projectForms.all({ ids: JSON.stringify(found.map((row) => row.id)) }) as Record<string, unknown>[]
    return found.map((row) => ({ ...row, forms: forms.filter((form) => form.project_id === row.id) }))
  }
  const visits = byIds(`select v.*, o.name as outlet_name, o.address as outlet_address, p.name as project_name, t.name as team_name from visits v
    join outlets o on o.id = v.outlet_id join projects p on p.id = v.project_id left join teams t on t.id = v.team_id
    where v.workspace_id = $ws and v.deleted_at is null and v.id ${ids} and exists (select 1 from visit_assignees va where va.visit_id = v.id and va.user_id = $user)`)
  const assignees = byIds(
    `select va.visit_id, u.id as user_id, u.name, u.email from visit_assignees va join users u on u.id = va.user_id where va.visit_id ${ids} order by va.created_at, u.id`,
  )
  const submissionColumns = `s.*, (select name from users where id = s.submitted_by) as submitted_by_name, (select name from users where id = s.reviewed_by) as reviewed_by_name`
  const visitSubmissions = byIds(
    `select ${submissionColumns} from submissions s where s.visit_id ${ids} and s.deleted_at is null order by s.visit_id, s."order", s.id`,
  )
  const logs = byIds(`select * from visit_logs where visit_id ${ids} order by visit_id, created_at, id`)
  loaders.visit = (ws, list, user) => {
    const found = visits.all({ ws, ids: list, user }) as Record<string, unknown>[]
    const of = JSON.stringify(found.map((row) => row.id))
    const [a, s, l] = [assignees.all({ ids: of }), visitSubmissions.all({ ids: of }), logs.all({ ids: of })] as Record<string, unknown>[][]
    const group = (items: Record<string, unknown>[]) => {
      const map = new Map<unknown, Record<string, unknown>[]>()
      for (const item of items) map.set(item.visit_id, [...(map.get(item.visit_id) ?? []), item])
      return map
    }
    const [ga, gs, gl] = [group(a), group(s), group(l)]
    return found.map((row) => ({ ...row, assignees: ga.get(row.id) ?? [], submissions: gs.get(row.id) ?? [], logs: gl.get(row.id) ?? [] }))
  }
  const submissions = byIds(`select ${submissionColumns} from submissions s where s.workspace_id = $ws and s.deleted_at is null and s.id ${ids}
    and s.visit_id in (select visit_id from visit_assignees where workspace_id = $ws and user_id = $user)`)
  loaders.submission = (ws, list, user) => submissions.all({ ws, ids: list, user }) as Record<string, unknown>[]
  // The phone feed's entities by reach, as the service lists them for a field user (sync.grants.ts).
  const shared = JSON.stringify(['channel_group', 'channel', 'account', 'sub_area', 'outlet', 'form', 'project', 'principal', 'product', 'price_list'])
  const owned = JSON.stringify(['sales_order'])
  const assigned = JSON.stringify(['visit', 'submission'])

  Bun.serve({
    port,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      if (url.pathname === '/api/health') return Response.json({ ok: true })
      // The auth epoch every signed-in request of the service reads (./ceiling-suite.ts, AUTH_EPOCH).
      authEpoch.get(1)
      const ws = Number(url.searchParams.get('ws'))
      const user = Number(url.searchParams.get('user'))
      // The cursor: `seq.head` (the service seals the same two numbers into its cursor).
      const [after, cursorHead] = (url.searchParams.get('cursor') ?? '0.0').split('.').map(Number)
      const limit = Number(url.searchParams.get('limit') ?? 500)
      const horizon = (horizonOf.get(ws) as { seq: number } | null)?.seq ?? 0
      if (after > 0 && after > Number((issuedUpTo.get() as { seq: number } | null)?.seq ?? 0)) throw new Error('cursor past the log')
      const top = Math.max(Number((upto.get(ws) as { upto: number | null }).upto ?? 0), after, horizon)
      const head = after === 0 ? top : cursorHead
      const page = (top > after ? rows.all({ ws, after, upto: top, head, op: 'upsert', shared, owned, assigned, user, limit: limit + 1 }) : []) as {
        seq: number
        entity: string
        entity_id: number
      }[]
      const more = page.length > limit
      const taken = more ? page.slice(0, limit) : page
      const latest = new Map<string, { entity: string; id: number; seq: number }>()
      for (const row of taken) {
        const key = `${row.entity}:${row.entity_id}`
        latest.delete(key)
        latest.set(key, { entity: row.entity, id: row.entity_id, seq: row.seq })
      }
      const grouped = new Map<string, number[]>()
      for (const { entity, id } of latest.values()) grouped.set(entity, [...(grouped.get(entity) ?? []), id])
      const found = new Map<string, unknown>()
      for (const [entity, list] of grouped) {
        const load = loaders[entity]
        if (!load) throw new Error(`the sync ceiling has no loader for ${entity}: add the service's`)
        for (const row of load(ws, JSON.stringify(list), user)) found.set(`${entity}:${row.id}`, row)
      }
      const changes = [...latest].flatMap(([key, { entity, id, seq }]) =>
        found.has(key) ? [{ entity, id, op: 'upsert', data: found.get(key) }] : seq > head ? [{ entity, id, op: 'delete' }] : [],
      )
      return representedJson(request, {
        success: true,
        message: 'Success',
        code: 'SYNC_OK',
        data: { changes, cursor: `${more ? taken[taken.length - 1].seq : top}.${head}`, has_more: more },
      })
    },
  })
}

if (import.meta.main && process.argv[2] === '--ceiling') {
  ceiling(process.env.DB_PATH!, Number(process.env.PORT))
}

// ── The client ──────────────────────────────────────────────────────────────────────────────────

interface Run {
  ms: number
  pages: number
  changes: number
  bytes: number
  brBytes: number
}

async function follow(url: (cursor: string | null) => string, headers: Record<string, string>, cursor: string | null): Promise<Run & { cursor: string }> {
  const started = performance.now()
  let pages = 0
  let changes = 0
  let bytes = 0
  let brBytes = 0
  for (;;) {
    const response = await fetch(url(cursor), { headers })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`sync: ${response.status} ${text.slice(0, 200)}`)
    const body = JSON.parse(text)
    pages++
    changes += body.data.changes.length
    bytes += Buffer.byteLength(text)
    brBytes += compress(text, 'br').length
    cursor = body.data.cursor
    if (!body.data.has_more) return { ms: performance.now() - started, pages, changes, bytes, brBytes, cursor: cursor! }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`

/** Runs the sync scenarios on a copy of the cached demo database `cache`, in `dir`. */
export async function benchSync(cache: string, dir: string) {
  const file = join(dir, 'sync.db')
  copyFileSync(cache, file)
  const running: Subprocess[] = []
  try {
    const servicePort = await freePort()
    running.push(startService(file, servicePort))
    const service = `http://127.0.0.1:${servicePort}`
    // The service applies pending migrations first (an older database gets its change log then).
    await waitFor(`${service}/api/health`, 300_000)
    const ceilingPort = await freePort()
    running.push(startProcess([process.execPath, join(ROOT, 'scripts/bench/sync.ts'), '--ceiling'], { PORT: String(ceilingPort), DB_PATH: file }))
    const ceilingBase = `http://127.0.0.1:${ceilingPort}`
    await waitFor(`${ceilingBase}/api/health`)
    const login = async (email: string) => {
      const reply = await fetch(`${service}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'password123' }),
      })
      const body = (await reply.json()) as { data: { token: string; user: { id: number; workspace_id: number } } }
      return body.data
    }
    const field = await login('field1@demo.example')
    const owner = await login('owner@demo.example')
    const auth = { authorization: `Bearer ${field.token}` }
    const serviceUrl = (cursor: string | null) => `${service}/api/app/v1/sync?limit=1000${cursor ? `&cursor=${cursor}` : ''}`
    const ceilingUrl = (cursor: string | null) =>
      `${ceilingBase}/sync?ws=${field.user.workspace_id}&user=${field.user.id}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`

    // First sync, each server ROUNDS times (one warm-up first).
    await follow(serviceUrl, auth, null)
    await follow(ceilingUrl, {}, null)
    const first = { service: [] as Run[], ceiling: [] as Run[] }
    let serviceCursor = ''
    let ceilingCursor = ''
    for (let round = 0; round < ROUNDS; round++) {
      const s = await follow(serviceUrl, auth, null)
      const c = await follow(ceilingUrl, {}, null)
      first.service.push(s)
      first.ceiling.push(c)
      serviceCursor = s.cursor
      ceilingCursor = c.cursor
    }

    // Incremental: 10 outlet changes by the owner, then one sync from the last cursor.
    const outlets = new Database(file, { readonly: true })
      .query('select id from outlets where workspace_id = ? and deleted_at is null order by id limit 10')
      .all(field.user.workspace_id) as { id: number }[]
    const incremental = { service: [] as Run[], ceiling: [] as Run[] }
    for (let round = 0; round < INCREMENTAL_ROUNDS; round++) {
      for (const { id } of outlets) {
        const reply = await fetch(`${service}/api/office/v1/outlets/${id}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ address: `Jalan Bench ${round}-${id}` }),
        })
        if (reply.status !== 200) throw new Error(`outlet update: ${reply.status}`)
      }
      // The service's checkpoint worker copies what the updates wrote (every 50 ms, src/db/checkpoint.ts)
      // on the core both servers share: the sync is timed once that is done, not while it steals the
      // core from whichever server is asked first. The servers take turns at going first.
      await Bun.sleep(CHECKPOINT_SETTLE_MS)
      const serviceFirst = round % 2 === 0
      const c0 = serviceFirst ? null : await follow(ceilingUrl, {}, ceilingCursor)
      const s = await follow(serviceUrl, auth, serviceCursor)
      const c = c0 ?? (await follow(ceilingUrl, {}, ceilingCursor))
      incremental.service.push(s)
      incremental.ceiling.push(c)
      serviceCursor = s.cursor
      ceilingCursor = c.cursor
    }

    const line = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`)
    console.log(`\nPhone sync (field1@demo.example, limit=1000; median of ${ROUNDS} first syncs and ${INCREMENTAL_ROUNDS} incremental ones)\n`)
    line(['scenario', 'server', 'ms', 'pages', 'changes', 'raw JSON', 'br (as sent)', 'service / ceiling'])
    line(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:'])
    for (const [name, runs, size] of [
      ['first sync', first, mib],
      ['incremental (10 changes)', incremental, kib],
    ] as const) {
      const s = median(runs.service.map((run) => run.ms))
      const c = median(runs.ceiling.map((run) => run.ms))
      const ratio = c / s
      const row = (target: 'service' | 'ceiling', ms: number) => {
        const run = runs[target][0]
        line([
          name,
          target,
          ms.toFixed(1),
          run.pages,
          run.changes,
          size(run.bytes),
          size(run.brBytes),
          target === 'service' ? `${(ratio * 100).toFixed(0)}% ${ratio >= AIM ? 'PASS' : 'MISS'}` : '',
        ])
      }
      row('service', s)
      row('ceiling', c)
    }
  } finally {
    for (const child of running) child.kill('SIGTERM')
    await Promise.all(running.map((child) => Promise.race([child.exited, Bun.sleep(5000)])))
  }
}

if (import.meta.main && process.argv[2] !== '--ceiling') {
  const cache = process.argv[2]
  if (!cache) throw new Error('usage: bun scripts/bench/sync.ts DEMO_DB (or run it through `bun run bench`)')
  const { dir, remove } = tempDir('ffos-bench-sync-')
  try {
    await benchSync(cache, dir)
  } finally {
    remove()
  }
}
