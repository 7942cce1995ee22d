/**
 * The ceiling for `bun run bench` (scripts/bench/suite.ts): one bare Bun.serve + bun:sqlite process
 * answering every scenario of the suite on the service's own paths, with the SQL the service runs
 * (same statements, filters, page sizes, a count next to each page, the auth epoch read every signed-in
 * request makes) and roughly the same JSON, but no framework, token, permission check, validation,
 * idempotency claim, audit plumbing or WebSocket fan-out.
 * Writes do the service's inserts and updates in one transaction. JSON reads go out as the service
 * sends them (./represent.ts: the same tag and content coding).
 *
 * Who is calling comes from an `x-user-id` header (the ceiling has no auth); the workspace is fixed.
 * The connection gets the service's per-connection PRAGMAs and nothing more, so a difference in the
 * figures is the service's own work, not SQLite tuning.
 *
 * The SQL texts are copies of what the service runs (visits.queries.ts, visits.service.ts,
 * outlets.service.ts, platform/data/search.ts, audit-logs.service.ts, locations.service.ts, route.service.ts,
 * reports.service.ts, journey-plans/compliance.ts, platform/data/idempotency.ts): when a query changes there,
 * change it here too, or the ratio compares two different queries. The suite checks the answers before it
 * measures (suite.ts `compareAnswers`): every read must answer the service's JSON field for field, and a
 * check-in/out the same fields, or the run stops. Until 2026-11-26 it compared row counts only, and the
 * visit reads here had fallen eight of the detail's fields behind, the outlet list its geofence and the
 * field-day report its plan compliance and orders (two statements), each a ceiling doing less work.
 *
 * The outlet keyword list has two ceilings: by default the service's keyword search by index (the
 * FTS5 probe, then the page and the total by index or scan); with the header `x-search: scan`, the
 * scan every keyword list ran before the index (`instr` over every row of the workspace).
 *
 * Env: PORT, DB_PATH, WORKSPACE_ID.
 */
import type { Statement } from 'bun:sqlite'
// The route's and the report's JavaScript summaries are pure functions of the rows read: the ceiling
// runs the very same ones, so the ratio measures everything around them.
import { JUMP_BITS, summarizeTrack } from '../../src/lib/geo'
import { PINGS_OF_DAY, pingsFromValues, routeGeoJson, type RouteOfDay } from '../../src/modules/locations/route.service'
import { PINGS_OF_USERS, pingsPerUser } from '../../src/modules/reports/reports.service'
import { compliance, type ComplianceVisit } from '../../src/modules/journey-plans'
import { visitFlagNames } from '../../src/modules/visits'
import { checkSite, travelFlags, visitFlagMask, type GeofenceMode } from '../../src/modules/visits/visits.integrity'
import { addDays, localDayRange } from '../../src/lib/time-zones'
import { ceilingDatabase } from './ceiling-db'
import { presentSubmission, presentVisitDetail, SUBMISSION_COLUMNS_FROM, VISIT_COLUMNS, VISIT_FROM, VISIT_LIST_COLUMNS } from './ceiling-visits'
import { representedJson } from './represent'

const { db, writer, groups, close } = ceilingDatabase(process.env.DB_PATH!)
const workspaceId = Number(process.env.WORKSPACE_ID)

type Row = Record<string, any>
type Params = (string | number | null)[]
/** The connection statements run on: the writer inside a write transaction (whose bodies are synchronous), else the reader. */
let connection = db
/** Runs `body` as one write transaction of the current group; resolves once its group committed and synced. */
const writeTransaction = <T>(body: () => T): Promise<T> =>
  groups.transaction(async () => {
    connection = writer
    try {
      return body()
    } finally {
      connection = db
    }
  })
/** Statements are prepared once per SQL text (bun:sqlite's `query` cache) and bound positionally (one array argument). */
const all = (sql: string, params: Params) => (connection.query(sql) as Statement<Row>).all(params as never)
const get = (sql: string, params: Params) => (connection.query(sql) as Statement<Row>).get(params as never)
/** Rows as arrays of values (the service reads its large ping results this way too). */
const values = (sql: string, params: Params) => (connection.query(sql) as Statement<Row>).values(params as never) as unknown[][]
const run = (sql: string, params: Params) => (connection.query(sql) as Statement<Row>).run(params as never)
const placeholders = (n: number) => Array(n).fill('?').join(', ')

const list = (rows: unknown[], page: number, limit: number, total: number) => ({
  success: true,
  message: 'Success',
  code: 'LIST_OK',
  data: rows,
  meta: { page, limit, total, total_pages: total === 0 ? 0 : Math.ceil(total / limit) },
})
const ok = (data: unknown, code = 'SUCCESS', message = 'Success') => ({ success: true, message, code, data })
const paging = (query: URLSearchParams, defaultLimit: number, maxLimit: number) => {
  const page = Number(query.get('page') ?? 1)
  const limit = Math.min(Number(query.get('limit') ?? defaultLimit), maxLimit)
  return { page, limit, offset: (page - 1) * limit }
}
const fold = (text: string) => text.trim().normalize('NFKC').toLowerCase()

