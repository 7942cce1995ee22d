/**
 * Visit routes. Two path families (`visits` and the alias `outlet-visits`); both are served by the same handlers (docs/API.md §Visits):
 * listing B (`/office/v1/visits`, `/app/v1/visits`) is canonical, listing A (`…/outlet-visits`) its
 * alias. Each route below is declared once with every path it answers on.
 *
 * Permissions: office reads need visit:view, planning and closing need visit:create, reviews need
 * submission:approve (all on web). On the phone: visit:view to read own visits, visit:create for a
 * self-visit, visit:execute to check in, submit forms and check out.
 */
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { CREATED_LOCATION, type PlatformPlugin } from '../../platform/http'
import { created, listed, ok } from '../../platform/reply'
import { Envelope, IdParams, ListEnvelope, responses } from '../../platform/schema'
import { ValidationFailed } from '../../platform/errors'
import { addSubmission, deleteSubmission, reviewSubmission, submitFormLegacy, submitForms } from './submissions.service'
import { exportVisits, importVisits } from './visits.csv'
import { activeVisit, getSubmission, listSubmissions, listVisits, visitDetail } from './visits.queries'
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
import { assignVisit, checkIn, checkOut, closeVisit, createSelfVisit, createVisit, createVisits, sendToField } from './visits.service'

const OFFICE = ['/office/v1/visits', '/office/v1/outlet-visits']
const MOBILE = ['/app/v1/visits', '/app/v1/outlet-visits']
const at = (bases: string[], ...suffixes: string[]) => bases.flatMap((base) => suffixes.map((suffix) => `${base}${suffix}`))

const ListOfVisits = ListEnvelope(VisitListItemSchema)
const OneVisit = Envelope(VisitDetailSchema)
const OneSubmission = Envelope(SubmissionSchema)
const SubmittedForms = Envelope(Type.Object({ visit_id: Type.Integer(), submissions: Type.Array(SubmissionSchema) }))
const CountOf = (extra: Record<string, import('@sinclair/typebox').TSchema>) => Envelope(Type.Object({ count: Type.Integer(), ...extra }))

