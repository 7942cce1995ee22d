/**
 * Hostile input for Visits: planning, in the field, reviews, closing, and the CSV import (src/modules/visits): the baseline bodies of the module's POST and
 * PUT routes. What is mutated, what must hold, and what is sampled: tests/support/bad-input.ts.
 */
import { beforeAll, expect, test } from 'bun:test'
import { expectError, type Reply } from '../harness'
import {
  answersBack,
  badInputTests,
  calendarDate,
  type CsvTests,
  deletedFormOf,
  deletedUserOf,
  expectErrorEnvelope,
  expectNo5xx,
  expectUnchanged,
  failsWith,
  type FieldSpec,
  flagValues,
  foreign,
  formRefs,
  fresh,
  GOOD_ANSWERS,
  idList,
  legacyAnswers,
  missing,
  mutation,
  type Mutation,
  newForm,
  nullable,
  okData,
  optionalText,
  parentId,
  photoBack,
  plannedAs,
  planVisit,
  requiredText,
  type RouteCtx,
  type RouteSpec,
  short,
  SITE,
  siteFields,
  snapshot,
  sortedIds,
  startedVisit,
  submissionOf,
  submitItems,
  submittedForm,
  t,
  unusableParents,
  usedUp,
  VISIT_DATE,
  visitDetail,
  visitInBodyTerms,
  visitKit,
  wrongTypes,
} from '../support/bad-input'

const SPECS: Record<string, RouteSpec> = {}

// Visits (both path listings, docs/API.md §Visits) --------------------------------------------------------

const VISIT_LISTINGS = ['visits', 'outlet-visits'] as const
const BULK_MAX = 500

const visitBody = (rc: RouteCtx) => ({
  outlet_id: rc.outlet,
  project_id: rc.project,
  visit_date: VISIT_DATE,
  team_id: rc.team,
  user_ids: [rc.field.user.id],
  submissions: [{ form_id: rc.form, is_required: true, order: 0 }],
  notes: 'Bring the planogram',
})

const outletRef = (): Mutation[] => [
  ...parentId({ foreign: () => foreign.outlet_id, deleted: (rc) => rc.deletedOutlet }),
  mutation('an inactive outlet', 'notFound', (_: unknown, rc: RouteCtx) => rc.inactiveOutlet),
]
const projectRef = (): Mutation[] => [
  ...parentId({ foreign: () => foreign.project_id, deleted: (rc) => rc.deletedProject }),
  mutation('a draft project', 'notFound', (_: unknown, rc: RouteCtx) => rc.draftProject),
]

const visitFields = (): Record<string, FieldSpec> => ({
  outlet_id: { mutations: outletRef(), required: true },
  project_id: { mutations: projectRef(), required: true },
  visit_date: { mutations: calendarDate({ nullable: false, valid: ['2028-02-29', '2000-02-29'] }), required: true },
  team_id: { mutations: nullable(parentId({ foreign: () => foreign.team_id, deleted: (rc) => rc.deletedTeam })), required: false },
  user_ids: {
    mutations: idList({
      max: 100,
      item: (rc) => rc.field.user.id,
      second: (rc) => rc.ws.owner.user.id,
      foreign: () => foreign.user_id,
      deleted: (rc) => rc.deletedUser,
    }),
    required: false,
  },
  submissions: { mutations: formRefs('submissions', 50), required: false },
  notes: { mutations: optionalText(2000), required: false },
})

const planningSetup = async (rc: RouteCtx) => {
  await visitKit(rc)
  rc.form2 = await newForm(rc.token)
  await unusableParents(rc)
  await deletedFormOf(rc)
  await deletedUserOf(rc)
}

