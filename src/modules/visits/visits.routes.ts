/**
 * Visit routes (docs/API.md §Visits) as one table. Every route is written once and served on both
 * listings: listing B (`/office/v1/visits`, `/app/v1/visits`) is canonical, listing A
 * (`…/outlet-visits`) its alias. A route's path is the part after the listing's base, the same for
 * both or one per listing where the alias spells it differently.
 *
 * A route validates (its schemas), calls one service verb with the caller's context and the
 * validated input, and answers the verb's result in the success envelope: `ok` (or `created` when
 * the route's success status is 201) with the route's code, `listed` for a page, or the verb's own
 * Response (the CSV export).
 *
 * Permissions: office reads need visit:view, planning and closing need visit:create, reviews need
 * submission:approve (all on web). On the phone: visit:view to read own visits, visit:create for a
 * self-visit, visit:execute to check in, submit forms and check out.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { AuthedContext } from '../../platform/context'
import { CREATED_LOCATION, type PlatformPlugin } from '../../platform/http/http'
import type { Page } from '../../platform/data/pagination'
import { created, listed, ok } from '../../platform/http/reply'
import { Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
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

const LISTINGS = ['visits', 'outlet-visits'] as const
type Listing = (typeof LISTINGS)[number]
/** A path after the listing's base: the same on both listings, or one per listing. */
type ListingPath = string | Record<Listing, string>
type Side = 'office' | 'app'
const base = (side: Side, listing: Listing) => `/${side}/v1/${listing}`
const pathOf = (side: Side, listing: Listing, path: ListingPath) => base(side, listing) + (typeof path === 'string' ? path : path[listing])

type Schema = TSchema | undefined
type Value<S extends Schema> = S extends TSchema ? Static<S> : undefined
/** What a verb gets: the validated path parameters, query and body. */
interface Input<P extends Schema, Q extends Schema, B extends Schema> {
  params: Value<P>
  query: Value<Q>
  body: Value<B>
}
/** The success envelope's code and message. */
interface Outcome {
  code: string
  message: string
}

interface VisitRoute<P extends Schema = Schema, Q extends Schema = Schema, B extends Schema = Schema> {
  side: Side
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: ListingPath
  /** Permission key (platform/http/http.ts, macro `auth`). */
  auth: string
  params?: P
  query?: Q
  body?: B
  /** `responses(...)`: the success schema under its status, and the documented error statuses. */
  response: Record<number, TSchema>
  summary: string
  /** For a create whose resource is read elsewhere than `<path>/:id`: that read route's path (CREATED_LOCATION). */
  createdAt?: ListingPath
  verb: (ctx: AuthedContext, input: Input<P, Q, B>) => unknown
  /** `page`: a listed page; `response`: the verb's own Response; else `ok`/`created` with this outcome (default SUCCESS). */
  reply?: 'page' | 'response' | Outcome | ((input: Input<P, Q, B>) => Outcome)
}

/** A route of the table, its verb typed by its own schemas. */
const route = <P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(definition: VisitRoute<P, Q, B>) =>
  definition as unknown as VisitRoute

const ListOfVisits = ListEnvelope(VisitListItemSchema)
const OneVisit = Envelope(VisitDetailSchema)
const OneSubmission = Envelope(SubmissionSchema)
const ListOfSubmissions = ListEnvelope(SubmissionSchema)
const SubmittedForms = Envelope(Type.Object({ visit_id: Type.Integer(), submissions: Type.Array(SubmissionSchema) }))
const CountOf = (extra: Record<string, TSchema>) => Envelope(Type.Object({ count: Type.Integer(), ...extra }))
const CreatedIds = CountOf({ ids: Type.Array(Type.Integer()) })

const APPROVED: Outcome = { code: 'SUBMISSION_APPROVED', message: 'submission approved' }
const REJECTED: Outcome = { code: 'SUBMISSION_REJECTED', message: 'submission rejected' }

/** The phone's own visit, where a self-visit is read. */
const MY_VISIT = { visits: '/me/:id', 'outlet-visits': '/:id' }