// ── Outlets: keyword list ───────────────────────────────────────────────────────────────────────
const OUTLET_COLUMNS = `"outlets"."id", "outlets"."workspace_id", "outlets"."name", "outlets"."code", "outlets"."address", "outlets"."latitude", "outlets"."longitude", "outlets"."geofence_radius_m", "outlets"."account_id", "outlets"."sub_area_id", "outlets"."province_id", "outlets"."city_id", "outlets"."district_id", "outlets"."village_id", "outlets"."contact_name", "outlets"."contact_phone", "outlets"."is_active", "outlets"."created_at", "outlets"."updated_at", "outlets"."deleted_at", "accounts"."name" as account_name, "accounts"."channel_id" as account_channel_id, "sub_areas"."name" as sub_area_name`

/**
 * platform/data/search.ts and list.ts: keywords of 3+ characters without NUL are counted by the index
 * first; above 1000 in the total, the page walks the list's order (scan), else it is read by index.
 */
const INDEX_DRIVEN_PAGE_MAX = 1000
const SCAN = `(instr("outlets"."name_key", ?) > 0 or instr(coalesce("outlets"."code_key", ''), ?) > 0)`
const BY_INDEX = `("outlets"."id" in (select rowid from "outlets_search" where "outlets_search" match ?) and ${SCAN})`

function listOutlets(query: URLSearchParams, naive: boolean) {
  const { page, limit, offset } = paging(query, 10, 100)
  const keyword = query.get('keyword') ? fold(query.get('keyword')!) : null
  const where = (condition: [string, Params]) => `("outlets"."workspace_id" = ? and "outlets"."deleted_at" is null${condition[0]})`
  const none: [string, Params] = ['', []]
  const scan: [string, Params] = keyword ? [` and ${SCAN}`, [keyword, keyword]] : none
  const indexed = keyword !== null && !naive && [...keyword].length >= 3 && !keyword.includes('\u0000')
  const byIndex: [string, Params] = indexed ? [` and ${BY_INDEX}`, [`"${keyword.replaceAll('"', '""')}"`, keyword, keyword]] : scan
  const totalBy = indexed ? byIndex : scan
  const total = get(`select count(*) as n from "outlets" where ${where(totalBy)}`, [workspaceId, ...totalBy[1]])!.n as number
  const rowsBy = indexed && total <= INDEX_DRIVEN_PAGE_MAX ? byIndex : scan
  const rows = all(
    `select ${OUTLET_COLUMNS} from "outlets" left join "accounts" on "accounts"."id" = "outlets"."account_id" left join "sub_areas" on "sub_areas"."id" = "outlets"."sub_area_id" where ${where(rowsBy)} order by "outlets"."created_at" desc, "outlets"."id" desc limit ?${offset ? ' offset ?' : ''}`,
    [workspaceId, ...rowsBy[1], limit, ...(offset ? [offset] : [])],
  )
  const data = rows.map(({ account_name, account_channel_id, sub_area_name, ...outlet }) => ({
    ...outlet,
    is_active: Boolean(outlet.is_active),
    account: outlet.account_id === null ? null : { id: outlet.account_id, name: account_name ?? '', channel_id: account_channel_id ?? null },
    sub_area: outlet.sub_area_id === null ? null : { id: outlet.sub_area_id, name: sub_area_name ?? '' },
  }))
  return list(data, page, limit, total)
}

// ── Visits: lists, detail ───────────────────────────────────────────────────────────────────────
/** The columns of a list page (the service's `listColumns`), and of the detail (`detailColumns`). */
/** The service's `assignedTo` (a probe per visit already narrowed down) and `assignedWithin` (lists). */
const ASSIGNED = `exists (select 1 from "visit_assignees" where "visit_assignees"."visit_id" = "visits"."id" and "visit_assignees"."user_id" = ?)`
function assignedWithin(userId: number, from: string | null, to: string | null): { sql: string; params: Params } {
  const bounds = [from ? 'and "visit_assignees"."visit_date" >= ?' : '', to ? 'and "visit_assignees"."visit_date" <= ?' : ''].join(' ')
  return {
    sql: `"visits"."id" in (select "visit_assignees"."visit_id" from "visit_assignees" where "visit_assignees"."workspace_id" = ? and "visit_assignees"."user_id" = ? ${bounds})`,
    params: [workspaceId, userId, ...(from ? [from] : []), ...(to ? [to] : [])],
  }
}
const SORTABLE = new Set(['visit_date', 'created_at', 'updated_at', 'id'])

/** The service's `visitFilters` for the filters the suite sends (status, team, user, dates, mine). */
function visitWhere(query: URLSearchParams, mineUserId: number | null) {
  const parts = ['"visits"."workspace_id" = ?', '"visits"."deleted_at" is null']
  const params: Params = [workspaceId]
  const within = (userId: number) => {
    const condition = assignedWithin(userId, query.get('date_from'), query.get('date_to'))
    parts.push(condition.sql)
    params.push(...condition.params)
  }
  if (mineUserId !== null) within(mineUserId)
  if (query.get('status')) {
    parts.push('"visits"."status" = ?')
    params.push(query.get('status'))
  }
  if (query.get('team_id')) {
    parts.push('"visits"."team_id" = ?')
    params.push(Number(query.get('team_id')))
  }
  if (query.get('user_id') && mineUserId === null) within(Number(query.get('user_id')))
  if (query.get('date_from')) {
    parts.push('"visits"."visit_date" >= ?')
    params.push(query.get('date_from'))
  }
  if (query.get('date_to')) {
    parts.push('"visits"."visit_date" <= ?')
    params.push(query.get('date_to'))
  }
  return { where: `(${parts.join(' and ')})`, params }
}

