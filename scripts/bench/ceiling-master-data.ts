/**
 * The ceiling for the master-data scenarios (./master-data.ts): a bare Bun.serve + bun:sqlite process
 * doing the service's work on the same database file with no framework, token, permission check,
 * validation or audit diff (docs/PERFORMANCE.md "Master data"). Since 2026-11-26 it is the same work,
 * as the suite's ceilings are (./ceiling-suite.ts):
 *
 * - the service's SQL texts, read from it with a statement probe: the auth epoch every signed-in
 *   request reads; a keyword of 3+ characters counted through the search index and its page read by
 *   it (platform/data/list.ts and search.ts, up to INDEX_DRIVEN_PAGE_MAX matches); a create's
 *   case-insensitive uniqueness count, the insert, the row read back and the audit entry;
 * - a list answered as the service answers a read (./represent.ts: entity tag, brotli for a client
 *   that takes it); a create answered as JSON, as mutations are;
 * - writes committed as the service's are (./ceiling-db.ts: group commit, an fdatasync of the WAL
 *   before the answer, checkpoints by the service's worker).
 *
 * Until 2026-11-26 it scanned instead of using the index, sent every answer raw and committed without a
 * sync, so the ratios it gave (35–64%) compared unlike work.
 *
 * ./master-data.ts fetches each read once from both servers, and one create, before it measures the
 * ceiling: the reads must answer the service's JSON, the create the same fields, or the run stops.
 */
import { ceilingDatabase } from './ceiling-db'
import { representedJson } from './represent'

const { db, writer, groups, close } = ceilingDatabase(process.env.DB_PATH!)
const workspaceId = Number(process.env.WORKSPACE_ID)

const AUTH_EPOCH = 'select "value" from "auth_epoch" where "auth_epoch"."id" = ?'
const COLUMNS = '"id", "workspace_id", "name", "created_at", "updated_at", "deleted_at"'
const LIVE = '"channel_groups"."workspace_id" = ? and "channel_groups"."deleted_at" is null'
const SCAN = 'instr("channel_groups"."name_key", ?) > 0'
const BY_INDEX = `("channel_groups"."id" in (select rowid from "channel_groups_search" where "channel_groups_search" match ?) and ${SCAN})`
const ORDER = 'order by "channel_groups"."created_at" desc, "channel_groups"."id" desc limit ? offset ?'
/** platform/data/list.ts: above this many matches the page walks the list's order instead of the index. */
const INDEX_DRIVEN_PAGE_MAX = 1000

const authEpoch = db.query(AUTH_EPOCH)
const countAll = db.query(`select count(*) as n from "channel_groups" where (${LIVE})`)
const pageAll = db.query(`select ${COLUMNS} from "channel_groups" where (${LIVE}) ${ORDER}`)
const countByIndex = db.query(`select count(*) as n from "channel_groups" where (${LIVE} and ${BY_INDEX})`)
const pageByIndex = db.query(`select ${COLUMNS} from "channel_groups" where (${LIVE} and ${BY_INDEX}) ${ORDER}`)
const countByScan = db.query(`select count(*) as n from "channel_groups" where (${LIVE} and (${SCAN}))`)
const pageByScan = db.query(`select ${COLUMNS} from "channel_groups" where (${LIVE} and (${SCAN})) ${ORDER}`)

const writerEpoch = writer.query(AUTH_EPOCH)
const sameName = writer.query(`select count(*) as n from "channel_groups" where (${LIVE} and "channel_groups"."name_key" = ?)`)
const insert = writer.query(
  'insert into "channel_groups" ("id", "workspace_id", "name", "name_key", "created_at", "updated_at", "deleted_at") values (null, ?, ?, ?, ?, ?, null) returning "id", "workspace_id", "name", "name_key", "created_at", "updated_at", "deleted_at"',
)
const readBack = writer.query(`select ${COLUMNS} from "channel_groups" where (${LIVE} and "channel_groups"."id" = ?) limit ?`)
const insertAudit = writer.query(
  'insert into "audit_logs" ("id", "workspace_id", "actor_id", "actor_name", "actor_role", "entity_type", "entity_id", "entity_name", "action", "old_values", "new_values", "metadata", "created_at") values (null, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
)

const fold = (text: string) => text.trim().normalize('NFKC').toLowerCase()

function list(url: URL) {
  authEpoch.get(1)
  const limit = Math.min(Number(url.searchParams.get('limit') ?? 10), 100)
  const page = Number(url.searchParams.get('page') ?? 1)
  const offset = (page - 1) * limit
  const raw = url.searchParams.get('keyword')
  const keyword = raw ? fold(raw) : null
  let total: number
  let rows: unknown[]
  if (keyword === null) {
    total = (countAll.get(workspaceId) as { n: number }).n
    rows = pageAll.all(workspaceId, limit, offset)
  } else if ([...keyword].length >= 3 && !keyword.includes('\u0000')) {
    const match = `"${keyword.replaceAll('"', '""')}"`
    total = (countByIndex.get(workspaceId, match, keyword) as { n: number }).n
    rows = total <= INDEX_DRIVEN_PAGE_MAX ? pageByIndex.all(workspaceId, match, keyword, limit, offset) : pageByScan.all(workspaceId, keyword, limit, offset)
  } else {
    total = (countByScan.get(workspaceId, keyword) as { n: number }).n
    rows = pageByScan.all(workspaceId, keyword, limit, offset)
  }
  return {
    success: true,
    message: 'channel groups retrieved',
    code: 'LIST_OK',
    data: rows,
    meta: { page, limit, total, total_pages: total === 0 ? 0 : Math.ceil(total / limit) },
  }
}

const create = (name: string) =>
  groups.transaction(async () => {
    writerEpoch.get(1)
    const key = fold(name)
    if ((sameName.get(workspaceId, key) as { n: number }).n > 0) throw new Error('duplicate name')
    const now = new Date().toISOString()
    const { id } = insert.get(workspaceId, name, key, now, now) as { id: number }
    const row = readBack.get(workspaceId, id, 1) as Record<string, unknown>
    const meta = JSON.stringify({ request_id: crypto.randomUUID(), ip: '127.0.0.1', user_agent: 'bench', timestamp: now })
    insertAudit.run(workspaceId, 1, 'Bench', 'owner', 'channel_group', String(id), name, 'created', null, JSON.stringify(row), meta, now)
    return row
  })

const server = Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = new URL(request.url)
    if (url.pathname === '/api/health') return Response.json({ ok: true })
    if (request.method === 'POST') {
      const body = (await request.json()) as { name: string }
      return Response.json({ success: true, message: 'channel group created', code: 'CHANNEL_GROUP_CREATED', data: await create(body.name) }, { status: 201 })
    }
    return representedJson(request, list(url))
  },
})

process.on('SIGTERM', async () => {
  await server.stop()
  await close()
  process.exit(0)
})