export const VISIT_ROUTES: VisitRoute[] = [
  // ── Office: planning and reading ──────────────────────────────────────────────────────────────
  route({
    side: 'office',
    method: 'GET',
    path: '',
    auth: 'visit:view',
    query: OfficeVisitQuery,
    response: responses({ 200: ListOfVisits }),
    summary: 'List visits (filters: status, outlet, project, team, assigned user, date range)',
    verb: (ctx, { query }) => listVisits(ctx, query, { mine: false }),
    reply: 'page',
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '',
    auth: 'visit:create',
    body: CreateVisitBody,
    response: responses({ 201: OneVisit }, [400, 401, 403, 409, 422]),
    summary: 'Plan a visit; without `submissions` it gets the project’s forms',
    verb: (ctx, { body }) => createVisit(ctx, body),
    reply: { code: 'VISIT_CREATED', message: 'visit created' },
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/bulk',
    auth: 'visit:create',
    body: BulkVisitBody,
    response: responses({ 201: CreatedIds }, [400, 401, 403, 409, 422]),
    summary: 'Plan many visits at once: all or nothing, errors keyed visits.N.field',
    verb: (ctx, { body }) => bulkCreateVisits(ctx, body),
    reply: { code: 'VISITS_CREATED', message: 'visits created' },
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/import',
    auth: 'visit:create',
    body: t.String({ minLength: 1, description: 'text/csv with a header row (see the visits CSV format)' }),
    response: responses({ 201: CreatedIds }, [400, 401, 403, 409, 422]),
    summary: 'Import visits from CSV (Content-Type: text/csv); one bad row imports nothing',
    verb: (ctx, { body }) => importVisits(ctx, body),
    reply: { code: 'VISITS_IMPORTED', message: 'visits imported' },
  }),
  route({
    side: 'office',
    method: 'GET',
    path: '/export',
    auth: 'visit:view',
    query: OfficeVisitQuery,
    response: responses({ 200: Type.String({ description: 'text/csv, streamed' }) }),
    summary: 'Export visits as CSV with the list filters',
    verb: (ctx, { query }) => exportVisits(ctx, query),
    reply: 'response',
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/send-to-field',
    auth: 'visit:create',
    body: SendToFieldBody,
    response: responses(
      { 200: CountOf({ visits: Type.Array(Type.Object({ id: Type.Integer(), notified_user_ids: Type.Array(Type.Integer()) })) }) },
      [400, 401, 403, 409],
    ),
    summary: 'Send scheduled visits to their assignees’ phones and notify them',
    verb: (ctx, { body }) => sendToField(ctx, body),
    reply: { code: 'VISITS_SENT_TO_FIELD', message: 'visits sent to the field' },
  }),
  route({
    side: 'office',
    method: 'GET',
    path: '/submissions',
    auth: 'visit:view',
    query: SubmissionQuery,
    response: responses({ 200: ListOfSubmissions }),
    summary: 'List submissions (filters: approval_status, team_id, status, project, outlet, form, visit, user, dates)',
    verb: (ctx, { query }) => listSubmissions(ctx, query, { mine: false }),
    reply: 'page',
  }),
  route({
    side: 'office',
    method: 'GET',
    path: '/submissions/:id',
    auth: 'visit:view',
    params: IdParams,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
    summary: 'Get a submission',
    verb: (ctx, { params }) => readSubmission(ctx, params.id, { mine: false }),
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/submissions/:id/approval',
    auth: 'submission:approve',
    params: IdParams,
    body: ApprovalBody,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404, 409]),
    summary: 'Approve or reject a completed submission (notes required to reject)',
    verb: (ctx, { params, body }) => reviewSubmission(ctx, params.id, body),
    reply: ({ body }) => (body.status === 'approved' ? APPROVED : REJECTED),
  }),
  route({
    side: 'office',
    method: 'GET',
    path: '/:id',
    auth: 'visit:view',
    params: IdParams,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404]),
    summary: 'Get a visit with assignees, submissions and logs',
    verb: (ctx, { params }) => readVisit(ctx, params.id, { mine: false }),
  }),
  route({
    side: 'office',
    method: 'PUT',
    path: '/:id/cancel',
    auth: 'visit:create',
    params: IdParams,
    body: ReasonBody,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
    summary: 'Cancel a scheduled or in-progress visit',
    verb: (ctx, { params, body }) => closeVisit(ctx, params.id, 'cancel', body),
    reply: { code: 'VISIT_CANCELLED', message: 'visit cancelled' },
  }),
  route({
    side: 'office',
    method: 'PUT',
    path: '/:id/force-close',
    auth: 'visit:create',
    params: IdParams,
    body: ReasonBody,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
    summary: 'Force-close a visit stuck in progress',
    verb: (ctx, { params, body }) => closeVisit(ctx, params.id, 'force_close', body),
    reply: { code: 'VISIT_FORCE_CLOSED', message: 'visit force-closed' },
  }),
  route({
    side: 'office',
    method: 'POST',
    path: { visits: '/:id/assign', 'outlet-visits': '/:id/assign-users' },
    auth: 'visit:create',
    params: IdParams,
    body: AssignBody,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
    summary: 'Set the assignees of a scheduled visit',
    verb: (ctx, { params, body }) => assignVisit(ctx, params.id, body),
    reply: { code: 'VISIT_ASSIGNED', message: 'visit assigned' },
  }),
  route({
    side: 'office',
    method: 'GET',
    path: '/:id/submissions',
    auth: 'visit:view',
    params: IdParams,
    query: SubmissionQuery,
    response: responses({ 200: ListOfSubmissions }, [400, 401, 403, 404]),
    summary: 'Submissions of a visit',
    verb: (ctx, { params, query }) => listSubmissions(ctx, query, { mine: false, visitId: params.id }),
    reply: 'page',
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/:id/submissions',
    auth: 'visit:create',
    params: IdParams,
    body: AddSubmissionBody,
    response: responses({ 201: OneSubmission }, [400, 401, 403, 404, 409]),
    summary: 'Attach a form to an open visit',
    verb: (ctx, { params, body }) => addSubmission(ctx, params.id, body),
    reply: { code: 'SUBMISSION_CREATED', message: 'submission created' },
  }),
  route({
    side: 'office',
    method: 'GET',
    path: '/:id/submissions/:submission_id',
    auth: 'visit:view',
    params: VisitSubmissionParams,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
    summary: 'Get a submission of a visit',
    verb: (ctx, { params }) => readSubmission(ctx, params.submission_id, { mine: false, visitId: params.id }),
  }),
  route({
    side: 'office',
    method: 'DELETE',
    path: '/:id/submissions/:submission_id',
    auth: 'visit:create',
    params: VisitSubmissionParams,
    response: responses({ 200: Envelope(Type.Object({ ...SubmissionSchema.properties, deleted_at: Type.String() })) }, [400, 401, 403, 404, 409]),
    summary: 'Remove a submission not yet submitted',
    verb: (ctx, { params }) => deleteSubmission(ctx, params.id, params.submission_id),
    reply: { code: 'SUBMISSION_DELETED', message: 'submission deleted' },
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/:id/submissions/:submission_id/approve',
    auth: 'submission:approve',
    params: VisitSubmissionParams,
    body: ApproveBody,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404, 409]),
    summary: 'Approve a completed submission',
    verb: (ctx, { params, body }) => reviewSubmission(ctx, params.submission_id, { status: 'approved', notes: body.notes }, params.id),
    reply: APPROVED,
  }),
  route({
    side: 'office',
    method: 'POST',
    path: '/:id/submissions/:submission_id/reject',
    auth: 'submission:approve',
    params: VisitSubmissionParams,
    body: RejectBody,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404, 409]),
    summary: 'Reject a completed submission (with notes)',
    verb: (ctx, { params, body }) => reviewSubmission(ctx, params.submission_id, { status: 'rejected', notes: body.notes }, params.id),
    reply: REJECTED,
  }),

  // ── Phone: the field user's own visits ───────────────────────────────────────────────────────
  route({
    side: 'app',
    method: 'POST',
    path: { visits: '/self', 'outlet-visits': '' },
    auth: 'visit:create',
    body: SelfVisitBody,
    response: responses({ 201: OneVisit }, [400, 401, 403]),
    summary: 'Plan a visit for yourself (forms from the project)',
    createdAt: MY_VISIT,
    verb: (ctx, { body }) => createSelfVisit(ctx, body),
    reply: { code: 'VISIT_CREATED', message: 'visit created' },
  }),
  route({
    side: 'app',
    method: 'GET',
    path: { visits: '/me', 'outlet-visits': '' },
    auth: 'visit:view',
    query: MyVisitQuery,
    response: responses({ 200: ListOfVisits }),
    summary: 'My visits (filters: status, outlet, project, date range; default limit 10)',
    verb: (ctx, { query }) => listVisits(ctx, query, { mine: true }),
    reply: 'page',
  }),
  route({
    side: 'app',
    method: 'GET',
    path: { visits: '/active', 'outlet-visits': '/active-visit' },
    auth: 'visit:view',
    response: responses({ 200: Envelope(Type.Union([VisitDetailSchema, Type.Null()])) }, [401, 403]),
    summary: 'My visit in progress, or null',
    verb: (ctx) => activeVisit(ctx),
  }),
  route({
    side: 'app',
    method: 'GET',
    path: '/submissions',
    auth: 'visit:view',
    query: SubmissionQuery,
    response: responses({ 200: ListOfSubmissions }),
    summary: 'Submissions of my visits',
    verb: (ctx, { query }) => listSubmissions(ctx, query, { mine: true }),
    reply: 'page',
  }),
  route({
    side: 'app',
    method: 'GET',
    path: '/submissions/:id',
    auth: 'visit:view',
    params: IdParams,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
    summary: 'A submission of one of my visits',
    verb: (ctx, { params }) => readSubmission(ctx, params.id, { mine: true }),
  }),
  route({
    side: 'app',
    method: 'GET',
    path: MY_VISIT,
    auth: 'visit:view',
    params: IdParams,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404]),
    summary: 'One of my visits',
    verb: (ctx, { params }) => readVisit(ctx, params.id, { mine: true }),
  }),
  route({
    side: 'app',
    method: 'GET',
    path: { visits: '/me/:id/submissions', 'outlet-visits': '/:id/submissions' },
    auth: 'visit:view',
    params: IdParams,
    query: SubmissionQuery,
    response: responses({ 200: ListOfSubmissions }, [400, 401, 403, 404]),
    summary: 'Submissions of one of my visits',
    verb: (ctx, { params, query }) => listSubmissions(ctx, query, { mine: true, visitId: params.id }),
    reply: 'page',
  }),
  route({
    side: 'app',
    method: 'GET',
    path: { visits: '/me/:id/submissions/:submission_id', 'outlet-visits': '/:id/submissions/:submission_id' },
    auth: 'visit:view',
    params: VisitSubmissionParams,
    response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
    summary: 'A submission of one of my visits',
    verb: (ctx, { params }) => readSubmission(ctx, params.submission_id, { mine: true, visitId: params.id }),
  }),
  route({
    side: 'app',
    method: 'POST',
    path: '/:id/check-in',
    auth: 'visit:execute',
    params: IdParams,
    body: CheckInBody,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
    summary: 'Check in on site (latitude and longitude required: LOCATION_REQUIRED)',
    verb: (ctx, { params, body }) => checkIn(ctx, params.id, body),
    reply: { code: 'VISIT_CHECKED_IN', message: 'checked in' },
  }),
  route({
    side: 'app',
    method: 'POST',
    path: '/:id/check-out',
    auth: 'visit:execute',
    params: IdParams,
    body: CheckOutBody,
    response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409, 422]),
    summary: 'Check out; required forms must be completed (SUBMISSION_REQUIRED)',
    verb: (ctx, { params, body }) => checkOut(ctx, params.id, body),
    reply: { code: 'VISIT_CHECKED_OUT', message: 'checked out' },
  }),
  route({
    side: 'app',
    method: 'POST',
    path: '/:id/submit-form-v2',
    auth: 'visit:execute',
    params: IdParams,
    body: SubmitFormV2Body,
    response: responses({ 200: SubmittedForms }, [400, 401, 403, 404, 409]),
    summary: 'Save forms: each item creates (submission_id null) or updates a submission, as draft or completed',
    verb: (ctx, { params, body }) => submitForms(ctx, params.id, body),
    reply: { code: 'FORM_SUBMITTED', message: 'form submitted' },
  }),
  route({
    side: 'app',
    method: 'POST',
    path: '/:id/submit-form',
    auth: 'visit:execute',
    params: IdParams,
    body: SubmitFormBody,
    response: responses({ 200: SubmittedForms }, [400, 401, 403, 404, 409]),
    summary: 'Legacy: submit one completed form `{form_id, answers}`',
    verb: (ctx, { params, body }) => submitFormLegacy(ctx, params.id, body),
    reply: { code: 'FORM_SUBMITTED', message: 'form submitted' },
  }),
]