function assigneesOf(ids: number[]) {
  if (ids.length === 0) return []
  return all(
    `select "visit_assignees"."visit_id", "users"."id" as user_id, "users"."name", "users"."email" from "visit_assignees" inner join "users" on "users"."id" = "visit_assignees"."user_id" where "visit_assignees"."visit_id" in (select value from json_each(?)) order by "visit_assignees"."created_at", "users"."id"`,
    [JSON.stringify(ids)],
  )
}

function listVisits(query: URLSearchParams, mineUserId: number | null) {
  const { page, limit, offset } = paging(query, 10, 100)
  const { where, params } = visitWhere(query, mineUserId)
  const sortBy = SORTABLE.has(query.get('sort_by') ?? '') ? query.get('sort_by')! : 'visit_date'
  const direction = query.get('sort_order') === 'asc' ? 'asc' : 'desc'
  // The phone's own visits without sort_by come in route order (visits.queries.ts VISIT_SORT.route).
  const route = mineUserId !== null && !query.get('sort_by') ? `, "visits"."route_sequence" is null, "visits"."route_sequence" asc` : ''
  const rows = all(
    `select ${VISIT_LIST_COLUMNS} ${VISIT_FROM} where ${where} order by "visits"."${sortBy}" ${direction}${route}, "visits"."id" ${direction} limit ?${offset ? ' offset ?' : ''}`,
    [...params, limit, ...(offset ? [offset] : [])],
  )
  const total = get(`select count(*) as n from "visits" where ${where}`, params)!.n as number
  const ids = rows.map((row) => row.id as number)
  const assignees = assigneesOf(ids)
  const counts = ids.length
    ? all(
        `select "visit_id", count(*) as total, sum(case when "status" = 'completed' then 1 else 0 end) as completed from "submissions" where ("submissions"."visit_id" in (select value from json_each(?)) and "submissions"."deleted_at" is null) group by "submissions"."visit_id"`,
        [JSON.stringify(ids)],
      )
    : []
  const data = rows.map((row) => {
    const summary = counts.find((entry) => entry.visit_id === row.id)
    return {
      id: row.id,
      outlet: { id: row.outlet_id, name: row.outlet_name },
      project: { id: row.project_id, name: row.project_name },
      team: row.team_id === null ? null : { id: row.team_id, name: row.team_name ?? '' },
      status: row.status,
      visit_date: row.visit_date,
      checked_in_at: row.checked_in_at,
      checked_out_at: row.checked_out_at,
      assignees: assignees.filter((a) => a.visit_id === row.id).map(({ user_id, name }) => ({ user_id, name })),
      submissions_total: summary?.total ?? 0,
      submissions_completed: Number(summary?.completed ?? 0),
      sent_to_field_at: row.sent_to_field_at,
      flags: visitFlagNames(row.flags),
      effective: Boolean(row.effective),
      route_sequence: row.route_sequence,
      created_at: row.created_at,
      updated_at: row.updated_at,
    }
  })
  return list(data, page, limit, total)
}

const SUBMISSION_SELECT = `select ${SUBMISSION_COLUMNS_FROM} where ("submissions"."visit_id" = ? and "submissions"."deleted_at" is null) order by "submissions"."order", "submissions"."id"`

/** The service's `visitDetail`: the visit, its assignees, submissions and logs; null when not found. */
function visitDetail(id: number, mineUserId: number | null) {
  const where =
    mineUserId === null
      ? '("visits"."workspace_id" = ? and "visits"."deleted_at" is null and "visits"."id" = ?)'
      : `("visits"."workspace_id" = ? and "visits"."deleted_at" is null and "visits"."id" = ? and ${ASSIGNED})`
  const row = get(`select ${VISIT_COLUMNS} ${VISIT_FROM} where ${where} limit ?`, mineUserId === null ? [workspaceId, id, 1] : [workspaceId, id, mineUserId, 1])
  if (!row) return null
  const assignees = assigneesOf([id])
  const logs = all(
    `select "id", "workspace_id", "visit_id", "action", "user_id", "user_name", "notes", "created_at" from "visit_logs" where "visit_logs"."visit_id" = ? order by "visit_logs"."created_at", "visit_logs"."id"`,
    [id],
  )
  return presentVisitDetail(row, assignees, all(SUBMISSION_SELECT, [id]).map(presentSubmission), logs)
}

// ── Audit log list ──────────────────────────────────────────────────────────────────────────────
const AUDIT_COLUMNS = `"id", "workspace_id", "actor_id", "actor_name", "actor_role", "entity_type", "entity_id", "entity_name", "action", "old_values", "new_values", "metadata", "created_at"`
const DAY_MS = 86_400_000

