/**
 * The ceiling for the master-data scenarios: bare Bun.serve + bun:sqlite doing the same work as the
 * service (same queries on the same database file, same JSON envelope) with no framework, auth,
 * validation or audit. The service's figures are reported as a ratio of these.
 */
import { Database } from 'bun:sqlite'

const db = new Database(process.env.DB_PATH!, { strict: true })
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = NORMAL')
db.run('PRAGMA busy_timeout = 5000')
const workspaceId = Number(process.env.WORKSPACE_ID)

const columns = 'id, workspace_id, name, created_at, updated_at, deleted_at'
const listKeyword = db.query(
  `SELECT ${columns} FROM channel_groups WHERE workspace_id = $w AND deleted_at IS NULL AND instr(name_key, $k) > 0 ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
)
const countKeyword = db.query('SELECT count(*) AS n FROM channel_groups WHERE workspace_id = $w AND deleted_at IS NULL AND instr(name_key, $k) > 0')
const listAll = db.query(
  `SELECT ${columns} FROM channel_groups WHERE workspace_id = $w AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
)
const countAll = db.query('SELECT count(*) AS n FROM channel_groups WHERE workspace_id = $w AND deleted_at IS NULL')
const insert = db.query(
  `INSERT INTO channel_groups (workspace_id, name, name_key, created_at, updated_at) VALUES ($w, $name, $key, $now, $now) RETURNING ${columns}`,
)
const insertAudit = db.query(
  `INSERT INTO audit_logs (workspace_id, actor_id, actor_name, actor_role, entity_type, entity_id, entity_name, action, old_values, new_values, metadata, created_at)
   VALUES ($w, 1, 'bench', 'super_admin', 'channel_group', $id, $name, 'created', NULL, $values, $meta, $now)`,
)
const create = db.transaction((name: string) => {
  const now = new Date().toISOString()
  const row = insert.get({ w: workspaceId, name, key: name.toLowerCase(), now }) as { id: number }
  insertAudit.run({
    w: workspaceId,
    id: String(row.id),
    name,
    values: JSON.stringify(row),
    meta: JSON.stringify({ request_id: crypto.randomUUID(), timestamp: now }),
    now,
  })
  return row
})

Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = new URL(request.url)
    if (url.pathname === '/api/health') return Response.json({ ok: true })
    if (request.method === 'POST') {
      const body = (await request.json()) as { name: string }
      return Response.json({ success: true, message: 'channel group created', code: 'CHANNEL_GROUP_CREATED', data: create(body.name) }, { status: 201 })
    }
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 50), 100)
    const page = Number(url.searchParams.get('page') ?? 1)
    const keyword = url.searchParams.get('keyword')
    const params = { w: workspaceId, limit, offset: (page - 1) * limit }
    const rows = keyword ? listKeyword.all({ ...params, k: keyword.toLowerCase() }) : listAll.all(params)
    const total = (keyword ? countKeyword.get({ w: workspaceId, k: keyword.toLowerCase() }) : countAll.get({ w: workspaceId })) as { n: number }
    return Response.json({
      success: true,
      message: 'Success',
      code: 'LIST_OK',
      data: rows,
      meta: { page, limit, total: total.n, total_pages: Math.ceil(total.n / limit) },
    })
  },
})