/** `visits` of the bulk body: every item is a create body; errors are keyed `visits.N.<field>`. */
function bulkVisits(): Mutation[] {
  const item = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({ ...visitBody(rc), ...extra })
  const stored = (sent: Record<string, any>[]) => sent.map(plannedAs)
  const items = (make: (rc: RouteCtx) => unknown[]) => (_: unknown, rc: RouteCtx) => make(rc)
  return [
    missing,
    ...wrongTypes('array'),
    mutation('a single visit instead of a list', 'invalid', (_: unknown, rc: RouteCtx) => item(rc)),
    mutation('empty list', 'invalid', []),
    mutation(
      `${BULK_MAX + 1} visits (limit ${BULK_MAX})`,
      'invalid',
      items((rc) => Array.from({ length: BULK_MAX + 1 }, () => item(rc))),
    ),
    mutation('[null]', 'invalid', [null], { path: '0' }),
    mutation(
      'a visit without outlet_id',
      'invalid',
      items((rc) => [{ ...item(rc), outlet_id: undefined }]),
      { path: '0.outlet_id' },
    ),
    mutation(
      'outlet_id as a string',
      'invalid',
      items((rc) => [item(rc, { outlet_id: String(rc.outlet) })]),
      { path: '0.outlet_id' },
    ),
    mutation(
      'an outlet of another workspace',
      'invalid',
      items((rc) => [item(rc, { outlet_id: foreign.outlet_id })]),
      { path: '0.outlet_id' },
    ),
    mutation(
      'a soft-deleted project',
      'invalid',
      items((rc) => [item(rc, { project_id: rc.deletedProject })]),
      { path: '0.project_id' },
    ),
    mutation(
      'a team that does not exist',
      'invalid',
      items((rc) => [item(rc, { team_id: 99_999_999 })]),
      { path: '0.team_id' },
    ),
    mutation(
      '2026-02-30 in the second visit',
      'invalid',
      items((rc) => [item(rc), item(rc, { visit_date: '2026-02-30' })]),
      { path: '1.visit_date' },
    ),
    mutation(
      'an unknown user in the second visit',
      'invalid',
      items((rc) => [item(rc), item(rc, { user_ids: [99_999_999] })]),
      { path: '1.user_ids' },
    ),
    mutation(
      'a form listed twice',
      'invalid',
      items((rc) => [
        item(rc, {
          submissions: [
            { form_id: rc.form, is_required: true },
            { form_id: rc.form, is_required: false },
          ],
        }),
      ]),
      { path: '0.submissions.1.form_id' },
    ),
    mutation(
      'notes of 2001 characters',
      'invalid',
      items((rc) => [item(rc, { notes: 'n'.repeat(2001) })]),
      { path: '0.notes' },
    ),
    mutation(
      'two visits',
      'valid',
      items((rc) => [item(rc), item(rc, { visit_date: '2026-11-23', team_id: null, user_ids: [], submissions: [], notes: null })]),
      { stored },
    ),
    mutation(
      'the same visit twice',
      'valid',
      items((rc) => [item(rc), item(rc)]),
      { stored },
    ),
  ]
}

const reviewBack = async (rc: RouteCtx, reply: Reply) => {
  const submission = okData(await t.app.get(`/office/v1/visits/submissions/${reply.body.data.id}`, { token: rc.token }), 'reading the submission')
  return { status: submission.approval_status, notes: submission.approval_notes }
}
const reviewAnswered = (_rc: RouteCtx, reply: Reply) => ({ status: reply.body.data.approval_status, notes: reply.body.data.approval_notes })

