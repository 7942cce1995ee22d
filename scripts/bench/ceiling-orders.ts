/**
 * The ceiling for "order at a visit" (scripts/bench/orders.ts): bare Bun.serve + bun:sqlite doing, for one
 * `POST /api/app/v1/visits/:id/sales-orders`, the SQL work the service does, on the same database file,
 * with no framework, auth, validation or idempotency check before the handler:
 *
 *   read the visit (assignee + status) · the outlet's account/channel (and the workspace's currency) ·
 *   the 20 products · the valid price lists + their items for those products · price the lines (the
 *   service's own pure rules, src/modules/orders/pricing.ts and money.ts) · BEGIN IMMEDIATE · counter upsert ·
 *   order insert · the 20 lines (one multi-row INSERT, as the service writes them) · audit insert (the order
 *   as answered, as JSON: the same size as the service's entry) · idempotency record (the service's upsert) ·
 *   COMMIT · wait for the WAL sync · read back the order with its lines · the JSON envelope.
 *
 * Durability as the service's (src/db/client.ts, DURABILITY, default `full`): the same connection PRAGMAs
 * (WAL, `synchronous = NORMAL`, foreign keys on, busy timeout, page cache, `temp_store = MEMORY`,
 * `journal_size_limit`, `wal_autocheckpoint = 0` with the service's checkpoint worker), and under `full` no
 * answer before an fdatasync of the WAL that began after the request's COMMIT — the service's own `WalSync`
 * (src/db/group-commit.ts), coalesced and off the event loop. The one difference: each request commits
 * alone (the service groups the transactions that meet under load into one COMMIT).
 *
 * The caller is named by `x-user-id` instead of a token.
 */
import { Database } from 'bun:sqlite'
import { startCheckpointer } from '../../src/db/checkpoint'
import { WalSync } from '../../src/db/group-commit'
import { basisPointsToPct, discountBasisPoints, orderTotals } from '../../src/modules/orders/money'
import { type PriceList, resolvePrice } from '../../src/modules/orders/pricing'

const path = process.env.DB_PATH!
const durability = process.env.DURABILITY === 'normal' ? 'normal' : 'full'
const workspaceId = Number(process.env.WORKSPACE_ID)
const cacheMb = Number(process.env.SQLITE_CACHE_MB ?? 64)

const db = new Database(path, { readwrite: true, strict: true })
for (const statement of [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA foreign_keys = ON',
  'PRAGMA busy_timeout = 5000',
  `PRAGMA cache_size = -${cacheMb * 1024}`,
  'PRAGMA wal_autocheckpoint = 0',
  'PRAGMA temp_store = MEMORY',
  `PRAGMA journal_size_limit = ${64 * 1024 * 1024}`,
])
  db.run(statement)
const walSync = durability === 'full' ? new WalSync(path) : null
// Transactions here run synchronously inside one call, so between two calls none is open.
startCheckpointer(path, { onBehind: () => db.run('PRAGMA wal_checkpoint(PASSIVE)') })

const visitQuery = db.query(
  `SELECT v.id, v.outlet_id, v.status, (SELECT name FROM users WHERE id = $u) AS user_name FROM visits v
   WHERE v.workspace_id = $w AND v.id = $id AND v.deleted_at IS NULL
     AND EXISTS (SELECT 1 FROM visit_assignees a WHERE a.visit_id = v.id AND a.user_id = $u) LIMIT 1`,
)
const outletQuery = db.query(
  `SELECT o.id, o.name, o.account_id, a.channel_id, (SELECT currency FROM workspaces WHERE id = $w) AS currency
   FROM outlets o LEFT JOIN accounts a ON a.id = o.account_id
   WHERE o.workspace_id = $w AND o.id = $id AND o.deleted_at IS NULL LIMIT 1`,
)
const listsQuery = db.query(
  `SELECT id, account_id, channel_id, valid_from, valid_to FROM price_lists
   WHERE workspace_id = $w AND deleted_at IS NULL
     AND (account_id = $a OR channel_id = $c OR (account_id IS NULL AND channel_id IS NULL))
     AND (valid_from IS NULL OR valid_from <= $day) AND (valid_to IS NULL OR valid_to >= $day)`,
)
const marks = (n: number) => Array(n).fill('?').join(',')
const productsQuery = (n: number) =>
  // As the service reads them: by primary key, the workspace checked on each row found (orders.queries.ts).
  db.query(`SELECT id, sku, name, unit, price FROM products WHERE id IN (${marks(n)}) AND coalesce(workspace_id = ? AND deleted_at IS NULL, 0)`)
