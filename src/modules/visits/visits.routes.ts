/**
 * Visit routes (docs/API.md §Visits). Every route is written once and served on both listings:
 * listing B (`/office/v1/visits`, `/app/v1/visits`) is canonical, listing A (`…/outlet-visits`) its
 * alias. Each group below is a typed Elysia plugin built once per listing, so each route's schemas
 * type its handler and its answer is checked against its response schema at compile time (never a
 * route table cast to `never`, which switches that check off);
 * where the alias spells a path differently, `on(listing, …)` names both spellings.
 *
 * A route validates (its schemas), calls one service verb with the caller's context and the
 * validated input, and answers the verb's result in the success envelope: `ok` (or `created` for
 * 201) with the route's code, `listed` for a page, or the verb's own Response (the CSV export).
 *
 * Permissions: office reads need visit:view, planning and closing need visit:create, reviews need
 * submission:approve (all on web). On the phone: visit:view to read own visits, visit:create for a
 * self-visit, visit:execute to check in, submit forms and check out.
 */
import { type TSchema, Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { ErrorCode } from '../../lib/errors'
import { CREATED_LOCATION, type PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, AUTHED_ERRORS, responses } from '../../platform/http/schema'
import { addSubmission, deleteSubmission, reviewSubmission, submitFormLegacy, submitForms } from './submissions.service'
import { exportVisits, importVisits } from './visits.csv'
import { activeVisit, listSubmissions, listVisits, readSubmission, readVisit } from './visits.queries'
import {
  AddSubmissionBody,
  ApprovalBody,
  ApproveBody,
  AssignBody,
  BulkVisitBody,
  CheckInBody,
  CheckOutBody,
  CreateVisitBody,
  MyVisitQuery,
  OfficeVisitQuery,
  ReasonBody,
  RejectBody,
  SelfVisitBody,
  SendToFieldBody,
  SubmissionQuery,
  SubmissionSchema,
  SubmitFormBody,
  SubmitFormV2Body,
  VisitDetailSchema,
  VisitListItemSchema,
  VisitSubmissionParams,
} from './visits.schemas'
import { assignVisit, bulkCreateVisits, checkIn, checkOut, closeVisit, createSelfVisit, createVisit, sendToField } from './visits.service'

type Listing = 'visits' | 'outlet-visits'
/** A path after the listing's base that the alias spells differently. */
const on = (listing: Listing, paths: Record<Listing, string>): string => paths[listing]
/** Typed as a plain string: a union of both prefixes would make every route's type a union too. */
const base = (side: 'office' | 'app', listing: Listing): string => `/${side}/v1/${listing}`

const ListOfVisits = ListEnvelope(VisitListItemSchema)
const OneVisit = Envelope(VisitDetailSchema)
const OneSubmission = Envelope(SubmissionSchema)
const ListOfSubmissions = ListEnvelope(SubmissionSchema)
const SubmittedForms = Envelope(Type.Object({ visit_id: Type.Integer(), submissions: Type.Array(SubmissionSchema) }))
const CountOf = (extra: Record<string, TSchema>) => Envelope(Type.Object({ count: Type.Integer(), ...extra }))
const CreatedIds = CountOf({ ids: Type.Array(Type.Integer()) })
const SentToField = CountOf({ visits: Type.Array(Type.Object({ id: Type.Integer(), notified_user_ids: Type.Array(Type.Integer()) })) })
const DeletedSubmission = Envelope(Type.Object({ ...SubmissionSchema.properties, deleted_at: Type.String() }))

const approved = <T>(data: T) => ok(data, 'SUBMISSION_APPROVED', 'submission approved')
const rejected = <T>(data: T) => ok(data, 'SUBMISSION_REJECTED', 'submission rejected')

/** What each route can answer beyond a bad input, a token or a permission (src/platform/errors.ts). */
const SEND: readonly ErrorCode[] = [...AUTHED_ERRORS, 'INVALID_VISIT_STATUS']
const VISIT_READ: readonly ErrorCode[] = [...AUTHED_ERRORS, 'VISIT_NOT_FOUND']
const VISIT_CHANGE: readonly ErrorCode[] = [...VISIT_READ, 'INVALID_VISIT_STATUS']
const SUBMISSION_READ: readonly ErrorCode[] = [...AUTHED_ERRORS, 'SUBMISSION_NOT_FOUND']
const VISIT_SUBMISSION_READ: readonly ErrorCode[] = [...VISIT_READ, 'SUBMISSION_NOT_FOUND']
const SUBMISSION_DELETE: readonly ErrorCode[] = [...VISIT_SUBMISSION_READ, 'INVALID_VISIT_STATUS', 'SUBMISSION_ALREADY_SUBMITTED']
const REVIEW: readonly ErrorCode[] = [...SUBMISSION_READ, 'INVALID_SUBMISSION_STATUS']
const REVIEW_OF_VISIT: readonly ErrorCode[] = [...VISIT_SUBMISSION_READ, 'INVALID_SUBMISSION_STATUS']
const FORM_SAVE: readonly ErrorCode[] = [...VISIT_SUBMISSION_READ, 'INVALID_VISIT_STATUS', 'SUBMISSION_ALREADY_SUBMITTED']
const ON_SITE: readonly ErrorCode[] = [...VISIT_READ, 'LOCATION_REQUIRED', 'INVALID_VISIT_STATUS', 'OUTSIDE_GEOFENCE']
const CHECK_IN: readonly ErrorCode[] = [...ON_SITE, 'VISIT_ALREADY_CHECKED_IN', 'ACTIVE_VISIT_EXISTS']
const CHECK_OUT: readonly ErrorCode[] = [...ON_SITE, 'VISIT_NOT_STARTED', 'SUBMISSION_REQUIRED']

/** The phone's own visit, where a self-visit is read. */
const MY_VISIT: Record<Listing, string> = { visits: '/me/:id', 'outlet-visits': '/:id' }

/** Office: planning visits (one by one, in bulk, from CSV), exporting them and sending them to the field. */
const planRoutes = (platform: PlatformPlugin, listing: Listing) =>
  new Elysia({ prefix: base('office', listing), tags: ['Visits (office)'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listVisits(ctx, query, { mine: false })), {
      auth: 'visit:view',
      query: OfficeVisitQuery,
      response: responses({ 200: ListOfVisits }),
      detail: { summary: 'List visits (filters: status, outlet, project, team, assigned user, date range)' },
    })
    .post('', async ({ ctx, body }) => created(await createVisit(ctx, body), 'VISIT_CREATED', 'visit created'), {
      auth: 'visit:create',
      body: CreateVisitBody,
      response: responses({ 201: OneVisit }),
      detail: { summary: 'Plan a visit; without `submissions` it gets the project’s forms' },
    })
    .post('/bulk', async ({ ctx, body }) => created(await bulkCreateVisits(ctx, body), 'VISITS_CREATED', 'visits created'), {
      auth: 'visit:create',
      body: BulkVisitBody,
      response: responses({ 201: CreatedIds }),
      detail: { summary: 'Plan many visits at once: all or nothing, errors keyed visits.N.field' },
    })
    .post('/import', async ({ ctx, body }) => created(await importVisits(ctx, body), 'VISITS_IMPORTED', 'visits imported'), {
      auth: 'visit:create',
      body: t.String({ minLength: 1, description: 'text/csv with a header row (see the visits CSV format)' }),
      response: responses({ 201: CreatedIds }),
      detail: { summary: 'Import visits from CSV (Content-Type: text/csv); one bad row imports nothing' },
    })
    .get('/export', ({ ctx, query }) => exportVisits(ctx, query), {
      auth: 'visit:view',
      query: OfficeVisitQuery,
      response: responses({ 200: Type.String({ description: 'text/csv, streamed' }) }),
      detail: { summary: 'Export visits as CSV with the list filters' },
    })
    .post('/send-to-field', async ({ ctx, body }) => ok(await sendToField(ctx, body), 'VISITS_SENT_TO_FIELD', 'visits sent to the field'), {
      auth: 'visit:create',
      body: SendToFieldBody,
      response: responses({ 200: SentToField }, SEND),
      detail: { summary: 'Send scheduled visits to their assignees’ phones and notify them' },
    })

/** Office: one visit — read it, cancel, force-close, assign. */
const officeVisitRoutes = (platform: PlatformPlugin, listing: Listing) =>
  new Elysia({ prefix: base('office', listing), tags: ['Visits (office)'] })
    .use(platform)
    .get('/:id', async ({ ctx, params }) => ok(await readVisit(ctx, params.id, { mine: false })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneVisit }, VISIT_READ),
      detail: { summary: 'Get a visit with assignees, submissions and logs' },
    })
    .put('/:id/cancel', async ({ ctx, params, body }) => ok(await closeVisit(ctx, params.id, 'cancel', body), 'VISIT_CANCELLED', 'visit cancelled'), {
      auth: 'visit:create',
      params: IdParams,
      body: ReasonBody,
      response: responses({ 200: OneVisit }, VISIT_CHANGE),
      detail: { summary: 'Cancel a scheduled or in-progress visit' },
    })
    .put(
      '/:id/force-close',
      async ({ ctx, params, body }) => ok(await closeVisit(ctx, params.id, 'force_close', body), 'VISIT_FORCE_CLOSED', 'visit force-closed'),
      {
        auth: 'visit:create',
        params: IdParams,
        body: ReasonBody,
        response: responses({ 200: OneVisit }, VISIT_CHANGE),
        detail: { summary: 'Force-close a visit stuck in progress' },
      },
    )
    .post(
      on(listing, { visits: '/:id/assign', 'outlet-visits': '/:id/assign-users' }),
      async ({ ctx, params, body }) => ok(await assignVisit(ctx, params.id, body), 'VISIT_ASSIGNED', 'visit assigned'),
      {
        auth: 'visit:create',
        params: IdParams,
        body: AssignBody,
        response: responses({ 200: OneVisit }, VISIT_CHANGE),
        detail: { summary: 'Set the assignees of a scheduled visit' },
      },
    )