for (const listing of VISIT_LISTINGS) {
  const office = `/office/v1/${listing}`

  SPECS[`POST /api${office}`] = {
    family: 'visits: planning',
    setup: planningSetup,
    baseline: async (rc) => ({ path: office, body: visitBody(rc), token: rc.token }),
    fields: visitFields(),
    readBack: async (rc, reply) => visitInBodyTerms(await visitDetail(rc, reply.body.data.id)),
    answered: (_rc, reply) => visitInBodyTerms(reply.body.data),
  }

  SPECS[`POST /api${office}/bulk`] = {
    family: 'visits: planning',
    setup: planningSetup,
    baseline: async (rc) => ({ path: `${office}/bulk`, body: { visits: [visitBody(rc)] }, token: rc.token }),
    fields: { visits: { mutations: bulkVisits(), required: true } },
    readBack: async (rc, reply) => ({
      visits: await Promise.all(reply.body.data.ids.map(async (id: number) => visitInBodyTerms(await visitDetail(rc, id)))),
    }),
  }

  SPECS[`POST /api${office}/send-to-field`] = {
    family: 'visits: planning',
    setup: async (rc) => {
      await visitKit(rc)
      rc.visit = (await planVisit(rc)).id
      rc.visit2 = (await planVisit(rc)).id
      const done = await startedVisit(rc)
      okData(await t.app.post(`/app/v1/visits/${done.id}/check-out`, SITE, { token: rc.field.token }), 'check-out')
      rc.completedVisit = done.id
    },
    baseline: async (rc) => ({ path: `${office}/send-to-field`, body: { visit_ids: [rc.visit] }, token: rc.token }),
    fields: {
      visit_ids: {
        mutations: [
          ...idList({ max: BULK_MAX, min: 1, item: (rc) => rc.visit, second: (rc) => rc.visit2, foreign: () => foreign.visit_id }),
          mutation('a scheduled and a completed visit', 'invalid', (_: unknown, rc: RouteCtx) => [rc.visit, rc.completedVisit], {
            outcome: failsWith([409], ['INVALID_VISIT_STATUS']),
          }),
        ],
        required: true,
      },
    },
    // The visits the answer names, where the visit now shows it was sent.
    readBack: async (rc, reply) => {
      const sent: number[] = []
      for (const { id } of reply.body.data.visits) if ((await visitDetail(rc, id)).sent_to_field_at) sent.push(id)
      return { visit_ids: sortedIds(sent) }
    },
  }

  for (const [action, prepare] of [
    ['cancel', planVisit],
    ['force-close', startedVisit],
  ] as const) {
    SPECS[`PUT /api${office}/:id/${action}`] = {
      family: 'visits: closing',
      setup: visitKit,
      baseline: async (rc) => ({
        path: `${office}/${(await fresh(rc, prepare)).id}/${action}`,
        body: { reason: 'Shop closed for renovation' },
        token: rc.token,
      }),
      fields: { reason: { mutations: requiredText(1000), required: true } },
      readBack: async (rc, reply) => ({ reason: (await visitDetail(rc, reply.body.data.id)).close_reason }),
      answered: (_rc, reply) => ({ reason: reply.body.data.close_reason }),
      cleanup: usedUp,
    }
  }

  const assign = listing === 'visits' ? 'assign' : 'assign-users'
  SPECS[`POST /api${office}/:id/${assign}`] = {
    family: 'visits: planning',
    setup: async (rc) => {
      await visitKit(rc)
      await deletedUserOf(rc)
      rc.visit = (await planVisit(rc)).id
    },
    baseline: async (rc) => ({ path: `${office}/${rc.visit}/${assign}`, body: { user_ids: [rc.field.user.id] }, token: rc.token }),
    fields: {
      user_ids: {
        mutations: idList({
          max: 100,
          item: (rc) => rc.field.user.id,
          second: (rc) => rc.ws.owner.user.id,
          foreign: () => foreign.user_id,
          deleted: (rc) => rc.deletedUser,
        }),
        required: true,
      },
    },
    readBack: async (rc) => ({ user_ids: visitInBodyTerms(await visitDetail(rc, rc.visit)).user_ids }),
    answered: (_rc, reply) => ({ user_ids: visitInBodyTerms(reply.body.data).user_ids }),
  }

  SPECS[`POST /api${office}/:id/submissions`] = {
    family: 'visits: planning',
    setup: async (rc) => {
      await visitKit(rc)
      await deletedFormOf(rc)
      rc.visit = (await planVisit(rc)).id
    },
    baseline: async (rc) => ({ path: `${office}/${rc.visit}/submissions`, body: { form_id: rc.form, is_required: true }, token: rc.token }),
    fields: {
      form_id: { mutations: parentId({ foreign: () => foreign.form_id, deleted: (rc) => rc.deletedForm }), required: true },
      is_required: { mutations: flagValues(), required: false },
    },
    readBack: async (rc, reply) => {
      const submission = await submissionOf(rc, rc.visit, reply.body.data.id)
      return { form_id: submission.form_id, is_required: submission.is_required }
    },
  }

  SPECS[`POST /api${office}/:id/submissions/:submission_id/approve`] = {
    family: 'visits: reviews',
    setup: visitKit,
    baseline: async (rc) => {
      const { visit, submission } = await fresh(rc, submittedForm)
      return { path: `${office}/${visit}/submissions/${submission}/approve`, body: { notes: 'Well done' }, token: rc.token }
    },
    // Notes are optional: an empty body approves.
    fields: { notes: { mutations: optionalText(2000), required: false, onMissing: { type: 'ok', checkStored: false } } },
    readBack: reviewBack,
    answered: reviewAnswered,
    cleanup: usedUp,
  }

  SPECS[`POST /api${office}/:id/submissions/:submission_id/reject`] = {
    family: 'visits: reviews',
    setup: visitKit,
    baseline: async (rc) => {
      const { visit, submission } = await fresh(rc, submittedForm)
      return { path: `${office}/${visit}/submissions/${submission}/reject`, body: { notes: 'The photo is blurry' }, token: rc.token }
    },
    fields: { notes: { mutations: requiredText(2000), required: true } },
    readBack: reviewBack,
    answered: reviewAnswered,
    cleanup: usedUp,
  }

  SPECS[`POST /api${office}/submissions/:id/approval`] = {
    family: 'visits: reviews',
    setup: visitKit,
    baseline: async (rc, field) => {
      const { submission } = await fresh(rc, submittedForm)
      // Notes are required to reject: their mutations are tried on a rejection.
      const body = field === 'notes' ? { status: 'rejected', notes: 'The photo is blurry' } : { status: 'approved', notes: 'Well done' }
      return { path: `${office}/submissions/${submission}/approval`, body, token: rc.token }
    },
    fields: {
      status: {
        mutations: [
          missing,
          ...wrongTypes('string'),
          mutation('"junk"', 'invalid', 'junk'),
          mutation('"APPROVED" (case matters)', 'invalid', 'APPROVED'),
          mutation('"pending" (not a decision)', 'invalid', 'pending'),
          mutation('empty string', 'invalid', ''),
          mutation('"rejected"', 'valid', 'rejected'),
          mutation('"approved"', 'valid', 'approved'),
        ],
        required: true,
      },
      notes: { mutations: requiredText(2000), required: true },
    },
    readBack: reviewBack,
    answered: reviewAnswered,
    cleanup: usedUp,
  }
}

