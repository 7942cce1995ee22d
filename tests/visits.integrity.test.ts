/**
 * Field integrity of check-in and check-out (docs/API.md §Field integrity): the geofence (off / warn /
 * block, workspace radius, outlet override, accuracy in the phone's favour, distances stored), and the
 * visit flags the server computes (mock_location, impossible_travel, photo_time_mismatch,
 * photo_location_mismatch from EXIF built in the test), flagged=true on lists, the dashboard's count
 * and the notification of a flagged check-in. Distances are computed here with the test's own formula.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ManualClock } from '../src/lib/clock'
import { newOutlet, newProject, newTeam, newVisit, ok } from './factories'
import { createTestApp, expectError, unique, useTestApp, type Session, type TestApp, type Workspace } from './harness'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import ExifReader from 'exifreader'
import { exifBlock, MAX_EXIF_BYTES, readPhotoExif } from '../src/modules/files'
import { hostilePng, jpegDataUri, jpegWithExif, pngDataUri, pngWithExif, webpWithExif } from './support/exif'

const t = useTestApp()
const clock = () => t.app.clock as ManualClock

const R = 6_371_008.8
/** The point `metres` north of (lat, lng): a degree of latitude is R·π/180 metres everywhere. */
const north = (p: { latitude: number; longitude: number }, metres: number) => ({
  latitude: p.latitude + (metres / (R * Math.PI)) * 180,
  longitude: p.longitude,
})
const SHOP = { latitude: -6.2, longitude: 106.816666 }

let ws: Workspace
let admin: Session
let leader: Session
let team: { id: number }
let project: { id: number }

beforeAll(async () => {
  clock().set('2026-11-23T03:00:00.000Z')
  ws = await t.app.workspace()
  admin = await t.app.member(ws, 'admin')
  leader = await t.app.member(ws, 'manager')
  team = await newTeam(t.app, ws.owner.token, { leader_id: leader.user.id })
  project = await newProject(t.app, ws.owner.token)
})

async function settings(body: Record<string, unknown>) {
  return ok(await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, body, { token: ws.owner.token }))
}

/** A field user (logged in now) with a scheduled visit of today at an outlet. */
async function plannedVisit(outlet: Record<string, unknown> = { ...SHOP }) {
  const user = await t.app.member(ws, 'user')
  const created = await newOutlet(t.app, ws.owner.token, outlet)
  const visit = await newVisit(t.app, ws.owner.token, {
    outlet_id: created.id,
    project_id: project.id,
    team_id: team.id,
    visit_date: '2026-11-23',
    user_ids: [user.user.id],
    submissions: [],
  })
  return { user, visit, outlet: created }
}

const checkIn = (visitId: number, user: Session, body: Record<string, unknown>) => t.app.post(`/app/v1/visits/${visitId}/check-in`, body, { token: user.token })
const checkOut = (visitId: number, user: Session, body: Record<string, unknown>) =>
  t.app.post(`/app/v1/visits/${visitId}/check-out`, body, { token: user.token })
const uploadsOnDisk = () => {
  const dir = join(t.app.dir, 'uploads')
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((name) => /\.(png|jpg|webp)$/.test(String(name))).length : 0
}
const detail = async (visitId: number) => ok(await t.app.get(`/office/v1/visits/${visitId}`, { token: ws.owner.token }))

