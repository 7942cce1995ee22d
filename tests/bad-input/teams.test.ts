/**
 * Hostile input for Teams (src/modules/teams): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  deletedUserOf,
  failsWith,
  type FieldSpec,
  foreign,
  idList,
  mutation,
  newTeam,
  newUser,
  nullable,
  okData,
  optionalText,
  parentId,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  sortedIds,
  t,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Teams ----------------------------------------------------------------------------------------

const teamFields = (required: boolean): Record<string, FieldSpec> => ({
  name: {
    mutations: [
      ...requiredText(255),
      mutation('the name of another team, in upper case', 'invalid', (_: unknown, rc: RouteCtx) => rc.takenName.toUpperCase(), {
        outcome: failsWith([409], ['TEAM_ALREADY_EXISTS'], 'name'),
      }),
    ],
    required,
  },
  description: { mutations: optionalText(2000), required: false },
  leader_id: { mutations: nullable(parentId({ foreign: () => foreign.user_id, deleted: (rc) => rc.deletedUser })), required: false },
  user_ids: {
    mutations: idList({
      max: 1000,
      item: (rc) => rc.member,
      second: (rc) => rc.ws.owner.user.id,
      foreign: () => foreign.user_id,
      deleted: (rc) => rc.deletedUser,
    }),
    required: false,
  },
})

const teamSetup = async (rc: RouteCtx) => {
  rc.member = await newUser(rc.token, rc.ws.roles.user)
  await deletedUserOf(rc)
  rc.takenName = (await newTeam(rc.token)).name
}
const teamBody = (rc: RouteCtx) => ({ name: unique('Team'), description: 'North Jakarta merchandisers', leader_id: rc.member, user_ids: [rc.member] })
const teamReadBack = async (rc: RouteCtx, id: number) => {
  const team = okData(await t.app.get(`/office/v1/teams/${id}`, { token: rc.token }), 'reading the team')
  return {
    name: team.name,
    description: team.description,
    leader_id: team.leader_id,
    user_ids: sortedIds(team.members.map((m: { user_id: number }) => m.user_id)),
  }
}

SPECS['POST /api/office/v1/teams'] = {
  family: 'teams',
  setup: teamSetup,
  baseline: async (rc) => ({ path: '/office/v1/teams', body: teamBody(rc), token: rc.token }),
  fields: teamFields(true),
  readBack: (rc, reply) => teamReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/teams/:id'] = {
  family: 'teams',
  setup: async (rc) => {
    await teamSetup(rc)
    rc.target = (await newTeam(rc.token)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/teams/${rc.target}`, body: teamBody(rc), token: rc.token }),
  fields: teamFields(false),
  readBack: (rc) => teamReadBack(rc, rc.target),
}

badInputTests('teams', { specs: SPECS })