// Visits on the phone ----------------------------------------------------------------------------

for (const path of ['/app/v1/visits/self', '/app/v1/outlet-visits']) {
  SPECS[`POST /api${path}`] = {
    family: 'visits: in the field',
    setup: async (rc) => {
      await visitKit(rc)
      await unusableParents(rc)
    },
    baseline: async (rc) => ({
      path,
      body: { outlet_id: rc.outlet, project_id: rc.project, notes: 'On my way', visit_date: VISIT_DATE },
      token: rc.field.token,
    }),
    fields: {
      outlet_id: { mutations: outletRef(), required: true },
      project_id: { mutations: projectRef(), required: true },
      notes: { mutations: optionalText(2000), required: false },
      visit_date: { mutations: calendarDate({ nullable: false, valid: ['2028-02-29'] }), required: false },
    },
    readBack: async (rc, reply) => visitInBodyTerms(await visitDetail(rc, reply.body.data.id)),
    answered: (_rc, reply) => visitInBodyTerms(reply.body.data),
  }
}

/** Where a check-in or check-out is kept: location and photo on the visit, notes in its log (docs/API.md §Other areas). */
async function siteBack(rc: RouteCtx, visitId: number, step: 'check_in' | 'check_out') {
  const visit = await visitDetail(rc, visitId)
  return { ...siteAnswered(visit, step), [`${step}_photo`]: await photoBack(rc, visit[`${step}_photo_url`]) }
}
function siteAnswered(visit: any, step: 'check_in' | 'check_out') {
  const location = visit[`${step}_location`]
  const log = [...visit.logs].reverse().find((entry: { action: string }) => entry.action === step)
  return { latitude: location?.latitude ?? null, longitude: location?.longitude ?? null, notes: log?.notes ?? null }
}

