/**
 * The ceiling for the location scenario: bare Bun.serve + bun:sqlite parsing the same JSON batch and
 * writing it as one prepared multi-row INSERT in one transaction (device times de-duplicated by the
 * same index, the same `synchronous` as the service's DURABILITY), with no framework, auth,
 * validation, idempotency, latest-position upkeep or WebSocket fan-out.
 */
import { Database } from 'bun:sqlite'

const db = new Database(process.env.DB_PATH!, { strict: true })
db.run('PRAGMA journal_mode = WAL')
db.run(`PRAGMA synchronous = ${process.env.DURABILITY === 'normal' ? 'NORMAL' : 'FULL'}`)
db.run('PRAGMA busy_timeout = 5000')
const workspaceId = Number(process.env.WORKSPACE_ID)
const userId = Number(process.env.USER_ID)
const COLUMNS = [
  'workspace_id',
  'user_id',
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
const statements = new Map<number, ReturnType<Database['query']>>()
function insertFor(rows: number) {
  let statement = statements.get(rows)
  if (!statement) {
    const tuple = `(${COLUMNS.map(() => '?').join(',')})`
    statement = db.query(`INSERT INTO location_pings (${COLUMNS.join(',')}) VALUES ${Array(rows).fill(tuple).join(',')} ON CONFLICT DO NOTHING`)
    statements.set(rows, statement)
  }
  return statement
}

type Ping = {
  lat: number
  lng: number
  accuracy_m?: number
  speed_mps?: number
  source?: string
  battery_level?: number
  is_mock: boolean
  signal_quality?: string
  recorded_at?: string
}
const insert = db.transaction((pings: Ping[]) => {
  const now = new Date().toISOString()
  const values = pings.flatMap((p) => [
    workspaceId,
    userId,
    p.lat,
    p.lng,
    p.accuracy_m ?? null,
    p.speed_mps ?? null,
    p.source ?? null,
    p.battery_level ?? null,
    p.is_mock ? 1 : 0,
    p.signal_quality ?? null,
    p.recorded_at ? new Date(p.recorded_at).toISOString() : now,
    p.recorded_at ? 1 : 0,
    now,
    now,
  ])
  // One array argument binds positionally without copying 650 values into an argument list.
  insertFor(pings.length).run(values as never)
})

Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request) {
    if (request.method === 'GET') return Response.json({ ok: true })
    const body = (await request.json()) as { pings: Ping[] }
    insert(body.pings)
    return Response.json({ success: true, message: 'Locations Saved', code: 'CREATED', data: { count: body.pings.length } }, { status: 201 })
  },
})