/** The route's answer for the verb's result. */
function answer(definition: VisitRoute, input: Input<Schema, Schema, Schema>, data: unknown) {
  const { reply } = definition
  if (reply === 'page') return listed(data as Page<unknown>)
  if (reply === 'response') return data
  const outcome = typeof reply === 'function' ? reply(input) : reply
  if (201 in definition.response) return created(data, outcome!.code, outcome!.message)
  return outcome ? ok(data, outcome.code, outcome.message) : ok(data)
}

/** Elysia's hook object of a route on one listing: only the schemas it declares. */
function hooksOf(definition: VisitRoute, listing: Listing) {
  const { auth, params, query, body, response, summary, createdAt } = definition
  return {
    auth,
    ...(params && { params }),
    ...(query && { query }),
    ...(body && { body }),
    response,
    detail: createdAt === undefined ? { summary } : { summary, [CREATED_LOCATION]: pathOf(definition.side, listing, createdAt) },
  }
}

type RouteContext = Input<Schema, Schema, Schema> & { ctx: AuthedContext }

export function visitRoutes(platform: PlatformPlugin) {
  const sides = {
    office: new Elysia({ tags: ['Visits (office)'] }).use(platform),
    app: new Elysia({ tags: ['Visits (mobile)'] }).use(platform),
  }
  for (const definition of VISIT_ROUTES) {
    for (const listing of LISTINGS) {
      const handler = async ({ ctx, params, query, body }: RouteContext) => {
        const input = { params, query, body }
        return answer(definition, input, await definition.verb(ctx, input))
      }
      sides[definition.side].route(
        definition.method,
        pathOf(definition.side, listing, definition.path),
        handler as never,
        hooksOf(definition, listing) as never,
      )
    }
  }
  return new Elysia().use(sides.office).use(sides.app)
}