async function submitSetup(rc: RouteCtx) {
  await visitKit(rc)
  rc.form2 = await newForm(rc.token)
  await deletedFormOf(rc)
  const visit = await startedVisit(rc, {
    submissions: [
      { form_id: rc.form, is_required: false },
      { form_id: rc.form2, is_required: false },
    ],
  })
  rc.visit = visit.id
  // Sent and rejected: it may be saved again, and id-less items (which fill a form's submission that
  // is not yet completed) leave it alone, so it stays there for the items that name it.
  rc.draftable = visit.submissions[0].id
  const sent = [{ submission_id: rc.draftable, status: 'completed', answers: GOOD_ANSWERS }]
  okData(await t.app.post(`/app/v1/visits/${visit.id}/submit-form-v2`, { form_id: rc.form, items: sent }, { token: rc.field.token }), 'submit-form-v2')
  okData(await t.app.post(`/office/v1/visits/${visit.id}/submissions/${rc.draftable}/reject`, { notes: 'again' }, { token: rc.token }), 'reject')
  rc.form2Submission = visit.submissions[1].id
  rc.elsewhere = (await planVisit(rc, { submissions: [{ form_id: rc.form, is_required: false }] })).submissions[0].id
}

for (const listing of VISIT_LISTINGS) {
  const mobile = `/app/v1/${listing}`

  SPECS[`POST /api${mobile}/:id/check-in`] = {
    family: 'visits: in the field',
    setup: visitKit,
    baseline: async (rc) => ({
      path: `${mobile}/${(await fresh(rc, planVisit)).id}/check-in`,
      body: { ...SITE, check_in_photo: 'https://cdn.example.com/arrival.jpg', notes: 'Arrived' },
      token: rc.field.token,
    }),
    fields: siteFields('check_in_photo'),
    readBack: (rc, reply) => siteBack(rc, reply.body.data.id, 'check_in'),
    answered: (_rc, reply) => siteAnswered(reply.body.data, 'check_in'),
    // One visit in progress per user: the checked-in visit is closed before the next check-in.
    cleanup: async (rc, reply) => {
      okData(await t.app.put(`/office/v1/visits/${reply.body.data.id}/force-close`, { reason: 'test done' }, { token: rc.token }), 'force-close')
      rc.fresh = undefined
    },
  }

  SPECS[`POST /api${mobile}/:id/check-out`] = {
    family: 'visits: in the field',
    setup: visitKit,
    baseline: async (rc) => ({
      path: `${mobile}/${(await fresh(rc, startedVisit)).id}/check-out`,
      body: { ...SITE, check_out_photo: 'https://cdn.example.com/departure.jpg', notes: 'All done' },
      token: rc.field.token,
    }),
    fields: siteFields('check_out_photo'),
    readBack: (rc, reply) => siteBack(rc, reply.body.data.id, 'check_out'),
    answered: (_rc, reply) => siteAnswered(reply.body.data, 'check_out'),
    cleanup: usedUp,
  }

  SPECS[`POST /api${mobile}/:id/submit-form-v2`] = {
    family: 'visits: in the field',
    setup: submitSetup,
    baseline: async (rc) => ({
      path: `${mobile}/${rc.visit}/submit-form-v2`,
      body: { form_id: rc.form, items: [{ submission_id: null, status: 'completed', answers: GOOD_ANSWERS }] },
      token: rc.field.token,
    }),
    fields: {
      form_id: { mutations: parentId({ foreign: () => foreign.form_id, deleted: (rc) => rc.deletedForm }), required: true },
      items: { mutations: submitItems(), required: true },
    },
    readBack: async (rc, reply) => ({
      items: await Promise.all(
        reply.body.data.submissions.map(async ({ id }: { id: number }) => {
          const stored = await submissionOf(rc, rc.visit, id)
          return { status: stored.status, answers: answersBack(stored.answers) }
        }),
      ),
    }),
  }

  SPECS[`POST /api${mobile}/:id/submit-form`] = {
    family: 'visits: in the field',
    setup: submitSetup,
    baseline: async (rc) => ({ path: `${mobile}/${rc.visit}/submit-form`, body: { form_id: rc.form, answers: GOOD_ANSWERS }, token: rc.field.token }),
    fields: {
      form_id: { mutations: parentId({ foreign: () => foreign.form_id, deleted: (rc) => rc.deletedForm }), required: true },
      answers: { mutations: legacyAnswers(), required: true },
    },
    readBack: async (rc, reply) => ({ answers: answersBack((await submissionOf(rc, rc.visit, reply.body.data.submissions[0].id)).answers) }),
  }
}