/** Office: submissions across visits, and their review (approve or reject). */
const reviewRoutes = (platform: PlatformPlugin, listing: Listing) =>
  new Elysia({ prefix: base('office', listing), tags: ['Visits (office)'] })
    .use(platform)
    .get('/submissions', async ({ ctx, query }) => listed(await listSubmissions(ctx, query, { mine: false })), {
      auth: 'visit:view',
      query: SubmissionQuery,
      response: responses({ 200: ListOfSubmissions }),
      detail: { summary: 'List submissions (filters: approval_status, team_id, status, project, outlet, form, visit, user, dates)' },
    })
    .get('/submissions/:id', async ({ ctx, params }) => ok(await readSubmission(ctx, params.id, { mine: false })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneSubmission }, SUBMISSION_READ),
      detail: { summary: 'Get a submission' },
    })
    .post(
      '/submissions/:id/approval',
      async ({ ctx, params, body }) => {
        const submission = await reviewSubmission(ctx, params.id, body)
        return body.status === 'approved' ? approved(submission) : rejected(submission)
      },
      {
        auth: 'submission:approve',
        params: IdParams,
        body: ApprovalBody,
        response: responses({ 200: OneSubmission }, REVIEW),
        detail: { summary: 'Approve or reject a completed submission (notes required to reject)' },
      },
    )
    .post(
      '/:id/submissions/:submission_id/approve',
      async ({ ctx, params, body }) => approved(await reviewSubmission(ctx, params.submission_id, { status: 'approved', notes: body.notes }, params.id)),
      {
        auth: 'submission:approve',
        params: VisitSubmissionParams,
        body: ApproveBody,
        response: responses({ 200: OneSubmission }, REVIEW_OF_VISIT),
        detail: { summary: 'Approve a completed submission' },
      },
    )
    .post(
      '/:id/submissions/:submission_id/reject',
      async ({ ctx, params, body }) => rejected(await reviewSubmission(ctx, params.submission_id, { status: 'rejected', notes: body.notes }, params.id)),
      {
        auth: 'submission:approve',
        params: VisitSubmissionParams,
        body: RejectBody,
        response: responses({ 200: OneSubmission }, REVIEW_OF_VISIT),
        detail: { summary: 'Reject a completed submission (with notes)' },
      },
    )