const itemsQuery = (lists: number, products: number) =>
  db.query(
    `SELECT price_list_id, product_id, price, min_qty FROM price_list_items WHERE price_list_id IN (${marks(lists)}) AND product_id IN (${marks(products)})`,
  )
const counter = db.query(
  'INSERT INTO order_counters (workspace_id, last) VALUES ($w, 1) ON CONFLICT (workspace_id) DO UPDATE SET last = last + 1 RETURNING last',
)
const insertOrder = db.query(
  `INSERT INTO sales_orders (workspace_id, number, status, visit_id, outlet_id, user_id, order_date, currency, subtotal, discount_total, total, notes, created_at, updated_at)
   VALUES ($w, $number, 'submitted', $visit, $outlet, $u, $day, $currency, $subtotal, $discount, $total, $notes, $now, $now) RETURNING id`,
)
const LINE_COLUMNS = 'order_id, product_id, sku, name, unit, quantity, unit_price, discount_bp, line_total'
const insertLines = (n: number) =>
  db.query(
    `INSERT INTO sales_order_lines (${LINE_COLUMNS}) VALUES ${Array(n)
      .fill(`(${marks(9)})`)
      .join(',')}`,
  )
const insertAudit = db.query(
  `INSERT INTO audit_logs (workspace_id, actor_id, actor_name, actor_role, entity_type, entity_id, entity_name, action, old_values, new_values, metadata, created_at)
   VALUES ($w, $u, $name, 'user', 'sales_order', $id, $number, 'created', NULL, $values, $meta, $now)`,
)
const storeKey = db.query(
  `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, location, created_at) VALUES ($w, $key, $fingerprint, 201, $location, $now)
   ON CONFLICT (workspace_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, response_status = excluded.response_status,
     location = excluded.location, created_at = excluded.created_at
   WHERE idempotency_keys.created_at <= $cutoff OR (idempotency_keys.fingerprint = excluded.fingerprint AND idempotency_keys.response_status NOT BETWEEN 200 AND 299)
   RETURNING id`,
)
const readOrder = db.query(
  `SELECT id, number, status, visit_id, outlet_id, (SELECT name FROM outlets WHERE id = sales_orders.outlet_id) AS outlet_name,
     user_id, (SELECT name FROM users WHERE id = sales_orders.user_id) AS user_name, order_date, currency, subtotal, discount_total, total,
     notes, reason, created_at, updated_at
   FROM sales_orders WHERE workspace_id = $w AND id = $id`,
)
const readLines = db.query(
  'SELECT product_id, sku, name, unit, quantity, unit_price, discount_bp, line_total FROM sales_order_lines WHERE order_id = $id ORDER BY id',
)

interface Body {
  lines: { product_id: number; quantity: number; discount_pct?: number }[]
  notes?: string
}
type Product = { id: number; sku: string; name: string; unit: string | null; price: number | null }
type Line = { product_id: number; sku: string; name: string; unit: string | null; quantity: number; unit_price: number; discount_bp: number }

const write = db.transaction(
  (w: {
    userId: number
    userName: string
    visit: { id: number; outlet_id: number }
    outlet: { name: string; currency: string | null }
    day: string
    lines: Line[]
    totals: { subtotal: number; discount_total: number; total: number; line_totals: number[] }
    notes: string | null
    key: string
  }) => {
    const now = new Date()
    const stamp = now.toISOString()
    const { last } = counter.get({ w: workspaceId }) as { last: number }
    const number = `SO-${w.day.replaceAll('-', '')}-${last}`
    const currency = w.outlet.currency ?? 'IDR'
    const { id } = insertOrder.get({
      w: workspaceId,
      number,
      visit: w.visit.id,
      outlet: w.visit.outlet_id,
      u: w.userId,
      day: w.day,
      currency,
      subtotal: w.totals.subtotal,
      discount: w.totals.discount_total,
      total: w.totals.total,
      notes: w.notes,
      now: stamp,
    }) as { id: number }
    const values: (string | number | null)[] = []
    for (const [i, line] of w.lines.entries())
      values.push(id, line.product_id, line.sku, line.name, line.unit, line.quantity, line.unit_price, line.discount_bp, w.totals.line_totals[i])
    insertLines(w.lines.length).run(values as never)
    // The entry holds the order as answered, as the service's does.
    const order = {
      id,
      number,
      status: 'submitted',
      visit_id: w.visit.id,
      order_date: w.day,
      currency,
      subtotal: w.totals.subtotal,
      discount_total: w.totals.discount_total,
      total: w.totals.total,
      notes: w.notes,
      reason: null,
      created_at: stamp,
      updated_at: stamp,
      outlet: { id: w.visit.outlet_id, name: w.outlet.name },
      user: { id: w.userId, name: w.userName },
      lines: w.lines.map(({ discount_bp, ...line }, i) => ({ ...line, discount_pct: basisPointsToPct(discount_bp), line_total: w.totals.line_totals[i] })),
    }
    insertAudit.run({
      w: workspaceId,
      u: w.userId,
      name: w.userName,
      id: String(id),
      number,
      values: JSON.stringify(order),
      meta: JSON.stringify({ ip: '127.0.0.1', user_agent: 'bench', request_id: crypto.randomUUID(), timestamp: stamp }),
      now: stamp,
    })
    storeKey.get({
      w: workspaceId,
      key: w.key,
      fingerprint: new Bun.CryptoHasher('sha256').update(`${w.userId}\n${w.key}`).digest('hex'),
      location: `/api/app/v1/sales-orders/${id}`,
      now: stamp,
      cutoff: new Date(now.getTime() - 86_400_000).toISOString(),
    })
    return id
  },
)