// Visit import: a text/csv body, not JSON ---------------------------------------------------------

/**
 * The CSV import routes take `text/csv`, so they have no JSON baseline: each has a CSV baseline and
 * a list of accepted variants and of refused ones (malformed CSV, missing columns, unknown codes,
 * impossible dates, a wrong content type). A refused one is 400 VALIDATION_ERROR and imports nothing.
 */
interface CsvCase {
  label: string
  body: (rc: RouteCtx) => string
  contentType?: string
  /** Accepted: the visits it creates, in the create body's terms (only the keys given are compared). */
  creates?: (rc: RouteCtx) => Record<string, unknown>[]
  /** Refused: every key of `errors` matches this. */
  errors?: RegExp
}

const CSV_COLUMNS = ['outlet_code', 'project_code', 'visit_date', 'team_name', 'assignee_emails', 'notes'] as const
type CsvCells = Partial<Record<(typeof CSV_COLUMNS)[number], string>>
const csvCells = (rc: RouteCtx, cells: CsvCells = {}): Record<string, string> => ({
  outlet_code: rc.outletCode,
  project_code: rc.projectCode,
  visit_date: '2026-11-23',
  team_name: rc.teamName,
  assignee_emails: rc.field.user.email,
  notes: 'Imported',
  ...cells,
})
const csvRow = (rc: RouteCtx, cells: CsvCells = {}) => CSV_COLUMNS.map((column) => csvCells(rc, cells)[column]).join(',')
const csvOf = (_rc: RouteCtx, ...rows: string[]) => `${[CSV_COLUMNS.join(','), ...rows].join('\n')}\n`
/** Only some columns, in this order. */
const csvWith = (rc: RouteCtx, columns: string[], cells: Record<string, string> = {}) => {
  const all = { ...csvCells(rc), ...cells }
  return `${columns.join(',')}\n${columns.map((column) => all[column] ?? '').join(',')}\n`
}
const imported = (rc: RouteCtx, extra: Record<string, unknown> = {}) => ({
  outlet_id: rc.outlet,
  project_id: rc.project,
  visit_date: '2026-11-23',
  team_id: rc.team,
  user_ids: [rc.field.user.id],
  notes: 'Imported',
  ...extra,
})