/** Phone: the field user's own visits, on one listing. */

/** Office: the submissions of one visit — list, attach, read, remove. */
const visitSubmissionRoutes = (platform: PlatformPlugin, listing: Listing) =>
  new Elysia({ prefix: base('office', listing), tags: ['Visits (office)'] })
    .use(platform)
    .get('/:id/submissions', async ({ ctx, params, query }) => listed(await listSubmissions(ctx, query, { mine: false, visitId: params.id })), {
      auth: 'visit:view',
      params: IdParams,
      query: SubmissionQuery,
      response: responses({ 200: ListOfSubmissions }, VISIT_READ),
      detail: { summary: 'Submissions of a visit' },
    })
    .post('/:id/submissions', async ({ ctx, params, body }) => created(await addSubmission(ctx, params.id, body), 'SUBMISSION_CREATED', 'submission created'), {
      auth: 'visit:create',
      params: IdParams,
      body: AddSubmissionBody,
      response: responses({ 201: OneSubmission }, VISIT_CHANGE),
      detail: { summary: 'Attach a form to an open visit' },
    })
    .get(
      '/:id/submissions/:submission_id',
      async ({ ctx, params }) => ok(await readSubmission(ctx, params.submission_id, { mine: false, visitId: params.id })),
      {
        auth: 'visit:view',
        params: VisitSubmissionParams,
        response: responses({ 200: OneSubmission }, VISIT_SUBMISSION_READ),
        detail: { summary: 'Get a submission of a visit' },
      },
    )
    .delete(
      '/:id/submissions/:submission_id',
      async ({ ctx, params }) => ok(await deleteSubmission(ctx, params.id, params.submission_id), 'SUBMISSION_DELETED', 'submission deleted'),
      {
        auth: 'visit:create',
        params: VisitSubmissionParams,
        response: responses({ 200: DeletedSubmission }, SUBMISSION_DELETE),
        detail: { summary: 'Remove a submission not yet submitted' },
      },
    )