function listAuditLogs(query: URLSearchParams) {
  const { page, limit, offset } = paging(query, 50, 100)
  // The service's visibility rule for a super_admin (accessible workspaces) is authorisation: left out.
  const parts = ['"audit_logs"."workspace_id" = ?']
  const params: Params = [workspaceId]
  if (query.get('entity_type')) {
    parts.push('"audit_logs"."entity_type" = ?')
    params.push(query.get('entity_type'))
  }
  if (query.get('action')) {
    parts.push('"audit_logs"."action" = ?')
    params.push(query.get('action'))
  }
  if (query.get('actor_id')) {
    parts.push('"audit_logs"."actor_id" = ?')
    params.push(Number(query.get('actor_id')))
  }
  // Calendar dates only (what the suite sends): from midnight, to the next midnight exclusive.
  if (query.get('date_from')) {
    parts.push('"audit_logs"."created_at" >= ?')
    params.push(`${query.get('date_from')}T00:00:00.000Z`)
  }
  if (query.get('date_to')) {
    parts.push('"audit_logs"."created_at" < ?')
    params.push(new Date(Date.parse(`${query.get('date_to')}T00:00:00.000Z`) + DAY_MS).toISOString())
  }
  const where = `(${parts.join(' and ')})`
  const rows = all(
    `select ${AUDIT_COLUMNS} from "audit_logs" where ${where} order by "audit_logs"."created_at" desc, "audit_logs"."id" desc limit ?${offset ? ' offset ?' : ''}`,
    [...params, limit, ...(offset ? [offset] : [])],
  )
  const total = get(`select count(*) as n from "audit_logs" where ${where}`, params)!.n as number
  const data = rows.map((row) => ({
    ...row,
    old_values: row.old_values === null ? null : JSON.parse(row.old_values),
    new_values: row.new_values === null ? null : JSON.parse(row.new_values),
    metadata: JSON.parse(row.metadata),
  }))
  return ok({ data, meta: { page, limit, total, total_pages: total === 0 ? 0 : Math.ceil(total / limit) } }, 'AUDIT_LOG_LIST')
}

// ── Location batch ──────────────────────────────────────────────────────────────────────────────
const PING_COLUMNS = [
  'workspace_id',
  'user_id',
  'visit_id',
  'lat',
  'lng',
  'accuracy_m',
  'speed_mps',
  'source',
  'battery_level',
  'is_mock',
  'signal_quality',
  'recorded_at',
  'device_time',
  'created_at',
  'updated_at',
]
const insertPings = (rows: number) =>
  `insert into location_pings (${PING_COLUMNS.join(', ')}) values ${Array(rows)
    .fill(`(${placeholders(PING_COLUMNS.length)})`)
    .join(', ')}
   on conflict do nothing
   returning id, workspace_id, user_id, visit_id, lat, lng, accuracy_m, speed_mps, source, battery_level, is_mock, signal_quality, recorded_at, created_at, updated_at`
const UPSERT_LATEST = `insert into "latest_locations" ("ping_id", "workspace_id", "user_id", "visit_id", "lat", "lng", "accuracy_m", "speed_mps", "source", "battery_level", "is_mock", "signal_quality", "recorded_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("latest_locations"."workspace_id", "latest_locations"."user_id") do update set "ping_id" = excluded.ping_id, "visit_id" = excluded.visit_id, "lat" = excluded.lat, "lng" = excluded.lng, "accuracy_m" = excluded.accuracy_m, "speed_mps" = excluded.speed_mps, "source" = excluded.source, "battery_level" = excluded.battery_level, "is_mock" = excluded.is_mock, "signal_quality" = excluded.signal_quality, "recorded_at" = excluded.recorded_at, "created_at" = excluded.created_at, "updated_at" = excluded.updated_at where (excluded.recorded_at > "latest_locations"."recorded_at" or (excluded.recorded_at = "latest_locations"."recorded_at" and excluded.ping_id > "latest_locations"."ping_id"))`
const STORE_KEY = `insert into "idempotency_keys" ("id", "workspace_id", "key", "fingerprint", "response_status", "created_at") values (null, ?, ?, ?, ?, ?) on conflict ("idempotency_keys"."workspace_id", "idempotency_keys"."key") do update set "fingerprint" = excluded.fingerprint, "response_status" = excluded.response_status, "created_at" = excluded.created_at`

type Ping = {
  lat: number
  lng: number
  is_mock: boolean
  visit_id?: number | null
  accuracy_m?: number | null
  speed_mps?: number | null
  source?: string | null
  battery_level?: number | null
  signal_quality?: string | null
}

const ingest = (userId: number, key: string | null, raw: string, pings: Ping[]) =>
  writeTransaction(() => {
    const now = new Date().toISOString()
    if (key) run(STORE_KEY, [workspaceId, key, new Bun.CryptoHasher('sha256').update(raw).digest('hex'), 201, now])
    const params: Params = []
    for (const p of pings) {
      params.push(workspaceId, userId, p.visit_id ?? null, p.lat, p.lng, p.accuracy_m ?? null, p.speed_mps ?? null, p.source ?? null, p.battery_level ?? null)
      params.push(p.is_mock ? 1 : 0, p.signal_quality ?? null, now, 0, now, now)
    }
    const saved = all(insertPings(pings.length), params)
    const newest = saved.reduce<Row | null>(
      (best, p) => (!best || p.recorded_at > best.recorded_at || (p.recorded_at === best.recorded_at && p.id > best.id) ? p : best),
      null,
    )
    if (newest) {
      const n = newest
      run(UPSERT_LATEST, [
        n.id,
        n.workspace_id,
        n.user_id,
        n.visit_id,
        n.lat,
        n.lng,
        n.accuracy_m,
        n.speed_mps,
        n.source,
        n.battery_level,
        n.is_mock,
        n.signal_quality,
        n.recorded_at,
        n.created_at,
        n.updated_at,
      ])
    }
    return saved.length
  })