const CSV_CASES: CsvCase[] = [
  { label: 'the baseline: codes, a team name and an assignee email', body: (rc) => csvOf(rc, csvRow(rc)), creates: (rc) => [imported(rc)] },
  {
    label: 'a byte-order mark, CRLF line ends and a header in capitals with spaces',
    body: (rc) => `\uFEFF${CSV_COLUMNS.map((c) => ` ${c.toUpperCase()} `).join(',')}\r\n${csvRow(rc)}\r\n`,
    creates: (rc) => [imported(rc)],
  },
  {
    label: 'ids instead of codes, and two assignees',
    body: (rc) => `outlet_id,project_id,visit_date,user_ids\n${rc.outlet},${rc.project},2026-11-24,${rc.field.user.id};${rc.ws.owner.user.id}\n`,
    creates: (rc) => [imported(rc, { visit_date: '2026-11-24', team_id: null, user_ids: sortedIds([rc.field.user.id, rc.ws.owner.user.id]), notes: null })],
  },
  {
    label: 'a quoted note with a comma, quotes and a line break',
    body: (rc) => csvOf(rc, csvRow(rc, { notes: '"Shelf 3, ""top""\nrow"' })),
    creates: (rc) => [imported(rc, { notes: 'Shelf 3, "top"\nrow' })],
  },
  {
    label: 'an unknown extra column (ignored)',
    body: (rc) => `${CSV_COLUMNS.join(',')},colour\n${csvRow(rc)},red\n`,
    creates: (rc) => [imported(rc)],
  },
  {
    label: 'a note a spreadsheet would run as a formula',
    body: (rc) => csvOf(rc, csvRow(rc, { notes: '=1+1' })),
    creates: (rc) => [imported(rc, { notes: '=1+1' })],
  },
  {
    label: 'two rows with blank lines around them',
    body: (rc) => `\n${csvOf(rc, csvRow(rc), '', csvRow(rc, { visit_date: '2028-02-29' }))}\n\n`,
    creates: (rc) => [imported(rc), imported(rc, { visit_date: '2028-02-29' })],
  },

  // Malformed CSV.
  { label: 'an unclosed quote', body: (rc) => csvOf(rc, csvRow(rc, { notes: '"never closed' })), errors: /^csv$/ },
  { label: 'a row with more cells than the header', body: (rc) => csvOf(rc, `${csvRow(rc)},extra`), errors: /^csv$/ },
  { label: 'a row with fewer cells than the header', body: (rc) => csvOf(rc, `${rc.outletCode},${rc.projectCode}`), errors: /^csv$/ },
  { label: 'only the header row', body: (rc) => csvOf(rc), errors: /^csv$/ },
  { label: 'an empty body', body: () => '', errors: /^(body|csv)$/ },
  { label: 'blank lines only', body: () => '\n\n   \n', errors: /^(body|csv)$/ },
  { label: 'binary bytes', body: () => '\u0000\u0001\u0002\uFFFD\n\u0003,\u0004\n', errors: /^(csv|rows\.\d+\.[a-z_]+)$/ },
  { label: '5001 rows (limit 5000)', body: (rc) => csvOf(rc, ...Array.from({ length: 5001 }, () => csvRow(rc))), errors: /^csv$/ },

  // Missing columns.
  { label: 'no outlet column', body: (rc) => csvWith(rc, ['project_code', 'visit_date']), errors: /^rows\.2\.outlet_(code|id)$/ },
  { label: 'no project column', body: (rc) => csvWith(rc, ['outlet_code', 'visit_date']), errors: /^rows\.2\.project_(code|id)$/ },
  { label: 'no visit_date column', body: (rc) => csvWith(rc, ['outlet_code', 'project_code']), errors: /^rows\.2\.visit_date$/ },
  { label: 'a header of other columns', body: () => 'a,b,c\n1,2,3\n', errors: /^rows\.2\.[a-z_]+$/ },

  // Unknown codes.
  { label: 'an outlet code that does not exist', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: 'NO-SUCH-OUTLET' })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'an outlet code of another workspace', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: foreign.outlet_code })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'the code of a soft-deleted outlet', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: rc.deletedOutletCode })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'an SQL-ish outlet code', body: (rc) => csvOf(rc, csvRow(rc, { outlet_code: "' OR 1=1 --" })), errors: /^rows\.2\.outlet_code$/ },
  { label: 'a project code that does not exist', body: (rc) => csvOf(rc, csvRow(rc, { project_code: 'NO-SUCH-PROJECT' })), errors: /^rows\.2\.project_code$/ },
  {
    label: 'a project code of another workspace',
    body: (rc) => csvOf(rc, csvRow(rc, { project_code: foreign.project_code })),
    errors: /^rows\.2\.project_code$/,
  },
  {
    label: 'a draft project',
    body: (rc) => csvWith(rc, ['outlet_code', 'project_id', 'visit_date'], { project_id: String(rc.draftProject) }),
    errors: /^rows\.2\.project_id$/,
  },
  { label: 'a team name that does not exist', body: (rc) => csvOf(rc, csvRow(rc, { team_name: 'No Such Team' })), errors: /^rows\.2\.team_name$/ },
  { label: 'a team of another workspace', body: (rc) => csvOf(rc, csvRow(rc, { team_name: foreign.team_name })), errors: /^rows\.2\.team_name$/ },
  {
    label: 'an assignee email that does not exist',
    body: (rc) => csvOf(rc, csvRow(rc, { assignee_emails: 'nobody@example.com' })),
    errors: /^rows\.2\.assignee_emails$/,
  },
  {
    label: 'an assignee of another workspace',
    body: (rc) => csvOf(rc, csvRow(rc, { assignee_emails: foreign.user_email })),
    errors: /^rows\.2\.assignee_emails$/,
  },
  {
    label: 'outlet_id "abc"',
    body: (rc) => csvWith(rc, ['outlet_id', 'project_code', 'visit_date'], { outlet_id: 'abc' }),
    errors: /^rows\.2\.outlet_id$/,
  },
  {
    label: 'an outlet_id of another workspace',
    body: (rc) => csvWith(rc, ['outlet_id', 'project_code', 'visit_date'], { outlet_id: String(foreign.outlet_id) }),
    errors: /^rows\.2\.outlet_id$/,
  },
  {
    label: 'user_ids that are not numbers',
    body: (rc) => csvWith(rc, ['outlet_code', 'project_code', 'visit_date', 'user_ids'], { user_ids: `${rc.field.user.id};x` }),
    errors: /^rows\.2\.user_ids$/,
  },

  // Impossible dates.
  ...['2026-02-30', '2027-02-29', '2026-04-31', '2026-13-01', '23/11/2026', '2026-11-23T08:00:00Z', ''].map(
    (date): CsvCase => ({
      label: `visit_date ${JSON.stringify(date)}`,
      body: (rc) => csvOf(rc, csvRow(rc, { visit_date: date })),
      errors: /^rows\.2\.visit_date$/,
    }),
  ),
  {
    label: 'a good row, then a bad one (nothing is imported)',
    body: (rc) => csvOf(rc, csvRow(rc), csvRow(rc, { visit_date: '2026-02-30' })),
    errors: /^rows\.3\.visit_date$/,
  },

  // Not CSV.
  { label: 'Content-Type text/plain', body: (rc) => csvOf(rc, csvRow(rc)), contentType: 'text/plain', errors: /^content-type$/ },
  { label: 'Content-Type application/xml', body: (rc) => csvOf(rc, csvRow(rc)), contentType: 'application/xml', errors: /^content-type$/ },
  { label: 'the CSV as a JSON string', body: (rc) => JSON.stringify(csvOf(rc, csvRow(rc))), contentType: 'application/json', errors: /^body$/ },
  { label: 'a JSON object', body: (rc) => JSON.stringify({ csv: csvOf(rc, csvRow(rc)) }), contentType: 'application/json', errors: /^body$/ },
]