/** Phone: reading my visits and their submissions. */
const myVisitRoutes = (platform: PlatformPlugin, listing: Listing) =>
  new Elysia({ prefix: base('app', listing), tags: ['Visits (mobile)'] })
    .use(platform)
    .get(on(listing, { visits: '/me', 'outlet-visits': '' }), async ({ ctx, query }) => listed(await listVisits(ctx, query, { mine: true })), {
      auth: 'visit:view',
      query: MyVisitQuery,
      response: responses({ 200: ListOfVisits }),
      detail: { summary: 'My visits (filters: status, outlet, project, date range; default limit 10)' },
    })
    .get(on(listing, { visits: '/active', 'outlet-visits': '/active-visit' }), async ({ ctx }) => ok(await activeVisit(ctx)), {
      auth: 'visit:view',
      response: responses({ 200: Envelope(Type.Union([VisitDetailSchema, Type.Null()])) }, ['UNAUTHORIZED', 'TOKEN_EXPIRED', 'FORBIDDEN']),
      detail: { summary: 'My visit in progress, or null' },
    })
    .get('/submissions', async ({ ctx, query }) => listed(await listSubmissions(ctx, query, { mine: true })), {
      auth: 'visit:view',
      query: SubmissionQuery,
      response: responses({ 200: ListOfSubmissions }),
      detail: { summary: 'Submissions of my visits' },
    })
    .get('/submissions/:id', async ({ ctx, params }) => ok(await readSubmission(ctx, params.id, { mine: true })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneSubmission }, SUBMISSION_READ),
      detail: { summary: 'A submission of one of my visits' },
    })
    .get(MY_VISIT[listing], async ({ ctx, params }) => ok(await readVisit(ctx, params.id, { mine: true })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneVisit }, VISIT_READ),
      detail: { summary: 'One of my visits' },
    })
    .get(
      on(listing, { visits: '/me/:id/submissions', 'outlet-visits': '/:id/submissions' }),
      async ({ ctx, params, query }) => listed(await listSubmissions(ctx, query, { mine: true, visitId: params.id })),
      {
        auth: 'visit:view',
        params: IdParams,
        query: SubmissionQuery,
        response: responses({ 200: ListOfSubmissions }, VISIT_READ),
        detail: { summary: 'Submissions of one of my visits' },
      },
    )
    .get(
      on(listing, { visits: '/me/:id/submissions/:submission_id', 'outlet-visits': '/:id/submissions/:submission_id' }),
      async ({ ctx, params }) => ok(await readSubmission(ctx, params.submission_id, { mine: true, visitId: params.id })),
      {
        auth: 'visit:view',
        params: VisitSubmissionParams,
        response: responses({ 200: OneSubmission }, VISIT_SUBMISSION_READ),
        detail: { summary: 'A submission of one of my visits' },
      },
    )

