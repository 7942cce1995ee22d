/**
 * Hostile input for Outlets (src/modules/outlets): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { unique } from '../harness'
import {
  badInputTests,
  coordinate,
  deleted,
  type FieldSpec,
  flagValues,
  foreign,
  invalid,
  newAccount,
  newOutlet,
  newSubArea,
  nullable,
  okData,
  optionalText,
  parentId,
  regionalId,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  SITE,
  t,
  uniqueCode,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Outlets --------------------------------------------------------------------------------------

const outletFields = (create: boolean): Record<string, FieldSpec> => ({
  name: { mutations: requiredText(255), required: create },
  code: {
    mutations: uniqueCode(
      'OUTLET_ALREADY_EXISTS',
      (rc) => rc.takenCode,
      () => foreign.outlet_code,
    ),
    required: false,
  },
  address: { mutations: optionalText(1000), required: false },
  // Coordinates come as a pair: with the other one in the body, leaving one out (or null) is refused
  // on create; on update a left-out one keeps its stored value.
  latitude: { mutations: coordinate(90, invalid('latitude')), required: create },
  longitude: { mutations: coordinate(180, invalid('longitude')), required: create },
  account_id: { mutations: nullable(parentId({ foreign: () => foreign.account_id, deleted: (rc) => rc.deletedAccount })), required: false },
  sub_area_id: { mutations: nullable(parentId({ foreign: () => foreign.sub_area_id, deleted: (rc) => rc.deletedSubArea })), required: false },
  province_id: { mutations: regionalId(), required: false },
  city_id: { mutations: regionalId(), required: false },
  district_id: { mutations: regionalId(), required: false },
  village_id: { mutations: regionalId(), required: false },
  contact_name: { mutations: optionalText(255), required: false },
  contact_phone: { mutations: optionalText(32), required: false },
  is_active: { mutations: flagValues(), required: false },
})

const outletSetup = async (rc: RouteCtx) => {
  rc.account = await newAccount(rc.token)
  rc.deletedAccount = await deleted('outlets/accounts', await newAccount(rc.token), rc.token)
  rc.subArea = await newSubArea(rc.token)
  rc.deletedSubArea = await deleted('outlets/sub-areas', await newSubArea(rc.token), rc.token)
  rc.takenCode = (await newOutlet(rc.token, { code: unique('TAKEN').toUpperCase() })).code
}
const outletBody = (rc: RouteCtx) => ({
  name: unique('Outlet'),
  code: unique('OUT'),
  address: 'Jl. Sudirman 1, Jakarta',
  ...SITE,
  account_id: rc.account,
  sub_area_id: rc.subArea,
  province_id: 31,
  city_id: 3171,
  district_id: 317101,
  village_id: 3171011001,
  contact_name: 'Budi',
  contact_phone: '+62 812 0000 0000',
  is_active: true,
})
const outletReadBack = async (rc: RouteCtx, id: number) => okData(await t.app.get(`/office/v1/outlets/${id}`, { token: rc.token }), 'reading the outlet')

SPECS['POST /api/office/v1/outlets'] = {
  family: 'outlets',
  setup: outletSetup,
  baseline: async (rc) => ({ path: '/office/v1/outlets', body: outletBody(rc), token: rc.token }),
  fields: outletFields(true),
  readBack: (rc, reply) => outletReadBack(rc, reply.body.data.id),
}

SPECS['PUT /api/office/v1/outlets/:id'] = {
  family: 'outlets',
  setup: async (rc) => {
    await outletSetup(rc)
    rc.target = (await newOutlet(rc.token)).id
  },
  baseline: async (rc) => ({ path: `/office/v1/outlets/${rc.target}`, body: outletBody(rc), token: rc.token }),
  fields: outletFields(false),
  readBack: (rc) => outletReadBack(rc, rc.target),
}

badInputTests('outlets', { specs: SPECS })
