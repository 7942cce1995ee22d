/**
 * Teams (docs/API.md §Other areas, §Envelopes, §Errors, §Roles and permissions): CRUD, leaders and
 * members, and team membership on users.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { ids, type Row, onWorkspace } from './factories'
import { expectError, unique, useTestApp, type Session, type Workspace } from './harness'

const t = useTestApp()
let ws: Workspace
let other: Workspace
let foreignUser: Session
const token = () => ws.owner.token

const OFFICE = '/office/v1'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const { created, newTeam, newUser } = onWorkspace(t, () => ws)

beforeAll(async () => {
  ws = await t.app.workspace()
  other = await t.app.workspace()
  foreignUser = await t.app.member(other, 'user')
})

describe('teams', () => {
  let leader: Row
  let alice: Row
  let bob: Row
  let carol: Row

  beforeAll(async () => {
    leader = created(await newUser({ name: 'Lena Leader' }, token(), ws.roles.manager), 'leader')
    alice = created(await newUser({ name: 'Alice Field' }), 'alice')
    bob = created(await newUser({ name: 'Bob Field' }), 'bob')
    carol = created(await newUser({ name: 'Carol Field' }), 'carol')
  })

  test('create with leader_id and user_ids: 201 TEAM_CREATED, leader {id, name} and members [{user_id, name}]', async () => {
    const reply = await t.app.post(
      `${OFFICE}/teams`,
      { name: unique('Jakarta Squad'), description: 'North', leader_id: leader.id, user_ids: [bob.id, alice.id, bob.id] },
      { token: token() },
    )
    expect(reply.status).toBe(201)
    expect(reply.body.code).toBe('TEAM_CREATED')
    const team = reply.body.data
    expect(team).toMatchObject({ workspace_id: ws.id, description: 'North', leader_id: leader.id, deleted_at: null })
    expect(team.leader).toEqual({ id: leader.id, name: 'Lena Leader' })
    expect(team.members).toEqual([
      { user_id: alice.id, name: 'Alice Field' },
      { user_id: bob.id, name: 'Bob Field' },
    ])
    expect(team).not.toHaveProperty('name_key')
    expect(await t.app.count('team_members', `team_id = ${team.id}`)).toBe(2)
    expect((await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data).toEqual(team)
  })

  test('name is unique per workspace case-insensitively: 409 TEAM_ALREADY_EXISTS; another workspace or a deleted team frees it', async () => {
    const name = unique('Squad')
    const first = await newTeam({ name })
    const before = await t.app.count('teams')
    const errors = expectError(await t.app.post(`${OFFICE}/teams`, { name: ` ${name.toUpperCase()} ` }, { token: token() }), 409, 'TEAM_ALREADY_EXISTS')
    expect(errors.name).toBeArray()
    expect(await t.app.count('teams')).toBe(before)
    const second = await newTeam()
    expectError(await t.app.put(`${OFFICE}/teams/${second.id}`, { name: name.toLowerCase() }, { token: token() }), 409, 'TEAM_ALREADY_EXISTS')
    expect((await t.app.post(`${OFFICE}/teams`, { name }, { token: other.owner.token })).status).toBe(201)
    expect((await t.app.delete(`${OFFICE}/teams/${first.id}`, { token: token() })).status).toBe(200)
    expect((await t.app.post(`${OFFICE}/teams`, { name }, { token: token() })).status).toBe(201)
  })

  test('a leader or members from another workspace are a 400 naming leader_id / user_ids; nothing stored', async () => {
    const before = await t.app.count('teams')
    const leaderErrors = expectError(
      await t.app.post(`${OFFICE}/teams`, { name: unique('T'), leader_id: foreignUser.user.id }, { token: token() }),
      400,
      'VALIDATION_ERROR',
    )
    expect(leaderErrors.leader_id).toBeArray()
    for (const userIds of [[alice.id, foreignUser.user.id], [987_654_321]]) {
      const errors = expectError(await t.app.post(`${OFFICE}/teams`, { name: unique('T'), user_ids: userIds }, { token: token() }), 400, 'VALIDATION_ERROR')
      expect(errors.user_ids).toBeArray()
    }
    expect(await t.app.count('teams')).toBe(before)
    const team = await newTeam({ user_ids: [alice.id] })
    expectError(await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [foreignUser.user.id] }, { token: token() }), 400, 'VALIDATION_ERROR')
    expectError(await t.app.put(`${OFFICE}/teams/${team.id}`, { leader_id: foreignUser.user.id }, { token: token() }), 400, 'VALIDATION_ERROR')
    const stored = (await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data
    expect(stored.members.map((m: Row) => m.user_id)).toEqual([alice.id])
    expect(stored.leader_id).toBeNull()
  })

  test('update replaces the members: TEAM_UPDATED', async () => {
    const team = await newTeam({ leader_id: leader.id, user_ids: [alice.id, bob.id] })
    const reply = await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [carol.id] }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('TEAM_UPDATED')
    expect(reply.body.data.members).toEqual([{ user_id: carol.id, name: 'Carol Field' }])
    expect(reply.body.data.leader).toEqual({ id: leader.id, name: 'Lena Leader' })
    expect(await t.app.count('team_members', `team_id = ${team.id}`)).toBe(1)
    const cleared = await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [], leader_id: null }, { token: token() })
    expect(cleared.body.data.members).toEqual([])
    expect(cleared.body.data.leader).toBeNull()
  })

  test('the list filters by keyword, leader_id and user_id', async () => {
    const listWs = await t.app.workspace()
    const as = listWs.owner.token
    const boss = created(await newUser({ name: 'Boss' }, as, listWs.roles.manager), 'boss')
    const worker = created(await newUser({ name: 'Worker' }, as, listWs.roles.user), 'worker')
    const north = await newTeam({ name: 'North Squad', leader_id: boss.id }, as)
    const south = await newTeam({ name: 'South SQUAD', user_ids: [worker.id] }, as)
    const east = await newTeam({ name: 'East Crew', leader_id: boss.id, user_ids: [worker.id] }, as)
    const list = (query: string) => t.app.get(`${OFFICE}/teams?${query}`, { token: as })
    const all = await list('')
    expect(all.body.code).toBe('LIST_OK')
    expect(all.body.meta).toEqual({ page: 1, limit: 10, total: 3, total_pages: 1 })
    expect(ids((await list('keyword=squad')).body.data).sort()).toEqual([north.id, south.id].sort())
    expect(ids((await list(`leader_id=${boss.id}`)).body.data).sort()).toEqual([north.id, east.id].sort())
    expect(ids((await list(`user_id=${worker.id}`)).body.data).sort()).toEqual([south.id, east.id].sort())
    expect(ids((await list(`user_id=${worker.id}&keyword=east`)).body.data)).toEqual([east.id])
  })

  test('delete is soft: TEAM_DELETED with deleted_at; gone from detail and list', async () => {
    const team = await newTeam({ user_ids: [alice.id] })
    const reply = await t.app.delete(`${OFFICE}/teams/${team.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe('TEAM_DELETED')
    expect(reply.body.data.deleted_at).toMatch(TIMESTAMP)
    expect(await t.app.count('teams', `id = ${team.id} AND deleted_at IS NOT NULL`)).toBe(1)
    expectError(await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() }), 404, 'TEAM_NOT_FOUND')
    const listed = await t.app.get(`${OFFICE}/teams?keyword=${encodeURIComponent(team.name)}`, { token: token() })
    expect(listed.body.data).toEqual([])
    // A deleted team is no longer among the user's teams.
    expect((await t.app.get(`${OFFICE}/users/${alice.id}`, { token: token() })).body.data.team_ids).not.toContain(team.id)
  })
})

describe('users: team membership', () => {
  test('POST /office/v1/users accepts team_ids; the user shows team_ids and appears in the teams', async () => {
    const t1 = await newTeam()
    const t2 = await newTeam()
    const reply = await newUser({ team_ids: [t2.id, t1.id] })
    expect(reply.status).toBe(201)
    const user = reply.body.data
    expect(user.team_ids).toEqual([t1.id, t2.id].sort((a, b) => a - b))
    expect((await t.app.get(`${OFFICE}/users/${user.id}`, { token: token() })).body.data.team_ids).toEqual(user.team_ids)
    expect((await t.app.get(`${OFFICE}/teams/${t1.id}`, { token: token() })).body.data.members).toEqual([{ user_id: user.id, name: user.name }])
  })

  test('an unknown, foreign or deleted team in team_ids is a 400 with errors.team_ids; no user is created', async () => {
    const foreignTeam = await newTeam({}, other.owner.token)
    const deletedTeam = await newTeam()
    expect((await t.app.delete(`${OFFICE}/teams/${deletedTeam.id}`, { token: token() })).status).toBe(200)
    const before = await t.app.count('users')
    for (const id of [foreignTeam.id, deletedTeam.id, 987_654_321]) {
      const errors = expectError(await newUser({ team_ids: [id] }), 400, 'VALIDATION_ERROR')
      expect(errors.team_ids).toBeArray()
    }
    expect(await t.app.count('users')).toBe(before)
    const user = created(await newUser(), 'user')
    const errors = expectError(await t.app.put(`${OFFICE}/users/${user.id}`, { team_ids: [foreignTeam.id] }, { token: token() }), 400, 'VALIDATION_ERROR')
    expect(errors.team_ids).toBeArray()
    expect(await t.app.count('team_members', `user_id = ${user.id}`)).toBe(0)
  })

  test('PUT /office/v1/users replaces team_ids', async () => {
    const t1 = await newTeam()
    const t2 = await newTeam()
    const user = created(await newUser({ team_ids: [t1.id] }), 'user')
    const reply = await t.app.put(`${OFFICE}/users/${user.id}`, { team_ids: [t2.id] }, { token: token() })
    expect(reply.status).toBe(200)
    expect(reply.body.data.team_ids).toEqual([t2.id])
    expect((await t.app.get(`${OFFICE}/teams/${t1.id}`, { token: token() })).body.data.members).toEqual([])
    expect((await t.app.get(`${OFFICE}/teams/${t2.id}`, { token: token() })).body.data.members.map((m: Row) => m.user_id)).toEqual([user.id])
  })

  test('deleting a user who leads a team clears the leader (a leader must be a user of the workspace)', async () => {
    const boss = created(await newUser({ name: 'Departing Boss' }, token(), ws.roles.manager), 'boss')
    const member = created(await newUser(), 'member')
    const team = await newTeam({ leader_id: boss.id, user_ids: [member.id] })
    expect((await t.app.delete(`${OFFICE}/users/${boss.id}`, { token: token() })).status).toBe(200)
    const stored = (await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data
    expect(stored.leader_id).toBeNull()
    expect(stored.leader).toBeNull()
    expect(stored.members.map((m: Row) => m.user_id)).toEqual([member.id])
    expect((await t.app.get(`${OFFICE}/teams?leader_id=${boss.id}`, { token: token() })).body.meta.total).toBe(0)
  })

  test('GET /office/v1/users?team_id= lists the team members only', async () => {
    const team = await newTeam()
    const a = created(await newUser({ team_ids: [team.id] }), 'a')
    const b = created(await newUser(), 'b')
    expect((await t.app.put(`${OFFICE}/teams/${team.id}`, { user_ids: [a.id, b.id] }, { token: token() })).status).toBe(200)
    await newUser()
    const reply = await t.app.get(`${OFFICE}/users?team_id=${team.id}`, { token: token() })
    expect(reply.status).toBe(200)
    expect(ids(reply.body.data).sort()).toEqual([a.id, b.id].sort())
    expect(reply.body.meta.total).toBe(2)
    expect(reply.body.data.every((u: Row) => u.team_ids.includes(team.id))).toBe(true)
  })

  test("deleting a user removes them from the workspace's teams", async () => {
    const team = await newTeam()
    const stay = created(await newUser({ team_ids: [team.id] }), 'stay')
    const leave = created(await newUser({ team_ids: [team.id] }), 'leave')
    expect((await t.app.delete(`${OFFICE}/users/${leave.id}`, { token: token() })).status).toBe(200)
    expect((await t.app.get(`${OFFICE}/teams/${team.id}`, { token: token() })).body.data.members.map((m: Row) => m.user_id)).toEqual([stay.id])
    expect(await t.app.count('team_members', `user_id = ${leave.id}`)).toBe(0)
    expect(ids((await t.app.get(`${OFFICE}/users?team_id=${team.id}`, { token: token() })).body.data)).toEqual([stay.id])
    expect(ids((await t.app.get(`${OFFICE}/teams?user_id=${leave.id}`, { token: token() })).body.data)).toEqual([])
  })
})