/** Phone: planning a visit for myself, and the work on site — check in, save forms, check out. */
const fieldRoutes = (platform: PlatformPlugin, listing: Listing) =>
  new Elysia({ prefix: base('app', listing), tags: ['Visits (mobile)'] })
    .use(platform)
    .post(
      on(listing, { visits: '/self', 'outlet-visits': '' }),
      async ({ ctx, body }) => created(await createSelfVisit(ctx, body), 'VISIT_CREATED', 'visit created'),
      {
        auth: 'visit:create',
        body: SelfVisitBody,
        response: responses({ 201: OneVisit }),
        detail: { summary: 'Plan a visit for yourself (forms from the project)', [CREATED_LOCATION]: base('app', listing) + MY_VISIT[listing] },
      },
    )
    .post('/:id/check-in', async ({ ctx, params, body }) => ok(await checkIn(ctx, params.id, body), 'VISIT_CHECKED_IN', 'checked in'), {
      auth: 'visit:execute',
      params: IdParams,
      body: CheckInBody,
      response: responses({ 200: OneVisit }, CHECK_IN),
      detail: { summary: 'Check in on site (latitude and longitude required: LOCATION_REQUIRED)' },
    })
    .post('/:id/check-out', async ({ ctx, params, body }) => ok(await checkOut(ctx, params.id, body), 'VISIT_CHECKED_OUT', 'checked out'), {
      auth: 'visit:execute',
      params: IdParams,
      body: CheckOutBody,
      response: responses({ 200: OneVisit }, CHECK_OUT),
      detail: { summary: 'Check out; required forms must be completed (SUBMISSION_REQUIRED)' },
    })
    .post('/:id/submit-form-v2', async ({ ctx, params, body }) => ok(await submitForms(ctx, params.id, body), 'FORM_SUBMITTED', 'form submitted'), {
      auth: 'visit:execute',
      params: IdParams,
      body: SubmitFormV2Body,
      response: responses({ 200: SubmittedForms }, FORM_SAVE),
      detail: { summary: 'Save forms: each item creates (submission_id null) or updates a submission, as draft or completed' },
    })
    .post('/:id/submit-form', async ({ ctx, params, body }) => ok(await submitFormLegacy(ctx, params.id, body), 'FORM_SUBMITTED', 'form submitted'), {
      auth: 'visit:execute',
      params: IdParams,
      body: SubmitFormBody,
      response: responses({ 200: SubmittedForms }, FORM_SAVE),
      detail: { summary: 'Legacy: submit one completed form `{form_id, answers}`' },
    })
/** Each plugin serves both listings: the canonical `visits` and its alias `outlet-visits`. */
const PLUGINS = [planRoutes, officeVisitRoutes, reviewRoutes, visitSubmissionRoutes, myVisitRoutes, fieldRoutes]

export const visitRoutes = (platform: PlatformPlugin) => {
  const app = new Elysia()
  for (const listing of ['visits', 'outlet-visits'] as const) for (const plugin of PLUGINS) app.use(plugin(platform, listing))
  return app
}