// ── Check-in / check-out ────────────────────────────────────────────────────────────────────────
const FIND_VISIT = `select "id", "workspace_id", "outlet_id", "project_id", "team_id", "visit_date", "status", "notes", "created_by", "checked_in_at", "check_in_latitude", "check_in_longitude", "check_in_photo_url", "checked_out_at", "check_out_latitude", "check_out_longitude", "check_out_photo_url", "close_reason", "sent_to_field_at", "created_at", "updated_at", "deleted_at", "check_in_distance_m", "check_out_distance_m", "flags", "missed_notified_at", "journey_plan_id", "source", "route_sequence", "effective" from "visits" where ("visits"."workspace_id" = ? and "visits"."deleted_at" is null and "visits"."id" = ? and ${ASSIGNED}) limit ?`
/** The service's "another visit in progress" (visits.service.ts otherVisitInProgress: the assignees' flag of migration 0027). */
const OTHER_ACTIVE = `select "visit_id" from "visit_assignees" where ("visit_assignees"."workspace_id" = ? and "visit_assignees"."user_id" = ? and "visit_assignees"."in_progress" = 1 and "visit_assignees"."visit_id" <> ?) limit ?`
const MISSING_FORMS = `select "form_id" from "submissions" where ("submissions"."visit_id" = ? and "submissions"."deleted_at" is null and "submissions"."is_required" = ? and "submissions"."status" <> ?)`
const INSERT_LOG = `insert into "visit_logs" ("id", "workspace_id", "visit_id", "action", "user_id", "user_name", "notes", "created_at") values (null, ?, ?, ?, ?, ?, ?, ?)`
const INSERT_AUDIT = `insert into "audit_logs" ("id", "workspace_id", "actor_id", "actor_name", "actor_role", "entity_type", "entity_id", "entity_name", "action", "old_values", "new_values", "metadata", "created_at") values (null, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
const userNames = new Map<number, string>()
const nameOf = (userId: number) => {
  let name = userNames.get(userId)
  if (name === undefined) {
    name = (get('select name from users where id = ?', [userId])?.name as string) ?? ''
    userNames.set(userId, name)
  }
  return name
}

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code)
  }
}

/** The service's judgeGeofence (visits.site.ts): the outlet's position and radius, the workspace's mode. */
const SITE_OF_VISIT = `select "outlets"."latitude", "outlets"."longitude", "outlets"."geofence_radius_m", "workspaces"."geofence_mode", "workspaces"."geofence_radius_m" as workspace_radius from "outlets" inner join "workspaces" on "workspaces"."id" = ? where ("outlets"."workspace_id" = ? and "outlets"."id" = ?)`
/** The service's lastPingBefore: the user's newest kept ping (impossible travel, check-in only). */
const LAST_PING = `select "lat", "lng", "recorded_at" from "location_pings" where ("location_pings"."workspace_id" = ? and "location_pings"."user_id" = ? and "location_pings"."recorded_at" <= ? and "location_pings"."flags" & ${JUMP_BITS} = 0) order by "location_pings"."recorded_at" desc, "location_pings"."id" desc limit ?`
/** The service's freezeSubmissionRows (check-in): the open submissions, their forms, one update each. */
const OPEN_SUBMISSIONS = `select "id", "form_id" from "submissions" where ("submissions"."visit_id" = ? and "submissions"."deleted_at" is null and "submissions"."rows" is null)`
const FORMS_OF = `select "id", "fields" from "forms" where ("forms"."workspace_id" = ? and "forms"."deleted_at" is null and "forms"."id" in (select value from json_each(?)))`
const FREEZE = `update "submissions" set "rows" = ?, "updated_at" = ? where "submissions"."id" = ?`
/** The service's notifyFlaggedCheckIn (visits.site.ts) and notify (notifications.service.ts): a flagged check-in notifies the admins and the team leader. */
const ADMINS = `select "memberships"."user_id" from "memberships" inner join "roles" on "roles"."id" = "memberships"."role_id" where ("memberships"."workspace_id" = ? and "memberships"."deleted_at" is null and "memberships"."is_active" = ? and "roles"."slug" in (?, ?))`
const TEAM_LEADER = `select "leader_id" from "teams" where ("teams"."id" = ? and "teams"."deleted_at" is null)`
const INSERT_NOTIFICATION = `insert into "notifications" ("id", "workspace_id", "user_id", "type", "title", "body", "data", "read_at", "created_at") values (null, ?, ?, ?, ?, ?, ?, null, ?) returning *`
const PUSH_TOKENS = `select "user_id", "token", "platform" from "push_tokens" where ("push_tokens"."workspace_id" = ? and "push_tokens"."user_id" in (select value from json_each(?)))`

const transition = (
  userId: number,
  visitId: number,
  action: 'check_in' | 'check_out',
  body: { latitude: number; longitude: number },
  ip: string | null,
  userAgent: string | null,
) =>
  writeTransaction(() => {
    const visit = get(FIND_VISIT, [workspaceId, visitId, userId, 1])
    if (!visit) throw new Refused(404, 'VISIT_NOT_FOUND')
    const side = action === 'check_in' ? 'in' : 'out'
    if (action === 'check_in') {
      if (visit.status !== 'scheduled') throw new Refused(409, visit.status === 'in_progress' ? 'VISIT_ALREADY_CHECKED_IN' : 'INVALID_VISIT_STATUS')
      if (get(OTHER_ACTIVE, [workspaceId, userId, visitId, 1])) throw new Refused(409, 'ACTIVE_VISIT_EXISTS')
    } else {
      if (visit.status !== 'in_progress') throw new Refused(409, visit.status === 'scheduled' ? 'VISIT_NOT_STARTED' : 'INVALID_VISIT_STATUS')
      if (all(MISSING_FORMS, [visitId, 1, 'completed']).length) throw new Refused(422, 'SUBMISSION_REQUIRED')
    }
    const at = { lat: body.latitude, lng: body.longitude }
    const site = get(SITE_OF_VISIT, [workspaceId, workspaceId, visit.outlet_id])
    const verdict = checkSite({
      at,
      accuracyM: null,
      outlet: site && site.latitude !== null && site.longitude !== null ? { lat: site.latitude, lng: site.longitude } : null,
      radiusM: site?.geofence_radius_m ?? site?.workspace_radius ?? 200,
      mode: (site?.geofence_mode ?? 'warn') as GeofenceMode,
    })
    if (verdict.refused) throw new Refused(422, 'OUTSIDE_GEOFENCE')
    const flags = new Set(verdict.flags)
    const now = new Date().toISOString()
    if (action === 'check_in') {
      const last = get(LAST_PING, [workspaceId, userId, now, 1])
      for (const flag of travelFlags(last ? { lat: last.lat, lng: last.lng, at: Date.parse(last.recorded_at) } : null, { ...at, at: Date.parse(now) }))
        flags.add(flag)
    }
    const to = action === 'check_in' ? 'in_progress' : 'completed'
    const changes = {
      [`checked_${side}_at`]: now,
      [`check_${side}_latitude`]: body.latitude,
      [`check_${side}_longitude`]: body.longitude,
      [`check_${side}_photo_url`]: null,
      [`check_${side}_distance_m`]: verdict.distanceM,
      flags: visit.flags | visitFlagMask(flags),
    }
    run(
      `update "visits" set "status" = ?, "checked_${side}_at" = ?, "check_${side}_latitude" = ?, "check_${side}_longitude" = ?, "check_${side}_photo_url" = ?, "check_${side}_distance_m" = ?, "flags" = ?, "updated_at" = ? where "visits"."id" = ?`,
      [to, now, body.latitude, body.longitude, null, verdict.distanceM, changes.flags, now, visitId],
    )
    const userName = nameOf(userId)
    run(INSERT_LOG, [workspaceId, visitId, action, userId, userName, null, now])
    all('select "user_id" from "visit_assignees" where "visit_assignees"."visit_id" = ?', [visitId])
    const outlet = get('select "name" from "outlets" where "outlets"."id" = ? limit ?', [visit.outlet_id, 1])
    const newValues = { ...changes, status: to }
    const oldValues = Object.fromEntries(Object.keys(newValues).map((key) => [key, visit[key]]))
    run(INSERT_AUDIT, [
      workspaceId,
      userId,
      userName,
      'user',
      'visit',
      String(visitId),
      `${outlet?.name ?? 'Outlet'} · ${visit.visit_date} (#${visitId})`,
      'updated',
      JSON.stringify(oldValues),
      JSON.stringify(newValues),
      JSON.stringify({ ip, user_agent: userAgent, request_id: crypto.randomUUID(), timestamp: now }),
      now,
    ])
    if (action === 'check_in') {
      const open = all(OPEN_SUBMISSIONS, [visitId])
      if (open.length) {
        // The demo's forms have no product-matrix field: each submission freezes `{}` (forms.matrix.ts).
        all(FORMS_OF, [workspaceId, JSON.stringify([...new Set(open.map((row) => row.form_id))])])
        for (const row of open) run(FREEZE, ['{}', now, row.id])
      }
    }
    const notified: number[] = []
    if (action === 'check_in' && flags.size) {
      // The demo's outlets are kilometres from the bench position: every check-in is outside_geofence (warn mode).
      const recipients = new Set(all(ADMINS, [workspaceId, 1, 'super_admin', 'admin']).map((row) => row.user_id as number))
      if (visit.team_id !== null) {
        const leader = get(TEAM_LEADER, [visit.team_id])?.leader_id
        if (leader) recipients.add(leader)
      }
      recipients.delete(userId)
      const data = JSON.stringify({ visit_id: visitId, user_id: userId, flags: [...flags] })
      const body = `${userName} checked in with: ${[...flags].join(', ').replaceAll('_', ' ')}`
      for (const recipient of recipients) {
        get(INSERT_NOTIFICATION, [workspaceId, recipient, 'visit.flagged', 'Check-in flagged', body, data, now])
        notified.push(recipient)
      }
    }
    return { detail: visitDetail(visitId, userId), notified }
  }).then(({ detail, notified }) => {
    // After the commit, as the service's delivery: the recipients' push tokens (none in the demo).
    if (notified.length) all(PUSH_TOKENS, [workspaceId, JSON.stringify(notified)])
    return detail
  })