const fail = (status: number, code: string) => Response.json({ success: false, message: code, code, errors: {} }, { status })

Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = new URL(request.url)
    if (url.pathname === '/api/health') return Response.json({ ok: true })
    const visitId = Number(/^\/api\/app\/v1\/visits\/(\d+)\/sales-orders$/.exec(url.pathname)?.[1])
    if (request.method !== 'POST' || !visitId) return fail(404, 'NOT_FOUND')
    const userId = Number(request.headers.get('x-user-id'))
    const key = request.headers.get('x-idempotency-key')
    if (!key) return fail(400, 'IDEMPOTENCY_KEY_REQUIRED')
    const body = (await request.json()) as Body

    const visit = visitQuery.get({ w: workspaceId, id: visitId, u: userId }) as { id: number; outlet_id: number; status: string; user_name: string } | null
    if (!visit) return fail(404, 'VISIT_NOT_FOUND')
    if (visit.status !== 'in_progress') return fail(409, 'INVALID_VISIT_STATUS')
    const outlet = outletQuery.get({ w: workspaceId, id: visit.outlet_id }) as {
      name: string
      account_id: number | null
      channel_id: number | null
      currency: string | null
    } | null
    if (!outlet) return fail(404, 'OUTLET_NOT_FOUND')
    const day = new Date().toISOString().slice(0, 10)
    const ids = body.lines.map((line) => line.product_id)
    const products = productsQuery(ids.length).all(...ids, workspaceId) as Product[]
    const lists = listsQuery.all({ w: workspaceId, a: outlet.account_id, c: outlet.channel_id, day }) as Omit<PriceList, 'items'>[]
    const items = (lists.length ? itemsQuery(lists.length, ids.length).all(...lists.map((list) => list.id), ...ids) : []) as {
      price_list_id: number
      product_id: number
      price: number
      min_qty: number
    }[]
    const priced: PriceList[] = lists.map((list) => ({ ...list, items: items.filter((item) => item.price_list_id === list.id) }))
    const productOf = new Map(products.map((product) => [product.id, product]))
    const lines: Line[] = []
    for (const line of body.lines) {
      const product = productOf.get(line.product_id)
      const price = product && resolvePrice(outlet, day, priced, product, line.quantity)
      if (!product || !price) return fail(400, 'VALIDATION_ERROR')
      const { id, sku, name, unit } = product
      lines.push({
        product_id: id,
        sku,
        name,
        unit,
        quantity: line.quantity,
        unit_price: price.price,
        discount_bp: discountBasisPoints(line.discount_pct ?? 0) ?? 0,
      })
    }
    const totals = orderTotals(lines)
    if (!totals.ok) return fail(400, 'VALIDATION_ERROR')

    const id = write.immediate({ userId, userName: visit.user_name, visit, outlet, day, lines, totals, notes: body.notes ?? null, key })
    await walSync?.sync()

    const { outlet_id, outlet_name, user_id, user_name, ...order } = readOrder.get({ w: workspaceId, id }) as Record<string, unknown>
    const answered = (readLines.all({ id }) as (Line & { line_total: number })[]).map(({ discount_bp, ...line }) => ({
      ...line,
      discount_pct: basisPointsToPct(discount_bp),
    }))
    return Response.json(
      {
        success: true,
        message: 'order taken',
        code: 'SALES_ORDER_CREATED',
        data: { ...order, outlet: { id: outlet_id, name: outlet_name }, user: { id: user_id, name: user_name }, lines: answered },
      },
      { status: 201 },
    )
  },
})