async function runCsvCase(path: string, rc: RouteCtx, c: CsvCase) {
  const before = await snapshot()
  const reply = await t.app.request('POST', path, { raw: c.body(rc), headers: { 'content-type': c.contentType ?? 'text/csv' }, token: rc.token })
  expectNo5xx(reply)
  if (c.creates) {
    if (reply.status !== 201) throw new Error(`expected 201, got ${reply.status} ${reply.text.slice(0, 500)}`)
    expect(reply.body.code).toBe('VISITS_IMPORTED')
    const expected = c.creates(rc)
    expect(reply.body.data.count).toBe(expected.length)
    expect(reply.body.data.ids).toHaveLength(expected.length)
    for (const [index, id] of reply.body.data.ids.entries()) {
      const stored = visitInBodyTerms(await visitDetail(rc, id))
      const picked = Object.fromEntries(Object.keys(expected[index]).map((key) => [key, stored[key]]))
      expect({ row: index + 2, visit: picked }).toEqual({ row: index + 2, visit: expected[index] })
    }
    return
  }
  expectErrorEnvelope(reply)
  const errors = expectError(reply, 400, 'VALIDATION_ERROR')
  const keys = Object.keys(errors)
  if (keys.length === 0 || !keys.every((key) => c.errors!.test(key))) throw new Error(`expected errors keyed ${c.errors}, got ${JSON.stringify(errors)}`)
  for (const key of keys) expect({ key, messages: Array.isArray(errors[key]) && (errors[key] as unknown[]).length > 0 }).toEqual({ key, messages: true })
  await expectUnchanged(before)
}

// ---------------------------------------------------------------------------------------------

const csvTests: CsvTests = (route, name) => {
  const rc = {} as RouteCtx
  beforeAll(async () => {
    rc.ws = await t.app.workspace()
    rc.token = rc.ws.owner.token
    await visitKit(rc)
    await unusableParents(rc)
  })
  for (const c of CSV_CASES) {
    const outcome = c.creates ? '201 VISITS_IMPORTED, the rows stored as sent' : `400 VALIDATION_ERROR (errors ${c.errors}), imports nothing`
    test(`${name} · ${c.label} → ${outcome}`, () => runCsvCase(short(route.path), rc, c))
  }
}

badInputTests('visits', {
  specs: SPECS,
  csv: Object.fromEntries(VISIT_LISTINGS.map((listing) => [`POST /api/office/v1/${listing}/import`, csvTests])),
})
