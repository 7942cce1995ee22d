/**
 * `bun run seed:demo [FILE]` — fills a database with a realistic workspace: 50 field users in 5 teams
 * (plus an owner and 2 managers), master data, 10,000 outlets, 3 forms and projects, 100,000 visits
 * over 90 days with their submissions, assignees and logs, and 1,000,000 location pings (every 5 minutes
 * per field user, except field user 1's previous local day: a dense track of 2,000 pings with drives,
 * stops, a lunch gap and a few jumps flagged as the server would, for the route replay).
 * `OUTLETS=200000 bun run seed:demo` sets the number of outlets alone (a distributor's outlet
 * base); the rest keeps its size. One outlet in five has "Maju" in its name; codes are OUT-00001….
 *
 * The schema comes from the migrations and the workspace, roles and users from the service's own
 * functions; the bulk rows are written with prepared bun:sqlite statements in large transactions.
 * Default FILE: ./data/demo.db (it must not exist). Everyone's password is `password123`;
 * the owner is owner@demo.example.
 */
import { Database as Sqlite } from 'bun:sqlite'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { loadConfig } from '../src/config/env'
import { openDatabase } from '../src/db/client'
import { installDerived } from '../src/db/derived'
import { derivedObjects } from '../src/modules/index'
import { memberships, users } from '../src/db/schema'
import { hashPassword } from '../src/platform/passwords'
import { insertWorkspace } from '../src/modules/workspaces'
import { foldText } from '../src/platform/data/pagination'
import { addDays, localDate, localDayRange } from '../src/lib/time-zones'
import { PING_FLAG_BITS } from '../src/lib/geo'

export const DEMO = { fieldUsers: 50, teams: 5, outlets: 10_000, visits: 100_000, pings: 1_000_000, days: 90, routePings: 2_000 }
const DEMO_TIME_ZONE = 'Asia/Jakarta'

/**
 * A field day of `count` pings every 20 s from 06:00 local: 15-minute drives at about 8 m/s on a
 * random heading, 12-minute stops jittering within 15 m, a 20-minute lunch without pings, and three
 * pings 30 km off, flagged impossible_speed + teleport as the server flags them on upload.
 */
export function denseTrack(dayStart: number, count: number, rand: () => number) {
  const rows: { lat: number; lng: number; at: number; flags: number }[] = []
  let lat = -6.2
  let lng = 106.8
  let at = dayStart + 6 * 3_600_000
  let heading = rand() * 2 * Math.PI
  const jumpAt = new Set([Math.floor(count * 0.2), Math.floor(count * 0.55), Math.floor(count * 0.8)])
  const metresPerDegree = 111_195
  for (let i = 0; i < count; i++) {
    const phase = i % 81 // 45 pings driving, then 36 stopped
    if (i === Math.floor(count / 2)) at += 20 * 60_000 // lunch: a gap
    if (phase < 45) {
      if (phase === 0) heading = rand() * 2 * Math.PI
      const step = 8 * 20 * (0.8 + rand() * 0.4)
      lat += (Math.cos(heading) * step) / metresPerDegree
      lng += (Math.sin(heading) * step) / metresPerDegree
      rows.push({ lat, lng, at, flags: 0 })
    } else if (jumpAt.has(i)) {
      rows.push({ lat: lat + 0.27, lng, at, flags: PING_FLAG_BITS.impossible_speed | PING_FLAG_BITS.teleport })
    } else {
      rows.push({ lat: lat + ((rand() - 0.5) * 15) / metresPerDegree, lng: lng + ((rand() - 0.5) * 15) / metresPerDegree, at, flags: 0 })
    }
    at += 20_000
  }
  return rows
}

/** A small deterministic generator, so every seeded database is the same. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

/** `OUTLETS` of the environment, when given: a whole number of outlets, at least 1. */
export function outletsFromEnv(value = process.env.OUTLETS): number | undefined {
  if (value === undefined || value === '') return undefined
  const outlets = Number(value)
  if (!Number.isInteger(outlets) || outlets < 1) throw new Error(`OUTLETS must be a whole number of at least 1, not ${value}`)
  return outlets
}