// ── Route replay and field day ──────────────────────────────────────────────────────────────────
const timeZone = (get('select timezone from workspaces where id = ?', [workspaceId])?.timezone as string) ?? 'UTC'
const MEMBER = `select u.id, u.name from memberships m join users u on u.id = m.user_id where m.workspace_id = ? and m.user_id = ? and m.deleted_at is null and u.deleted_at is null limit 1`
const VISITS_AROUND = `select v.id, v.visit_date, v.status, v.flags, v.outlet_id, o.name as outlet_name, v.checked_in_at, v.checked_out_at, v.check_in_latitude, v.check_in_longitude
  from visit_assignees va join visits v on v.id = va.visit_id join outlets o on o.id = v.outlet_id
  where va.workspace_id = ? and va.user_id = ? and va.visit_date >= ? and va.visit_date <= ? and v.deleted_at is null order by v.checked_in_at, v.id`

/** The service's `loadRouteOfDay` + `routeGeoJson`; null for a non-member. */
function routeReplay(query: URLSearchParams) {
  const userId = Number(query.get('user_id'))
  const date = query.get('date')!
  const user = get(MEMBER, [workspaceId, userId])
  if (!user) return null
  const range = localDayRange(date, timeZone)
  const pings = pingsFromValues(values(PINGS_OF_DAY, [workspaceId, userId, range.from, range.until]))
  const visits = all(VISITS_AROUND, [workspaceId, userId, addDays(date, -1), addDays(date, 1)])
    .filter((v) => v.visit_date === date || (v.checked_in_at !== null && v.checked_in_at >= range.from && v.checked_in_at < range.until))
    .map((v) => ({
      id: v.id,
      outlet_id: v.outlet_id,
      outlet_name: v.outlet_name,
      status: v.status,
      flags: visitFlagNames(v.flags),
      checked_in_at: v.checked_in_at,
      checked_out_at: v.checked_out_at,
      check_in: v.check_in_latitude !== null && v.check_in_longitude !== null ? { lat: v.check_in_latitude, lng: v.check_in_longitude } : null,
    }))
  const route: RouteOfDay = { user: { id: user.id, name: user.name }, date, timeZone, pings, visits }
  return routeGeoJson(route)
}