export function visitRoutes(platform: PlatformPlugin) {
  const office = new Elysia({ tags: ['Visits (office)'] }).use(platform)
  const mobile = new Elysia({ tags: ['Visits (mobile)'] }).use(platform)

  // ── Office: planning and reading ──────────────────────────────────────────────────────────────
  for (const path of at(OFFICE, '')) {
    office
      .get(path, async ({ ctx, query }) => listed(await listVisits(ctx, query, { mine: false })), {
        auth: 'visit:view',
        query: OfficeVisitQuery,
        response: responses({ 200: ListOfVisits }),
        detail: { summary: 'List visits (filters: status, outlet, project, team, assigned user, date range)' },
      })
      .post(path, async ({ ctx, body }) => created(await createVisit(ctx, body), 'VISIT_CREATED', 'visit created'), {
        auth: 'visit:create',
        body: CreateVisitBody,
        response: responses({ 201: OneVisit }, [400, 401, 403, 409, 422]),
        detail: { summary: 'Plan a visit; without `submissions` it gets the project’s forms' },
      })
  }
  for (const path of at(OFFICE, '/bulk')) {
    office.post(
      path,
      async ({ ctx, body }) => {
        const ids = await createVisits(ctx, body.visits)
        return created({ count: ids.length, ids }, 'VISITS_CREATED', 'visits created')
      },
      {
        auth: 'visit:create',
        body: BulkVisitBody,
        response: responses({ 201: CountOf({ ids: Type.Array(Type.Integer()) }) }, [400, 401, 403, 409, 422]),
        detail: { summary: 'Plan many visits at once: all or nothing, errors keyed visits.N.field' },
      },
    )
  }
  for (const path of at(OFFICE, '/import')) {
    office.post(path, async ({ ctx, body }) => created(await importVisits(ctx, body), 'VISITS_IMPORTED', 'visits imported'), {
      auth: 'visit:create',
      body: t.String({ minLength: 1, description: 'text/csv with a header row (see the visits CSV format)' }),
      response: responses({ 201: CountOf({ ids: Type.Array(Type.Integer()) }) }, [400, 401, 403, 409, 422]),
      detail: { summary: 'Import visits from CSV (Content-Type: text/csv); one bad row imports nothing' },
    })
  }
  for (const path of at(OFFICE, '/export')) {
    office.get(path, ({ ctx, query }) => exportVisits(ctx, query), {
      auth: 'visit:view',
      query: OfficeVisitQuery,
      response: responses({ 200: Type.String({ description: 'text/csv, streamed' }) }),
      detail: { summary: 'Export visits as CSV with the list filters' },
    })
  }
  for (const path of at(OFFICE, '/send-to-field')) {
    office.post(path, async ({ ctx, body }) => ok(await sendToField(ctx, body.visit_ids), 'VISITS_SENT_TO_FIELD', 'visits sent to the field'), {
      auth: 'visit:create',
      body: SendToFieldBody,
      response: responses(
        { 200: CountOf({ visits: Type.Array(Type.Object({ id: Type.Integer(), notified_user_ids: Type.Array(Type.Integer()) })) }) },
        [400, 401, 403, 409],
      ),
      detail: { summary: 'Send scheduled visits to their assignees’ phones and notify them' },
    })
  }
  for (const path of at(OFFICE, '/submissions')) {
    office.get(path, async ({ ctx, query }) => listed(await listSubmissions(ctx, query, { mine: false })), {
      auth: 'visit:view',
      query: SubmissionQuery,
      response: responses({ 200: ListEnvelope(SubmissionSchema) }),
      detail: { summary: 'List submissions (filters: approval_status, team_id, status, project, outlet, form, visit, user, dates)' },
    })
  }
  for (const path of at(OFFICE, '/submissions/:id')) {
    office.get(path, async ({ ctx, params }) => ok(await getSubmission(ctx.deps.db.read, ctx, params.id, { mine: false })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
      detail: { summary: 'Get a submission' },
    })
  }
  for (const path of at(OFFICE, '/submissions/:id/approval')) {
    office.post(
      path,
      async ({ ctx, params, body }) => {
        if (body.status === 'rejected' && !body.notes) throw ValidationFailed.field('notes', 'is required when rejecting')
        const result = await reviewSubmission(ctx, params.id, body.status, body.notes ?? null)
        return body.status === 'approved' ? ok(result, 'SUBMISSION_APPROVED', 'submission approved') : ok(result, 'SUBMISSION_REJECTED', 'submission rejected')
      },
      {
        auth: 'submission:approve',
        params: IdParams,
        body: ApprovalBody,
        response: responses({ 200: OneSubmission }, [400, 401, 403, 404, 409]),
        detail: { summary: 'Approve or reject a completed submission (notes required to reject)' },
      },
    )
  }
  for (const path of at(OFFICE, '/:id')) {
    office.get(path, async ({ ctx, params }) => ok(await visitDetail(ctx.deps.db.read, ctx, params.id, { mine: false })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneVisit }, [400, 401, 403, 404]),
      detail: { summary: 'Get a visit with assignees, submissions and logs' },
    })
  }
  for (const [suffix, action, code, message] of [
    ['/:id/cancel', 'cancel', 'VISIT_CANCELLED', 'visit cancelled'],
    ['/:id/force-close', 'force_close', 'VISIT_FORCE_CLOSED', 'visit force-closed'],
  ] as const) {
    for (const path of at(OFFICE, suffix)) {
      office.put(path, async ({ ctx, params, body }) => ok(await closeVisit(ctx, params.id, action, body.reason), code, message), {
        auth: 'visit:create',
        params: IdParams,
        body: ReasonBody,
        response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
        detail: { summary: action === 'cancel' ? 'Cancel a scheduled or in-progress visit' : 'Force-close a visit stuck in progress' },
      })
    }
  }
  for (const path of [...at(['/office/v1/visits'], '/:id/assign'), ...at(['/office/v1/outlet-visits'], '/:id/assign-users')]) {
    office.post(path, async ({ ctx, params, body }) => ok(await assignVisit(ctx, params.id, body.user_ids), 'VISIT_ASSIGNED', 'visit assigned'), {
      auth: 'visit:create',
      params: IdParams,
      body: AssignBody,
      response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Set the assignees of a scheduled visit' },
    })
  }
  for (const path of at(OFFICE, '/:id/submissions')) {
    office
      .get(path, async ({ ctx, params, query }) => listed(await listSubmissions(ctx, query, { mine: false, visitId: params.id })), {
        auth: 'visit:view',
        params: IdParams,
        query: SubmissionQuery,
        response: responses({ 200: ListEnvelope(SubmissionSchema) }, [400, 401, 403, 404]),
        detail: { summary: 'Submissions of a visit' },
      })
      .post(
        path,
        async ({ ctx, params, body }) =>
          created(
            await addSubmission(ctx, params.id, { form_id: body.form_id, is_required: body.is_required ?? false }),
            'SUBMISSION_CREATED',
            'submission created',
          ),
        {
          auth: 'visit:create',
          params: IdParams,
          body: AddSubmissionBody,
          response: responses({ 201: OneSubmission }, [400, 401, 403, 404, 409]),
          detail: { summary: 'Attach a form to an open visit' },
        },
      )
  }
  for (const path of at(OFFICE, '/:id/submissions/:submission_id')) {
    office
      .get(path, async ({ ctx, params }) => ok(await getSubmission(ctx.deps.db.read, ctx, params.submission_id, { mine: false, visitId: params.id })), {
        auth: 'visit:view',
        params: VisitSubmissionParams,
        response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
        detail: { summary: 'Get a submission of a visit' },
      })
      .delete(path, async ({ ctx, params }) => ok(await deleteSubmission(ctx, params.id, params.submission_id), 'SUBMISSION_DELETED', 'submission deleted'), {
        auth: 'visit:create',
        params: VisitSubmissionParams,
        response: responses({ 200: Envelope(Type.Object({ ...SubmissionSchema.properties, deleted_at: Type.String() })) }, [400, 401, 403, 404, 409]),
        detail: { summary: 'Remove a submission not yet submitted' },
      })
  }
  for (const [suffix, decision] of [
    ['/:id/submissions/:submission_id/approve', 'approved'],
    ['/:id/submissions/:submission_id/reject', 'rejected'],
  ] as const) {
    for (const path of at(OFFICE, suffix)) {
      office.post(
        path,
        async ({ ctx, params, body }) => {
          const result = await reviewSubmission(ctx, params.submission_id, decision, body.notes ?? null, params.id)
          return decision === 'approved' ? ok(result, 'SUBMISSION_APPROVED', 'submission approved') : ok(result, 'SUBMISSION_REJECTED', 'submission rejected')
        },
        {
          auth: 'submission:approve',
          params: VisitSubmissionParams,
          body: decision === 'approved' ? ApproveBody : RejectBody,
          response: responses({ 200: OneSubmission }, [400, 401, 403, 404, 409]),
          detail: { summary: decision === 'approved' ? 'Approve a completed submission' : 'Reject a completed submission (with notes)' },
        },
      )
    }
  }

  // ── Mobile: the field user's own visits ──────────────────────────────────────────────────────
  for (const path of ['/app/v1/visits/self', '/app/v1/outlet-visits']) {
    mobile.post(path, async ({ ctx, body }) => created(await createSelfVisit(ctx, body), 'VISIT_CREATED', 'visit created'), {
      auth: 'visit:create',
      body: SelfVisitBody,
      response: responses({ 201: OneVisit }, [400, 401, 403]),
      // The new visit is read at the caller's own visit route (a replay's Location).
      detail: {
        summary: 'Plan a visit for yourself (forms from the project)',
        [CREATED_LOCATION]: path === '/app/v1/visits/self' ? '/app/v1/visits/me/:id' : '/app/v1/outlet-visits/:id',
      },
    })
  }
  for (const path of ['/app/v1/visits/me', '/app/v1/outlet-visits']) {
    mobile.get(path, async ({ ctx, query }) => listed(await listVisits(ctx, query, { mine: true })), {
      auth: 'visit:view',
      query: MyVisitQuery,
      response: responses({ 200: ListOfVisits }),
      detail: { summary: 'My visits (filters: status, outlet, project, date range; default limit 10)' },
    })
  }
  for (const path of ['/app/v1/visits/active', '/app/v1/outlet-visits/active-visit']) {
    mobile.get(path, async ({ ctx }) => ok(await activeVisit(ctx)), {
      auth: 'visit:view',
      response: responses({ 200: Envelope(Type.Union([VisitDetailSchema, Type.Null()])) }, [401, 403]),
      detail: { summary: 'My visit in progress, or null' },
    })
  }
  for (const path of ['/app/v1/outlet-visits/submissions', '/app/v1/visits/submissions']) {
    mobile.get(path, async ({ ctx, query }) => listed(await listSubmissions(ctx, query, { mine: true })), {
      auth: 'visit:view',
      query: SubmissionQuery,
      response: responses({ 200: ListEnvelope(SubmissionSchema) }),
      detail: { summary: 'Submissions of my visits' },
    })
  }
  for (const path of ['/app/v1/outlet-visits/submissions/:id', '/app/v1/visits/submissions/:id']) {
    mobile.get(path, async ({ ctx, params }) => ok(await getSubmission(ctx.deps.db.read, ctx, params.id, { mine: true })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
      detail: { summary: 'A submission of one of my visits' },
    })
  }
  for (const path of ['/app/v1/visits/me/:id', '/app/v1/outlet-visits/:id']) {
    mobile.get(path, async ({ ctx, params }) => ok(await visitDetail(ctx.deps.db.read, ctx, params.id, { mine: true })), {
      auth: 'visit:view',
      params: IdParams,
      response: responses({ 200: OneVisit }, [400, 401, 403, 404]),
      detail: { summary: 'One of my visits' },
    })
  }
  for (const path of ['/app/v1/visits/me/:id/submissions', '/app/v1/outlet-visits/:id/submissions']) {
    mobile.get(path, async ({ ctx, params, query }) => listed(await listSubmissions(ctx, query, { mine: true, visitId: params.id })), {
      auth: 'visit:view',
      params: IdParams,
      query: SubmissionQuery,
      response: responses({ 200: ListEnvelope(SubmissionSchema) }, [400, 401, 403, 404]),
      detail: { summary: 'Submissions of one of my visits' },
    })
  }
  for (const path of ['/app/v1/visits/me/:id/submissions/:submission_id', '/app/v1/outlet-visits/:id/submissions/:submission_id']) {
    mobile.get(path, async ({ ctx, params }) => ok(await getSubmission(ctx.deps.db.read, ctx, params.submission_id, { mine: true, visitId: params.id })), {
      auth: 'visit:view',
      params: VisitSubmissionParams,
      response: responses({ 200: OneSubmission }, [400, 401, 403, 404]),
      detail: { summary: 'A submission of one of my visits' },
    })
  }
  for (const path of at(MOBILE, '/:id/check-in')) {
    mobile.post(
      path,
      async ({ ctx, params, body }) => ok(await checkIn(ctx, params.id, { ...body, photo: body.check_in_photo }), 'VISIT_CHECKED_IN', 'checked in'),
      {
        auth: 'visit:execute',
        params: IdParams,
        body: CheckInBody,
        response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409]),
        detail: { summary: 'Check in on site (latitude and longitude required: LOCATION_REQUIRED)' },
      },
    )
  }
  for (const path of at(MOBILE, '/:id/check-out')) {
    mobile.post(
      path,
      async ({ ctx, params, body }) => ok(await checkOut(ctx, params.id, { ...body, photo: body.check_out_photo }), 'VISIT_CHECKED_OUT', 'checked out'),
      {
        auth: 'visit:execute',
        params: IdParams,
        body: CheckOutBody,
        response: responses({ 200: OneVisit }, [400, 401, 403, 404, 409, 422]),
        detail: { summary: 'Check out; required forms must be completed (SUBMISSION_REQUIRED)' },
      },
    )
  }
  for (const path of at(MOBILE, '/:id/submit-form-v2')) {
    mobile.post(path, async ({ ctx, params, body }) => ok(await submitForms(ctx, params.id, body), 'FORM_SUBMITTED', 'form submitted'), {
      auth: 'visit:execute',
      params: IdParams,
      body: SubmitFormV2Body,
      response: responses({ 200: SubmittedForms }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Save forms: each item creates (submission_id null) or updates a submission, as draft or completed' },
    })
  }
  for (const path of at(MOBILE, '/:id/submit-form')) {
    mobile.post(path, async ({ ctx, params, body }) => ok(await submitFormLegacy(ctx, params.id, body), 'FORM_SUBMITTED', 'form submitted'), {
      auth: 'visit:execute',
      params: IdParams,
      body: SubmitFormBody,
      response: responses({ 200: SubmittedForms }, [400, 401, 403, 404, 409]),
      detail: { summary: 'Legacy: submit one completed form `{form_id, answers}`' },
    })
  }

  return new Elysia().use(office).use(mobile)
}
