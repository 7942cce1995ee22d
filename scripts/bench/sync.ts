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
 * same SQL and the service's cursor, sealed and opened by its own code (src/modules/sync/sync.cursor.ts;
 * until 2026-11-26 the ceiling's cursor was the two numbers in clear, which the service must never send)
 * (the auth epoch read of a signed-in request, the change log's horizon, its last seq and the
 * AUTOINCREMENT counter a cursor is checked against, the service's change-log window with its shared, owned and
 * assigned entities, then each entity's own queries per page, as its module's loader runs them) and
 * answering the same JSON (each entity presented as the service presents it: checked page for page
 * before anything is timed) as the service sends it (./represent.ts: tag and content coding; the client,
 * Bun's fetch, asks for br). Both servers run on core 0, the client on core 1. Bytes on the wire are given both ways: the
 * raw JSON, and brotli as the service sends it to a client that accepts it; for the incremental sync, the
 * median of the minor page faults each server took while answering (memory the allocator had handed
 * back to the system since the last sync: docs/PERFORMANCE.md "Eighth pass"). Aim: at least 75% of the
 * ceiling, first and incremental sync alike (50% until 2026-11-26).
 */
import { Database } from 'bun:sqlite'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { differences, freePort, minorFaults, ROOT, refuseDifferences, startProcess, startService, tempDir, waitFor } from './common'
import { parentOf, presentSubmission, presentVisitDetail, SUBMISSION_COLUMNS_FROM, VISIT_COLUMNS, VISIT_FROM } from './ceiling-visits'
import { representedJson } from './represent'
import { compress } from '../../src/platform/http/representation'
import { createSealer } from '../../src/lib/crypto'
import { decodeCursor, encodeCursor } from '../../src/modules/sync/sync.cursor'
import { randomBytes } from 'node:crypto'

const ROUNDS = Number(process.env.SYNC_ROUNDS ?? 3)
/**
 * Incremental syncs: sixteen per round, an even number, so each server is asked first as often as the
 * other. The server asked first after the idle wait is slower (its core wakes up for it): with an odd
 * count, 5 of the service's 9 runs until 2026-11-26 were first against 4 of the ceiling's, and each
 * median came from a different mix (docs/PERFORMANCE.md "Incremental sync, asked first or second").
 * Each is one cold request, so its median needs many: 12 gave the same tree 68, 74 and 88% in three runs, 24
 * gave one tree 78, 81, 86 and 83% (docs/PERFORMANCE.md "Seventh pass"); 48 since, ~15 s more per run.
 */
const INCREMENTAL_ROUNDS = ROUNDS * 16
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
      or ("changes"."entity" in (select value from json_each($assigned)) and ("changes"."user_id" = $user or ("changes"."user_id" is null and exists (select 1 from "visit_assignees" indexed by "visit_assignees_workspace_user_visit"
        where ("visit_assignees"."workspace_id" = $ws and "visit_assignees"."user_id" = $user and "visit_assignees"."visit_id" = "changes"."visit_id")))))))
    order by "changes"."seq" limit $limit`)
  // Each entity as the service loads and presents it (its module's `…ByIds`: the same SQL texts, aliased
  // where two columns share a name), one query per entity per page (two for projects and four for visits).
  type Row = Record<string, any>
  const byIds = (select: string) => db.query<Row, Record<string, string | number>>(select)
  const inIds = 'in (select value from json_each($ids))'
  const live = (table: string) => `("${table}"."workspace_id" = $ws and "${table}"."deleted_at" is null and "${table}"."id" ${inIds})`
  const loaders: Record<string, (ws: number, list: string, user: number) => Row[]> = {}
  const simple = (name: string, statement: ReturnType<typeof byIds>, present: (row: Row) => Row = (row) => row) => {
    loaders[name] = (ws, list) => statement.all({ ws, ids: list }).map(present)
  }
  simple(
    'channel_group',
    byIds(`select "id", "workspace_id", "name", "created_at", "updated_at", "deleted_at" from "channel_groups" where ${live('channel_groups')}`),
  )
  simple(
    'channel',
    byIds(
      `select "channels"."id", "channels"."workspace_id", "channels"."channel_group_id", "channels"."name", "channels"."created_at", "channels"."updated_at", "channels"."deleted_at", "channel_groups"."id" as p_id, "channel_groups"."name" as p_name from "channels" left join "channel_groups" on "channel_groups"."id" = "channels"."channel_group_id" where ${live('channels')}`,
    ),
    ({ p_id, p_name, ...row }) => ({ ...row, channel_group: parentOf(p_id, { name: p_name }) }),
  )
  simple(
    'account',
    byIds(
      `select "accounts"."id", "accounts"."workspace_id", "accounts"."channel_id", "accounts"."name", "accounts"."created_at", "accounts"."updated_at", "accounts"."deleted_at", "channels"."id" as p_id, "channels"."name" as p_name, "channels"."created_at" as p_created_at, "channels"."updated_at" as p_updated_at from "accounts" left join "channels" on "channels"."id" = "accounts"."channel_id" where ${live('accounts')}`,
    ),
    ({ p_id, p_name, p_created_at, p_updated_at, ...row }) => ({
      ...row,
      channel: parentOf(p_id, { name: p_name, created_at: p_created_at, updated_at: p_updated_at }),
    }),
  )
  simple('sub_area', byIds(`select "id", "workspace_id", "name", "created_at", "updated_at", "deleted_at" from "sub_areas" where ${live('sub_areas')}`))
  simple(
    'outlet',
    byIds(
      `select "outlets"."id", "outlets"."workspace_id", "outlets"."name", "outlets"."code", "outlets"."address", "outlets"."latitude", "outlets"."longitude", "outlets"."geofence_radius_m", "outlets"."account_id", "outlets"."sub_area_id", "outlets"."province_id", "outlets"."city_id", "outlets"."district_id", "outlets"."village_id", "outlets"."contact_name", "outlets"."contact_phone", "outlets"."is_active", "outlets"."created_at", "outlets"."updated_at", "outlets"."deleted_at", "accounts"."name" as account_name, "accounts"."channel_id" as account_channel_id, "sub_areas"."name" as sub_area_name from "outlets" left join "accounts" on "accounts"."id" = "outlets"."account_id" left join "sub_areas" on "sub_areas"."id" = "outlets"."sub_area_id" where ${live('outlets')}`,
    ),
    ({ account_name, account_channel_id, sub_area_name, ...row }) => ({
      ...row,
      is_active: Boolean(row.is_active),
      account: parentOf(row.account_id, { name: account_name ?? '', channel_id: account_channel_id ?? null }),
      sub_area: parentOf(row.sub_area_id, { name: sub_area_name ?? '' }),
    }),
  )
  // Forms and projects are read by a list of placeholders (Drizzle's inArray), one statement per count of ids.
  const listed = (ids: number[]) => ids.map(() => '?').join(', ')
  loaders.form = (ws, list) =>
    db
      .query<Row, (string | number)[]>(
        `select "id", "workspace_id", "title", "title_key", "description", "fields", "created_at", "updated_at", "deleted_at" from "forms" where ("forms"."workspace_id" = ? and "forms"."deleted_at" is null and "forms"."id" in (${listed(JSON.parse(list))}))`,
      )
      .all(ws, ...JSON.parse(list))
      .map(({ title_key, ...row }) => ({ ...row, fields: JSON.parse(row.fields) }))
  loaders.project = (ws, list) => {
    const ids = JSON.parse(list) as number[]
    const found = db
      .query<Row, (string | number)[]>(
        `select "id", "workspace_id", "name", "name_key", "code", "code_key", "principal_id", "start_date", "end_date", "status", "created_at", "updated_at", "deleted_at" from "projects" where ("projects"."workspace_id" = ? and "projects"."deleted_at" is null and "projects"."id" in (${listed(ids)}))`,
      )
      .all(ws, ...ids)
    const of = found.map((row) => row.id as number)
    const forms = of.length
      ? db
          .query<Row, number[]>(
            `select "project_forms"."project_id", "project_forms"."form_id", "forms"."title", "project_forms"."is_required", "project_forms"."order" from "project_forms" inner join "forms" on "forms"."id" = "project_forms"."form_id" where "project_forms"."project_id" in (${listed(of)}) order by "project_forms"."order" asc, "project_forms"."form_id" asc`,
          )
          .all(...of)
      : []
    return found.map(({ name_key, code_key, ...row }) => ({
      ...row,
      forms: forms
        .filter((form) => form.project_id === row.id)
        .map((form) => ({ form_id: form.form_id, title: form.title, is_required: Boolean(form.is_required), order: form.order })),
    }))
  }
  const visits = byIds(
    `select ${VISIT_COLUMNS} ${VISIT_FROM} where ("visits"."workspace_id" = $ws and "visits"."deleted_at" is null and "visits"."id" ${inIds} and exists (select 1 from "visit_assignees" where "visit_assignees"."visit_id" = "visits"."id" and "visit_assignees"."user_id" = $user))`,
  )

  const assignees = byIds(
    `select "visit_assignees"."visit_id", "users"."id" as user_id, "users"."name", "users"."email" from "visit_assignees" inner join "users" on "users"."id" = "visit_assignees"."user_id" where "visit_assignees"."visit_id" ${inIds} order by "visit_assignees"."created_at", "users"."id"`,
  )
  const visitSubmissions = byIds(
    `select ${SUBMISSION_COLUMNS_FROM} where ("submissions"."visit_id" ${inIds} and "submissions"."deleted_at" is null) order by "submissions"."visit_id", "submissions"."order", "submissions"."id"`,
  )
  const logs = byIds(
    `select "id", "workspace_id", "visit_id", "action", "user_id", "user_name", "notes", "created_at" from "visit_logs" where "visit_logs"."visit_id" ${inIds} order by "visit_logs"."visit_id", "visit_logs"."created_at", "visit_logs"."id"`,
  )
  loaders.visit = (ws, list, user) => {
    const found = visits.all({ ws, ids: list, user })
    if (found.length === 0) return []
    const of = JSON.stringify(found.map((row) => row.id))
    const group = (items: Row[]) => {
      const map = new Map<unknown, Row[]>()
      for (const item of items) {
        const entries = map.get(item.visit_id)
        if (entries) entries.push(item)
        else map.set(item.visit_id, [item])
      }
      return map
    }
    const [a, s, l] = [group(assignees.all({ ids: of })), group(visitSubmissions.all({ ids: of }).map(presentSubmission)), group(logs.all({ ids: of }))]
    return found.map((row) => presentVisitDetail(row, a.get(row.id) ?? [], s.get(row.id) ?? [], l.get(row.id) ?? []))
  }
  const submissions = byIds(
    `select ${SUBMISSION_COLUMNS_FROM} where ("submissions"."workspace_id" = $ws and "submissions"."deleted_at" is null and "submissions"."id" ${inIds} and "submissions"."visit_id" in (select "visit_assignees"."visit_id" from "visit_assignees" where ("visit_assignees"."workspace_id" = $ws and "visit_assignees"."user_id" = $user)))`,
  )
  loaders.submission = (ws, list, user) => submissions.all({ ws, ids: list, user }).map(presentSubmission)
  // The phone feed's entities by reach, as the service lists them for a field user (sync.grants.ts).
  const shared = JSON.stringify(['channel_group', 'channel', 'account', 'sub_area', 'outlet', 'form', 'project', 'principal', 'product', 'price_list'])
  const owned = JSON.stringify(['sales_order'])
  const assigned = JSON.stringify(['visit', 'submission'])

  // A secret of its own: it opens only the cursors it sealed, as the service does.
  const sealer = createSealer(randomBytes(32).toString('base64url'))
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
      // The cursor, sealed and opened with the service's own code (its position in a log every workspace
      // shares must be neither readable nor forgeable: docs/API.md §Sync), bound to the feed and grants.
      const grants = url.searchParams.get('grants') ?? ''
      const sent = url.searchParams.get('cursor')
      let after = 0
      let cursorHead = 0
      if (sent) {
        const cursor = decodeCursor(sealer, sent)
        if (!cursor || cursor.workspaceId !== ws || cursor.userId !== user || cursor.grants !== grants) throw new Error('not a cursor of this feed')
        after = cursor.seq
        cursorHead = cursor.head
      }
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
        data: {
          changes,
          cursor: encodeCursor(sealer, { workspaceId: ws, userId: user, seq: more ? taken[taken.length - 1].seq : top, grants, head }),
          has_more: more,
        },
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
  /** Minor page faults the server took while answering (/proc/PID/stat): memory it had to fault in. */
  faults?: number
}

/** `follow`, with the faults `pid` took meanwhile. */
async function followCounting(pid: number, ...args: Parameters<typeof follow>): Promise<Run & { cursor: string }> {
  const before = minorFaults(pid)
  const run = await follow(...args)
  return { ...run, faults: minorFaults(pid) - before }
}

/**
 * Follows the feed from `cursor` until has_more is false. The time is the client's wall time of the
 * sequence, each answer read and parsed as a phone would; the bytes it would have taken in brotli are
 * worked out afterwards, off the clock (until 2026-11-26 that compression, no phone's work, was timed too).
 */
async function follow(url: (cursor: string | null) => string, headers: Record<string, string>, cursor: string | null): Promise<Run & { cursor: string }> {
  const started = performance.now()
  const texts: string[] = []
  let changes = 0
  for (;;) {
    const response = await fetch(url(cursor), { headers })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`sync: ${response.status} ${text.slice(0, 200)}`)
    const body = JSON.parse(text)
    texts.push(text)
    changes += body.data.changes.length
    cursor = body.data.cursor
    if (body.data.has_more) continue
    const ms = performance.now() - started
    const bytes = texts.reduce((sum, page) => sum + Buffer.byteLength(page), 0)
    const brBytes = texts.reduce((sum, page) => sum + compress(page, 'br').length, 0)
    return { ms, pages: texts.length, changes, bytes, brBytes, cursor: cursor! }
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
      const body = (await reply.json()) as { data: { token: string; user: { id: number; workspace_id: number; grants_version: string } } }
      return body.data
    }
    const field = await login('field1@demo.example')
    const owner = await login('owner@demo.example')
    const auth = { authorization: `Bearer ${field.token}` }
    const serviceUrl = (cursor: string | null) => `${service}/api/app/v1/sync?limit=1000${cursor ? `&cursor=${cursor}` : ''}`
    const ceilingUrl = (cursor: string | null) =>
      `${ceilingBase}/sync?ws=${field.user.workspace_id}&user=${field.user.id}&grants=${field.user.grants_version}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`

    // The ceiling must answer what the service answers (./common.ts `differences`), page for page of a
    // whole first sync, the cursor aside (the service's is sealed); it is also both servers' warm-up. Until
    // 2026-11-26 the ceiling sent each row as SELECTed (search keys included, parents flat, flags as numbers).
    let cursors: (string | null)[] = [null, null]
    for (let page = 1; ; page++) {
      const [mine, theirs] = await Promise.all(
        [serviceUrl(cursors[0]), ceilingUrl(cursors[1])].map(async (url, i) => {
          const body = (await (await fetch(url, { headers: i === 0 ? auth : {} })).json()) as { data: { cursor?: string; has_more: boolean } }
          const cursor = body.data.cursor ?? null
          delete body.data.cursor
          return { body, cursor }
        }),
      )
      refuseDifferences(`sync, page ${page}`, differences(mine.body, theirs.body))
      if (!mine.body.data.has_more) break
      cursors = [mine.cursor, theirs.cursor]
    }

    // First sync, each server ROUNDS times (the comparison above was the warm-up).
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
      const [servicePid, ceilingPid] = running.map((child) => child.pid)
      const c0 = serviceFirst ? null : await followCounting(ceilingPid, ceilingUrl, {}, ceilingCursor)
      const s = await followCounting(servicePid, serviceUrl, auth, serviceCursor)
      const c = c0 ?? (await followCounting(ceilingPid, ceilingUrl, {}, ceilingCursor))
      incremental.service.push(s)
      incremental.ceiling.push(c)
      serviceCursor = s.cursor
      ceilingCursor = c.cursor
    }

    const line = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`)
    console.log(`\nPhone sync (field1@demo.example, limit=1000; median of ${ROUNDS} first syncs and ${INCREMENTAL_ROUNDS} incremental ones)\n`)
    line(['scenario', 'server', 'ms', 'pages', 'changes', 'raw JSON', 'br (as sent)', 'minor faults', 'service / ceiling'])
    line(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'])
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
          runs[target][0].faults === undefined ? '' : median(runs[target].map((one) => one.faults ?? 0)),
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