const FIELD_USERS_WHERE = `m.workspace_id = ? and m.deleted_at is null and u.deleted_at is null
  and ((r.slug = 'user' and m.is_active = 1)
    or m.user_id in (select va.user_id from visit_assignees va join visits v on v.id = va.visit_id where va.workspace_id = ? and va.visit_date = ? and v.deleted_at is null))
  and (? is null or m.user_id in (select tm.user_id from team_members tm where tm.workspace_id = ? and tm.team_id = ?))
  and (? is null or m.user_id = ?)`
const FIELD_USERS_FROM = 'from memberships m join users u on u.id = m.user_id join roles r on r.id = m.role_id'
const VISITS_BY_ASSIGNEE = `select va.user_id, sum(v.status != 'cancelled') as planned, sum(v.status = 'completed') as completed, sum(v.status = 'scheduled') as scheduled,
  sum(case when v.status = 'completed' and v.checked_in_at is not null and v.checked_out_at is not null then (julianday(v.checked_out_at) - julianday(v.checked_in_at)) * 86400.0 end) as on_site_s,
  sum(v.flags != 0) as flagged,
  min(case when v.checked_in_at >= ? and v.checked_in_at < ? then v.checked_in_at end) as first_in, max(case when v.checked_in_at >= ? and v.checked_in_at < ? then v.checked_in_at end) as last_in,
  min(case when v.checked_out_at >= ? and v.checked_out_at < ? then v.checked_out_at end) as first_out, max(case when v.checked_out_at >= ? and v.checked_out_at < ? then v.checked_out_at end) as last_out
  from visit_assignees va join visits v on v.id = va.visit_id
  where va.workspace_id = ? and va.visit_date = ? and va.user_id in (select value from json_each(?)) and v.deleted_at is null group by va.user_id`
/** The service's `visitsForCompliance` (journey-plans' `compliance` of each user's day) and `ordersByUser` (effective calls, order value). */
const VISITS_FOR_COMPLIANCE = `select va.user_id, v.id, v.source, v.journey_plan_id, v.route_sequence, v.status, v.checked_in_at
  from visit_assignees va join visits v on v.id = va.visit_id
  where va.workspace_id = ? and va.visit_date = ? and va.user_id in (select value from json_each(?)) and v.deleted_at is null`
const ORDERS_BY_USER = `select user_id, count(distinct visit_id) as effective, coalesce(sum(total), 0) as value from sales_orders
  where workspace_id = ? and order_date = ? and user_id in (select value from json_each(?)) and status in ('submitted', 'approved', 'delivered') group by user_id`
const first = (...values: (string | null | undefined)[]) => values.reduce<string | null>((best, v) => (v && (best === null || v < best) ? v : best), null)
const last = (...values: (string | null | undefined)[]) => values.reduce<string | null>((best, v) => (v && (best === null || v > best) ? v : best), null)