export async function seedDemo(file: string, scale = 1, log: (line: string) => void = console.log, outletCount?: number) {
  const started = performance.now()
  const step = (label: string) => log(`${label} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  const size = { outlets: outletCount ?? Math.round(DEMO.outlets * scale), visits: Math.round(DEMO.visits * scale), pings: Math.round(DEMO.pings * scale) }
  mkdirSync(dirname(file), { recursive: true })

  // 1. Schema, workspace, roles and people through the service's own code.
  const db = await openDatabase(loadConfig({ DATABASE_URL: `file:${file}` }))
  await db.migrate()
  await installDerived(db, derivedObjects())
  const now = new Date()
  const iso = now.toISOString()
  const hash = await hashPassword('password123')
  const { workspaceId, userIds, managerIds, ownerId } = await db.transaction(async (tx) => {
    const { workspace, roles } = await insertWorkspace(tx, 'Demo Distribution', iso, 'Asia/Jakarta')
    const person = async (name: string, email: string, roleId: number) => {
      const [user] = await tx
        .insert(users)
        .values({ email, name, password_hash: hash, last_workspace_id: workspace.id, created_at: iso, updated_at: iso })
        .returning()
      await tx.insert(memberships).values({ workspace_id: workspace.id, user_id: user.id, role_id: roleId, created_at: iso, updated_at: iso })
      return user.id
    }
    const ownerId = await person('Demo Owner', 'owner@demo.example', roles.super_admin.id)
    const managerIds = [
      await person('Maya Manager', 'manager1@demo.example', roles.manager.id),
      await person('Mario Manager', 'manager2@demo.example', roles.manager.id),
    ]
    const userIds: number[] = []
    for (let i = 1; i <= DEMO.fieldUsers; i++) userIds.push(await person(`Field User ${i}`, `field${i}@demo.example`, roles.user.id))
    return { workspaceId: workspace.id, userIds, managerIds, ownerId }
  })
  await db.close()
  step('schema, workspace and 53 users')

  // 2. Bulk rows with prepared statements.
  const raw = new Sqlite(file)
  raw.run('PRAGMA journal_mode = WAL')
  raw.run('PRAGMA synchronous = OFF')
  raw.run('PRAGMA foreign_keys = ON')
  const rand = random(42)
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]
  const insertReturningId = (sql: string) => raw.query(sql)
  const ids = (table: string) =>
    (raw.query(`select id from ${table} where workspace_id = ? order by id`).all(workspaceId) as { id: number }[]).map((row) => row.id)

  raw.transaction(() => {
    const team = insertReturningId('insert into teams (workspace_id, name, name_key, leader_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    const member = raw.query('insert into team_members (team_id, user_id, workspace_id, created_at) values (?, ?, ?, ?)')
    for (let t = 0; t < DEMO.teams; t++) {
      const name = `Team ${['North', 'South', 'East', 'West', 'Central'][t] ?? t}`
      team.run(workspaceId, name, foldText(name), managerIds[t % managerIds.length], iso, iso)
      const teamId = (raw.query('select last_insert_rowid() as id').get() as { id: number }).id
      for (const userId of userIds.slice(t * 10, t * 10 + 10)) member.run(teamId, userId, workspaceId, iso)
    }
    const group = raw.query('insert into channel_groups (workspace_id, name, name_key, created_at, updated_at) values (?, ?, ?, ?, ?)')
    for (const name of ['Modern Trade', 'General Trade', 'HoReCa', 'Pharmacy', 'E-commerce']) group.run(workspaceId, name, foldText(name), iso, iso)
    const groups = ids('channel_groups')
    const channel = raw.query('insert into channels (workspace_id, channel_group_id, name, name_key, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    for (let i = 0; i < 20; i++) channel.run(workspaceId, groups[i % groups.length], `Channel ${i + 1}`, `channel ${i + 1}`, iso, iso)
    const channels = ids('channels')
    const account = raw.query('insert into accounts (workspace_id, channel_id, name, name_key, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    for (let i = 0; i < 100; i++) account.run(workspaceId, channels[i % channels.length], `Account ${i + 1}`, `account ${i + 1}`, iso, iso)
    const subArea = raw.query('insert into sub_areas (workspace_id, name, name_key, created_at, updated_at) values (?, ?, ?, ?, ?)')
    for (let i = 0; i < 20; i++) subArea.run(workspaceId, `Area ${i + 1}`, `area ${i + 1}`, iso, iso)
    const form = raw.query('insert into forms (workspace_id, title, title_key, fields, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    const fields = JSON.stringify([
      { key: 'facings', label: 'Facings', type: 'integer', required: true, min: 0 },
      { key: 'in_stock', label: 'In stock', type: 'checkbox', required: true },
      { key: 'brand', label: 'Brand', type: 'select', required: false, options: ['A', 'B', 'C'] },
    ])
    for (const title of ['Shelf check', 'Price audit', 'Display compliance']) form.run(workspaceId, title, foldText(title), fields, iso, iso)
    const project = raw.query(
      "insert into projects (workspace_id, name, name_key, code, code_key, status, created_at, updated_at) values (?, ?, ?, ?, ?, 'active', ?, ?)",
    )
    const projectForm = raw.query('insert into project_forms (project_id, form_id, is_required, "order") values (?, ?, ?, ?)')
    const formIds = ids('forms')
    ;['Q4 Audit', 'Launch Display', 'Price Watch'].forEach((name, i) => {
      project.run(workspaceId, name, foldText(name), `P${i + 1}`, `p${i + 1}`, iso, iso)
      const projectId = (raw.query('select last_insert_rowid() as id').get() as { id: number }).id
      projectForm.run(projectId, formIds[i], 1, 0)
      projectForm.run(projectId, formIds[(i + 1) % formIds.length], 0, 1)
    })
  })()
  step('teams, master data, forms, projects')

  const accounts = ids('accounts')
  const subAreas = ids('sub_areas')
  raw.transaction(() => {
    const outlet = raw.query(
      'insert into outlets (workspace_id, name, name_key, code, code_key, address, latitude, longitude, account_id, sub_area_id, is_active, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)',
    )
    const words = ['Toko', 'Warung', 'Mini Market', 'Apotek', 'Kios', 'Grosir']
    for (let i = 1; i <= size.outlets; i++) {
      const name = `${pick(words)} ${['Maju', 'Jaya', 'Sentosa', 'Makmur', 'Abadi'][i % 5]} ${i}`
      outlet.run(
        workspaceId,
        name,
        foldText(name),
        `OUT-${String(i).padStart(5, '0')}`,
        `out-${String(i).padStart(5, '0')}`,
        `Jl. Demo ${i}`,
        -6.2 + rand() / 5,
        106.8 + rand() / 5,
        pick(accounts),
        pick(subAreas),
        iso,
        iso,
      )
    }
  })()
  step(`${size.outlets} outlets`)

  const outlets = ids('outlets')
  const projectIds = ids('projects')
  const teamIds = ids('teams')
  const teamOf = (userId: number) => teamIds[Math.floor(userIds.indexOf(userId) / 10)]
  const projectForms = new Map<number, { form_id: number; is_required: number; order: number; title: string }[]>()
  for (const projectId of projectIds) {
    projectForms.set(
      projectId,
      raw
        .query(
          'select pf.form_id, pf.is_required, pf."order" as "order", f.title from project_forms pf join forms f on f.id = pf.form_id where pf.project_id = ?',
        )
        .all(projectId) as never,
    )
  }
  const day = (offset: number) => new Date(now.getTime() - offset * 86_400_000).toISOString().slice(0, 10)
  raw.transaction(() => {
    const visit = raw.query(
      `insert into visits (workspace_id, outlet_id, project_id, team_id, visit_date, status, created_by, checked_in_at, check_in_latitude, check_in_longitude,
        checked_out_at, check_out_latitude, check_out_longitude, close_reason, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const assignee = raw.query('insert into visit_assignees (visit_id, user_id, workspace_id, created_at) values (?, ?, ?, ?)')
    const submission = raw.query(
      `insert into submissions (workspace_id, visit_id, form_id, title, is_required, "order", status, approval_status, answers, submitted_at, submitted_by, reviewed_at, reviewed_by, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const log = raw.query('insert into visit_logs (workspace_id, visit_id, action, user_id, user_name, created_at) values (?, ?, ?, ?, ?, ?)')
    for (let i = 0; i < size.visits; i++) {
      const offset = Math.floor(rand() * DEMO.days) - 7
      const date = day(offset)
      const past = offset > 0
      const roll = rand()
      const status = !past
        ? roll < 0.9
          ? 'scheduled'
          : 'in_progress'
        : roll < 0.8
          ? 'completed'
          : roll < 0.9
            ? 'cancelled'
            : roll < 0.95
              ? 'force_closed'
              : 'scheduled'
      const userId = pick(userIds)
      const projectId = pick(projectIds)
      const started = status === 'in_progress' || status === 'completed' || status === 'force_closed'
      const checkIn = started ? `${date}T0${2 + Math.floor(rand() * 6)}:${String(Math.floor(rand() * 60)).padStart(2, '0')}:00.000Z` : null
      const checkOut = status === 'completed' ? `${date}T10:30:00.000Z` : null
      visit.run(
        workspaceId,
        pick(outlets),
        projectId,
        teamOf(userId),
        date,
        status,
        ownerId,
        checkIn,
        checkIn ? -6.2 : null,
        checkIn ? 106.8 : null,
        checkOut,
        checkOut ? -6.2 : null,
        checkOut ? 106.8 : null,
        status === 'cancelled' || status === 'force_closed' ? 'demo' : null,
        iso,
        iso,
      )
      const visitId = (raw.query('select last_insert_rowid() as id').get() as { id: number }).id
      assignee.run(visitId, userId, workspaceId, iso)
      log.run(workspaceId, visitId, 'created', ownerId, 'Demo Owner', iso)
      if (checkIn) log.run(workspaceId, visitId, 'check_in', userId, `Field User ${userIds.indexOf(userId) + 1}`, checkIn)
      for (const form of projectForms.get(projectId)!) {
        const done = status === 'completed' || (status === 'force_closed' && rand() < 0.5)
        const approval = done ? pick(['pending', 'approved', 'approved', 'rejected'] as const) : null
        submission.run(
          workspaceId,
          visitId,
          form.form_id,
          form.title,
          form.is_required,
          form.order,
          done ? 'completed' : 'pending',
          approval,
          done ? JSON.stringify({ facings: Math.floor(rand() * 20), in_stock: rand() < 0.8, brand: pick(['A', 'B', 'C']) }) : '{}',
          done ? (checkOut ?? checkIn) : null,
          done ? userId : null,
          approval && approval !== 'pending' ? iso : null,
          approval && approval !== 'pending' ? managerIds[0] : null,
          iso,
          iso,
        )
      }
    }
  })()
  step(`${size.visits} visits with assignees, submissions and logs`)

  // Field user 1's previous local day is the dense route-replay track instead of a ping every 5 minutes.
  const routeDay = addDays(localDate(now, DEMO_TIME_ZONE), -1)
  const routeRange = localDayRange(routeDay, DEMO_TIME_ZONE)
  const routeTrack = denseTrack(Date.parse(routeRange.from), Math.round(DEMO.routePings * Math.min(1, scale * 10)), random(16))
  const perUser = Math.ceil(size.pings / userIds.length)
  const COLUMNS =
    'workspace_id, user_id, lat, lng, accuracy_m, speed_mps, source, battery_level, is_mock, signal_quality, recorded_at, device_time, created_at, updated_at'
  const ROWS = 100
  const ping = raw.query(`insert into location_pings (${COLUMNS}) values ${Array(ROWS).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`)
  const latest: Record<number, unknown[]> = {}
  raw.transaction(() => {
    let written = 0
    for (const userId of userIds) {
      // Every 5 minutes going back from now, as a phone in the foreground would send them.
      let batch: unknown[] = []
      for (let n = 0; n < perUser && written < size.pings; n++, written++) {
        const at = new Date(now.getTime() - n * 300_000).toISOString()
        if (userId === userIds[0] && at >= routeRange.from && at < routeRange.until) continue
        const row = [
          workspaceId,
          userId,
          -6.2 + rand() / 10,
          106.8 + rand() / 10,
          5 + rand() * 20,
          rand() * 10,
          'gps',
          0.2 + rand() * 0.8,
          0,
          'good',
          at,
          1,
          at,
          at,
        ]
        if (n === 0) latest[userId] = row
        batch.push(...row)
        if (batch.length === ROWS * 14) {
          ping.run(...(batch as never[]))
          batch = []
        }
      }
      if (batch.length) {
        const rows = batch.length / 14
        raw
          .query(`insert into location_pings (${COLUMNS}) values ${Array(rows).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`)
          .run(...(batch as never[]))
      }
    }
    const dense = raw.query(`insert into location_pings (${COLUMNS}, flags) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    for (const point of routeTrack) {
      const at = new Date(point.at).toISOString()
      dense.run(workspaceId, userIds[0]!, point.lat, point.lng, 8, 0, 'gps', 0.7, 0, 'good', at, 1, at, at, point.flags)
    }
    const upsert = raw.query(
      `insert into latest_locations (ping_id, workspace_id, user_id, lat, lng, accuracy_m, speed_mps, source, battery_level, is_mock, signal_quality, recorded_at, created_at, updated_at)
       select id, workspace_id, user_id, lat, lng, accuracy_m, speed_mps, source, battery_level, is_mock, signal_quality, recorded_at, created_at, updated_at
       from location_pings where user_id = ? order by recorded_at desc limit 1`,
    )
    for (const userId of Object.keys(latest)) upsert.run(Number(userId))
  })()
  step(`${size.pings} location pings`)
  raw.run('PRAGMA wal_checkpoint(TRUNCATE)')
  raw.run('ANALYZE')
  raw.close()
  step('done')
  return {
    workspaceId,
    ownerEmail: 'owner@demo.example',
    password: 'password123',
    fieldUserEmails: userIds.map((_, i) => `field${i + 1}@demo.example`),
    /** field1's local day with the dense track (route replay). */
    routeDay,
  }
}

if (import.meta.main) {
  const file = resolve(process.argv[2] ?? './data/demo.db')
  if (existsSync(file)) {
    console.error(`${file} exists; choose another file or remove it first`)
    process.exit(1)
  }
  await seedDemo(file, 1, console.log, outletsFromEnv())
  console.log(`seeded ${file}: log in as owner@demo.example / password123 (DATABASE_URL=file:${file} npm start)`)
}