describe('geofence: distance minus accuracy against the radius', () => {
  test('warn (the default): inside → clean with the distance stored; outside → allowed, flagged outside_geofence', async () => {
    await settings({ geofence_mode: 'warn', geofence_radius_m: 200 })
    const inside = await plannedVisit()
    const at = north(SHOP, 150)
    const answer = ok(await checkIn(inside.visit.id, inside.user, at))
    expect(answer.flags).toEqual([])
    expect(answer.check_in_distance_m).toBeCloseTo(150, 1)

    const outside = await plannedVisit()
    const far = ok(await checkIn(outside.visit.id, outside.user, north(SHOP, 260)))
    expect(far.status).toBe('in_progress')
    expect(far.flags).toEqual(['outside_geofence'])
    expect(far.check_in_distance_m).toBeCloseTo(260, 1)
  })

  test('the reported accuracy counts in the phone’s favour: 260 m with ±70 m is inside 200 m, with ±50 m it is not', async () => {
    await settings({ geofence_mode: 'block', geofence_radius_m: 200 })
    const a = await plannedVisit()
    expect(ok(await checkIn(a.visit.id, a.user, { ...north(SHOP, 260), accuracy_m: 70 })).flags).toEqual([])
    const b = await plannedVisit()
    const errors = expectError(await checkIn(b.visit.id, b.user, { ...north(SHOP, 260), accuracy_m: 50 }), 422, 'OUTSIDE_GEOFENCE')
    expect(errors).toEqual({ distance_m: [260], radius_m: [200] })
  })

  test('the accuracy forgives at most the radius: a 10 m fence and accuracy_m 100000 do not let a check-in 50 km away through (block, check-in and check-out)', async () => {
    await settings({ geofence_mode: 'block', geofence_radius_m: 200 })
    const kiosk = await plannedVisit({ ...SHOP, geofence_radius_m: 10 })
    const errors = expectError(await checkIn(kiosk.visit.id, kiosk.user, { ...north(SHOP, 50_000), accuracy_m: 100_000 }), 422, 'OUTSIDE_GEOFENCE')
    expect(errors.radius_m).toEqual([10])
    // Twice the radius is the most a claimed accuracy can stretch the fence: 21 m is out, 19 m is in (flagged).
    expectError(await checkIn(kiosk.visit.id, kiosk.user, { ...north(SHOP, 21), accuracy_m: 100_000 }), 422, 'OUTSIDE_GEOFENCE')
    expect((await detail(kiosk.visit.id)).status).toBe('scheduled')
    const inside = ok(await checkIn(kiosk.visit.id, kiosk.user, { ...north(SHOP, 19), accuracy_m: 100_000 }))
    expect(inside).toMatchObject({ status: 'in_progress', flags: ['low_accuracy'] })
    expectError(await checkOut(kiosk.visit.id, kiosk.user, { ...north(SHOP, 50_000), accuracy_m: 100_000 }), 422, 'OUTSIDE_GEOFENCE')
    expect((await detail(kiosk.visit.id)).status).toBe('in_progress')
    expect(ok(await checkOut(kiosk.visit.id, kiosk.user, { ...north(SHOP, 5), accuracy_m: 5 })).status).toBe('completed')
  })

  test('warn: a check-in 50 km from a 10 m fence with accuracy_m 100000 is flagged outside_geofence and low_accuracy (check-in and check-out)', async () => {
    await settings({ geofence_mode: 'warn', geofence_radius_m: 200 })
    const kiosk = await plannedVisit({ ...SHOP, geofence_radius_m: 10 })
    const checkedIn = ok(await checkIn(kiosk.visit.id, kiosk.user, { ...north(SHOP, 50_000), accuracy_m: 100_000 }))
    expect(checkedIn.flags).toEqual(['outside_geofence', 'low_accuracy'])
    const other = await plannedVisit({ ...SHOP, geofence_radius_m: 10 })
    ok(await checkIn(other.visit.id, other.user, { ...north(SHOP, 5), accuracy_m: 5 }))
    const checkedOut = ok(await checkOut(other.visit.id, other.user, { ...north(SHOP, 50_000), accuracy_m: 100_000 }))
    expect(checkedOut.flags).toEqual(['outside_geofence', 'low_accuracy'])
    // An accuracy within the radius is no flag.
    const fine = await plannedVisit({ ...SHOP, geofence_radius_m: 10 })
    expect(ok(await checkIn(fine.visit.id, fine.user, { ...north(SHOP, 12), accuracy_m: 8 })).flags).toEqual([])
  })

  test('block: outside → 422 OUTSIDE_GEOFENCE and nothing changed (status, log, audit, photo file)', async () => {
    await settings({ geofence_mode: 'block', geofence_radius_m: 200 })
    const { user, visit } = await plannedVisit()
    const files = await t.app.count('files')
    const audits = await t.app.count('audit_logs', `entity_type = 'visit' AND entity_id = '${visit.id}'`)
    const photo = jpegDataUri({})
    const errors = expectError(await checkIn(visit.id, user, { ...north(SHOP, 1_000), check_in_photo: photo }), 422, 'OUTSIDE_GEOFENCE')
    expect(errors.radius_m).toEqual([200])
    expect((errors.distance_m as number[])[0]).toBeCloseTo(1_000, 0)
    const after = await detail(visit.id)
    expect(after).toMatchObject({ status: 'scheduled', checked_in_at: null, check_in_distance_m: null, flags: [] })
    expect(after.logs.filter((log: { action: string }) => log.action === 'check_in')).toEqual([])
    expect(await t.app.count('files')).toBe(files)
    expect(await t.app.count('audit_logs', `entity_type = 'visit' AND entity_id = '${visit.id}'`)).toBe(audits)
    // Walking to the shop, the same check-in succeeds.
    expect(ok(await checkIn(visit.id, user, north(SHOP, 20))).status).toBe('in_progress')
  })

  test('block at check-out too; the distance of each is kept', async () => {
    await settings({ geofence_mode: 'block', geofence_radius_m: 200 })
    const { user, visit } = await plannedVisit()
    ok(await checkIn(visit.id, user, north(SHOP, 10)))
    expectError(await checkOut(visit.id, user, north(SHOP, 500)), 422, 'OUTSIDE_GEOFENCE')
    expect((await detail(visit.id)).status).toBe('in_progress')
    const done = ok(await checkOut(visit.id, user, north(SHOP, 120)))
    expect(done).toMatchObject({ status: 'completed', flags: [] })
    expect(done.check_in_distance_m).toBeCloseTo(10, 1)
    expect(done.check_out_distance_m).toBeCloseTo(120, 1)
  })

  test('an outlet’s own radius overrides the workspace’s', async () => {
    await settings({ geofence_mode: 'block', geofence_radius_m: 200 })
    const mall = await plannedVisit({ ...SHOP, geofence_radius_m: 1_000 })
    expect(mall.outlet.geofence_radius_m).toBe(1_000)
    expect(ok(await checkIn(mall.visit.id, mall.user, north(SHOP, 900))).status).toBe('in_progress')
    const kiosk = await plannedVisit({ ...SHOP, geofence_radius_m: 50 })
    expect(expectError(await checkIn(kiosk.visit.id, kiosk.user, north(SHOP, 80)), 422, 'OUTSIDE_GEOFENCE').radius_m).toEqual([50])
  })

  test('an outlet without coordinates is never blocked: flagged outlet_unlocated', async () => {
    await settings({ geofence_mode: 'block' })
    const { user, visit } = await plannedVisit({})
    const answer = ok(await checkIn(visit.id, user, north(SHOP, 50_000)))
    expect(answer).toMatchObject({ status: 'in_progress', flags: ['outlet_unlocated'], check_in_distance_m: null })
  })

  test('off: nothing is checked or flagged, the distance is still stored', async () => {
    await settings({ geofence_mode: 'off' })
    const { user, visit } = await plannedVisit()
    const answer = ok(await checkIn(visit.id, user, north(SHOP, 5_000)))
    expect(answer.flags).toEqual([])
    expect(answer.check_in_distance_m).toBeCloseTo(5_000, 0)
    const unlocated = await plannedVisit({})
    expect(ok(await checkIn(unlocated.visit.id, unlocated.user, SHOP)).flags).toEqual([])
  })

  test('settings: mode and radius are validated and audited', async () => {
    for (const body of [{ geofence_mode: 'strict' }, { geofence_radius_m: 9 }, { geofence_radius_m: 5_001 }, { geofence_radius_m: 'far' }]) {
      const errors = expectError(await t.app.put(`/office/v1/workspaces/${ws.id}/settings`, body, { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
      expect(Object.keys(errors)).toEqual(Object.keys(body))
    }
    const updated = await settings({ geofence_mode: 'warn', geofence_radius_m: 300 })
    expect(updated).toMatchObject({ geofence_mode: 'warn', geofence_radius_m: 300 })
    await settings({ geofence_radius_m: 200 })
  })

  test('30 check-ins of one visit at once outside a blocking fence: all 422, nothing changed', async () => {
    await settings({ geofence_mode: 'block', geofence_radius_m: 200 })
    const { user, visit } = await plannedVisit()
    const replies = await Promise.all(Array.from({ length: 30 }, () => checkIn(visit.id, user, north(SHOP, 400))))
    expect(replies.map((r) => r.status)).toEqual(Array(30).fill(422))
    expect((await detail(visit.id)).status).toBe('scheduled')
  })
})

describe('visit flags computed by the server', () => {
  beforeAll(async () => {
    await settings({ geofence_mode: 'warn', geofence_radius_m: 200 })
  })

  test('mock_location when the phone says its position is mocked (check-in or check-out)', async () => {
    const a = await plannedVisit()
    expect(ok(await checkIn(a.visit.id, a.user, { ...SHOP, is_mock: true })).flags).toEqual(['mock_location'])
    const b = await plannedVisit()
    ok(await checkIn(b.visit.id, b.user, SHOP))
    expect(ok(await checkOut(b.visit.id, b.user, { ...SHOP, is_mock: true })).flags).toEqual(['mock_location'])
  })

  test('impossible_travel: the check-in is 30 km from a ping 60 s before it; 3 km in 5 minutes is fine', async () => {
    const now = clock().now().getTime()
    const far = await plannedVisit()
    const ping = (p: { latitude: number; longitude: number }, secondsAgo: number) => ({
      lat: p.latitude,
      lng: p.longitude,
      is_mock: false,
      recorded_at: new Date(now - secondsAgo * 1000).toISOString(),
    })
    ok(await t.app.post('/app/v1/locations/batch', { pings: [ping(north(SHOP, 30_000), 60)] }, { token: far.user.token, idempotencyKey: unique('k') }), 201)
    expect(ok(await checkIn(far.visit.id, far.user, SHOP)).flags).toEqual(['impossible_travel'])

    const near = await plannedVisit()
    ok(await t.app.post('/app/v1/locations/batch', { pings: [ping(north(SHOP, 3_000), 300)] }, { token: near.user.token, idempotencyKey: unique('k') }), 201)
    expect(ok(await checkIn(near.visit.id, near.user, SHOP)).flags).toEqual([])
  })

  test('impossible_travel is judged against the last kept ping: a GPS glitch just before the check-in does not flag it', async () => {
    const now = clock().now().getTime()
    const { user, visit } = await plannedVisit()
    const ping = (p: { latitude: number; longitude: number }, secondsAgo: number) => ({
      lat: p.latitude,
      lng: p.longitude,
      is_mock: false,
      recorded_at: new Date(now - secondsAgo * 1000).toISOString(),
    })
    // At the shop 2 minutes ago, then a glitch 20 km away 10 s later (flagged, so not the last kept ping).
    ok(
      await t.app.post(
        '/app/v1/locations/batch',
        { pings: [ping(SHOP, 120), ping(north(SHOP, 20_000), 110)] },
        { token: user.token, idempotencyKey: unique('k') },
      ),
      201,
    )
    expect(ok(await checkIn(visit.id, user, SHOP)).flags).toEqual([])
  })

  test('photo_time_mismatch: EXIF capture time 20 minutes off (with its offset, or read in the workspace zone); 10 minutes is fine', async () => {
    // Server time 2026-11-23T03:00:00Z; the workspace zone is UTC.
    const cases: [Record<string, unknown>, string[]][] = [
      [{ takenAt: '2026:11:23 02:40:00' }, ['photo_time_mismatch']],
      [{ takenAt: '2026:11:23 02:50:00' }, []],
      [{ takenAt: '2026:11:23 09:50:00', offset: '+07:00' }, []],
      [{ takenAt: '2026:11:23 10:20:00', offset: '+07:00' }, ['photo_time_mismatch']],
      [{}, []], // no EXIF time: no evidence either way
    ]
    for (const [exif, flags] of cases) {
      const { user, visit } = await plannedVisit()
      const answer = ok(await checkIn(visit.id, user, { ...SHOP, check_in_photo: jpegDataUri(exif) }))
      expect({ exif, flags: answer.flags }).toEqual({ exif, flags })
    }
  })

  test('photo_location_mismatch: EXIF position 600 m from the check-in; 400 m is fine', async () => {
    const far = await plannedVisit()
    const p600 = north(SHOP, 600)
    const a = ok(await checkIn(far.visit.id, far.user, { ...SHOP, check_in_photo: jpegDataUri({ latitude: p600.latitude, longitude: p600.longitude }) }))
    expect(a.flags).toEqual(['photo_location_mismatch'])
    const near = await plannedVisit()
    const p400 = north(SHOP, 400)
    const b = ok(await checkIn(near.visit.id, near.user, { ...SHOP, check_in_photo: jpegDataUri({ latitude: p400.latitude, longitude: p400.longitude }) }))
    expect(b.flags).toEqual([])
  })

  test('an impossible EXIF date (a camera whose clock was never set: 0000:00:00 00:00:00) is no capture time: 200, no photo_time_mismatch, the photo kept once', async () => {
    for (const takenAt of ['0000:00:00 00:00:00', '2026:02:30 10:00:00', '2026:11:23 24:00:00', '1969:12:31 23:59:59']) {
      const { user, visit } = await plannedVisit()
      const onDisk = uploadsOnDisk()
      const files = await t.app.count('files')
      const answer = ok(await checkIn(visit.id, user, { ...SHOP, check_in_photo: jpegDataUri({ takenAt }) }))
      expect({ takenAt, flags: answer.flags }).toEqual({ takenAt, flags: [] })
      expect(uploadsOnDisk()).toBe(onDisk + 1)
      expect(await t.app.count('files')).toBe(files + 1)
    }
  })

  test('flags of check-in and check-out add up; the list filters flagged=true|false; the dashboard counts today’s', async () => {
    const before = ok(await t.app.get('/office/v1/dashboard/summary', { token: ws.owner.token })).flagged_visits_today
    const { user, visit } = await plannedVisit()
    ok(await checkIn(visit.id, user, { ...north(SHOP, 300), is_mock: true }))
    const done = ok(await checkOut(visit.id, user, north(SHOP, 250)))
    expect(done.flags).toEqual(['outside_geofence', 'mock_location'])
    const flagged = ok(await t.app.get('/office/v1/visits?flagged=true&limit=100', { token: ws.owner.token }))
    expect(flagged.map((v: { id: number }) => v.id)).toContain(visit.id)
    expect(flagged.every((v: { flags: string[] }) => v.flags.length > 0)).toBe(true)
    const clean = ok(await t.app.get('/office/v1/visits?flagged=false&limit=100', { token: ws.owner.token }))
    expect(clean.map((v: { id: number }) => v.id)).not.toContain(visit.id)
    expect(clean.every((v: { flags: string[] }) => v.flags.length === 0)).toBe(true)
    const mine = ok(await t.app.get('/app/v1/visits/me?flagged=true', { token: user.token }))
    expect(mine.map((v: { id: number }) => v.id)).toEqual([visit.id])
    expect(ok(await t.app.get('/office/v1/dashboard/summary', { token: ws.owner.token })).flagged_visits_today).toBe(before + 1)
    expectError(await t.app.get('/office/v1/visits?flagged=maybe', { token: ws.owner.token }), 400, 'VALIDATION_ERROR')
  })

  test('a flagged check-in notifies the team leader and the admins, once; a clean one notifies nobody', async () => {
    const unread = async (session: Session) => ok(await t.app.get('/office/v1/notifications/unread-count', { token: session.token })).count
    const counts = async () => [await unread(leader), await unread(admin), await unread(ws.owner)]
    const start = await counts()
    const clean = await plannedVisit()
    ok(await checkIn(clean.visit.id, clean.user, SHOP))
    expect(await counts()).toEqual(start)
    const flagged = await plannedVisit()
    ok(await checkIn(flagged.visit.id, flagged.user, { ...SHOP, is_mock: true }))
    expect(await counts()).toEqual(start.map((n) => n + 1))
    const [notice] = ok(await t.app.get('/office/v1/notifications?limit=1', { token: leader.token }))
    expect(notice).toMatchObject({ type: 'visit.flagged', data: { visit_id: flagged.visit.id, user_id: flagged.user.user.id, flags: ['mock_location'] } })
    expect(await unread(flagged.user)).toBe(1) // their assignment notice only
  })
})

describe('photo EXIF is read within fixed bounds (one photo must not stall every tenant)', () => {
  test('the 4.8 MiB PNG whose EXIF has 11 texts each claiming 5,000,000 bytes: its EXIF block is over the bound and not parsed; the check-in is 200 and unflagged', async () => {
    const png = hostilePng({ takenAt: '2026:11:23 02:00:00' })
    expect(png.length).toBeGreaterThan(4.7 * 1024 * 1024)
    expect(exifBlock(png)).toBeNull()
    expect(readPhotoExif(png, 'UTC')).toEqual({ takenAt: null, position: null })
    await settings({ geofence_mode: 'warn', geofence_radius_m: 200 })
    const { user, visit } = await plannedVisit()
    const answer = ok(await checkIn(visit.id, user, { ...SHOP, check_in_photo: pngDataUri(png) }))
    expect(answer).toMatchObject({ status: 'in_progress', flags: [] })
    expect(answer.check_in_photo_url).toMatch(/^\/api\/files\//)
  })

  test('the same claims inside a small EXIF block are skipped and the real capture time is still read (20 minutes off: photo_time_mismatch)', async () => {
    const png = pngWithExif({ takenAt: '2026:11:23 02:40:00' }, { claims: 11 })
    expect(exifBlock(png)!.byteLength).toBeLessThanOrEqual(MAX_EXIF_BYTES)
    expect(readPhotoExif(png, 'UTC').takenAt).toBe(Date.parse('2026-11-23T02:40:00Z'))
    const { user, visit } = await plannedVisit()
    expect(ok(await checkIn(visit.id, user, { ...SHOP, check_in_photo: pngDataUri(png) })).flags).toEqual(['photo_time_mismatch'])
  })

  test('a WebP’s EXIF chunk is read the same way; a capture time claiming 5,000,000 bytes is no capture time', () => {
    const fields = { takenAt: '2026:11:23 10:20:00', offset: '+07:00', latitude: -6.2, longitude: 106.816666 }
    expect(readPhotoExif(webpWithExif(fields), 'UTC')).toEqual(readPhotoExif(jpegWithExif(fields), 'UTC'))
    expect(readPhotoExif(webpWithExif(fields), 'UTC').takenAt).toBe(Date.parse('2026-11-23T10:20:00+07:00'))
    // The DateTimeOriginal entry's count patched to 5,000,000: it cannot be there, so it is not read.
    const photo = jpegWithExif({ takenAt: '2026:11:23 10:20:00' })
    const tag = photo.indexOf(Buffer.from([0x03, 0x90, 0x02, 0x00]))
    photo.writeUInt32LE(5_000_000, tag + 4)
    expect(readPhotoExif(photo, 'UTC').takenAt).toBeNull()
  })

  test('a damaged EXIF block never throws: every byte of a real one set to 0x00, 0xFF or 0x7F in turn still reads (as something or nothing)', () => {
    const photo = jpegWithExif({ takenAt: '2026:11:23 10:20:00', offset: '+07:00', latitude: -6.2, longitude: 106.816666 })
    const start = photo.indexOf(Buffer.from('Exif\0\0', 'latin1'))
    let read = 0
    for (let at = start; at < photo.length - 2; at++) {
      for (const byte of [0x00, 0xff, 0x7f]) {
        const damaged = Buffer.from(photo)
        damaged[at] = byte
        const exif = readPhotoExif(damaged, 'Asia/Jakarta')
        expect(exif.takenAt === null || Number.isFinite(exif.takenAt)).toBe(true)
        read += 1
      }
    }
    expect(read).toBeGreaterThan(300)
  })

  test('whatever the photo, the block handed to the tag reader is a view of at most MAX_EXIF_BYTES', () => {
    for (const padding of [0, 1_000, MAX_EXIF_BYTES - 200, MAX_EXIF_BYTES, 1_000_000]) {
      const block = exifBlock(pngWithExif({ takenAt: '2026:11:23 02:40:00' }, { claims: 11, padding }))
      expect(block === null || block.byteLength <= MAX_EXIF_BYTES).toBe(true)
    }
  })

  test('the bounded reader agrees with ExifReader on well-formed photos (JPEG and PNG; time, offset, GPS in four hemispheres)', () => {
    const cases = [
      { takenAt: '2026:11:23 10:20:00', offset: '+07:00', latitude: -6.2, longitude: 106.816666 },
      { takenAt: '2025:01:02 03:04:05', latitude: 51.5, longitude: -0.12 },
      { latitude: -33.86, longitude: -151.2 },
      { takenAt: '2026:06:30 23:59:59', offset: '-03:30' },
    ]
    const round = (value: number | undefined) => (value === undefined ? null : Number(value.toFixed(6)))
    for (const fields of cases) {
      for (const photo of [jpegWithExif(fields), pngWithExif(fields)]) {
        const ours = readPhotoExif(photo, 'UTC')
        const tags = ExifReader.load(photo, { expanded: true }) as {
          exif?: Record<string, { description?: string }>
          gps?: { Latitude?: number; Longitude?: number }
        }
        expect(ours.position ? [round(ours.position.lat), round(ours.position.lng)] : null).toEqual(
          tags.gps?.Latitude === undefined ? null : [round(tags.gps.Latitude), round(tags.gps.Longitude)],
        )
        const wall = tags.exif?.DateTimeOriginal?.description
        if (wall) {
          const iso = `${wall.slice(0, 10).replaceAll(':', '-')}T${wall.slice(11)}${tags.exif?.OffsetTimeOriginal?.description ?? 'Z'}`
          expect(ours.takenAt).toBe(Date.parse(iso))
        } else expect(ours.takenAt).toBeNull()
      }
    }
  })
})

// The write path of check-in and check-out with photos, on both database drivers: refusals before the
// photo is decoded, nothing left on disk by a refused request, the bounded EXIF reader.
for (const driver of ['bun-sqlite', 'libsql'] as const) {
  describe(`check-in photos on ${driver}`, () => {
    let app: TestApp
    let space: Workspace
    let projectId: number
    beforeAll(async () => {
      app = await createTestApp({ driver, clock: new (await import('../src/lib/clock')).ManualClock(new Date('2026-11-23T03:00:00.000Z')) })
      space = await app.workspace()
      projectId = (await newProject(app, space.owner.token)).id
      ok(await app.put(`/office/v1/workspaces/${space.id}/settings`, { geofence_mode: 'block', geofence_radius_m: 200 }, { token: space.owner.token }))
    })
    afterAll(() => app.close())

    const onDisk = () => {
      const dir = join(app.dir, 'uploads')
      return existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((name) => /\.(png|jpg|webp)$/.test(String(name))).length : 0
    }
    async function visitAt(outlet: Record<string, unknown> = { ...SHOP }) {
      const user = await app.member(space, 'user')
      const { id: outletId } = await newOutlet(app, space.owner.token, outlet)
      const visit = await newVisit(app, space.owner.token, {
        outlet_id: outletId,
        project_id: projectId,
        visit_date: '2026-11-23',
        user_ids: [user.user.id],
        submissions: [],
      })
      return { user, visit }
    }
    const post = (path: string, user: Session, body: Record<string, unknown>) => app.post(path, body, { token: user.token })

    test('the hostile PNG and an unset camera clock: 200, unflagged, each stored once', async () => {
      for (const photo of [pngDataUri(hostilePng({ takenAt: '2026:11:23 02:00:00' })), jpegDataUri({ takenAt: '0000:00:00 00:00:00' })]) {
        const { user, visit } = await visitAt()
        const before = onDisk()
        const answer = ok(await post(`/app/v1/visits/${visit.id}/check-in`, user, { ...SHOP, check_in_photo: photo }))
        expect(answer.flags).toEqual([])
        expect(onDisk()).toBe(before + 1)
      }
    })

    test('refused before the photo is decoded (visit in progress, blocking fence stretched by accuracy_m 100000): no file written', async () => {
      const { user, visit } = await visitAt()
      ok(await post(`/app/v1/visits/${visit.id}/check-in`, user, SHOP))
      const before = onDisk()
      const files = await app.count('files')
      const broken = `data:image/png;base64,${Buffer.from('not an image').toString('base64')}`
      expectError(await post(`/app/v1/visits/${visit.id}/check-in`, user, { ...SHOP, check_in_photo: broken }), 409, 'VISIT_ALREADY_CHECKED_IN')
      expectError(
        await post(`/app/v1/visits/${visit.id}/check-out`, user, { ...north(SHOP, 50_000), accuracy_m: 100_000, check_out_photo: broken }),
        422,
        'OUTSIDE_GEOFENCE',
      )
      const kiosk = await visitAt({ ...SHOP, geofence_radius_m: 10 })
      const photo = jpegDataUri({})
      expectError(
        await post(`/app/v1/visits/${kiosk.visit.id}/check-in`, kiosk.user, { ...north(SHOP, 50_000), accuracy_m: 100_000, check_in_photo: photo }),
        422,
        'OUTSIDE_GEOFENCE',
      )
      expect(onDisk()).toBe(before)
      expect(await app.count('files')).toBe(files)
    })

    test('ten check-ins of one visit at once with photos: one 200, nine 409, exactly one photo on disk and in the files table', async () => {
      const { user, visit } = await visitAt()
      const before = onDisk()
      const files = await app.count('files')
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => post(`/app/v1/visits/${visit.id}/check-in`, user, { ...SHOP, check_in_photo: jpegDataUri({}) })),
      )
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, ...Array(9).fill(409)])
      expect(onDisk()).toBe(before + 1)
      expect(await app.count('files')).toBe(files + 1)
    })
  })
}