/** The service's `fieldDayReport`. */
function fieldDay(query: URLSearchParams) {
  const { page, limit, offset } = paging(query, 10, 100)
  const date = query.get('date')!
  const team = query.get('team_id') ? Number(query.get('team_id')) : null
  const only = query.get('user_id') ? Number(query.get('user_id')) : null
  const filters: Params = [workspaceId, workspaceId, date, team, workspaceId, team, only, only]
  const people = all(`select m.user_id, u.name ${FIELD_USERS_FROM} where ${FIELD_USERS_WHERE} order by u.name, m.user_id limit ? offset ?`, [
    ...filters,
    limit,
    offset,
  ])
  const total = get(`select count(*) as n ${FIELD_USERS_FROM} where ${FIELD_USERS_WHERE}`, filters)!.n as number
  if (!people.length) return list([], page, limit, total)
  const range = localDayRange(date, timeZone)
  const ids = JSON.stringify(people.map((p) => p.user_id))
  const bounds = [range.from, range.until]
  const visitsOf = new Map(all(VISITS_BY_ASSIGNEE, [...bounds, ...bounds, ...bounds, ...bounds, workspaceId, date, ids]).map((row) => [row.user_id, row]))
  const pingsOf = pingsPerUser(values(PINGS_OF_USERS, [workspaceId, ids, range.from, range.until]))
  const planned = new Map<number, ComplianceVisit[]>()
  for (const { user_id, ...visit } of all(VISITS_FOR_COMPLIANCE, [workspaceId, date, ids]))
    planned.set(user_id, [...(planned.get(user_id) ?? []), visit as ComplianceVisit])
  const ordersOf = new Map(all(ORDERS_BY_USER, [workspaceId, date, ids]).map((row) => [row.user_id, row]))
  const dayOver = new Date().toISOString() >= range.until
  const rows = people.map((person) => {
    const v = visitsOf.get(person.user_id)
    const p = pingsOf.get(person.user_id)
    return {
      user_id: person.user_id,
      name: person.name,
      distance_m: Math.round((p ? summarizeTrack(p.kept).distance_m : 0) * 10) / 10,
      visits_planned: Number(v?.planned ?? 0),
      visits_completed: Number(v?.completed ?? 0),
      visits_missed: dayOver ? Number(v?.scheduled ?? 0) : 0,
      time_on_site_s: Math.round(Number(v?.on_site_s ?? 0)),
      first_activity_at: first(p?.first, v?.first_in, v?.first_out),
      last_activity_at: last(p?.last, v?.last_in, v?.last_out),
      flagged_visits: Number(v?.flagged ?? 0),
      ...compliance(planned.get(person.user_id) ?? []),
      effective_calls: Number(ordersOf.get(person.user_id)?.effective ?? 0),
      order_value: Number(ordersOf.get(person.user_id)?.value ?? 0),
    }
  })
  return list(rows, page, limit, total)
}
const AUTH_EPOCH = `select "value" from "auth_epoch" where "auth_epoch"."id" = ?`

// ── HTTP ────────────────────────────────────────────────────────────────────────────────────────
const VISIT_ID = /^\/api\/office\/v1\/visits\/(\d+)$/
const TRANSITION = /^\/api\/app\/v1\/visits\/(\d+)\/check-(in|out)$/
const error = (status: number, code: string) => Response.json({ success: false, message: code, code, errors: {} }, { status })

const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request, srv) {
    const url = new URL(request.url)
    const path = url.pathname
    const userId = Number(request.headers.get('x-user-id') ?? 0)
    try {
      // The one statement of the service's authentication on a warm cache (src/platform/actor.ts): its
      // caches of members and sessions are only as fresh as this read of the auth epoch, made on every
      // signed-in request. The rest of it (the token, the permission) is not SQL and is left out.
      if (path !== '/api/health') get(AUTH_EPOCH, [1])
      if (request.method === 'GET') {
        if (path === '/api/health') return Response.json({ ok: true })
        if (path === '/api/office/v1/outlets') return representedJson(request, listOutlets(url.searchParams, request.headers.get('x-search') === 'scan'))
        if (path === '/api/office/v1/visits') return representedJson(request, listVisits(url.searchParams, null))
        if (path === '/api/app/v1/visits/me') return representedJson(request, listVisits(url.searchParams, userId))
        if (path === '/api/office/v1/audit-logs') return representedJson(request, listAuditLogs(url.searchParams))
        if (path === '/api/office/v1/reports/field-day') return representedJson(request, fieldDay(url.searchParams))
        if (path === '/api/office/v1/locations/route') {
          const route = routeReplay(url.searchParams)
          if (!route) return error(404, 'USER_NOT_FOUND')
          return new Response(JSON.stringify(route), { headers: { 'content-type': 'application/geo+json; charset=utf-8' } })
        }
        const detail = VISIT_ID.exec(path)
        if (detail) {
          const visit = visitDetail(Number(detail[1]), null)
          return visit ? representedJson(request, ok(visit)) : error(404, 'VISIT_NOT_FOUND')
        }
      } else if (request.method === 'POST') {
        if (path === '/api/app/v1/locations/batch') {
          const raw = await request.text()
          const body = JSON.parse(raw) as { pings: Ping[] }
          const count = await ingest(userId, request.headers.get('x-idempotency-key'), raw, body.pings)
          return Response.json(ok({ count }, 'CREATED', 'Locations Saved'), { status: 201 })
        }
        const step = TRANSITION.exec(path)
        if (step) {
          const body = (await request.json()) as { latitude: number; longitude: number }
          const action = step[2] === 'in' ? 'check_in' : 'check_out'
          const visit = await transition(userId, Number(step[1]), action, body, srv.requestIP(request)?.address ?? null, request.headers.get('user-agent'))
          return Response.json(
            ok(visit, action === 'check_in' ? 'VISIT_CHECKED_IN' : 'VISIT_CHECKED_OUT', action === 'check_in' ? 'checked in' : 'checked out'),
          )
        }
      }
      return error(404, 'ROUTE_NOT_FOUND')
    } catch (caught) {
      if (caught instanceof Refused) return error(caught.status, caught.code)
      console.error(caught)
      return error(500, 'INTERNAL_ERROR')
    }
  },
})

process.on('SIGTERM', async () => {
  server.stop(true)
  await close()
  process.exit(0)
})
